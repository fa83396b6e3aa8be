#!/usr/bin/env bash
# Thread scaling and neighbours: `fcast bench train` (N-HiTS, fp32 and bf16)
# on 1 thread and on every core, then on every core again with company:
# a busy neighbour (one `yes` per core) and a second fcast training at the
# same time, each under three OpenMP wait settings (fcast's default
# GOMP_SPINCOUNT=3000, OMP_WAIT_POLICY=passive and =active). Prints
# windows/s and the ratios to the lone run; figures, not pass or fail.
#
#   bench/threads.sh [build/fcast] [steps]      (run from the repository)
set -euo pipefail
fcast=${1:-build/fcast}
steps=${2:-40}
cores=$(nproc)
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT

# windows/s of one precision from `fcast bench train --json`
wps() { python3 -c 'import json,sys; r=json.loads(sys.stdin.readlines()[-1]); print(" ".join("%.0f" % x["windows_per_second"] for x in r["runs"]))'; }
train() { "$fcast" bench train --steps "$steps" --warmup 3 --threads "$1" --precisions fp32,bf16 --json 2>/dev/null | wps; }

echo "fcast bench train, $steps steps, fp32 and bf16 windows/s, $cores cores"
one=$(train 1)
all=$(train "$cores")
echo "1 thread:            $one"
echo "$cores threads:           $all"
python3 -c "a='$one'.split(); b='$all'.split(); print('scaling 1 -> $cores threads: fp32 %.2fx, bf16 %.2fx' % (float(b[0])/float(a[0]), float(b[1])/float(a[1])))"

for setting in "default (GOMP_SPINCOUNT=3000)|" "OMP_WAIT_POLICY=passive|OMP_WAIT_POLICY=passive" "OMP_WAIT_POLICY=active|OMP_WAIT_POLICY=active"; do
  name=${setting%%|*}; env=${setting#*|}
  # with a busy neighbour: one spinning process per core
  for _ in $(seq "$cores"); do yes > /dev/null & done
  busy=$(env $env bash -c "$(declare -f train wps); fcast=$fcast steps=$steps train $cores")
  kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true
  # two trainings at once
  env $env bash -c "$(declare -f train wps); fcast=$fcast steps=$steps train $cores" > "$tmp/other" &
  pair=$(env $env bash -c "$(declare -f train wps); fcast=$fcast steps=$steps train $cores")
  wait
  other=$(cat "$tmp/other")
  python3 - "$name" "$all" "$busy" "$pair" "$other" <<'EOF'
import sys
name, alone, busy, pair, other = sys.argv[1], *[list(map(float, s.split())) for s in sys.argv[2:]]
print(f"{name}: busy neighbour fp32 {busy[0]:.0f} ({busy[0]/alone[0]:.2f}x), bf16 {busy[1]:.0f} ({busy[1]/alone[1]:.2f}x); "
      f"two trainings, each fp32 {pair[0]:.0f} / {other[0]:.0f} ({pair[0]/alone[0]:.2f}x / {other[0]/alone[0]:.2f}x)")
EOF
done
