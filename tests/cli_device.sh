#!/usr/bin/env bash
# --device and the run-time choice of backend (src/backend/backend_loader.c)
# on a machine without a GPU: the CUDA backend library absent, a file that is
# not a library, a stand-in library on a machine with no GPU
# (tests/fake_cuda_backend.c, built next to fcast as libfake_cuda_backend.so)
# and the real libfcast-cuda.so where it was built and no GPU is present.
# $1 is the fcast binary.
set -uo pipefail
source tests/lib_cli.sh
fake="$(dirname "$1")/libfake_cuda_backend.so"
real="$(dirname "$1")/libfcast-cuda.so"
unset FCAST_CUDA_BACKEND
# "No CUDA backend library": a copy of fcast in a directory of its own, so
# the libfcast-cuda.so built next to the original is not found.
mkdir -p "$tmp/bin" && cp "$1" "$tmp/bin/fcast"
fcast="$tmp/bin/fcast"

scripts/split-tail.sh data/monthly_classics.csv 12 "$tmp/train.csv" "$tmp/test.csv"
small=(--data "$tmp/train.csv" --model nhits --h 12 --input-size 24 --mlp-units 16,16,16 --max-steps 3
       --windows-batch-size 64 --threads 1)
missing=(--data "$tmp/nothing.csv" --model nhits --h 12 --input-size 24)   # data that cannot be read

"$fcast" train "${small[@]}" --device cpu --out "$tmp/cpu.safetensors" 2> "$tmp/err.txt"
check "--device cpu trains" "[ \$? -eq 0 ] && [ -s $tmp/cpu.safetensors ]"
check "--device cpu says so" "grep -qx 'device: cpu' $tmp/err.txt"
"$fcast" train "${small[@]}" --out "$tmp/auto.safetensors" 2> "$tmp/err.txt"
check "auto (the default) trains without a GPU" "[ \$? -eq 0 ] && [ -s $tmp/auto.safetensors ]"
# (without the NVIDIA driver auto does not even look for the library)
check "auto falls back to the CPU and says why" \
      "grep -Eq '^device: cpu \(no GPU: (libfcast-cuda.so not found|no NVIDIA driver: neither /dev/nvidiactl)' $tmp/err.txt"
check "auto and cpu train the same model" "cmp -s $tmp/cpu.safetensors $tmp/auto.safetensors"
"$fcast" train "${small[@]}" --device auto --quiet --out "$tmp/q.safetensors" 2> "$tmp/err.txt"
check "--quiet leaves the device line out" "! grep -q '^device:' $tmp/err.txt"

# cuda without a usable GPU: exit 8 with the failed check, before reading data, writing nothing
for dev in cuda cuda:0 cuda:3; do
    "$fcast" train "${missing[@]}" --device $dev --out "$tmp/gpu.safetensors" 2> "$tmp/err.txt"
    check "--device $dev without the library exits 8" "[ \$? -eq 8 ]"
    name=$dev; [ "$dev" = cuda ] && name=cuda:0   # cuda is GPU 0
    check "--device $dev names the device and the missing library" \
          "grep -q '^fcast train: device $name: no CUDA backend: libfcast-cuda.so not found' $tmp/err.txt"
done
check "--device cuda writes no model" "[ ! -e $tmp/gpu.safetensors ]"
"$fcast" plan "${missing[@]}" --device cuda 2> "$tmp/err.txt"
check "plan --device cuda exits 8 before reading data" "[ \$? -eq 8 ] && grep -q 'libfcast-cuda.so not found' $tmp/err.txt"
"$fcast" predict --model "$tmp/cpu.safetensors" --data "$tmp/train.csv" --out "$tmp/fc.csv" --device cuda 2> "$tmp/err.txt"
check "predict --device cuda exits 8 and writes nothing" "[ \$? -eq 8 ] && [ ! -e $tmp/fc.csv ]"
"$fcast" eval --model "$tmp/cpu.safetensors" --train "$tmp/train.csv" --test "$tmp/test.csv" --out "$tmp/ev.txt" \
    --device cuda:1 2> "$tmp/err.txt"
check "eval --device cuda:1 exits 8 and writes nothing" "[ \$? -eq 8 ] && [ ! -e $tmp/ev.txt ]"
"$fcast" bench train --data "$tmp/nothing.csv" --device cuda 2> "$tmp/err.txt"
check "bench train --device cuda exits 8 before reading data" "[ \$? -eq 8 ] && grep -q 'no CUDA backend' $tmp/err.txt"
"$fcast" predict --model "$tmp/cpu.safetensors" --data "$tmp/train.csv" --out "$tmp/fc.csv" --device cpu 2> /dev/null
check "predict --device cpu forecasts" "[ \$? -eq 0 ] && [ -s $tmp/fc.csv ]"

