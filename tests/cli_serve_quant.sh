#!/usr/bin/env bash
# fcast serve's quant endpoints over loopback with curl (docs/serving.md):
# POST /v1/quant/option answers byte for byte what `fcast quant option
# --json` prints for the same parameters (Monte Carlo, binomial and LSM
# American, closed-form and Monte Carlo barriers, Greeks), and refuses
# what it refuses with its message; POST /v1/quant/implied-vol answers
# what `fcast quant implied-vol --json` prints (one option) and the cells
# of its --data --bad-rows report CSV (arrays); POST /v1/quant/indicators answers,
# series by series of data/eu_stock_markets.csv, the cells of `fcast quant
# indicators`' CSV (the same number text, null for an empty cell); errors
# get their status and name the field. Bounded in time: every curl has a
# timeout, every wait a deadline. $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
source tests/lib_serve.sh

serve_model
check "a model to serve" "[ -s $tmp/models/nhits.safetensors ]"

# code METHOD PATH [CURL ARGS...]: the HTTP status only
code() { local m=$1 p=$2; shift 2; curl -s -o /dev/null -w '%{http_code}' --max-time 60 -X "$m" "$@" "http://127.0.0.1:$port$p"; }
# body METHOD PATH [CURL ARGS...]: the body only
body() { local m=$1 p=$2; shift 2; curl -s --max-time 60 -X "$m" "$@" "http://127.0.0.1:$port$p"; }

start main --quiet
check "the server starts and prints its port" "[ -n '$port' ]"
wired=$(code POST /v1/quant/option -H 'Content-Type: application/json' --data-binary '{}')
check "the quant routes answer (got $wired; 404: fc_quant_route is not called from service.c's route())" \
      "[ '$wired' != 404 ]"

# --- option: the served JSON against the CLI's --json, byte for byte
# same_option NAME JSON -- CLI FLAGS...
same_option() {
    local name=$1 json=$2; shift 3
    "$fcast" quant option "$@" --json > "$tmp/cli_$name.json" 2>&1
    body POST /v1/quant/option -H 'Content-Type: application/json' --data-binary "$json" > "$tmp/srv_$name.json"
    check "option $name: the answer is fcast quant option --json's output byte for byte" \
          "[ -s $tmp/cli_$name.json ] && cmp -s $tmp/cli_$name.json $tmp/srv_$name.json"
}
same_option european_call \
    '{"call": true, "S": 100, "K": 105, "sigma": 0.25, "T": 1, "r": 0.03, "paths": 200000, "seed": 3}' \
    -- --call --S 100 --K 105 --sigma 0.25 --T 1 --r 0.03 --paths 200000 --seed 3
same_option european_put_steps \
    '{"put": true, "S": 100, "K": 100, "r": 0.05, "q": 0.01, "sigma": 0.2, "T": 1, "steps": 4, "paths": 100000, "antithetic": true, "seed": 7}' \
    -- --put --S 100 --K 100 --r 0.05 --q 0.01 --sigma 0.2 --T 1 --steps 4 --paths 100000 --antithetic --seed 7
same_option asian_put \
    '{"type": "asian", "put": true, "S": 90, "K": 87, "r": 0.025, "q": 0.06, "sigma": 0.13, "T": 1, "fixings": 12, "paths": 100000, "antithetic": true}' \
    -- --type asian --put --S 90 --K 87 --r 0.025 --q 0.06 --sigma 0.13 --T 1 --fixings 12 --paths 100000 --antithetic
same_option asian_no_cv \
    '{"type": "asian", "call": true, "S": 100, "K": 100, "sigma": 0.3, "T": 0.5, "fixings": 5, "paths": 50000, "no-control-variate": true}' \
    -- --type asian --call --S 100 --K 100 --sigma 0.3 --T 0.5 --fixings 5 --paths 50000 --no-control-variate
same_option defaults '{"call": true, "S": 100, "K": 100, "sigma": 0.2, "T": 1}' -- --call --S 100 --K 100 --sigma 0.2 --T 1
# the other methods: trees, Longstaff-Schwartz, barriers, Monte Carlo Greeks
same_option american_binomial \
    '{"put": true, "exercise": "american", "S": 100, "K": 105, "r": 0.05, "q": 0.01, "sigma": 0.25, "T": 1}' \
    -- --put --exercise american --S 100 --K 105 --r 0.05 --q 0.01 --sigma 0.25 --T 1
