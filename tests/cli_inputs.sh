#!/usr/bin/env bash
# Hostile inputs through the CLI (issue 10): a FIFO as --data or --model is
# refused at once (exit 5) instead of blocking in open; y beyond float's
# range is refused naming line, column and value (exit 3); an integer ds
# step of 16+ digits survives train -> predict, and the forecast ds read
# back; a horizon that would carry ds past INT64_MAX is refused (exit 4)
# instead of wrapping. $1 is the fcast binary. Every run is under `timeout`
# so a regression fails instead of hanging.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh

small=(--model mlp --h 3 --input-size 6 --mlp-units 8,8 --max-steps 5 --windows-batch-size 32 --threads 1 --quiet)
run() { timeout 30 "$fcast" "$@" > /dev/null; }   # stdout: training log lines

# Two series of 40 points, ds = first + k * step (bash arithmetic is int64);
# y small integers.
series_csv() {  # first step
    echo "unique_id,ds,y"
    for s in a b; do
        for ((k = 0; k < 40; k++)); do echo "$s,$(($1 + k * $2)),$((k % 7))"; done
    done
}

# --- FIFOs: refused before anything reads or waits on them.
series_csv 0 1 > "$tmp/ok.csv"
run train --data "$tmp/ok.csv" "${small[@]}" --out "$tmp/ok.safetensors"
check "a regular CSV trains" "[ $? -eq 0 ] && [ -s $tmp/ok.safetensors ]"
mkfifo "$tmp/data.fifo" "$tmp/model.fifo"
run train --data "$tmp/data.fifo" "${small[@]}" --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
rc=$?
check "train --data FIFO does not block (not killed by timeout)" "[ $rc -ne 124 ]"
check "train --data FIFO exits 5 (I/O)" "[ $rc -eq 5 ]"
check "train message: not a regular file (a FIFO)" "grep -q 'data.fifo is not a regular file (a FIFO)' $tmp/err.txt"
run train --data "$tmp/data.fifo" "${small[@]}" --data-store stream --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
rc=$?
check "streamed train --data FIFO exits 5 at once" "[ $rc -eq 5 ] && grep -q '(a FIFO)' $tmp/err.txt"
run predict --model "$tmp/ok.safetensors" --data "$tmp/data.fifo" --out "$tmp/fc.csv" 2> "$tmp/err.txt"
rc=$?
check "predict --data FIFO exits 5" "[ $rc -eq 5 ] && grep -q 'data.fifo is not a regular file (a FIFO)' $tmp/err.txt"
run predict --model "$tmp/model.fifo" --data "$tmp/ok.csv" --out "$tmp/fc.csv" 2> "$tmp/err.txt"
rc=$?
check "predict --model FIFO does not block" "[ $rc -ne 124 ]"
check "predict --model FIFO exits 5" "[ $rc -eq 5 ] && grep -q 'model.fifo is not a regular file (a FIFO)' $tmp/err.txt"
run predict --model "$tmp" --data "$tmp/ok.csv" --out "$tmp/fc.csv" 2> "$tmp/err.txt"
check "predict --model directory exits 5" "[ $? -eq 5 ] && grep -q '(a directory)' $tmp/err.txt"

# --- y beyond float: refused with the place and the value, not NaN forecasts.
{ head -5 "$tmp/ok.csv"; echo "a,4,3.5e38"; tail -n +6 "$tmp/ok.csv" | grep -v '^a,4,'; } > "$tmp/huge.csv"
run train --data "$tmp/huge.csv" "${small[@]}" --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "y = 3.5e38 exits 3 (malformed input)" "[ $? -eq 3 ]"
check "message names file:line, column and value" \
      "grep -q 'huge.csv:6:' $tmp/err.txt && grep -q \"column 'y' (3)\" $tmp/err.txt && grep -q '3.5e38' $tmp/err.txt"

