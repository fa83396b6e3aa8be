#!/usr/bin/env bash
# fcast quant option | risk | portfolio | backtest through the CLI binary:
# values against Black-Scholes and the committed reference fixtures, output
# shapes, and clear errors on bad input. Usage: cli_quant_analytics.sh FCAST
set -u
FCAST="$1"
DATA=data/eu_stock_markets.csv
source tests/lib_quant_cli.sh

# --- option: European call against Black-Scholes, JSON fields
out="$("$FCAST" quant option --type european --call --S 100 --K 100 --r 0.05 --sigma 0.2 --T 1 \
       --paths 400000 --antithetic --seed 7 --json)" || fail "option --json exited non-zero"
ok
price="$(json_field "$out" price)"; se="$(json_field "$out" stderr)"; bs="$(json_field "$out" bs_price)"
close "$bs" 10.450584 1e-6 || fail "bs_price $bs"
close "$(json_field "$out" delta)" 0.636831 1e-6 || fail "delta in $out"
close "$price" 10.450584 "$(awk -v s="$se" 'BEGIN { print 3 * s }')" || fail "MC $price +- $se far from BS"
for f in ci_low ci_high gamma vega theta rho; do [ -n "$(json_field "$out" $f)" ] || fail "JSON lacks $f"; done
# put: 5.573526
out="$("$FCAST" quant option --put --S 100 --K 100 --r 0.05 --sigma 0.2 --T 1 --paths 200000 --json)"
ok
close "$(json_field "$out" bs_price)" 5.573526 1e-6 || fail "put bs_price in $out"
# Asian: text output with the control variate
out="$("$FCAST" quant option --type asian --put --S 90 --K 87 --r 0.025 --q 0.06 --sigma 0.13 --T 1 \
       --fixings 12 --paths 100000 --antithetic)" || fail "asian option exited non-zero"
ok
echo "$out" | grep -q "Kemna-Vorst" || fail "asian output lacks the geometric closed form: $out"
expect_error 4 "--sigma = 0: must be a positive number" -- quant option --call --S 100 --K 100 --sigma 0 --T 1
expect_error 4 "--T = -1: must be a positive number of years" -- quant option --call --S 100 --K 100 --sigma 0.2 --T -1
expect_error 4 "--steps" -- quant option --type asian --call --S 100 --K 100 --sigma 0.2 --T 1 --steps 5
expect_error 4 "--call" -- quant option --S 100 --K 100 --sigma 0.2 --T 1
expect_error 2 "--S" -- quant option --call --K 100 --sigma 0.2 --T 1
# a quote of any size: the standard error scales with S = K (at 1e160 a payoff's square overflowed and it
# read 0.0); one below the normal doubles is refused. 1e-9: the control variate's variance is a difference
# ~1000 times smaller than its terms, which scales the rounding up (3.6e-12 measured)
rel_close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != 0 && d <= 1e-9 * (b < 0 ? -b : b)) }'; }
for type in european asian; do
  one="$("$FCAST" quant option --type $type --call --S 1 --K 1 --sigma 0.2 --T 1 --paths 1000 --json)"
  for c in 1e160 1e-300; do
    big="$("$FCAST" quant option --type $type --call --S $c --K $c --sigma 0.2 --T 1 --paths 1000 --json)"
    ok
    rel_close "$(json_field "$big" stderr)" "$(awk -v s="$(json_field "$one" stderr)" -v c=$c 'BEGIN { printf "%.17g", c * s }')" \
      || fail "$type S = K = $c: stderr $(json_field "$big" stderr), expected $c x $(json_field "$one" stderr)"
  done
done
expect_error 4 "--S = 1e-306, --K = 1e-306: the price" -- quant option --call --S 1e-306 --K 1e-306 --sigma 0.2 --T 1

# --- risk: the CSV rows match the empyrical/QuantLib fixture
"$FCAST" quant risk --data "$DATA" --level 0.95,0.99 --csv >"$TMP/risk.csv" || fail "risk --csv exited non-zero"
ok
matched=0
while IFS=, read -r series metric value; do
  got="$(awk -F, -v s="$series" -v m="$metric" '$1 == s && $2 == m { print $3 }' "$TMP/risk.csv")"
  [ -z "$got" ] && continue
  matched=$((matched + 1))
  awk -v a="$got" -v b="$value" 'BEGIN { d = a - b; if (d < 0) d = -d; s = b < 0 ? -b : b; exit !(d <= 1e-9 * s + 1e-15) }' \
    || fail "risk $series $metric: $got vs fixture $value"
