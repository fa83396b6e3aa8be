#!/usr/bin/env bash
# fcast doctor on a machine without a GPU: the text run says no GPU was
# found and why, and still reports the CPU (model and cores as /proc/cpuinfo
# and nproc give them) and a conclusion. The GPU figures of the CUDA backend
# (host<->device bandwidth, matrix-product peak) say why they were not
# measured: the library not found (a copy of fcast in a directory of its
# own), or the library's own refusal (the stand-in tests/fake_cuda_backend.c,
# and the real libfcast-cuda.so when it was built next to fcast). --json is
# one object with the same facts, unmeasured figures null. Against the
# stand-in NVML (libfake_nvml.so) the GPU section shows the stand-in's
# figures. FCAST_TEST_DOCTOR_GPU=cpu puts a CPU backend in cuda:N's place,
# so the measuring and the conclusion on a GPU run here too (a few seconds
# a run); --quick (no timed figures) keeps the others short. $1 is fcast.
set -uo pipefail
source tests/lib_cli.sh
unset FCAST_CUDA_BACKEND FCAST_TEST_DOCTOR_GPU
dir=$(dirname "$1")
fake=$dir/libfake_nvml.so
fake_cuda=$dir/libfake_cuda_backend.so
real_cuda=$dir/libfcast-cuda.so
# No CUDA backend library: a copy of fcast away from the one built next to it.
mkdir -p "$tmp/bin" && cp "$1" "$tmp/bin/fcast"
fcast=$tmp/bin/fcast
not_found='no CUDA backend: libfcast-cuda.so not found next to fcast'
gpu_line='host<->device bandwidth and matrix-product peak not measured'
# json_check NAME FILE: runs the Python on stdin against FILE's JSON as j.
json_check() {
    local name=$1 file=$2
    { echo "import json, sys"; echo "j = json.load(open(sys.argv[1]))"; cat; } >"$tmp/check.py"
    check "$name" "python3 '$tmp/check.py' '$file'"
}

# No driver, whatever this machine has: a library path that does not exist.
FCAST_NVML_LIBRARY=$tmp/none/libnvidia-ml.so.1 "$fcast" doctor --quick >"$tmp/text" 2>"$tmp/err"
check "text run succeeds" "[ $? -eq 0 ]"
check "no GPU and why" "grep -q 'none: no NVIDIA driver: $tmp/none/libnvidia-ml.so.1 not found' '$tmp/text'"
check "sections CPU, GPU, Conclusion" "[ \"\$(grep -cE '^(CPU|GPU|Conclusion)\$' '$tmp/text')\" = 3 ]"
model=$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//')
check "CPU model" "grep -qF \"model:        $model\" '$tmp/text'"
check "cores" "grep -q 'cores: *$(nproc) logical CPUs' '$tmp/text'"
check "device is the CPU, no GPU found" "grep -q 'device: *cpu (no GPU found)' '$tmp/text'"
check "largest batch is a number" "grep -qE 'within .*: [0-9]+\$' '$tmp/text'"
check "peak skipped with --quick" "grep -q 'peak: not measured (--quick)' '$tmp/text'"
check "GPU figures: not measured, the library not found" "grep -q '^  cuda:0: $gpu_line: $not_found' '$tmp/text'"
check "no 'issue 11' left" "! grep -q 'issue 11' '$tmp/text'"

# This machine's own NVML name: the reason the issue asks for.
# (ldconfig's listing goes to a file first: under pipefail, grep -q closing
# the pipe early would fail ldconfig with SIGPIPE, now and then)
if ! { ldconfig -p > "$tmp/ldconfig.txt" 2>/dev/null && grep -q libnvidia-ml.so.1 "$tmp/ldconfig.txt"; }; then
    env -u FCAST_NVML_LIBRARY "$fcast" doctor --quick >"$tmp/default" 2>&1
    check "default: libnvidia-ml.so.1 not found" "grep -q 'none: no NVIDIA driver: libnvidia-ml.so.1 not found' '$tmp/default'"
fi

# The fcast beside which the real libfcast-cuda.so is built (when nvcc was
# found): the library's own reason; not found where it was not built.
if [ -e /dev/nvidiactl ] || command -v nvidia-smi >/dev/null; then
    echo "skipped: the real CUDA backend's refusal (this machine has an NVIDIA driver)" >&2
