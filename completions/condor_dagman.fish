complete -c condor_dagman -l AutoRescue -d 'Control automatically running new rescue DAG (0=False | 1=True)' -r
complete -c condor_dagman -o AutoRescue -d 'Control automatically running new rescue DAG (0=False | 1=True)' -r
complete -c condor_dagman -l Batch-Name -d 'Set DAG batch name' -r
complete -c condor_dagman -o Batch-Name -d 'Set DAG batch name' -r
complete -c condor_dagman -l DAGMan -d 'Full path to alternate condor_dagman executable' -r
complete -c condor_dagman -o DAGMan -d 'Full path to alternate condor_dagman executable' -r
complete -c condor_dagman -l Debug -d 'Set DAGMan debug logs verbosity' -r
complete -c condor_dagman -o Debug -d 'Set DAGMan debug logs verbosity' -r
complete -c condor_dagman -l DoRescueFrom -d 'Run DAG rescue of given number' -r
complete -c condor_dagman -o DoRescueFrom -d 'Run DAG rescue of given number' -r
complete -c condor_dagman -l include_env -d 'Comma separated list of environment variables to *.condor.sub file getenv filter' -r
complete -c condor_dagman -o include_env -d 'Comma separated list of environment variables to *.condor.sub file getenv filter' -r
complete -c condor_dagman -l insert_env -d 'Delimited key=value pairs to explicitly set in the *.condor.sub file environment' -r
complete -c condor_dagman -o insert_env -d 'Delimited key=value pairs to explicitly set in the *.condor.sub file environment' -r
complete -c condor_dagman -l load_save -d 'Run DAG from provided save point file' -r
complete -c condor_dagman -o load_save -d 'Run DAG from provided save point file' -r
complete -c condor_dagman -l MaxHold -d 'Maximum number of HOLD scripts to run at once' -r
complete -c condor_dagman -o MaxHold -d 'Maximum number of HOLD scripts to run at once' -r
complete -c condor_dagman -l MaxIdle -d 'Maximum number of Idle nodes allowed' -r
complete -c condor_dagman -o MaxIdle -d 'Maximum number of Idle nodes allowed' -r
complete -c condor_dagman -l MaxJobs -d 'Maximum number of jobs submitted at once' -r
complete -c condor_dagman -o MaxJobs -d 'Maximum number of jobs submitted at once' -r
complete -c condor_dagman -l MaxPost -d 'Maximum number of POST scripts to run at once' -r
complete -c condor_dagman -o MaxPost -d 'Maximum number of POST scripts to run at once' -r
complete -c condor_dagman -l MaxPre -d 'Maximum number of PRE scripts to run at once' -r
complete -c condor_dagman -o MaxPre -d 'Maximum number of PRE scripts to run at once' -r
complete -c condor_dagman -l Notification -d 'Set HTCondor email notification level for DAG' -r
complete -c condor_dagman -o Notification -d 'Set HTCondor email notification level for DAG' -r
complete -c condor_dagman -l outfile_dir -d 'Directory path to write *.dagman.out file' -r
complete -c condor_dagman -o outfile_dir -d 'Directory path to write *.dagman.out file' -r
complete -c condor_dagman -l Priority -d 'Default priority for all jobs submitted by DAGMan' -r
complete -c condor_dagman -o Priority -d 'Default priority for all jobs submitted by DAGMan' -r
complete -c condor_dagman -l SubmitMethod -d 'Specify how DAGMan submits jobs for execution (0=condor_submit|1=DirectSubmit)' -r
complete -c condor_dagman -o SubmitMethod -d 'Specify how DAGMan submits jobs for execution (0=condor_submit|1=DirectSubmit)' -r
complete -c condor_dagman -l help -d 'Print usage info and exit'
complete -c condor_dagman -o help -d 'Print usage info and exit'
complete -c condor_dagman -l version -d 'Print version and exit'
complete -c condor_dagman -o version -d 'Print version and exit'
complete -c condor_dagman -l AllowVersionMismatch -d 'Allow version difference between *.condor.sub file and condor_dagman'
complete -c condor_dagman -o AllowVersionMismatch -d 'Allow version difference between *.condor.sub file and condor_dagman'
complete -c condor_dagman -l AlwaysRunPost -d 'Run POST script if PRE script fails'
complete -c condor_dagman -o AlwaysRunPost -d 'Run POST script if PRE script fails'
complete -c condor_dagman -l do_recurse -d 'Recursively generate Sub-DAG *.condor.sub files'
complete -c condor_dagman -o do_recurse -d 'Recursively generate Sub-DAG *.condor.sub files'
complete -c condor_dagman -l dont_suppress_notification -d 'Suppress email notifications for DAGMan and all its submitted jobs'
complete -c condor_dagman -o dont_suppress_notification -d 'Suppress email notifications for DAGMan and all its submitted jobs'
complete -c condor_dagman -l DontAlwaysRunPost -d 'Don\'t run POST script if PRE script fails'
complete -c condor_dagman -o DontAlwaysRunPost -d 'Don\'t run POST script if PRE script fails'
complete -c condor_dagman -l DoRecovery -d 'Allow DAG submitted jobs to send email notifications'
complete -c condor_dagman -o DoRecovery -d 'Allow DAG submitted jobs to send email notifications'
complete -c condor_dagman -l Dot -d 'Have DAGMan dump DOT file and exit'
complete -c condor_dagman -o Dot -d 'Have DAGMan dump DOT file and exit'
complete -c condor_dagman -l DryRun -d 'Dry run condor_dagman execution of DAG'
complete -c condor_dagman -o DryRun -d 'Dry run condor_dagman execution of DAG'
complete -c condor_dagman -l DumpRescue -d 'DAGMan dump rescue DAG and exit'
complete -c condor_dagman -o DumpRescue -d 'DAGMan dump rescue DAG and exit'
complete -c condor_dagman -l Force -d 'Overwrite used DAG file if they exist'
complete -c condor_dagman -o Force -d 'Overwrite used DAG file if they exist'
complete -c condor_dagman -l import_env -d 'Import current environment into *.condor.sub file'
complete -c condor_dagman -o import_env -d 'Import current environment into *.condor.sub file'
complete -c condor_dagman -l no_recurse -d 'Don\'t recursively generate Sub-DAG *.condor.sub files (Default)'
complete -c condor_dagman -o no_recurse -d 'Don\'t recursively generate Sub-DAG *.condor.sub files (Default)'
complete -c condor_dagman -l suppress_notification -d 'Suppress email notifications for DAGMan and all its submitted jobs'
complete -c condor_dagman -o suppress_notification -d 'Suppress email notifications for DAGMan and all its submitted jobs'
complete -c condor_dagman -l update_submit -d 'Update *.condor.sub file if it exists'
complete -c condor_dagman -o update_submit -d 'Update *.condor.sub file if it exists'
complete -c condor_dagman -l UseDagDir -d 'Run DAGs in directories specified by DAG file paths'
complete -c condor_dagman -o UseDagDir -d 'Run DAGs in directories specified by DAG file paths'
