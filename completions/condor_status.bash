_condor_status() {
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
                cmd="condor_status"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        condor_status)
            opts="-avail --avail -ads --ads -format --format -autoformat --autoformat -af --af -wide --wide -natural --natural -constraint --constraint -debug --debug -help --help -limit --limit -long --long -xml --xml -json --json -attributes --attributes -claimed --claimed -run --run -slots --slots -compact --compact -nocompact --nocompact -server --server -state --state -startd --startd -schedd --schedd -negotiator --negotiator -sort --sort -submitters --submitters -master --master -collector --collector -totals --totals -expert --expert -pool --pool -version --version -print-format --print-format -direct --direct -gpus --gpus -any --any"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
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
    complete -F _condor_status -o nosort -o bashdefault -o default condor_status
else
    complete -F _condor_status -o bashdefault -o default condor_status
fi
