#!/usr/bin/env bash
# The Python package's tests (tests/python, pytest; python/fcast over
# libfcast.so through ctypes) against this build: its libfcast.so and its
# fcast binary, beside $1. The interpreter is the first python3 that has
# numpy, pandas and pytest (scripts/install-deps.sh --test installs
# Debian's). Under AddressSanitizer the library cannot be loaded into a
# plain interpreter: skipped there (the C API has tests/test_api.c).
set -uo pipefail
fcast=$1
source tests/lib_cli.sh

build=$(cd "$(dirname "$fcast")" && pwd)
if sanitized "$fcast"; then echo "skipped: a sanitized libfcast.so needs its runtime preloaded into python"; exit 0; fi
py=""
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" > /dev/null && "$candidate" -c "import numpy, pandas, pytest" 2> /dev/null; then
    py=$candidate
    break
  fi
done
check "a python3 with numpy, pandas and pytest (scripts/install-deps.sh --test)" "[ -n '$py' ]"
check "the build has libfcast.so" "[ -f $build/libfcast.so ]"
if [ -n "$py" ] && [ -f "$build/libfcast.so" ]; then
  FCAST_LIBRARY=$build/libfcast.so FCAST_BIN=$fcast timeout 600 "$py" -m pytest -q -p no:cacheprovider tests/python
  check "the Python package's tests pass" "[ $? -eq 0 ]"
fi
finish
