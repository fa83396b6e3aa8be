#!/usr/bin/env bash
# fcast quant backtest's portfolio engine through the CLI binary: the worked
# example of docs/quant-analytics.md (fcast cv, then --from-forecast) run as
# written and compared with its printed output; a rule as text against the
# built-in rule; a signal file; --json, --trades, --equity and --combination;
# errors naming the flag, the file and the line. Usage: cli_quant_backtest_signals.sh FCAST
set -u
FCAST="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
ROOT="$(pwd)"
DOC="$ROOT/docs/quant-analytics.md"
source tests/lib_quant_cli.sh
cd "$TMP" && ln -s "$ROOT/data" data

# --- the worked example, as the docs print it (timings aside)
sed -n '/<!-- backtest-example:begin -->/,/<!-- backtest-example:end -->/p' "$DOC" | sed '1,2d;$d' | sed '$d' >example.txt
[ "$(grep -c '^\$ fcast ' example.txt)" -eq 3 ] || fail "the docs' example has $(grep -c '^\$ fcast ' example.txt) commands"
grep -v '^\$ ' example.txt | sed 's/in [0-9.]* s;/in T s;/' >expected.txt
: >got.txt
while IFS= read -r line; do
  case "$line" in
    '$ fcast '*) read -ra argv <<<"${line#\$ fcast }"
                 "$FCAST" "${argv[@]}" >>got.txt 2>"$TMP/err" || fail "example: ${line} failed: $(cat "$TMP/err")" ;;
  esac
done <example.txt
sed -i 's/in [0-9.]* s;/in T s;/' got.txt
ok
diff expected.txt got.txt >diff.txt || fail "the docs' example output differs:$(cat diff.txt)"
sed -n '/^`trades.csv` then starts/,/^and `equity.csv`/p' "$DOC" | sed -n '/^```$/,/^```$/p' | sed '1d;$d' >trades_doc.txt
ok
head -4 trades.csv | diff trades_doc.txt - >/dev/null || fail "trades.csv does not start as the docs say: $(head -4 trades.csv)"
ok
[ "$(head -1 equity.csv)" = "unique_id,ds,position,equity,drawdown,returns" ] || fail "equity header: $(head -1 equity.csv)"
[ "$(wc -l <equity.csv)" -eq 7441 ] || fail "equity.csv has $(wc -l <equity.csv) lines, expected 7441"

# --- a rule as text equals the built-in rule through the same engine
"$FCAST" quant backtest --data data/eu_stock_markets.csv --rule "cross(sma:10, sma:30)" --short --cost-bps 5 \
  --out text.csv >/dev/null || fail "rule as text failed"
"$FCAST" quant backtest --data data/eu_stock_markets.csv --rule sma-cross --fast 10 --slow 30 --short --cost-bps 5 \
  --out builtin.csv >/dev/null || fail "built-in failed"
ok
[ "$(cut -d, -f4- text.csv | tail -n +2)" = "$(cut -d, -f6- builtin.csv | tail -n +2)" ] \
  || fail "cross(sma:10, sma:30) and sma-cross 10/30 differ: $(head -2 text.csv) / $(head -2 builtin.csv)"
head -1 builtin.csv | grep -q "^symbol,source,combination,fast,slow,total_return,annual_return,annual_volatility,sharpe,sortino,calmar,max_drawdown,max_drawdown_bars,turnover,hit_rate,trades,closed_trades,end_equity$" \
  || fail "--out header: $(head -1 builtin.csv)"

# --- a grid inside the rule: cell by cell the built-in grid
"$FCAST" quant backtest --data data/eu_stock_markets.csv --rule "cross(sma:{5:10:5}, sma:{20:30:10})" --cost-bps 5 \
  --out textgrid.csv >/dev/null || fail "rule grid failed"
"$FCAST" quant backtest --data data/eu_stock_markets.csv --rule sma-cross --fast 5:10:5 --slow 20:30:10 --cost-bps 5 \
  --out builtingrid.csv >/dev/null || fail "built-in grid failed"
ok
[ "$(wc -l <textgrid.csv)" -eq 17 ] && [ "$(cut -d, -f3- textgrid.csv | tail -n +2)" = "$(cut -d, -f3- builtingrid.csv | tail -n +2)" ] \
  || fail "cross(sma:{5:10:5}, sma:{20:30:10}) and the sma-cross grid differ: $(head -3 textgrid.csv) / $(head -3 builtingrid.csv)"