same_option european_crr \
    '{"call": true, "method": "binomial", "tree": "crr", "steps": 500, "S": 100, "K": 95, "r": 0.03, "sigma": 0.2, "T": 0.5}' \
    -- --call --method binomial --tree crr --steps 500 --S 100 --K 95 --r 0.03 --sigma 0.2 --T 0.5
same_option american_lsm \
    '{"put": true, "exercise": "american", "method": "lsm", "S": 36, "K": 40, "r": 0.06, "sigma": 0.2, "T": 1, "paths": 20000, "calibration-paths": 20000, "basis-degree": 4, "steps": 25, "seed": 5}' \
    -- --put --exercise american --method lsm --S 36 --K 40 --r 0.06 --sigma 0.2 --T 1 --paths 20000 --calibration-paths 20000 --basis-degree 4 --steps 25 --seed 5
same_option barrier_closed_form \
    '{"call": true, "barrier": "down-and-out:90", "rebate": 2, "S": 100, "K": 100, "r": 0.05, "sigma": 0.3, "T": 1}' \
    -- --call --barrier down-and-out:90 --rebate 2 --S 100 --K 100 --r 0.05 --sigma 0.3 --T 1
same_option barrier_mc \
    '{"put": true, "barrier": "up-and-in:120", "method": "mc", "paths": 40000, "steps": 30, "seed": 9, "S": 100, "K": 110, "r": 0.02, "sigma": 0.25, "T": 2}' \
    -- --put --barrier up-and-in:120 --method mc --paths 40000 --steps 30 --seed 9 --S 100 --K 110 --r 0.02 --sigma 0.25 --T 2
same_option greeks_pathwise \
    '{"call": true, "greeks": "pathwise", "S": 100, "K": 110, "r": 0.04, "q": 0.01, "sigma": 0.3, "T": 1.5, "paths": 100000, "antithetic": true, "seed": 13}' \
    -- --call --greeks pathwise --S 100 --K 110 --r 0.04 --q 0.01 --sigma 0.3 --T 1.5 --paths 100000 --antithetic --seed 13
same_option greeks_lr \
    '{"put": true, "greeks": "lr", "S": 100, "K": 90, "sigma": 0.2, "T": 1, "paths": 100000}' \
    -- --put --greeks lr --S 100 --K 90 --sigma 0.2 --T 1 --paths 100000

# --- implied-vol: one option against the CLI's --json, byte for byte; many against its CSV, cell for cell
"$fcast" quant implied-vol --put --price 12.5 --S 100 --K 110 --r 0.03 --q 0.01 --T 0.75 --json > "$tmp/cli_iv.json" 2>&1
body POST /v1/quant/implied-vol --data-binary '{"put": true, "price": 12.5, "S": 100, "K": 110, "r": 0.03, "q": 0.01, "T": 0.75}' \
    > "$tmp/srv_iv.json"
check "implied-vol: one option's answer is fcast quant implied-vol --json's output byte for byte" \
      "[ -s $tmp/cli_iv.json ] && cmp -s $tmp/cli_iv.json $tmp/srv_iv.json"
printf 'type,S,K,T,price,r\ncall,100,90,1,15,0.01\nput,100,100,0.5,100,0.01\ncall,100,120,2,6.5,0.02\n' > "$tmp/iv.csv"
"$fcast" quant implied-vol --data "$tmp/iv.csv" --bad-rows report --out "$tmp/iv_out.csv" 2>/dev/null
body POST /v1/quant/implied-vol --data-binary '{"type": ["call", "put", "call"], "S": 100, "K": [90, 100, 120], "T": [1, 0.5, 2], "price": [15, 100, 6.5], "r": [0.01, 0.01, 0.02], "bad-rows": "report"}' \
    > "$tmp/iv_many.json"
# same_ivs CLI_CSV ANSWER: implied_vol and error hold the CSV's cells (the same number text; null for an empty cell)
same_ivs() {
    python3 - "$@" <<'EOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
got = json.load(open(sys.argv[2]), parse_float=str, parse_int=str)
ok = (got["implied_vol"] == [r["implied_vol"] or None for r in rows] and got["error"] == [r["error"] or None for r in rows]
      and len(rows) == 3 and got["implied_vol"][1] is None)
print("same" if ok else "differ")
EOF
}
check "implied-vol: arrays with bad-rows report answer the CLI's --data --bad-rows report cells" \
      "[ \"\$(same_ivs $tmp/iv_out.csv $tmp/iv_many.json)\" = same ]"

