#!/usr/bin/env bash
# fcast train / predict / eval through the CLI on bundled real data (small
# model): determinism of model files, forecast CSV layout, eval output, and
# clear errors for bad input. $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh

scripts/split-tail.sh data/monthly_classics.csv 12 "$tmp/train.csv" "$tmp/test.csv"
small=(--model nhits --h 12 --input-size 24 --mlp-units 32,32,32 --max-steps 40 --windows-batch-size 128
       --scaler standard --threads 1 --quiet)
# small without flag $1 and its value, for a check that gives that flag
# another value (a flag given twice is refused).
small_but() { local a skip=0; but=(); for a in "${small[@]}"; do
    if [ "$a" = "$1" ]; then skip=1; elif [ $skip = 1 ]; then skip=0; else but+=("$a"); fi; done; }

"$fcast" train --data "$tmp/train.csv" "${small[@]}" --out "$tmp/a.safetensors"
check "train writes a model" "[ -s $tmp/a.safetensors ]"
"$fcast" train --data "$tmp/train.csv" "${small[@]}" --out "$tmp/b.safetensors"
check "same seed and threads give a bitwise-identical model file" "cmp -s $tmp/a.safetensors $tmp/b.safetensors"
"$fcast" train --data "$tmp/train.csv" "${small[@]}" --seed 2 --out "$tmp/c.safetensors"
check "another seed gives another model" "! cmp -s $tmp/a.safetensors $tmp/c.safetensors"

"$fcast" predict --model "$tmp/a.safetensors" --data "$tmp/train.csv" --out "$tmp/fc.csv" 2>/dev/null
check "forecast header is neuralforecast's" "[ \"\$(head -1 $tmp/fc.csv)\" = 'unique_id,ds,NHITS' ]"
check "12 rows for each of 4 series" "[ \$(tail -n +2 $tmp/fc.csv | wc -l) -eq 48 ]"
check "AirPassengers forecasts start in 1960-01" "grep -q '^AirPassengers,1960-01-01,' $tmp/fc.csv"
check "future ds follow the monthly grid" "grep -q '^AirPassengers,1960-12-01,' $tmp/fc.csv"
# (the column goes to a file first: under pipefail, grep -q closing the pipe
# early would fail the producer with SIGPIPE and the negation pass a bad value)
tail -n +2 "$tmp/fc.csv" | cut -d, -f3 > "$tmp/values.txt"
check "forecasts are finite numbers" "! grep -qvE '^-?[0-9]+(\\.[0-9]+)?(e[-+]?[0-9]+)?\$' $tmp/values.txt"

"$fcast" eval --model "$tmp/a.safetensors" --train "$tmp/train.csv" --test "$tmp/test.csv" --season 12 > "$tmp/eval.txt"
check "eval prints MAE, RMSE, sMAPE and MASE" "grep -q '^MAE' $tmp/eval.txt && grep -q '^MASE' $tmp/eval.txt"
check "eval scores 48 points over 4 series" "grep -q '48 points over 4 series' $tmp/eval.txt"

# Errors: clear messages, non-zero exit, no crash.
printf 'unique_id,ds\nA,1\n' > "$tmp/nocol.csv"
"$fcast" train --data "$tmp/nocol.csv" "${small[@]}" --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "missing y column exits 3 (malformed input)" "[ $? -eq 3 ]"
check "message names the file and the column" "grep -q 'nocol.csv' $tmp/err.txt && grep -q \"'y'\" $tmp/err.txt"
check "no model file on failure" "[ ! -e $tmp/x.safetensors ]"

head -c 300 "$tmp/a.safetensors" > "$tmp/trunc.safetensors"
"$fcast" predict --model "$tmp/trunc.safetensors" --data "$tmp/train.csv" --out "$tmp/fc2.csv" 2> "$tmp/err.txt"
check "truncated model exits 7 (bad file format)" "[ $? -eq 7 ]"
check "message names the model file" "grep -q 'trunc.safetensors' $tmp/err.txt"
check "no forecast written" "[ ! -e $tmp/fc2.csv ]"

"$fcast" train --data "$tmp/train.csv" --model nope --h 12 --input-size 24 --out "$tmp/x" 2> "$tmp/err.txt"
check "unknown model is a usage error (2)" "[ $? -eq 2 ] && grep -q nope $tmp/err.txt"
"$fcast" train --bogus 2> "$tmp/err.txt"
check "unknown flag is a usage error naming it" "[ $? -eq 2 ] && grep -q -- '--bogus' $tmp/err.txt"
"$fcast" train --data "$tmp/train.csv" "${small[@]}" --val-size 6 --out "$tmp/x" 2> "$tmp/err.txt"
check "val-size below h is refused" "[ $? -eq 4 ] && grep -q 'val-size' $tmp/err.txt"
"$fcast" predict --model "$tmp/a.safetensors" --data data/eu_stock_markets.csv --out "$tmp/fc3.csv" 2> "$tmp/err.txt"
check "history with another ds kind is refused" "[ $? -eq 4 ] && grep -q 'trained on' $tmp/err.txt"
"$fcast" train --help > "$tmp/help.txt"
check "train --help documents every flag" "grep -q -- '--windows-batch-size' $tmp/help.txt && grep -q -- '--early-stop-patience' $tmp/help.txt"

