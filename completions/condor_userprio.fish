complete -c condor_userprio -l setprio -d 'Set the real priority of USER' -r
complete -c condor_userprio -o setprio -d 'Set the real priority of USER' -r
complete -c condor_userprio -l setfactor -d 'Set the priority factor of USER' -r
complete -c condor_userprio -o setfactor -d 'Set the priority factor of USER' -r
complete -c condor_userprio -l setfloor -d 'Set the floor of USER' -r
complete -c condor_userprio -o setfloor -d 'Set the floor of USER' -r
complete -c condor_userprio -l setceiling -d 'Set the ceiling of USER (-1: none)' -r
complete -c condor_userprio -o setceiling -d 'Set the ceiling of USER (-1: none)' -r
complete -c condor_userprio -l setbegin -d 'Set the usage start time of USER' -r
complete -c condor_userprio -o setbegin -d 'Set the usage start time of USER' -r
complete -c condor_userprio -l setaccum -d 'Set the accumulated usage of USER' -r
complete -c condor_userprio -o setaccum -d 'Set the accumulated usage of USER' -r
complete -c condor_userprio -l setlast -d 'Set the last usage time of USER' -r
complete -c condor_userprio -o setlast -d 'Set the last usage time of USER' -r
complete -c condor_userprio -l resetusage -d 'Reset the usage of USER' -r
complete -c condor_userprio -o resetusage -d 'Reset the usage of USER' -r
complete -c condor_userprio -l delete -d 'Remove the record of USER' -r
complete -c condor_userprio -o delete -d 'Remove the record of USER' -r
complete -c condor_userprio -l constraint -d 'Only records matching EXPR (with -long -modular or -af)' -r
complete -c condor_userprio -o constraint -d 'Only records matching EXPR (with -long -modular or -af)' -r
complete -c condor_userprio -l af -d 'Print attributes with automatic formatting (-af[:lhVr,tng])' -r
complete -c condor_userprio -o af -d 'Print attributes with automatic formatting (-af[:lhVr,tng])' -r
complete -c condor_userprio -l activefrom -d 'Show users active since this date' -r
complete -c condor_userprio -o activefrom -d 'Show users active since this date' -r
complete -c condor_userprio -l getreslist -d 'List the slots USER holds' -r
complete -c condor_userprio -o getreslist -d 'List the slots USER holds' -r
complete -c condor_userprio -l inputfile -d 'Show the records in FILE (a negotiator reply ad)' -r
complete -c condor_userprio -o inputfile -d 'Show the records in FILE (a negotiator reply ad)' -r
complete -c condor_userprio -l pool -d 'Query the negotiator of this pool' -r
complete -c condor_userprio -o pool -d 'Query the negotiator of this pool' -r
complete -c condor_userprio -l name -d 'Query the negotiator of this name' -r
complete -c condor_userprio -o name -d 'Query the negotiator of this name' -r
complete -c condor_userprio -l resetall -d 'Reset the usage of every user'
complete -c condor_userprio -o resetall -d 'Reset the usage of every user'
complete -c condor_userprio -l long -d 'Print whole records (ClassAds)'
complete -c condor_userprio -o long -d 'Print whole records (ClassAds)'
complete -c condor_userprio -l legacy -d 'With -long, print one ClassAd of numbered attributes'
complete -c condor_userprio -o legacy -d 'With -long, print one ClassAd of numbered attributes'
complete -c condor_userprio -l modular -d 'With -long, print one ClassAd per record'
complete -c condor_userprio -o modular -d 'With -long, print one ClassAd per record'
complete -c condor_userprio -l debug -d 'Print debugging output on stderr'
complete -c condor_userprio -o debug -d 'Print debugging output on stderr'
complete -c condor_userprio -l hierarchical -d 'Show users under their groups'
complete -c condor_userprio -o hierarchical -d 'Show users under their groups'
complete -c condor_userprio -l flat -d 'Do not show users under their groups'
complete -c condor_userprio -o flat -d 'Do not show users under their groups'
complete -c condor_userprio -l grouprollup -d 'Group values are the sums of their members\''
complete -c condor_userprio -o grouprollup -d 'Group values are the sums of their members\''
complete -c condor_userprio -l grouporder -d 'Show groups first, then users'
complete -c condor_userprio -o grouporder -d 'Show groups first, then users'
complete -c condor_userprio -l quotas -d 'Show group quota fields'
complete -c condor_userprio -o quotas -d 'Show group quota fields'
complete -c condor_userprio -l surplus -d 'Show group surplus policies'
complete -c condor_userprio -o surplus -d 'Show group surplus policies'
complete -c condor_userprio -l sortkey -d 'Show group sort keys'
complete -c condor_userprio -o sortkey -d 'Show group sort keys'
complete -c condor_userprio -l all -d 'Show all fields'
complete -c condor_userprio -o all -d 'Show all fields'
complete -c condor_userprio -l most -d 'Show the most useful fields (the default)'
complete -c condor_userprio -o most -d 'Show the most useful fields (the default)'
complete -c condor_userprio -l groupid -d 'Show group ids'
complete -c condor_userprio -o groupid -d 'Show group ids'
complete -c condor_userprio -l order -d 'Show group display order'
complete -c condor_userprio -o order -d 'Show group display order'
complete -c condor_userprio -l allusers -d 'Show every user, however long inactive'
complete -c condor_userprio -o allusers -d 'Show every user, however long inactive'
complete -c condor_userprio -l usage -d 'Show usage fields'
complete -c condor_userprio -o usage -d 'Show usage fields'
complete -c condor_userprio -l priority -d 'Show priority fields'
complete -c condor_userprio -o priority -d 'Show priority fields'
complete -c condor_userprio -l collector -d 'Read the records from the collector'
complete -c condor_userprio -o collector -d 'Read the records from the collector'
complete -c condor_userprio -l negotiator -d 'Read the records from the negotiator'
complete -c condor_userprio -o negotiator -d 'Read the records from the negotiator'
complete -c condor_userprio -l help -d 'Print help and exit'
complete -c condor_userprio -o help -d 'Print help and exit'
