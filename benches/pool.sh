#!/usr/bin/env bash
# The personal pool against its quick peers, side by side in one run on this machine:
#
#   - submit-to-start latency on an idle pool: from the start of the submit command to the
#     job's exec (the job is /bin/date, which prints the time it started), median of N runs;
#   - throughput: 2,000 /bin/true jobs on 2 slots, from the submit to the last job's end;
#   - condor_rm of a running job: from the start of condor_rm until its process is gone;
#   - the idle master's memory (RSS) and CPU use over a 10 s window.
#
# Peers: task-spooler (Debian's package `task-spooler`, the `tsp` command; installed here when
# missing) and the `xargs -P2` floor (no scheduler at all). Slurm and pueue are slow to set up
# and to run; their figures are cited in the README.
#
# Usage: benches/pool.sh [latency runs (default 20)] [jobs (default 2000)]
# (CARGO="flock /tmp/cargo.lock cargo" to wrap the release build; BIN=<dir> to skip it)
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${1:-20}
JOBS=${2:-2000}

if ! command -v tsp >/dev/null; then
    echo "installing task-spooler..." >&2
    (apt-get install -y task-spooler >/dev/null 2>&1 ||
        sudo apt-get install -y task-spooler >/dev/null 2>&1) || {
        echo "cannot install task-spooler" >&2
        exit 1
    }
fi

# (BIN=<dir of built binaries> to measure those instead, e.g. an older build)
if [ -z "${BIN:-}" ]; then
    ${CARGO:-cargo} build --release --quiet --bins
    BIN=$PWD/target/release
fi

