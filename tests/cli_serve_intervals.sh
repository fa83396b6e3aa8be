#!/usr/bin/env bash
# fcast serve answers quantile-loss models with their quantile columns and
# conformal models with their intervals ("level" in a JSON request), byte
# for byte what fcast predict writes for the same models and data (CSV
# answers), and refuses levels a model cannot give. Bounded in time: every
# curl has a timeout. $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
source tests/lib_serve.sh
data=data/monthly_classics.csv
small=(--model nhits --h 12 --input-size 24 --mlp-units 16,16,16 --max-steps 10 --windows-batch-size 64 --threads 1
       --quiet)
mkdir -p "$tmp/models"
"$fcast" train --data $data "${small[@]}" --loss mq --level 80,90 --out "$tmp/models/mq.safetensors" 2>/dev/null
"$fcast" train --data $data "${small[@]}" --prediction-intervals conformal --pi-windows 3 \
    --out "$tmp/models/conf.safetensors" 2>/dev/null
check "models to serve" "[ -s $tmp/models/mq.safetensors ] && [ -s $tmp/models/conf.safetensors ]"
"$fcast" predict --model "$tmp/models/mq.safetensors" --data $data --out "$tmp/mq_cli.csv" 2>/dev/null
"$fcast" predict --model "$tmp/models/conf.safetensors" --data $data --level 80,95 --out "$tmp/conf_cli.csv" 2>/dev/null
python3 - "$data" > "$tmp/req.json" <<'PY'
import csv, json, sys
series = {}
for row in csv.DictReader(open(sys.argv[1])):
    s = series.setdefault(row["unique_id"], {"unique_id": row["unique_id"], "ds": [], "y": []})
    s["ds"].append(row["ds"]); s["y"].append(float(row["y"]))
print(json.dumps({"series": list(series.values()), "level": [80, 95]}))
PY

start main --quiet --threads 1
check "the server starts" "[ -n '$port' ]"
code=$(forecast mq text/csv $data "$tmp/mq_srv.csv")
check "mq: 200 (got $code)" "[ '$code' = 200 ]"
check "mq: its quantile columns, as fcast predict writes them" "cmp -s $tmp/mq_cli.csv $tmp/mq_srv.csv"
code=$(forecast conf application/json "$tmp/req.json" "$tmp/conf_srv.csv")
check "conformal with level [80, 95]: 200 (got $code)" "[ '$code' = 200 ]"
check "conformal: the point and its intervals, as fcast predict --level writes them" \
      "cmp -s $tmp/conf_cli.csv $tmp/conf_srv.csv"
curl -s --max-time 60 -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/req.json" \
     "http://127.0.0.1:$port/v1/models/conf/forecast" > "$tmp/conf_srv.json"
check "JSON answer lists NHITS-lo-95 ... NHITS-hi-95" \
      "grep -q '\"NHITS-lo-95\":\\[' $tmp/conf_srv.json && grep -q '\"NHITS-hi-80\":\\[' $tmp/conf_srv.json"
sed 's/"level": \[80, 95\]/"level": [95, 80]/' "$tmp/req.json" > "$tmp/rev.json"
code=$(forecast conf application/json "$tmp/rev.json" "$tmp/conf_rev.csv")
check "levels in any order: the same answer (sorted, as neuralforecast)" "cmp -s $tmp/conf_cli.csv $tmp/conf_rev.csv"
curl -s --max-time 60 "http://127.0.0.1:$port/v2/models/mq" > "$tmp/mq_meta.json"
check "an MQ model's KServe metadata: output shape [-1, h, Q]" "grep -q '\"shape\": \[-1, 12, 5\]' $tmp/mq_meta.json"
sed 's/"level": \[80, 95\]/"level": [120]/' "$tmp/req.json" > "$tmp/bad.json"
code=$(forecast conf application/json "$tmp/bad.json" "$tmp/bad.out")
check "a level out of range: 400 naming it (got $code)" "[ '$code' = 400 ] && grep -q 'level' $tmp/bad.out"
"$fcast" train --data $data "${small[@]}" --out "$tmp/plain.safetensors" 2>/dev/null
cp "$tmp/plain.safetensors" "$tmp/models/plain.safetensors"
kill -HUP "$pid"
for _ in $(seq 100); do grep -q "plain" "$tmp/main.log" && break; sleep 0.1; done
code=$(forecast plain application/json "$tmp/req.json" "$tmp/plain.out")
check "level asked of a model without intervals: 400 saying so (got $code)" \
      "[ '$code' = 400 ] && grep -q 'without --prediction-intervals' $tmp/plain.out"
stop
check "the server stops cleanly" "[ $? -eq 0 ]"
finish
