#!/usr/bin/env bash
# fcast train --loss: every loss of neuralforecast's losses.pytorch trains a
# few steps on bundled data, with validation on the original scale; the model
# file records the loss and its parameters ("loss", "loss_params") and
# predict reads it back; bad loss flags are clear errors. $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh

data=data/monthly_classics.csv
small=(--model mlp --h 6 --input-size 12 --hidden-size 16 --num-layers 1 --max-steps 3 --windows-batch-size 16
       --val-size 6 --val-check-steps 3 --scaler standard --threads 1 --quiet)

# meta FILE: the model file's safetensors header (the metadata holds the loss).
meta() { head -c "$(( $(od -An -tu8 -N8 "$1") + 8 ))" "$1" | tail -c +9; }

# train_ok NAME LOSS-FLAGS... : trains, and the run's loss is finite.
train_ok() {
    local name=$1; shift
    "$fcast" train --data "$data" "${small[@]}" "$@" --out "$tmp/$name.safetensors" > "$tmp/$name.out" 2>&1
    check "$name trains" "[ $? -eq 0 ] && [ -s $tmp/$name.safetensors ]"
    check "$name: finite validation loss" "grep -q 'best validation loss [0-9]' $tmp/$name.out"
}

train_ok mae --loss mae
train_ok mse --loss mse
train_ok huber --loss huber --huber-delta 0.5
train_ok smape --loss smape
train_ok mape --loss mape
train_ok mase --loss mase --season 4
train_ok quantile --loss quantile --quantile 0.9
train_ok mq --loss mq
train_ok mqq --loss mq --quantiles 0.1,0.5,0.9
train_ok hmq --loss huber-mq --level 80 --huber-delta 0.5
train_ok hmqq --loss huber-mq --quantiles 0.1,0.5,0.9
train_ok normal --loss normal
train_ok studentt --loss studentt --level 95
train_ok poisson --loss poisson --num-samples 300
train_ok nbinom --loss negative-binomial --quantiles 0.9,0.1,0.5
train_ok iq --loss iq --cos-embedding-dim 8 --concentration0 2

# recorded FILE TEXT: TEXT is in the header with JSON's backslashes dropped.
# (the header is read into a variable first: under pipefail, grep -q closing
# the pipe early would fail the producer with SIGPIPE, now and then)
recorded() { local m; m=$(meta "$1" | tr -d '\\') && grep -qF -- "$2" <<<"$m"; }
check "mae: loss and empty parameters recorded" "recorded $tmp/mae.safetensors '\"loss\":\"mae\",\"loss_params\":\"{}\"'"
check "huber: delta recorded" "recorded $tmp/huber.safetensors '\"loss\":\"huber\",\"loss_params\":\"{\"delta\":0.5}\"'"
check "mase: seasonality recorded" "recorded $tmp/mase.safetensors '\"loss_params\":\"{\"seasonality\":4}\"'"
check "quantile: q recorded" "recorded $tmp/quantile.safetensors '\"loss_params\":\"{\"q\":0.9}\"'"
check "mq: default level 80, 90 recorded" "recorded $tmp/mq.safetensors '\"loss_params\":\"{\"level\":[80,90]}\"'"
check "mq: quantiles recorded" "recorded $tmp/mqq.safetensors '\"loss_params\":\"{\"quantiles\":[0.1,0.5,0.9]}\"'"
check "huber-mq: delta and level recorded" "recorded $tmp/hmq.safetensors '\"loss\":\"huber-mq\",\"loss_params\":\"{\"delta\":0.5,\"level\":[80]}\"'"
check "huber-mq: default delta 1 with the quantiles" "recorded $tmp/hmqq.safetensors '\"loss_params\":\"{\"delta\":1,\"quantiles\":[0.1,0.5,0.9]}\"'"
"$fcast" predict --model "$tmp/hmq.safetensors" --data "$data" --out "$tmp/hmq.csv" 2> "$tmp/err.txt"
check "huber-mq: predict gives MQLoss's columns" "head -1 $tmp/hmq.csv | grep -q 'MLP-median,MLP-lo-80,MLP-hi-80'"
check "huber: the flag is in the run configuration" "m=\$(meta $tmp/huber.safetensors) && grep -qF 'huber-delta' <<<\"\$m\""

# DistributionLoss: the parameters recorded; predict's columns are the
# sample mean, then the quantiles as neuralforecast names them; the
# quantile columns ordered on every row; a count distribution's columns are
# >= 0 (torch.quantile interpolates between its whole-number draws, so they
# need not be whole); the same model and data give the same draws.
check "normal: default level and draws recorded" "recorded $tmp/normal.safetensors '\"loss\":\"normal\",\"loss_params\":\"{\"level\":[80,90],\"num_samples\":1000}\"'"
check "poisson: num_samples recorded" "recorded $tmp/poisson.safetensors '\"num_samples\":300}'"
check "negative-binomial: quantiles recorded" "recorded $tmp/nbinom.safetensors '\"quantiles\":[0.1,0.5,0.9],\"num_samples\":1000'"
for d in normal studentt poisson nbinom; do
  "$fcast" predict --model "$tmp/$d.safetensors" --data "$data" --out "$tmp/$d.csv" 2> "$tmp/err.txt"
  check "$d: predicts" "[ $? -eq 0 ] && [ \$(wc -l < $tmp/$d.csv) -eq 25 ]"
