_condor_userprio() {
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
                cmd="condor_userprio"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        condor_userprio)
            opts="--setprio --setfactor --setfloor --setceiling --setbegin --setaccum --setlast --resetusage --delete --resetall --long --constraint --legacy --modular --af --debug --hierarchical --flat --grouprollup --grouporder --quotas --surplus --sortkey --all --most --groupid --order --activefrom --allusers --usage --priority --getreslist --inputfile --pool --name --collector --negotiator --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --setprio)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --setfactor)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --setfloor)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --setceiling)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --setbegin)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --setaccum)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --setlast)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --resetusage)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --delete)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --constraint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --af)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --activefrom)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --getreslist)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --inputfile)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pool)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --name)
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
    complete -F _condor_userprio -o nosort -o bashdefault -o default condor_userprio
else
    complete -F _condor_userprio -o bashdefault -o default condor_userprio
fi