# names that are no device: exit 4, naming the accepted forms
for dev in gpu cuda:x cuda: cuda:-1 CPU "cuda:0 "; do
    "$fcast" train "${missing[@]}" --device "$dev" --out "$tmp/bad.safetensors" 2> "$tmp/err.txt"
    check "--device '$dev' exits 4" "[ \$? -eq 4 ]"
    check "--device '$dev' names the accepted forms" "grep -q 'auto | cpu | cuda | cuda:N' $tmp/err.txt"
done

# the quant commands. option and indicators run on a GPU when one is asked
# for (cuda) or found (auto); without one, auto runs on the CPU, silently but
# for --verbose, with the CPU's results; cuda stops with exit 8 before any
# data is read or result written. risk, portfolio and backtest run on the
# CPU only: cuda is refused by name (exit 4).
prices=data/eu_stock_markets.csv
opt=(--call --S 100 --K 100 --sigma 0.2 --T 1 --paths 20000 --json)
ind=(--data $prices --ind sma:5,ema:1,rsi:14,macd:12:26:9,bbands:20)
"$fcast" quant option "${opt[@]}" --device cpu > "$tmp/opt_cpu.json" 2> "$tmp/err.txt"
check "quant option --device cpu prices, silently" "[ \$? -eq 0 ] && [ -s $tmp/opt_cpu.json ] && [ ! -s $tmp/err.txt ]"
"$fcast" quant option "${opt[@]}" > "$tmp/opt_auto.json" 2> "$tmp/err.txt"
check "quant option auto (the default) falls back to the CPU silently" "[ \$? -eq 0 ] && [ ! -s $tmp/err.txt ]"
check "quant option: auto and cpu give the same price to the bit" "cmp -s $tmp/opt_cpu.json $tmp/opt_auto.json"
"$fcast" quant option "${opt[@]}" --verbose > /dev/null 2> "$tmp/err.txt"
check "quant option --verbose: auto says it fell back and why" \
      "grep -Eqx 'device: cpu \\(no GPU: (libfcast-cuda.so not found|no NVIDIA driver: neither /dev/nvidiactl).*' $tmp/err.txt"
"$fcast" quant option "${opt[@]}" --device cpu --verbose > /dev/null 2> "$tmp/err.txt"
check "quant option --device cpu --verbose says cpu" "grep -qx 'device: cpu' $tmp/err.txt"
"$fcast" quant indicators "${ind[@]}" --device cpu --out "$tmp/ind_cpu.csv" 2> "$tmp/err.txt"
check "quant indicators --device cpu" "[ \$? -eq 0 ] && [ -s $tmp/ind_cpu.csv ] && [ ! -s $tmp/err.txt ]"
"$fcast" quant indicators "${ind[@]}" --device auto --out "$tmp/ind_auto.csv" 2> "$tmp/err.txt"
check "quant indicators: auto and cpu write the same file" "[ \$? -eq 0 ] && cmp -s $tmp/ind_cpu.csv $tmp/ind_auto.csv"
for dev in cuda cuda:0 cuda:2; do
    name=$dev; [ "$dev" = cuda ] && name=cuda:0   # cuda is GPU 0
    "$fcast" quant option "${opt[@]}" --device $dev > "$tmp/out.txt" 2> "$tmp/err.txt"
    check "quant option --device $dev without the library: exit 8, no price" "[ \$? -eq 8 ] && [ ! -s $tmp/out.txt ]"
    check "quant option --device $dev names the device and the missing library" \
          "grep -q '^fcast quant option: device $name: no CUDA backend: libfcast-cuda.so not found' $tmp/err.txt"
    "$fcast" quant indicators --data "$tmp/nothing.csv" --ind sma:5 --out "$tmp/ind_gpu.csv" --device $dev \
        2> "$tmp/err.txt"
    check "quant indicators --device $dev: exit 8 before reading data, nothing written" \
          "[ \$? -eq 8 ] && [ ! -e $tmp/ind_gpu.csv ] && grep -q '^fcast quant indicators: device $name: no CUDA backend' $tmp/err.txt"
done
for q in "option ${opt[*]}" "indicators ${ind[*]} --out -"; do
    name=${q%% *}
    "$fcast" quant $q --device gpu > /dev/null 2> "$tmp/err.txt"
    check "quant $name --device gpu exits 4 naming the forms" "[ \$? -eq 4 ] && grep -q 'auto | cpu | cuda | cuda:N' $tmp/err.txt"
