#!/usr/bin/env bash
# Prediction intervals through the CLI: conformal intervals fitted at
# train time (--prediction-intervals conformal) and written by predict
# --level with neuralforecast's columns; their widths recomputed from an
# independent fcast cv run (the same cross-validation) with numpy's
# quantile rule in awk; quantile-loss models' own columns side by side;
# clear errors. $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
data=data/monthly_classics.csv
small=(--model nhits --h 12 --input-size 24 --mlp-units 16,16,16 --max-steps 20 --windows-batch-size 64
       --scaler standard --threads 1 --quiet)

"$fcast" train --data $data "${small[@]}" --prediction-intervals conformal --pi-method conformal_error \
    --pi-windows 3 --pi-step-size 2 --out "$tmp/err.safetensors" 2>/dev/null
"$fcast" train --data $data "${small[@]}" --prediction-intervals conformal --pi-windows 3 \
    --out "$tmp/dist.safetensors" 2>/dev/null
"$fcast" train --data $data "${small[@]}" --out "$tmp/plain.safetensors" 2>/dev/null
check "a conformal model is written" "[ -s $tmp/err.safetensors ] && [ -s $tmp/dist.safetensors ]"
"$fcast" predict --model "$tmp/plain.safetensors" --data $data --out "$tmp/plain.csv" 2>/dev/null
"$fcast" predict --model "$tmp/dist.safetensors" --data $data --out "$tmp/dist_point.csv" 2>/dev/null
check "the intervals do not change the point forecast (same training)" "cmp -s $tmp/plain.csv $tmp/dist_point.csv"

"$fcast" predict --model "$tmp/dist.safetensors" --data $data --level 80,95 --out "$tmp/dist.csv" 2>/dev/null
check "columns as neuralforecast's" \
      "[ \"\$(head -1 $tmp/dist.csv)\" = 'unique_id,ds,NHITS,NHITS-lo-95,NHITS-lo-80,NHITS-hi-80,NHITS-hi-95' ]"
"$fcast" predict --model "$tmp/dist.safetensors" --data $data --level 95,80 --out "$tmp/dist_rev.csv" 2>/dev/null
check "levels are sorted as neuralforecast sorts them: --level 95,80 is --level 80,95" \
      "cmp -s $tmp/dist.csv $tmp/dist_rev.csv"
"$fcast" predict --model "$tmp/dist.safetensors" --data $data --level 80.5 --out "$tmp/half.csv" 2>/dev/null
check "a fractional level is named as Python writes it" \
      "[ \"\$(head -1 $tmp/half.csv)\" = 'unique_id,ds,NHITS,NHITS-lo-80.5,NHITS-hi-80.5' ]"
check "lo-95 <= lo-80 <= point <= hi-80 <= hi-95 on every row" \
      "awk -F, 'NR > 1 && !(\$4 <= \$5 && \$5 <= \$3 && \$3 <= \$6 && \$6 <= \$7) { bad = 1 } END { exit bad }' $tmp/dist.csv"
check "intervals have width" "awk -F, 'NR > 1 && \$7 > \$4 { ok = 1 } END { exit !ok }' $tmp/dist.csv"

# conformal_error, level 50: hi - point is np.quantile(|e|, 0.75) over the
# 3 windows' errors of the same series and step, from fcast cv's run of
# the same cross-validation (n-windows 3, step-size 2, no refit).
"$fcast" cv --data $data "${small[@]}" --n-windows 3 --step-size 2 --out "$tmp/cv.csv" 2>/dev/null
"$fcast" predict --model "$tmp/err.safetensors" --data $data --level 50 --out "$tmp/err.csv" 2>/dev/null
awk -F, 'NR == FNR { if (FNR > 1) { t = cnt[$1, $3]++; e = $4 - $5; if (e < 0) e = -e; E[$1, t, ++w[$1, t]] = e }; next }
         FNR == 1 { next }
         { t = seen[$1]++; a = E[$1, t, 1]; b = E[$1, t, 2]; c = E[$1, t, 3]
           if (a > b) { x = a; a = b; b = x } if (b > c) { x = b; b = c; c = x } if (a > b) { x = a; a = b; b = x }
           want = b + 0.5 * (c - b); got = $5 - $3; d = got - want; if (d < 0) d = -d
           if (d > 1e-3 + 1e-5 * want) { bad++; if (bad < 4) print "series " $1 " step " t ": " got " vs " want > "/dev/stderr" } }
         END { exit bad > 0 }' "$tmp/cv.csv" "$tmp/err.csv"
check "conformal_error widths = quantile 0.75 of fcast cv's absolute errors" "[ $? -eq 0 ]"
check "conformal_error intervals are symmetric" \
      "awk -F, 'NR > 1 { d = (\$5 - \$3) - (\$3 - \$4); m = \$3 < 0 ? -\$3 : \$3; if (d > 1e-3 + 1e-6 * m || d < -1e-3 - 1e-6 * m) bad = 1 } END { exit bad }' $tmp/err.csv"

# A multi-quantile model beside a conformal one.
"$fcast" train --data $data "${small[@]}" --loss mq --level 80,90 --out "$tmp/mq.safetensors" 2>/dev/null
"$fcast" predict --model "$tmp/dist.safetensors,$tmp/mq.safetensors,$tmp/plain.safetensors" --data $data \
    --out "$tmp/three.csv" 2>/dev/null
check "several models side by side, quantile columns in MQLoss order" \
      "[ \"\$(head -1 $tmp/three.csv)\" = 'unique_id,ds,NHITS,NHITS1-median,NHITS1-lo-90,NHITS1-lo-80,NHITS1-hi-80,NHITS1-hi-90,NHITS2' ]"
check "each model's column equals its own prediction" \
      "[ \"\$(cut -d, -f1-3 $tmp/three.csv | tail -n +2)\" = \"\$(tail -n +2 $tmp/plain.csv)\" ]"

expect_error() {   # expect_error NAME PATTERN ARGS...
    local name=$1 pattern=$2; shift 2
    "$fcast" "$@" > /dev/null 2> "$tmp/msg"
    local rc=$?
    check "$name: refused" "[ $rc -ne 0 ] && [ $rc -lt 128 ]"
    check "$name: says why" "grep -q -- '$pattern' $tmp/msg"
}
expect_error "--level on a model without intervals" "without --prediction-intervals" \
    predict --model "$tmp/plain.safetensors" --data $data --level 80 --out "$tmp/x.csv"
expect_error "--level out of range" "between 0 and 100" \
    predict --model "$tmp/dist.safetensors" --data $data --level 100 --out "$tmp/x.csv"
awk -F, 'NR == 1 || $1 != "gas"' $data | sed 's/^nottem,/elsewhere,/' > "$tmp/other.csv"
expect_error "a series the scores do not know" "elsewhere. was not in" \
    predict --model "$tmp/dist.safetensors" --data "$tmp/other.csv" --level 80 --out "$tmp/x.csv"
expect_error "one window" "2 to 4096 windows" \
    train --data $data "${small[@]}" --prediction-intervals conformal --pi-windows 1 --out "$tmp/x.safetensors"
expect_error "conformal with a quantile loss" "is for point losses" \
    train --data $data "${small[@]}" --loss mq --prediction-intervals conformal --out "$tmp/x.safetensors"
expect_error "an unknown method" "conformal_distribution or conformal_error" \
    train --data $data "${small[@]}" --prediction-intervals conformal --pi-method split --out "$tmp/x.safetensors"
check "nothing written on errors" "[ ! -e $tmp/x.csv ] && [ ! -e $tmp/x.safetensors ]"
finish
