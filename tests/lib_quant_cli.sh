# Shared by the tests/cli_quant_*.sh scripts (sourced after FCAST is set,
# from the repository root): a temporary directory removed on exit, check
# counting, the checks of an exit status and message, of a JSON number and
# of a tolerance, and the closing line ctest reads.
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
failures=0
checks=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { checks=$((checks + 1)); }
# json_field JSON NAME: the number after "NAME":
json_field() { echo "$1" | sed -n "s/.*\"$2\": *\([-0-9.eE+]*\).*/\1/p"; }
# expect_error CODE NEEDLE -- ARGS...: fcast ARGS exits CODE with NEEDLE (a fixed string) on stderr
expect_error() {
  local code="$1" needle="$2"; shift 3
  "$FCAST" "$@" >"$TMP/out" 2>"$TMP/err"; local rc=$?
  ok
  if [ "$rc" -ne "$code" ]; then fail "fcast $* exited $rc, expected $code: $(cat "$TMP/err")"; return; fi
  grep -qF -- "$needle" "$TMP/err" || fail "fcast $*: stderr lacks '$needle': $(cat "$TMP/err")"
}
# close A B TOL: both given and |A - B| <= TOL
close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= t) }'; }
# quant_finish NAME: the counts; non-zero exit on any failure
quant_finish() { echo "$1: $checks checks, $failures failed"; [ "$failures" -eq 0 ]; }
