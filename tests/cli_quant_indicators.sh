#!/usr/bin/env bash
# fcast quant indicators through the CLI binary: the header and values on
# data/eu_stock_markets.csv against the TA-Lib fixtures, the --nan policies on
# a small file with a gap (hand-computed), short-series warnings, and clear
# errors (non-zero exit, the argument named) on bad specs and bad files.
# Usage: cli_quant_indicators.sh FCAST
set -u
FCAST="$1"
DATA=data/eu_stock_markets.csv
FIX=tests/fixtures/quant
source tests/lib_quant_cli.sh
# column FILE NAME: index (1-based) of column NAME in FILE's header (skipping # lines)
column() { awk -F, -v n="$2" '/^#/ { next } { for (i = 1; i <= NF; i++) if ($i == n) print i; exit }' "$1"; }
# compare_with_fixture OUT OUTCOL FIXTURE FIXCOL SERIES: every row of SERIES
# within 1e-9 relative, empty cells (NaN) at the same rows.
compare_with_fixture() {
  local out="$1" oc fc
  oc="$(column "$1" "$2")"; fc="$(column "$3" "$4")"
  ok
  if [ -z "$oc" ] || [ -z "$fc" ]; then fail "column $2 or $4 missing"; return; fi
  awk -F, -v oc="$oc" -v fc="$fc" -v s="$5" -v name="$2" '
    FNR == 1 { file++ }
    /^#/ || $1 != s { next }
    file == 1 { want[$2] = $fc; n++; next }
    { seen++
      if (!($2 in want)) { print name " ds " $2 ": not in the fixture"; bad++; next }
      a = $oc; b = want[$2]
      if ((a == "") != (b == "")) { print name " ds " $2 ": " a " vs " b; bad++; next }
      if (a == "") next
      d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b
      if (d > 1e-9 * m + 1e-12) { print name " ds " $2 ": " a " vs " b; bad++ } }
    END { if (seen != n || bad) { print name ": " bad " bad of " seen " (fixture " n ")"; exit 1 } }
  ' "$3" "$out" >"$TMP/cmp" || fail "$(head -5 "$TMP/cmp")"
}

# --- the issue's example on the bundled prices
"$FCAST" quant indicators --data "$DATA" --ind sma:20,rsi:14,bbands:20:2,macd:12:26:9 --out "$TMP/ind.csv" \
  2>"$TMP/err" || fail "indicators exited non-zero: $(cat "$TMP/err")"
ok
header="unique_id,ds,sma_20,rsi_14,bbands_20_2_upper,bbands_20_2_middle,bbands_20_2_lower,macd_12_26_9_macd,macd_12_26_9_signal,macd_12_26_9_hist"
[ "$(head -1 "$TMP/ind.csv")" = "$header" ] || fail "header: $(head -1 "$TMP/ind.csv")"
ok
[ "$(wc -l <"$TMP/ind.csv")" -eq 7441 ] || fail "expected 7440 rows + header, got $(wc -l <"$TMP/ind.csv")"
[ -s "$TMP/err" ] && fail "unexpected stderr: $(cat "$TMP/err")"
# The first 19 SMA(20) cells of a series are empty, the 20th is the mean of 20 closes.
ok
awk -F, '$1 == "DAX" && $2 <= 19 && $3 != "" { bad = 1 } $1 == "DAX" && $2 == 20 && $3 == "" { bad = 1 } END { exit bad }' \
  "$TMP/ind.csv" || fail "sma_20 lookback cells"
ok
mean20="$(awk -F, '$1 == "DAX" && $2 <= 20 { s += $3 } END { printf "%.10f", s / 20 }' "$DATA")"
got="$(awk -F, '$1 == "DAX" && $2 == 20 { printf "%.10f", $3 }' "$TMP/ind.csv")"
[ "$got" = "$mean20" ] || fail "DAX sma_20 at ds 20: $got, mean of the first 20 closes $mean20"
# Every DAX value against TA-Lib (params fixture: first 1200 points; eu fixture: all).
for c in sma_20 bbands_20_2_upper bbands_20_2_middle bbands_20_2_lower macd_12_26_9_macd macd_12_26_9_signal \
         macd_12_26_9_hist; do
  awk -F, 'NR == 1 || ($1 == "DAX" && $2 <= 1200)' "$TMP/ind.csv" >"$TMP/dax1200.csv"
  compare_with_fixture "$TMP/dax1200.csv" "$c" "$FIX/indicators_params.csv" "$c" DAX
done
for s in DAX SMI CAC FTSE; do compare_with_fixture "$TMP/ind.csv" rsi_14 "$FIX/indicators_eu.csv" rsi "$s"; done

