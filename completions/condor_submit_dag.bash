_condor_submit_dag() {
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
                cmd="condor_submit_dag"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        condor_submit_dag)
            opts="-f -v -help --help -version --version -AllowVersionMismatch --AllowVersionMismatch -AlwaysRunPost --AlwaysRunPost -Append --Append -AutoRescue --AutoRescue -Batch-Name --Batch-Name -Config --Config -DAGMan --DAGMan -Debug --Debug -do_recurse --do_recurse -dont_suppress_notification --dont_suppress_notification -DontAlwaysRunPost --DontAlwaysRunPost -DoRecovery --DoRecovery -DoRescueFrom --DoRescueFrom -DumpRescue --DumpRescue -Force --Force -import_env --import_env -include_env --include_env -insert_env --insert_env -insert_sub_file --insert_sub_file -load_save --load_save -MaxHold --MaxHold -MaxIdle --MaxIdle -MaxJobs --MaxJobs -MaxPost --MaxPost -MaxPre --MaxPre -no_recurse --no_recurse -no_submit --no_submit -Notification --Notification -outfile_dir --outfile_dir -Priority --Priority -Remote --Remote -schedd-address-file --schedd-address-file -schedd-daemon-ad-file --schedd-daemon-ad-file -SubmitMethod --SubmitMethod -suppress_notification --suppress_notification -update_submit --update_submit -UseDagDir --UseDagDir -Valgrind --Valgrind -Verbose --Verbose"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                -Append|--Append)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -AutoRescue|--AutoRescue)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -Batch-Name|--Batch-Name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -Config|--Config)
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
                -insert_sub_file|--insert_sub_file)
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
                -Remote|--Remote)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -schedd-address-file|--schedd-address-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -schedd-daemon-ad-file|--schedd-daemon-ad-file)
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
    complete -F _condor_submit_dag -o nosort -o bashdefault -o default condor_submit_dag
else
    complete -F _condor_submit_dag -o bashdefault -o default condor_submit_dag
fi
