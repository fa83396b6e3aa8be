#!/usr/bin/env bash
# The GPU checks (ctest -L gpu, `make test-gpu`): on a machine with an NVIDIA
# GPU and the CUDA backend built, training on cuda:0 against the CPU on the
# bundled data, determinism on the GPU, the memory plan against the device
# memory measured by NVML, and the quant commands' parity. Elsewhere it
# prints why it cannot run and exits 77, which ctest reports as skipped.
# With FCAST_GPU_STANDIN=1 and FCAST_CUDA_BACKEND at the stand-in library
# (tests/standin_cuda_backend.c: the CPU's operations behind the CUDA entry
# point, cuBLASLt's 16-bit alignment enforced), make test runs it on every
# machine, smaller and shorter, with the checks that need a real device
# skipped and said so: its commands, flags and files cannot rot between GPU
# runs. $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh

scripts/split-tail.sh data/monthly_classics.csv 12 "$tmp/train.csv" "$tmp/test.csv"
base=(--data "$tmp/train.csv" --model nhits --h 12 --input-size 24 --scaler standard --seed 7 --quiet)
run=("${base[@]}" --max-steps 200)
standin=${FCAST_GPU_STANDIN:-}
if [ -n "$standin" ]; then   # the CPU runs every "GPU" training: small and short, the same flags otherwise
    base+=(--mlp-units 32,32,32 --threads 1)
    run=("${base[@]}" --max-steps 30)
    echo "stand-in: ${FCAST_CUDA_BACKEND:-?} (the CPU's operations; device-only checks skipped)"
fi
# device_only NAME: 0 (skip, said) under the stand-in
device_only() { [ -z "$standin" ] && return 1; echo "skipped under the stand-in: $1"; }
# (the probe takes base: a flag given twice is refused, and with run's
# --max-steps the probe failed on every GPU as "no usable GPU")
"$fcast" train "${base[@]}" --max-steps 1 --device cuda --out "$tmp/probe.safetensors" 2> "$tmp/probe.err"
probe=$?
# Only the backend's refusal (exit 8) means "no usable GPU": any other
# failure is this script's own (a flag refused, data not found), and
# skipping on it let the script rot unseen (its probe once gave
# --max-steps twice, and every GPU "had none").
if [ $probe -ne 0 ] && [ $probe -ne 8 ]; then
    echo "FAIL: the GPU probe itself failed (exit $probe): $(tail -1 "$tmp/probe.err")"
    exit 1
fi
if [ $probe -ne 0 ]; then
    echo "skipped: no usable GPU: $(tail -1 "$tmp/probe.err")"
    [ -n "${FCAST_REQUIRE_GPU:-}" ] && exit 1   # make test-gpu: a GPU was promised
    exit 77
fi

# training parity: the same seed on CPU and GPU. The products sum in another
# order (cuBLASLt vs oneDNN), so the runs drift apart by rounding: the
# forecasts' accuracy must agree, not their bits.
"$fcast" train "${run[@]}" --device cpu --out "$tmp/cpu.safetensors" --log-file "$tmp/cpu.jsonl"
"$fcast" train "${run[@]}" --device cuda --out "$tmp/gpu.safetensors" --log-file "$tmp/gpu.jsonl"
check "GPU training completes" "[ -s $tmp/gpu.safetensors ]"
# final_loss FILE: the last step's training loss of a run log
final_loss() { grep '"event":"step"' "$1" | tail -1 | grep -o '"train_loss":[-0-9.e+]*' | cut -d: -f2; }
check "loss curves alike: final training losses within 10%" \
      "awk -v a=$(final_loss "$tmp/cpu.jsonl") -v b=$(final_loss "$tmp/gpu.jsonl") 'BEGIN{d=a-b; if(d<0)d=-d; exit !(d <= 0.1*a)}'"
