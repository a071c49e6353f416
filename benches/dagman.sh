#!/usr/bin/env bash
# DAGMan's overhead on the personal pool, against the same jobs submitted flat, in one run:
#
#   - a DAG of N /bin/true nodes in diamond layers (L layers of W nodes; each layer the child
#     of the whole layer before it, through one join node), from condor_submit_dag until
#     DAGMan's job has terminated;
#   - the same N /bin/true jobs in one condor_submit, from the submit to the last job's end
#     (condor_wait on their log);
#   - DAGMan's peak memory (VmHWM of the condor_dagman process, sampled as it runs).
#
# The figure of merit is the DAG's time over the flat time (the issue's target: within 2x),
# and the overhead per node that difference makes.
#
# Usage: benches/dagman.sh [nodes (default 10000)] [width (default 100)]
# (CARGO="flock /tmp/cargo.lock cargo" to wrap the release build)
set -euo pipefail
cd "$(dirname "$0")/.."

NODES=${1:-10000}
WIDTH=${2:-100}
LAYERS=$(((NODES + WIDTH - 1) / WIDTH))

${CARGO:-cargo} build --release --quiet --bins
BIN=$PWD/target/release
export PATH=$BIN:$PATH

WORK=$(mktemp -d /tmp/condorlite-bench.XXXXXX)
MASTER_PID=
SAMPLER_PID=
cleanup() {
    [ -n "$SAMPLER_PID" ] && kill "$SAMPLER_PID" 2>/dev/null
    [ -n "$MASTER_PID" ] && kill "$MASTER_PID" 2>/dev/null && wait "$MASTER_PID" 2>/dev/null
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

now_ns() {
    local t=${EPOCHREALTIME/./}
    echo "${t}000"
}

"$BIN/condor_master" -f &
MASTER_PID=$!
until [ -S "$_CONDOR_LOCAL_DIR/run/condor_master.sock" ]; do sleep 0.01; done

# --- the DAG -------------------------------------------------------------------------------
printf 'executable = /bin/true\nqueue\n' >node.sub
{
    n=0
    for l in $(seq "$LAYERS"); do
        names=()
        for w in $(seq "$WIDTH"); do
            [ "$n" -ge "$NODES" ] && break
            n=$((n + 1))
            echo "JOB N${l}_$w node.sub"
            names+=("N${l}_$w")
        done
        if [ "$l" -gt 1 ]; then
            echo "PARENT ${prev[*]} CHILD ${names[*]}"
        fi
        prev=("${names[@]}")
    done
} >layers.dag

# DAGMan's peak resident set, sampled every 50 ms while it runs.
sample_hwm() {
    local pid=
    until pid=$(pgrep -f '^condor_scheduniv_exec' | head -1) && [ -n "$pid" ]; do sleep 0.01; done
    local peak=0 v
    while v=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null) && [ -n "$v" ]; do
        peak=$v
        echo "$peak" >hwm
        sleep 0.05
    done
}
sample_hwm &
SAMPLER_PID=$!

t0=$(now_ns)
condor_submit_dag layers.dag >/dev/null
condor_wait layers.dag.dagman.log >/dev/null
t_dag=$(($(now_ns) - t0))
wait "$SAMPLER_PID" 2>/dev/null || true
SAMPLER_PID=
hwm_kb=$(cat hwm 2>/dev/null || echo 0)
status=$(grep -o 'EXITING WITH STATUS [0-9]*' layers.dag.dagman.out | tail -1)
done_nodes=$(condor_history -constraint 'JobUniverse == 7' -af DAG_NodesDone | head -1)

# --- the same jobs, flat -------------------------------------------------------------------
printf 'executable = /bin/true\nlog = flat.log\nqueue %s\n' "$NODES" >flat.sub
t0=$(now_ns)
condor_submit flat.sub >/dev/null
condor_wait flat.log >/dev/null
t_flat=$(($(now_ns) - t0))

s() { awk -v ns="$1" 'BEGIN {printf "%.2f", ns / 1e9}'; }
printf '\n%-52s %12s\n' "measure" "condorlite"
printf '%-52s %12s\n' "DAG: $NODES nodes, $LAYERS layers of $WIDTH (s)" "$(s "$t_dag")"
printf '%-52s %12s\n' "flat: the same $NODES jobs in one submit (s)" "$(s "$t_flat")"
printf '%-52s %12s\n' "DAG time / flat time" "$(awk -v a="$t_dag" -v b="$t_flat" 'BEGIN {printf "%.2f", a / b}')"
printf '%-52s %12s\n' "DAGMan overhead per node (ms)" \
    "$(awk -v a="$t_dag" -v b="$t_flat" -v n="$NODES" 'BEGIN {printf "%.3f", (a - b) / n / 1e6}')"
printf '%-52s %12s\n' "condor_dagman peak RSS (MB)" "$(awk -v k="$hwm_kb" 'BEGIN {printf "%.1f", k / 1024}')"
printf '%-52s %12s\n' "DAGMan: $status, nodes done" "$done_nodes"
echo
echo "(2 slots; the DAG's layers are joined through one join node each, as DAGMan joins a"
echo " many-to-many PARENT line; times from the first command to the last job's end)"