done < <(tail -n +2 tests/fixtures/quant_risk_eu_stock.csv)
[ "$matched" -eq 52 ] || fail "risk: $matched fixture rows matched, expected 52 (4 series x (5 + 2 levels x 4))"
"$FCAST" quant risk --data "$DATA" | grep -q "inner join" || fail "risk table does not state the alignment"
ok
expect_error 3 "--level" -- quant risk --data "$DATA" --level 0.95,abc
expect_error 4 "--level" -- quant risk --data "$DATA" --level 1.5
printf 'unique_id,ds,y\nA,1,10\nA,2,-1\nA,3,12\n' >"$TMP/neg.csv"
expect_error 4 "series A at ds 2" -- quant risk --data "$TMP/neg.csv"
printf 'unique_id,ds,y\nA,1,0.01\nA,2,-0.02\nA,3,0.03\n' >"$TMP/ret.csv"
"$FCAST" quant risk --data "$TMP/ret.csv" --returns --level 0.5 --csv >"$TMP/r.csv" || fail "risk --returns failed"
ok
# k = ceil(0.5 * 3) = 2: the second-worst return, +0.01, is a gain: VaR -0.01
grep -q "^A,hist_var_0.5,-0.01$" "$TMP/r.csv" || fail "risk --returns: hist_var_0.5 should be -0.01: $(cat "$TMP/r.csv")"
# undefined measures (constant prices: Sharpe and Sortino are 0/0) are empty fields, as fcast's CSVs write a
# missing value, and nan in the table; never glibc's "-nan" (nor a "-0")
printf 'unique_id,ds,y\nA,1,10\nA,2,10\nA,3,10\nB,1,10\nB,2,11\nB,3,12\n' >"$TMP/flat.csv"
"$FCAST" quant risk --data "$TMP/flat.csv" --level 0.5 --csv >"$TMP/flat_risk.csv" || fail "risk on flat prices failed"
ok
grep -qx "A,sharpe," "$TMP/flat_risk.csv" && grep -qx "A,sortino," "$TMP/flat_risk.csv" && grep -qx "A,hist_var_0.5,0" "$TMP/flat_risk.csv" \
  && ! grep -qi "nan\|,-0$" "$TMP/flat_risk.csv" || fail "risk --csv, undefined measures: $(cat "$TMP/flat_risk.csv")"
"$FCAST" quant risk --data "$TMP/flat.csv" --level 0.5 >"$TMP/flat_risk.txt" || fail "risk table on flat prices failed"
ok
grep -q "^sortino  *nan  *inf$" "$TMP/flat_risk.txt" && ! grep -q -- "-nan\|-0\.000000 " "$TMP/flat_risk.txt" \
  || fail "risk table, undefined measures: $(cat "$TMP/flat_risk.txt")"
printf 'unique_id,ds,y\nA,1,10\nA,2,abc\n' >"$TMP/bad.csv"
expect_error 3 "bad.csv:3: column 'y'" -- quant risk --data "$TMP/bad.csv"
expect_error 5 "missing.csv" -- quant risk --data "$TMP/missing.csv"

# --- portfolio: minimum-variance weights against numpy (fixture), target return met
"$FCAST" quant portfolio --data "$DATA" --target-return 0.2016 >"$TMP/pf.txt" || fail "portfolio exited non-zero"
ok
ftse="$(awk '/^minimum variance/ { on = 1; next } on && $1 == "FTSE" { print $2; exit }' "$TMP/pf.txt")"
close "$ftse" 0.688933 1e-6 || fail "min-variance FTSE weight $ftse, numpy 0.688933"
smi="$(awk '/^target return/ { on = 1; next } on && $1 == "SMI" { print $2; exit }' "$TMP/pf.txt")"
close "$smi" 0.776584 1e-6 || fail "target-return SMI weight $smi, numpy 0.776584"
grep -q "target return 0.2016 a year: expected annual return 0.201600" "$TMP/pf.txt" || fail "target return not met: $(cat "$TMP/pf.txt")"

