_condor_off() {
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
                cmd="condor_off"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        condor_off)
            opts="-help --help -version --version -pool --pool -name --name -addr --addr -all --all -constraint --constraint -debug --debug -graceful --graceful -fast --fast -peaceful --peaceful -force-graceful --force-graceful -daemon --daemon -master --master -startd --startd -schedd --schedd -collector --collector -negotiator --negotiator -kbdd --kbdd"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                -pool|--pool)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -name|--name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -addr|--addr)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -constraint|--constraint)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -daemon|--daemon)
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
    complete -F _condor_off -o nosort -o bashdefault -o default condor_off
else
    complete -F _condor_off -o bashdefault -o default condor_off
fi
