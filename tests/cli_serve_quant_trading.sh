#!/usr/bin/env bash
# fcast serve's POST /v1/quant/portfolio and /v1/quant/backtest over
# loopback with curl (docs/serving.md), against the CLI on the same numbers
# written as its CSV (a file named "request", so that the CLI's "data"
# reads as the service's): the portfolio answer is `fcast quant portfolio
# --json`'s line byte for byte; a rule backtest with stops and costs and a
# positions backtest are `fcast quant backtest --json`'s line byte for byte
# but for its "seconds" (wall time); the trade log and the equity curve are
# the cells of --trades' and --equity's CSVs. Errors get their status.
# Bounded in time: every curl has a timeout, every wait a deadline. $1 is
# the fcast binary.
set -uo pipefail
fcast=$(realpath "$1")
source tests/lib_cli.sh
source tests/lib_serve.sh

serve_model
check "a model to serve" "[ -s $tmp/models/nhits.safetensors ]"
code() { local m=$1 p=$2; shift 2; curl -s -o /dev/null -w '%{http_code}' --max-time 60 -X "$m" "$@" "http://127.0.0.1:$port$p"; }
body() { local m=$1 p=$2; shift 2; curl -s --max-time 60 -X "$m" -H 'Content-Type: application/json' "$@" "http://127.0.0.1:$port$p"; }
# cli ARGS...: fcast in $tmp, where the data file is "request"
cli() { (cd "$tmp" && "$fcast" "$@"); }
# no_seconds: the JSON line without its "seconds" field (wall time differs run to run)
no_seconds() { sed 's/"seconds":[-0-9.e+]*,//'; }

start main --quiet
check "the server starts and prints its port" "[ -n '$port' ]"

# --- portfolio: the bundled closes, a long-only frontier, max Sharpe, risk parity
cp data/eu_stock_markets.csv "$tmp/request"
python3 - data/eu_stock_markets.csv > "$tmp/pf.json" <<'PY'
import csv, sys
cols = {}
for r in csv.DictReader(open(sys.argv[1])):
    cols.setdefault(r["unique_id"], []).append(r["y"])   # the CSV's text: the same doubles
print('{"prices": {%s}, "long-only": true, "frontier": 5, "max-sharpe": true, "risk-free": 0.02, "risk-parity": true}'
      % ", ".join('"%s": [%s]' % (k, ", ".join(v)) for k, v in cols.items()))
PY
cli quant portfolio --data request --long-only --frontier 5 --max-sharpe --risk-free 0.02 --risk-parity --json \
    > "$tmp/pf_cli.json" 2> "$tmp/pf_cli.err"
body POST /v1/quant/portfolio --data-binary @"$tmp/pf.json" > "$tmp/pf_srv.json"
check "portfolio: the answer is fcast quant portfolio --json's line byte for byte" \
      "[ -s $tmp/pf_cli.json ] && cmp -s $tmp/pf_cli.json $tmp/pf_srv.json"
check "portfolio: 8 portfolios, the solvers' reports among them" \
      "grep -q '\"name\": \"frontier_4\"' $tmp/pf_srv.json && grep -q '\"solver\": \"newton\"' $tmp/pf_srv.json"
# Ledoit-Wolf, per-asset bounds as the CLI's text, a target return
sed 's/, "long-only": true.*/, "shrink": "ledoit-wolf", "bounds": "DAX=0.1:0.4,SMI=0:0.5", "target-return": 0.15}/' \
    "$tmp/pf.json" > "$tmp/pf2.json"
cli quant portfolio --data request --shrink ledoit-wolf --bounds DAX=0.1:0.4,SMI=0:0.5 --target-return 0.15 --json \
    > "$tmp/pf2_cli.json" 2>&1
body POST /v1/quant/portfolio --data-binary @"$tmp/pf2.json" > "$tmp/pf2_srv.json"
check "portfolio with Ledoit-Wolf, bounds and a target: fcast quant portfolio --json's line byte for byte" \
      "[ -s $tmp/pf2_cli.json ] && cmp -s $tmp/pf2_cli.json $tmp/pf2_srv.json"

# --- backtest: a rule's grid with stops and costs, long-short
python3 - data/eu_stock_markets.csv > "$tmp/closes.txt" <<'PY'
import csv, sys
cols = {}
for r in csv.DictReader(open(sys.argv[1])):
    cols.setdefault(r["unique_id"], []).append(r["y"] or "null")
print("{%s}" % ", ".join('"%s": [%s]' % (k, ", ".join(v)) for k, v in cols.items()))
PY
rule='"rule": "sma-cross", "fast": "10:20:10", "slow": 50, "short": true, "cost-bps": 5, "slippage-bps": 2, "fixed-cost": 1, "stop-loss": 0.05, "take-profit": 0.1'
printf '{"close": %s, %s, "combination": 2, "trades": true, "equity": true}\n' "$(cat $tmp/closes.txt)" "$rule" \
    > "$tmp/bt.json"
cli quant backtest --data request --rule sma-cross --fast 10:20:10 --slow 50 --short --cost-bps 5 --slippage-bps 2 \
    --fixed-cost 1 --stop-loss 0.05 --take-profit 0.1 --combination 2 --trades trades.csv --equity equity.csv --json \
    > "$tmp/bt_cli.json" 2> "$tmp/bt_cli.err"