# Hostile sizes and diverging runs: refused early, nothing written.
small_but --h; "$fcast" train --data "$tmp/train.csv" "${but[@]}" --h " -1" --out "$tmp/x" 2> "$tmp/err.txt"
check "a negative size is a usage error" "[ $? -eq 2 ] && grep -q -- '--h' $tmp/err.txt"
small_but --mlp-units; "$fcast" train --data "$tmp/train.csv" "${but[@]}" --mlp-units 16:16,64:64 --out "$tmp/x" 2> "$tmp/err.txt"
check "mlp units that do not chain are refused" "[ $? -eq 4 ] && grep -q 'mlp_units\[1\]' $tmp/err.txt"
small_but --input-size; "$fcast" train --data "$tmp/train.csv" "${but[@]}" --input-size 100000 --out "$tmp/x" 2> "$tmp/err.txt"
check "an input longer than every series is refused before the model is built" "[ $? -eq 4 ] && grep -q 'input-size 100000' $tmp/err.txt"
"$fcast" train --data "$tmp/train.csv" "${small[@]}" --out /nonexistent/dir/x.safetensors 2> "$tmp/err.txt"
check "an unwritable --out is refused before training" "[ $? -eq 5 ] && grep -q '/nonexistent/dir' $tmp/err.txt"
"$fcast" train --data "$tmp/train.csv" "${small[@]}" --lr 1e30 --loss mse --out "$tmp/nan.safetensors" 2> "$tmp/err.txt"
check "a diverging run stops with an error and writes nothing" "[ $? -eq 4 ] && grep -q diverged $tmp/err.txt && [ ! -e $tmp/nan.safetensors ]"
"$fcast" eval --model "$tmp/a.safetensors" --train "$tmp/train.csv" --test "$tmp/test.csv" --season 100000 2> "$tmp/err.txt"
check "a season longer than every series is refused" "[ $? -eq 4 ] && grep -q -- '--season' $tmp/err.txt"
for cmd in train plan; do   # was SIGFPE: the memory plan divided by the step before the options were checked
  "$fcast" $cmd --data "$tmp/train.csv" "${small[@]}" --step-size 0 --out "$tmp/s0.safetensors" 2>"$tmp/err.txt"
  check "$cmd --step-size 0 is refused (exit 4), not a crash" "[ $? -eq 4 ] && grep -Eq -- \"--step-size (must be >= 1|'0': expected an integer of at least 1)\" $tmp/err.txt"
done
"$fcast" train --data "$tmp/train.csv" "${small[@]}" --out "$tmp" 2>"$tmp/err.txt"
check "train --out a directory is refused before training" "[ $? -eq 5 ] && grep -q 'is a directory' $tmp/err.txt && ! grep -q trained $tmp/err.txt"
# --start-padding (start_padding_enabled): input-size - 1 zeros before every
# series, so an input longer than every series trains (and is refused without)
head -1 data/monthly_classics.csv > "$tmp/short.csv"
grep '^AirPassengers,1949' data/monthly_classics.csv >> "$tmp/short.csv"   # 12 points
"$fcast" train --data "$tmp/short.csv" --model mlp --h 2 --input-size 16 --hidden-size 8 --num-layers 1 --max-steps 5 \
  --quiet --out "$tmp/sp.safetensors" 2>"$tmp/err.txt"
check "an input longer than the series is refused, naming --start-padding" "[ $? -eq 4 ] && grep -q -- '--start-padding' $tmp/err.txt"
"$fcast" train --data "$tmp/short.csv" --model mlp --h 2 --input-size 16 --hidden-size 8 --num-layers 1 --max-steps 5 \
  --quiet --start-padding --out "$tmp/sp.safetensors" 2>"$tmp/err.txt"
check "--start-padding trains it" "[ $? -eq 0 ] && [ -s $tmp/sp.safetensors ]"
"$fcast" predict --model "$tmp/sp.safetensors" --data "$tmp/short.csv" --out "$tmp/sp.csv" 2>"$tmp/err.txt"
check "and predicts from its 12 points" "[ $? -eq 0 ] && [ \$(wc -l < $tmp/sp.csv) -eq 3 ]"

cp "$tmp/train.csv" "$tmp/in.csv"
"$fcast" train --data "$tmp/in.csv" "${small[@]}" --out "$tmp/in.csv" 2>"$tmp/err.txt"
check "train --out equal to --data is refused and the data kept" "[ $? -eq 4 ] && cmp -s $tmp/train.csv $tmp/in.csv"

finish
