complete -c classad_eval -l file -l my-file -d 'Replace the context ad with the first ad in this file' -r -F
complete -c classad_eval -o file -l my-file -d 'Replace the context ad with the first ad in this file' -r -F
complete -c classad_eval -l target-file -d 'Use the first ad in this file as the target ad' -r -F
complete -c classad_eval -o target-file -d 'Use the first ad in this file as the target ad' -r -F
complete -c classad_eval -l quiet -d 'Don\'t print the context ad from here on'
complete -c classad_eval -o quiet -d 'Don\'t print the context ad from here on'
complete -c classad_eval -l debug -d 'Enable debug output'
complete -c classad_eval -o debug -d 'Enable debug output'
complete -c classad_eval -l help -d 'Print help and exit'
complete -c classad_eval -o help -d 'Print help and exit'
