#!/usr/bin/env bash
# condorlite as another project's CI uses it: scripts/ci-pool.sh end to end, through the
# GitHub Action's own steps, a plain shell, the pytest fixture and the Dockerfile.
#
#   tests/ci_pool/run.sh          (from anywhere; .ci/run calls it after cargo test)
#
# 1. Install: action.yml's steps run here (tests/ci_pool/run_action.py; the actions/cache step
#    is GitHub's only): `cargo install --locked --path . --root TMP/install`, with target/ as
#    the target directory so that it installs the release build rather than making another
#    (set CARGO to wrap cargo, e.g. CARGO="flock /tmp/cargo.lock cargo"). Every tool must be
#    in TMP/install/bin and answer -help from there; a second install is a cache hit.
# 2. Start (the same action.yml run: a config file, knobs, a custom resource), with
#    GITHUB_ENV, GITHUB_PATH and GITHUB_OUTPUT as files, read back as the runner does for
#    later steps; then a real job: condor_submit, condor_wait, its output and exit code.
# 3. A job that can never match: `diagnose`, then stop/action.yml with diagnose 'true', must
#    show condor_q -analyze of it and the MasterLog; the master must be gone.
# 4. Failures: stopping a stopped pool, a bad knob, a non-empty --dir, a malformed config
#    file, each exit status 1 with its message; a job's process left behind (stop kills it
#    and fails).
# 5. The plain shell: eval "$(scripts/ci-pool.sh start)", a job (condor_submit, condor_wait),
#    condor_run, stop --remove; prints the time from nothing running to that job's end.
# 6. The pytest fixture (contrib/pytest), with pytest (python3 -m pytest, or PYTEST_PYTHON).
# 7. The Dockerfile, built and its health check awaited, when a docker daemon answers.
# Steps 1-3 need PyYAML (to read action.yml), 6 pytest, 7 docker: each says why it skipped,
# and with CONDORLITE_CI_POOL_REQUIRE=python (as .ci/run sets it) a missing PyYAML or pytest
# fails instead. Exits non-zero on the first failure; the temporary directory is kept then.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
script="$root/scripts/ci-pool.sh"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/condorlite-ci-pool.XXXXXX")"
started=$SECONDS

step() { printf '\n=== ci-pool: %s\n' "$*"; }
fail() { printf 'ci-pool: FAILED: %s\n' "$*" >&2; exit 1; }
skip() { printf 'ci-pool: skipped: %s\n' "$*"; }
needs_python() {
    [ "${CONDORLITE_CI_POOL_REQUIRE:-}" != python ] || fail "$*"
    skip "$*"
}
now_ms() { date +%s%3N; }
# Fails unless FILE contains TEXT (a fixed string).
expect() { grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "$3: no '$2' in the output above"; }; }

pools=()
finish() {
    local status=$? dir
    for dir in ${pools[@]+"${pools[@]}"}; do
        # A pool a failed step left running: stopped, whatever it says.
        "$script" stop --dir "$dir" >/dev/null 2>&1 || true
    done
    if [ "$status" -eq 0 ]; then rm -rf "$tmp"; else echo "ci-pool: kept $tmp" >&2; fi
}
trap finish EXIT

python="${PYTEST_PYTHON:-python3}"
have_yaml=""
"$python" -c 'import yaml' 2>/dev/null && have_yaml=1

# The runner's files between steps.
export GITHUB_ENV="$tmp/github_env" GITHUB_PATH="$tmp/github_path" GITHUB_OUTPUT="$tmp/github_output"
: >"$GITHUB_ENV"
: >"$GITHUB_PATH"
: >"$GITHUB_OUTPUT"
# Later steps see what a step wrote to GITHUB_ENV and GITHUB_PATH.
next_step_env() {
    local line
    while IFS= read -r line; do [ -z "$line" ] || export "${line?}"; done <"$GITHUB_ENV"
    while IFS= read -r line; do [ -z "$line" ] || PATH="$line:$PATH"; done <"$GITHUB_PATH"
    export PATH
}
run_action() {
    if [ -n "$have_yaml" ]; then
        "$python" "$here/run_action.py" "$@"
    else
        return 3
    fi
}

cat >"$tmp/site.config" <<'EOF'
# A project's own configuration file, given to the action as `config`.
MEMORY = 2048
EOF
knobs=$'NUM_CPUS = 2\n# a comment line\nMACHINE_RESOURCE_Widgets = 3\n'
install="$tmp/install"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
# Where GitHub's runner has its temporary directory: the action's pools go there.
export RUNNER_TEMP="$tmp"

step "install and start: action.yml"
if [ -n "$have_yaml" ]; then
    run_action "$root/action.yml" "install-root=$install" "config=$tmp/site.config" \
        "knobs=$knobs" 2>&1 | tee "$tmp/action.out"
else
    needs_python "PyYAML is not importable by $python: running the action's script directly"
    "$script" install --root "$install" >/dev/null
    "$script" start --bin "$install/bin" --config "$tmp/site.config" --knobs "$knobs" \
        >/dev/null 2> >(tee "$tmp/action.out" >&2)
