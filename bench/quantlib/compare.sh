#!/usr/bin/env bash
# Paths per second of fcast's Monte Carlo European pricer (bench/bench_mc.c)
# against QuantLib's MCEuropeanEngine (bench/quantlib/mc_european.cpp) at
# equal paths, same contract, antithetic in both; prints both standard errors
# and the ratio.
#   bench/quantlib/compare.sh [PATHS] [BUILD_DIR]
# BUILD_DIR holds bench_mc (default: build; built with CMake if missing).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
paths="${1:-4000000}"
build="${2:-$root/build}"
if [ ! -x "$build/bench_mc" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" --target bench_mc -j2 >/dev/null
fi
ql_bin="$("$here/build.sh" --build-only)"
fc_out="$("$build/bench_mc" "$paths" 3)"
ql_out="$("$ql_bin" "$paths" 3)"
echo "$fc_out"
echo "$ql_out"
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
fc_rate="$(field "$fc_out" paths_per_second)"
ql_rate="$(field "$ql_out" paths_per_second)"
awk -v a="$fc_rate" -v b="$ql_rate" -v t="$(field "$fc_out" threads)" \
  'BEGIN { printf "ratio fcast/quantlib = %.1fx (fcast on %s threads, QuantLib on 1)\n", a / b, t }'