for dev in cpu cuda; do
    "$fcast" eval --model "$tmp/$( [ $dev = cpu ] && echo cpu || echo gpu).safetensors" --train "$tmp/train.csv" \
        --test "$tmp/test.csv" --season 12 --device $dev --out "$tmp/eval_$( [ $dev = cpu ] && echo cpu || echo gpu).txt" \
        2>/dev/null
done
# mae FILE: the model's MAE from an eval table (row "MAE", column 2)
mae() { awk '$1 == "MAE" {print $2}' "$1"; }
check "forecast accuracy alike: MAE on the test months within 5%" \
      "awk -v a=$(mae "$tmp/eval_cpu.txt") -v b=$(mae "$tmp/eval_gpu.txt") 'BEGIN{d=a-b; if(d<0)d=-d; exit !(a > 0 && d <= 0.05*a)}'"

# determinism: fixed-order reductions and cuBLASLt algorithms without atomics
"$fcast" train "${run[@]}" --device cuda --out "$tmp/gpu2.safetensors"
check "the same seed on the same GPU gives the same model file" "cmp -s $tmp/gpu.safetensors $tmp/gpu2.safetensors"
# CUDA graphs: replaying the captured training step (forward, loss, backward,
# optimizer) gives the bits of plain launches
"$fcast" train "${run[@]}" --device cuda --cuda-graph off --out "$tmp/nograph.safetensors" \
    --log-file "$tmp/nograph.jsonl" 2> "$tmp/nograph.err"
# (same_weights: --cuda-graph off is recorded in the file's run_config, so
# the files differ in their metadata whatever the weights; the stand-in
# showed cmp failing on identical weights)
check "CUDA-graph replay equals plain launches" "same_weights $tmp/gpu.safetensors $tmp/nograph.safetensors"
# first_difference A.jsonl B.jsonl: the first step whose training loss differs
# between two run logs (the H200 saw replays differ after 200 steps, not
# after 10: this says where it starts)
first_difference() {
    python3 - "$1" "$2" <<'PY'
import json, sys
a, b = ([json.loads(l) for l in open(p) if '"event":"step"' in l] for p in sys.argv[1:3])
for x, y in zip(a, b):
    if x["train_loss"] != y["train_loss"]:
        print("step %d: %r (graphs) vs %r (plain)" % (x["step"], x["train_loss"], y["train_loss"]))
        break
else:
    print("no step's training loss (the weights differ all the same)")
PY
}
[ -s "$tmp/gpu.jsonl" ] && ! same_weights "$tmp/gpu.safetensors" "$tmp/nograph.safetensors" &&
    echo "graphs and plain launches first differ at $(first_difference "$tmp/gpu.jsonl" "$tmp/nograph.jsonl")"
"$fcast" train "${run[@]}" --device cuda --out "$tmp/graph.safetensors" 2> "$tmp/graph.err"
check "graphs were captured (no fallback warning)" \
      "[ \$? -eq 0 ] && [ -s $tmp/graph.safetensors ] && ! grep -q 'CUDA graphs off' $tmp/graph.err"
"$fcast" train "${run[@]}" --device cuda --grad-accum 3 --windows-batch-size 256 --out "$tmp/acc.safetensors"
"$fcast" train "${run[@]}" --device cuda --grad-accum 3 --windows-batch-size 256 --cuda-graph off \
    --out "$tmp/acc_nograph.safetensors"
check "graphs with gradient accumulation equal plain launches" "same_weights $tmp/acc.safetensors $tmp/acc_nograph.safetensors"
# fp16 with clipping: the optimizer's skip / unscale / clip decided on the
# device inside the graph, and the graph captured again at each new loss scale
fp16=(--precision fp16 --clip-grad-norm 0.5 --windows-batch-size 256)
"$fcast" train "${run[@]}" "${fp16[@]}" --device cuda --out "$tmp/fp16_graph.safetensors" --log-file "$tmp/fp16.jsonl"
"$fcast" train "${run[@]}" "${fp16[@]}" --device cuda --cuda-graph off --out "$tmp/fp16_nograph.safetensors"
check "fp16 + clipping through graphs equals plain launches" \
      "[ -s $tmp/fp16_graph.safetensors ] && same_weights $tmp/fp16_graph.safetensors $tmp/fp16_nograph.safetensors"
