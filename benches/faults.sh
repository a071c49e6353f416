#!/usr/bin/env bash
# The fault campaign: kill -9 the master again and again while a batch of jobs runs, restart
# it each time, and count what a crash must never do.
#
#   - jobs lost: submitted, but not in the history as completed at the end;
#   - jobs run twice: started more than once (each job appends its id to a file when it
#     starts, so a re-run shows as a second line);
#   - starts without an execute event: runs with no 001 event in the job event log;
#   - processes left: processes of the pool's jobs (their _CONDOR_SCRATCH_DIR under the
#     pool's EXECUTE directory) alive after the last master stopped.
#
# Each job sleeps a random 0-200 ms, so that kills land in every phase: before a start, while
# jobs run, between a job's exit and its record. The master is killed at a random moment
# 0.2-1.5 s after it started; after the last kill it runs until the queue is empty.
#
# Usage: benches/faults.sh [kills (default 30)] [jobs (default 2000)]
# (KEEP=1 keeps the pool and the logs; BIN=<dir> to use built binaries; otherwise a release build, CARGO="flock /tmp/cargo.lock
# cargo" to wrap it). Exits 1 when any count is not zero.
set -euo pipefail
cd "$(dirname "$0")/.."

KILLS=${1:-30}
JOBS=${2:-2000}

if [ -z "${BIN:-}" ]; then
    ${CARGO:-cargo} build --release --quiet --bins
    BIN=$PWD/target/release
fi

WORK=$(mktemp -d /tmp/condorlite-faults.XXXXXX)
MASTER_PID=
cleanup() {
    if [ -n "$MASTER_PID" ]; then
        kill -9 "$MASTER_PID" 2>/dev/null || true
        wait "$MASTER_PID" 2>/dev/null || true
    fi
    # Whatever the campaign left is killed, after it was counted.
    for pid in $(job_processes); do kill -9 "$pid" 2>/dev/null || true; done
    if [ -n "${KEEP:-}" ]; then echo "kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

export _CONDOR_LOCAL_DIR=$WORK/pool
export CONDOR_CONFIG=$WORK/condor_config
export _CONDOR_NUM_CPUS=2
: >"$CONDOR_CONFIG"
mkdir -p "$WORK/jobs"
cd "$WORK/jobs"
EXECUTE=$("$BIN/condor_config_val" EXECUTE)

# The pids of processes whose _CONDOR_SCRATCH_DIR lies under the pool's EXECUTE directory.
job_processes() {
    local env
    for env in /proc/[0-9]*/environ; do
        if { tr '\0' '\n' <"$env"; } 2>/dev/null | grep -q "^_CONDOR_SCRATCH_DIR=$EXECUTE/"; then
            env=${env#/proc/}
            echo "${env%/environ}"
        fi
    done
}

cat >job.sh <<EOF
#!/bin/sh
echo "\$1" >>"$WORK/jobs/runs"
sleep "0.\$(shuf -i 0-200 -n 1 | xargs printf %03d)"
EOF
chmod +x job.sh
printf 'executable = job.sh\narguments = $(Cluster).$(Process)\nlog = faults.log\nqueue %s\n' \
    "$JOBS" >faults.sub
: >runs

start_master() {
    "$BIN/condor_master" -f >>master.out 2>&1 &
    MASTER_PID=$!
}

"$BIN/condor_submit" faults.sub >/dev/null 2>&1
t0=$(date +%s)
for i in $(seq "$KILLS"); do
    start_master
    sleep "$(shuf -i 200-1500 -n 1 | awk '{printf "%.3f", $1 / 1000}')"
    kill -9 "$MASTER_PID"
    wait "$MASTER_PID" 2>/dev/null || true
    MASTER_PID=
    printf '\rkill %d/%d: %d starts so far' "$i" "$KILLS" "$(wc -l <runs)" >&2
done
echo >&2
start_master
# Until every job has left the queue (a bound: 10 minutes plus 50 ms a job).
deadline=$(($(date +%s) + 600 + JOBS / 20))
until [ "$("$BIN/condor_q" -allusers -af ClusterId | wc -l)" = 0 ]; do
    if [ "$(date +%s)" -gt "$deadline" ]; then
        echo "the queue did not empty in time:" >&2
        "$BIN/condor_q" -allusers -totals >&2
        break
    fi
    sleep 0.5
done
kill "$MASTER_PID"
wait "$MASTER_PID" 2>/dev/null || true
MASTER_PID=
elapsed=$(($(date +%s) - t0))

completed=$("$BIN/condor_history" -constraint 'JobStatus == 4' -af ClusterId ProcId | sort -u | wc -l)
lost=$((JOBS - completed))
twice=$(sort runs | uniq -d | wc -l)
extra_runs=$(($(wc -l <runs) - $(sort -u runs | wc -l)))
# Per job: runs (lines in `runs`) beyond its 001 events ("001 (042.007.000) ...").
no_execute=$(
    {
        sed -n 's/^001 (0*\([0-9][0-9]*\)\.0*\([0-9][0-9]*\)\..*/E \1.\2/p' faults.log
        sed 's/^/R /' runs
    } | awk '{ n[$2] += ($1 == "R") ? 1 : -1 } END { m = 0; for (j in n) if (n[j] > 0) m += n[j]; print m }'
)
left=$(job_processes | wc -l)

printf '%-36s %s\n' "kills of the master" "$KILLS" \
    "jobs" "$JOBS" \
    "wall time (s)" "$elapsed" \
    "jobs lost" "$lost" \
    "jobs run twice (extra runs)" "$twice ($extra_runs)" \
    "starts without an execute event" "$no_execute" \
    "processes left" "$left"
[ "$lost" = 0 ] && [ "$twice" = 0 ] && [ "$no_execute" = 0 ] && [ "$left" = 0 ]
