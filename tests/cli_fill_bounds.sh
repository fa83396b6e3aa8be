#!/usr/bin/env bash
# Gap filling under --memory-limit (docs/memory.md): a file whose series
# 'a' has two rows 57 years apart on the half-hourly grid (999,361 points
# once filled, 16.2 MiB loaded whole) is refused by train and predict in
# every --data-store (memory, stream, auto) with exit 6 and a message
# naming the file, the series and its filled count, before the filled
# columns or the store exist: the refused run's peak resident size stays
# near the binary's baseline. The frequency is inferred from series 'b',
# or given (--freq 30min) for 'a' alone. Within a limit whose data share
# holds the fill, the same file forecasts. $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh

printf 'unique_id,ds,y\na,2000-01-01 00:00:00,1\na,2057-01-01 00:00:00,2\nb,2000-01-01 00:00:00,1\n%s\n%s\n' \
    'b,2000-01-01 00:30:00,2' 'b,2000-01-01 01:00:00,3' > "$tmp/gap.csv"
head -3 "$tmp/gap.csv" > "$tmp/alone.csv"
small=(--model nhits --h 4 --input-size 8 --max-steps 2 --threads 1)

max_rss_kb() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }'; }
base=$(max_rss_kb "$fcast" --version)
named() { grep -q "gap.csv:3: column 'ds' (2): series 'a' runs from 2000-01-01 00:00:00 (line 2) to 2057-01-01 00:00:00 on the 30min grid: its 2 rows are 999361 points after gap filling" "$1" &&
          grep -q 'left by --memory-limit for the data' "$1"; }

for store in memory stream auto; do
    start=$(date +%s%N)
    "$fcast" train --data "$tmp/gap.csv" "${small[@]}" --memory-limit 24MiB --data-store $store \
        --out "$tmp/m.safetensors" 2> "$tmp/train-$store.err"
    rc=$? ms=$(( ($(date +%s%N) - start) / 1000000 ))
    check "train --data-store $store: exit 6 (got $rc)" "[ $rc = 6 ]"
    check "train --data-store $store: the message names the file, series and filled count" "named $tmp/train-$store.err"
    check "train --data-store $store: refused before any fill (within 10 s on a loaded machine: ${ms} ms)" "[ $ms -lt 10000 ]"
    check "train --data-store $store: no model written" "[ ! -e $tmp/m.safetensors ]"
    peak=$(max_rss_kb "$fcast" train --data "$tmp/gap.csv" "${small[@]}" --memory-limit 24MiB --data-store $store \
           --out "$tmp/m.safetensors")
    echo "train --data-store $store refused: peak resident $peak kB, baseline $base kB"
    sanitized "$fcast" ||   # AddressSanitizer's shadow memory is not the program's
        check "train --data-store $store: the fill is never allocated (peak $peak kB, baseline $base kB)" \
              "[ \$(( $peak - $base )) -lt 8192 ]"
done

"$fcast" train --data "$tmp/alone.csv" --freq 30min "${small[@]}" --memory-limit 24MiB --out "$tmp/m.safetensors" \
    2> "$tmp/alone.err"
rc=$?
check "train --freq 30min on series 'a' alone: exit 6 (got $rc)" "[ $rc = 6 ]"
check "train --freq 30min on series 'a' alone: named with its filled count" \
      "grep -q \"alone.csv:3: .*series 'a' .*its 2 rows are 999361 points after gap filling\" $tmp/alone.err"

# predict: a half-hourly model, then the same file at 48 MiB (a 16 MiB data share: refused) and 64 MiB (24 MiB: forecast)
"$fcast" train --data data/taylor_halfhourly.csv --model nhits --h 4 --input-size 8 --max-steps 2 --threads 1 --quiet \
    --out "$tmp/hh.safetensors" 2>/dev/null
check "a half-hourly model to predict with" "[ -s $tmp/hh.safetensors ]"
for store in memory stream auto; do
    "$fcast" predict --model "$tmp/hh.safetensors" --data "$tmp/gap.csv" --memory-limit 32MiB --data-store $store \
        --out "$tmp/p.csv" 2> "$tmp/predict-$store.err"
    rc=$?
    check "predict --data-store $store: exit 6 (got $rc)" "[ $rc = 6 ]"
    check "predict --data-store $store: the message names the file, series and filled count" "named $tmp/predict-$store.err"
    check "predict --data-store $store: no forecast written" "[ ! -e $tmp/p.csv ]"
done
"$fcast" predict --model "$tmp/hh.safetensors" --data "$tmp/gap.csv" --memory-limit 64MiB --data-store stream \
    --out "$tmp/p.csv" 2> "$tmp/predict-64.err"
rc=$?
check "predict within a limit whose data share holds the fill: exit 0 (got $rc)" "[ $rc = 0 ]"
check "predict within the limit: both series forecast" "[ \$(grep -c '^a,2057-01-01' $tmp/p.csv) = 4 ] && [ \$(grep -c '^b,' $tmp/p.csv) = 4 ]"

# --data-store memory may take all the limit leaves, not auto's half: a
# file of 89,999 daily rows and one missing day, whose rows take more than
# that half and less than the whole, plans with its gap filled (it was
# refused: the fill's allowance came from the half, less the rows).
python3 -c "
import datetime as d
print('unique_id,ds,y')
for i in range(90000):
    if i != 500: print('a,%s,%d' % ((d.date(1800, 1, 1) + d.timedelta(days=i)).isoformat(), i % 97))
" > "$tmp/daily.csv"
"$fcast" plan --data "$tmp/daily.csv" --model nhits --h 7 --input-size 14 --memory-limit 24MiB --data-store memory \
    > /dev/null 2> "$tmp/daily.err"
rc=$?
check "an explicit memory store fills a one-day gap within the limit (exit 0, got $rc: $(tail -c 200 "$tmp/daily.err"))" \
      "[ $rc = 0 ]"
"$fcast" plan --data "$tmp/daily.csv" --model nhits --h 7 --input-size 14 --memory-limit 24MiB --data-store auto \
    > /dev/null 2> "$tmp/daily-auto.err"
rc=$?
check "auto streams that file, and fills the gap (exit 0, got $rc)" "[ $rc = 0 ]"

finish
