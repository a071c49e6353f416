#!/usr/bin/env bash
# A condorlite personal pool for CI: install the tools, start a pool on a fresh LOCAL_DIR,
# say what went wrong, stop it. The GitHub Action (action.yml, stop/action.yml) runs this
# script and nothing else; .ci/run tests it end to end (tests/ci_pool/run.sh).
#
#   scripts/ci-pool.sh install [--root DIR]
#       cargo install --locked every tool into DIR (default ~/.condorlite) unless DIR already
#       holds this version (see cache-key); checks every tool is there and runs. CARGO may
#       wrap cargo (CARGO="flock /tmp/cargo.lock cargo"). Prints DIR/bin.
#   scripts/ci-pool.sh cache-key
#       condorlite-<version>-<hash of the sources>: the key the installed tools are cached by.
#   eval "$(scripts/ci-pool.sh start [--bin DIR] [--config FILE] [--knob 'NAME = VALUE']...
#                                    [--knobs TEXT] [--dir DIR] [--timeout SECONDS])"
#       Writes DIR/condor_config (an `include` of FILE, then the knobs, which win), starts
#       condor_master on the fresh LOCAL_DIR DIR/pool (DIR: a new temporary directory unless
#       given; it must be empty), waits until `condor_status` answers (at most --timeout, 60 s),
#       and prints `export` lines for PATH, _CONDOR_LOCAL_DIR, CONDOR_CONFIG and
#       CONDORLITE_CI_POOL (this script) on standard output. Under GitHub Actions it also writes
#       them to $GITHUB_ENV, $GITHUB_PATH and $GITHUB_OUTPUT. --knobs takes several knobs, one
#       per line; an empty --config or --knobs is none. The tools are found in --bin, else
#       $CONDORLITE_BIN, else on PATH. On failure it prints `false`, which fails the eval.
#   scripts/ci-pool.sh diagnose [--lines N] [--dir DIR]
#       What a failed CI job needs: the slots, the queue, `condor_q -analyze` of each idle or
#       held job (at most 10), and the last N (100) lines of the MasterLog.
#   scripts/ci-pool.sh stop [--diagnose] [--remove] [--timeout SECONDS] [--dir DIR]
#       (--diagnose: diagnose first) condor_off -master, waits for the master to exit (at most
#       --timeout, 60 s; then it is killed), checks no job process is left behind, and with
#       --remove deletes the directory `start` made. With no pool started (no
#       _CONDOR_LOCAL_DIR) there is nothing to stop: it says so and succeeds.
#
# start, diagnose and stop read the pool from the environment start exported (or --dir, the
# directory start was given or made). Messages go to standard error; start's standard
# output is only the export lines. Exit status: 0, or 1 with the reason on standard error.
set -euo pipefail

me="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
source_root="$(cd "$(dirname "$me")/.." && pwd)"
prog="ci-pool.sh"

say() { printf '%s: %s\n' "$prog" "$*" >&2; }
fail() { say "$*"; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$me" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit "${1:-2}"; }

# A path with a leading ~/ made absolute (an action's input is not expanded by a shell).
expand_tilde() { case "$1" in '~') echo "$HOME" ;; '~/'*) echo "$HOME/${1#'~/'}" ;; *) echo "$1" ;; esac; }

# Milliseconds since the epoch (for the figures this prints).
now_ms() { date +%s%3N; }
elapsed() { local ms=$(($(now_ms) - $1)); printf '%d.%03d s' $((ms / 1000)) $((ms % 1000)); }

# A value quoted for a POSIX shell's eval.
shell_quote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

# Under GitHub Actions, a group that folds in the log; elsewhere, a heading.
group() {
    if [ "${GITHUB_ACTIONS:-}" = true ]; then echo "::group::$*"; else printf '\n=== %s\n' "$*"; fi
}
endgroup() { if [ "${GITHUB_ACTIONS:-}" = true ]; then echo "::endgroup::"; fi; }

