#!/usr/bin/env bash
# Builds (and runs, unless --build-only) the QuantLib Monte Carlo benchmark.
# Needs the Debian package libquantlib0-dev (apt-get install -y libquantlib0-dev).
# Not part of CMake or CI.
#   bench/quantlib/build.sh [--build-only] [PATHS] [REPEATS]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${QL_BENCH_BIN:-/tmp/fcast-ql-mc-european}"
if ! [ -d /usr/include/ql ]; then
  echo "build.sh: QuantLib headers not found; run: apt-get install -y libquantlib0-dev" >&2
  exit 1
fi
if [ ! -x "$out" ] || [ "$here/mc_european.cpp" -nt "$out" ]; then
  g++ -O3 -march=native -DNDEBUG -std=c++17 "$here/mc_european.cpp" -o "$out" -lQuantLib
fi
if [ "${1:-}" = "--build-only" ]; then echo "$out"; exit 0; fi
"$out" "$@"
