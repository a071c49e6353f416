complete -c condor_vacate_job -l constraint -d 'Act on all jobs matching the boolean expression' -r
complete -c condor_vacate_job -o constraint -d 'Act on all jobs matching the boolean expression' -r
complete -c condor_vacate_job -l reason -d 'Not used by condor_vacate_job' -r
complete -c condor_vacate_job -o reason -d 'Not used by condor_vacate_job' -r
complete -c condor_vacate_job -l subcode -d 'Set HoldReasonSubCode (condor_hold)' -r
complete -c condor_vacate_job -o subcode -d 'Set HoldReasonSubCode (condor_hold)' -r
complete -c condor_vacate_job -l name -d 'Connect to the given schedd (only the local schedd exists)' -r
complete -c condor_vacate_job -o name -d 'Connect to the given schedd (only the local schedd exists)' -r
complete -c condor_vacate_job -l pool -d 'Use the given central manager to find daemons (this host\'s pool)' -r
complete -c condor_vacate_job -o pool -d 'Use the given central manager to find daemons (this host\'s pool)' -r
complete -c condor_vacate_job -l addr -d 'Connect directly to the given "sinful string" (this pool\'s schedd)' -r
complete -c condor_vacate_job -o addr -d 'Connect directly to the given "sinful string" (this pool\'s schedd)' -r
complete -c condor_vacate_job -l debug -d 'Display debugging information while running'
complete -c condor_vacate_job -o debug -d 'Display debugging information while running'
complete -c condor_vacate_job -l long -d 'Display the full result ad'
complete -c condor_vacate_job -o long -d 'Display the full result ad'
complete -c condor_vacate_job -l totals -d 'Display success/failure totals'
complete -c condor_vacate_job -o totals -d 'Display success/failure totals'
complete -c condor_vacate_job -l all -d 'Act on all jobs (cannot be used with other constraints)'
complete -c condor_vacate_job -o all -d 'Act on all jobs (cannot be used with other constraints)'
complete -c condor_vacate_job -l held -l hold -d 'Act on held jobs only (may be combined with other constraints)'
complete -c condor_vacate_job -o held -l hold -d 'Act on held jobs only (may be combined with other constraints)'
complete -c condor_vacate_job -l forcex -d 'Force the immediate local removal of jobs in the X state (condor_rm)'
complete -c condor_vacate_job -o forcex -d 'Force the immediate local removal of jobs in the X state (condor_rm)'
complete -c condor_vacate_job -l fast -d 'Use a fast vacate (hardkill) (condor_vacate_job)'
complete -c condor_vacate_job -o fast -d 'Use a fast vacate (hardkill) (condor_vacate_job)'
complete -c condor_vacate_job -l version -d 'Display version information and exit'
complete -c condor_vacate_job -o version -d 'Display version information and exit'
complete -c condor_vacate_job -l help -d 'Display this message and exit'
complete -c condor_vacate_job -o help -d 'Display this message and exit'
