_condor_config_val() {
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
                cmd="condor_config_val"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        condor_config_val)
            opts="--name --address --pool --local-name --subsystem --owner --tilde --master --schedd --startd --collector --negotiator --set --unset --rset --runset --mixedcase --raw --default --config --verbose --dump --expanded --macro --evaluate --unused --used --summary --writeconfig --root-config --debug --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --address)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pool)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --local-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --subsystem)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --writeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --root-config)
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
    complete -F _condor_config_val -o nosort -o bashdefault -o default condor_config_val
else
    complete -F _condor_config_val -o bashdefault -o default condor_config_val
fi
