complete -c condor_ssh_to_job -l name -d 'The schedd holding the job' -r
complete -c condor_ssh_to_job -o name -d 'The schedd holding the job' -r
complete -c condor_ssh_to_job -l pool -d 'The pool\'s central manager' -r
complete -c condor_ssh_to_job -o pool -d 'The pool\'s central manager' -r
complete -c condor_ssh_to_job -l ssh -d 'An alternate ssh program (only ssh itself: there is no ssh here)' -r
complete -c condor_ssh_to_job -o ssh -d 'An alternate ssh program (only ssh itself: there is no ssh here)' -r
complete -c condor_ssh_to_job -l keygen-options -d 'Options for ssh-keygen (no keys are made here)' -r
complete -c condor_ssh_to_job -o keygen-options -d 'Options for ssh-keygen (no keys are made here)' -r
complete -c condor_ssh_to_job -l shells -d 'Shells to try, the first that can be run (default: SHELL)' -r
complete -c condor_ssh_to_job -o shells -d 'Shells to try, the first that can be run (default: SHELL)' -r
complete -c condor_ssh_to_job -l help -d 'Display brief usage information and exit'
complete -c condor_ssh_to_job -o help -d 'Display brief usage information and exit'
complete -c condor_ssh_to_job -l debug -d 'Show why a session is retried'
complete -c condor_ssh_to_job -o debug -d 'Show why a session is retried'
complete -c condor_ssh_to_job -l auto-retry -d 'Keep trying while the job is not running yet'
complete -c condor_ssh_to_job -o auto-retry -d 'Keep trying while the job is not running yet'
complete -c condor_ssh_to_job -l remove-on-interrupt -d 'Remove the job on SIGINT, SIGHUP, SIGTERM or SIGQUIT'
complete -c condor_ssh_to_job -o remove-on-interrupt -d 'Remove the job on SIGINT, SIGHUP, SIGTERM or SIGQUIT'
complete -c condor_ssh_to_job -s X -d 'Enable X11 forwarding (the session gets this DISPLAY and XAUTHORITY)'
complete -c condor_ssh_to_job -s x -d 'Disable X11 forwarding'
