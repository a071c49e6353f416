complete -c condor_check_userlogs -l help -d 'Print the usage'
complete -c condor_check_userlogs -o help -d 'Print the usage'
complete -c condor_check_userlogs -l usage -d 'Print the usage'
complete -c condor_check_userlogs -o usage -d 'Print the usage'
