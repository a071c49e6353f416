complete -c condor_reschedule -l pool -d 'Use the given central manager to find daemons' -r
complete -c condor_reschedule -o pool -d 'Use the given central manager to find daemons' -r
complete -c condor_reschedule -l name -d 'The given host' -r
complete -c condor_reschedule -o name -d 'The given host' -r
complete -c condor_reschedule -l addr -d 'The given "sinful string"' -r
complete -c condor_reschedule -o addr -d 'The given "sinful string"' -r
complete -c condor_reschedule -l constraint -d 'Hosts matching the constraint' -r
complete -c condor_reschedule -o constraint -d 'Hosts matching the constraint' -r
complete -c condor_reschedule -l daemon -d 'The daemon, by name' -r
complete -c condor_reschedule -o daemon -d 'The daemon, by name' -r
complete -c condor_reschedule -l help -d 'Give this usage information'
complete -c condor_reschedule -o help -d 'Give this usage information'
complete -c condor_reschedule -l version -d 'Print the version'
complete -c condor_reschedule -o version -d 'Print the version'
complete -c condor_reschedule -l all -d 'All hosts in the pool'
complete -c condor_reschedule -o all -d 'All hosts in the pool'
complete -c condor_reschedule -l debug
complete -c condor_reschedule -o debug
complete -c condor_reschedule -l graceful -d 'The default: running jobs get their vacate time, then are killed'
complete -c condor_reschedule -o graceful -d 'The default: running jobs get their vacate time, then are killed'
complete -c condor_reschedule -l fast -d 'Shut down at once, evicting running jobs'
complete -c condor_reschedule -o fast -d 'Shut down at once, evicting running jobs'
complete -c condor_reschedule -l peaceful -d 'Wait for running jobs to finish'
complete -c condor_reschedule -o peaceful -d 'Wait for running jobs to finish'
complete -c condor_reschedule -l force-graceful -d 'Upgrade a peaceful shutdown to a graceful one'
complete -c condor_reschedule -o force-graceful -d 'Upgrade a peaceful shutdown to a graceful one'
complete -c condor_reschedule -l master -d 'The master'
complete -c condor_reschedule -o master -d 'The master'
complete -c condor_reschedule -l startd -d 'The startd'
complete -c condor_reschedule -o startd -d 'The startd'
complete -c condor_reschedule -l schedd -d 'The schedd'
complete -c condor_reschedule -o schedd -d 'The schedd'
complete -c condor_reschedule -l collector -d 'The collector'
complete -c condor_reschedule -o collector -d 'The collector'
complete -c condor_reschedule -l negotiator -d 'The negotiator'
complete -c condor_reschedule -o negotiator -d 'The negotiator'
complete -c condor_reschedule -l kbdd -d 'The kbdd'
complete -c condor_reschedule -o kbdd -d 'The kbdd'
