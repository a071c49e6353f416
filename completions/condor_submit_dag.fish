complete -c condor_submit_dag -l Append -d 'Append submit description command to *.condor.sub file' -r
complete -c condor_submit_dag -o Append -d 'Append submit description command to *.condor.sub file' -r
complete -c condor_submit_dag -l AutoRescue -d 'Control automatically running new rescue DAG (0=False | 1=True)' -r
complete -c condor_submit_dag -o AutoRescue -d 'Control automatically running new rescue DAG (0=False | 1=True)' -r
complete -c condor_submit_dag -l Batch-Name -d 'Set DAG batch name' -r
complete -c condor_submit_dag -o Batch-Name -d 'Set DAG batch name' -r
complete -c condor_submit_dag -l Config -d 'Specify DAGMan configuration file' -r
complete -c condor_submit_dag -o Config -d 'Specify DAGMan configuration file' -r
complete -c condor_submit_dag -l DAGMan -d 'Full path to alternate condor_dagman executable' -r
complete -c condor_submit_dag -o DAGMan -d 'Full path to alternate condor_dagman executable' -r
complete -c condor_submit_dag -l Debug -d 'Set DAGMan debug logs verbosity' -r
complete -c condor_submit_dag -o Debug -d 'Set DAGMan debug logs verbosity' -r
complete -c condor_submit_dag -l DoRescueFrom -d 'Run DAG rescue of given number' -r
complete -c condor_submit_dag -o DoRescueFrom -d 'Run DAG rescue of given number' -r
complete -c condor_submit_dag -l include_env -d 'Comma separated list of environment variables to *.condor.sub file getenv filter' -r
complete -c condor_submit_dag -o include_env -d 'Comma separated list of environment variables to *.condor.sub file getenv filter' -r
complete -c condor_submit_dag -l insert_env -d 'Delimited key=value pairs to explicitly set in the *.condor.sub file environment' -r
complete -c condor_submit_dag -o insert_env -d 'Delimited key=value pairs to explicitly set in the *.condor.sub file environment' -r
complete -c condor_submit_dag -l insert_sub_file -d 'Append specified submit file to *.condor.sub file' -r
complete -c condor_submit_dag -o insert_sub_file -d 'Append specified submit file to *.condor.sub file' -r
complete -c condor_submit_dag -l load_save -d 'Run DAG from provided save point file' -r
complete -c condor_submit_dag -o load_save -d 'Run DAG from provided save point file' -r
complete -c condor_submit_dag -l MaxHold -d 'Maximum number of HOLD scripts to run at once' -r
complete -c condor_submit_dag -o MaxHold -d 'Maximum number of HOLD scripts to run at once' -r
complete -c condor_submit_dag -l MaxIdle -d 'Maximum number of Idle nodes allowed' -r
complete -c condor_submit_dag -o MaxIdle -d 'Maximum number of Idle nodes allowed' -r
complete -c condor_submit_dag -l MaxJobs -d 'Maximum number of jobs submitted at once' -r
complete -c condor_submit_dag -o MaxJobs -d 'Maximum number of jobs submitted at once' -r
complete -c condor_submit_dag -l MaxPost -d 'Maximum number of POST scripts to run at once' -r
complete -c condor_submit_dag -o MaxPost -d 'Maximum number of POST scripts to run at once' -r
complete -c condor_submit_dag -l MaxPre -d 'Maximum number of PRE scripts to run at once' -r
complete -c condor_submit_dag -o MaxPre -d 'Maximum number of PRE scripts to run at once' -r
complete -c condor_submit_dag -l Notification -d 'Set HTCondor email notification level for DAG' -r
complete -c condor_submit_dag -o Notification -d 'Set HTCondor email notification level for DAG' -r
complete -c condor_submit_dag -l outfile_dir -d 'Directory path to write *.dagman.out file' -r
complete -c condor_submit_dag -o outfile_dir -d 'Directory path to write *.dagman.out file' -r
complete -c condor_submit_dag -l Priority -d 'Default priority for all jobs submitted by DAGMan' -r
complete -c condor_submit_dag -o Priority -d 'Default priority for all jobs submitted by DAGMan' -r
complete -c condor_submit_dag -l Remote -d 'Name of remote schedd to submit DAGMan' -r
complete -c condor_submit_dag -o Remote -d 'Name of remote schedd to submit DAGMan' -r
complete -c condor_submit_dag -l schedd-address-file -d 'Submit DAG to Schedd provided by address file' -r
complete -c condor_submit_dag -o schedd-address-file -d 'Submit DAG to Schedd provided by address file' -r
complete -c condor_submit_dag -l schedd-daemon-ad-file -d 'Submit DAG to Schedd provided by ad file' -r
complete -c condor_submit_dag -o schedd-daemon-ad-file -d 'Submit DAG to Schedd provided by ad file' -r
complete -c condor_submit_dag -l SubmitMethod -d 'Specify how DAGMan submits jobs for execution (0=condor_submit|1=DirectSubmit)' -r
complete -c condor_submit_dag -o SubmitMethod -d 'Specify how DAGMan submits jobs for execution (0=condor_submit|1=DirectSubmit)' -r
complete -c condor_submit_dag -l help -d 'Print usage info and exit'
complete -c condor_submit_dag -o help -d 'Print usage info and exit'
complete -c condor_submit_dag -l version -d 'Print version and exit'
complete -c condor_submit_dag -o version -d 'Print version and exit'
complete -c condor_submit_dag -l AllowVersionMismatch -d 'Allow version difference between *.condor.sub file and condor_dagman'
complete -c condor_submit_dag -o AllowVersionMismatch -d 'Allow version difference between *.condor.sub file and condor_dagman'
complete -c condor_submit_dag -l AlwaysRunPost -d 'Run POST script if PRE script fails'
complete -c condor_submit_dag -o AlwaysRunPost -d 'Run POST script if PRE script fails'
complete -c condor_submit_dag -l do_recurse -d 'Recursively generate Sub-DAG *.condor.sub files'
complete -c condor_submit_dag -o do_recurse -d 'Recursively generate Sub-DAG *.condor.sub files'
complete -c condor_submit_dag -l dont_suppress_notification -d 'Suppress email notifications for DAGMan and all its submitted jobs'
complete -c condor_submit_dag -o dont_suppress_notification -d 'Suppress email notifications for DAGMan and all its submitted jobs'
complete -c condor_submit_dag -l DontAlwaysRunPost -d 'Don\'t run POST script if PRE script fails'
complete -c condor_submit_dag -o DontAlwaysRunPost -d 'Don\'t run POST script if PRE script fails'
complete -c condor_submit_dag -l DoRecovery -d 'Allow DAG submitted jobs to send email notifications'
complete -c condor_submit_dag -o DoRecovery -d 'Allow DAG submitted jobs to send email notifications'
complete -c condor_submit_dag -l DumpRescue -d 'DAGMan dump rescue DAG and exit'
complete -c condor_submit_dag -o DumpRescue -d 'DAGMan dump rescue DAG and exit'
complete -c condor_submit_dag -s f -l Force -d 'Overwrite used DAG file if they exist'
complete -c condor_submit_dag -s f -o Force -d 'Overwrite used DAG file if they exist'
complete -c condor_submit_dag -l import_env -d 'Import current environment into *.condor.sub file'
complete -c condor_submit_dag -o import_env -d 'Import current environment into *.condor.sub file'
complete -c condor_submit_dag -l no_recurse -d 'Don\'t recursively generate Sub-DAG *.condor.sub files (Default)'
complete -c condor_submit_dag -o no_recurse -d 'Don\'t recursively generate Sub-DAG *.condor.sub files (Default)'
complete -c condor_submit_dag -l no_submit -d 'DAG is not submitted to HTCondor automatically'
complete -c condor_submit_dag -o no_submit -d 'DAG is not submitted to HTCondor automatically'
complete -c condor_submit_dag -l suppress_notification -d 'Suppress email notifications for DAGMan and all its submitted jobs'
complete -c condor_submit_dag -o suppress_notification -d 'Suppress email notifications for DAGMan and all its submitted jobs'
complete -c condor_submit_dag -l update_submit -d 'Update *.condor.sub file if it exists'
complete -c condor_submit_dag -o update_submit -d 'Update *.condor.sub file if it exists'
complete -c condor_submit_dag -l UseDagDir -d 'Run DAGs in directories specified by DAG file paths'
complete -c condor_submit_dag -o UseDagDir -d 'Run DAGs in directories specified by DAG file paths'
complete -c condor_submit_dag -l Valgrind -d 'Run DAGMan under Valgrind (Linux Only)'
complete -c condor_submit_dag -o Valgrind -d 'Run DAGMan under Valgrind (Linux Only)'
complete -c condor_submit_dag -s v -l Verbose -d 'Increase error message verbosity for condor_submit_dag'
complete -c condor_submit_dag -s v -o Verbose -d 'Increase error message verbosity for condor_submit_dag'