done
check "normal: columns MLP, MLP-median, MLP-lo-90 ... MLP-hi-90" "head -1 $tmp/normal.csv | grep -qx 'unique_id,ds,MLP,MLP-median,MLP-lo-90,MLP-lo-80,MLP-hi-80,MLP-hi-90'"
check "studentt: level 95's columns" "head -1 $tmp/studentt.csv | grep -qx 'unique_id,ds,MLP,MLP-median,MLP-lo-95,MLP-hi-95'"
check "negative-binomial: quantiles' columns, sorted as DistributionLoss sorts them" "head -1 $tmp/nbinom.csv | grep -qx 'unique_id,ds,MLP,MLP-lo-80.0,MLP-median,MLP-hi-80.0'"
check "normal: lo-90 <= lo-80 <= median <= hi-80 <= hi-90 on every row" "awk -F, 'NR > 1 && !(\$5 <= \$6 && \$6 <= \$4 && \$4 <= \$7 && \$7 <= \$8) { bad = 1 } END { exit bad }' $tmp/normal.csv"
check "poisson: every column >= 0" "awk -F, 'NR > 1 { for (i = 3; i <= NF; i++) if (\$i < 0) bad = 1 } END { exit bad }' $tmp/poisson.csv"
"$fcast" predict --model "$tmp/normal.safetensors" --data "$data" --out "$tmp/normal2.csv" 2> /dev/null
check "normal: the same forecast twice" "cmp -s $tmp/normal.csv $tmp/normal2.csv"
# predict --level draws at the levels' quantiles, as neuralforecast's predict(level=...): the mean, then the
# bounds (no median); the draws are the same, so the 80 % bounds equal the trained forecast's
"$fcast" predict --model "$tmp/normal.safetensors" --data "$data" --level 95,80 --out "$tmp/x.csv" > "$tmp/err.txt" 2>&1
check "normal: predict --level 95,80 gives MLP, MLP-lo-95, MLP-lo-80, MLP-hi-80, MLP-hi-95" \
      "head -1 $tmp/x.csv | grep -qx 'unique_id,ds,MLP,MLP-lo-95,MLP-lo-80,MLP-hi-80,MLP-hi-95'"
check "normal: its 80 % bounds and mean are the trained forecast's" \
      "cmp -s <(cut -d, -f1-3,5,6 $tmp/x.csv | tail -n +2) <(cut -d, -f1-3,6,7 $tmp/normal.csv | tail -n +2)"
check "normal: the 95 % bounds outside the 80 % ones on every row" \
      "awk -F, 'NR > 1 && !(\$4 <= \$5 && \$6 <= \$7) { bad = 1 } END { exit bad }' $tmp/x.csv"

# IQLoss: its head's parameters recorded; the median forecast NHITS_ql0.5,
# and with --level the bounds alone (np.quantile over 11 quantiles), ordered
check "iq: its parameters recorded" "recorded $tmp/iq.safetensors '\"loss\":\"iq\",\"loss_params\":\"{\"cos_embedding_dim\":8,\"concentration0\":2,\"concentration1\":1}\"'"
"$fcast" predict --model "$tmp/iq.safetensors" --data "$data" --out "$tmp/iq.csv" 2> /dev/null
check "iq: predict gives MLP_ql0.5" "head -1 $tmp/iq.csv | grep -qx 'unique_id,ds,MLP_ql0.5'"
"$fcast" predict --model "$tmp/iq.safetensors" --data "$data" --level 90,50 --out "$tmp/iql.csv" 2> /dev/null
check "iq: predict --level 90,50 gives the bounds alone" \
      "head -1 $tmp/iql.csv | grep -qx 'unique_id,ds,MLP-lo-90,MLP-lo-50,MLP-hi-50,MLP-hi-90'"
check "iq: the bounds ordered on every row" \
      "awk -F, 'NR > 1 && !(\$3 <= \$4 && \$4 <= \$5 && \$5 <= \$6) { bad = 1 } END { exit bad }' $tmp/iql.csv"

# --valid-loss (neuralforecast's valid_loss): validation scores that point
# loss: one check at the last step on a model trained with MAE reports the
# MSE that eval --forecasts computes from the same forecasts (the
# validation windows are the last --val-size points after the rest)
scripts/split-tail.sh "$data" 6 "$tmp/vtr.csv" "$tmp/vte.csv"
vflags=(--data "$data" --model mlp --h 6 --input-size 12 --hidden-size 16 --num-layers 1 --max-steps 8 --val-size 6
        --val-check-steps 8 --scaler standard --threads 1)
