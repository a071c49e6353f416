complete -c condor_suspend -l constraint -d 'Act on all jobs matching the boolean expression' -r
complete -c condor_suspend -o constraint -d 'Act on all jobs matching the boolean expression' -r
complete -c condor_suspend -l reason -d 'Not used by condor_suspend' -r
complete -c condor_suspend -o reason -d 'Not used by condor_suspend' -r
complete -c condor_suspend -l subcode -d 'Set HoldReasonSubCode (condor_hold)' -r
complete -c condor_suspend -o subcode -d 'Set HoldReasonSubCode (condor_hold)' -r
complete -c condor_suspend -l name -d 'Connect to the given schedd (only the local schedd exists)' -r
complete -c condor_suspend -o name -d 'Connect to the given schedd (only the local schedd exists)' -r
complete -c condor_suspend -l pool -d 'Use the given central manager to find daemons (this host\'s pool)' -r
complete -c condor_suspend -o pool -d 'Use the given central manager to find daemons (this host\'s pool)' -r
complete -c condor_suspend -l addr -d 'Connect directly to the given "sinful string" (this pool\'s schedd)' -r
complete -c condor_suspend -o addr -d 'Connect directly to the given "sinful string" (this pool\'s schedd)' -r
complete -c condor_suspend -l debug -d 'Display debugging information while running'
complete -c condor_suspend -o debug -d 'Display debugging information while running'
complete -c condor_suspend -l long -d 'Display the full result ad'
complete -c condor_suspend -o long -d 'Display the full result ad'
complete -c condor_suspend -l totals -d 'Display success/failure totals'
complete -c condor_suspend -o totals -d 'Display success/failure totals'
complete -c condor_suspend -l all -d 'Act on all jobs (cannot be used with other constraints)'
complete -c condor_suspend -o all -d 'Act on all jobs (cannot be used with other constraints)'
complete -c condor_suspend -l held -l hold -d 'Act on held jobs only (may be combined with other constraints)'
complete -c condor_suspend -o held -l hold -d 'Act on held jobs only (may be combined with other constraints)'
complete -c condor_suspend -l forcex -d 'Force the immediate local removal of jobs in the X state (condor_rm)'
complete -c condor_suspend -o forcex -d 'Force the immediate local removal of jobs in the X state (condor_rm)'
complete -c condor_suspend -l fast -d 'Use a fast vacate (hardkill) (condor_vacate_job)'
complete -c condor_suspend -o fast -d 'Use a fast vacate (hardkill) (condor_vacate_job)'
complete -c condor_suspend -l version -d 'Display version information and exit'
complete -c condor_suspend -o version -d 'Display version information and exit'
complete -c condor_suspend -l help -d 'Display this message and exit'
complete -c condor_suspend -o help -d 'Display this message and exit'
