_condor_submit() {
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
                cmd="condor_submit"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        condor_submit)
            opts="-verbose --verbose -terse --terse -disable --disable -debug --debug -factory --factory -generator --generator -dry-run --dry-run -spool --spool -file --file -remote --remote -name --name -address --address -pool --pool -single-cluster --single-cluster -append --append -batch-name --batch-name -batch-id --batch-id -queue --queue -maxjobs --maxjobs -unused --unused -dump --dump -allow-crlf-script --allow-crlf-script -interactive --interactive -help --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                -dry-run|--dry-run)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -file|--file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -remote|--remote)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -name|--name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -address|--address)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -pool|--pool)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -append|--append)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -batch-name|--batch-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -batch-id|--batch-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -queue|--queue)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -maxjobs|--maxjobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -dump|--dump)
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
    complete -F _condor_submit -o nosort -o bashdefault -o default condor_submit
else
    complete -F _condor_submit -o bashdefault -o default condor_submit
fi
