complete -c condor_config_val -l name -d 'Query the named daemon' -r
complete -c condor_config_val -o name -d 'Query the named daemon' -r
complete -c condor_config_val -l address -d 'Query the daemon at this address' -r
complete -c condor_config_val -o address -d 'Query the daemon at this address' -r
complete -c condor_config_val -l pool -d 'Find daemons through this central manager' -r
complete -c condor_config_val -o pool -d 'Find daemons through this central manager' -r
complete -c condor_config_val -l local-name -d 'Use this local name for lookups' -r
complete -c condor_config_val -o local-name -d 'Use this local name for lookups' -r
complete -c condor_config_val -l subsystem -d 'Look variables up as this subsystem (default TOOL)' -r
complete -c condor_config_val -o subsystem -d 'Look variables up as this subsystem (default TOOL)' -r
complete -c condor_config_val -l writeconfig -d 'Write the configuration to FILE (- for stdout)' -r
complete -c condor_config_val -o writeconfig -d 'Write the configuration to FILE (- for stdout)' -r
complete -c condor_config_val -l root-config -d 'Read FILE as the root configuration file' -r
complete -c condor_config_val -o root-config -d 'Read FILE as the root configuration file' -r
complete -c condor_config_val -l owner -d 'Print the name of the user running the tool'
complete -c condor_config_val -o owner -d 'Print the name of the user running the tool'
complete -c condor_config_val -l tilde -d 'Print the home directory of the condor user'
complete -c condor_config_val -o tilde -d 'Print the home directory of the condor user'
complete -c condor_config_val -l master -d 'Query the master'
complete -c condor_config_val -o master -d 'Query the master'
complete -c condor_config_val -l schedd -d 'Query the schedd'
complete -c condor_config_val -o schedd -d 'Query the schedd'
complete -c condor_config_val -l startd -d 'Query the startd'
complete -c condor_config_val -o startd -d 'Query the startd'
complete -c condor_config_val -l collector -d 'Query the collector'
complete -c condor_config_val -o collector -d 'Query the collector'
complete -c condor_config_val -l negotiator -d 'Query the negotiator'
complete -c condor_config_val -o negotiator -d 'Query the negotiator'
complete -c condor_config_val -l set -d 'Set each "VAR = value" in the user\'s configuration file'
complete -c condor_config_val -o set -d 'Set each "VAR = value" in the user\'s configuration file'
complete -c condor_config_val -l unset -d 'Remove each VAR from the user\'s configuration file'
complete -c condor_config_val -o unset -d 'Remove each VAR from the user\'s configuration file'
complete -c condor_config_val -l rset -d 'Set runtime configuration in a daemon'
complete -c condor_config_val -o rset -d 'Set runtime configuration in a daemon'
complete -c condor_config_val -l runset -d 'Unset runtime configuration in a daemon'
complete -c condor_config_val -o runset -d 'Unset runtime configuration in a daemon'
complete -c condor_config_val -l mixedcase -d 'Print names as they were spelled'
complete -c condor_config_val -o mixedcase -d 'Print names as they were spelled'
complete -c condor_config_val -l raw -d 'Print raw values'
complete -c condor_config_val -o raw -d 'Print raw values'
complete -c condor_config_val -l default -d 'Print default values'
complete -c condor_config_val -o default -d 'Print default values'
complete -c condor_config_val -l config -d 'Print the configuration files read'
complete -c condor_config_val -o config -d 'Print the configuration files read'
complete -c condor_config_val -l verbose -d 'Print where each variable was set, its raw and expanded values'
complete -c condor_config_val -o verbose -d 'Print where each variable was set, its raw and expanded values'
complete -c condor_config_val -l dump -d 'Print all variables whose names match the VARs'
complete -c condor_config_val -o dump -d 'Print all variables whose names match the VARs'
complete -c condor_config_val -l expanded -d 'Print expanded values (with -dump)'
complete -c condor_config_val -o expanded -d 'Print expanded values (with -dump)'
complete -c condor_config_val -l macro -d 'Expand each argument as configuration text (-macro:path: as a path)'
complete -c condor_config_val -o macro -d 'Expand each argument as configuration text (-macro:path: as a path)'
complete -c condor_config_val -l evaluate -d 'Evaluate values against the daemon\'s ad'
complete -c condor_config_val -o evaluate -d 'Evaluate values against the daemon\'s ad'
complete -c condor_config_val -l unused -d 'Only variables the daemon did not use'
complete -c condor_config_val -o unused -d 'Only variables the daemon did not use'
complete -c condor_config_val -l used -d 'Only variables the daemon used'
complete -c condor_config_val -o used -d 'Only variables the daemon used'
complete -c condor_config_val -l summary -d 'Print the variables the configuration files changed'
complete -c condor_config_val -o summary -d 'Print the variables the configuration files changed'
complete -c condor_config_val -l debug -d 'Print debugging output on stderr'
complete -c condor_config_val -o debug -d 'Print debugging output on stderr'
complete -c condor_config_val -l help -d 'Print help and exit'
complete -c condor_config_val -o help -d 'Print help and exit'
complete -c condor_config_val -l version -d 'Print the version and exit'
complete -c condor_config_val -o version -d 'Print the version and exit'