# --- backtest: grid size, CSV shape, errors
# The portfolio engine (the default) and the compact grid (--compact): the
# same grid, each with its own CSV.
for engine in portfolio compact; do
  flag=""; [ $engine = compact ] && flag="--compact"
  "$FCAST" quant backtest --data "$DATA" --rule sma-cross --fast 5:50:5 --slow 20:200:10 --cost-bps 5 $flag \
    --out "$TMP/bt.csv" --top 5 >"$TMP/bt.txt" || fail "$engine backtest exited non-zero: $(cat "$TMP/bt.txt")"
  ok
  grep -q "174 combinations (16 invalid skipped) x 4 symbols = 696 backtests" "$TMP/bt.txt" \
    || fail "$engine backtest summary: $(head -1 "$TMP/bt.txt")"
  [ "$(wc -l <"$TMP/bt.csv")" -eq 697 ] || fail "$engine backtest CSV has $(wc -l <"$TMP/bt.csv") lines, expected 697"
  [ "$(grep -c '^ *[0-9]\+  ' "$TMP/bt.txt")" -eq 5 ] || fail "$engine top-5 table: $(cat "$TMP/bt.txt")"
  header="$(head -1 "$TMP/bt.csv")"
  if [ $engine = compact ]; then
    [ "$header" = "symbol,rule,fast,slow,total_return,cagr,sharpe,max_drawdown,trades,closed_trades,hit_rate" ] \
      || fail "compact backtest CSV header: $header"
  else
    case "$header" in symbol,source,combination,fast,slow,total_return,annual_return,*,sharpe,sortino,calmar,*) ;;
      *) fail "portfolio backtest CSV header: $header" ;; esac
  fi
done
expect_error 2 "--json belongs to the portfolio engine" -- quant backtest --data "$DATA" --compact --json
"$FCAST" quant backtest --data "$DATA" --rule rsi --period 14 --lower 25:35:5 --upper 65:75:5 --short >/dev/null \
  || fail "rsi backtest failed"
ok
"$FCAST" quant backtest --data "$DATA" --rule bbands --period 20 --k 1.5:2.5:0.5 >/dev/null || fail "bbands backtest failed"
ok
expect_error 3 "--fast" -- quant backtest --data "$DATA" --fast 5:x --slow 20
expect_error 4 "--k does not apply" -- quant backtest --data "$DATA" --k 2
expect_error 4 "--slow" -- quant backtest --data "$DATA" --fast 5 --slow 5000
expect_error 4 "--period" -- quant backtest --data "$DATA" --rule rsi --period 0
expect_error 4 "--rule" -- quant backtest --data "$DATA" --rule macd

# --- hostile sizes: refused at once, naming the flag (none may run for minutes or allocate gigabytes)
expect_error 4 "--paths: expected 2 to" -- quant option --call --S 100 --K 100 --sigma 0.2 --T 1 --paths 18446744073709551615
expect_error 4 "path steps" -- quant option --call --S 100 --K 100 --sigma 0.2 --T 1 --steps 100000
expect_error 4 "|--r| --T = 1000" -- quant option --call --S 100 --K 100 --sigma 0.2 --T 1 --r -1000 --json
expect_error 4 "--sigma^2 --T = inf" -- quant option --call --S 100 --K 100 --sigma 1e200 --T 1
expect_error 4 "--paths: expected at least 2 paths, got 0" -- quant option --call --S 100 --K 100 --sigma 0.2 --T 1 --paths 0
expect_error 4 "--fixings: expected at least 1 fixing" -- quant option --type asian --call --S 100 --K 100 --sigma 0.2 --T 1 --fixings 0
expect_error 4 "more than one run" -- quant backtest --data "$DATA" --rule rsi --lower 0:99.99:0.01 --upper 0:99.9:0.1
expect_error 4 "--period" -- quant backtest --data "$DATA" --rule rsi --period 1:40 --lower 0:29 --upper 70:100
awk -F, 'NR == 1 || $1 == "DAX"' "$DATA" > "$TMP/dax.csv"
awk -F, 'NR > 1 && $1 == "DAX" { printf "DAX2,%s,%.15g\n", $2, $3 * (1 + 1e-13) }' "$DATA" >> "$TMP/dax.csv"
expect_error 4 "nearly singular" -- quant portfolio --data "$TMP/dax.csv"
printf 'unique_id,ds,y\n"X,Y",1,10\n"X,Y",2,11\n"X,Y",3,12\n' > "$TMP/comma.csv"
"$FCAST" quant risk --data "$TMP/comma.csv" --level 0.9 --csv > "$TMP/comma_risk.csv" 2>/dev/null; ok
grep -q '^"X,Y",' "$TMP/comma_risk.csv" || fail "risk CSV does not quote an id with a comma: $(head -3 "$TMP/comma_risk.csv")"

quant_finish cli_quant_analytics
