complete -c condor_off -l pool -d 'Use the given central manager to find daemons' -r
complete -c condor_off -o pool -d 'Use the given central manager to find daemons' -r
complete -c condor_off -l name -d 'The given host' -r
complete -c condor_off -o name -d 'The given host' -r
complete -c condor_off -l addr -d 'The given "sinful string"' -r
complete -c condor_off -o addr -d 'The given "sinful string"' -r
complete -c condor_off -l constraint -d 'Hosts matching the constraint' -r
complete -c condor_off -o constraint -d 'Hosts matching the constraint' -r
complete -c condor_off -l daemon -d 'The daemon, by name' -r
complete -c condor_off -o daemon -d 'The daemon, by name' -r
complete -c condor_off -l help -d 'Give this usage information'
complete -c condor_off -o help -d 'Give this usage information'
complete -c condor_off -l version -d 'Print the version'
complete -c condor_off -o version -d 'Print the version'
complete -c condor_off -l all -d 'All hosts in the pool'
complete -c condor_off -o all -d 'All hosts in the pool'
complete -c condor_off -l debug
complete -c condor_off -o debug
complete -c condor_off -l graceful -d 'The default: running jobs get their vacate time, then are killed'
complete -c condor_off -o graceful -d 'The default: running jobs get their vacate time, then are killed'
complete -c condor_off -l fast -d 'Shut down at once, evicting running jobs'
complete -c condor_off -o fast -d 'Shut down at once, evicting running jobs'
complete -c condor_off -l peaceful -d 'Wait for running jobs to finish'
complete -c condor_off -o peaceful -d 'Wait for running jobs to finish'
complete -c condor_off -l force-graceful -d 'Upgrade a peaceful shutdown to a graceful one'
complete -c condor_off -o force-graceful -d 'Upgrade a peaceful shutdown to a graceful one'
complete -c condor_off -l master -d 'The master'
complete -c condor_off -o master -d 'The master'
complete -c condor_off -l startd -d 'The startd'
complete -c condor_off -o startd -d 'The startd'
complete -c condor_off -l schedd -d 'The schedd'
complete -c condor_off -o schedd -d 'The schedd'
complete -c condor_off -l collector -d 'The collector'
complete -c condor_off -o collector -d 'The collector'
complete -c condor_off -l negotiator -d 'The negotiator'
complete -c condor_off -o negotiator -d 'The negotiator'
complete -c condor_off -l kbdd -d 'The kbdd'
complete -c condor_off -o kbdd -d 'The kbdd'
