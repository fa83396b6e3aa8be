# Shared by the tests/cli_*.sh scripts (sourced, not run): a temporary
# directory removed on exit, a check that counts passes and failures, and
# the closing line ctest reads.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 passes=0
# check NAME CONDITION: evaluates CONDITION; a failure is reported by NAME.
check() { if eval "$2"; then passes=$((passes + 1)); else echo "FAIL: $1" >&2; fails=$((fails + 1)); fi; }
# finish: prints the counts and exits non-zero on any failure.
finish() { echo "$passes passed, $fails failed"; [ "$fails" -eq 0 ]; }
# sanitized BINARY: true when BINARY runs under AddressSanitizer, whose
# shadow memory makes resident-size limits meaningless. (Not `ldd | grep -q`:
# under pipefail, grep's early exit can kill ldd with SIGPIPE and fail it.)
sanitized() { [[ "$(ldd "$1" 2>/dev/null)" == *libasan* ]]; }
# same_weights A B: two model files (safetensors) hold the same tensors,
# byte for byte, whatever their metadata says (the run's configuration as
# it was given: flags, a --config file, tune's best trial).
same_weights() {
    local ha hb
    ha=$(od -An -tu8 -N8 "$1" | tr -d ' ') && hb=$(od -An -tu8 -N8 "$2" | tr -d ' ') &&
        [ -n "$ha" ] && [ -n "$hb" ] && cmp -s <(tail -c +$((9 + ha)) "$1") <(tail -c +$((9 + hb)) "$2")
}
