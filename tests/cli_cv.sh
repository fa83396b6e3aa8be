#!/usr/bin/env bash
# fcast cv through the CLI: the rows, cutoffs and y of neuralforecast's
# cross_validation (fixtures from python/make_cv_fixtures.py), with and
# without refit; forecasts equal to training on the truncated data and
# predicting (the independent path through fcast train / predict);
# several models side by side; clear errors. $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
fx=tests/fixtures/cv
tiny=(--hidden-size 8 --num-layers 1 --max-steps 1 --threads 1 --quiet)

# keys FILE: unique_id, ds, cutoff and y (as a number) of a cv CSV, header kept
keys() { awk -F, -v OFS=, -v y="$2" 'NR == 1 { print $1, $2, $3, "y"; next } { print $1, $2, $3, $y + 0 }' "$1"; }
fixture_keys() { tail -n +2 "$fx/$1_keys.csv" | awk -F, -v OFS=, 'NR == 1 { print; next } { print $1, $2, $3, $4 + 0 }'; }

run_case() {   # run_case NAME FLAGS...: fcast cv on the fixture's data, keys compared with neuralforecast's
    local name=$1; shift
    "$fcast" cv --data "$fx/${name}_data.csv" --model mlp "${tiny[@]}" "$@" --out "$tmp/$name.csv"
    keys "$tmp/$name.csv" 5 > "$tmp/$name.keys"
    fixture_keys "$name" > "$tmp/$name.want"
    check "$name: rows, cutoffs and y as neuralforecast's cross_validation" "cmp -s $tmp/$name.keys $tmp/$name.want"
}
run_case monthly_norefit --h 12 --input-size 24 --n-windows 3 --step-size 12
run_case monthly_refit --h 6 --input-size 12 --n-windows 4 --step-size 2 --refit 1
run_case short_series --h 12 --input-size 24 --n-windows 3 --step-size 6
check "columns in neuralforecast's order" "[ \"\$(head -1 $tmp/monthly_norefit.csv)\" = 'unique_id,ds,cutoff,MLP,y' ]"

# The forecasts: a model trained on all but the last 24 points of every
# series, forecasting from 12 points before the end, is what cv without
# refit gives at its second origin (n-windows 2, step 12); with --refit 1
# the last origin's model is the one trained on all but the last 12.
small=(--model nhits --h 12 --input-size 24 --mlp-units 16,16,16 --max-steps 20 --windows-batch-size 64
       --scaler standard --threads 1 --quiet)
scripts/split-tail.sh data/monthly_classics.csv 24 "$tmp/t24.csv" "$tmp/rest24.csv"
scripts/split-tail.sh data/monthly_classics.csv 12 "$tmp/t12.csv" "$tmp/rest12.csv"
"$fcast" train --data "$tmp/t24.csv" "${small[@]}" --out "$tmp/m24.safetensors"
"$fcast" train --data "$tmp/t12.csv" "${small[@]}" --out "$tmp/m12.safetensors"
"$fcast" predict --model "$tmp/m24.safetensors" --data "$tmp/t12.csv" --out "$tmp/p24.csv" 2>/dev/null
"$fcast" predict --model "$tmp/m12.safetensors" --data "$tmp/t12.csv" --out "$tmp/p12.csv" 2>/dev/null
"$fcast" cv --data data/monthly_classics.csv "${small[@]}" --n-windows 2 --step-size 12 --out "$tmp/once.csv"
"$fcast" cv --data data/monthly_classics.csv "${small[@]}" --n-windows 2 --step-size 12 --refit 1 --out "$tmp/refit.csv"
last_origin() { awk -F, 'NR > 1 { last[$1] = $3 } END { for (s in last) print s, last[s] }' "$1" > "$tmp/cut"
                awk -F, -v OFS=, 'NR == FNR { cut[$1] = $2; next } FNR > 1 && $3 == cut[$1] { print $1, $2, $4 }' \
                    FS=' ' "$tmp/cut" FS=, "$1"; }
