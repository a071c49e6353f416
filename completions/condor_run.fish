complete -c condor_run -l u -d 'The universe (default vanilla)' -r
complete -c condor_run -o u -d 'The universe (default vanilla)' -r
complete -c condor_run -l a -d 'An extra submit command, e.g. -a request_memory=1024' -r
complete -c condor_run -o a -d 'An extra submit command, e.g. -a request_memory=1024' -r
complete -c condor_run -l help -d 'Print the usage'
complete -c condor_run -o help -d 'Print the usage'
complete -c condor_run -l getenv -d 'Give the job this environment (getenv = True)'
complete -c condor_run -o getenv -d 'Give the job this environment (getenv = True)'
