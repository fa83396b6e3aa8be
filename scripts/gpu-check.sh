#!/usr/bin/env bash
# Every GPU check of fcast in one short run, for a machine lent for minutes
# (docs/gpu.md, "Checking on a GPU machine"). Two halves:
#
#   scripts/gpu-check.sh --fetch      here, on Debian 12 with a network:
#       downloads the Debian packages a bare GPU machine lacks (oneDNN,
#       jansson, libyaml, libmicrohttpd, LAPACK, with their -dev files)
#       into .gpu-deps/, which git ignores (.git/info/exclude) and which
#       travels with the working tree (the device tool: carry .gpu-deps).
#   scripts/gpu-check.sh              there, on the GPU machine (nvcc, CMake,
#       Python; no network, no Debian libraries): unpacks .gpu-deps/*.deb
#       into a prefix (dpkg -x, nothing installed), builds fcast and its
#       CUDA backend for the GPU's own architecture into build-gpu/, then
#       runs, each under a time limit:
#         1. ctest -L gpu with FCAST_REQUIRE_GPU=1 (make test-gpu's checks:
#            op parity, training parity and determinism, graphs, 16-bit,
#            the memory plan against NVML, quant parity);
#         2. fcast bench train --device cuda --vs-torch (fp32, bf16);
#         3. the serving tail: 2,000 requests from 16 clients against a
#            CUDA server and a CPU server (bench/serve_latency.py);
#         4. neuralforecast's GPU-style script on cuda (issue 35:
#            tests/python/test_nf_gpu_script.py, accelerator='gpu'), when
#            the machine's Python has numpy, pandas and pytest;
#         5. an ensemble's members side by side on the GPU's streams
#            against one at a time (issue 36: bench/ensemble.sh on the
#            synthetic M4-Hourly panel, 36 members): members/s of each,
#            and both files equal byte for byte;
#       and prints one summary. Meant to finish in under 6 minutes on an
#       H100, so that a 15-minute lease can run it twice.
#   scripts/gpu-check.sh --cpu BUILD  anywhere: the same steps 2 and 3 on
#       the CPU with an existing build and small sizes (step 5 with 4
#       members of 2 steps), step 4 collected
#       only (the Python suite runs it on the CPU), and step 1's ctest
#       (its GPU tests skip): tests/cli_gpu_check.sh runs it in make test,
#       so the script cannot rot between GPU runs (its commands, flags and
#       summary are checked on every CI run).
#
# Output under $OUT when set (the device tool brings it back), else
# build-gpu/gpu-check/: the summary, each step's log. Exit status 0 only
# when every step passed.
set -uo pipefail
cd "$(dirname "$0")/.."

DEPS_DIR=.gpu-deps
# oneDNN, jansson, libyaml, libmicrohttpd, LAPACK/BLAS: headers, linker
# names and the libraries themselves (Debian 12's), and gfortran's runtime,
# which LAPACK needs; what a CUDA image has (gcc's libgomp, glibc, gnutls)
# is left out. No MPI: the checks run one process.
DEBS=(libdnnl-dev libdnnl2 libjansson-dev libjansson4 libyaml-dev libyaml-0-2 libmicrohttpd-dev libmicrohttpd12
      liblapack-dev liblapack3 libblas-dev libblas3 libgfortran5)

fetch() {
    mkdir -p "$DEPS_DIR"
    grep -qx "/$DEPS_DIR/" .git/info/exclude 2>/dev/null || echo "/$DEPS_DIR/" >> .git/info/exclude
    (cd "$DEPS_DIR" && apt-get download "${DEBS[@]}") || { echo "gpu-check: apt-get download failed" >&2; exit 1; }
    echo "gpu-check: $(ls "$DEPS_DIR"/*.deb | wc -l) packages in $DEPS_DIR ($(du -sh "$DEPS_DIR" | cut -f1));" \
         "carry $DEPS_DIR with the working tree and run scripts/gpu-check.sh there"
}

