#!/usr/bin/env bash
# fcast report --equity: the page of a real backtest (a rule over the four
# bundled indices, with stops and a trade log). Its figures, computed from
# the equity file and the trade log, must agree with the backtest's own
# metrics (--out): total return and hit rate per symbol, rounded as the page
# prints them. Then headless chromium renders it: the charts are in the DOM
# and the console is silent. Then the errors. $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh

"$fcast" quant backtest --data data/eu_stock_markets.csv --rule "cross(sma:10, sma:50)" --short --cost-bps 5 \
    --stop-loss 0.05 --out "$tmp/res.csv" --trades "$tmp/trades.csv" --equity "$tmp/equity.csv" > /dev/null
check "the backtest writes its metrics, trades and equity curve" "[ $? -eq 0 ] && [ -s $tmp/trades.csv ] && [ -s $tmp/equity.csv ]"
"$fcast" report --equity "$tmp/equity.csv" --trades "$tmp/trades.csv" --out "$tmp/bt.html"
check "report --equity exits 0" "[ $? -eq 0 ]"
check "one section per series" "[ \$(grep -c '^<h2>' $tmp/bt.html) -eq 4 ]"

# column NAME of res.csv for symbol SYM
metric() { awk -F, -v sym="$1" -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                                            $1 == sym { print $c[name] }' "$tmp/res.csv"; }
for sym in CAC DAX FTSE SMI; do
    section=$(awk -v s="<h2>$sym</h2>" '$0 == s { on = 1; next } /^<h2>/ { on = 0 } on' "$tmp/bt.html")
    want_total=$(awk -v v="$(metric $sym total_return)" 'BEGIN { printf "%.2f %%", v * 100 }')
    want_hit=$(awk -v v="$(metric $sym hit_rate)" 'BEGIN { printf "%.1f %%", v * 100 }')
    check "$sym: total return $want_total as the backtest's" "grep -qF 'total return</td><td>$want_total' <<< \"\$section\""
    check "$sym: hit rate $want_hit as the backtest's" "grep -qF '</td><td>$want_hit</td>' <<< \"\$section\""
    want_trades="$(metric $sym trades) ($(metric $sym closed_trades) closed)"
    check "$sym: trades $want_trades as the backtest's" "grep -qF '$want_trades' <<< \"\$section\""
done

chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
    echo "FAIL: chromium is missing: run scripts/install-deps.sh --test (the report test needs a headless browser)" >&2
    exit 1
fi
timeout 60 "$chromium" --headless=new --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
    --dump-dom "file://$tmp/bt.html" > "$tmp/dom.html" 2> "$tmp/dom.err"
check "chromium renders the page" "grep -q '<h1>fcast backtest report</h1>' $tmp/dom.html"
charts=$(grep -o '<svg class="chart' "$tmp/dom.html" | wc -l)
check "equity, drawdown and position charts for 4 series (got $charts)" "[ $charts -eq 12 ]"
longest=$(grep -o ' d="M[^"]*"' "$tmp/dom.html" | awk '{ print gsub(/L/, "L") }' | sort -n | tail -1)
check "an equity line of hundreds of points (got ${longest:-0})" "[ ${longest:-0} -ge 300 ]"
check "no console messages or uncaught errors" "! grep -Eiq 'CONSOLE|Uncaught' $tmp/dom.err"

"$fcast" report --equity "$tmp/equity.csv" --series SMI --out - > "$tmp/smi.html"
check "--series picks one, to stdout" "[ $? -eq 0 ] && [ \$(grep -c '^<h2>' $tmp/smi.html) -eq 1 ] && grep -q '<h2>SMI</h2>' $tmp/smi.html"

# Errors: usage 2, malformed input 3, invalid 4; nothing written.
"$fcast" report --trades "$tmp/trades.csv" --out "$tmp/x.html" 2> "$tmp/err"
check "--trades without --equity is a usage error" "[ $? -eq 2 ] && grep -q -- '--equity' $tmp/err"
"$fcast" report tests/fixtures/run_log.jsonl --equity "$tmp/equity.csv" --out "$tmp/x.html" 2> "$tmp/err"
check "a run log with --equity is a usage error" "[ $? -eq 2 ] && grep -q 'one page each' $tmp/err"
"$fcast" report --equity data/eu_stock_markets.csv --out "$tmp/x.html" 2> "$tmp/err"
check "a file without an equity column is refused, named" "[ $? -eq 4 ] && grep -q \"eu_stock_markets.csv: no 'equity' column\" $tmp/err"
{ head -n 1 "$tmp/trades.csv"; echo "NOPE,1,2,long,1,1,1,0.1,1,1,signal"; } > "$tmp/other.csv"
"$fcast" report --equity "$tmp/equity.csv" --trades "$tmp/other.csv" --out "$tmp/x.html" 2> "$tmp/err"
check "a trade of another backtest's series is refused with file:line" "[ $? -eq 4 ] && grep -q \"other.csv:2: a trade of series 'NOPE'\" $tmp/err"
{ head -n 2 "$tmp/equity.csv"; echo "CAC,3,0,lots,0,0"; } > "$tmp/bad.csv"
"$fcast" report --equity "$tmp/bad.csv" --out "$tmp/x.html" 2> "$tmp/err"
check "a malformed equity value names file:line and column" "[ $? -eq 3 ] && grep -q \"bad.csv:3: column 'equity': 'lots'\" $tmp/err"
check "nothing written on failure" "[ ! -e $tmp/x.html ]"
finish
