complete -c condor_continue -l constraint -d 'Act on all jobs matching the boolean expression' -r
complete -c condor_continue -o constraint -d 'Act on all jobs matching the boolean expression' -r
complete -c condor_continue -l reason -d 'Not used by condor_continue' -r
complete -c condor_continue -o reason -d 'Not used by condor_continue' -r
complete -c condor_continue -l subcode -d 'Set HoldReasonSubCode (condor_hold)' -r
complete -c condor_continue -o subcode -d 'Set HoldReasonSubCode (condor_hold)' -r
complete -c condor_continue -l name -d 'Connect to the given schedd (only the local schedd exists)' -r
complete -c condor_continue -o name -d 'Connect to the given schedd (only the local schedd exists)' -r
complete -c condor_continue -l pool -d 'Use the given central manager to find daemons (this host\'s pool)' -r
complete -c condor_continue -o pool -d 'Use the given central manager to find daemons (this host\'s pool)' -r
complete -c condor_continue -l addr -d 'Connect directly to the given "sinful string" (this pool\'s schedd)' -r
complete -c condor_continue -o addr -d 'Connect directly to the given "sinful string" (this pool\'s schedd)' -r
complete -c condor_continue -l debug -d 'Display debugging information while running'
complete -c condor_continue -o debug -d 'Display debugging information while running'
complete -c condor_continue -l long -d 'Display the full result ad'
complete -c condor_continue -o long -d 'Display the full result ad'
complete -c condor_continue -l totals -d 'Display success/failure totals'
complete -c condor_continue -o totals -d 'Display success/failure totals'
complete -c condor_continue -l all -d 'Act on all jobs (cannot be used with other constraints)'
complete -c condor_continue -o all -d 'Act on all jobs (cannot be used with other constraints)'
complete -c condor_continue -l held -l hold -d 'Act on held jobs only (may be combined with other constraints)'
complete -c condor_continue -o held -l hold -d 'Act on held jobs only (may be combined with other constraints)'
complete -c condor_continue -l forcex -d 'Force the immediate local removal of jobs in the X state (condor_rm)'
complete -c condor_continue -o forcex -d 'Force the immediate local removal of jobs in the X state (condor_rm)'
complete -c condor_continue -l fast -d 'Use a fast vacate (hardkill) (condor_vacate_job)'
complete -c condor_continue -o fast -d 'Use a fast vacate (hardkill) (condor_vacate_job)'
complete -c condor_continue -l version -d 'Display version information and exit'
complete -c condor_continue -o version -d 'Display version information and exit'
complete -c condor_continue -l help -d 'Display this message and exit'
complete -c condor_continue -o help -d 'Display this message and exit'