fi
expect "$tmp/action.out" "pool up in" "start"
expect "$GITHUB_OUTPUT" "bin=$install/bin" "GITHUB_OUTPUT"
expect "$GITHUB_PATH" "$install/bin" "GITHUB_PATH"
next_step_env
pools+=("$(dirname "$_CONDOR_LOCAL_DIR")")
[ "$(command -v condor_submit)" = "$install/bin/condor_submit" ] ||
    fail "condor_submit is $(command -v condor_submit), not the installed one"
[ "$(ls "$install/bin" | sort)" = "$(ls "$root/src/bin" | sed 's/\.rs$//' | sort)" ] ||
    fail "$install/bin does not hold exactly the tools of src/bin: $(ls "$install/bin")"
"$script" install --root "$install" 2>"$tmp/install2.out" >/dev/null
expect "$tmp/install2.out" "already installed in $install/bin" "second install"

step "a real job"
[ "$(condor_config_val NUM_CPUS MEMORY LOCAL_DIR | tr '\n' ' ')" = "2 2048 $_CONDOR_LOCAL_DIR " ] ||
    fail "the pool's configuration: $(condor_config_val NUM_CPUS MEMORY LOCAL_DIR | tr '\n' ' ')"
[ "$(condor_status -af Cpus Widgets Memory)" = "2 3 2048" ] ||
    fail "condor_status -af Cpus Widgets Memory: $(condor_status -af Cpus Widgets Memory)"
mkdir "$tmp/jobs"
cd "$tmp/jobs"
cat >job.sub <<'EOF'
executable = /bin/sh
arguments = "-c 'echo hello from job $(Cluster).$(Process)'"
output = job.out
error = job.err
log = job.log
request_widgets = 1
queue
EOF
condor_submit job.sub
condor_wait -wait 60 job.log || fail "condor_wait: the job did not finish within 60 s"
[ "$(cat job.out)" = "hello from job 1.0" ] ||
    fail "the job's output: $(cat job.out) (stderr: $(cat job.err))"
[ "$(condor_history 1.0 -af ExitCode RequestWidgets)" = "0 1" ] ||
    fail "the job's exit code and widgets: $(condor_history 1.0 -af ExitCode RequestWidgets)"

step "a stuck job: diagnose, then stop/action.yml with diagnose 'true'"
cat >stuck.sub <<'EOF'
executable = /bin/true
request_cpus = 64
log = stuck.log
queue
EOF
condor_submit stuck.sub
"$script" diagnose >"$tmp/diagnose.out" 2>&1
expect "$tmp/diagnose.out" "condor_q -analyze 2.0 (idle)" "diagnose"
expect "$tmp/diagnose.out" "TARGET.Cpus >= RequestCpus" "diagnose"
expect "$tmp/diagnose.out" "STARTING UP" "diagnose (MasterLog)"
pid="$(cat "$_CONDOR_LOCAL_DIR/run/condor_master.pid")"
if [ -n "$have_yaml" ]; then
    run_action "$root/stop/action.yml" diagnose=true >"$tmp/stop.out" 2>&1 ||
        { cat "$tmp/stop.out" >&2; fail "stop/action.yml"; }
else
    "$script" stop --diagnose >"$tmp/stop.out" 2>&1 || { cat "$tmp/stop.out" >&2; fail "stop"; }
fi
expect "$tmp/stop.out" "condor_q -analyze 2.0 (idle)" "stop --diagnose"
expect "$tmp/stop.out" "STARTING UP" "stop --diagnose (MasterLog)"
expect "$tmp/stop.out" "pool stopped in" "stop"
# Gone, or a zombie its adopter has not reaped yet.
[ ! -e "/proc/$pid" ] || [ "$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f1)" = Z ] ||
    fail "condor_master ($pid) still runs after stop"
! condor_status >/dev/null 2>&1 || fail "condor_status still answers after stop"
cd "$root"

step "failures"
# Each: the command, the status and a fixed string of its message.
failure() {
    local want="$1" text="$2" status=0
    shift 2
    "$@" >"$tmp/failure.out" 2>&1 || status=$?
    [ "$status" -eq "$want" ] || { cat "$tmp/failure.out" >&2; fail "$*: exit status $status, not $want"; }
    expect "$tmp/failure.out" "$text" "$*"
}
failure 1 "no condor_master was running for $_CONDOR_LOCAL_DIR" "$script" stop
failure 1 "knob 'NUM CPUS = 2': 'NUM CPUS' is not a configuration name" \
    "$script" start --knob 'NUM CPUS = 2'
