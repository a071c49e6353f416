complete -c condor_restart -l pool -d 'Use the given central manager to find daemons' -r
complete -c condor_restart -o pool -d 'Use the given central manager to find daemons' -r
complete -c condor_restart -l name -d 'The given host' -r
complete -c condor_restart -o name -d 'The given host' -r
complete -c condor_restart -l addr -d 'The given "sinful string"' -r
complete -c condor_restart -o addr -d 'The given "sinful string"' -r
complete -c condor_restart -l constraint -d 'Hosts matching the constraint' -r
complete -c condor_restart -o constraint -d 'Hosts matching the constraint' -r
complete -c condor_restart -l daemon -d 'The daemon, by name' -r
complete -c condor_restart -o daemon -d 'The daemon, by name' -r
complete -c condor_restart -l help -d 'Give this usage information'
complete -c condor_restart -o help -d 'Give this usage information'
complete -c condor_restart -l version -d 'Print the version'
complete -c condor_restart -o version -d 'Print the version'
complete -c condor_restart -l all -d 'All hosts in the pool'
complete -c condor_restart -o all -d 'All hosts in the pool'
complete -c condor_restart -l debug
complete -c condor_restart -o debug
complete -c condor_restart -l graceful -d 'The default: running jobs get their vacate time, then are killed'
complete -c condor_restart -o graceful -d 'The default: running jobs get their vacate time, then are killed'
complete -c condor_restart -l fast -d 'Shut down at once, evicting running jobs'
complete -c condor_restart -o fast -d 'Shut down at once, evicting running jobs'
complete -c condor_restart -l peaceful -d 'Wait for running jobs to finish'
complete -c condor_restart -o peaceful -d 'Wait for running jobs to finish'
complete -c condor_restart -l force-graceful -d 'Upgrade a peaceful shutdown to a graceful one'
complete -c condor_restart -o force-graceful -d 'Upgrade a peaceful shutdown to a graceful one'
complete -c condor_restart -l master -d 'The master'
complete -c condor_restart -o master -d 'The master'
complete -c condor_restart -l startd -d 'The startd'
complete -c condor_restart -o startd -d 'The startd'
complete -c condor_restart -l schedd -d 'The schedd'
complete -c condor_restart -o schedd -d 'The schedd'
complete -c condor_restart -l collector -d 'The collector'
complete -c condor_restart -o collector -d 'The collector'
complete -c condor_restart -l negotiator -d 'The negotiator'
complete -c condor_restart -o negotiator -d 'The negotiator'
complete -c condor_restart -l kbdd -d 'The kbdd'
complete -c condor_restart -o kbdd -d 'The kbdd'