else
    FCAST_NVML_LIBRARY=$tmp/none "$1" doctor --quick >"$tmp/next" 2>&1
    if [ -e "$real_cuda" ]; then why='no (NVIDIA driver|CUDA device)'; else why=$not_found; fi
    check "fcast beside the library: its reason" "grep -Eq '^  cuda:0: $gpu_line: $why' '$tmp/next'"
    check "fcast beside the library: the CPU" "grep -q 'device: *cpu (no GPU found)' '$tmp/next'"
fi

# A smaller limit gives a smaller batch.
batch() { FCAST_NVML_LIBRARY=$tmp/none "$fcast" doctor --quick --memory-limit "$1" | sed -nE 's/.*within .*: ([0-9]+)$/\1/p'; }
small=$(batch 80MiB) large=$(batch 1GiB)   # 64MiB leaves no window beside the bf16 kernels' fixed blocks
check "batch grows with the limit ($small < $large)" "[ -n '$small' ] && [ -n '$large' ] && [ '$small' -lt '$large' ]"

# --data: the plan on the user's file, named in the output.
FCAST_NVML_LIBRARY=$tmp/none "$fcast" doctor --quick --data data/taylor_halfhourly.csv --memory-limit 1GiB >"$tmp/data" 2>&1
check "--data named" "[ $? -eq 0 ] && grep -q 'data for the plan: data/taylor_halfhourly.csv' '$tmp/data'"

# JSON: parses, has the keys; the GPU figures null, with the reason.
FCAST_NVML_LIBRARY=$tmp/none "$fcast" doctor --quick --json --memory-limit 256MiB >"$tmp/json" 2>"$tmp/err"
check "json run succeeds" "[ $? -eq 0 ]"
if command -v python3 >/dev/null; then
    json_check "json facts" "$tmp/json" <<EOF
c, g, k = j["cpu"], j["gpu"], j["conclusion"]
assert c["logical_cpus"] == $(nproc) and c["model"] == """$model"""
assert g["found"] is False and "not found" in g["reason"] and g["devices"] == []
[b] = g["cuda_backend"]
assert b["device"] == "cuda:0" and b["usable"] is False and b["kernels"] is None
assert b["reason"].startswith("$not_found"), b["reason"]
assert b["host_to_device_gbps"] == {"pageable": None, "pinned": None} == b["device_to_host_gbps"]
assert b["peak_gflops"] == {"fp32": None, "bf16": None, "fp16": None}
assert k["device"] == "cpu" and k["device_reason"] == "no GPU found"
assert k["memory_limit_bytes"] == 256 << 20 and k["largest_windows_batch_size"] > 0
EOF
fi
for key in cpu gpu conclusion model avx512f avx512_bf16 amx_works peak_gflops found reason devices cuda_backend \
           usable host_to_device_gbps device_to_host_gbps device precision largest_windows_batch_size; do
    check "json key $key" "grep -q '\"$key\":' '$tmp/json'"
done

# oneDNN's implementations as the doctor names them are the ones oneDNN
# itself reports creating (ONEDNN_VERBOSE=2) for the N-HiTS layer's
# product (256x512 by 512x512): the doctor's "AMX works" rests on the bf16
# one, so it must be oneDNN's own word, not a guess from CPUID.
ONEDNN_VERBOSE=2 "$fcast" doctor --quick --json >"$tmp/verbose" 2>&1
grep -v '^onednn_verbose' "$tmp/verbose" >"$tmp/vjson"
python3 - "$tmp/verbose" "$tmp/vjson" >"$tmp/impl_check" 2>&1 <<'EOF'
import json, sys
made = {}
for line in open(sys.argv[1]):
    f = line.strip().split(",")
    if line.startswith("onednn_verbose,create") and f[3] == "matmul" and f[-2] == "256x512:512x512:256x512":
        made[f[6].split(":")[0].replace("src_", "")] = f[4]
