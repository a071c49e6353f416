complete -c condor_on -l pool -d 'Use the given central manager to find daemons' -r
complete -c condor_on -o pool -d 'Use the given central manager to find daemons' -r
complete -c condor_on -l name -d 'The given host' -r
complete -c condor_on -o name -d 'The given host' -r
complete -c condor_on -l addr -d 'The given "sinful string"' -r
complete -c condor_on -o addr -d 'The given "sinful string"' -r
complete -c condor_on -l constraint -d 'Hosts matching the constraint' -r
complete -c condor_on -o constraint -d 'Hosts matching the constraint' -r
complete -c condor_on -l daemon -d 'The daemon, by name' -r
complete -c condor_on -o daemon -d 'The daemon, by name' -r
complete -c condor_on -l help -d 'Give this usage information'
complete -c condor_on -o help -d 'Give this usage information'
complete -c condor_on -l version -d 'Print the version'
complete -c condor_on -o version -d 'Print the version'
complete -c condor_on -l all -d 'All hosts in the pool'
complete -c condor_on -o all -d 'All hosts in the pool'
complete -c condor_on -l debug
complete -c condor_on -o debug
complete -c condor_on -l graceful -d 'The default: running jobs get their vacate time, then are killed'
complete -c condor_on -o graceful -d 'The default: running jobs get their vacate time, then are killed'
complete -c condor_on -l fast -d 'Shut down at once, evicting running jobs'
complete -c condor_on -o fast -d 'Shut down at once, evicting running jobs'
complete -c condor_on -l peaceful -d 'Wait for running jobs to finish'
complete -c condor_on -o peaceful -d 'Wait for running jobs to finish'
complete -c condor_on -l force-graceful -d 'Upgrade a peaceful shutdown to a graceful one'
complete -c condor_on -o force-graceful -d 'Upgrade a peaceful shutdown to a graceful one'
complete -c condor_on -l master -d 'The master'
complete -c condor_on -o master -d 'The master'
complete -c condor_on -l startd -d 'The startd'
complete -c condor_on -o startd -d 'The startd'
complete -c condor_on -l schedd -d 'The schedd'
complete -c condor_on -o schedd -d 'The schedd'
complete -c condor_on -l collector -d 'The collector'
complete -c condor_on -o collector -d 'The collector'
complete -c condor_on -l negotiator -d 'The negotiator'
complete -c condor_on -o negotiator -d 'The negotiator'
complete -c condor_on -l kbdd -d 'The kbdd'
complete -c condor_on -o kbdd -d 'The kbdd'
