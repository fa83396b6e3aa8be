#!/usr/bin/env bash
# fcast eval on files: a cross-validation file scored against the numbers
# utilsforecast gives (tests/fixtures/eval, python/make_eval_fixtures.py),
# the three output formats, per-series scores, the Naive / SeasonalNaive
# baselines and MASE on a series worked out by hand, a forecast file with
# its actuals, and clear errors. $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
fx=tests/fixtures/eval

# close EXPECTED OUT: every value of EXPECTED (long CSV, '#' lines skipped)
# is in OUT within 1e-9 relative, and OUT has no other non-empty value.
close() {
    awk -F, 'NR == FNR { if ($0 ~ /^#/ || $1 == "metric") next; want[$1","$2","$3","$4] = $5; n++; next }
             FNR > 1 && $5 != "" { k = $1","$2","$3","$4
                 if (!(k in want)) { print "unexpected " k > "/dev/stderr"; bad++; next }
                 d = $5 - want[k]; if (d < 0) d = -d; a = want[k] < 0 ? -want[k] : want[k]
                 if (d > 1e-9 + 1e-9 * a) { print k ": " $5 " != " want[k] > "/dev/stderr"; bad++ }
                 seen++ }
             END { exit !(n > 0 && seen == n && bad == 0) }' "$1" <(grep -v '^quantile_crossing,' "$2")
}

# --- the utilsforecast fixture ---
"$fcast" eval --cv $fx/cv.csv --train $fx/history.csv --season 7 --format csv --per-series > "$tmp/all.csv"
check "cv scores exit 0" "[ $? -eq 0 ]"
check "long CSV header" "[ \"\$(head -1 $tmp/all.csv)\" = 'metric,model,cutoff,unique_id,value' ]"
check "every score (overall, per cutoff, per series; models and baselines) matches utilsforecast" \
      "close $fx/expected.csv $tmp/all.csv"

"$fcast" eval --cv $fx/cv.csv --train $fx/history.csv --season 7 > "$tmp/table.txt"
check "table: overall and one section per cutoff" \
      "grep -q '^overall (6 windows, 18 points)' $tmp/table.txt && [ \$(grep -c '^cutoff 2000-01-2[47]' $tmp/table.txt) -eq 2 ]"
check "table: models and baselines as columns" \
      "grep -qE '^metric +NHITS +NBEATS +MLP +Naive +SeasonalNaive\\(7\\)\$' $tmp/table.txt"
check "table: explicit sMAPE scale" "grep -q '^sMAPE_200 ' $tmp/table.txt && grep -q \"M4's 0-200 scale\" $tmp/table.txt"
check "table: interval and quantile rows" \
      "grep -q '^coverage_95 ' $tmp/table.txt && grep -q '^QL_0.975 ' $tmp/table.txt && grep -q '^scaled_CRPS ' $tmp/table.txt"
check "table: no per-series sections unless asked" "! grep -q '^unique_id ' $tmp/table.txt"
mae=$(awk -F, '$1 == "MAE" && $2 == "NHITS" && $3 == "" && $4 == "" { printf "%.4f", $5 }' $fx/expected.csv)
check "table: overall NHITS MAE as utilsforecast ($mae)" "grep -qE '^MAE +$mae ' $tmp/table.txt"

"$fcast" eval --cv $fx/cv.csv --train $fx/history.csv --season 7 --per-series > "$tmp/series.txt"
check "table --per-series: a section per series" "[ \$(grep -c '^unique_id [ABC] (2 windows, 6 points)' $tmp/series.txt) -eq 3 ]"

