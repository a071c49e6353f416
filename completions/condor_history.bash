_condor_history() {
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
                cmd="condor_history"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        condor_history)
            opts="-constraint --constraint -long --long -json --json -jsonl --jsonl -xml --xml -attributes --attributes -af --af -autoformat --autoformat -format --format -wide --wide -backwards --backwards -nobackwards --nobackwards -forwards --forwards -match --match -limit --limit -scanlimit --scanlimit -since --since -completedsince --completedsince -file --file -userlog --userlog -search --search -print-format --print-format -epochs --epochs -local --local -schedd --schedd -name --name -pool --pool -debug --debug -help --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                -constraint|--constraint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -attributes|--attributes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -format|--format)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -limit|--limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -match|--match)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -scanlimit|--scanlimit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -since|--since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -completedsince|--completedsince)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -file|--file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -userlog|--userlog)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -search|--search)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -print-format|--print-format)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -name|--name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -pool|--pool)
                    COMPREPLY=($(compgen -f "${cur}"))
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
    complete -F _condor_history -o nosort -o bashdefault -o default condor_history
else
    complete -F _condor_history -o bashdefault -o default condor_history
fi