last_origin "$tmp/once.csv" > "$tmp/once.last"
last_origin "$tmp/refit.csv" > "$tmp/refit.last"
tail -n +2 "$tmp/p24.csv" > "$tmp/p24.rows"
tail -n +2 "$tmp/p12.csv" > "$tmp/p12.rows"
check "cv without refit = train on all but the test points, predict from each cutoff" \
      "[ -s $tmp/once.last ] && cmp -s $tmp/once.last $tmp/p24.rows"
check "cv --refit 1, last origin = train on the data up to its cutoff, predict" \
      "[ -s $tmp/refit.last ] && cmp -s $tmp/refit.last $tmp/p12.rows"
check "first origins agree with and without refit (both train on all but 24)" \
      "[ \"\$(awk -F, 'NR > 1 && \$3 == \"1958-12-01\"' $tmp/once.csv)\" = \"\$(awk -F, 'NR > 1 && \$3 == \"1958-12-01\"' $tmp/refit.csv)\" ]"

# Several models, named as neuralforecast names them, side by side.
"$fcast" cv --data "$fx/monthly_refit_data.csv" "${tiny[@]}" --model mlp,nhits,mlp --mlp-units 8,8,8 --h 6 \
    --input-size 12 --n-windows 2 --step-size 6 --out "$tmp/many.csv"
check "several models: MLP, NHITS, MLP1 columns" "[ \"\$(head -1 $tmp/many.csv)\" = 'unique_id,ds,cutoff,MLP,NHITS,MLP1,y' ]"
check "the same configuration twice gives the same forecasts" \
      "awk -F, 'NR > 1 && \$4 != \$6 { bad = 1 } END { exit bad }' $tmp/many.csv"
check "several models: 2 series x 2 origins x 6 rows" "[ \$(tail -n +2 $tmp/many.csv | wc -l) -eq 24 ]"

# Trainings side by side (issue 36): the refit's 2 trainings, and the 3
# models' trainings, 2 and 3 at a time (a worker and a backend each): the
# bytes of one at a time above, which the checks above tie to fcast train.
"$fcast" cv --data data/monthly_classics.csv "${small[@]}" --n-windows 2 --step-size 12 --refit 1 --parallel 2 \
    --out "$tmp/refit2.csv"
check "--refit 1, 2 trainings side by side: the file of one at a time" "cmp -s $tmp/refit.csv $tmp/refit2.csv"
"$fcast" cv --data "$fx/monthly_refit_data.csv" "${tiny[@]}" --model mlp,nhits,mlp --mlp-units 8,8,8 --h 6 \
    --input-size 12 --n-windows 2 --step-size 6 --parallel 3 --out "$tmp/many3.csv"
check "3 models side by side: the file of one at a time" "cmp -s $tmp/many.csv $tmp/many3.csv"

# Errors: named, never a crash.
expect_error() {   # expect_error NAME PATTERN ARGS...
    local name=$1 pattern=$2; shift 2
    "$fcast" cv "$@" > /dev/null 2> "$tmp/err"
    local rc=$?
    check "$name: refused" "[ $rc -ne 0 ] && [ $rc -lt 128 ]"
    check "$name: says why" "grep -q -- '$pattern' $tmp/err"
}
data=(--data "$fx/monthly_refit_data.csv" --h 6 --input-size 12)
expect_error "no windows" "n-windows must be at least 1" "${data[@]}" --model mlp "${tiny[@]}" --n-windows 0 --out "$tmp/x.csv"
expect_error "unknown model" "is not one of" "${data[@]}" --model mlp,tft --out "$tmp/x.csv"
expect_error "auto batch" "auto is for fcast train" "${data[@]}" --model mlp "${tiny[@]}" --windows-batch-size auto --out "$tmp/x.csv"
expect_error "longer than every series" "training points" "${data[@]}" --model mlp "${tiny[@]}" --n-windows 400 \
    --out "$tmp/x.csv"
check "nothing written on errors" "[ ! -e $tmp/x.csv ]"
finish