# validation chunks are replayed as graphs too (from the second full chunk on)
val=(--val-size 12 --val-check-steps 20)
"$fcast" train "${run[@]}" "${val[@]}" --device cuda --out "$tmp/val.safetensors" --log-file "$tmp/val.jsonl"
FCAST_CUDA_GRAPH=off "$fcast" train "${run[@]}" "${val[@]}" --device cuda --out "$tmp/val_nograph.safetensors" \
    --log-file "$tmp/val_nograph.jsonl"
check "validation through graphs: the same losses and model as plain launches" \
      "cmp -s $tmp/val.safetensors $tmp/val_nograph.safetensors && \
       diff <(grep -o '\"val_loss\":[^,]*' $tmp/val.jsonl) <(grep -o '\"val_loss\":[^,]*' $tmp/val_nograph.jsonl) > /dev/null"
# the data path: windows gathered and scaled on the GPU from its copy of the
# data give the bits of the host path (FCAST_TEST_HOST_BATCHES=1); MSE, so
# that a target off in its last bit would show in the model file
"$fcast" plan "${run[@]}" --device cuda > "$tmp/plan_cuda.txt" 2>/dev/null
device_only "the training data on the device (the stand-in's memory is the host's)" ||
    check "the GPU plan names the training data on the device" "grep -q '^  training data on the device' $tmp/plan_cuda.txt"
for s in standard robust; do
    flags=("${run[@]/standard/$s}")   # run with --scaler $s
    "$fcast" train "${flags[@]}" --device cuda --loss mse --val-size 12 --grad-accum 2 --out "$tmp/data_dev.safetensors"
    FCAST_TEST_HOST_BATCHES=1 "$fcast" train "${flags[@]}" --device cuda --loss mse --val-size 12 --grad-accum 2 \
        --out "$tmp/data_host.safetensors"
    check "GPU data path (--scaler $s): the host path's model file" \
          "[ -s $tmp/data_dev.safetensors ] && cmp -s $tmp/data_dev.safetensors $tmp/data_host.safetensors"
    rm -f "$tmp/data_dev.safetensors" "$tmp/data_host.safetensors"
done
# DistributionLoss: its likelihood reads each window's unscaled target, shift
# and scale on the device (the data path's out_raw, shift, scale): the
# host path's bits, through graphs the plain launches' bits, and the CPU's
# accuracy (eval scores the sample mean)
dist=("${run[@]}" --loss normal --val-size 12 --val-check-steps 10)
"$fcast" train "${dist[@]}" --device cuda --out "$tmp/dist_dev.safetensors" 2> "$tmp/dist.err"
check "DistributionLoss (normal) training on the GPU completes" "[ -s $tmp/dist_dev.safetensors ]"
FCAST_TEST_HOST_BATCHES=1 "$fcast" train "${dist[@]}" --device cuda --out "$tmp/dist_host.safetensors" 2>/dev/null
check "DistributionLoss on the GPU data path: the host path's model file" \
      "cmp -s $tmp/dist_dev.safetensors $tmp/dist_host.safetensors"
"$fcast" train "${dist[@]}" --device cuda --cuda-graph off --out "$tmp/dist_nograph.safetensors" 2>/dev/null
check "DistributionLoss through graphs equals plain launches" "same_weights $tmp/dist_dev.safetensors $tmp/dist_nograph.safetensors"
"$fcast" train "${dist[@]}" --device cpu --out "$tmp/dist_cpu.safetensors" 2>/dev/null
# alike NAME WHAT: NAME's CPU and GPU model files ($tmp/NAME_cpu, _dev) score MAEs within 5% on the test months
alike() {
    for dev in cpu dev; do
        "$fcast" eval --model "$tmp/$1_$dev.safetensors" --train "$tmp/train.csv" --test "$tmp/test.csv" --season 12 \
            --device "$( [ $dev = cpu ] && echo cpu || echo cuda )" --out "$tmp/$1_eval_$dev.txt" 2>/dev/null
    done
    check "$2 accuracy alike: MAE on the test months within 5%" \
          "awk -v a=$(mae "$tmp/$1_eval_cpu.txt") -v b=$(mae "$tmp/$1_eval_dev.txt") 'BEGIN{d=a-b; if(d<0)d=-d; exit !(a > 0 && d <= 0.05*a)}'"
}
alike dist "DistributionLoss (the sample mean's)"

