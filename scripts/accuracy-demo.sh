#!/usr/bin/env bash
# `make accuracy`: a cross-validated comparison on bundled real data
# (data/monthly_classics.csv: 4 monthly series, h = 12, the last 3 years as
# 3 forecast origins 12 months apart): N-HiTS, N-BEATS, their ensemble, an
# N-HiTS tuned by fcast tune on the earlier years, and N-HiTS with 80/95 %
# quantiles, next to the Naive and
# SeasonalNaive(12) baselines, scored by fcast eval (with interval
# coverage); then N-HiTS on half-hourly demand with and without calendar
# inputs (--futr-exog). Every step's wall time is printed. FC_ACC_STEPS
# sets the training steps (300).
set -euo pipefail
fcast=${1:-build/fcast}
cd "$(dirname "$0")/.."
out=out/accuracy
mkdir -p "$out"
data=data/monthly_classics.csv
steps=${FC_ACC_STEPS:-300}
common=(--h 12 --max-steps "$steps" --scaler robust --n-windows 3 --step-size 12 --quiet)
timed() {   # timed LABEL COMMAND...: runs it, prints its wall time
    local label=$1; shift
    local start=$SECONDS
    "$@"
    echo "   $label: $((SECONDS - start)) s"
}

echo "== cross-validation on $data: 3 origins x 12 months per series ($steps steps per training)"
timed "N-HiTS and N-BEATS, input 24" \
    "$fcast" cv --data $data --model nhits,nbeats --input-size 24 "${common[@]}" --out "$out/cv24.csv"
timed "N-HiTS and N-BEATS, input 36" \
    "$fcast" cv --data $data --model nhits,nbeats --input-size 36 "${common[@]}" --out "$out/cv36.csv"
timed "N-HiTS with MQLoss (levels 80, 95), input 36" \
    "$fcast" cv --data $data --model nhits --input-size 36 --loss mq --level 80,95 "${common[@]}" --out "$out/cvmq.csv"

# Tuning sees only the data before the evaluated years: its own
# cross-validation runs on all but the last 36 months of every series.
scripts/split-tail.sh $data 36 "$out/tune_train.csv" "$out/tune_rest.csv"
cat > "$out/space.yaml" <<'YAML'
lr: loguniform(1e-4, 1e-2)
input-size: choice(24, 36, 48)
scaler: choice(identity, standard, robust)
mlp-units: choice("128,128,128", "512,512,512")
YAML
timed "tune N-HiTS: ${FC_ACC_TRIALS:-8} TPE trials on the earlier years" \
    "$fcast" tune --data "$out/tune_train.csv" --model nhits --h 12 --max-steps "$steps" --space "$out/space.yaml" \
        --trials "${FC_ACC_TRIALS:-8}" --n-windows 2 --step-size 12 --seed 1 --log "$out/trials.jsonl" \
        --best-config "$out/best.yaml" --quiet 2> "$out/tune.txt"
grep '^best' "$out/tune.txt"
timed "the tuned N-HiTS, cross-validated" \
    "$fcast" cv --config "$out/best.yaml" --data $data --n-windows 3 --step-size 12 --quiet --out "$out/cvtuned.csv"

# The ensemble's cross-validated forecast is the median of its members'
# (what fcast ensemble's model file predicts at each cutoff): N-HiTS and
# N-BEATS at input 2h and 3h.
paste -d, "$out/cv24.csv" "$out/cv36.csv" | awk -F, -v OFS=, '
  function med(a, b, c, d,   t) {   # median of four: mean of the middle two
    if (a > b) { t = a; a = b; b = t } if (c > d) { t = c; c = d; d = t }
    return ((a > c ? a : c) + (b < d ? b : d)) / 2 }
  NR == 1 { print "unique_id", "ds", "cutoff", "NHITS", "NBEATS", "Ensemble", "y"; next }
  { print $1, $2, $3, $4, $5, med($4, $5, $10, $11), $6 }' > "$out/cv.csv"
# the MQ model's columns beside them (same rows, same order)
cut -d, -f4-8 "$out/cvmq.csv" | sed '1s/NHITS/NHITS_MQ/g' > "$out/mq.cols"
cut -d, -f4 "$out/cvtuned.csv" | sed '1s/NHITS/NHITS_tuned/' > "$out/tuned.cols"
paste -d, "$out/cv.csv" "$out/tuned.cols" "$out/mq.cols" > "$out/cv_all.csv"

echo "== accuracy (fcast eval; sMAPE on M4's 0-200 scale)"
"$fcast" eval --cv "$out/cv_all.csv" --train $data --season 12 | sed -n '/^overall/,/^$/p'
echo "cross-validation file: $out/cv_all.csv"

# Exogenous inputs where they should help: half-hourly electricity demand
# (data/taylor_halfhourly.csv, 12 weeks) forecast a day ahead from the last
# two days. Two days cannot show the weekly cycle (weekends are lower);
# calendar columns known in the future (time of day and of week, a weekend
# flag: scripts/calendar-features.py) can. 14 daily origins over the last
# two weeks, one training each model.
taylor=data/taylor_halfhourly.csv
python3 scripts/calendar-features.py $taylor "$out/taylor_calendar.csv"
daily=(--h 48 --input-size 96 --max-steps "$steps" --scaler robust --n-windows 14 --step-size 48
       --mlp-units 256,256 --quiet)
timed "N-HiTS on demand, y only" \
    "$fcast" cv --data "$out/taylor_calendar.csv" --model nhits "${daily[@]}" --out "$out/taylor_plain.csv" 2> /dev/null
timed "N-HiTS on demand with calendar inputs (--futr-exog)" \
    "$fcast" cv --data "$out/taylor_calendar.csv" --model nhits "${daily[@]}" \
        --futr-exog day_sin,day_cos,week_sin,week_cos,weekend --out "$out/taylor_exog.csv"
cut -d, -f4 "$out/taylor_exog.csv" | sed '1s/NHITS/NHITS_calendar/' > "$out/taylor_exog.cols"
paste -d, "$out/taylor_plain.csv" "$out/taylor_exog.cols" | awk -F, -v OFS=, '{ print $1, $2, $3, $4, $6, $5 }' \
    > "$out/taylor_cv.csv"
echo "== demand a day ahead, with and without calendar inputs (SeasonalNaive: one week back)"
"$fcast" eval --cv "$out/taylor_cv.csv" --train "$out/taylor_calendar.csv" --season 336 | sed -n '/^overall/,/^$/p'
