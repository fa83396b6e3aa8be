#!/usr/bin/env bash
# fcast quant implied-vol and quant option --method binomial (and the
# options added later) through the CLI binary: values against Black-Scholes
# and the committed QuantLib fixtures (python/make_option_fixtures.py),
# CSV in and out, JSON fields, and clear errors naming the flag or
# FILE:LINE. Usage: cli_quant_options.sh FCAST
set -u
FCAST="$1"
source tests/lib_quant_cli.sh

# --- implied-vol, one option: the Black-Scholes price of sigma = 0.2 (Hull's 10.450584) back to 0.2
out="$("$FCAST" quant implied-vol --call --S 100 --K 100 --r 0.05 --T 1 --price 10.450583572185577 --json)" \
  || fail "implied-vol --json exited non-zero"
ok
close "$(json_field "$out" implied_vol)" 0.2 1e-12 || fail "implied_vol in $out"
# Haug's put (2.46478764676 to 12 digits): 0.2 to the 12 digits printed
out="$("$FCAST" quant implied-vol --put --S 100 --K 95 --r 0.10 --q 0.05 --T 0.5 --price 2.46478764676)"
ok
echo "$out" | grep -q "implied volatility 0.2 (" || fail "Haug's put: $out"
expect_error 4 "below its lower bound max(S e^{-qT} - K e^{-rT}, 0) = 14.389" -- \
  quant implied-vol --call --S 100 --K 90 --r 0.05 --T 1 --price 14
expect_error 4 "at or above its upper bound K e^{-rT}" -- quant implied-vol --put --S 100 --K 90 --T 1 --price 95
expect_error 4 "--T = -1: must be a positive number" -- quant implied-vol --put --S 100 --K 90 --T -1 --price 5
expect_error 2 "--call and --put" -- quant implied-vol --S 100 --K 90 --T 1 --price 5
expect_error 2 "missing --price" -- quant implied-vol --call --S 100 --K 90 --T 1

# --- implied-vol --data: the QuantLib fixture's rows (its columns in another order, extra ones kept)
FIX=tests/fixtures/quant/options_implied_vol.csv
"$FCAST" quant implied-vol --data "$FIX" --out "$TMP/iv.csv" || fail "implied-vol --data exited non-zero"
ok
[ "$(head -1 "$TMP/iv.csv")" = "$(head -1 "$FIX"),implied_vol" ] || fail "header: $(head -1 "$TMP/iv.csv")"
[ "$(wc -l < "$TMP/iv.csv")" = "$(wc -l < "$FIX")" ] || fail "row count of $TMP/iv.csv"
worst="$(awk -F, 'NR > 1 { d = $11 - $8; if (d < 0) d = -d; if (d > m) m = d } END { printf "%.3g", m }' "$TMP/iv.csv")"
ok
close "$worst" 0 1e-10 || fail "implied-vol --data: max |vol - fixture| = $worst"
# a bad row: an error naming FILE:LINE, or with --bad-rows report the reason in an error column
printf 'price,type,S,K,T,r\n10.450583572185577,call,100,100,1,0.05\n14,call,100,90,1,0.05\n' > "$TMP/bad.csv"
expect_error 4 "bad.csv:3: price 14 of the call: price below the lower bound" -- quant implied-vol --data "$TMP/bad.csv"
"$FCAST" quant implied-vol --data "$TMP/bad.csv" --bad-rows report > "$TMP/rep.csv" || fail "--bad-rows report exited non-zero"
ok
[ "$(sed -n 1p "$TMP/rep.csv")" = "price,type,S,K,T,r,implied_vol,error" ] || fail "report header: $(sed -n 1p "$TMP/rep.csv")"
sed -n 3p "$TMP/rep.csv" | grep -q '^14,call,100,90,1,0.05,,price below the lower bound' || fail "report row: $(sed -n 3p "$TMP/rep.csv")"
close "$(sed -n 2p "$TMP/rep.csv" | cut -d, -f7)" 0.2 1e-12 || fail "report good row: $(sed -n 2p "$TMP/rep.csv")"
printf 'type,S,K,T,price\ncall,100,abc,1,5\n' > "$TMP/nan.csv"
expect_error 3 "nan.csv:2: K 'abc': not a number" -- quant implied-vol --data "$TMP/nan.csv"
printf 'type,S,K,price\n' > "$TMP/cols.csv"
expect_error 3 "cols.csv:1: no column 'T'" -- quant implied-vol --data "$TMP/cols.csv"