done
if [ -e "$fake" ]; then
    FCAST_CUDA_BACKEND="$fake" "$fcast" quant option "${opt[@]}" --device cuda > /dev/null 2> "$tmp/err.txt"
    check "quant option, library present, no GPU: exit 8 with the entry point's reason" \
          "[ \$? -eq 8 ] && grep -qx 'fcast quant option: device cuda:0: no CUDA device: cudaGetDeviceCount returned 0' $tmp/err.txt"
    FCAST_CUDA_BACKEND="$fake" "$fcast" quant indicators "${ind[@]}" --out "$tmp/ind_fake.csv" --verbose 2> "$tmp/err.txt"
    check "quant indicators, library present, no GPU: auto gives the CPU's file" \
          "[ \$? -eq 0 ] && cmp -s $tmp/ind_cpu.csv $tmp/ind_fake.csv"
    check "quant indicators, library present, no GPU: --verbose says why" \
          "grep -qx 'device: cpu (no GPU: no CUDA device: cudaGetDeviceCount returned 0)' $tmp/err.txt"
fi
if [ -e "$real" ] && [ ! -e /dev/nvidiactl ] && ! command -v nvidia-smi > /dev/null; then
    FCAST_CUDA_BACKEND="$real" "$fcast" quant option "${opt[@]}" --device cuda > /dev/null 2> "$tmp/err.txt"
    check "quant option, the real library, no GPU: exit 8 naming the check" \
          "[ \$? -eq 8 ] && grep -Eq '^fcast quant option: device cuda:0: no (NVIDIA driver|CUDA device)' $tmp/err.txt"
    FCAST_CUDA_BACKEND="$real" "$fcast" quant option "${opt[@]}" > "$tmp/opt_real.json" 2> /dev/null
    check "quant option, the real library, no GPU: auto prices on the CPU" "cmp -s $tmp/opt_cpu.json $tmp/opt_real.json"
fi
# (tests/gpu_parity.sh compares the GPU's quant results with the CPU's where a GPU is present.)
"$fcast" quant risk --data $prices --device cpu > /dev/null 2>&1
check "quant risk --device cpu runs" "[ \$? -eq 0 ]"
"$fcast" quant portfolio --data $prices --device auto > /dev/null 2>&1
check "quant portfolio --device auto runs" "[ \$? -eq 0 ]"
for q in "risk --data $prices" "portfolio --data $prices" "backtest --data $prices"; do
    name=${q%% *}
    "$fcast" quant $q --device cuda:0 > /dev/null 2> "$tmp/err.txt"
    check "quant $name --device cuda:0 exits 4" "[ \$? -eq 4 ]"
    check "quant $name --device cuda:0 says it runs on the CPU only" \
          "grep -q 'quant $name runs on the CPU only in this version' $tmp/err.txt"
done
"$fcast" quant risk --data $prices --device gpu > /dev/null 2> "$tmp/err.txt"
check "quant risk --device gpu exits 4 naming the forms" "[ \$? -eq 4 ] && grep -q 'auto | cpu | cuda | cuda:N' $tmp/err.txt"

# FCAST_CUDA_BACKEND: an explicit library, whose failure is final
echo "not a library" > "$tmp/notalib.so"
FCAST_CUDA_BACKEND="$tmp/notalib.so" "$fcast" train "${missing[@]}" --device cuda --out "$tmp/x.safetensors" \
    2> "$tmp/err.txt"
check "a file that is not a library: exit 8" "[ \$? -eq 8 ]"
check "a file that is not a library: named, with the loader's reason" \
      "grep -q \"no CUDA backend: $tmp/notalib.so could not be loaded: .*\" $tmp/err.txt"
FCAST_CUDA_BACKEND="$tmp/absent.so" "$fcast" train "${missing[@]}" --device cuda --out "$tmp/x.safetensors" \
    2> "$tmp/err.txt"
check "FCAST_CUDA_BACKEND naming no file: exit 8, said" \
      "[ \$? -eq 8 ] && grep -q 'FCAST_CUDA_BACKEND=$tmp/absent.so: no such file' $tmp/err.txt"
FCAST_CUDA_BACKEND=/bin/true "$fcast" train "${missing[@]}" --device cuda --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "an executable that is not a library: exit 8" "[ \$? -eq 8 ] && grep -q 'could not be loaded' $tmp/err.txt"

# the stand-in CUDA backend: present, but no GPU
if [ -e "$fake" ]; then
    FCAST_CUDA_BACKEND="$fake" "$fcast" train "${missing[@]}" --device cuda --out "$tmp/x.safetensors" \
        2> "$tmp/err.txt"
    check "library present, no GPU: exit 8" "[ \$? -eq 8 ]"
    check "library present, no GPU: the entry point's reason" \
          "grep -qx 'fcast train: device cuda:0: no CUDA device: cudaGetDeviceCount returned 0' $tmp/err.txt"
    FCAST_CUDA_BACKEND="$fake" "$fcast" train "${small[@]}" --out "$tmp/fake.safetensors" 2> "$tmp/err.txt"
    check "library present, no GPU: auto trains on the CPU" "[ \$? -eq 0 ] && [ -s $tmp/fake.safetensors ]"
    check "library present, no GPU: auto says why" \
          "grep -qx 'device: cpu (no GPU: no CUDA device: cudaGetDeviceCount returned 0)' $tmp/err.txt"