# The tools `cargo install` must put in the root: one per src/bin/*.rs.
tool_names() {
    local f
    for f in "$source_root"/src/bin/*.rs; do basename "$f" .rs; done
}

cmd_cache_key() {
    [ $# -eq 0 ] || usage
    local version hash
    version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$source_root/Cargo.toml" | head -n 1)"
    [ -n "$version" ] || fail "no version in $source_root/Cargo.toml"
    # The sources a build reads; a branch or a fork at the same version gets its own key.
    hash="$(cd "$source_root" &&
        find Cargo.toml Cargo.lock build.rs src -type f -print0 | LC_ALL=C sort -z |
        xargs -0 sha256sum | sha256sum | cut -c1-16)"
    echo "condorlite-$version-$(uname -m)-$hash"
}

# Checks that every tool is in DIR and answers -help as its own (condor_dagman's usage exits 1,
# as HTCondor's does; every other tool's 0).
check_tools() {
    local bin="$1" tool status out missing=()
    for tool in $(tool_names); do
        [ -x "$bin/$tool" ] || { missing+=("$tool"); continue; }
        status=0
        out="$("$bin/$tool" -help 2>&1)" || status=$?
        if [ "$tool" = condor_dagman ]; then [ "$status" -eq 1 ] || missing+=("$tool(-help: exit $status)"); continue; fi
        [ "$status" -eq 0 ] && [[ "$out" == *"$tool"* ]] || missing+=("$tool(-help: exit $status)")
    done
    [ ${#missing[@]} -eq 0 ] || fail "not installed or not working in $bin: ${missing[*]}"
}

cmd_install() {
    local root="$HOME/.condorlite"
    while [ $# -gt 0 ]; do
        case "$1" in
            --root) [ $# -ge 2 ] || usage; root="$(expand_tilde "$2")"; shift 2 ;;
            -h|--help) usage 0 ;;
            *) usage ;;
        esac
    done
    mkdir -p "$root"
    root="$(cd "$root" && pwd)"
    local key stamp="$root/.condorlite-cache-key" started
    key="$(cmd_cache_key)"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then
        check_tools "$root/bin"
        say "$key already installed in $root/bin"
    else
        started=$(now_ms)
        say "installing $key into $root (cargo install --locked --path $source_root)"
        rm -f "$stamp"
        # shellcheck disable=SC2086  # CARGO may be a command line ("flock /tmp/cargo.lock cargo").
        ${CARGO:-cargo} install --locked --force --quiet --path "$source_root" --root "$root"
        check_tools "$root/bin"
        echo "$key" >"$stamp"
        say "installed $(tool_names | wc -l) tools in $root/bin in $(elapsed "$started")"
    fi
    echo "$root/bin"
}

# The pool's environment, from --dir DIR (start's directory) or from what start exported.
pool_from() {
    local dir="$1"
    if [ -n "$dir" ]; then
        [ -f "$dir/condor_config" ] && [ -d "$dir/pool" ] ||
            fail "$dir is not a directory made by '$prog start' (no condor_config and pool/)"
        dir="$(cd "$dir" && pwd)"
        export _CONDOR_LOCAL_DIR="$dir/pool" CONDOR_CONFIG="$dir/condor_config"
    fi
    [ -n "${_CONDOR_LOCAL_DIR:-}" ]
}

# The tools: --bin, $CONDORLITE_BIN, or condor_master's directory on PATH.
find_bin() {
    local bin="$1"
    [ -n "$bin" ] || bin="${CONDORLITE_BIN:-}"
    if [ -z "$bin" ]; then
        bin="$(command -v condor_master)" ||
            fail "condor_master is not on PATH: install condorlite ($prog install) or pass --bin DIR"
        bin="$(dirname "$bin")"
    fi
    [ -x "$bin/condor_master" ] || fail "no condor_master in $bin"
    (cd "$bin" && pwd)
}

# Appends one knob line to the configuration, after checking it is `NAME = value`.
add_knob() {
    local line="$1" name
    line="${line#"${line%%[![:space:]]*}"}"
    case "$line" in ''|'#'*) return 0 ;; esac
    [[ "$line" == *=* ]] || fail "knob '$line': expected NAME = VALUE"
    name="${line%%=*}"
    name="${name%"${name##*[![:space:]]}"}"
    [[ "$name" =~ ^[A-Za-z_][A-Za-z0-9_.]*$ ]] || fail "knob '$line': '$name' is not a configuration name"
    printf '%s = %s\n' "$name" "$(sed 's/^[[:space:]]*//' <<<"${line#*=}")"
}