"$fcast" eval --cv $fx/cv.csv --train $fx/history.csv --season 7 --format json --per-series --out "$tmp/s.json"
check "json: written to --out" "[ -s $tmp/s.json ]"
check "json: overall, by_cutoff, by_series hold utilsforecast's values" "python3 - $tmp/s.json $fx/expected.csv <<'PY'
import csv, json, sys
j = json.load(open(sys.argv[1]))
rows = [r for r in csv.reader(l for l in open(sys.argv[2]) if not l.startswith('#'))][1:]
cut = {g['cutoff']: g for g in j['by_cutoff']}; ser = {g['unique_id']: g for g in j['by_series']}
for metric, model, c, u, v in rows:
    g = j['overall'] if not c and not u else cut[c] if c else ser[u]
    got = g['scores'][model][metric]
    assert abs(got - float(v)) <= 1e-9 * (1 + abs(float(v))), (metric, model, c, u, got, v)
assert j['overall']['scores']['NBEATS']['coverage_80'] is None   # a metric the model lacks
assert j['models'] == ['NHITS', 'NBEATS', 'MLP', 'Naive', 'SeasonalNaive(7)'] and j['season'] == 7
PY"

"$fcast" eval --cv $fx/cv.csv > "$tmp/notrain.txt"
check "without --train: no MASE, no baselines, and a note saying so" \
      "! grep -q '^MASE' $tmp/notrain.txt && ! grep -q Naive <<<\"\$(grep -v '^#' $tmp/notrain.txt)\" && grep -q '^# no --train' $tmp/notrain.txt"
check "without --train: no baseline columns" "grep -qE '^metric +NHITS +NBEATS +MLP\$' $tmp/notrain.txt"

# --- baselines and MASE by hand ---
# history y = 1 4 2 6 7 5 at ds 1..6; forecasts made at cutoff 4 (y 6) for ds 5, 6 (y 7, 5).
#   M:                 8, 5   -> errors 1, 0 -> MAE 0.5
#   Naive:             6, 6   -> errors 1, 1 -> MAE 1
#   SeasonalNaive(2):  y(ds 3) = 2, y(ds 4) = 6 -> errors 5, 1 -> MAE 3
#   MASE scale, season 2, history up to ds 4: |2-1|, |6-4| -> 1.5; MASE of M 0.5 / 1.5
printf 'unique_id,ds,y\nA,1,1\nA,2,4\nA,3,2\nA,4,6\nA,5,7\nA,6,5\n' > "$tmp/h.csv"
printf 'unique_id,ds,cutoff,y,M\nA,5,4,7,8\nA,6,4,5,5\n' > "$tmp/cv.csv"
"$fcast" eval --cv "$tmp/cv.csv" --train "$tmp/h.csv" --season 2 --format csv > "$tmp/hand.csv"
value() { awk -F, -v m="$2" -v k="$3" '$1 == m && $2 == k && $3 == "" && $4 == "" { print $5 }' "$1"; }
check "hand: model MAE 0.5" "[ \"\$(value $tmp/hand.csv MAE M)\" = 0.5 ]"
check "hand: Naive MAE 1" "[ \"\$(value $tmp/hand.csv MAE Naive)\" = 1 ]"
check "hand: SeasonalNaive(2) MAE 3" "[ \"\$(value $tmp/hand.csv MAE 'SeasonalNaive(2)')\" = 3 ]"
check "hand: MASE 1/3" "awk -v v=\$(value $tmp/hand.csv MASE M) 'BEGIN { d = v - 1/3; exit !(d < 1e-12 && d > -1e-12) }'"
check "hand: RMSE of Naive 1, MSE of SeasonalNaive(2) 13" \
      "[ \"\$(value $tmp/hand.csv RMSE Naive)\" = 1 ] && [ \"\$(value $tmp/hand.csv MSE 'SeasonalNaive(2)')\" = 13 ]"

