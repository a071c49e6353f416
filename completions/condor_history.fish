complete -c condor_history -l constraint -d 'Only jobs for which the ClassAd expression is true' -r
complete -c condor_history -o constraint -d 'Only jobs for which the ClassAd expression is true' -r
complete -c condor_history -l attributes -d 'Only these attributes (with -long, -json, -xml)' -r
complete -c condor_history -o attributes -d 'Only these attributes (with -long, -json, -xml)' -r
complete -c condor_history -l format -d 'Print ATTR with the printf-style FMT' -r
complete -c condor_history -o format -d 'Print ATTR with the printf-style FMT' -r
complete -c condor_history -l limit -l match -d 'Show at most N jobs' -r
complete -c condor_history -o limit -l match -d 'Show at most N jobs' -r
complete -c condor_history -l scanlimit -d 'Look at no more than N jobs' -r
complete -c condor_history -o scanlimit -d 'Look at no more than N jobs' -r
complete -c condor_history -l since -d 'Stop at this job id, or at the first job for which EXPR is true' -r
complete -c condor_history -o since -d 'Stop at this job id, or at the first job for which EXPR is true' -r
complete -c condor_history -l completedsince -d 'Stop at the first job that completed before TIME' -r
complete -c condor_history -o completedsince -d 'Stop at the first job that completed before TIME' -r
complete -c condor_history -l file -d 'Read this history file (HTCondor\'s format: ads ended by \'***\' lines), or a condorlite spool\'s job_queue.db' -r
complete -c condor_history -o file -d 'Read this history file (HTCondor\'s format: ads ended by \'***\' lines), or a condorlite spool\'s job_queue.db' -r
complete -c condor_history -l userlog -d 'Show the jobs of this job event log, as far as its events tell' -r
complete -c condor_history -o userlog -d 'Show the jobs of this job event log, as far as its events tell' -r
complete -c condor_history -l search -d 'Read this history file and its rotated copies (FILE.<time>)' -r
complete -c condor_history -o search -d 'Read this history file and its rotated copies (FILE.<time>)' -r
complete -c condor_history -l print-format -d 'Show the jobs as the print-format FILE says (- for standard input)' -r
complete -c condor_history -o print-format -d 'Show the jobs as the print-format FILE says (- for standard input)' -r
complete -c condor_history -l name -d 'Query this schedd\'s history (the local schedd, by its name or its host\'s)' -r
complete -c condor_history -o name -d 'Query this schedd\'s history (the local schedd, by its name or its host\'s)' -r
complete -c condor_history -l pool -d 'Find the schedd through this central manager (this host\'s pool)' -r
complete -c condor_history -o pool -d 'Find the schedd through this central manager (this host\'s pool)' -r
complete -c condor_history -l long -d 'Print whole ads as `Name = value` lines (-long:json, ...)'
complete -c condor_history -o long -d 'Print whole ads as `Name = value` lines (-long:json, ...)'
complete -c condor_history -l json -d 'Print whole ads as a JSON list'
complete -c condor_history -o json -d 'Print whole ads as a JSON list'
complete -c condor_history -l jsonl -d 'Print whole ads as JSON, one per line'
complete -c condor_history -o jsonl -d 'Print whole ads as JSON, one per line'
complete -c condor_history -l xml -d 'Print whole ads as XML'
complete -c condor_history -o xml -d 'Print whole ads as XML'
complete -c condor_history -l autoformat -l af -d 'Print the given attributes or expressions, one line per ad (-af:jlhVrTYtng,)'
complete -c condor_history -o autoformat -l af -d 'Print the given attributes or expressions, one line per ad (-af:jlhVrTYtng,)'
complete -c condor_history -l wide -d 'Do not truncate output to the terminal width (-wide:N: to N columns)'
complete -c condor_history -o wide -d 'Do not truncate output to the terminal width (-wide:N: to N columns)'
complete -c condor_history -l backwards -d 'Newest jobs first (the default)'
complete -c condor_history -o backwards -d 'Newest jobs first (the default)'
complete -c condor_history -l forwards -l nobackwards -d 'Oldest jobs first'
complete -c condor_history -o forwards -l nobackwards -d 'Oldest jobs first'
complete -c condor_history -l epochs -d 'Show the job epoch history: an ad for every run of a job (JOB_EPOCH_HISTORY)'
complete -c condor_history -o epochs -d 'Show the job epoch history: an ad for every run of a job (JOB_EPOCH_HISTORY)'
complete -c condor_history -l local -d 'Read the local history'
complete -c condor_history -o local -d 'Read the local history'
complete -c condor_history -l schedd -d 'Read the schedd\'s history (the default)'
complete -c condor_history -o schedd -d 'Read the schedd\'s history (the default)'
complete -c condor_history -l debug -d 'Print debugging output on stderr'
complete -c condor_history -o debug -d 'Print debugging output on stderr'
complete -c condor_history -l help -d 'Print help and exit'
complete -c condor_history -o help -d 'Print help and exit'
