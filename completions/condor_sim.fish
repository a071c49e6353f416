complete -c condor_sim -l config -d 'Read this HTCondor configuration file after the workload\'s [config]' -r -F
complete -c condor_sim -o config -d 'Read this HTCondor configuration file after the workload\'s [config]' -r -F
complete -c condor_sim -l set -d 'Set a configuration knob, after everything else (the what-if)' -r
complete -c condor_sim -o set -d 'Set a configuration knob, after everything else (the what-if)' -r
complete -c condor_sim -l until -d 'Stop at this time (default: the workload\'s until, else when all jobs are done)' -r
complete -c condor_sim -o until -d 'Stop at this time (default: the workload\'s until, else when all jobs are done)' -r
complete -c condor_sim -l step -d 'Report every TIME (default: the workload\'s step, else NEGOTIATOR_INTERVAL)' -r
complete -c condor_sim -o step -d 'Report every TIME (default: the workload\'s step, else NEGOTIATOR_INTERVAL)' -r
complete -c condor_sim -l svg -d 'Also draw the weight in use per submitter over time, as SVG' -r -F
complete -c condor_sim -o svg -d 'Also draw the weight in use per submitter over time, as SVG' -r -F
complete -c condor_sim -l csv -d 'Print CSV instead of tables'
complete -c condor_sim -o csv -d 'Print CSV instead of tables'
complete -c condor_sim -l summary -d 'Print only the summary'
complete -c condor_sim -o summary -d 'Print only the summary'
complete -c condor_sim -s h -l help -d 'Print help (see more with \'--help\')'
complete -c condor_sim -s h -o help -d 'Print help (see more with \'--help\')'
