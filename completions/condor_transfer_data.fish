complete -c condor_transfer_data -l name -d 'Connect to the given schedd' -r
complete -c condor_transfer_data -o name -d 'Connect to the given schedd' -r
complete -c condor_transfer_data -l pool -d 'Use the given central manager to find daemons' -r
complete -c condor_transfer_data -o pool -d 'Use the given central manager to find daemons' -r
complete -c condor_transfer_data -l addr -d 'Connect directly to the given "sinful string"' -r
complete -c condor_transfer_data -o addr -d 'Connect directly to the given "sinful string"' -r
complete -c condor_transfer_data -l constraint -d 'Transfer data for all jobs matching the boolean expression' -r
complete -c condor_transfer_data -o constraint -d 'Transfer data for all jobs matching the boolean expression' -r
complete -c condor_transfer_data -l help -d 'Display this message and exit'
complete -c condor_transfer_data -o help -d 'Display this message and exit'
complete -c condor_transfer_data -l version -d 'Display version information and exit'
complete -c condor_transfer_data -o version -d 'Display version information and exit'
complete -c condor_transfer_data -l debug -d 'Display debugging information while running'
complete -c condor_transfer_data -o debug -d 'Display debugging information while running'
complete -c condor_transfer_data -l all -d 'Transfer data for all jobs (cannot be used with other constraints)'
complete -c condor_transfer_data -o all -d 'Transfer data for all jobs (cannot be used with other constraints)'
