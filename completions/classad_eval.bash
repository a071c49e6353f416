_classad_eval() {
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
                cmd="classad_eval"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        classad_eval)
            opts="-quiet --quiet -my-file --my-file -file --file -target-file --target-file -debug --debug -help --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                -file|--file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -my-file|--my-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -target-file|--target-file)
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
    complete -F _classad_eval -o nosort -o bashdefault -o default classad_eval
else
    complete -F _classad_eval -o bashdefault -o default classad_eval
fi
