_condor_dagman() {
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
                cmd="condor_dagman"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        condor_dagman)
            opts="--help --version --AllowVersionMismatch --AlwaysRunPost --AutoRescue --Batch-Name --DAGMan --Debug --do_recurse --dont_suppress_notification --DontAlwaysRunPost --DoRecovery --DoRescueFrom --Dot --DryRun --DumpRescue --Force --import_env --include_env --insert_env --load_save --MaxHold --MaxIdle --MaxJobs --MaxPost --MaxPre --no_recurse --Notification --outfile_dir --Priority --SubmitMethod --suppress_notification --update_submit --UseDagDir"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --AutoRescue)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --Batch-Name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --DAGMan)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --Debug)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --DoRescueFrom)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --include_env)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --insert_env)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --load_save)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --MaxHold)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --MaxIdle)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --MaxJobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --MaxPost)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --MaxPre)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --Notification)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --outfile_dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --Priority)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --SubmitMethod)
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
    complete -F _condor_dagman -o nosort -o bashdefault -o default condor_dagman
else
    complete -F _condor_dagman -o bashdefault -o default condor_dagman
fi