# --- a forecast file and its actuals: the same scores ---
head -5 "$tmp/h.csv" > "$tmp/hist4.csv"
printf 'unique_id,ds,y\nA,5,7\nA,6,5\n' > "$tmp/test.csv"
printf 'unique_id,ds,M\nA,5,8\nA,6,5\nA,7,1\n' > "$tmp/fc.csv"
"$fcast" eval --forecasts "$tmp/fc.csv" --test "$tmp/test.csv" --train "$tmp/hist4.csv" --season 2 --format csv > "$tmp/fc_scores.csv"
check "forecasts + test: the scores of the same cv file" "cmp -s $tmp/hand.csv $tmp/fc_scores.csv"
"$fcast" eval --forecasts "$tmp/fc.csv" --test "$tmp/test.csv" --train "$tmp/hist4.csv" --season 2 > "$tmp/fc.txt"
check "forecasts + test: rows without an actual are counted" "grep -q '1 forecast rows without an observed value' $tmp/fc.txt"
# Two series ending on different dates: two windows with a cutoff each, not
# "2 series x 2 cutoffs" (which would be four windows).
printf 'unique_id,ds,y\nA,1,1\nA,2,4\nA,3,2\nA,4,6\nB,1,3\nB,2,5\nB,3,4\n' > "$tmp/h2.csv"
printf 'unique_id,ds,y\nA,5,7\nB,4,6\n' > "$tmp/t2.csv"
printf 'unique_id,ds,M\nA,5,8\nB,4,5\n' > "$tmp/f2.csv"
"$fcast" eval --forecasts "$tmp/f2.csv" --test "$tmp/t2.csv" --train "$tmp/h2.csv" --season 1 > "$tmp/f2.txt"
check "forecasts of series ending apart: windows and cutoffs counted as they are" \
      "grep -q '2 points in 2 windows (2 series, 2 distinct cutoffs)' $tmp/f2.txt"
check "a cv file whose series share cutoffs keeps 'series x cutoffs'" "grep -q '(3 series x 2 cutoffs)' $tmp/table.txt"