# --- indicators: each series of the bundled prices against the CLI's CSV
ind="sma:20,ema:12,rsi:14,macd:12:26:9,bbands:20,wma:5,mom,roc:3,stddev:10:2,zscore"
"$fcast" quant indicators --data data/eu_stock_markets.csv --ind "$ind" --out "$tmp/ind.csv" 2>/dev/null
check "fcast quant indicators runs" "[ -s $tmp/ind.csv ]"
# request SERIES FILE [NAN]: the series' y values, as their text in the CSV, in a JSON body
request() {
    python3 - "$1" "$2" "$ind" "${3:-}" <<'EOF'
import csv, json, sys
series, data, ind, nan = sys.argv[1:5]
ys = [r["y"] or "null" for r in csv.DictReader(open(data)) if r["unique_id"] == series]
nan_field = ', "nan": %s' % json.dumps(nan) if nan else ""
print('{"close": [%s], "ind": %s%s}' % (", ".join(ys), json.dumps(ind), nan_field))
EOF
}
# same_cells SERIES CLI_CSV ANSWER: every column of the answer holds the CSV's cells of the series,
# as the same text (numbers read as text, not floats), null for an empty cell
same_cells() {
    python3 - "$@" <<'EOF'
import csv, json, sys
series, table, answer = sys.argv[1:4]
rows = [r for r in csv.DictReader(open(table)) if r["unique_id"] == series]
cols = [c for c in csv.DictReader(open(table)).fieldnames if c not in ("unique_id", "ds")]
got = json.load(open(answer), parse_float=str, parse_int=str)
ok = list(got) == cols and all(got[c] == [r[c] or None for r in rows] for c in cols) and len(rows) > 0
print("same" if ok else "differ")
EOF
}
for s in DAX SMI CAC FTSE; do
    request "$s" data/eu_stock_markets.csv > "$tmp/ind_$s.json"
    body POST /v1/quant/indicators -H 'Content-Type: application/json' --data-binary @"$tmp/ind_$s.json" \
        > "$tmp/ind_$s.out"
    check "indicators $s: the answer holds fcast quant indicators' cells, column for column" \
          "[ \"\$(same_cells $s $tmp/ind.csv $tmp/ind_$s.out)\" = same ]"
done
# missing values: null in, restart after each gap, as an empty y cell in the CLI
printf 'unique_id,ds,y\nA,1,1\nA,2,2\nA,3,3\nA,4,\nA,5,5\nA,6,6\nA,7,7\nA,8,8\nA,9,9\nA,10,10\n' > "$tmp/gap.csv"
ind="sma:2,mom:1"
"$fcast" quant indicators --data "$tmp/gap.csv" --ind "$ind" --nan restart --out "$tmp/gap_out.csv" 2>/dev/null
request A "$tmp/gap.csv" restart > "$tmp/gap.json"
body POST /v1/quant/indicators --data-binary @"$tmp/gap.json" > "$tmp/gap.out"
check "indicators with a null and nan: restart: fcast quant indicators' cells" \
      "[ \"\$(same_cells A $tmp/gap_out.csv $tmp/gap.out)\" = same ]"

# OHLCV bars: TA-Lib's functions over open, high, low, close, volume, as the CLI computes them
ind="atr:14,adx,stoch,cdlengulfing,obv,maxindex:10,bbands:20:2:2:1"
head -301 data/goog_daily_ohlcv.csv > "$tmp/goog.csv"
"$fcast" quant indicators --data "$tmp/goog.csv" --ind "$ind" --out "$tmp/goog_out.csv" 2>/dev/null
python3 - "$tmp/goog.csv" "$ind" > "$tmp/goog.json" <<'EOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
body = {k: [float(r[k]) for r in rows] for k in ("open", "high", "low", "close", "volume")}
body["ind"] = sys.argv[2]
print(json.dumps(body))
EOF
body POST /v1/quant/indicators --data-binary @"$tmp/goog.json" > "$tmp/goog.out"
check "OHLCV indicators: the answer holds fcast quant indicators' cells (patterns and indices as integers)" \
      "[ \"\$(same_cells GOOG $tmp/goog_out.csv $tmp/goog.out)\" = same ]"