# --- binomial: plain CRR equals QuantLib's at equal steps (first fixture row: European call, 50 steps)
out="$("$FCAST" quant option --method binomial --tree crr --steps 50 --call --S 100 --K 100 --r 0.05 --sigma 0.2 --T 1 --json)"
ok
close "$(json_field "$out" price)" 10.409441140459672 2e-10 || fail "crr 50 steps: $out"
close "$(json_field "$out" bs_price)" 10.450583572185577 1e-9 || fail "bs_price: $out"
# American put: bbsr (the default, 1000 steps) against QuantLib's QdFpAmericanEngine (the fixture's reference)
ref="$(awk -F, '$1 == "american" && $2 == "put" && $3 == 100.0 && $4 == 100.0 && $9 == 1000 { print $11; exit }' \
       tests/fixtures/quant/options_binomial.csv)"
out="$("$FCAST" quant option --exercise american --put --S 100 --K 100 --r 0.05 --sigma 0.2 --T 1 --json)"
ok
[ -n "$ref" ] || fail "no American reference in the fixture"
close "$(json_field "$out" price)" "$ref" 2e-4 || fail "American put bbsr $out, reference $ref"
echo "$out" | grep -q '"tree": "bbsr", "steps": 1000' || fail "JSON lacks tree/steps: $out"
expect_error 4 "--steps: expected 2 to 100000" -- quant option --exercise american --put --S 100 --K 100 --sigma 0.2 --T 1 --steps 1
expect_error 4 "--tree: expected bbsr, bbs or crr" -- quant option --exercise american --put --S 100 --K 100 --sigma 0.2 --T 1 --tree jr
expect_error 4 "--paths" -- quant option --exercise american --put --S 100 --K 100 --sigma 0.2 --T 1 --paths 1000
expect_error 4 "--device and --verbose are for the Monte Carlo prices: --method binomial runs on the CPU" -- quant option \
  --exercise american --put --S 100 --K 100 --sigma 0.2 --T 1 --device cpu
expect_error 4 "--device and --verbose are for the Monte Carlo prices: the barrier's closed form" -- quant option \
  --call --S 100 --K 100 --sigma 0.2 --T 1 --barrier down-and-out:90 --device cpu
# Longstaff-Schwartz and barrier Monte Carlo take --device: the same answer on the CPU as without it
for m in "--exercise american --method lsm --put" "--barrier down-and-out:90 --method mc --call"; do
  a="$("$FCAST" quant option $m --S 100 --K 100 --sigma 0.2 --T 1 --r 0.05 --paths 20000 --json)"
  b="$("$FCAST" quant option $m --S 100 --K 100 --sigma 0.2 --T 1 --r 0.05 --paths 20000 --json --device cpu)"
  ok
  [ -n "$a" ] && [ "$a" = "$b" ] || fail "$m with --device cpu: $b, without: $a"
done
expect_error 4 "--exercise: expected european or american" -- quant option --exercise bermudan --put --S 100 --K 100 --sigma 0.2 --T 1

# --- Longstaff-Schwartz: the fixture's American put against QuantLib's Bermudan FD value on the same 50 dates
IFS=, read -r _ S K r q T vol steps american bermudan ql_mc ql_se < <(sed -n 2p tests/fixtures/quant/options_lsm.csv)
out="$("$FCAST" quant option --exercise american --method lsm --put --S "$S" --K "$K" --r "$r" --q "$q" --sigma "$vol" \
       --T "$T" --steps "$steps" --paths 40000 --calibration-paths 20000 --json)" || fail "lsm --json exited non-zero"
ok
price="$(json_field "$out" price)"; se="$(json_field "$out" stderr)"
awk -v p="$price" -v s="$se" -v b="$bermudan" 'BEGIN { exit !(p <= b + 4 * s && p >= b - 4 * s - 0.005 * b) }' \
  || fail "lsm $price +- $se against the Bermudan $bermudan"
for f in ci_low ci_high paths calibration_paths steps basis_degree calibration_price; do
  [ -n "$(json_field "$out" $f)" ] || fail "lsm JSON lacks $f: $out"
done
expect_error 4 "--calibration-paths: expected 16 to 10000000" -- quant option --exercise american --method lsm --put \
  --S 100 --K 100 --sigma 0.2 --T 1 --calibration-paths 100000000