# ---- the steps, each timed and limited, its verdict in the summary ----
results=()
# step NAME LIMIT_S COMMAND...: runs COMMAND (a program or one of the
# functions below, exported with the variables they read) under timeout,
# its output in $out/NAME.log.
step() {
    local name=$1 limit=$2; shift 2
    local t0=$SECONDS
    export -f configure_and_build serve_tail serve_both nf_script side_by_side
    export build arch prefix libdir out devices serve_requests train_steps mode accelerator
    timeout --kill-after=10 "$limit" bash -c '"$@"' _ "$@" > "$out/$name.log" 2>&1
    local rc=$? verdict=passed
    { [ $rc -eq 124 ] || [ $rc -eq 137 ]; } && verdict="TIMED OUT after ${limit} s"
    [ $rc -ne 0 ] && [ "$verdict" = passed ] && verdict="FAILED (exit $rc)"
    results+=("$(printf '%-14s %-24s %4d s' "$name" "$verdict" $((SECONDS - t0)))")
    echo "gpu-check: $name: $verdict ($((SECONDS - t0)) s)"
    [ $rc -eq 0 ]
}

unpack_deps() {
    prefix=${FCAST_GPU_DEPS_PREFIX:-/tmp/fcast-deps}
    if ! ls "$DEPS_DIR"/*.deb > /dev/null 2>&1; then
        echo "gpu-check: no $DEPS_DIR/*.deb: run scripts/gpu-check.sh --fetch on a Debian 12 machine first" >&2
        return 1
    fi
    mkdir -p "$prefix"
    for f in "$DEPS_DIR"/*.deb; do dpkg -x "$f" "$prefix" || return 1; done
    libdir="$prefix/usr/lib/x86_64-linux-gnu"
    # (Debian puts LAPACK and BLAS in subdirectories and links them into
    # libdir through update-alternatives, which dpkg -x does not run)
    export LD_LIBRARY_PATH="$libdir:$libdir/lapack:$libdir/blas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

# The GPU's compute capability as CMake wants it (9.0 -> 90).
gpu_arch() { nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .'; }

configure_and_build() {
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DFC_CUDA=ON -DFC_MPI=OFF \
        -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_PREFIX_PATH="$prefix/usr" \
        -DCMAKE_LIBRARY_PATH="$libdir;$libdir/lapack;$libdir/blas" -DCMAKE_INCLUDE_PATH="$prefix/usr/include" &&
        cmake --build "$build" -j "$(nproc)"
}

# The serving tail: one server on DEVICE, 2,000 requests from 16 clients.
serve_tail() {
    local device=$1 requests=$2 models="$out/models" log="$out/serve_$1.err" port=""
    "$build/fcast" serve --models "$models" --port 0 --device "$device" --quiet 2> "$log" &
    local pid=$!
    for _ in $(seq 200); do
        port=$(sed -n 's|.*on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$log" | head -1)
        [ -n "$port" ] && break
        kill -0 $pid 2> /dev/null || break
        sleep 0.1
    done
    [ -n "$port" ] || { cat "$log"; kill $pid 2> /dev/null; return 1; }
    python3 bench/serve_latency.py "$port" nhits --requests 50 --clients 4 > /dev/null   # warm-up
    python3 bench/serve_latency.py "$port" nhits --requests "$requests" --clients 16
    local rc=$?
    kill -TERM $pid; wait $pid 2> /dev/null
    return $rc
}

serve_both() {
    mkdir -p "$out/models"
    "$build/fcast" train --data data/monthly_classics.csv --model nhits --h 12 --input-size 24 --max-steps "$train_steps" \
        --quiet --out "$out/models/nhits.safetensors" || return 1
    local rc=0
    local line
    for d in $devices; do
        line=$(serve_tail "$d" "$serve_requests") || rc=1
        echo "device $d: $(tail -1 <<<"$line")"
    done
    return $rc
}

# neuralforecast's GPU-style script (tests/python/test_nf_gpu_script.py)
# with accelerator='gpu', when this Python has numpy, pandas and pytest;
# with --cpu only collected (cli_python runs it whole on every CI run).
nf_script() {
    local py="" candidate
    for candidate in python3 /usr/bin/python3; do   # as tests/cli_python.sh chooses
        if "$candidate" -c 'import numpy, pandas, pytest' 2> /dev/null; then py=$candidate; break; fi
    done
    [ -n "$py" ] || { echo "skipped: no python3 with numpy, pandas and pytest"; return 0; }
    local how=()
    [ $mode = cpu ] && how=(--collect-only)
    FCAST_LIBRARY="$build/libfcast.so" FCAST_BIN="$build/fcast" FCAST_SCRIPT_ACCELERATOR="$accelerator" \
        "$py" -m pytest -q -p no:cacheprovider "${how[@]}" tests/python/test_nf_gpu_script.py
}

# Members side by side against one at a time (bench/ensemble.sh).
side_by_side() {
    if [ $mode = cpu ]; then
        WEEKLY=0 MULTIPLES=2 LOSSES=mae,smape PEAK_STEPS=2 DEVICE=cpu bench/ensemble.sh "$build/fcast" 2 1
    else
        WEEKLY=0 DEVICE=cuda bench/ensemble.sh "$build/fcast" 50 1
    fi
}

summary() {
    {
        echo "fcast gpu-check: $(date -u '+%Y-%m-%d %H:%M UTC'), $mode"
        echo "GPU: $gpu"
        echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
        printf '%s\n' "${results[@]}"
        [ -s "$out/ctest_gpu.log" ] && grep -E 'tests passed|tests failed|Failed|Skipped' "$out/ctest_gpu.log" | head -20
        [ -s "$out/bench_train.log" ] && sed -n '/^fcast bench train:/,/^ms per step/p' "$out/bench_train.log" | head -20
        [ -s "$out/serve_tail.log" ] && grep '^device' "$out/serve_tail.log"
        [ -s "$out/nf_script.log" ] && echo "nf_script: $(tail -1 "$out/nf_script.log")"
        [ -s "$out/ensemble.log" ] && grep -E '^  (one at a time|side by side|ratio|same file)' "$out/ensemble.log"
    } | tee "$out/summary.txt"
}

mode=gpu
case "${1:-}" in
    --fetch) fetch; exit 0 ;;
    --list-debs) printf '%s\n' "${DEBS[@]}"; exit 0 ;;
    --cpu) mode=cpu; build=${2:?usage: scripts/gpu-check.sh --cpu BUILD_DIR} ;;
    "") build=build-gpu ;;
    -h|--help) sed -n '2,39p' "$0"; exit 0 ;;
    *) echo "usage: scripts/gpu-check.sh [--fetch | --cpu BUILD_DIR]" >&2; exit 2 ;;
esac
out=${OUT:-$build/gpu-check}
mkdir -p "$out"
ok=1
if [ $mode = gpu ]; then
    gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2> /dev/null | head -1)
    [ -n "$gpu" ] || { echo "gpu-check: no NVIDIA GPU here (nvidia-smi found none)" >&2; exit 1; }
    arch=$(gpu_arch)
    unpack_deps || exit 1
    step build 300 configure_and_build || { summary; exit 1; }
    devices="cuda cpu" serve_requests=2000 train_steps=50 bench=(--device cuda --precisions fp32,bf16 --vs-torch --steps 50)
    accelerator=gpu
    step ctest_gpu 240 env FCAST_REQUIRE_GPU=1 ctest --test-dir "$build" -L gpu --output-on-failure --timeout 200 || ok=0
else
    gpu="none (--cpu: the GPU tests skip; steps 2 and 3 run on the CPU)"
    devices="cpu" serve_requests=200 train_steps=5 bench=(--device cpu --precisions fp32 --steps 3 --warmup 1)
    accelerator=cpu
    step ctest_gpu 120 ctest --test-dir "$build" -L gpu --timeout 60 || ok=0
fi
step bench_train 120 "$build/fcast" bench train "${bench[@]}" || ok=0
step serve_tail 150 serve_both || ok=0
step nf_script 200 nf_script || ok=0
step ensemble 150 side_by_side || ok=0
summary
[ $ok = 1 ]
