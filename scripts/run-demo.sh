#!/usr/bin/env bash
# The main job of `make run`: train N-HiTS on the bundled electricity demand
# of England and Wales (half-hourly, June-August 2000), forecast the last day
# it has not seen, and print the accuracy next to the seasonal-naive forecasts.
set -euo pipefail
fcast=${1:-build/fcast}
cd "$(dirname "$0")/.."
out=out/demo
mkdir -p "$out"
h=48            # one day of half-hours
scripts/split-tail.sh data/taylor_halfhourly.csv $h "$out/train.csv" "$out/test.csv"
echo "== training N-HiTS on data/taylor_halfhourly.csv (last $h points held out)"
"$fcast" train --data "$out/train.csv" --model nhits --h $h --input-size "${FC_DEMO_INPUT:-336}" \
    --max-steps "${FC_DEMO_STEPS:-500}" --out "$out/nhits.safetensors"
"$fcast" predict --model "$out/nhits.safetensors" --data "$out/train.csv" --out "$out/forecast.csv"
echo "== accuracy on the held-out day, against the same day last week (season 336)"
"$fcast" eval --model "$out/nhits.safetensors" --train "$out/train.csv" --test "$out/test.csv" --season 336
echo "== and against yesterday (season 48)"
"$fcast" eval --model "$out/nhits.safetensors" --train "$out/train.csv" --test "$out/test.csv" --season 48
echo "forecasts: $out/forecast.csv"
