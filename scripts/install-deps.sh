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
  mmdebstrap         # the deploy test builds the image's Debian 12 root filesystem without a container runtime
  systemd            # systemd-analyze verify: the deploy test checks deploy/fcast-serve.service
)
[ "${1:-}" = "--test" ] && PACKAGES+=("${TEST_PACKAGES[@]}")

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# What the test suite needs that Debian does not package: from PyPI, pinned,
# into a virtual environment of its own (Debian's Python is externally
# managed), whose requirements.txt says what it holds.
TEST_VENV=/opt/fcast-test-tools
TEST_PYPI=(
  kubernetes-validate==1.31.0   # the deploy test checks deploy/kubernetes.yaml against Kubernetes' schemas
)
if [ "${1:-}" = "--test" ] && [ "$(cat "$TEST_VENV/requirements.txt" 2>/dev/null)" != "$(printf '%s\n' "${TEST_PYPI[@]}")" ]; then
  echo "install-deps: installing ${TEST_PYPI[*]} from PyPI into $TEST_VENV"
  $SUDO python3 -m venv "$TEST_VENV"
  $SUDO "$TEST_VENV/bin/pip" install -q --disable-pip-version-check "${TEST_PYPI[@]}"
  printf '%s\n' "${TEST_PYPI[@]}" | $SUDO tee "$TEST_VENV/requirements.txt" >/dev/null
fi
