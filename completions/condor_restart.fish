complete -c condor_restart -l pool -d 'Use the given central manager to find daemons' -r
complete -c condor_restart -l name -d 'The given host' -r
complete -c condor_restart -l addr -d 'The given "sinful string"' -r
complete -c condor_restart -l constraint -d 'Hosts matching the constraint' -r
complete -c condor_restart -l daemon -d 'The daemon, by name' -r
complete -c condor_restart -l help -d 'Give this usage information'
complete -c condor_restart -l version -d 'Print the version'
complete -c condor_restart -l all -d 'All hosts in the pool'
complete -c condor_restart -l debug
complete -c condor_restart -l graceful -d 'The default: running jobs get their vacate time, then are killed'
complete -c condor_restart -l fast -d 'Shut down at once, evicting running jobs'
complete -c condor_restart -l peaceful -d 'Wait for running jobs to finish'
complete -c condor_restart -l force-graceful -d 'Upgrade a peaceful shutdown to a graceful one'
complete -c condor_restart -l master -d 'The master'
complete -c condor_restart -l startd -d 'The startd'
complete -c condor_restart -l schedd -d 'The schedd'
complete -c condor_restart -l collector -d 'The collector'
complete -c condor_restart -l negotiator -d 'The negotiator'
complete -c condor_restart -l kbdd -d 'The kbdd'