"$fcast" train "${vflags[@]}" --valid-loss mse --out "$tmp/vmse.safetensors" > "$tmp/vmse.out" 2>&1
"$fcast" predict --model "$tmp/vmse.safetensors" --data "$tmp/vtr.csv" --out "$tmp/vmse.csv" 2> /dev/null
"$fcast" eval --forecasts "$tmp/vmse.csv" --train "$tmp/vtr.csv" --test "$tmp/vte.csv" > "$tmp/vmse.eval" 2>&1
v=$(grep -o 'best validation loss [0-9.e+-]*' "$tmp/vmse.out" | awk '{print $4}')
e=$(awk '$1 == "MSE" { print $2; exit }' "$tmp/vmse.eval")
check "--valid-loss mse: the validation loss ($v) is the forecasts' MSE ($e)" \
      "awk -v a='$v' -v b='$e' 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 1e-6 * a) }'"
"$fcast" train "${vflags[@]}" --loss normal --valid-loss mae --out "$tmp/vn.safetensors" > "$tmp/vn.out" 2>&1
check "--loss normal --valid-loss mae: validated on the distribution's mean" "grep -q 'best validation loss [0-9]' $tmp/vn.out"

"$fcast" train --data "$data" "${small[@]}" --loss huber --huber-delta 0.5 --out "$tmp/huber2.safetensors" 2>/dev/null
check "same flags give the same model file" "cmp -s $tmp/huber.safetensors $tmp/huber2.safetensors"
check "another loss gives another model" "! cmp -s $tmp/huber.safetensors $tmp/mae.safetensors"

"$fcast" predict --model "$tmp/mase.safetensors" --data "$data" --out "$tmp/fc.csv" 2> "$tmp/err.txt"
check "predict reads a model with loss parameters" "[ $? -eq 0 ] && [ -s $tmp/fc.csv ]"

# bad FLAGS... CODE TEXT: refused with exit CODE and a message holding TEXT, no model written.
bad() {
    local code=$1 text=$2; shift 2
    rm -f "$tmp/x.safetensors"
    "$fcast" train --data "$data" "${small[@]}" "$@" --out "$tmp/x.safetensors" > "$tmp/err.txt" 2>&1
    local rc=$?
    check "[$*] exits $code" "[ $rc -eq $code ]"
    check "[$*] says '$text'" "grep -qF -- \"$text\" $tmp/err.txt"
    check "[$*] writes no model" "[ ! -e $tmp/x.safetensors ]"
}
bad 2 "--loss 'pinball' is not one of" --loss pinball
bad 4 "a model of several quantiles is validated with its own loss" --loss mq --valid-loss mae
bad 4 "neuralforecast requires IQLoss as its valid_loss" --loss iq --valid-loss mae
bad 4 "--valid-loss 'quantile': expected a point loss without parameters" --valid-loss quantile
bad 4 "--num-samples is a parameter of --loss normal, studentt, poisson or negative-binomial, not of --loss mq" --loss mq --num-samples 10
bad 4 "--num-samples '0' is not an integer from 1 to 100000" --loss normal --num-samples 0
bad 4 "--prediction-intervals conformal is for point losses" --loss normal --prediction-intervals conformal
bad 4 "--cos-embedding-dim is a parameter of --loss iq, not of --loss mae" --cos-embedding-dim 8
bad 4 "--concentration1 '0' is not a positive number" --loss iq --concentration1 0
bad 4 "--huber-delta is a parameter of --loss huber or huber-mq, not of --loss mae" --huber-delta 2
bad 4 "--huber-delta '-1' is not a positive number" --loss huber-mq --huber-delta -1
bad 4 "--huber-delta '0' is not a positive number" --loss huber --huber-delta 0
bad 4 "--quantile '1.5' is not a number strictly between 0 and 1" --loss quantile --quantile 1.5
bad 4 "--season 12 must be at least 1 and below --input-size 12" --loss mase --season 12
bad 4 "--season is a parameter of --loss mase" --loss mse --season 2
bad 4 "--level is a parameter of --loss mq, huber-mq or a distribution, not of --loss quantile" --loss quantile --level 80
bad 4 "--quantiles is a parameter of --loss mq" --quantiles 0.1,0.9
bad 4 "level 80 given twice" --loss mq --level 80,80
bad 4 "level 100 is not an integer from 1 to 99" --loss mq --level 100
bad 4 "'80.5' is not an integer" --loss mq --level 80.5
bad 4 "quantile 0.1 given twice" --loss mq --quantiles 0.1,0.1
bad 4 "quantile 0 is not strictly between 0 and 1" --loss mq --quantiles 0,0.5
bad 4 "--level and --quantiles both given" --loss mq --level 80 --quantiles 0.5
bad 4 "--level and --quantiles both given: huber-mq" --loss huber-mq --level 80 --quantiles 0.5
bad 4 "more than 15 values" --loss mq --quantiles 0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.65,0.7,0.75,0.8,0.85
"$fcast" train --help > "$tmp/help.txt"
check "train --help documents the loss flags" "grep -q -- '--huber-delta' $tmp/help.txt && grep -q -- '--quantiles' $tmp/help.txt && grep -q 'smape' $tmp/help.txt"
finish