# --- defaults and threads give the same values
"$FCAST" quant indicators --data "$DATA" --ind bbands,macd --threads 1 --out "$TMP/def.csv" || fail "defaults run"
ok
for c in bbands_upper bbands_lower macd_signal; do compare_with_fixture "$TMP/def.csv" "$c" "$FIX/indicators_eu.csv" "$c" FTSE; done

# --- NaN policies on a series with a gap: 1 2 3 _ 5 6 7 8, SMA(2)
printf 'unique_id,ds,y\nA,1,1\nA,2,2\nA,3,3\nA,4,\nA,5,5\nA,6,6\nA,7,7\nA,8,8\nB,1,4\n' >"$TMP/gap.csv"
"$FCAST" quant indicators --data "$TMP/gap.csv" --ind sma:2 --out "$TMP/poison.csv" 2>"$TMP/err" || fail "poison run"
ok
[ "$(awk -F, '$1 == "A" { printf "%s;", $3 }' "$TMP/poison.csv")" = ";1.5;2.5;;;;;;" ] \
  || fail "poison: $(awk -F, '$1 == "A" { printf "%s;", $3 }' "$TMP/poison.csv")"
ok
grep -qF "warning: series 'B' (1 point) is too short for 'sma:2' (needs at least 2 points)" "$TMP/err" \
  || fail "short-series warning: $(cat "$TMP/err")"
"$FCAST" quant indicators --data "$TMP/gap.csv" --ind sma:2 --nan restart --out "$TMP/restart.csv" 2>/dev/null \
  || fail "restart run"
ok
[ "$(awk -F, '$1 == "A" { printf "%s;", $3 }' "$TMP/restart.csv")" = ";1.5;2.5;;;5.5;6.5;7.5;" ] \
  || fail "restart: $(awk -F, '$1 == "A" { printf "%s;", $3 }' "$TMP/restart.csv")"
ok
[ "$(awk -F, '$1 == "B" { printf "%s;", $3 }' "$TMP/restart.csv")" = ";" ] || fail "short series B not empty"

# --- errors name the argument or the file and line; no output file is left
expect_error 2 "--ind: 'sma:0': period must be >= 1" -- quant indicators --data "$DATA" --ind sma:0 --out "$TMP/e.csv"
expect_error 2 "--ind: 'foo:3': unknown indicator 'foo'" -- quant indicators --data "$DATA" --ind sma:20,foo:3 --out "$TMP/e.csv"
expect_error 2 "--ind: 'rsi:abc': period must be an integer" -- quant indicators --data "$DATA" --ind rsi:abc --out "$TMP/e.csv"
expect_error 2 "--ind: 'rsi:1': period must be >= 2" -- quant indicators --data "$DATA" --ind rsi:1 --out "$TMP/e.csv"
expect_error 2 "--ind: 'bbands:20:x': nbdevup must be a number" -- quant indicators --data "$DATA" --ind bbands:20:x --out "$TMP/e.csv"
expect_error 2 "--ind: 'sma:20': given twice" -- quant indicators --data "$DATA" --ind sma:20,sma:20 --out "$TMP/e.csv"
expect_error 4 "--ind: 'sma:5000' needs at least 5000 points (its lookback, 4999, plus one) but the longest series of $DATA has 1860 from its first value" -- quant indicators --data "$DATA" --ind sma:5000 --out "$TMP/e.csv"
# under --nan restart what counts is the longest run between NaNs (1 here), not the series' 5 rows
printf 'unique_id,ds,y\nA,1,1\nA,2,\nA,3,3\nA,4,\nA,5,5\n' >"$TMP/gaps.csv"
expect_error 4 "--ind: 'sma:2' needs at least 2 values in a row (its lookback, 1, plus one; --nan restart starts afresh after each NaN) but the longest run of values in $TMP/gaps.csv has 1" -- quant indicators --data "$TMP/gaps.csv" --ind sma:2 --nan restart --out "$TMP/e.csv"
printf 'unique_id,ds,y\nA,1,\nA,2,\n' >"$TMP/empty_y.csv"
expect_error 4 "--ind: 'sma:1' needs at least 1 point (its lookback, 0, plus one) but $TMP/empty_y.csv holds no value, only NaN" -- quant indicators --data "$TMP/empty_y.csv" --ind sma:1 --out "$TMP/e.csv"
expect_error 2 "--nan: expected 'poison' or 'restart', got 'maybe'" -- quant indicators --data "$DATA" --ind sma:5 --nan maybe --out "$TMP/e.csv"
expect_error 2 "--out is required" -- quant indicators --data "$DATA" --ind sma:5
printf 'unique_id,ds,y\nA,1,1\nA,2,oops\n' >"$TMP/bad.csv"
expect_error 3 "bad.csv:3" -- quant indicators --data "$TMP/bad.csv" --ind sma:2 --out "$TMP/e.csv"
ok
[ -e "$TMP/e.csv" ] && fail "a failed run left $TMP/e.csv"

quant_finish cli_quant_indicators