cmd_start() {
    local bin="" config="" dir="" timeout=60 knobs=()
    # On failure, standard output is `false`, so that eval "$(ci-pool.sh start)" fails too
    # (eval of nothing succeeds).
    trap '[ $? -eq 0 ] || echo false' EXIT
    while [ $# -gt 0 ]; do
        case "$1" in
            --bin|--config|--dir|--timeout|--knob|--knobs) [ $# -ge 2 ] || usage ;;
        esac
        case "$1" in
            --bin) bin="$(expand_tilde "$2")"; shift 2 ;;
            --config) config="$(expand_tilde "$2")"; shift 2 ;;
            --dir) dir="$(expand_tilde "$2")"; shift 2 ;;
            --timeout) timeout="$2"; shift 2 ;;
            --knob) knobs+=("$2"); shift 2 ;;
            --knobs) while IFS= read -r line; do knobs+=("$line"); done <<<"$2"; shift 2 ;;
            -h|--help) usage 0 ;;
            *) usage ;;
        esac
    done
    [[ "$timeout" =~ ^[0-9]+$ ]] && [ "$timeout" -gt 0 ] || fail "--timeout $timeout: expected whole seconds"
    bin="$(find_bin "$bin")"
    if [ -n "$config" ]; then
        [ -f "$config" ] && [ -r "$config" ] || fail "--config $config: no such readable file"
        config="$(cd "$(dirname "$config")" && pwd)/$(basename "$config")"
    fi
    # The configuration, checked before anything is made.
    local text knob
    text="# The personal pool of '$prog start'."$'\n'
    [ -z "$config" ] || text+="include : $config"$'\n'
    for knob in ${knobs[@]+"${knobs[@]}"}; do text+="$(add_knob "$knob")" || exit 1; text+=$'\n'; done
    local started
    started=$(now_ms)
    if [ -n "$dir" ]; then
        mkdir -p "$dir"
        [ -z "$(ls -A "$dir")" ] || fail "--dir $dir is not empty: a pool starts on a fresh LOCAL_DIR"
    else
        dir="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/condorlite-pool.XXXXXX")"
    fi
    dir="$(cd "$dir" && pwd)"
    touch "$dir/.made-by-ci-pool"
    mkdir "$dir/pool"
    printf '%s' "$text" >"$dir/condor_config"
    export _CONDOR_LOCAL_DIR="$dir/pool" CONDOR_CONFIG="$dir/condor_config"
    PATH="$bin:$PATH"

    # The master detaches once it is ready (pid lock held, socket bound, queue open); a bad
    # configuration stops it with the file and line.
    if ! condor_master 2>"$dir/condor_master.err"; then
        cat "$dir/condor_master.err" >&2
        diagnose 100 >&2 || true
        fail "condor_master did not start (pool directory: $dir)"
    fi
    # It answers condor_status once its startd has advertised its slots.
    local deadline=$(($(now_ms) + timeout * 1000)) slots=""
    until slots="$(condor_status -af Name 2>"$dir/condor_status.err")" && [ -n "$slots" ]; do
        if [ "$(now_ms)" -ge "$deadline" ]; then
            cat "$dir/condor_status.err" >&2
            diagnose 100 >&2 || true
            fail "condor_status did not answer within $timeout s (pool directory: $dir)"
        fi
        sleep 0.05
    done
    rm -f "$dir/condor_master.err" "$dir/condor_status.err"
    say "pool up in $(elapsed "$started"): LOCAL_DIR=$_CONDOR_LOCAL_DIR, slots: $(echo $slots)"

    local name
    for name in PATH _CONDOR_LOCAL_DIR CONDOR_CONFIG; do
        printf 'export %s=%s\n' "$name" "$(shell_quote "${!name}")"
    done
    printf 'export CONDORLITE_CI_POOL=%s\n' "$(shell_quote "$me")"
    if [ -n "${GITHUB_ENV:-}" ]; then
        printf '%s=%s\n' _CONDOR_LOCAL_DIR "$_CONDOR_LOCAL_DIR" CONDOR_CONFIG "$CONDOR_CONFIG" \
            CONDORLITE_CI_POOL "$me" >>"$GITHUB_ENV"
    fi
    [ -z "${GITHUB_PATH:-}" ] || echo "$bin" >>"$GITHUB_PATH"
    if [ -n "${GITHUB_OUTPUT:-}" ]; then
        printf '%s=%s\n' local-dir "$_CONDOR_LOCAL_DIR" condor-config "$CONDOR_CONFIG" \
            bin "$bin" >>"$GITHUB_OUTPUT"
    fi
}

# The pool's state for a person reading a failed CI log (stdout).
diagnose() {
    local lines="$1" log jobs id status shown=0
    group "condorlite pool: LOCAL_DIR=$_CONDOR_LOCAL_DIR"
    condor_status 2>&1 || echo "(no condor_master answers for this pool)"
    endgroup
    group "condor_q -allusers -nobatch"
    condor_q -allusers -nobatch 2>&1 || true
    endgroup
    # Jobs that wait: idle (1) or held (5).
    jobs="$(condor_q -allusers -af:j JobStatus 2>/dev/null | awk '$2 == 1 || $2 == 5')" || true
    while read -r id status; do
        [ -n "$id" ] || continue
        shown=$((shown + 1))
        if [ "$shown" -gt 10 ]; then
            echo "(more idle or held jobs: condor_q -allusers -idle -hold)"
            break
        fi
        group "condor_q -analyze $id ($([ "$status" = 5 ] && echo held || echo idle))"
        condor_q -analyze "$id" 2>&1 || true
        endgroup
    done <<<"$jobs"
    log="$(condor_config_val LOG 2>/dev/null)/MasterLog" || log="$_CONDOR_LOCAL_DIR/log/MasterLog"
    group "last $lines lines of $log"
    if [ -f "$log" ]; then tail -n "$lines" "$log"; else echo "(no $log)"; fi
    endgroup
}

