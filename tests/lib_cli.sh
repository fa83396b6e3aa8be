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
# close_weights A B TOL: two model files hold the same tensors (names,
# shapes) with every F32 value within TOL relative (of max(1, |b|)) of the
# other's: for weights computed on another CPU, whose kernels may sum in
# another order (a fixture written on AVX-512, read on AVX2).
close_weights() { python3 scripts/close-weights.py "$1" "$2" "$3"; }
# bitwise_across_threads: whether this CPU's fp32 training is the same bits
# on any thread count. On AVX-512 oneDNN's products sum a row alike however
# the threads split the work; on AVX2-only CPUs (AMD Zen 3) its kernels
# split the sums by thread, and the last bits differ (docs/training.md).
bitwise_across_threads() { grep -qw avx512f /proc/cpuinfo; }
# edit_meta CK OUT KEY VALUE: CK with metadata KEY set to VALUE (the header
# padded with spaces to a multiple of 8 bytes, as safetensors allows).
edit_meta() {
  local len header n i
  len=$(od -An -tu8 -N8 "$1" | tr -d ' ')
  header=$(head -c $((8 + len)) "$1" | tail -c "$len" | sed -E "s/\"$3\":\"[^\"]*\"/\"$3\":\"$4\"/")
  n=$(( (${#header} + 7) / 8 * 8 ))
  { for i in 0 1 2 3 4 5 6 7; do printf "\\$(printf '%03o' $(( (n >> (8 * i)) & 255 )))"; done
    printf '%-*s' "$n" "$header"; tail -c +$((9 + len)) "$1"; } >"$2"
}
