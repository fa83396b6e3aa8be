#!/usr/bin/env bash
# Exogenous variables through the CLI (issue 14): train with future, past
# and static columns, predict with their future values; cv and predict
# agree; every missing or malformed input is a clear error naming the
# file, column, series or ds, never NaN forecasts; a kind that takes no
# exogenous inputs says so; unused columns draw a warning. $1 is the fcast
# binary. Data: tests/fixtures/exog (2 monthly series, futr trend_f and
# season_f, hist lag_h, static s_size and s_flag).
set -uo pipefail
fcast=$1
source tests/lib_cli.sh

d=tests/fixtures/exog
exog=(--futr-exog trend_f,season_f --hist-exog lag_h --stat-exog-file "$d/static.csv")
small=(--h 6 --input-size 12 --mlp-units 16,16 --max-steps 20 --windows-batch-size 64 --threads 1 --quiet)
run() { timeout 60 "$fcast" "$@" > /dev/null; }
predict() { timeout 60 "$fcast" predict --model "$tmp/nhits.safetensors" --data "$d/history.csv" "$@"; }
err_has() { grep -qF -- "$1" "$tmp/err.txt"; }

# --- train and predict
run train --data "$d/history.csv" --model nhits "${small[@]}" "${exog[@]}" --scaler robust \
    --out "$tmp/nhits.safetensors" 2> "$tmp/err.txt"
check "nhits trains with future, past and static columns" "[ $? -eq 0 ] && [ -s $tmp/nhits.safetensors ]"
check "no unused-column warning when every column is named" "! err_has 'not used'"
predict --futr-data "$d/future.csv" --stat-exog-file "$d/static.csv" --out "$tmp/fc.csv" 2> "$tmp/err.txt"
check "predict with --futr-data and --stat-exog-file" "[ $? -eq 0 ] && [ \$(wc -l < $tmp/fc.csv) -eq 13 ]"
check "forecasts are finite numbers" "! grep -qi 'nan\|inf' $tmp/fc.csv"
check "the forecast ds are future.csv's" "[ \"\$(cut -d, -f1,2 $tmp/fc.csv | tail -n +2)\" = \"\$(cut -d, -f1,2 $d/future.csv | tail -n +2)\" ]"

# The future values matter: changing them changes the forecast.
awk -F, -v OFS=, 'NR > 1 { $3 = $3 + 5 } 1' "$d/future.csv" > "$tmp/future_shifted.csv"
predict --futr-data "$tmp/future_shifted.csv" --stat-exog-file "$d/static.csv" --out "$tmp/fc2.csv" 2> /dev/null
check "other future values give other forecasts" "[ \$? -eq 0 ] && ! cmp -s $tmp/fc.csv $tmp/fc2.csv"
# ... and so do the static values.
sed 's/^nottem,2.5,1/nottem,7.5,0/' "$d/static.csv" > "$tmp/static2.csv"
predict --futr-data "$d/future.csv" --stat-exog-file "$tmp/static2.csv" --out "$tmp/fc3.csv" 2> /dev/null
check "other static values change that series' forecast" \
    "[ \$? -eq 0 ] && diff <(grep ^AirPassengers $tmp/fc.csv) <(grep ^AirPassengers $tmp/fc3.csv) > /dev/null && ! cmp -s $tmp/fc.csv $tmp/fc3.csv"

# --- predict errors: named inputs, never NaN
predict --stat-exog-file "$d/static.csv" --out "$tmp/x.csv" 2> "$tmp/err.txt"
check "predict without --futr-data: exit 4, names the flag and a column" \
    "[ $? -eq 4 ] && err_has '--futr-data' && err_has 'trend_f' && [ ! -e $tmp/x.csv ]"
predict --futr-data "$d/future.csv" --out "$tmp/x.csv" 2> "$tmp/err.txt"
check "predict without --stat-exog-file: names the flag" "[ $? -ne 0 ] && err_has '--stat-exog-file' && err_has 's_size'"
grep -v '^nottem,1940-03-01' "$d/future.csv" > "$tmp/future_gap.csv"
predict --futr-data "$tmp/future_gap.csv" --stat-exog-file "$d/static.csv" --out "$tmp/x.csv" 2> "$tmp/err.txt"
check "a missing future ds names the series and the ds" "[ $? -ne 0 ] && err_has 'nottem' && err_has '1940-03-01'"
grep -v '^nottem' "$d/future.csv" > "$tmp/future_noseries.csv"
predict --futr-data "$tmp/future_noseries.csv" --stat-exog-file "$d/static.csv" --out "$tmp/x.csv" 2> "$tmp/err.txt"
check "a series missing from the future file is named" "[ $? -ne 0 ] && err_has 'nottem' && err_has 'future_noseries.csv'"
sed 's/^\(AirPassengers,1961-02-01\),[^,]*,/\1,,/' "$d/future.csv" > "$tmp/future_empty.csv"
predict --futr-data "$tmp/future_empty.csv" --stat-exog-file "$d/static.csv" --out "$tmp/x.csv" 2> "$tmp/err.txt"
check "an empty future value names column, series and ds" \
    "[ $? -ne 0 ] && err_has 'trend_f' && err_has 'AirPassengers' && err_has '1961-02-01'"
