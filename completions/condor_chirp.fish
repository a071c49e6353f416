complete -c condor_chirp -l help -d 'Print the usage'
complete -c condor_chirp -o help -d 'Print the usage'
