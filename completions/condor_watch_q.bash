_condor_watch_q() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="condor_watch_q"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        condor_watch_q)
            opts="-help --help -debug --debug -users --users -clusters --clusters -larger-than --larger-than -files --files -batches --batches -collector --collector -schedd --schedd -exit --exit -groupby --groupby -table --table -progress --progress -row-progress --row-progress -summary --summary -summary-type --summary-type -updated-at --updated-at -abbreviate --abbreviate -color --color -refresh --refresh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                -users|--users)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -clusters|--clusters)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -larger-than|--larger-than)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -files|--files)
                    local oldifs
                    if [ -n "${IFS+x}" ]; then
                        oldifs="$IFS"
                    fi
                    IFS=$'\n'
                    COMPREPLY=($(compgen -f "${cur}"))
                    if [ -n "${oldifs+x}" ]; then
                        IFS="$oldifs"
                    fi
                    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
                        compopt -o filenames
                    fi
                    return 0
                    ;;
                -batches|--batches)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -collector|--collector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -schedd|--schedd)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -exit|--exit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -groupby|--groupby)
                    COMPREPLY=($(compgen -W "batch log cluster" -- "${cur}"))
                    return 0
                    ;;
                -summary-type|--summary-type)
                    COMPREPLY=($(compgen -W "totals percentages" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _condor_watch_q -o nosort -o bashdefault -o default condor_watch_q
else
    complete -F _condor_watch_q -o bashdefault -o default condor_watch_q
fi
