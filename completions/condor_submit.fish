complete -c condor_submit -l dry-run -d 'Queue nothing; write the ClassAds that would be queued to FILE (- for stdout). -dry-run:full writes full ads, -dry-run:cluster=N numbers from N' -r
complete -c condor_submit -o dry-run -d 'Queue nothing; write the ClassAds that would be queued to FILE (- for stdout). -dry-run:full writes full ads, -dry-run:cluster=N numbers from N' -r
complete -c condor_submit -l file -d 'Read the submit description from FILE' -r
complete -c condor_submit -o file -d 'Read the submit description from FILE' -r
complete -c condor_submit -l remote -d 'Submit to the named schedd, spooling input files (only the local schedd exists)' -r
complete -c condor_submit -o remote -d 'Submit to the named schedd, spooling input files (only the local schedd exists)' -r
complete -c condor_submit -l name -d 'Submit to the named schedd (only the local schedd exists)' -r
complete -c condor_submit -o name -d 'Submit to the named schedd (only the local schedd exists)' -r
complete -c condor_submit -l address -d 'Submit to the schedd at this address (this pool\'s, <127.0.0.1:9618>)' -r
complete -c condor_submit -o address -d 'Submit to the schedd at this address (this pool\'s, <127.0.0.1:9618>)' -r
complete -c condor_submit -l pool -d 'Find the schedd through this central manager (this host\'s pool)' -r
complete -c condor_submit -o pool -d 'Find the schedd through this central manager (this host\'s pool)' -r
complete -c condor_submit -l append -d 'A submit command applied before the queue statement (a queue statement replaces the file\'s)' -r
complete -c condor_submit -o append -d 'A submit command applied before the queue statement (a queue statement replaces the file\'s)' -r
complete -c condor_submit -l batch-name -d 'Set the batch name (JobBatchName), overriding batch_name in the file' -r
complete -c condor_submit -o batch-name -d 'Set the batch name (JobBatchName), overriding batch_name in the file' -r
complete -c condor_submit -l batch-id -d 'Set the batch id (JobBatchId)' -r
complete -c condor_submit -o batch-id -d 'Set the batch id (JobBatchId)' -r
complete -c condor_submit -l queue -d 'A queue statement\'s arguments: every following word that does not start with \'-\'' -r
complete -c condor_submit -o queue -d 'A queue statement\'s arguments: every following word that does not start with \'-\'' -r
complete -c condor_submit -l maxjobs -d 'Fail, queueing nothing, if the submit would make more than N jobs' -r
complete -c condor_submit -o maxjobs -d 'Fail, queueing nothing, if the submit would make more than N jobs' -r
complete -c condor_submit -l dump -d 'Queue nothing; write the job ClassAds to FILE (- for stdout)' -r
complete -c condor_submit -o dump -d 'Queue nothing; write the job ClassAds to FILE (- for stdout)' -r
complete -c condor_submit -l verbose -d 'Print each job\'s ClassAd as it is queued'
complete -c condor_submit -o verbose -d 'Print each job\'s ClassAd as it is queued'
complete -c condor_submit -l terse -d 'Print only the job ids queued, as \'C.P - C.P\''
complete -c condor_submit -o terse -d 'Print only the job ids queued, as \'C.P - C.P\''
complete -c condor_submit -l disable -d 'Skip file permission checks (condorlite never makes them)'
complete -c condor_submit -o disable -d 'Skip file permission checks (condorlite never makes them)'
complete -c condor_submit -l debug -d 'Accepted for compatibility; no debug output'
complete -c condor_submit -o debug -d 'Accepted for compatibility; no debug output'
complete -c condor_submit -l factory -d 'Submit a late materialization job factory: the master makes the jobs as max_materialize and max_idle allow'
complete -c condor_submit -o factory -d 'Submit a late materialization job factory: the master makes the jobs as max_materialize and max_idle allow'
complete -c condor_submit -l generator -d 'The same as -factory'
complete -c condor_submit -o generator -d 'The same as -factory'
complete -c condor_submit -l spool -d 'Spool the jobs\' input files to the schedd (here on this host: nothing to send)'
complete -c condor_submit -o spool -d 'Spool the jobs\' input files to the schedd (here on this host: nothing to send)'
complete -c condor_submit -l single-cluster -d 'Do not submit if more than one ClusterId is needed'
complete -c condor_submit -o single-cluster -d 'Do not submit if more than one ClusterId is needed'
complete -c condor_submit -l unused -d 'Turn the warnings about unused definitions off (or back on)'
complete -c condor_submit -o unused -d 'Turn the warnings about unused definitions off (or back on)'
complete -c condor_submit -l allow-crlf-script -d 'Only warn about a #! executable script with CRLF line endings'
complete -c condor_submit -o allow-crlf-script -d 'Only warn about a #! executable script with CRLF line endings'
complete -c condor_submit -l interactive -d 'Submit an interactive session job: once it runs, a shell in its directory with its environment, on this terminal; the job is removed when the shell exits'
complete -c condor_submit -o interactive -d 'Submit an interactive session job: once it runs, a shell in its directory with its environment, on this terminal; the job is removed when the shell exits'
complete -c condor_submit -l help -d 'Print help and exit'
complete -c condor_submit -o help -d 'Print help and exit'
