complete -c condor_watch_q -l users -d 'Which users to track.' -r
complete -c condor_watch_q -o users -d 'Which users to track.' -r
complete -c condor_watch_q -l clusters -d 'Which cluster IDs to track.' -r
complete -c condor_watch_q -o clusters -d 'Which cluster IDs to track.' -r
complete -c condor_watch_q -l larger-than -d 'Track all jobs with cluster IDs greater than or equal to the specified CLUSTER_ID.' -r
complete -c condor_watch_q -o larger-than -d 'Track all jobs with cluster IDs greater than or equal to the specified CLUSTER_ID.' -r
complete -c condor_watch_q -l files -d 'Which event logs to track.' -r -F
complete -c condor_watch_q -o files -d 'Which event logs to track.' -r -F
complete -c condor_watch_q -l batches -d 'Which batch names to track.' -r
complete -c condor_watch_q -o batches -d 'Which batch names to track.' -r
complete -c condor_watch_q -l collector -d 'Which collector to contact to find the schedd, if needed.' -r
complete -c condor_watch_q -o collector -d 'Which collector to contact to find the schedd, if needed.' -r
complete -c condor_watch_q -l schedd -d 'Which schedd to contact for queries, if needed.' -r
complete -c condor_watch_q -o schedd -d 'Which schedd to contact for queries, if needed.' -r
complete -c condor_watch_q -l exit -d 'Exit when a condition holds: GROUPER is one of {all, any, none}, JOB_STATUS one of {active, done, idle, held}; may be given several times.' -r
complete -c condor_watch_q -o exit -d 'Exit when a condition holds: GROUPER is one of {all, any, none}, JOB_STATUS one of {active, done, idle, held}; may be given several times.' -r
complete -c condor_watch_q -l groupby -d 'Select what attribute to group jobs by.' -r -f -a "batch\t''
complete -c condor_watch_q -o groupby -d 'Select what attribute to group jobs by.' -r -f -a "batch\t''
log\t''
cluster\t''"
complete -c condor_watch_q -l summary-type -d 'Choose what to display on the summary line. By default, show totals.' -r -f -a "totals\t''
complete -c condor_watch_q -o summary-type -d 'Choose what to display on the summary line. By default, show totals.' -r -f -a "totals\t''
percentages\t''"
complete -c condor_watch_q -l help -d 'Show this help message and exit.'
complete -c condor_watch_q -o help -d 'Show this help message and exit.'
complete -c condor_watch_q -l debug -d 'Turn on HTCondor debug printing.'
complete -c condor_watch_q -o debug -d 'Turn on HTCondor debug printing.'
complete -c condor_watch_q -l table -d 'Enable/disable the table. Enabled by default.'
complete -c condor_watch_q -o table -d 'Enable/disable the table. Enabled by default.'
complete -c condor_watch_q -l progress -d 'Enable/disable the progress bar. Enabled by default.'
complete -c condor_watch_q -o progress -d 'Enable/disable the progress bar. Enabled by default.'
complete -c condor_watch_q -l row-progress -d 'Enable/disable the progress bar for each row. Enabled by default.'
complete -c condor_watch_q -o row-progress -d 'Enable/disable the progress bar for each row. Enabled by default.'
complete -c condor_watch_q -l summary -d 'Enable/disable the summary line. Enabled by default.'
complete -c condor_watch_q -o summary -d 'Enable/disable the summary line. Enabled by default.'
complete -c condor_watch_q -l updated-at -d 'Enable/disable the "updated at" line. Enabled by default.'
complete -c condor_watch_q -o updated-at -d 'Enable/disable the "updated at" line. Enabled by default.'
complete -c condor_watch_q -l abbreviate -d 'Enable/disable abbreviating path components to the shortest somewhat-unique prefix.'
complete -c condor_watch_q -o abbreviate -d 'Enable/disable abbreviating path components to the shortest somewhat-unique prefix.'
complete -c condor_watch_q -l color -d 'Enable/disable colored output. Enabled by default if connected to a tty.'
complete -c condor_watch_q -o color -d 'Enable/disable colored output. Enabled by default if connected to a tty.'
complete -c condor_watch_q -l refresh -d 'Enable/disable refreshing output (instead of appending). Enabled by default if connected to a tty.'
complete -c condor_watch_q -o refresh -d 'Enable/disable refreshing output (instead of appending). Enabled by default if connected to a tty.'