c = json.load(open(sys.argv[2]))["cpu"]
assert made.get("f32") == c["onednn_fp32_impl"], (made, c["onednn_fp32_impl"])
assert made.get("bf16") == c["onednn_bf16_impl"], (made, c["onednn_bf16_impl"])
assert c["amx_works"] == (c["amx_fcast_kernel"] == "used" or "amx" in (c["onednn_bf16_impl"] or ""))
print("oneDNN made", made)
EOF
check "oneDNN's implementations as oneDNN reports them ($(tail -1 "$tmp/impl_check"))" "grep -q '^oneDNN made' '$tmp/impl_check'"
# The bf16 path and why, in the text and the JSON alike.
check "bf16 path and its reason" "grep -qE '^  bf16 kernels: .+ \(.+\)\$' '$tmp/text'"
json_check "bf16 reason in the JSON" "$tmp/vjson" <<EOF
c = j["cpu"]
assert c["bf16_reason"] and c["bf16_kernel"] in ("oneDNN", "oneDNN fp32 on bf16 values", "fcast's AMX", "fcast's AVX512-BF16")
assert ("bf16_onednn_gflops" in c) == (c["bf16_kernel"] != "fcast's AMX" and c["onednn_bf16_impl"] is not None)
EOF

# The stand-in NVML: 2 GPUs, 87 %, 16 GiB, 61 C, 210.5 W.
if [ -f "$fake" ]; then
    FCAST_NVML_LIBRARY=$fake "$fcast" doctor --quick >"$tmp/fake" 2>&1
    check "fake: 2 GPUs and versions" "grep -q '2 GPUs; driver 550.54.15, CUDA 12.4' '$tmp/fake'"
    check "fake: name, capability" "[ \"\$(grep -c 'GPU [01]: Fake GPU 16GB' '$tmp/fake')\" = 2 ] && grep -q 'compute capability: 8.0' '$tmp/fake'"
    check "fake: memory" "grep -q '15.0 GiB free of 16.0 GiB' '$tmp/fake'"
    check "fake: PCIe, MIG" "grep -q 'gen 4 x16 (max gen 5 x16)' '$tmp/fake' && grep -q 'MIG mode: *enabled' '$tmp/fake'"
    check "fake: sample" "[ \"\$(grep -c '87 % busy, 61 C, 210.5 W' '$tmp/fake')\" = 2 ]"
    check "fake: GPU figures not faked, one line for both GPUs" "grep -q '^  cuda:0 to cuda:1: $gpu_line: $not_found' '$tmp/fake'"
    check "fake: device still the CPU, saying why" "grep -q 'device: *cpu (GPU found, but cuda:0 cannot run: $not_found' '$tmp/fake'"
    FCAST_NVML_LIBRARY=$fake FAKE_NVML_FAIL=describe "$fcast" doctor --quick >"$tmp/unknown" 2>&1
    check "fake without descriptions: unknown, not a failure" "[ $? -eq 0 ] && grep -q 'GPU 0: unknown' '$tmp/unknown' && grep -q 'driver unknown, CUDA unknown' '$tmp/unknown'"
    FCAST_NVML_LIBRARY=$fake "$fcast" doctor --quick --json >"$tmp/fake.json" 2>&1
    check "fake json: count and power" "grep -q '\"count\": 2' '$tmp/fake.json' && grep -q '\"power_w\": 210.5' '$tmp/fake.json'"
    check "fake json: a backend entry per GPU" "[ \"\$(grep -c '\"device\": \"cuda:[01]\"' '$tmp/fake.json')\" = 2 ]"
else
    echo "skipped: $fake not built" >&2
fi

# The stand-in CUDA backend: present, but no GPU; its reason is reported.
if [ -f "$fake_cuda" ]; then
    FCAST_NVML_LIBRARY=$tmp/none FCAST_CUDA_BACKEND=$fake_cuda "$fcast" doctor --quick >"$tmp/fc" 2>&1
    check "stand-in backend: its reason" \
          "grep -q '^  cuda:0: $gpu_line: no CUDA device: cudaGetDeviceCount returned 0' '$tmp/fc'"
    FCAST_NVML_LIBRARY=$tmp/none FCAST_CUDA_BACKEND=$fake_cuda "$fcast" doctor --quick --json >"$tmp/fc.json" 2>&1
    check "stand-in backend json: the reason" "grep -q '\"reason\": \"no CUDA device: cudaGetDeviceCount returned 0\"' '$tmp/fc.json'"
