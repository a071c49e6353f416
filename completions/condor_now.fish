complete -c condor_now -l name -d 'The schedd holding the jobs' -r
complete -c condor_now -o name -d 'The schedd holding the jobs' -r
complete -c condor_now -l pool -d 'The pool\'s central manager' -r
complete -c condor_now -o pool -d 'The pool\'s central manager' -r
complete -c condor_now -l help -d 'Print the usage'
complete -c condor_now -o help -d 'Print the usage'
complete -c condor_now -l debug -d 'Debugging output (accepted)'
complete -c condor_now -o debug -d 'Debugging output (accepted)'
