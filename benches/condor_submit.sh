#!/bin/sh
# condor_submit end to end, in a fresh temporary pool: one cluster of 100,000 procs, and 1,000
# separate single-job submits. Prints a table. Goals (issue 4): < 1 s and < 3 ms per submit.
#   benches/condor_submit.sh            (builds the release binary first)
set -eu
cd "$(dirname "$0")/.."
flock /tmp/cargo.lock cargo build --release --quiet --bin condor_submit
bin="${CARGO_TARGET_DIR:-$PWD/target}/release/condor_submit"
pool=$(mktemp -d)
trap 'rm -rf "$pool"' EXIT
# No master runs: the jobs stay queued, and condor_submit is not to say so 1,002 times.
export _CONDOR_LOCAL_DIR="$pool/local" CONDOR_CONFIG=ONLY_ENV _CONDOR_CONDORLITE_WARN_NO_MASTER=false
# More than the schedd's default 20,000 procs a submit and 100,000 a user.
export _CONDOR_MAX_JOBS_PER_SUBMISSION=10000000 _CONDOR_MAX_JOBS_PER_OWNER=10000000
cd "$pool"
printf '#!/bin/sh\ntrue\n' > prog.sh
chmod +x prog.sh
printf 'executable = prog.sh\narguments = $(Process)\nqueue 100000\n' > big.sub
printf 'executable = prog.sh\nqueue\n' > one.sub
"$bin" -terse one.sub > /dev/null # the store exists before timing

now() { date +%s.%N; }
t0=$(now); "$bin" -terse big.sub > /dev/null; t1=$(now)
big=$(echo "$t1 - $t0" | bc -l)
t0=$(now)
i=0
while [ $i -lt 1000 ]; do "$bin" -terse one.sub > /dev/null; i=$((i + 1)); done
t1=$(now)
one=$(echo "($t1 - $t0) / 1000 * 1000" | bc -l)
printf '%-48s %12s %10s\n' benchmark result goal
printf '%-48s %10.3f s %10s\n' "1 cluster of 100,000 procs (end to end)" "$big" "< 1 s"
printf '%-48s %9.2f ms %10s\n' "1,000 single-job submits (mean, end to end)" "$one" "< 3 ms"