failure 1 "knob 'NUM_CPUS': expected NAME = VALUE" "$script" start --knob 'NUM_CPUS'
mkdir -p "$tmp/full" && touch "$tmp/full/x"
failure 1 "--dir $tmp/full is not empty" "$script" start --dir "$tmp/full"
printf 'NUM_CPUS = 2\nif\n' >"$tmp/bad.config"
failure 1 "condor_master did not start" "$script" start --config "$tmp/bad.config" --dir "$tmp/bad"
expect "$tmp/failure.out" "bad.config, line 2" "a malformed config file"
failure 1 "--config $tmp/none: no such readable file" "$script" start --config "$tmp/none"
(
    unset _CONDOR_LOCAL_DIR CONDOR_CONFIG
    failure 0 "no pool to stop" "$script" stop
)
# A failed start fails its eval (eval of nothing would succeed).
! (eval "$("$script" start --knob NUM_CPUS 2>/dev/null)") || fail "eval of a failed start succeeded"
# A process of this pool's jobs that outlives the master (condorlite kills a job's processes,
# even those that leave its process group: this one is started beside the pool, with a job's
# mark, _CONDOR_SCRATCH_DIR under the pool): stop finds it, kills it and fails.
pools+=("$tmp/leak")
(
    unset GITHUB_ENV GITHUB_PATH GITHUB_OUTPUT
    eval "$("$script" start --dir "$tmp/leak" 2>/dev/null)"
    _CONDOR_SCRATCH_DIR="$_CONDOR_LOCAL_DIR/execute/dir_1_0_1" setsid sleep 300 </dev/null >/dev/null 2>&1 &
    failure 1 "job processes left after the master stopped (killed)" "$script" stop
    expect "$tmp/failure.out" "sleep 300" "stop's list of leftovers"
    ! grep -alsF -- "_CONDOR_SCRATCH_DIR=$_CONDOR_LOCAL_DIR/" /proc/[0-9]*/environ ||
        fail "a job process outlived stop"
)

step "plain shell: eval \"\$(scripts/ci-pool.sh start)\", a job, stop --remove"
# The figure: from nothing running to a job's end, with the tools installed.
pools+=("$tmp/shell")
(
    unset _CONDOR_LOCAL_DIR CONDOR_CONFIG GITHUB_ENV GITHUB_PATH GITHUB_OUTPUT
    cd "$tmp/jobs"
    t0=$(now_ms)
    eval "$("$script" start --dir "$tmp/shell" --knob 'NUM_CPUS = 1')"
    printf '%s\n' 'executable = /bin/echo' 'arguments = hello from job $(Cluster).$(Process)' \
        'output = shell.out' 'log = shell.log' 'queue' | condor_submit - >/dev/null
    condor_wait -wait 60 shell.log >/dev/null || fail "condor_wait: the job did not finish within 60 s"
    ms=$(($(now_ms) - t0))
    [ "$_CONDOR_LOCAL_DIR" = "$tmp/shell/pool" ] || fail "_CONDOR_LOCAL_DIR=$_CONDOR_LOCAL_DIR"
    [ "$(cat shell.out)" = "hello from job 1.0" ] || fail "the job's output: $(cat shell.out)"
    echo "from nothing running to the first job's end: $((ms / 1000)).$(printf '%03d' $((ms % 1000))) s"
    [ "$(condor_run 'echo hello from condor_run')" = "hello from condor_run" ] || fail "condor_run"
    "$CONDORLITE_CI_POOL" stop --remove
    [ ! -e "$tmp/shell" ] || fail "stop --remove left $tmp/shell"
) | tee "$tmp/plain-shell.out"
first_job="$(sed -n 's/^from nothing running to the first job.s end: //p' "$tmp/plain-shell.out")"

step "pytest fixture: contrib/pytest"
if "$python" -c 'import pytest' 2>/dev/null; then
    (
        unset _CONDOR_LOCAL_DIR CONDOR_CONFIG
        cd "$tmp"
        CONDORLITE_BIN="$install/bin" PYTHONDONTWRITEBYTECODE=1 \
            timeout -k 10 300 "$python" -m pytest -p no:cacheprovider --rootdir "$root/contrib/pytest" \
            -v "$root/contrib/pytest"
    ) || fail "pytest contrib/pytest"
else
    needs_python "pytest is not importable by $python"
fi

step "Dockerfile"
if ! command -v docker >/dev/null; then
    skip "no docker client on this machine"
elif ! docker info >/dev/null 2>"$tmp/docker.err"; then
    skip "docker: no daemon answers ($(tail -n 1 "$tmp/docker.err"))"
elif [ "${CONDORLITE_DOCKER_TEST:-1}" = 0 ]; then
    skip "CONDORLITE_DOCKER_TEST=0"
else
    image="condorlite-ci-pool-test:$$"
    docker build --quiet -t "$image" "$root"
    container="$(docker run -d "$image")"
    health=""
    for _ in $(seq 600); do
        health="$(docker inspect -f '{{.State.Health.Status}}' "$container")"
        [ "$health" = starting ] || break
        sleep 0.2
    done
    out="$(docker exec "$container" condor_run 'echo hello from the image' 2>&1)" || true
    docker rm -f "$container" >/dev/null
    docker rmi "$image" >/dev/null || true
    [ "$health" = healthy ] || fail "the image's health check: $health"
    [ "$out" = "hello from the image" ] || fail "condor_run in the image: $out"
    echo "image built; health check: $health; condor_run in the container works"
fi

echo "ci-pool: all steps passed in $((SECONDS - started)) s; start to first job end: $first_job"
