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
            opts="-help --help -version --version -AllowVersionMismatch --AllowVersionMismatch -AlwaysRunPost --AlwaysRunPost -AutoRescue --AutoRescue -Batch-Name --Batch-Name -DAGMan --DAGMan -Debug --Debug -do_recurse --do_recurse -dont_suppress_notification --dont_suppress_notification -DontAlwaysRunPost --DontAlwaysRunPost -DoRecovery --DoRecovery -DoRescueFrom --DoRescueFrom -Dot --Dot -DryRun --DryRun -DumpRescue --DumpRescue -Force --Force -import_env --import_env -include_env --include_env -insert_env --insert_env -load_save --load_save -MaxHold --MaxHold -MaxIdle --MaxIdle -MaxJobs --MaxJobs -MaxPost --MaxPost -MaxPre --MaxPre -no_recurse --no_recurse -Notification --Notification -outfile_dir --outfile_dir -Priority --Priority -SubmitMethod --SubmitMethod -suppress_notification --suppress_notification -update_submit --update_submit -UseDagDir --UseDagDir"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                -AutoRescue|--AutoRescue)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -Batch-Name|--Batch-Name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -DAGMan|--DAGMan)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -Debug|--Debug)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -DoRescueFrom|--DoRescueFrom)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -include_env|--include_env)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -insert_env|--insert_env)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -load_save|--load_save)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -MaxHold|--MaxHold)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -MaxIdle|--MaxIdle)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -MaxJobs|--MaxJobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -MaxPost|--MaxPost)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -MaxPre|--MaxPre)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -Notification|--Notification)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -outfile_dir|--outfile_dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -Priority|--Priority)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -SubmitMethod|--SubmitMethod)
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
