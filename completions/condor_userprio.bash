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
            opts="-setprio --setprio -setfactor --setfactor -setfloor --setfloor -setceiling --setceiling -setbegin --setbegin -setaccum --setaccum -setlast --setlast -resetusage --resetusage -delete --delete -resetall --resetall -long --long -constraint --constraint -legacy --legacy -modular --modular -af --af -debug --debug -hierarchical --hierarchical -flat --flat -grouprollup --grouprollup -grouporder --grouporder -quotas --quotas -surplus --surplus -sortkey --sortkey -all --all -most --most -groupid --groupid -order --order -activefrom --activefrom -allusers --allusers -usage --usage -priority --priority -getreslist --getreslist -inputfile --inputfile -pool --pool -name --name -collector --collector -negotiator --negotiator -help --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                -setprio|--setprio)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -setfactor|--setfactor)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -setfloor|--setfloor)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -setceiling|--setceiling)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -setbegin|--setbegin)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -setaccum|--setaccum)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -setlast|--setlast)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -resetusage|--resetusage)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -delete|--delete)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -constraint|--constraint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -af|--af)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -activefrom|--activefrom)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -getreslist|--getreslist)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -inputfile|--inputfile)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -pool|--pool)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -name|--name)
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
