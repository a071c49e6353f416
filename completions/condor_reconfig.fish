complete -c condor_reconfig -l pool -d 'Use the given central manager to find daemons' -r
complete -c condor_reconfig -o pool -d 'Use the given central manager to find daemons' -r
complete -c condor_reconfig -l name -d 'The given host' -r
complete -c condor_reconfig -o name -d 'The given host' -r
complete -c condor_reconfig -l addr -d 'The given "sinful string"' -r
complete -c condor_reconfig -o addr -d 'The given "sinful string"' -r
complete -c condor_reconfig -l constraint -d 'Hosts matching the constraint' -r
complete -c condor_reconfig -o constraint -d 'Hosts matching the constraint' -r
complete -c condor_reconfig -l daemon -d 'The daemon, by name' -r
complete -c condor_reconfig -o daemon -d 'The daemon, by name' -r
complete -c condor_reconfig -l help -d 'Give this usage information'
complete -c condor_reconfig -o help -d 'Give this usage information'
complete -c condor_reconfig -l version -d 'Print the version'
complete -c condor_reconfig -o version -d 'Print the version'
complete -c condor_reconfig -l all -d 'All hosts in the pool'
complete -c condor_reconfig -o all -d 'All hosts in the pool'
complete -c condor_reconfig -l debug
complete -c condor_reconfig -o debug
complete -c condor_reconfig -l graceful -d 'The default: running jobs get their vacate time, then are killed'
complete -c condor_reconfig -o graceful -d 'The default: running jobs get their vacate time, then are killed'
complete -c condor_reconfig -l fast -d 'Shut down at once, evicting running jobs'
complete -c condor_reconfig -o fast -d 'Shut down at once, evicting running jobs'
complete -c condor_reconfig -l peaceful -d 'Wait for running jobs to finish'
complete -c condor_reconfig -o peaceful -d 'Wait for running jobs to finish'
complete -c condor_reconfig -l force-graceful -d 'Upgrade a peaceful shutdown to a graceful one'
complete -c condor_reconfig -o force-graceful -d 'Upgrade a peaceful shutdown to a graceful one'
complete -c condor_reconfig -l master -d 'The master'
complete -c condor_reconfig -o master -d 'The master'
complete -c condor_reconfig -l startd -d 'The startd'
complete -c condor_reconfig -o startd -d 'The startd'
complete -c condor_reconfig -l schedd -d 'The schedd'
complete -c condor_reconfig -o schedd -d 'The schedd'
complete -c condor_reconfig -l collector -d 'The collector'
complete -c condor_reconfig -o collector -d 'The collector'
complete -c condor_reconfig -l negotiator -d 'The negotiator'
complete -c condor_reconfig -o negotiator -d 'The negotiator'
complete -c condor_reconfig -l kbdd -d 'The kbdd'
complete -c condor_reconfig -o kbdd -d 'The kbdd'
