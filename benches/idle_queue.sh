#!/usr/bin/env bash
# What a change to the queue costs the master when many jobs wait: its CPU time per
# `condor_submit` of one more job, with N idle jobs already queued, in two cases:
#
#   - "busy slot": the one slot runs a long job, so the master only reads the queue again;
#   - "free slot": the jobs can never match, so each wake-up also runs a negotiation cycle
#     over all of them.
#
# The master's CPU is read from /proc/<pid>/task/*/schedstat (all its threads, in ns) around
# ten submits. Usage: benches/idle_queue.sh [N (default 10000)]
# (CARGO="flock /tmp/cargo.lock cargo" to wrap the release build)
set -euo pipefail
cd "$(dirname "$0")/.."

N=${1:-10000}
${CARGO:-cargo} build --release --quiet --bins
BIN=$PWD/target/release

WORK=$(mktemp -d /tmp/condorlite-idle.XXXXXX)
MASTER_PID=
stop_master() {
    if [ -n "$MASTER_PID" ]; then
        kill "$MASTER_PID" 2>/dev/null && wait "$MASTER_PID" 2>/dev/null || true
        MASTER_PID=
    fi
}
cleanup() {
    stop_master
    rm -rf "$WORK"
}
trap cleanup EXIT

cpu_ns() { cat "/proc/$MASTER_PID/task/"*/schedstat | awk '{s += $1} END {printf "%d", s}'; }

# One case: a fresh pool, the setup, N waiting jobs, then ten single-job submits.
# $1: the requirements of the waiting jobs; $2: whether a long job takes the slot first.
measure() {
    local dir=$WORK/pool.$RANDOM
    mkdir -p "$dir"
    export _CONDOR_LOCAL_DIR=$dir CONDOR_CONFIG=$WORK/condor_config _CONDOR_NUM_CPUS=1
    # More than the schedd's default 20,000 procs a submit and 100,000 a user.
    export _CONDOR_MAX_JOBS_PER_SUBMISSION=10000000 _CONDOR_MAX_JOBS_PER_OWNER=10000000
    : >"$CONDOR_CONFIG"
    cd "$dir"
    "$BIN/condor_master" -f 2>/dev/null &
    MASTER_PID=$!
    until [ -S "$dir/run/condor_master.sock" ]; do sleep 0.01; done
    if [ "$2" = busy ]; then
        printf 'executable = /bin/sleep\narguments = 600\nqueue\n' >busy.sub
        "$BIN/condor_submit" busy.sub >/dev/null
        until [ "$("$BIN/condor_q" -af JobStatus | head -1)" = 2 ]; do sleep 0.05; done
    fi
    printf 'executable = /bin/true\nrequirements = %s\nqueue %s\n' "$1" "$N" >many.sub
    "$BIN/condor_submit" many.sub >/dev/null 2>&1
    printf 'executable = /bin/true\nrequirements = %s\nqueue\n' "$1" >one.sub
    sleep 1 # the master reads the N jobs once
    local c0 c1
    c0=$(cpu_ns)
    for _ in $(seq 10); do
        "$BIN/condor_submit" one.sub >/dev/null 2>&1
        sleep 0.3 # one wake-up at a time
    done
    c1=$(cpu_ns)
    stop_master
    cd "$WORK"
    awk -v d=$((c1 - c0)) 'BEGIN {printf "%.2f", d / 10 / 1e6}'
}

busy=$(measure 'true' busy)
free=$(measure 'TARGET.Memory > 100000000' free)

printf '\n%-52s %14s\n' "master CPU per single-job submit, $N jobs waiting" "ms"
printf '%-52s %14s\n' "busy slot (the queue read again)" "$busy"
printf '%-52s %14s\n' "free slot, jobs never match (read + a cycle)" "$free"
