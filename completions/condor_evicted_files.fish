complete -c condor_evicted_files -l help -d 'Print the usage'
complete -c condor_evicted_files -o help -d 'Print the usage'
