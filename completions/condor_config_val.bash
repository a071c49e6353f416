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
            opts="-name --name -address --address -pool --pool -local-name --local-name -subsystem --subsystem -owner --owner -tilde --tilde -master --master -schedd --schedd -startd --startd -collector --collector -negotiator --negotiator -set --set -unset --unset -rset --rset -runset --runset -mixedcase --mixedcase -raw --raw -default --default -config --config -verbose --verbose -dump --dump -expanded --expanded -macro --macro -evaluate --evaluate -unused --unused -used --used -summary --summary -writeconfig --writeconfig -root-config --root-config -debug --debug -help --help -version --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
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
                -local-name|--local-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -subsystem|--subsystem)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -writeconfig|--writeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -root-config|--root-config)
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
