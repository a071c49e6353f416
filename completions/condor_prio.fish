complete -c condor_prio -l p -d 'Set the priority to PRIORITY' -r
complete -c condor_prio -o p -d 'Set the priority to PRIORITY' -r
complete -c condor_prio -l n -d 'Change jobs queued at this condor_schedd' -r
complete -c condor_prio -o n -d 'Change jobs queued at this condor_schedd' -r
complete -c condor_prio -l pool -d 'Find the schedd through this central manager (needs -n)' -r
complete -c condor_prio -o pool -d 'Find the schedd through this central manager (needs -n)' -r
complete -c condor_prio -l help -d 'Display this screen'
complete -c condor_prio -o help -d 'Display this screen'