check "indicators: a function's missing column is 400 naming it" \
      "b=\$(body POST /v1/quant/indicators --data-binary '{\"close\": [1, 2, 3, 4], \"ind\": \"atr:2\"}') && grep -q \"ind: 'atr:2' reads the column 'high', which the request lacks (it has: close)\" <<<\"\$b\""
check "indicators: columns of other lengths are 400 naming both" \
      "b=\$(body POST /v1/quant/indicators --data-binary '{\"close\": [1, 2, 3], \"high\": [1, 2], \"ind\": \"atr:2\"}') && grep -q 'high: 2 values, but close has 3' <<<\"\$b\""

# --- errors: status and the field named
check "option: a field of the wrong type is 400 naming it" \
      "b=\$(body POST /v1/quant/option --data-binary '{\"call\": true, \"S\": \"x\", \"K\": 1, \"sigma\": 0.2, \"T\": 1}') && grep -q '\"S: expected a number' <<<\"\$b\""
check "option: an invalid value is 400 with the library's message" \
      "[ \"\$(code POST /v1/quant/option --data-binary '{\"call\": true, \"S\": 100, \"K\": 100, \"sigma\": 0, \"T\": 1}')\" = 400 ]"
check "option: more paths than the server takes is 413" \
      "[ \"\$(code POST /v1/quant/option --data-binary '{\"call\": true, \"S\": 100, \"K\": 100, \"sigma\": 0.2, \"T\": 1, \"paths\": 1000000000}')\" = 413 ]"
# same_error NAME JSON -- CLI FLAGS...: 400 and the CLI's message (after "fcast quant option: ")
same_error() {
    local name=$1 json=$2; shift 3
    "$fcast" quant option "$@" 2>&1 >/dev/null | sed 's/^fcast quant option: //' > "$tmp/err_cli_$name"
    code POST /v1/quant/option --data-binary "$json" > "$tmp/err_status_$name"
    body POST /v1/quant/option --data-binary "$json" \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["error"])' > "$tmp/err_srv_$name"
    check "option $name: 400 with the CLI's message ($(cat "$tmp/err_cli_$name"))" \
          "[ \"\$(cat $tmp/err_status_$name)\" = 400 ] && [ -s $tmp/err_cli_$name ] && cmp -s $tmp/err_cli_$name $tmp/err_srv_$name"
}
same_error tree_sigma '{"put": true, "exercise": "american", "S": 100, "K": 100, "sigma": 0, "T": 1}' \
    -- --put --exercise american --S 100 --K 100 --sigma 0 --T 1
same_error barrier_knocked '{"call": true, "barrier": "down-and-out:110", "S": 100, "K": 100, "sigma": 0.2, "T": 1}' \
    -- --call --barrier down-and-out:110 --S 100 --K 100 --sigma 0.2 --T 1
same_error lsm_degree '{"put": true, "exercise": "american", "method": "lsm", "basis-degree": 9, "S": 100, "K": 100, "sigma": 0.2, "T": 1}' \
    -- --put --exercise american --method lsm --basis-degree 9 --S 100 --K 100 --sigma 0.2 --T 1
same_error binomial_paths '{"call": true, "method": "binomial", "paths": 100, "S": 100, "K": 100, "sigma": 0.2, "T": 1}' \
    -- --call --method binomial --paths 100 --S 100 --K 100 --sigma 0.2 --T 1
same_error greeks_asian '{"call": true, "type": "asian", "greeks": "lr", "paths": 1000, "S": 100, "K": 100, "sigma": 0.2, "T": 1}' \
    -- --call --type asian --greeks lr --paths 1000 --S 100 --K 100 --sigma 0.2 --T 1
same_error tree_ignored '{"call": true, "tree": "crr", "S": 100, "K": 100, "sigma": 0.2, "T": 1}' \
    -- --call --tree crr --S 100 --K 100 --sigma 0.2 --T 1