else
    echo "skipped: the stand-in CUDA backend $fake is not built (tests/fake_cuda_backend.c)"
fi
# the real CUDA backend, present, on a machine without a GPU: refused with the
# check that failed (no driver, or no device), and auto falls back
if [ ! -e "$real" ]; then
    echo "skipped: $real is not built (no nvcc?)"
elif [ -e /dev/nvidiactl ] || command -v nvidia-smi > /dev/null; then
    echo "skipped: the real CUDA backend's refusal (this machine has an NVIDIA driver: make test-gpu covers it)"
else
    FCAST_CUDA_BACKEND="$real" "$fcast" train "${missing[@]}" --device cuda --out "$tmp/x.safetensors" \
        2> "$tmp/err.txt"
    check "the real library, no GPU: exit 8" "[ \$? -eq 8 ]"
    check "the real library, no GPU: says which check failed" \
          "grep -Eq '^fcast train: device cuda:0: no (NVIDIA driver|CUDA device)' $tmp/err.txt"
    FCAST_CUDA_BACKEND="$real" "$fcast" train "${small[@]}" --out "$tmp/real.safetensors" 2> "$tmp/err.txt"
    check "the real library, no GPU: auto trains on the CPU" "[ \$? -eq 0 ] && cmp -s $tmp/cpu.safetensors $tmp/real.safetensors"
    check "the real library, no GPU: auto says why" "grep -Eq '^device: cpu \(no GPU: no (NVIDIA driver|CUDA device)' $tmp/err.txt"
    "$1" train "${small[@]}" --out "$tmp/next.safetensors" 2> "$tmp/err.txt"
    check "the library next to fcast is found by auto" "grep -Eq '^device: cpu \(no GPU: no (NVIDIA driver|CUDA device)' $tmp/err.txt"
fi
# Every command that takes --device, in every precision, refused on a GPU
# that cannot run says why: never "fcast train: " and nothing after it
# (bf16 did that on CPUs with AVX512-BF16: the kernel choice, made on the
# failed run's report, cleared the message; issue 33).
"$fcast" train "${small[@]}" --device cpu --out "$tmp/m.safetensors" 2>/dev/null
for p in fp32 bf16 fp16; do
  for args in "train ${small[*]} --out $tmp/x.safetensors" "cv ${small[*]} --n-windows 1 --out $tmp/x.csv" \
              "ensemble ${small[*]} --out $tmp/x.safetensors" "bench train --steps 1"; do
    read -ra a <<<"$args"
    flag=--precision; [ "${a[0]}" = bench ] && flag=--precisions
    FCAST_CUDA_BACKEND="$fake" "$fcast" "${a[@]}" $flag $p --device cuda 2> "$tmp/err.txt"; rc=$?
    check "fcast ${a[0]} --precision $p --device cuda: exit 8 with a reason ($rc: $(head -c 160 "$tmp/err.txt"))" \
          "[ $rc -eq 8 ] && grep -Eq '^fcast ${a[0]}( [a-z]+)?: .{20}' $tmp/err.txt && ! grep -q 'internal error' $tmp/err.txt"
  done
done
for args in "predict --model $tmp/m.safetensors --data $tmp/train.csv --out $tmp/x.csv" \
            "eval --model $tmp/m.safetensors --train $tmp/train.csv --test $tmp/test.csv" \
            "quant option --call --S 100 --K 100 --sigma 0.2 --T 1" \
            "quant indicators --data data/eu_stock_markets.csv --ind sma:5 --out $tmp/x.csv"; do
  read -ra a <<<"$args"
  FCAST_CUDA_BACKEND="$fake" "$fcast" "${a[@]}" --device cuda 2> "$tmp/err.txt"; rc=$?
  check "fcast ${a[0]} ${a[1]} --device cuda: exit 8 with a reason ($rc: $(head -c 160 "$tmp/err.txt"))" \
        "[ $rc -eq 8 ] && grep -Eq '^fcast ${a[0]}( [a-z]+)?: .{20}' $tmp/err.txt"
done
# A library without the entry point: the stand-in for NVML is one
nvml="$(dirname "$1")/libfake_nvml.so"
if [ -e "$nvml" ]; then
    FCAST_CUDA_BACKEND="$nvml" "$fcast" train "${missing[@]}" --device cuda --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
    check "a library without the entry point: exit 8, named" \
          "[ \$? -eq 8 ] && grep -q 'lacks fc_backend_cuda_create' $tmp/err.txt"
else
    echo "skipped: $nvml is not built"
fi
finish