cut -d, -f1,2,3 "$d/future.csv" > "$tmp/future_nocol.csv"
predict --futr-data "$tmp/future_nocol.csv" --stat-exog-file "$d/static.csv" --out "$tmp/x.csv" 2> "$tmp/err.txt"
check "a future file without a column names it" "[ $? -ne 0 ] && err_has 'season_f'"
grep -v '^nottem' "$d/static.csv" > "$tmp/static_short.csv"
predict --futr-data "$d/future.csv" --stat-exog-file "$tmp/static_short.csv" --out "$tmp/x.csv" 2> "$tmp/err.txt"
check "a series missing from the static file is named" "[ $? -ne 0 ] && err_has 'nottem' && err_has 'static_short.csv'"

# --- train errors
run train --data "$d/history.csv" --model nbeats "${small[@]}" --futr-exog trend_f --out "$tmp/x.safetensors" \
    2> "$tmp/err.txt"
check "nbeats refuses exogenous inputs and points to nbeatsx" "[ $? -ne 0 ] && err_has 'NBEATS takes no future' && err_has 'NBEATSx' && err_has 'LSTM' && err_has 'TiDE'"
run train --data "$d/history.csv" --model nhits "${small[@]}" --futr-exog temperature --out "$tmp/x.safetensors" \
    2> "$tmp/err.txt"
check "an unknown column is named with the file's columns" "[ $? -ne 0 ] && err_has \"'temperature'\" && err_has 'lag_h'"
run train --data "$d/history.csv" --model nhits "${small[@]}" --futr-exog y --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "the target named as exogenous is refused as the target (exit 4)" \
    "[ $? -eq 4 ] && err_has '--futr-exog names y, the target, which cannot be an exogenous column'"
run train --data "$d/history.csv" --model nhits "${small[@]}" --futr-exog lag_h --hist-exog lag_h \
    --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "a column in two roles is refused" "[ $? -ne 0 ] && err_has 'named twice'"
run train --data "$d/history.csv" --model nhits "${small[@]}" --stat-exog s_size --out "$tmp/x.safetensors" \
    2> "$tmp/err.txt"
check "--stat-exog needs --stat-exog-file" "[ $? -ne 0 ] && err_has '--stat-exog-file'"
sed 's/^\(nottem,1939-05-01,[^,]*\),[^,]*,/\1,,/' "$d/history.csv" > "$tmp/history_empty.csv"
run train --data "$tmp/history_empty.csv" --model nhits "${small[@]}" --futr-exog trend_f --out "$tmp/x.safetensors" \
    2> "$tmp/err.txt"
check "an empty exogenous value in the history names column, series and ds" \
    "[ $? -ne 0 ] && err_has 'trend_f' && err_has 'nottem' && err_has '1939-05-01'"
run train --data "$d/history.csv" --model nhits "${small[@]}" --futr-exog trend_f --out "$tmp/x.safetensors" \
    2> "$tmp/err.txt"
check "unnamed columns draw a warning naming them" "[ $? -eq 0 ] && err_has 'season_f' && err_has 'lag_h' && err_has 'not used'"

# --- NBEATSx with its exogenous stack, and MLP, through cv: the cv's last
# window equals train on the truncated data + predict with the cut-off
# future values (the same windows, scalers and exogenous inputs).
run cv --data "$d/history.csv" --model nbeatsx,mlp,lstm,tide "${small[@]}" "${exog[@]}" --stack-types identity,trend,exogenous \
    --encoder-hidden-size 8 --decoder-hidden-size 8 --n-windows 1 --out "$tmp/cv.csv" 2> "$tmp/err.txt"
check "cv runs NBEATSx (exogenous stack), MLP, LSTM and TiDE with exogenous inputs" \
    "[ $? -eq 0 ] && [ \"\$(head -1 $tmp/cv.csv)\" = 'unique_id,ds,cutoff,NBEATSx,MLP,LSTM,TiDE,y' ] && ! grep -qi nan $tmp/cv.csv"
awk -F, 'NR == 1 || ($1 == "AirPassengers" && $2 < "1960-07-01") || ($1 == "nottem" && $2 < "1939-07-01")' \
    "$d/history.csv" > "$tmp/head.csv"
awk -F, -v OFS=, 'NR == 1 { print "unique_id,ds,trend_f,season_f"; next }
    ($1 == "AirPassengers" && $2 >= "1960-07-01") || ($1 == "nottem" && $2 >= "1939-07-01") { print $1, $2, $4, $5 }' \
    "$d/history.csv" > "$tmp/head_future.csv"
run train --data "$tmp/head.csv" --model nbeatsx "${small[@]}" "${exog[@]}" --stack-types identity,trend,exogenous \
    --out "$tmp/nbx.safetensors" 2> "$tmp/err.txt"
timeout 60 "$fcast" predict --model "$tmp/nbx.safetensors" --data "$tmp/head.csv" --futr-data "$tmp/head_future.csv" \
    --stat-exog-file "$d/static.csv" --out "$tmp/nbx.csv" 2> "$tmp/err.txt"
check "train + predict on the cut data runs" "[ $? -eq 0 ]"
check "cv's NBEATSx column equals train + predict" \
    "[ \"\$(cut -d, -f4 $tmp/cv.csv | tail -n +2)\" = \"\$(cut -d, -f3 $tmp/nbx.csv | tail -n +2)\" ]"
finish