else
    echo "skipped: $fake_cuda not built" >&2
fi

# A usable cuda:0 (a CPU backend in its place). --quick: usable, not measured.
gpu() { FCAST_NVML_LIBRARY=${nvml:-$tmp/none} FCAST_TEST_DOCTOR_GPU=cpu "$fcast" doctor "$@"; }
gpu --quick --memory-limit 1GiB >"$tmp/gq" 2>&1
check "usable GPU, --quick: said, nothing measured" "grep -q '^  cuda:0 (CUDA backend, cpu): $gpu_line (--quick)' '$tmp/gq'"
check "usable GPU, --quick: auto takes it" "grep -q 'device: *cuda:0 (the CUDA backend runs on it' '$tmp/gq'"
check "usable GPU, --quick: bf16, peak unmeasured" "grep -q 'precision: *bf16 (bf16 tensor cores .*peak not measured (--quick))' '$tmp/gq'"
# Measured: bandwidth both ways from both kinds of memory, three peaks, the plan on it.
gpu --memory-limit 1GiB >"$tmp/gm" 2>&1
check "usable GPU: run succeeds" "[ $? -eq 0 ]"
check "CPU peaks measured too" "grep -qE '^  matrix-product peak .*: fp32 [0-9.]+ GFLOP/s, bf16 [0-9.]+ GFLOP/s\$' '$tmp/gm'"
check "usable GPU: host->device" "grep -qE '^    host->device: [0-9.]+ GB/s pageable, [0-9.]+ GB/s pinned \(64 MiB copies, best of 5\)' '$tmp/gm'"
check "usable GPU: device->host" "grep -qE '^    device->host: [0-9.]+ GB/s pageable, [0-9.]+ GB/s pinned\$' '$tmp/gm'"
check "usable GPU: three peaks" \
      "grep -qE '^    matrix-product peak .*: fp32 [0-9.]+ GFLOP/s, bf16 [0-9.]+ GFLOP/s, fp16 [0-9.]+ GFLOP/s\$' '$tmp/gm'"
check "usable GPU: the conclusion's device and batch" \
      "grep -q 'device: *cuda:0' '$tmp/gm' && grep -qE 'within 1.0 GiB .--memory-limit.: [0-9]+\$' '$tmp/gm'"
if command -v python3 >/dev/null; then
    gpu --json --memory-limit 1GiB >"$tmp/gm.json" 2>&1
    json_check "usable GPU json: figures and conclusion" "$tmp/gm.json" <<'EOF'
[b] = j["gpu"]["cuda_backend"]
assert b["usable"] is True and b["reason"] is None and b["copy_bytes"] == 64 << 20, b
for key in ("host_to_device_gbps", "device_to_host_gbps"):
    assert sorted(b[key]) == ["pageable", "pinned"] and all(v > 0 for v in b[key].values()), b[key]
assert sorted(b["peak_gflops"]) == ["bf16", "fp16", "fp32"] and all(v > 0 for v in b["peak_gflops"].values())
k = j["conclusion"]
assert k["device"] == "cuda:0" and k["largest_windows_batch_size"] > 0, k
EOF
    # Without --memory-limit on a GPU: at most GPU 0's free memory (15 GiB in the stand-in NVML).
    if [ -f "$fake" ]; then
        nvml=$fake gpu --quick --json >"$tmp/gl.json" 2>&1
        json_check "usable GPU: limit at most GPU 0's free memory" "$tmp/gl.json" <<'EOF'
k = j["conclusion"]
assert k["memory_limit_bytes"] <= 15 << 30, k
assert k["memory_limit_source"] in ("GPU 0's free memory", "available memory"), k
assert len(j["gpu"]["cuda_backend"]) == 2 and all(b["usable"] for b in j["gpu"]["cuda_backend"])
EOF
    fi
fi

# Errors: an unknown flag is a usage error, a bad limit an invalid value.
"$fcast" doctor --bogus >/dev/null 2>&1
check "unknown flag: exit 2" "[ $? -eq 2 ]"
"$fcast" doctor --quick --memory-limit lots >/dev/null 2>"$tmp/err"
check "bad --memory-limit: exit 4 naming the flag" "[ $? -eq 4 ] && grep -q 'memory-limit' '$tmp/err'"
finish
