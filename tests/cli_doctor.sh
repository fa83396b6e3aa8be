#!/usr/bin/env bash
# fcast doctor on a machine without a GPU: the text run says no GPU was
# found and why, and still reports the CPU (model and cores as /proc/cpuinfo
# and nproc give them) and a conclusion; --json is one object with the same
# facts; against the stand-in NVML (libfake_nvml.so, built beside fcast)
# the GPU section shows the stand-in's figures. --quick (no timed peaks)
# keeps it to about a second, but one run measures the peaks. $1 is fcast.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
fake=$(dirname "$fcast")/libfake_nvml.so

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

# This machine's own NVML name: the reason the issue asks for.
if ! ldconfig -p 2>/dev/null | grep -q libnvidia-ml.so.1; then
    env -u FCAST_NVML_LIBRARY "$fcast" doctor --quick >"$tmp/default" 2>&1
    check "default: libnvidia-ml.so.1 not found" "grep -q 'none: no NVIDIA driver: libnvidia-ml.so.1 not found' '$tmp/default'"
fi

# A smaller limit gives a smaller batch.
batch() { FCAST_NVML_LIBRARY=$tmp/none "$fcast" doctor --quick --memory-limit "$1" | sed -nE 's/.*within .*: ([0-9]+)$/\1/p'; }
small=$(batch 64MiB) large=$(batch 1GiB)
check "batch grows with the limit ($small < $large)" "[ -n '$small' ] && [ -n '$large' ] && [ '$small' -lt '$large' ]"

# --data: the plan on the user's file, named in the output.
FCAST_NVML_LIBRARY=$tmp/none "$fcast" doctor --quick --data data/taylor_halfhourly.csv --memory-limit 1GiB >"$tmp/data" 2>&1
check "--data named" "[ $? -eq 0 ] && grep -q 'data for the plan: data/taylor_halfhourly.csv' '$tmp/data'"

# JSON: parses, has the keys.
FCAST_NVML_LIBRARY=$tmp/none "$fcast" doctor --quick --json --memory-limit 256MiB >"$tmp/json" 2>"$tmp/err"
check "json run succeeds" "[ $? -eq 0 ]"
if command -v python3 >/dev/null; then
    check "json parses" "python3 -c 'import json,sys; json.load(sys.stdin)' <'$tmp/json'"
    check "json facts" "python3 -c '
import json, sys
j = json.load(sys.stdin)
c, g, k = j[\"cpu\"], j[\"gpu\"], j[\"conclusion\"]
assert c[\"logical_cpus\"] == $(nproc) and c[\"model\"] == sys.argv[1]
assert g[\"found\"] is False and \"not found\" in g[\"reason\"] and g[\"devices\"] == []
assert g[\"host_device_bandwidth\"].startswith(\"not measured\")
assert k[\"device\"] == \"cpu\" and k[\"memory_limit_bytes\"] == 256 << 20 and k[\"largest_windows_batch_size\"] > 0
' \"\$model\" <'$tmp/json'"
fi
for key in cpu gpu conclusion model avx512f avx512_bf16 amx_works peak_gflops found reason devices \
           device precision largest_windows_batch_size; do
    check "json key $key" "grep -q '\"$key\":' '$tmp/json'"
done

# The stand-in NVML: 2 GPUs, 87 %, 16 GiB, 61 C, 210.5 W.
if [ -f "$fake" ]; then
    FCAST_NVML_LIBRARY=$fake "$fcast" doctor --quick >"$tmp/fake" 2>&1
    check "fake: 2 GPUs and versions" "grep -q '2 GPUs; driver 550.54.15, CUDA 12.4' '$tmp/fake'"
    check "fake: name, capability" "[ \"\$(grep -c 'GPU [01]: Fake GPU 16GB' '$tmp/fake')\" = 2 ] && grep -q 'compute capability: 8.0' '$tmp/fake'"
    check "fake: memory" "grep -q '15.0 GiB free of 16.0 GiB' '$tmp/fake'"
    check "fake: PCIe, MIG" "grep -q 'gen 4 x16 (max gen 5 x16)' '$tmp/fake' && grep -q 'MIG mode: *enabled' '$tmp/fake'"
    check "fake: sample" "[ \"\$(grep -c '87 % busy, 61 C, 210.5 W' '$tmp/fake')\" = 2 ]"
    check "fake: GPU figures not faked" "[ \"\$(grep -c 'not measured: needs the CUDA backend (issue 11)' '$tmp/fake')\" = 2 ]"
    check "fake: device still the CPU" "grep -q 'device: *cpu (GPU found, but fcast has no CUDA backend yet' '$tmp/fake'"
    FCAST_NVML_LIBRARY=$fake FAKE_NVML_FAIL=describe "$fcast" doctor --quick >"$tmp/unknown" 2>&1
    check "fake without descriptions: unknown, not a failure" "[ $? -eq 0 ] && grep -q 'GPU 0: unknown' '$tmp/unknown' && grep -q 'driver unknown, CUDA unknown' '$tmp/unknown'"
    FCAST_NVML_LIBRARY=$fake "$fcast" doctor --quick --json >"$tmp/fake.json" 2>&1
    check "fake json: count and power" "grep -q '\"count\": 2' '$tmp/fake.json' && grep -q '\"power_w\": 210.5' '$tmp/fake.json'"
else
    echo "skipped: $fake not built" >&2
fi

# One run with the timed peaks (about a second).
FCAST_NVML_LIBRARY=$tmp/none "$fcast" doctor --memory-limit 512MiB >"$tmp/full" 2>&1
check "peaks measured" "grep -qE 'fp32 [0-9.]+ GFLOP/s, bf16 [0-9.]+ GFLOP/s' '$tmp/full'"

# Errors: an unknown flag is a usage error, a bad limit an invalid value.
"$fcast" doctor --bogus >/dev/null 2>&1
check "unknown flag: exit 2" "[ $? -eq 2 ]"
"$fcast" doctor --quick --memory-limit lots >/dev/null 2>"$tmp/err"
check "bad --memory-limit: exit 4 naming the flag" "[ $? -eq 4 ] && grep -q 'memory-limit' '$tmp/err'"
finish