same_error greeks_barrier '{"call": true, "greeks": "lr", "barrier": "up-and-out:130", "S": 100, "K": 100, "sigma": 0.2, "T": 1}' \
    -- --call --greeks lr --barrier up-and-out:130 --S 100 --K 100 --sigma 0.2 --T 1
same_error exercise '{"call": true, "exercise": "bermudan", "S": 100, "K": 100, "sigma": 0.2, "T": 1}' \
    -- --call --exercise bermudan --S 100 --K 100 --sigma 0.2 --T 1
same_error rebate '{"call": true, "rebate": 1, "S": 100, "K": 100, "sigma": 0.2, "T": 1}' \
    -- --call --rebate 1 --S 100 --K 100 --sigma 0.2 --T 1
same_error barrier_spec '{"call": true, "barrier": "sideways:90", "S": 100, "K": 100, "sigma": 0.2, "T": 1}' \
    -- --call --barrier sideways:90 --S 100 --K 100 --sigma 0.2 --T 1
same_error barrier_closed_paths '{"call": true, "barrier": "down-and-out:90", "paths": 1000, "S": 100, "K": 100, "sigma": 0.2, "T": 1}' \
    -- --call --barrier down-and-out:90 --paths 1000 --S 100 --K 100 --sigma 0.2 --T 1
same_error american_mc '{"call": true, "exercise": "american", "method": "mc", "S": 100, "K": 100, "sigma": 0.2, "T": 1}' \
    -- --call --exercise american --method mc --S 100 --K 100 --sigma 0.2 --T 1
same_error lsm_rebate_american '{"put": true, "exercise": "american", "method": "lsm", "antithetic": true, "S": 100, "K": 100, "sigma": 0.2, "T": 1}' \
    -- --put --exercise american --method lsm --antithetic --S 100 --K 100 --sigma 0.2 --T 1
check "option: a binomial tree past the library's 100000 steps is 400" \
      "[ \"\$(code POST /v1/quant/option --data-binary '{\"put\": true, \"exercise\": \"american\", \"steps\": 100001, \"S\": 100, \"K\": 100, \"sigma\": 0.2, \"T\": 1}')\" = 400 ]"
check "option: barrier Monte Carlo past the server's path steps is 413" \
      "[ \"\$(code POST /v1/quant/option --data-binary '{\"call\": true, \"barrier\": \"down-and-out:90\", \"method\": \"mc\", \"paths\": 10000000, \"S\": 100, \"K\": 100, \"sigma\": 0.2, \"T\": 1}')\" = 413 ]"
check "option: LSM work past the server's path steps is 413" \
      "[ \"\$(code POST /v1/quant/option --data-binary '{\"put\": true, \"exercise\": \"american\", \"method\": \"lsm\", \"paths\": 20000000, \"S\": 100, \"K\": 100, \"sigma\": 0.2, \"T\": 1}')\" = 413 ]"
check "implied-vol: a price above its bound is 400 naming the option" \
      "b=\$(body POST /v1/quant/implied-vol --data-binary '{\"call\": true, \"price\": [10, 100], \"S\": 100, \"K\": 100, \"T\": 1}') && grep -q 'option 1: price 100 of the call' <<<\"\$b\""
check "implied-vol: one option's bad price is 400" \
      "[ \"\$(code POST /v1/quant/implied-vol --data-binary '{\"call\": true, \"price\": 100, \"S\": 100, \"K\": 100, \"T\": 1}')\" = 400 ]"
check "indicators: a bad spec is 400 naming ind" \
      "b=\$(body POST /v1/quant/indicators --data-binary '{\"close\": [1, 2, 3], \"ind\": \"sma:0\"}') && grep -q \"ind: 'sma:0'\" <<<\"\$b\""
check "indicators: malformed JSON is 400 with the line and column" \
      "b=\$(body POST /v1/quant/indicators --data-binary '{\"close\": [1,') && grep -q 'line 1, column' <<<\"\$b\""
check "indicators: GET is 405" "[ \"\$(code GET /v1/quant/indicators)\" = 405 ]"
check "option: a CSV body is 415" \
      "[ \"\$(code POST /v1/quant/option -H 'Content-Type: text/csv' --data-binary 'S,K')\" = 415 ]"
check "the server still answers after the errors" "[ \"\$(code GET /v2/health/ready)\" = 200 ]"
check "SIGTERM: exit 0" "stop"

finish
