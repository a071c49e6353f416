#!/usr/bin/env bash
# Runs the ClassAd benchmarks of condorlite (criterion) and of HTCondor's own
# library (pip htcondor) in the same run, and prints a table with the ratios.
# Needs: pip install htcondor==24.0.24
set -euo pipefail
cd "$(dirname "$0")/.."
ref=$(mktemp)
trap 'rm -f "$ref"' EXIT
python3 benches/classad_reference.py > "$ref"
cargo bench --bench classad -- --noplot 2>/dev/null | tee /dev/stderr | awk '
  /^[a-z]/ && !/time:/ { name = $0 }
  /time:/ { sub(/^[^ ]/, "", name); line = $0; if (name == "") { split($0, a, "time:"); name = a[1] }
            split(line, p, "["); split(p[2], q, " "); v = q[3]; u = q[4];
            mult = (u == "ns") ? 1 : (u == "µs" || u == "us") ? 1000 : (u == "ms") ? 1e6 : 1e-3;
            gsub(/^ +| +$/, "", name); printf "%s\t%.1f\n", name, v * mult; name = "" }' > "$ref.ours"
printf '%-22s %14s %14s %8s\n' operation "condorlite ns" "reference ns" speedup
join -t $'\t' <(sort "$ref.ours") <(sort "$ref") | while IFS=$'\t' read -r name ours theirs; do
  printf '%-22s %14.1f %14.0f %7.1fx\n' "$name" "$ours" "$theirs" "$(echo "$theirs / $ours" | bc -l)"
done
rm -f "$ref.ours"
