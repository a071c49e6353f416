complete -c condor_release -l constraint -d 'Act on all jobs matching the boolean expression' -r
complete -c condor_release -o constraint -d 'Act on all jobs matching the boolean expression' -r
complete -c condor_release -l reason -d 'Use the given ReleaseReason' -r
complete -c condor_release -o reason -d 'Use the given ReleaseReason' -r
complete -c condor_release -l subcode -d 'Set HoldReasonSubCode (condor_hold)' -r
complete -c condor_release -o subcode -d 'Set HoldReasonSubCode (condor_hold)' -r
complete -c condor_release -l name -d 'Connect to the given schedd (only the local schedd exists)' -r
complete -c condor_release -o name -d 'Connect to the given schedd (only the local schedd exists)' -r
complete -c condor_release -l pool -d 'Use the given central manager to find daemons (this host\'s pool)' -r
complete -c condor_release -o pool -d 'Use the given central manager to find daemons (this host\'s pool)' -r
complete -c condor_release -l addr -d 'Connect directly to the given "sinful string" (this pool\'s schedd)' -r
complete -c condor_release -o addr -d 'Connect directly to the given "sinful string" (this pool\'s schedd)' -r
complete -c condor_release -l debug -d 'Display debugging information while running'
complete -c condor_release -o debug -d 'Display debugging information while running'
complete -c condor_release -l long -d 'Display the full result ad'
complete -c condor_release -o long -d 'Display the full result ad'
complete -c condor_release -l totals -d 'Display success/failure totals'
complete -c condor_release -o totals -d 'Display success/failure totals'
complete -c condor_release -l all -d 'Act on all jobs (cannot be used with other constraints)'
complete -c condor_release -o all -d 'Act on all jobs (cannot be used with other constraints)'
complete -c condor_release -l held -l hold -d 'Act on held jobs only (may be combined with other constraints)'
complete -c condor_release -o held -l hold -d 'Act on held jobs only (may be combined with other constraints)'
complete -c condor_release -l forcex -d 'Force the immediate local removal of jobs in the X state (condor_rm)'
complete -c condor_release -o forcex -d 'Force the immediate local removal of jobs in the X state (condor_rm)'
complete -c condor_release -l fast -d 'Use a fast vacate (hardkill) (condor_vacate_job)'
complete -c condor_release -o fast -d 'Use a fast vacate (hardkill) (condor_vacate_job)'
complete -c condor_release -l version -d 'Display version information and exit'
complete -c condor_release -o version -d 'Display version information and exit'
complete -c condor_release -l help -d 'Display this message and exit'
complete -c condor_release -o help -d 'Display this message and exit'
