_condor_q() {
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
                cmd="condor_q"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        condor_q)
            opts="-constraint --constraint -long --long -json --json -jsonl --jsonl -xml --xml -attributes --attributes -af --af -autoformat --autoformat -format --format -wide --wide -limit --limit -name --name -pool --pool -submitter --submitter -global --global -addr --addr -address --address -print-format --print-format -autocluster --autocluster -group-by --group-by -all-users --all-users -allusers --allusers -run --run -held --held -hold --hold -idle --idle -cputime --cputime -currentrun --currentrun -cumulative-time --cumulative-time -debug --debug -progress --progress -batch --batch -nobatch --nobatch -dag --dag -totals --totals -io --io -factory --factory -expert --expert -analyse --analyse -analyze --analyze -better-analyse --better-analyse -better-analyze --better-analyze -reverse-analyze --reverse-analyze -verbose --verbose -machine --machine -slotconstraint --slotconstraint -mconstraint --mconstraint -jobads --jobads -userlog --userlog -slotads --slotads -help --help -version --version"
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
                -name|--name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -pool|--pool)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -submitter|--submitter)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -address|--address)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -addr|--addr)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -print-format|--print-format)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -machine|--machine)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -mconstraint|--mconstraint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -slotconstraint|--slotconstraint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -jobads|--jobads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -userlog|--userlog)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -slotads|--slotads)
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
    complete -F _condor_q -o nosort -o bashdefault -o default condor_q
else
    complete -F _condor_q -o bashdefault -o default condor_q
fi
