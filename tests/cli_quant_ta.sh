#!/usr/bin/env bash
# TA-Lib's functions through `fcast quant indicators` on OHLCV files: the
# values on data/goog_daily_ohlcv.csv against the TA-Lib package's fixtures
# (tests/fixtures/talib/out: the first 300 bars of GOOG, which a longer run
# leaves unchanged), integer outputs written as integers, the columns named
# by flags, --list, and clear errors: a missing column named with its flag,
# a parameter out of TA-Lib's range, a malformed row naming file, line and
# column. Usage: cli_quant_ta.sh FCAST
set -u
FCAST="$1"
source tests/lib_cli.sh
GOOG=data/goog_daily_ohlcv.csv
OUT=tests/fixtures/talib/out

# expect_error CODE NEEDLE ARGS...: exit status CODE and NEEDLE on stderr
expect_error() {
    local code="$1" needle="$2"; shift 2
    "$FCAST" "$@" > "$tmp/out" 2> "$tmp/err"; local rc=$?
    check "fcast $* exits $code (got $rc)" "[ $rc -eq $code ]"
    check "fcast $*: stderr names '$needle' ($(head -c 300 "$tmp/err"))" "grep -qF -- \"$needle\" $tmp/err"
}

# matches_fixture CSV COLUMN FUNCTION OUTPUT: the column's first GOOG values
# (300, a pattern's 2148) equal the fixture's default GOOG line (within 1e-12 relative; empty = nan)
matches_fixture() {
    local csv="$1" col="$2" fn="$3" output="$4"
    python3 - "$csv" "$col" "$OUT/$fn.csv" "$output" <<'EOF'
import csv, math, sys
path, col, fixture, output = sys.argv[1:]
rows = list(csv.DictReader(open(path)))
want = next(r for r in csv.reader(open(fixture)) if r[0] == "default" and r[1] == "GOOG" and r[4] == output)
want = [float(v) for v in want[5:]]
got = [float(r[col]) if r[col] != "" else math.nan for r in rows if r["unique_id"] == "GOOG"][:len(want)]
assert len(got) == len(want) >= 300, (len(got), len(want))
for t, (a, b) in enumerate(zip(got, want)):
    same = (math.isnan(a) and math.isnan(b)) or a == b or abs(a - b) <= 1e-12 * abs(b)
    assert same, f"{col} bar {t}: {a} != TA-Lib {b}"
EOF
}

"$FCAST" quant indicators --data "$GOOG" --ind atr:14,adx,stoch:5:3:0:3:0,cdlengulfing,obv,bbands:20:2:2:1 \
    --out "$tmp/ta.csv" 2> "$tmp/err"
check "OHLCV indicators run ($(head -c 300 "$tmp/err"))" "[ -s $tmp/ta.csv ]"
check "one column per output, named by spec and output" \
      "head -1 $tmp/ta.csv | grep -qx 'unique_id,ds,atr_14,adx,stoch_5_3_0_3_0_slowk,stoch_5_3_0_3_0_slowd,cdlengulfing,obv,bbands_20_2_2_1_upperband,bbands_20_2_2_1_middleband,bbands_20_2_2_1_lowerband'"
check "one row per bar" "[ $(wc -l < $tmp/ta.csv) -eq 2149 ]"
for pair in atr_14:ATR:real adx:ADX:real stoch_5_3_0_3_0_slowk:STOCH:slowk stoch_5_3_0_3_0_slowd:STOCH:slowd \
            cdlengulfing:CDLENGULFING:integer obv:OBV:real; do
    IFS=: read -r col fn output <<< "$pair"
    check "$col equals TA-Lib's $fn $output on GOOG" "matches_fixture $tmp/ta.csv $col $fn $output"
done
eng=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "cdlengulfing") c = i; next } { print $c }' "$tmp/ta.csv" | sort -u | tr '\n' ' ')
check "a pattern's column holds whole numbers (TA-Lib's -100, -80, 0, 80, 100), empty in its lookback (got: $eng)" \
      "[[ '$eng' =~ ^' '(-?[0-9]+' ')+$ ]] && [[ '$eng' == *' -100 '* ]] && [[ '$eng' == *' 100 '* ]]"