head -1 textgrid.csv | grep -q "^symbol,source,combination,p1,p2,total_return," || fail "rule grid header: $(head -1 textgrid.csv)"

# --- a signal file: long DAX from day 100 (forward filled), its one trade still open at the end
printf 'unique_id,ds,position\nDAX,100,1\n' >sig.csv
out="$("$FCAST" quant backtest --data data/eu_stock_markets.csv --signal sig.csv --json --trades sigtr.csv)" \
  || fail "--signal run failed"
ok
echo "$out" | grep -q '"source":"signal"' || fail "--json source: $out"
for f in total_return annual_return annual_volatility sharpe sortino calmar max_drawdown max_drawdown_bars turnover \
         hit_rate trades closed_trades end_equity config combinations symbols; do
  echo "$out" | grep -q "\"$f\"" || fail "--json lacks $f"
done
ok
[ "$(tail -n +2 sigtr.csv | wc -l)" -eq 1 ] && grep -q '^DAX,100,1860,long,.*,open$' sigtr.csv \
  || fail "signal trade log: $(cat sigtr.csv)"
dax_ret="$(awk -F, '$1 == "DAX" && $2 == 100 { a = $3 } $1 == "DAX" && $2 == 1860 { b = $3 } END { printf "%.10f", b / a - 1 }' data/eu_stock_markets.csv)"
got_ret="$(awk -F, 'NR == 2 { printf "%.10f", $8 }' sigtr.csv)"
[ "$dax_ret" = "$got_ret" ] || fail "a held long returns the price change: $got_ret, expected $dax_ret"

# --- one combination for --trades / --equity
expect_error 2 "--combination K" -- quant backtest --data data/eu_stock_markets.csv --rule sma-cross --fast 5:10:5 \
  --slow 20 --trades t.csv
"$FCAST" quant backtest --data data/eu_stock_markets.csv --rule sma-cross --fast 5:10:5 --slow 20 --combination 2 \
  --equity e2.csv >/dev/null || fail "--combination 2 failed"
"$FCAST" quant backtest --data data/eu_stock_markets.csv --rule sma-cross --fast 10 --slow 20 --equity e1.csv \
  >/dev/null || fail "one-combination equity failed"
ok
cmp -s e1.csv e2.csv || fail "--combination 2 of fast 5:10:5 is not fast 10"
expect_error 2 "--combination: expected best or 1 to 2" -- quant backtest --data data/eu_stock_markets.csv \
  --rule sma-cross --fast 5:10:5 --slow 20 --combination 3 --equity e.csv

# --- errors: files, lines, columns; flags of another source
printf 'unique_id,ds,position\nDAX,1,0.5\nDAX,2,1.5\n' >bad.csv
expect_error 4 "bad.csv, line 3, column position: 1.5" -- quant backtest --data data/eu_stock_markets.csv --signal bad.csv
printf 'unique_id,ds,position\nNIKKEI,1,1\n' >bad.csv
expect_error 4 "line 2, column unique_id: series 'NIKKEI'" -- quant backtest --data data/eu_stock_markets.csv --signal bad.csv
expect_error 2 "two signals" -- quant backtest --data data/eu_stock_markets.csv --signal sig.csv --from-forecast cv.csv
expect_error 2 "--long-above applies to --from-forecast" -- quant backtest --data data/eu_stock_markets.csv --signal sig.csv --long-above 0
expect_error 2 "--fast is a parameter of the built-in rules" -- quant backtest --data data/eu_stock_markets.csv --signal sig.csv --fast 5
expect_error 4 "--rule: expected ',' at character 13" -- quant backtest --data data/eu_stock_markets.csv --rule "cross(sma:2 sma:3)"
expect_error 4 "--horizon 6" -- quant backtest --data data/eu_stock_markets.csv --from-forecast cv.csv --horizon 6
expect_error 2 "--size: expected fixed:F" -- quant backtest --data data/eu_stock_markets.csv --signal sig.csv --size half
expect_error 4 "--stop-loss" -- quant backtest --data data/eu_stock_markets.csv --signal sig.csv --stop-loss 2
expect_error 4 "--vol-window" -- quant backtest --data data/eu_stock_markets.csv --signal sig.csv --vol-target 0.1 --vol-window 1

quant_finish cli_quant_backtest_signals
