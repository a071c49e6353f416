//! The EXAMPLES section of each tool's man page: what a newcomer types first, spelled as
//! HTCondor spells it (single-dash long options).

/// The examples of the tool `name`: (what it does, the command line).
pub fn examples(name: &str) -> &'static [(&'static str, &'static str)] {
    match name {
        "classad_eval" => &[
            ("Evaluate an expression", "classad_eval '1 + 2'"),
            (
                "Evaluate against an ad given on the command line",
                "classad_eval 'a = 2' 'a * 3'",
            ),
            (
                "Match a job ad against a machine ad",
                "classad_eval -file job.ad -target-file machine.ad 'MY.Requirements'",
            ),
        ],
        "condor_config_val" => &[
            ("Print one knob's value", "condor_config_val NUM_CPUS"),
            (
                "Print a value and where it was set",
                "condor_config_val -verbose LOCAL_DIR",
            ),
            (
                "List the configuration files read",
                "condor_config_val -config",
            ),
            (
                "Set a knob in your own configuration file",
                "condor_config_val -set 'NUM_CPUS = 4'",
            ),
            (
                "Dump every knob matching a pattern",
                "condor_config_val -dump NEGOTIATOR",
            ),
        ],
        "condor_continue" => &[
            ("Resume job 12.0", "condor_continue 12.0"),
            ("Resume all of your suspended jobs", "condor_continue $USER"),
        ],
        "condor_dag_checker" => &[(
            "Check a DAG file for errors without running it",
            "condor_dag_checker diamond.dag",
        )],
        "condor_dagman" => &[(
            "condor_submit_dag starts condor_dagman as a scheduler-universe job; run by hand",
            "condor_dagman -p 0 -f -l . -Lockfile diamond.dag.lock -Dag diamond.dag",
        )],
        "condor_drain" => &[
            (
                "Drain this machine gracefully",
                "condor_drain $(hostname -f)",
            ),
            (
                "Drain, then let jobs start again",
                "condor_drain -resume-on-completion $(hostname -f)",
            ),
            ("Cancel draining", "condor_drain -cancel $(hostname -f)"),
        ],
        "condor_history" => &[
            (
                "The jobs that left the queue, newest first",
                "condor_history",
            ),
            ("One job's whole ad", "condor_history -long 12.0"),
            (
                "Exit codes of a user's last ten jobs",
                "condor_history -limit 10 -af ClusterId ProcId ExitCode alice",
            ),
        ],
        "condor_hold" => &[
            ("Hold job 12.0", "condor_hold 12.0"),
            (
                "Hold a cluster with a reason",
                "condor_hold -reason 'input not ready' 12",
            ),
            (
                "Hold every job using too much memory",
                "condor_hold -constraint 'MemoryUsage > 4096'",
            ),
        ],
        "condor_master" => &[
            ("Start the personal pool in the background", "condor_master"),
            ("Run it in the foreground", "condor_master -f"),
            ("Stop it", "condor_off -master"),
        ],
        "condor_off" => &[
            (
                "Stop the pool (the master and its daemons)",
                "condor_off -master",
            ),
            (
                "Stop the pool, killing jobs at once",
                "condor_off -fast -master",
            ),
        ],
        "condor_on" => &[("Start the startd again", "condor_on -startd")],
        "condor_prio" => &[
            ("Raise job 12.0's priority by 5", "condor_prio +5 12.0"),
            (
                "Set every job of cluster 12 to priority 10",
                "condor_prio -p 10 12",
            ),
        ],
        "condor_q" => &[
            ("Your jobs, one line per batch", "condor_q"),
            (
                "Every user's jobs, one line each",
                "condor_q -allusers -nobatch",
            ),
            ("Why job 12.0 does not run", "condor_q -better-analyze 12.0"),
            (
                "Chosen attributes, one job per line",
                "condor_q -af ClusterId ProcId JobStatus",
            ),
            ("Held jobs and why", "condor_q -hold"),
        ],
        "condor_qedit" => &[
            (
                "Change job 12.0's memory request",
                "condor_qedit 12.0 RequestMemory 2048",
            ),
            (
                "Change an attribute of all of a user's jobs",
                "condor_qedit -owner alice JobPrio 5",
            ),
        ],
        "condor_reconfig" => &[(
            "Make the daemons read their configuration again",
            "condor_reconfig",
        )],
        "condor_release" => &[
            ("Release job 12.0", "condor_release 12.0"),
            ("Release all of your held jobs", "condor_release $USER"),
        ],
        "condor_reschedule" => &[("Start a negotiation cycle now", "condor_reschedule")],
        "condor_restart" => &[("Restart the master and its daemons", "condor_restart")],
        "condor_rm" => &[
            ("Remove job 12.0", "condor_rm 12.0"),
            ("Remove cluster 12", "condor_rm 12"),
            ("Remove all of your jobs", "condor_rm $USER"),
            (
                "Remove the jobs matching a constraint",
                "condor_rm -constraint 'JobStatus == 5'",
            ),
        ],
        "condor_transfer_data" => &[
            (
                "Fetch the output of spooled job 12.0 into its submit directory",
                "condor_transfer_data 12.0",
            ),
            (
                "Fetch the output of all of your spooled jobs",
                "condor_transfer_data $USER",
            ),
            (
                "Fetch the output of the completed jobs",
                "condor_transfer_data -constraint 'JobStatus == 4'",
            ),
        ],
        "condor_now" => &[
            (
                "Start idle job 13.0 now on the slot of running job 12.0, which is vacated",
                "condor_now 13.0 12.0",
            ),
            (
                "Vacate two running jobs for it; it takes the first slot to come free",
                "condor_now 13.0 12.0 12.1",
            ),
        ],
        "condor_evicted_files" => &[
            (
                "Where job 12.0's checkpoint is kept in the spool",
                "condor_evicted_files 12.0",
            ),
            (
                "The files of the checkpoints of two jobs",
                "condor_evicted_files list 12.0 12.1",
            ),
            (
                "Copy job 12.0's checkpoint to the directory 12.0",
                "condor_evicted_files get 12.0",
            ),
        ],
        "condor_ssh_to_job" => &[
            (
                "A shell in running job 12.0's directory, with its environment",
                "condor_ssh_to_job 12.0",
            ),
            (
                "Look at what the job has written so far",
                "condor_ssh_to_job 12.0 ls -l",
            ),
            (
                "Wait for job 13 to start, then open a shell in it",
                "condor_ssh_to_job -auto-retry 13",
            ),
        ],
        "condor_tail" => &[
            (
                "Show the end of running job 12.0's standard output",
                "condor_tail 12.0",
            ),
            (
                "Follow its standard error as it grows",
                "condor_tail -f -stderr 12.0",
            ),
            (
                "Show the last 4 KiB of a file the job writes (in its transfer_output_files)",
                "condor_tail -maxbytes 4096 -no-stdout 12.0 progress.log",
            ),
        ],
        "condor_chirp" => &[
            (
                "From inside a job (submitted with want_io_proxy = true), record its progress in the queue",
                "condor_chirp set_job_attr Progress 42",
            ),
            (
                "Read an attribute of the job, and write a note to its event log",
                "condor_chirp get_job_attr RequestMemory; condor_chirp ulog 'phase 2 started'",
            ),
            (
                "Copy a file from the submit directory, and a result back to it",
                "condor_chirp fetch input.dat input.dat; condor_chirp put result.dat result.dat",
            ),
            (
                "Without want_io_proxy: an update sent with the starter's next update",
                "condor_chirp set_job_attr_delayed ChirpProgress 42",
            ),
        ],
        "condor_who" => &[
            ("Show the jobs running on this machine", "condor_who"),
            ("The whole slot ads of the running jobs", "condor_who -long"),
            (
                "The job id, process id and slot of each running job",
                "condor_who -af JobId '#PID' '#SLOT'",
            ),
        ],
        "condor_check_userlogs" => &[
            (
                "Check that every job in a log was submitted, ran and ended once",
                "condor_check_userlogs jobs.log",
            ),
            (
                "Check the logs of a DAG's nodes together, oldest event first",
                "condor_check_userlogs a.log b.log c.log",
            ),
        ],
        "condor_userlog" => &[
            (
                "Summarise the runs in a job event log",
                "condor_userlog jobs.log",
            ),
            (
                "Only the totals, for cluster 12",
                "condor_userlog -total -j 12 jobs.log",
            ),
            (
                "The runs that ended by eviction, without the summary",
                "condor_userlog -raw -evict jobs.log",
            ),
        ],
        "condor_watch_q" => &[
            (
                "Watch your jobs until they are all done, stopping with status 1 if one is held",
                "condor_watch_q -exit all,done,0 -exit any,held,1",
            ),
            (
                "Watch the jobs of two event logs, grouped by log, without the table",
                "condor_watch_q -files a.log b.log -groupby log -no-table",
            ),
            (
                "Watch clusters 12 and 13 with percentages, appending updates to a file",
                "condor_watch_q -clusters 12 13 -summary-type percentages -no-refresh > watch.txt",
            ),
        ],
        "condor_run" => &[
            (
                "Run a command as a job and wait for its output",
                "condor_run 'hostname; date'",
            ),
            (
                "Ask for resources",
                "CONDOR_REQUIREMENTS='Memory > 1024' condor_run ./analyze input.dat",
            ),
        ],
        "condor_sim" => &[
            (
                "Replay a workload: shares over time, then a summary",
                "condor_sim workload.sim",
            ),
            (
                "What a shorter priority half-life would do",
                "condor_sim -set PRIORITY_HALFLIFE=3600 -summary workload.sim",
            ),
        ],
        "condor_status" => &[
            ("The pool's slots", "condor_status"),
            ("Idle slots only", "condor_status -avail"),
            ("One line per machine", "condor_status -compact"),
            ("Who is submitting", "condor_status -submitters"),
            (
                "A slot's whole ad",
                "condor_status -long slot1@$(hostname -f)",
            ),
        ],
        "condor_submit" => &[
            (
                "Queue the jobs a submit file describes",
                "condor_submit job.sub",
            ),
            (
                "A submit description from standard input",
                "printf 'executable = /bin/date\\nqueue 3\\n' | condor_submit -",
            ),
            (
                "Add commands on the command line",
                "condor_submit job.sub -append 'request_memory = 2G'",
            ),
            (
                "See the job ads without queueing them",
                "condor_submit -dry-run - job.sub",
            ),
        ],
        "condor_submit_dag" => &[
            ("Run a workflow", "condor_submit_dag diamond.dag"),
            (
                "At most four node jobs at a time",
                "condor_submit_dag -maxjobs 4 diamond.dag",
            ),
        ],
        "condor_store_cred" => &[
            (
                "Write a pool password file for a container's daemons",
                "condor_store_cred -f /etc/condor/passwords.d/POOL -p \"$POOL_PASSWORD\"",
            ),
            (
                "Set the pool password (also the POOL token signing key)",
                "condor_store_cred -c add -p \"$POOL_PASSWORD\"",
            ),
        ],
        "condor_suspend" => &[("Suspend job 12.0", "condor_suspend 12.0")],
        "condor_token_create" => &[
            (
                "A read-only token for a monitoring script, valid for a day",
                "condor_token_create -identity monitor@$(hostname -f) -authz READ -lifetime 86400",
            ),
            (
                "A token saved in the user's tokens directory",
                "condor_token_create -identity alice@$(hostname -f) -token alice",
            ),
        ],
        "condor_token_fetch" => &[(
            "A token for yourself, saved in your tokens directory",
            "condor_token_fetch -token mytoken",
        )],
        "condor_token_list" => &[("The tokens you have", "condor_token_list")],
        "condor_userprio" => &[
            ("The submitters' priorities", "condor_userprio"),
            (
                "Give a user a larger share (smaller factor)",
                "condor_userprio -setfactor alice@$(hostname -f) 500",
            ),
        ],
        "condor_vacate_job" => &[(
            "Stop job 12.0 and put it back in the queue",
            "condor_vacate_job 12.0",
        )],
        "condor_version" => &[("The version condorlite reports", "condor_version")],
        "condor_wait" => &[
            ("Wait for every job in a log to end", "condor_wait job.log"),
            (
                "Wait at most an hour for job 12.0",
                "condor_wait -wait 3600 job.log 12.0",
            ),
        ],
        _ => &[],
    }
}