body POST /v1/quant/backtest --data-binary @"$tmp/bt.json" > "$tmp/bt_srv.json"
python3 - "$tmp/bt_srv.json" "$tmp/bt_srv_main.json" <<'PY'
import json, sys
line = open(sys.argv[1]).read()
cut = line.find(',"trades":[')   # the CLI's object ends where the trade log begins
open(sys.argv[2], "w").write(line[:cut] + "}\n" if cut > 0 else line)
PY
check "rule backtest: fcast quant backtest --json's line byte for byte but for seconds" \
      "[ -s $tmp/bt_cli.json ] && cmp -s <(no_seconds < $tmp/bt_cli.json) <(no_seconds < $tmp/bt_srv_main.json)"
# same_rows CSV KEY ANSWER: the answer's KEY array holds the CSV's rows, the same doubles, ds the
# CSV's ds less 1 (the file counts bars from 1, the service from 0)
same_rows() {
    python3 - "$@" <<'PY'
import csv, json, sys
table, key, answer = sys.argv[1:4]
rows = list(csv.DictReader(open(table)))
got = json.load(open(answer))[key]
def same(r, g):
    if list(r) != list(g): return False
    for c, v in r.items():
        w = g[c]
        if c.endswith("ds"): ok = int(v) - 1 == w
        elif isinstance(w, str): ok = v == w
        else: ok = float(v) == float(w)
        if not ok: return False
    return True
print("same" if len(rows) == len(got) > 0 and all(same(r, g) for r, g in zip(rows, got)) else "differ")
PY
}
check "rule backtest: the trades are --trades' rows, stops among them" \
      "[ \"\$(same_rows $tmp/trades.csv trades $tmp/bt_srv.json)\" = same ] && grep -q stop_loss $tmp/trades.csv"
check "rule backtest: the equity curve is --equity's rows" \
      "[ \"\$(same_rows $tmp/equity.csv equity $tmp/bt_srv.json)\" = same ]"

# --- backtest: the caller's positions, as a --signal file of the same numbers
python3 - data/eu_stock_markets.csv "$tmp/signal.csv" > "$tmp/pos.txt" <<'PY'
import csv, math, sys
cols, out = {}, open(sys.argv[2], "w")
out.write("unique_id,ds,position\n")
for i, r in enumerate(csv.DictReader(open(sys.argv[1]))):
    p = round(4 * math.sin(i / 37.0)) / 4
    cols.setdefault(r["unique_id"], []).append(repr(p))
    out.write("%s,%s,%r\n" % (r["unique_id"], r["ds"], p))
print("{%s}" % ", ".join('"%s": [%s]' % (k, ", ".join(v)) for k, v in cols.items()))
PY
printf '{"close": %s, "positions": %s, "size": "fixed:0.5", "cost-bps": 3, "capital": 50000}\n' \
    "$(cat $tmp/closes.txt)" "$(cat $tmp/pos.txt)" > "$tmp/bt2.json"
cli quant backtest --data request --signal signal.csv --size fixed:0.5 --cost-bps 3 --capital 50000 --json \
    > "$tmp/bt2_cli.json" 2> "$tmp/bt2_cli.err"
body POST /v1/quant/backtest --data-binary @"$tmp/bt2.json" > "$tmp/bt2_srv.json"
check "positions backtest: fcast quant backtest --signal --json's line byte for byte but for seconds" \
      "[ -s $tmp/bt2_cli.json ] && cmp -s <(no_seconds < $tmp/bt2_cli.json) <(no_seconds < $tmp/bt2_srv.json)"

# --- errors: status and the key named
check "portfolio: frontier without bounds is 400 with the CLI's message" \
      "b=\$(body POST /v1/quant/portfolio --data-binary '{\"returns\": {\"A\": [0.1, 0.2]}, \"frontier\": 3}') && grep -q 'frontier needs bounds on the weights' <<<\"\$b\""
check "backtest: a range key of another rule is 400 naming it" \
      "b=\$(body POST /v1/quant/backtest --data-binary '{\"close\": [1, 2, 3], \"rule\": \"rsi\", \"fast\": 2}') && grep -q 'fast does not apply to rule rsi' <<<\"\$b\""
check "backtest: malformed JSON is 400" "[ \"\$(code POST /v1/quant/backtest -H 'Content-Type: application/json' --data-binary '{\"close\": [')\" = 400 ]"
check "portfolio: GET is 405" "[ \"\$(code GET /v1/quant/portfolio)\" = 405 ]"
check "backtest: a CSV body is 415" \
      "[ \"\$(code POST /v1/quant/backtest -H 'Content-Type: text/csv' --data-binary 'close')\" = 415 ]"
python3 -c 'print("{\"fast\": \"1:1000\", \"slow\": 2000, \"close\": [" + ",".join(["1"] * 2000000) + "]}")' > "$tmp/big.json"
check "backtest: more backtests x bars than a request may run is 413" \
      "[ \"\$(code POST /v1/quant/backtest -H 'Content-Type: application/json' --data-binary @$tmp/big.json)\" = 413 ]"
check "the server still answers after the errors" "[ \"\$(code GET /v2/health/ready)\" = 200 ]"
check "SIGTERM: exit 0" "stop"

finish