# IQLoss: its head's per-point and per-parameter kernels and the training
# quantiles drawn on the device: the same model file twice (no atomics),
# and the CPU's accuracy (eval scores the median)
iq=("${run[@]}" --loss iq --cos-embedding-dim 16)
"$fcast" train "${iq[@]}" --device cuda --out "$tmp/iq_dev.safetensors" 2>/dev/null
"$fcast" train "${iq[@]}" --device cuda --out "$tmp/iq_dev2.safetensors" 2>/dev/null
check "IQLoss training on the GPU: the same model file twice" \
      "[ -s $tmp/iq_dev.safetensors ] && cmp -s $tmp/iq_dev.safetensors $tmp/iq_dev2.safetensors"
"$fcast" train "${iq[@]}" --device cpu --out "$tmp/iq_cpu.safetensors" 2>/dev/null
alike iq "IQLoss (the median's)"

for p in bf16 fp16; do
    "$fcast" train "${run[@]}" --device cuda --precision $p --out "$tmp/$p.safetensors"
    check "$p training on the GPU completes" "[ \$? -eq 0 ] && [ -s $tmp/$p.safetensors ]"
done

# the memory plan against the device: NVML's memory in use during the run
# stays within the plan, which counts the CUDA context as an allowance
# (FC_CUDA_CONTEXT_ALLOWANCE: if this fails, the allowance is too small)
plan=$(grep '"event":"summary"' "$tmp/gpu.jsonl" | grep -o '"plan_bytes":[0-9]*' | cut -d: -f2)
used=$(grep '"event":"gpu"' "$tmp/gpu.jsonl" | grep -o '"mem_used_bytes":[0-9]*' | cut -d: -f2 | sort -n | tail -1)
if [ -n "$used" ]; then
    check "device memory in use (${used} B) within the plan (${plan} B)" "[ $used -le $plan ]"
else
    echo "skipped: the memory check (no NVML samples in the run log)"
fi

# Every TA-Lib function fcast computes (MAVP aside: the bars have no
# periods), on the bundled OHLCV bars. The stand-in has no quant kernels:
# there --device auto falls back to the CPU, so the commands still run
# (test_ta_segments runs the GPU's way of slicing on the host).
ta_dev=cuda
[ -n "$standin" ] && ta_dev=auto
mapfile -t ta_names < <("$fcast" quant indicators --list |
    awk '/^  [A-Z0-9_]+ / && !/not in fcast yet/ && $1 != "MAVP" {print tolower($1)}')