# bbands with a matype is TA-Lib's own BBANDS (EMA middle band), not the batched engine's SMA
"$FCAST" quant indicators --data "$GOOG" --ind ema:20 --out "$tmp/ema.csv"
check "bbands:20:2:2:1's middle band is EMA(20)" \
      "[ \"$(cut -d, -f10 $tmp/ta.csv | tail -n +2 | md5sum)\" = \"$(cut -d, -f3 $tmp/ema.csv | tail -n +2 | md5sum)\" ]"

# the close-only form keeps working; an OHLCV file's close stands in for y
"$FCAST" quant indicators --data "$GOOG" --ind sma:5 --out "$tmp/sma.csv" 2> "$tmp/err"
check "sma on an OHLCV file reads its close" "awk -F, 'NR == 6 { exit !(\$3 + 0 > 100) }' $tmp/sma.csv"
"$FCAST" quant indicators --data data/eu_stock_markets.csv --ind sma:5,mom:3 --out "$tmp/y.csv"
check "close-only files (y) still run" "[ \$(wc -l < $tmp/y.csv) -eq 7441 ]"

# columns named by flags
sed '1s/close/adj_close/; 1s/high/hi/' "$GOOG" > "$tmp/renamed.csv"
"$FCAST" quant indicators --data "$tmp/renamed.csv" --ind atr:14 --close adj_close --high hi --out "$tmp/renamed_out.csv"
check "--close and --high name the columns" "[ \"$(cut -d, -f3 $tmp/renamed_out.csv | md5sum)\" = \"$(cut -d, -f3 $tmp/ta.csv | md5sum)\" ]"
expect_error 4 "'atr:14' reads the high prices, but $tmp/renamed.csv has no column 'high' (name it with --high COLUMN)" \
    quant indicators --data "$tmp/renamed.csv" --ind atr:14 --close adj_close --out "$tmp/x.csv"
expect_error 4 "no column 'high'" quant indicators --data data/eu_stock_markets.csv --ind atr --out "$tmp/x.csv"

# the list, as talib.abstract shows the functions
"$FCAST" quant indicators --list > "$tmp/list.txt"
check "--list names TA-Lib's 201 functions" "[ \$(grep -cE '^  [A-Z0-9_]+ ' $tmp/list.txt) -eq 201 ]"
check "--list gives STOCH's inputs, parameters and outputs" \
      "grep -A1 '^  STOCH ' $tmp/list.txt | grep -q 'inputs high, low, close; parameters fastk_period=5 \[1..100000\], slowk_period=3'"
check "--list says fcast computes all of them" "grep -q 'fcast computes 201' $tmp/list.txt"

# errors
expect_error 2 "'atr:0': ATR: timeperiod must be in [1, 100000], got 0" \
    quant indicators --data "$GOOG" --ind atr:0 --out "$tmp/x.csv"
expect_error 2 "'stoch:5:3:99': STOCH: slowk_matype must be in [0, 13], got 99" \
    quant indicators --data "$GOOG" --ind stoch:5:3:99 --out "$tmp/x.csv"
expect_error 2 "unknown indicator 'nosuch'" quant indicators --data "$GOOG" --ind nosuch --out "$tmp/x.csv"
expect_error 2 "'cdldoji:1': CDLDOJI takes 0 parameters" quant indicators --data "$GOOG" --ind cdldoji:1 --out "$tmp/x.csv"
expect_error 2 "--ind" quant indicators --data "$GOOG" --out "$tmp/x.csv"
{ head -5 "$GOOG"; echo "GOOG,2004-08-26,104.95,oops,103.5,105.00,3000000"; } > "$tmp/bad.csv"
expect_error 3 "$tmp/bad.csv:6" quant indicators --data "$tmp/bad.csv" --ind atr:3 --out "$tmp/x.csv"
check "the malformed row's message names the column" "grep -q 'high' $tmp/err"

# a gap in the highs: poison carries TA-Lib's NaN on, restart starts afresh after it
awk -F, -v OFS=, 'NR == 101 { $4 = "" } { print }' "$GOOG" > "$tmp/gap.csv"
"$FCAST" quant indicators --data "$tmp/gap.csv" --ind atr:5 --nan restart --out "$tmp/restart.csv"
check "restart: values again 6 bars after the gap" \
      "awk -F, 'NR == 101 + 5 { e = (\$3 == \"\") } NR == 101 + 6 { exit !(e && \$3 != \"\") }' $tmp/restart.csv"
finish
