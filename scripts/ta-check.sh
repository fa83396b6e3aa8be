#!/usr/bin/env bash
# Builds the TA-Lib function set and its fixture test on their own (a few
# seconds, without the rest of fcast) and checks the named functions
# against TA-Lib's outputs:
#
#     scripts/ta-check.sh ATR NATR          # or no names: every function
#     scripts/ta-check.sh --verbose ADX     # every differing bar
#
# The same test runs in `ctest` as test_ta_fixtures, built with the project.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${TA_CHECK_DIR:-/tmp/fcast-ta-check-$$}"
mkdir -p "$out"
cc="${CC:-gcc}"
"$cc" -std=c11 -O2 -march=native -fopenmp -Wall -Wextra -Werror=implicit-function-declaration \
    -D_GNU_SOURCE -DFC_SOURCE_DIR="\"$root\"" -I"$root/src" -I"$root/include" -I"$root/tests" \
    "$root"/src/quant/ta_*.c "$root/src/core/error.c" "$root/tests/test_ta_fixtures.c" \
    -o "$out/test_ta_fixtures" -lm -lpthread
status=0
"$out/test_ta_fixtures" "$@" || status=$?
rm -rf "$out"
exit $status