WORK=$(mktemp -d /tmp/condorlite-bench.XXXXXX)
MASTER_PID=
cleanup() {
    [ -n "$MASTER_PID" ] && kill "$MASTER_PID" 2>/dev/null && wait "$MASTER_PID" 2>/dev/null
    TS_SOCKET=$WORK/ts.socket tsp -K >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT

export _CONDOR_LOCAL_DIR=$WORK/pool
export CONDOR_CONFIG=$WORK/condor_config
export _CONDOR_NUM_CPUS=2
# More than the schedd's default 20,000 procs a submit and 100,000 a user.
export _CONDOR_MAX_JOBS_PER_SUBMISSION=10000000 _CONDOR_MAX_JOBS_PER_OWNER=10000000
: >"$CONDOR_CONFIG"
mkdir -p "$WORK/jobs"
cd "$WORK/jobs"

now_ns() { # bash's clock, no process started
    local t=${EPOCHREALTIME/./}
    echo "${t}000"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

start_master() {
    "$BIN/condor_master" -f &
    MASTER_PID=$!
    until [ -S "$_CONDOR_LOCAL_DIR/run/condor_master.sock" ]; do sleep 0.01; done
}

wait_file() { until [ -s "$1" ]; do sleep 0.0005; done; }

# --- latency ---------------------------------------------------------------------------
start_master
for i in $(seq "$RUNS"); do
    printf 'executable = /bin/date\narguments = +%%s%%N\noutput = lat.%s\nqueue\n' "$i" >lat.sub
    t0=$(now_ns)
    "$BIN/condor_submit" lat.sub >/dev/null
    wait_file "lat.$i"
    echo $(($(cat "lat.$i") - t0))
done >lat.condorlite
export TS_SOCKET=$WORK/ts.socket
tsp -S 1 >/dev/null
for i in $(seq "$RUNS"); do
    t0=$(now_ns)
    id=$(tsp date +%s%N)
    tsp -w "$id" >/dev/null 2>&1 || true
    out=$(tsp -o "$id")
    wait_file "$out"
    echo $(($(cat "$out") - t0))
done >lat.tsp
for i in $(seq "$RUNS"); do
    t0=$(now_ns)
    t1=$(date +%s%N)
    echo $((t1 - t0))
done >lat.fork
lat_c=$(median <lat.condorlite)
lat_t=$(median <lat.tsp)
lat_f=$(median <lat.fork)

# --- condor_rm of a running job ----------------------------------------------------------
printf 'executable = /bin/sleep\narguments = 300\nqueue\n' >rm.sub
rm_times=()
for i in 1 2 3 4 5; do
    cluster=$("$BIN/condor_submit" -terse rm.sub | cut -d. -f1)
    # The job is the master's child, or its waiter's.
    until kids=$(pgrep -d, -P "$MASTER_PID") &&
        pid=$(pgrep -n -x sleep -P "$MASTER_PID,$kids"); do sleep 0.001; done
    t0=$(now_ns)
    "$BIN/condor_rm" "$cluster" >/dev/null
    while kill -0 "$pid" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]; do
        sleep 0.0005
    done
    rm_times+=($(($(now_ns) - t0)))
done
rm_ms=$(printf '%s\n' "${rm_times[@]}" | median)

# --- throughput --------------------------------------------------------------------------
printf 'executable = /bin/true\nlog = tp.log\nqueue %s\n' "$JOBS" >tp.sub
t0=$(now_ns)
"$BIN/condor_submit" tp.sub >/dev/null
"$BIN/condor_wait" tp.log >/dev/null
tp_c=$(($(now_ns) - t0))

tsp -K >/dev/null 2>&1 || true
tsp -S 2 >/dev/null
t0=$(now_ns)
for i in $(seq "$JOBS"); do tsp /bin/true >/dev/null; done
last=$(tsp | awk 'NR>1 {print $1}' | sort -n | tail -1)
tsp -w "$last" >/dev/null 2>&1 || true
until [ "$(tsp | awk 'NR>1 && $2 != "finished"' | wc -l)" = 0 ]; do sleep 0.01; done
tp_t=$(($(now_ns) - t0))

t0=$(now_ns)
seq "$JOBS" | xargs -P2 -n1 /bin/true
tp_x=$(($(now_ns) - t0))

# --- the idle master ---------------------------------------------------------------------
sleep 2
rss_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$MASTER_PID/status")
ticks() { awk '{print $14 + $15}' "/proc/$MASTER_PID/stat"; }
c0=$(ticks)
sleep 10
c1=$(ticks)
hz=$(getconf CLK_TCK)
cpu_pct=$(awk -v d=$((c1 - c0)) -v hz="$hz" 'BEGIN {printf "%.2f", 100 * d / hz / 10}')

ms() { awk -v ns="$1" 'BEGIN {printf "%.2f", ns / 1e6}'; }
rate() { awk -v ns="$1" -v n="$JOBS" 'BEGIN {printf "%.0f", n / (ns / 1e9)}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

printf '\n%-44s %12s %12s %12s %14s\n' "measure" "condorlite" "task-spooler" "floor" "vs ts / floor"
printf '%-44s %12s %12s %12s %14s\n' "submit-to-start latency, median (ms)" "$(ms "$lat_c")" "$(ms "$lat_t")" \
    "$(ms "$lat_f")" "$(ratio "$lat_c" "$lat_t") / $(ratio "$lat_c" "$lat_f")"
printf '%-44s %12s %12s %12s %14s\n' "$JOBS /bin/true on 2 slots (jobs/s)" "$(rate "$tp_c")" "$(rate "$tp_t")" \
    "$(rate "$tp_x")" "$(ratio "$tp_t" "$tp_c") / $(ratio "$tp_x" "$tp_c")"
printf '%-44s %12s\n' "condor_rm to process gone, median (ms)" "$(ms "$rm_ms")"
printf '%-44s %12s\n' "idle master RSS (MB)" "$(awk -v k="$rss_kb" 'BEGIN {printf "%.1f", k / 1024}')"
printf '%-44s %12s\n' "idle master CPU over 10 s (%)" "$cpu_pct"
echo
echo "(floor: latency = fork+exec of date from bash; throughput = seq $JOBS | xargs -P2 -n1 /bin/true;"
echo " 'vs' columns: condorlite's latency over the peer's, and the peer's time over condorlite's)"
