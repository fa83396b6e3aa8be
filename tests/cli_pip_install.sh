#!/usr/bin/env bash
# The README's Python install, as a user runs it: `pip install .` in a
# fresh virtual environment (scikit-build-core compiles libfcast.so from
# this tree into the package, pyproject.toml), then the package's tests
# (tests/python) against the installed package, from outside the source
# tree, with no FCAST_LIBRARY: the library found is the wheel's. numpy and
# pandas come from the system (--system-site-packages: Debian's, from
# scripts/install-deps.sh --test); pip fetches the build backend from PyPI.
# neuralforecast's tutorial scripts and the GPU-style script
# (test_nf_scripts.py, test_nf_gpu_script.py, a minute of training) run
# once, against the build (tests/cli_python.sh).
# Skipped under AddressSanitizer (the wheel is a plain build; the sanitized
# build's own library is not involved). $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh

if sanitized "$fcast"; then echo "skipped: the wheel is not a sanitized build"; exit 0; fi
py=/usr/bin/python3
command -v python3 > /dev/null && python3 -c "import numpy, pandas, pytest, venv" 2> /dev/null && py=python3
src=$(pwd)
before=$(git -C "$src" status --porcelain 2> /dev/null)
"$py" -m venv --system-site-packages "$tmp/venv" 2> "$tmp/err.txt"
check "a virtual environment (python3-venv)" "[ $? -eq 0 ] && [ -x $tmp/venv/bin/pip ]"
timeout 900 "$tmp/venv/bin/pip" install -q --disable-pip-version-check "$src" > "$tmp/pip.txt" 2>&1
rc=$?
check "pip install . builds and installs the package" "[ $rc -eq 0 ]"
[ $rc -eq 0 ] || tail -20 "$tmp/pip.txt"
check "the wheel carries libfcast.so beside the modules" \
    "ls $tmp/venv/lib/python3*/site-packages/fcast/libfcast.so > /dev/null 2>&1"
after=$(git -C "$src" status --porcelain 2> /dev/null)
check "pip leaves nothing in the source tree" "[ \"\$before\" = \"\$after\" ]"
cp -r tests/python "$tmp/tests_python"
(cd "$tmp" && env -u FCAST_LIBRARY FCAST_BIN="$fcast" FCAST_DATA="$src/data" FCAST_FIXTURES="$src/tests/fixtures" timeout 600 \
    "$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider \
    --ignore=tests_python/test_nf_scripts.py --ignore=tests_python/test_nf_gpu_script.py tests_python) > "$tmp/pytest.txt" 2>&1
rc=$?
check "the package's tests pass against the installed package" "[ $rc -eq 0 ]"
[ $rc -eq 0 ] || tail -30 "$tmp/pytest.txt"
(cd "$tmp" && "$tmp/venv/bin/python" -c "import fcast, os; print(os.path.dirname(fcast.__file__))") > "$tmp/where.txt" 2>&1
check "import fcast finds the installed package, not the source tree" "grep -q site-packages $tmp/where.txt"
finish