check "quant indicators --list names TA-Lib's functions (${#ta_names[@]})" "[ ${#ta_names[@]} -gt 100 ]"
ta_same=1
for ((i = 0; i < ${#ta_names[@]}; i += 60)); do
    list=$(IFS=,; echo "${ta_names[*]:i:60}")
    "$fcast" quant indicators --data data/goog_daily_ohlcv.csv --ind "$list" --device cpu --out "$tmp/ta_cpu.csv" &&
        "$fcast" quant indicators --data data/goog_daily_ohlcv.csv --ind "$list" --device "$ta_dev" --out "$tmp/ta_gpu.csv" &&
        cmp -s "$tmp/ta_cpu.csv" "$tmp/ta_gpu.csv" || ta_same=0
done
check "every TA-Lib function on the GPU equals the CPU's to the last bit" "[ $ta_same = 1 ]"
# Barrier and Longstaff-Schwartz Monte Carlo take the device too (their
# draws run through the same kernel as the European's): the flags here, on
# any device (the stand-in runs them on its CPU), their parity below.
barrier=(--call --S 100 --K 100 --sigma 0.2 --T 1 --r 0.05 --barrier down-and-out:90 --method mc --paths 400000 --json)
lsm=(--put --S 100 --K 100 --sigma 0.2 --T 1 --r 0.05 --exercise american --method lsm --paths 400000 --json)
"$fcast" quant option "${barrier[@]}" --device "$ta_dev" > "$tmp/bar_dev.json"
check "barrier Monte Carlo runs with --device $ta_dev" "[ $? -eq 0 ] && grep -q '\"mc_price\"' $tmp/bar_dev.json"
"$fcast" quant option "${lsm[@]}" --device "$ta_dev" > "$tmp/lsm_dev.json"
check "Longstaff-Schwartz runs with --device $ta_dev" "[ $? -eq 0 ] && grep -q '\"calibration_price\"' $tmp/lsm_dev.json"
if device_only "quant option and the batched indicators (the CPU backend has no kernels for them)"; then finish; exit; fi
# quant: the same Philox streams, same draws
opt=(--call --S 100 --K 105 --sigma 0.25 --T 1 --r 0.03 --paths 2000000 --seed 3 --json)
# price FILE: the Monte Carlo price of quant option --json (full precision)
price() { grep -o '"price": *[-0-9.e+]*' "$1" | head -1 | sed 's/.*: *//'; }
"$fcast" quant option "${opt[@]}" --device cpu > "$tmp/opt_cpu.json"
"$fcast" quant option "${opt[@]}" --device cuda > "$tmp/opt_gpu.json"
check "quant option on the GPU prices within 1e-12 (relative) of the CPU" \
      "awk -v a=$(price "$tmp/opt_cpu.json") -v b=$(price "$tmp/opt_gpu.json") 'BEGIN{d=a-b; if(d<0)d=-d; exit !(a>0 && d <= 1e-12*a)}'"
# field NAME FILE: a number of a --json answer
field() { grep -o "\"$1\": *[-0-9.e+]*" "$2" | head -1 | sed 's/.*: *//'; }
# within_1e12 A B: |A - B| <= 1e-12 |A|, A > 0
within_1e12() { awk -v a="$1" -v b="$2" 'BEGIN{d=a-b; if(d<0)d=-d; exit !(a>0 && d <= 1e-12*a)}'; }
"$fcast" quant option "${barrier[@]}" --device cpu > "$tmp/bar_cpu.json"
"$fcast" quant option "${barrier[@]}" --device cuda > "$tmp/bar_gpu.json"
check "barrier Monte Carlo on the GPU within 1e-12 (relative) of the CPU" \
      "within_1e12 $(field mc_price "$tmp/bar_cpu.json") $(field mc_price "$tmp/bar_gpu.json")"
"$fcast" quant option "${lsm[@]}" --device cpu > "$tmp/lsm_cpu.json"
"$fcast" quant option "${lsm[@]}" --device cuda > "$tmp/lsm_gpu.json"
check "Longstaff-Schwartz's pricing paths on the GPU within 1e-12 (relative) of the CPU" \
      "within_1e12 $(field price "$tmp/lsm_cpu.json") $(field price "$tmp/lsm_gpu.json")"
ind=(--data data/eu_stock_markets.csv --ind sma:20,ema:12,rsi:14,macd:12:26:9,bbands:20)
"$fcast" quant indicators "${ind[@]}" --device cpu --out "$tmp/ind_cpu.csv"
"$fcast" quant indicators "${ind[@]}" --device cuda --out "$tmp/ind_gpu.csv"
check "quant indicators on the GPU equal the CPU's to the last bit" "cmp -s $tmp/ind_cpu.csv $tmp/ind_gpu.csv"
finish
