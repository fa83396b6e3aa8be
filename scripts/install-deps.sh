#!/usr/bin/env bash
# Installs the Debian packages fcast builds against. Idempotent and
# non-interactive; prints nothing when everything is already present.
#   scripts/install-deps.sh          what building and running fcast needs
#   scripts/install-deps.sh --test   that, and what the test suite needs too
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  libdnnl-dev        # oneDNN: CPU matrix products (fp32/bf16, fused post-ops)
  libjansson-dev     # JSON: safetensors headers, HTTP requests
  liblapack-dev      # LAPACK: portfolio weights (quant)
  libyaml-dev        # YAML: run configuration files (--config)
  libmicrohttpd-dev  # HTTP: fcast serve
  libopenmpi-dev openmpi-bin   # MPI: data-parallel training with mpirun (docs/distributed.md)
)
TEST_PACKAGES=(
  time               # /usr/bin/time -v: the memory-limit test measures peak resident memory with it
  chromium           # headless browser: the report test renders the HTML report in it
  curl               # HTTP client: the serve tests talk to the server with it
  python3            # the serve tests build JSON requests and read answers with it
  python3-numpy python3-pandas python3-pytest   # the Python package's tests (tests/python)
  python3-venv       # a clean environment for the test that pip-installs the package
)
[ "${1:-}" = "--test" ] && PACKAGES+=("${TEST_PACKAGES[@]}")

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
