#!/usr/bin/env bash
# PatchTST through the CLI (issue 14): train with dropout, validation and
# early stopping, predict and cv; the model file carries BatchNorm's
# running statistics under torch's names; a run is reproducible and a run
# stopped mid-way and resumed writes the same file byte for byte (the
# running statistics are state: checkpointed, and kept with the best
# weights); neuralforecast's training defaults (lr 1e-4, 5000 steps) apply
# when the flags are not given; bad architecture flags and exogenous inputs
# (PatchTST takes none) are refused by name. $1 is the fcast binary.
set -uo pipefail
fcast=$1
# fcast with a test hook: FCAST_TEST_INTERRUPT_AT=N[:validation] stops a run after step N (tests/interrupt_at.c)
interrupting=$(dirname "$fcast")/fcast_interrupt_at
source tests/lib_cli.sh

data=data/monthly_classics.csv
arch=(--data "$data" --model patchtst --h 12 --input-size 24 --hidden-size 16 --linear-hidden-size 32
      --encoder-layers 2 --patch-len 8 --stride 4 --windows-batch-size 64 --threads 2)
small=("${arch[@]}" --n-heads 4 --max-steps 30 --quiet)
run=("${small[@]}" --val-size 12 --val-check-steps 10 --seed 3)

# header FILE: the safetensors header's JSON (an 8-byte length, then the header).
header() {
  local len
  len=$(od -An -tu8 -N8 "$1" | tr -d ' ')
  head -c $((8 + len)) "$1" | tail -c "$len"
}

timeout 120 "$fcast" train "${run[@]}" --out "$tmp/a.safetensors" 2>"$tmp/err.txt"
check "PatchTST trains with dropout 0.2 and validation" "[ $? -eq 0 ] && [ -s $tmp/a.safetensors ]"
check "its file holds BatchNorm's running statistics under torch's names" \
    "h=\$(header $tmp/a.safetensors) && grep -q 'model.backbone.encoder.layers.1.norm_ffn.1.running_var' <<<\"\$h\" && \
     grep -q 'norm_attn.1.num_batches_tracked' <<<\"\$h\""
timeout 120 "$fcast" train "${run[@]}" --out "$tmp/b.safetensors" 2>/dev/null
check "the same seed gives the same file, dropout masks and all" "cmp -s $tmp/a.safetensors $tmp/b.safetensors"

timeout 60 "$fcast" predict --model "$tmp/a.safetensors" --data "$data" --out "$tmp/fc.csv" 2>/dev/null
check "predict writes 4 series x 12 steps" "[ $? -eq 0 ] && [ \$(wc -l < $tmp/fc.csv) -eq 49 ] && head -1 $tmp/fc.csv | grep -q ',PatchTST$'"
check "the forecasts are finite" "! grep -qi 'nan\|inf' $tmp/fc.csv"

# Stopped mid-way (after a validation check: best weights with their statistics) and resumed.
FCAST_TEST_INTERRUPT_AT=15 timeout 120 "$interrupting" train "${run[@]}" --out "$tmp/p.safetensors" 2>/dev/null
check "a stopped run exits 130 with a checkpoint" "[ $? -eq 130 ] && [ -s $tmp/p.ckpt.safetensors ]"
timeout 120 "$fcast" train "${run[@]}" --out "$tmp/p.safetensors" --resume "$tmp/p.ckpt.safetensors" 2>/dev/null
check "the resumed run writes the uninterrupted run's file byte for byte" "[ $? -eq 0 ] && cmp -s $tmp/a.safetensors $tmp/p.safetensors"

timeout 180 "$fcast" cv "${small[@]}" --n-windows 2 --step-size 12 --out "$tmp/cv.csv" 2>/dev/null
check "cv runs PatchTST (2 windows x 4 series x 12 steps)" "[ $? -eq 0 ] && [ \$(wc -l < $tmp/cv.csv) -eq 97 ]"

# neuralforecast's training defaults for PatchTST (the progress line shows the learning rate)
timeout 60 "$fcast" train "${arch[@]}" --max-steps 1 --out "$tmp/d.safetensors" 2>"$tmp/err.txt"
check "the learning rate defaults to PatchTST's 1e-4" "grep -q 'lr 1.00e-04' $tmp/err.txt"
"$fcast" train --data "$data" --model patchtst --h 12 --input-size 24 --print-config > "$tmp/cfg.yaml" 2>/dev/null
check "--print-config leaves lr and max-steps to the model" "grep -q '^# lr: (not set' $tmp/cfg.yaml && grep -q '^# max-steps: (not set' $tmp/cfg.yaml"

# refusals, by name
"$fcast" train "${arch[@]}" --n-heads 5 --quiet --out "$tmp/x.safetensors" 2>"$tmp/err.txt"
check "heads that do not divide the width are refused" "[ $? -ne 0 ] && grep -q 'n_heads (5) must divide hidden_size (16)' $tmp/err.txt"
"$fcast" train "${small[@]}" --activation tanh --out "$tmp/x.safetensors" 2>"$tmp/err.txt"
check "an unknown activation is refused" "[ $? -ne 0 ] && grep -q -- \"--activation 'tanh': expected gelu or relu\" $tmp/err.txt"
"$fcast" train "${small[@]}" --attn-dropout 1 --out "$tmp/x.safetensors" 2>"$tmp/err.txt"
check "a dropout probability of 1 is refused" "[ $? -ne 0 ] && grep -q -- '--attn-dropout' $tmp/err.txt"
"$fcast" train "${small[@]}" --revin maybe --out "$tmp/x.safetensors" 2>"$tmp/err.txt"
check "on|off flags take on or off" "[ $? -ne 0 ] && grep -q -- \"--revin 'maybe': expected on or off\" $tmp/err.txt"
"$fcast" train "${small[@]}" --lr nan --out "$tmp/x.safetensors" 2>"$tmp/err.txt"
check "--lr nan is refused (not read as 'not given')" "[ $? -ne 0 ] && grep -q 'a finite number' $tmp/err.txt"
d=tests/fixtures/exog
"$fcast" train --data "$d/history.csv" --model patchtst --h 6 --input-size 12 --futr-exog trend_f --quiet \
    --out "$tmp/x.safetensors" 2>"$tmp/err.txt"
check "PatchTST refuses exogenous inputs, naming itself" "[ $? -ne 0 ] && grep -q 'PatchTST' $tmp/err.txt"
check "no model file is left by a refused run" "[ ! -e $tmp/x.safetensors ]"
finish
