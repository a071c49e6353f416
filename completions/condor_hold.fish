complete -c condor_hold -l constraint -d 'Act on all jobs matching the boolean expression' -r
complete -c condor_hold -o constraint -d 'Act on all jobs matching the boolean expression' -r
complete -c condor_hold -l reason -d 'Use the given HoldReason' -r
complete -c condor_hold -o reason -d 'Use the given HoldReason' -r
complete -c condor_hold -l subcode -d 'Set HoldReasonSubCode (condor_hold)' -r
complete -c condor_hold -o subcode -d 'Set HoldReasonSubCode (condor_hold)' -r
complete -c condor_hold -l name -d 'Connect to the given schedd (only the local schedd exists)' -r
complete -c condor_hold -o name -d 'Connect to the given schedd (only the local schedd exists)' -r
complete -c condor_hold -l pool -d 'Use the given central manager to find daemons (this host\'s pool)' -r
complete -c condor_hold -o pool -d 'Use the given central manager to find daemons (this host\'s pool)' -r
complete -c condor_hold -l addr -d 'Connect directly to the given "sinful string" (this pool\'s schedd)' -r
complete -c condor_hold -o addr -d 'Connect directly to the given "sinful string" (this pool\'s schedd)' -r
complete -c condor_hold -l debug -d 'Display debugging information while running'
complete -c condor_hold -o debug -d 'Display debugging information while running'
complete -c condor_hold -l long -d 'Display the full result ad'
complete -c condor_hold -o long -d 'Display the full result ad'
complete -c condor_hold -l totals -d 'Display success/failure totals'
complete -c condor_hold -o totals -d 'Display success/failure totals'
complete -c condor_hold -l all -d 'Act on all jobs (cannot be used with other constraints)'
complete -c condor_hold -o all -d 'Act on all jobs (cannot be used with other constraints)'
complete -c condor_hold -l held -l hold -d 'Act on held jobs only (may be combined with other constraints)'
complete -c condor_hold -o held -l hold -d 'Act on held jobs only (may be combined with other constraints)'
complete -c condor_hold -l forcex -d 'Force the immediate local removal of jobs in the X state (condor_rm)'
complete -c condor_hold -o forcex -d 'Force the immediate local removal of jobs in the X state (condor_rm)'
complete -c condor_hold -l fast -d 'Use a fast vacate (hardkill) (condor_vacate_job)'
complete -c condor_hold -o fast -d 'Use a fast vacate (hardkill) (condor_vacate_job)'
complete -c condor_hold -l version -d 'Display version information and exit'
complete -c condor_hold -o version -d 'Display version information and exit'
complete -c condor_hold -l help -d 'Display this message and exit'
complete -c condor_hold -o help -d 'Display this message and exit'
