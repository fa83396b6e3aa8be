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