expect_error 4 "--paths 1000000000 x --steps 50" -- quant option --exercise american --method lsm --put \
  --S 100 --K 100 --sigma 0.2 --T 1 --paths 1000000000
expect_error 4 "--method lsm needs --exercise american" -- quant option --method lsm --put --S 100 --K 100 --sigma 0.2 --T 1
expect_error 4 "--calibration-paths and --basis-degree are for --method lsm" -- quant option --put --S 100 --K 100 \
  --sigma 0.2 --T 1 --basis-degree 2

# --- barrier options: the closed form against QuantLib's AnalyticBarrierEngine (a fixture row with a rebate)
IFS=, read -r type kind S K H rebate r q T vol ql < <(awk -F, '$1 == "put" && $2 == "up-and-out" && $6 > 0 { print; exit }' \
  tests/fixtures/quant/options_barrier.csv)
out="$("$FCAST" quant option --$type --S "$S" --K "$K" --r "$r" --q "$q" --sigma "$vol" --T "$T" \
       --barrier "$kind:$H" --rebate "$rebate" --method mc --steps 20 --paths 100000 --json)" || fail "barrier exited non-zero"
ok
awk -v a="$(json_field "$out" price)" -v b="$ql" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-10 * b) }' \
  || fail "barrier closed form $(json_field "$out" price), QuantLib $ql"
awk -v m="$(json_field "$out" mc_price)" -v s="$(json_field "$out" stderr)" -v b="$ql" \
  'BEGIN { d = m - b; if (d < 0) d = -d; exit !(d <= 4 * s) }' || fail "barrier MC far from the closed form: $out"
echo "$out" | grep -q '"barrier": "up-and-out"' || fail "barrier JSON: $out"
expect_error 4 "--barrier: down-and-out:110 with --S 100: the spot is already at or below" -- quant option --call \
  --S 100 --K 100 --sigma 0.2 --T 1 --barrier down-and-out:110
expect_error 2 "--barrier 'sideways:90': expected KIND:LEVEL" -- quant option --call --S 100 --K 100 --sigma 0.2 --T 1 \
  --barrier sideways:90
expect_error 4 "--rebate: must be a number >= 0" -- quant option --call --S 100 --K 100 --sigma 0.2 --T 1 \
  --barrier up-and-in:110 --rebate -1
expect_error 4 "--rebate is for --barrier" -- quant option --call --S 100 --K 100 --sigma 0.2 --T 1 --rebate 1
expect_error 4 "--paths, --steps and --seed are for --method mc" -- quant option --call --S 100 --K 100 --sigma 0.2 \
  --T 1 --barrier up-and-in:110 --paths 1000

# --- Monte Carlo Greeks against Black-Scholes (Hull's call: delta 0.636831, gamma 0.0187620, vega 37.5240)
for how in pathwise lr; do
  out="$("$FCAST" quant option --call --S 100 --K 100 --r 0.05 --sigma 0.2 --T 1 --paths 200000 --greeks $how --json)" \
    || fail "--greeks $how exited non-zero"
  ok
  awk -v m="$(json_field "$out" mc_delta)" -v s="$(json_field "$out" mc_delta_stderr)" \
    'BEGIN { d = m - 0.636831; if (d < 0) d = -d; exit !(s > 0 && d <= 4 * s) }' || fail "--greeks $how delta: $out"
  awk -v m="$(json_field "$out" mc_vega)" -v s="$(json_field "$out" mc_vega_stderr)" \
    'BEGIN { d = m - 37.524035; if (d < 0) d = -d; exit !(s > 0 && d <= 4 * s) }' || fail "--greeks $how vega: $out"
  if [ $how = lr ]; then
    awk -v m="$(json_field "$out" mc_gamma)" -v s="$(json_field "$out" mc_gamma_stderr)" \
      'BEGIN { d = m - 0.018762; if (d < 0) d = -d; exit !(s > 0 && d <= 4 * s) }' || fail "--greeks lr gamma: $out"
  else
    echo "$out" | grep -q mc_gamma && fail "pathwise has no gamma: $out"
  fi
done
expect_error 4 "--greeks: expected pathwise or lr" -- quant option --call --S 100 --K 100 --sigma 0.2 --T 1 --paths 1000 \
  --greeks fd

quant_finish cli_quant_options