# --- a 16-digit integer step: train writes it whole, predict accepts the
# model, and the forecast ds are the next grid points and read back.
step=1234567890123456
series_csv 0 $step > "$tmp/big.csv"
run train --data "$tmp/big.csv" "${small[@]}" --out "$tmp/big.safetensors"
check "train on a 16-digit step" "[ $? -eq 0 ]"
check "the model stores the whole step" "grep -aq '\"freq\":\"$step\"' $tmp/big.safetensors"
run predict --model "$tmp/big.safetensors" --data "$tmp/big.csv" --out "$tmp/big_fc.csv" 2> "$tmp/err.txt"
check "predict accepts the model train wrote" "[ $? -eq 0 ]"
check "forecast ds continue the grid" "grep -q '^a,$((40 * step)),' $tmp/big_fc.csv && grep -q '^b,$((42 * step)),' $tmp/big_fc.csv"
{ cat "$tmp/big.csv"; tail -n +2 "$tmp/big_fc.csv"; } > "$tmp/big_more.csv"
run predict --model "$tmp/big.safetensors" --data "$tmp/big_more.csv" --out "$tmp/big_fc2.csv" 2> "$tmp/err.txt"
check "history extended by the forecasts reads back" "[ $? -eq 0 ] && grep -q '^a,$((45 * step)),' $tmp/big_fc2.csv"

# --- ds near INT64_MAX: 19-digit ds load; a horizon past INT64_MAX is
# refused up front, never wrapped (and never written as a ds the loader
# would refuse).
series_csv 9223372036854771600 100 > "$tmp/edge.csv"   # last ds ...775500
run train --data "$tmp/edge.csv" "${small[@]}" --out "$tmp/edge.safetensors"
check "19-digit ds train" "[ $? -eq 0 ]"
run predict --model "$tmp/edge.safetensors" --data "$tmp/edge.csv" --out "$tmp/edge_fc.csv" 2> "$tmp/err.txt"
check "future ds up to ...775800 fit: predict writes them" "[ $? -eq 0 ] && grep -q '^a,9223372036854775800,' $tmp/edge_fc.csv"
series_csv 9223372036854771700 100 > "$tmp/edge2.csv"  # last ds ...775600: +300 passes INT64_MAX
run predict --model "$tmp/edge.safetensors" --data "$tmp/edge2.csv" --out "$tmp/edge_fc2.csv" 2> "$tmp/err.txt"
check "a horizon past INT64_MAX exits 4 (invalid)" "[ $? -eq 4 ]"
check "message names the series, its last ds and the limit" \
      "grep -q \"series 'a'\" $tmp/err.txt && grep -q '9223372036854775600' $tmp/err.txt && grep -q '9223372036854775807' $tmp/err.txt"
check "no forecast file written" "[ ! -e $tmp/edge_fc2.csv ]"

# Columns other than unique_id, ds, y are not read yet: a warning names
# them (never a silent drop), for train and predict alike; the forecasts
# are those of the same data without them.
printf 'unique_id,ds,y,temp,"a,b"\n' > "$tmp/exog.csv"
printf 'unique_id,ds,y\n' > "$tmp/plain.csv"
for t in 1 2 3 4 5 6 7 8; do echo "x,$t,$t.5,2,3" >> "$tmp/exog.csv"; echo "x,$t,$t.5" >> "$tmp/plain.csv"; done
"$fcast" train --data "$tmp/exog.csv" --model mlp --hidden-size 8 --h 2 --input-size 3 --max-steps 3 --threads 1 \
    --quiet --out "$tmp/exog.safetensors" 2> "$tmp/exog.err"
check "train warns about the columns it does not read" \
      "grep -q \"warning: $tmp/exog.csv: columns 'temp', 'a,b' are not used\" $tmp/exog.err"
"$fcast" train --data "$tmp/plain.csv" --model mlp --hidden-size 8 --h 2 --input-size 3 --max-steps 3 --threads 1 \
    --quiet --out "$tmp/plain.safetensors" 2> "$tmp/plain.err"
check "no warning without extra columns" "! grep -q 'not used' $tmp/plain.err"
"$fcast" predict --model "$tmp/exog.safetensors" --data "$tmp/exog.csv" --out "$tmp/exog_fc.csv" 2> "$tmp/exog_p.err"
check "predict warns too" "grep -q \"columns 'temp', 'a,b' are not used\" $tmp/exog_p.err"
"$fcast" predict --model "$tmp/plain.safetensors" --data "$tmp/plain.csv" --out "$tmp/plain_fc.csv" 2>/dev/null
check "the extra columns change nothing (same forecasts)" "cmp -s $tmp/exog_fc.csv $tmp/plain_fc.csv"
finish
