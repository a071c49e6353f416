complete -c condor_qedit -l name -d 'Connect to the given schedd (only the local schedd exists)' -r
complete -c condor_qedit -o name -d 'Connect to the given schedd (only the local schedd exists)' -r
complete -c condor_qedit -l pool -d 'Use the given central manager to find daemons (this host\'s pool)' -r
complete -c condor_qedit -o pool -d 'Use the given central manager to find daemons (this host\'s pool)' -r
complete -c condor_qedit -l constraint -d 'Edit jobs that match EXPR' -r
complete -c condor_qedit -o constraint -d 'Edit jobs that match EXPR' -r
complete -c condor_qedit -l owner -d 'Edit jobs owned by OWNER' -r
complete -c condor_qedit -o owner -d 'Edit jobs owned by OWNER' -r
complete -c condor_qedit -l jobids -d 'Edit jobs in the comma-separated ID-LIST' -r
complete -c condor_qedit -o jobids -d 'Edit jobs in the comma-separated ID-LIST' -r
complete -c condor_qedit -l help -d 'Display this screen'
complete -c condor_qedit -o help -d 'Display this screen'
complete -c condor_qedit -l debug -d 'Display debugging info to console'
complete -c condor_qedit -o debug -d 'Display debugging info to console'
complete -c condor_qedit -l dry-run -d 'Display whether edit is allowed'
complete -c condor_qedit -o dry-run -d 'Display whether edit is allowed'
complete -c condor_qedit -l forward -d 'Forward changes to shadow/gridmanager'
complete -c condor_qedit -o forward -d 'Forward changes to shadow/gridmanager'
