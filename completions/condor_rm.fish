complete -c condor_rm -l constraint -d 'Act on all jobs matching the boolean expression' -r
complete -c condor_rm -o constraint -d 'Act on all jobs matching the boolean expression' -r
complete -c condor_rm -l reason -d 'Use the given RemoveReason' -r
complete -c condor_rm -o reason -d 'Use the given RemoveReason' -r
complete -c condor_rm -l subcode -d 'Set HoldReasonSubCode (condor_hold)' -r
complete -c condor_rm -o subcode -d 'Set HoldReasonSubCode (condor_hold)' -r
complete -c condor_rm -l name -d 'Connect to the given schedd (only the local schedd exists)' -r
complete -c condor_rm -o name -d 'Connect to the given schedd (only the local schedd exists)' -r
complete -c condor_rm -l pool -d 'Use the given central manager to find daemons (this host\'s pool)' -r
complete -c condor_rm -o pool -d 'Use the given central manager to find daemons (this host\'s pool)' -r
complete -c condor_rm -l addr -d 'Connect directly to the given "sinful string" (this pool\'s schedd)' -r
complete -c condor_rm -o addr -d 'Connect directly to the given "sinful string" (this pool\'s schedd)' -r
complete -c condor_rm -l debug -d 'Display debugging information while running'
complete -c condor_rm -o debug -d 'Display debugging information while running'
complete -c condor_rm -l long -d 'Display the full result ad'
complete -c condor_rm -o long -d 'Display the full result ad'
complete -c condor_rm -l totals -d 'Display success/failure totals'
complete -c condor_rm -o totals -d 'Display success/failure totals'
complete -c condor_rm -l all -d 'Act on all jobs (cannot be used with other constraints)'
complete -c condor_rm -o all -d 'Act on all jobs (cannot be used with other constraints)'
complete -c condor_rm -l held -l hold -d 'Act on held jobs only (may be combined with other constraints)'
complete -c condor_rm -o held -l hold -d 'Act on held jobs only (may be combined with other constraints)'
complete -c condor_rm -l forcex -d 'Force the immediate local removal of jobs in the X state (condor_rm)'
complete -c condor_rm -o forcex -d 'Force the immediate local removal of jobs in the X state (condor_rm)'
complete -c condor_rm -l fast -d 'Use a fast vacate (hardkill) (condor_vacate_job)'
complete -c condor_rm -o fast -d 'Use a fast vacate (hardkill) (condor_vacate_job)'
complete -c condor_rm -l version -d 'Display version information and exit'
complete -c condor_rm -o version -d 'Display version information and exit'
complete -c condor_rm -l help -d 'Display this message and exit'
complete -c condor_rm -o help -d 'Display this message and exit'
