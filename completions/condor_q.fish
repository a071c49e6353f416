complete -c condor_q -l constraint -d 'Only jobs for which the ClassAd expression is true' -r
complete -c condor_q -o constraint -d 'Only jobs for which the ClassAd expression is true' -r
complete -c condor_q -l attributes -d 'Only these attributes (with -long, -json, -xml)' -r
complete -c condor_q -o attributes -d 'Only these attributes (with -long, -json, -xml)' -r
complete -c condor_q -l format -d 'Print ATTR with the printf-style FMT' -r
complete -c condor_q -o format -d 'Print ATTR with the printf-style FMT' -r
complete -c condor_q -l limit -d 'Show at most N jobs' -r
complete -c condor_q -o limit -d 'Show at most N jobs' -r
complete -c condor_q -l name -d 'The schedd to query (the local one, by its name or its host\'s)' -r
complete -c condor_q -o name -d 'The schedd to query (the local one, by its name or its host\'s)' -r
complete -c condor_q -l pool -d 'The central manager to query (this host\'s pool)' -r
complete -c condor_q -o pool -d 'The central manager to query (this host\'s pool)' -r
complete -c condor_q -l submitter -d 'Show this submitter\'s jobs in every schedd of the pool' -r
complete -c condor_q -o submitter -d 'Show this submitter\'s jobs in every schedd of the pool' -r
complete -c condor_q -l address -l addr -d 'The schedd at this address (this pool\'s, <127.0.0.1:9618>)' -r
complete -c condor_q -o address -l addr -d 'The schedd at this address (this pool\'s, <127.0.0.1:9618>)' -r
complete -c condor_q -l print-format -d 'Show the jobs as the print-format FILE says (- for standard input)' -r
complete -c condor_q -o print-format -d 'Show the jobs as the print-format FILE says (- for standard input)' -r
complete -c condor_q -l machine -d 'With -analyze: only the slots of this machine (or this slot)' -r
complete -c condor_q -o machine -d 'With -analyze: only the slots of this machine (or this slot)' -r
complete -c condor_q -l mconstraint -l slotconstraint -d 'With -analyze: only the slots for which the expression is true' -r
complete -c condor_q -o mconstraint -l slotconstraint -d 'With -analyze: only the slots for which the expression is true' -r
complete -c condor_q -l jobads -d 'Read the jobs from this file of job ads (long form, as -long writes them; - is standard input) instead of the queue' -r
complete -c condor_q -o jobads -d 'Read the jobs from this file of job ads (long form, as -long writes them; - is standard input) instead of the queue' -r
complete -c condor_q -l userlog -d 'Show the jobs of this job event log (- is standard input) instead of the queue, as far as its events tell' -r
complete -c condor_q -o userlog -d 'Show the jobs of this job event log (- is standard input) instead of the queue, as far as its events tell' -r
complete -c condor_q -l slotads -d 'With -analyze: the slot ads of this file (long form) instead of the pool\'s' -r
complete -c condor_q -o slotads -d 'With -analyze: the slot ads of this file (long form) instead of the pool\'s' -r
complete -c condor_q -l long -d 'Print whole ads as `Name = value` lines (-long:json, ...)'
complete -c condor_q -o long -d 'Print whole ads as `Name = value` lines (-long:json, ...)'
complete -c condor_q -l json -d 'Print whole ads as a JSON list'
complete -c condor_q -o json -d 'Print whole ads as a JSON list'
complete -c condor_q -l jsonl -d 'Print whole ads as JSON, one per line'
complete -c condor_q -o jsonl -d 'Print whole ads as JSON, one per line'
complete -c condor_q -l xml -d 'Print whole ads as XML'
complete -c condor_q -o xml -d 'Print whole ads as XML'
complete -c condor_q -l autoformat -l af -d 'Print the given attributes or expressions, one line per ad (-af:jlhVrTYtng,)'
complete -c condor_q -o autoformat -l af -d 'Print the given attributes or expressions, one line per ad (-af:jlhVrTYtng,)'
complete -c condor_q -l wide -d 'Do not truncate output to the terminal width (-wide:N: to N columns)'
complete -c condor_q -o wide -d 'Do not truncate output to the terminal width (-wide:N: to N columns)'
complete -c condor_q -l global -d 'Show the queues of every schedd in the pool'
complete -c condor_q -o global -d 'Show the queues of every schedd in the pool'
complete -c condor_q -l autocluster -d 'Show the schedd\'s autoclusters (the jobs grouped by their significant attributes), one line each with its id and job count'
complete -c condor_q -o autocluster -d 'Show the schedd\'s autoclusters (the jobs grouped by their significant attributes), one line each with its id and job count'
complete -c condor_q -l group-by -d 'Group the jobs by the attributes shown (-af, -format, -print-format): one line per group, with its Id, JobCount and JobIds'
complete -c condor_q -o group-by -d 'Group the jobs by the attributes shown (-af, -format, -print-format): one line per group, with its Id, JobCount and JobIds'
complete -c condor_q -l allusers -l all-users -d 'Show all users\' jobs'
complete -c condor_q -o allusers -l all-users -d 'Show all users\' jobs'
complete -c condor_q -l run -d 'Show running jobs, with the hosts they run on'
complete -c condor_q -o run -d 'Show running jobs, with the hosts they run on'
complete -c condor_q -l hold -l held -d 'Show held jobs, with their hold reasons'
complete -c condor_q -o hold -l held -d 'Show held jobs, with their hold reasons'
complete -c condor_q -l idle -d 'Show idle jobs'
complete -c condor_q -o idle -d 'Show idle jobs'
complete -c condor_q -l cputime -d 'Show CPU time rather than wall-clock time'
complete -c condor_q -o cputime -d 'Show CPU time rather than wall-clock time'
complete -c condor_q -l currentrun -d 'Show the time of the current run only'
complete -c condor_q -o currentrun -d 'Show the time of the current run only'
complete -c condor_q -l cumulative-time -d 'Show the time of all runs (the default)'
complete -c condor_q -o cumulative-time -d 'Show the time of all runs (the default)'
complete -c condor_q -l debug -d 'Print debugging output on stderr'
complete -c condor_q -o debug -d 'Print debugging output on stderr'
complete -c condor_q -l batch -l progress -d 'One line per batch of jobs (the default)'
complete -c condor_q -o batch -l progress -d 'One line per batch of jobs (the default)'
complete -c condor_q -l nobatch -d 'One line per job'
complete -c condor_q -o nobatch -d 'One line per job'
complete -c condor_q -l dag -d 'Show DAG node jobs under their DAGMan job (with -nobatch: one line per job, node names in the owner column); a cluster id also selects its DAG\'s nodes'
complete -c condor_q -o dag -d 'Show DAG node jobs under their DAGMan job (with -nobatch: one line per job, node names in the owner column); a cluster id also selects its DAG\'s nodes'
complete -c condor_q -l totals -d 'Show only the totals'
complete -c condor_q -o totals -d 'Show only the totals'
complete -c condor_q -l io -d 'Show the jobs transferring files: runs, bytes in and out (24.0\'s -io view)'
complete -c condor_q -o io -d 'Show the jobs transferring files: runs, bytes in and out (24.0\'s -io view)'
complete -c condor_q -l factory -d 'Show the job factories (late materialization): their clusters\' counts (-factory:clusters_only,late_materialize)'
complete -c condor_q -o factory -d 'Show the job factories (late materialization): their clusters\' counts (-factory:clusters_only,late_materialize)'
complete -c condor_q -l expert -d 'Shorter error messages'
complete -c condor_q -o expert -d 'Shorter error messages'
complete -c condor_q -l analyze -l analyse -d 'Why the jobs do not run (-analyze:summary,reverse,noprune,...)'
complete -c condor_q -o analyze -l analyse -d 'Why the jobs do not run (-analyze:summary,reverse,noprune,...)'
complete -c condor_q -l better-analyze -l better-analyse -d 'Analyze the jobs\' requirements clause by clause, whatever their state'
complete -c condor_q -o better-analyze -l better-analyse -d 'Analyze the jobs\' requirements clause by clause, whatever their state'
complete -c condor_q -l reverse-analyze -d 'Analyze the slots\' requirements against the jobs'
complete -c condor_q -o reverse-analyze -d 'Analyze the slots\' requirements against the jobs'
complete -c condor_q -l verbose -d 'With -analyze: show progress, and the names of the slots in each category'
complete -c condor_q -o verbose -d 'With -analyze: show progress, and the names of the slots in each category'
complete -c condor_q -l help -d 'Print help and exit'
complete -c condor_q -o help -d 'Print help and exit'
complete -c condor_q -l version -d 'Print the version and exit'
complete -c condor_q -o version -d 'Print the version and exit'
