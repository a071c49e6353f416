#!/usr/bin/env bash
# dask-jobqueue's HTCondor test suite, run against condorlite's tools with a personal pool.
#
#   tests/dask_jobqueue/run.sh            (from anywhere; .ci/run calls it after cargo test)
#
# 1. Builds condorlite's release binaries (cargo build --release --bins; set CARGO to wrap
#    cargo, e.g. CARGO="flock /tmp/cargo.lock cargo").
# 2. Makes a virtual environment (target/dask-jobqueue/venv, or DASK_JOBQUEUE_VENV) with the
#    pinned requirements.txt from PyPI: dask-jobqueue, whose wheel ships its tests, and the
#    tests' dependencies. It is reused while requirements.txt is unchanged.
# 3. Starts a pool with scripts/ci-pool.sh (as other projects' CI does) on a fresh
#    _CONDOR_LOCAL_DIR in a temporary directory, with its own CONDOR_CONFIG (4 CPUs, 8 GB,
#    whatever the machine: the suite runs up to four 1-core workers at once).
# 4. Runs upstream's command, `pytest --pyargs dask_jobqueue -E htcondor`, with our plugin
#    conftest.py (upstream's conftest is not in the wheel) and our test_condorlite.py: with
#    -E htcondor only the tests marked for HTCondor run, the others are deselected.
# 5. Stops the pool (ci-pool.sh stop) and checks that the master and every job process are
#    gone; after a failure, prints the queue, condor_q -analyze of stuck jobs and MasterLog.
#
# Prints the test counts and the run time; exits non-zero if a test failed, if not exactly
# the expected number passed (9; DASK_JOBQUEUE_EXPECTED_PASSED), the pool could not be
# started or stopped, or a process was left behind. The temporary directory (pool,
# MasterLog, worker logs) is kept on failure and its path printed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
started=$SECONDS
# The tests that pass with the pinned requirements (see the end).
expected_passed=${DASK_JOBQUEUE_EXPECTED_PASSED:-9}

step() { printf '\n=== dask-jobqueue: %s\n' "$*"; }
fail() { printf 'dask-jobqueue: %s\n' "$*" >&2; exit 1; }

