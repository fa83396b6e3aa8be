#!/usr/bin/env bash
# End to end on real data: N-HiTS trained on the England and Wales
# electricity demand (data/taylor_halfhourly.csv, all but the last day) must
# forecast the held-out day with an MAE at most 0.5x that of the seasonal-naive
# forecast (season 48: the day before). Measured: 0.21-0.24 over seeds 1-3 with
# this configuration (one week of input, mlp width 256, 300 steps, 1 thread:
# ctest runs tests side by side on 2 cores). $1 is fcast.
set -euo pipefail
fcast=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scripts/split-tail.sh data/taylor_halfhourly.csv 48 "$tmp/train.csv" "$tmp/test.csv"
"$fcast" train --data "$tmp/train.csv" --model nhits --h 48 --input-size 336 --mlp-units 256,256,256 \
    --max-steps 300 --threads 1 --quiet --out "$tmp/nhits.safetensors"
"$fcast" eval --model "$tmp/nhits.safetensors" --train "$tmp/train.csv" --test "$tmp/test.csv" --season 48 | tee "$tmp/eval.txt"
ratio=$(awk '$1 == "MAE" { print $4 }' "$tmp/eval.txt")
if awk -v r="$ratio" 'BEGIN { exit !(r <= 0.5) }'; then
    echo "1 passed, 0 failed (MAE ratio to seasonal naive $ratio <= 0.5)"
else
    echo "FAIL: MAE ratio to seasonal naive is $ratio, expected <= 0.5" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
