#!/usr/bin/env bash
# scripts/gpu-check.sh, which a GPU machine runs for minutes now and then,
# run here on every CI run so it cannot rot between GPU runs: --cpu mode
# takes the same steps (the GPU tests through ctest -L gpu, where they
# skip; bench train; the serving tail through bench/serve_latency.py) on
# the CPU with small sizes, so its commands, flags and summary are checked;
# and every Debian package --fetch would download exists (apt-cache).
# $1 is the fcast binary (its build directory is the one used).
set -uo pipefail
source tests/lib_cli.sh
build=$(dirname "$(realpath "$1")")

OUT="$tmp/out" scripts/gpu-check.sh --cpu "$build" > "$tmp/log" 2>&1; rc=$?
check "gpu-check.sh --cpu exits 0 ($rc: $(tail -5 "$tmp/log"))" "[ $rc -eq 0 ]"
for s in ctest_gpu bench_train serve_tail nf_script ensemble; do
  check "the summary has step $s, passed" "grep -Eq '^$s +passed' '$tmp/out/summary.txt'"
done
check "the summary has bench train's table, an fp32 row" "grep -Eq '^fp32 +oneDNN +[0-9.]+ +[0-9]+' '$tmp/out/summary.txt'"
check "the summary has the CPU server's latencies, every request answered" \
  "grep -Eq '^device cpu: requests 200 clients 16 ok 200 p50_ms [0-9.]+ p90_ms [0-9.]+ p99_ms [0-9.]+' '$tmp/out/summary.txt'"
check "the neuralforecast script's test is found (collected, or skipped without pandas)" \
  "grep -Eq '^nf_script: ([0-9]+ tests collected|skipped: )' '$tmp/out/summary.txt'"
check "the summary has the ensemble's members/s side by side, and the same file" \
  "grep -Eq '^  side by side: +[0-9.]+ members/s' '$tmp/out/summary.txt' && grep -Eq '^  same file: (yes|no, the same weights within 1e-5 \\(an AVX2 CPU)' '$tmp/out/summary.txt'"
check "each step's log is kept" "[ -s '$tmp/out/bench_train.log' ] && [ -s '$tmp/out/serve_tail.log' ]"
"$(realpath scripts/gpu-check.sh)" --bogus > /dev/null 2>&1
check "an unknown option is a usage error" "[ $? -eq 2 ]"
policy=$(apt-cache policy libc6 2> /dev/null)   # (read whole: grep -q closing a pipe would fail it under pipefail)
if [[ "$policy" == *Candidate:* ]]; then
  missing=""
  for p in $(scripts/gpu-check.sh --list-debs); do apt-cache show "$p" > /dev/null 2>&1 || missing="$missing $p"; done
  check "the packages --fetch downloads exist ($missing)" "[ -z '$missing' ]"
else
  echo "skipped: apt's package lists are absent (the --fetch list is not checked)"
fi
finish
