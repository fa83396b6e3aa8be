#!/usr/bin/env bash
# The device data path (docs/gpu.md "Data"): training windows gathered and
# scaled by the backend from its copy of the data give the model the host
# path gives, to the byte. The CPU backend has the path too, so it is
# checked here; FCAST_TEST_HOST_BATCHES=1 forces the host path. N-HiTS with
# every scaler on data with missing points, with validation and with
# gradient accumulation; streamed data keeps the host path (and the same
# model); the memory plan names the device copy only when the path is on.
# $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh

scripts/split-tail.sh data/monthly_classics.csv 12 "$tmp/train.csv" "$tmp/test.csv"
# every 7th value missing: masked points inside the windows
awk -F, 'NR > 1 && NR % 7 == 0 { $3 = "" } 1' OFS=, "$tmp/train.csv" > "$tmp/gaps.csv"
# MSE, not the default MAE: MAE's gradient is the sign of the error, so a
# target off in its last bit would rarely reach the weights and the file.
base=(--data "$tmp/gaps.csv" --model nhits --h 12 --input-size 24 --mlp-units 32,32,32 --max-steps 40
      --windows-batch-size 128 --loss mse --threads 2 --quiet)

# both NAME FLAGS...: trains once on each path and says whether the model files are the same
both() {
    local name=$1; shift
    "$fcast" train "${base[@]}" "$@" --out "$tmp/$name.device.safetensors" 2> "$tmp/$name.device.err"
    local a=$?
    FCAST_TEST_HOST_BATCHES=1 "$fcast" train "${base[@]}" "$@" --out "$tmp/$name.host.safetensors" \
        2> "$tmp/$name.host.err"
    local b=$?
    [ $a -eq 0 ] && [ $b -eq 0 ] && [ -s "$tmp/$name.host.safetensors" ] &&
        cmp -s "$tmp/$name.device.safetensors" "$tmp/$name.host.safetensors"
}

for s in identity standard robust minmax; do
    check "--scaler $s: the device path trains the host path's model, byte for byte" "both $s --scaler $s"
done
check "with --val-size: the same model on both paths" "both val --scaler robust --val-size 12 --val-check-steps 10"
check "with --grad-accum 2: the same model on both paths" "both accum --scaler standard --grad-accum 2"
check "another seed gives another model (the comparison can fail)" \
      "both seed --scaler standard --seed 2 && ! cmp -s $tmp/seed.device.safetensors $tmp/standard.device.safetensors"

# Streamed data keeps the host path: it trains, to the same model.
"$fcast" train "${base[@]}" --scaler standard --data-store stream --out "$tmp/stream.safetensors" 2> "$tmp/stream.err"
check "--data-store stream trains (host path)" "[ \$? -eq 0 ] && [ -s $tmp/stream.safetensors ]"
check "streamed data gives the in-memory model" "cmp -s $tmp/stream.safetensors $tmp/standard.device.safetensors"

# The plan: the device copy is an arena item when the path is on, and the
# training batch then keeps no host staging.
staging='^  batch staging (host)' on_device='^  training data on the device'
"$fcast" plan "${base[@]}" --scaler robust > "$tmp/plan.txt" 2>/dev/null
check "plan names the training data on the device" \
      "grep -q '^  training data on the device .*per window' $tmp/plan.txt"
check "plan has no host staging on the device path" "! grep -q '^  batch staging (host)' $tmp/plan.txt"
FCAST_TEST_HOST_BATCHES=1 "$fcast" plan "${base[@]}" > "$tmp/plan_host.txt" 2>/dev/null
check "forced host path: staging, no device copy" \
      "grep -q \"\$staging\" $tmp/plan_host.txt && ! grep -q \"\$on_device\" $tmp/plan_host.txt"
"$fcast" plan "${base[@]}" --data-store stream > "$tmp/plan_stream.txt" 2>/dev/null
check "streamed data: host staging, no device copy" \
      "grep -q \"\$staging\" $tmp/plan_stream.txt && ! grep -q \"\$on_device\" $tmp/plan_stream.txt"
# --memory-limit covers the device copy: the run's arena holds it
"$fcast" train "${base[@]}" --scaler robust --memory-limit 200MiB --out "$tmp/limited.safetensors" \
    2> "$tmp/limited.err"
check "a run within --memory-limit on the device path completes" \
      "[ \$? -eq 0 ] && cmp -s $tmp/limited.safetensors $tmp/robust.device.safetensors"
finish