cmd_diagnose() {
    local lines=100 dir=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --lines) [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+$ ]] || usage; lines="$2"; shift 2 ;;
            --dir) [ $# -ge 2 ] || usage; dir="$2"; shift 2 ;;
            -h|--help) usage 0 ;;
            *) usage ;;
        esac
    done
    pool_from "$dir" || fail "no pool: _CONDOR_LOCAL_DIR is not set (run '$prog start' first)"
    PATH="$(find_bin ""):$PATH"
    diagnose "$lines"
}

# The processes of this pool's jobs: their _CONDOR_SCRATCH_DIR lies under the pool.
job_processes() {
    grep -alsF -- "_CONDOR_SCRATCH_DIR=$_CONDOR_LOCAL_DIR/" /proc/[0-9]*/environ |
        sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p' || true
}

# Whether the master PID still runs: a zombie has exited (a detached master's parent is
# whatever adopted it, which may be slow to reap it), and a process of another name has
# taken the pid since.
master_running() {
    local stat
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || { kill -0 "$1" 2>/dev/null; return; }
    [ "$(cat "/proc/$1/comm" 2>/dev/null)" = condor_master ] || return 1
    stat="${stat##*) }"
    [ "${stat%% *}" != Z ]
}

cmd_stop() {
    local diagnose_first="" remove="" timeout=60 dir=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --diagnose) diagnose_first=1; shift ;;
            --remove) remove=1; shift ;;
            --timeout) [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+$ ]] || usage; timeout="$2"; shift 2 ;;
            --dir) [ $# -ge 2 ] || usage; dir="$2"; shift 2 ;;
            -h|--help) usage 0 ;;
            *) usage ;;
        esac
    done
    if ! pool_from "$dir"; then
        say "no pool to stop (_CONDOR_LOCAL_DIR is not set: '$prog start' did not run or failed)"
        return 0
    fi
    PATH="$(find_bin ""):$PATH"
    [ -z "$diagnose_first" ] || diagnose 100
    local run pid="" ok=0 started
    started=$(now_ms)
    run="$(condor_config_val RUN 2>/dev/null)" || run="$_CONDOR_LOCAL_DIR/run"
    [ ! -f "$run/condor_master.pid" ] || pid="$(cat "$run/condor_master.pid")"
    if ! condor_off -master >/dev/null 2>"$_CONDOR_LOCAL_DIR/condor_off.err"; then
        cat "$_CONDOR_LOCAL_DIR/condor_off.err" >&2
        [ -n "$diagnose_first" ] || diagnose 100 >&2
        say "no condor_master was running for $_CONDOR_LOCAL_DIR: it stopped or died before this step (see its MasterLog above)"
        ok=1
    elif [[ "$pid" =~ ^[0-9]+$ ]]; then
        local deadline=$(($(now_ms) + timeout * 1000))
        while master_running "$pid"; do
            if [ "$(now_ms)" -ge "$deadline" ]; then
                say "condor_master (pid $pid) still running $timeout s after condor_off -master: killing it"
                kill -KILL "$pid" 2>/dev/null || true
                ok=1
                break
            fi
            sleep 0.05
        done
    fi
    rm -f "$_CONDOR_LOCAL_DIR/condor_off.err"
    local left
    left="$(job_processes)"
    if [ -n "$left" ]; then
        say "job processes left after the master stopped (killed):"
        # shellcheck disable=SC2086
        ps -o pid,ppid,etime,args -p "$(echo $left | tr ' ' ',')" >&2 || true
        # shellcheck disable=SC2086
        kill -KILL $left 2>/dev/null || true
        local deadline=$(($(now_ms) + 10000))
        while [ -n "$(job_processes)" ] && [ "$(now_ms)" -lt "$deadline" ]; do sleep 0.05; done
        ok=1
    fi
    [ "$ok" -eq 0 ] || fail "the pool did not stop cleanly (pool directory: $(dirname "$_CONDOR_LOCAL_DIR"))"
    say "pool stopped in $(elapsed "$started")"
    local top
    top="$(dirname "$_CONDOR_LOCAL_DIR")"
    if [ -n "$remove" ]; then
        [ -f "$top/.made-by-ci-pool" ] || fail "--remove: $top was not made by '$prog start'; left in place"
        rm -rf "$top"
    fi
}

[ $# -ge 1 ] || usage
command="$1"
shift
case "$command" in
    install) cmd_install "$@" ;;
    cache-key) cmd_cache_key "$@" ;;
    start) cmd_start "$@" ;;
    diagnose) cmd_diagnose "$@" ;;
    stop) cmd_stop "$@" ;;
    -h|--help|help) usage 0 ;;
    *) say "unknown command '$command'"; usage ;;
esac