step "building condorlite (release)"
(cd "$root" && ${CARGO:-cargo} build --release --bins --quiet)
# Where cargo put them: CARGO_TARGET_DIR (relative to the repository), else target/.
target_dir="${CARGO_TARGET_DIR:-target}"
[[ "$target_dir" == /* ]] || target_dir="$root/$target_dir"
bin="$target_dir/release"
for tool in condor_master condor_submit condor_q condor_rm condor_reschedule; do
    [ -x "$bin/$tool" ] || fail "$bin/$tool was not built"
done

step "python environment"
venv="${DASK_JOBQUEUE_VENV:-$root/target/dask-jobqueue/venv}"
requirements="$here/requirements.txt"
stamp="$venv/.condorlite-requirements"
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$requirements" "$stamp"; then
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    if ! python3 -m venv "$venv" 2>/dev/null; then
        # A system Python without its venv module (Debian's python3-venv): virtualenv.
        rm -rf "$venv"
        python3 -m pip install --quiet --disable-pip-version-check \
            --target "$venv.virtualenv" virtualenv
        PYTHONPATH="$venv.virtualenv" python3 -m virtualenv --quiet "$venv"
    fi
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        --require-virtualenv -r "$requirements"
    cp "$requirements" "$stamp"
fi
"$venv/bin/python" -c 'import dask_jobqueue, distributed, pytest; print("dask-jobqueue", dask_jobqueue.__version__, "| distributed", distributed.__version__, "| pytest", pytest.__version__)'

tmp="$(mktemp -d "${TMPDIR:-/tmp}/condorlite-dask-jobqueue.XXXXXX")"
work="$tmp/work"
mkdir -p "$work"
ci_pool="$root/scripts/ci-pool.sh"

pool_up=""
ok=0
# Stops the pool (ci-pool.sh stop: condor_off -master, the master gone within 30 s, no job
# process left behind); with --diagnose, after the pool's state and MasterLog.
stop_pool() {
    [ -n "$pool_up" ] || return 0
    pool_up=""
    "$ci_pool" stop --timeout 30 "$@" || ok=1
}
finish() {
    local status=$?
    if [ "$status" -ne 0 ]; then stop_pool --diagnose; else stop_pool; fi
    [ "$status" -eq 0 ] && [ "$ok" -eq 0 ] && rm -rf "$tmp" && return 0
    echo "dask-jobqueue: kept $tmp (MasterLog in pool/pool/log/, worker logs in work/logs/)" >&2
    [ "$status" -ne 0 ] || exit 1
}
trap finish EXIT

# The personal pool dask-jobqueue's tests run on: enough room for their workers (at most four
# 1-core jobs at once) on any machine. Every condorlite tool below, and the jobs' submitter
# (pytest), use this pool only: start's exports put the tools first on PATH and set
# _CONDOR_LOCAL_DIR and CONDOR_CONFIG.
step "starting a pool on $tmp/pool (scripts/ci-pool.sh start)"
pool_exports="$(env -u GITHUB_ENV -u GITHUB_PATH -u GITHUB_OUTPUT \
    "$ci_pool" start --bin "$bin" --dir "$tmp/pool" --knob 'NUM_CPUS = 4' --knob 'MEMORY = 8192')" ||
    fail "the pool did not start"
pool_up=1
eval "$pool_exports"
export PATH="$bin:$venv/bin:$PATH"
# dask writes its default configuration files there (not in ~/.config/dask).
export DASK_CONFIG="$tmp/dask-config"
condor_status -total

step "pytest --pyargs dask_jobqueue -E htcondor"
pytest_started=$SECONDS
set +e
(
    cd "$work"
    env PYTHONPATH="$here" PYTHONDONTWRITEBYTECODE=1 \
        timeout -k 30 1200 "$venv/bin/python" -m pytest \
        --noconftest -p conftest -p no:cacheprovider \
        -o asyncio_default_fixture_loop_scope=function \
        --rootdir "$here" -v -rfExX --durations=5 \
        -E htcondor --pyargs dask_jobqueue "$here/test_condorlite.py"
) 2>&1 | tee "$tmp/pytest.out"
pytest_status=${PIPESTATUS[0]}
set -e
pytest_time=$((SECONDS - pytest_started))

step "stopping the pool"
if [ "$pytest_status" -eq 0 ]; then stop_pool; else stop_pool --diagnose; fi
[ "$ok" -eq 0 ] && echo "condor_master stopped; no job process left"

# pytest's closing line: "=== 9 passed, 272 deselected, 1 xfailed in 42.35s ===".
counts="$(grep -E '^=+ .* in [0-9.]+s' "$tmp/pytest.out" | tail -n 1 | sed -E 's/^=+ (.*) =+$/\1/' || true)"
echo "dask-jobqueue on condorlite: ${counts:-no result}; pytest ${pytest_time} s, harness $((SECONDS - started)) s"
[ "$pytest_status" -eq 0 ] || fail "pytest failed (exit status $pytest_status)"
[ "$ok" -eq 0 ] || fail "the pool did not stop cleanly"
# A green exit status is not enough: a suite that selected nothing, or skipped its tests,
# exits 0 too. The pinned dask-jobqueue (requirements.txt) has 9 tests that run on HTCondor
# and pass here (with ours, test_condorlite.py); fewer means tests stopped being run.
passed="$(sed -nE 's/(^|.* )([0-9]+) passed.*/\2/p' <<<"$counts")"
[ "${passed:-0}" -eq "$expected_passed" ] ||
    fail "expected $expected_passed tests to pass, ${passed:-none} did (${counts:-no result})"