# --- errors: exit code, file, line and column in the message ---
fails_with() {   # fails_with CODE PATTERN fcast-args...
    local code=$1 pat=$2; shift 2
    "$fcast" eval "$@" > "$tmp/out.txt" 2> "$tmp/err.txt"
    local rc=$?
    [ $rc -eq "$code" ] && grep -qF -- "$pat" "$tmp/err.txt" && [ ! -s "$tmp/out.txt" ] || { cat "$tmp/err.txt" >&2; false; }
}
printf 'unique_id,ds,y,M\nA,5,7,8\n' > "$tmp/e1.csv"
check "missing cutoff column (3)" "fails_with 3 \"e1.csv:1: missing column 'cutoff'\" --cv $tmp/e1.csv"
printf 'unique_id,ds,cutoff,y,M\nA,5,4,7,8\nA,6,4,5,abc\n' > "$tmp/e2.csv"
check "non-numeric forecast (3)" "fails_with 3 \"e2.csv:3: column 'M' (5): 'abc' is not a number\" --cv $tmp/e2.csv"
printf 'unique_id,ds,cutoff,y,M\nA,5,4,7,NaN\n' > "$tmp/e3.csv"
check "NaN forecast (3)" "fails_with 3 \"e3.csv:2: column 'M' (5): empty or NaN forecast\" --cv $tmp/e3.csv"
printf 'unique_id,ds,cutoff,y,M\nA,5,4,7,8\nA,6,4,x,8\n' > "$tmp/e4.csv"
check "non-numeric y (3)" "fails_with 3 \"e4.csv:3: column 'y' (4)\" --cv $tmp/e4.csv"
printf 'unique_id,ds,cutoff,y,M\nA,5,4,7,8\nA,5,4,7,9\n' > "$tmp/e5.csv"
check "duplicate row (3)" "fails_with 3 \"e5.csv:3: column 'ds' (2): duplicate (unique_id, ds, cutoff) = ('A', 5, 4): already on line 2\" --cv $tmp/e5.csv"
printf 'unique_id,ds,cutoff,y,M\nB,5,4,7,8\n' > "$tmp/e6.csv"
check "series without history in --train (4)" "fails_with 4 \"e6.csv:2: column 'unique_id' (1): series 'B' has no history in --train\" --cv $tmp/e6.csv --train $tmp/h.csv"
printf 'unique_id,ds,cutoff,y,M\nA,12,11,7,8\n' > "$tmp/e7.csv"
check "cutoff outside the history (4)" "fails_with 4 \"e7.csv:2: column 'cutoff' (3): cutoff 11 of series 'A' is not a ds\" --cv $tmp/e7.csv --train $tmp/h.csv"
printf 'unique_id,ds,cutoff,y,M\nA,5,4,7\n' > "$tmp/e8.csv"
check "short line (3)" "fails_with 3 'e8.csv:2: 4 fields but the header (line 1) has 5 columns' --cv $tmp/e8.csv"
check "cv file with dates, history with integers (4)" "fails_with 4 'holds date values in ds but --train' --cv $fx/cv.csv --train $tmp/h.csv"
check "missing file (5)" "fails_with 5 'nope.csv' --cv $tmp/nope.csv"
check "no input is a usage error (2)" "fails_with 2 'give one of --model' --train $tmp/h.csv"
check "--cv with --test is a usage error (2)" "fails_with 2 '--test goes with' --cv $tmp/cv.csv --test $tmp/test.csv"
check "--forecasts without --train is a usage error (2)" "fails_with 2 '--forecasts needs' --forecasts $tmp/fc.csv --test $tmp/test.csv"
check "unknown --format is a usage error (2)" "fails_with 2 '--format must be' --cv $tmp/cv.csv --format xml"
check "--format with --model is a usage error (2)" "fails_with 2 'go with --cv' --model x --train $tmp/h.csv --test $tmp/test.csv --format csv"
# quantile crossing (not a utilsforecast metric): the share of points whose
# quantile forecasts are out of order, here 1 point of 4
cat > "$tmp/cross.csv" <<'CSV'
unique_id,ds,cutoff,M-lo-80,M-median,M-hi-80,y
a,1,0,1,2,3,2
a,2,0,1,2,3,2
b,1,0,3,2,4,2
b,2,0,1,2,3,2
CSV
"$fcast" eval --cv "$tmp/cross.csv" --format csv > "$tmp/cross.out"
check "quantile_crossing counts the points out of order" \
      "grep -q '^quantile_crossing,M,,,0.25\$' $tmp/cross.out"
# --- eval --model with a quantile or distribution model: its point column
# (the median, the sample mean) is scored, as eval --forecasts scores it
# from predict's file (was: the forecasts overran their buffer) ---
scripts/split-tail.sh data/monthly_classics.csv 12 "$tmp/tr.csv" "$tmp/te.csv"
for loss in mq normal; do
  "$fcast" train --data "$tmp/tr.csv" --model mlp --h 12 --input-size 24 --hidden-size 16 --num-layers 1 \
    --max-steps 5 --loss $loss --quiet --out "$tmp/$loss.safetensors" 2> /dev/null
  "$fcast" eval --model "$tmp/$loss.safetensors" --train "$tmp/tr.csv" --test "$tmp/te.csv" > "$tmp/$loss.model.txt" 2>&1
  check "eval --model scores a $loss model (exit 0)" "[ $? -eq 0 ]"
  "$fcast" predict --model "$tmp/$loss.safetensors" --data "$tmp/tr.csv" --out "$tmp/$loss.fc.csv" 2> /dev/null
  "$fcast" eval --forecasts "$tmp/$loss.fc.csv" --train "$tmp/tr.csv" --test "$tmp/te.csv" > "$tmp/$loss.files.txt" 2>&1
  a=$(awk '$1 == "MAE" { print $2; exit }' "$tmp/$loss.model.txt")
  b=$(awk '$1 == "MAE" { print $2; exit }' "$tmp/$loss.files.txt")
  check "$loss: eval --model's MAE ($a) is its point column's in eval --forecasts ($b)" "[ -n '$a' ] && [ '$a' = '$b' ]"
done
finish
