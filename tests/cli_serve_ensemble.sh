#!/usr/bin/env bash
# fcast serve answers an ensemble file (fcast ensemble) as fcast predict
# does: the column Ensemble, the median of members of different input
# sizes, byte for byte predict's file for the same data (CSV), the same
# values in JSON and through KServe v2 infer (windows of the longest
# member's input size); concurrent requests batched across clients get
# their answers alone; levels are refused (an ensemble has no intervals);
# its metadata names the combination and members; it reloads like a model.
# Bounded in time: every curl has a timeout. $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
source tests/lib_serve.sh
data=data/monthly_classics.csv
mkdir -p "$tmp/models"
# 2 architectures x input sizes 12 and 18: 4 members (an even count: the
# median is the mean of the two middle values)
"$fcast" ensemble --data $data --h 6 --mlp-units 8,8,8 --max-steps 5 --threads 1 --quiet --model nhits,nbeats \
    --input-size-multiples 2,3 --losses mae --out "$tmp/models/ens.safetensors" 2>/dev/null
check "an ensemble to serve" "[ -s $tmp/models/ens.safetensors ]"
"$fcast" predict --model "$tmp/models/ens.safetensors" --data $data --out "$tmp/cli.csv" 2>/dev/null
check "fcast predict writes its column Ensemble" "head -1 $tmp/cli.csv | grep -qx 'unique_id,ds,Ensemble'"
python3 - "$data" "$tmp" <<'PY'
import csv, json, sys
data, tmp = sys.argv[1:3]
series = {}
for row in csv.DictReader(open(data)):
    s = series.setdefault(row["unique_id"], {"unique_id": row["unique_id"], "ds": [], "y": []})
    s["ds"].append(row["ds"]); s["y"].append(float(row["y"]))
json.dump({"series": list(series.values())}, open(f"{tmp}/req.json", "w"))
json.dump({"series": list(series.values()), "level": [80]}, open(f"{tmp}/level.json", "w"))
for i, s in enumerate(series.values()):
    json.dump({"series": [s]}, open(f"{tmp}/one{i}.json", "w"))
rows = [series[k]["y"][-18:] for k in sorted(series)]   # predict writes the series sorted
json.dump({"id": "e1", "inputs": [{"name": "insample_y", "shape": [len(rows), 18], "datatype": "FP32", "data": rows}]},
          open(f"{tmp}/infer.json", "w"))
PY

start main --threads 1
check "the server starts, serving the ensemble" "[ -n '$port' ] && ! grep -q 'not served' $tmp/main.log"
code=$(forecast ens text/csv $data "$tmp/srv.csv")
check "CSV: 200 (got $code)" "[ '$code' = 200 ]"
check "CSV: fcast predict's file, byte for byte" "cmp -s $tmp/cli.csv $tmp/srv.csv"
curl -s --max-time 60 -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/req.json" \
     "http://127.0.0.1:$port/v1/models/ens/forecast" > "$tmp/srv.json"
curl -s --max-time 60 -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/infer.json" \
     "http://127.0.0.1:$port/v2/models/ens/infer" > "$tmp/infer_out.json"
python3 - "$tmp" > "$tmp/values.txt" <<'PY'
import csv, json, sys
tmp = sys.argv[1]
want = [(r["unique_id"], r["ds"], r["Ensemble"]) for r in csv.DictReader(open(f"{tmp}/cli.csv"))]
got = [(f["unique_id"], ds, "%.9g" % v) for f in json.load(open(f"{tmp}/srv.json"))["forecasts"]
       for ds, v in zip(f["ds"], f["Ensemble"])]
print("json", "same" if got == want and len(want) == 24 else "differ")
out = json.load(open(f"{tmp}/infer_out.json"))["outputs"][0]
print("infer", "same" if out["shape"] == [4, 6] and ["%.9g" % v for v in out["data"]] == [w[2] for w in want]
      else "differ %s" % out["shape"])
PY
check "JSON: the column Ensemble, predict's values" "grep -qx 'json same' $tmp/values.txt"
check "KServe infer, windows of the longest member's 18 points: predict's values" \
      "grep -qx 'infer same' $tmp/values.txt"
code=$(forecast ens application/json "$tmp/level.json" "$tmp/level.out")
check "level asked of an ensemble: 400 saying it has no intervals (got $code)" \
      "[ '$code' = 400 ] && grep -q 'is an ensemble' $tmp/level.out && grep -q 'no intervals' $tmp/level.out"
curl -s --max-time 20 "http://127.0.0.1:$port/v2/models/ens" > "$tmp/meta.json"
check "metadata: input [-1, 18] (the longest member), output [-1, 6], median of 4 members" \
      "grep -q '\"shape\": \[-1, 18\]' $tmp/meta.json && grep -q '\"shape\": \[-1, 6\]' $tmp/meta.json && \
       grep -q '\"combine\": \"median\", \"members\": 4' $tmp/meta.json"
code=$(curl -s --max-time 60 -o /dev/null -w '%{http_code}' -X POST \
       "http://127.0.0.1:$port/v2/repository/models/ens/load")
check "the ensemble reloads through the repository API (got $code)" "[ '$code' = 200 ]"
stop
check "the server stops cleanly" "[ $? -eq 0 ]"

# dynamic batching: one-series requests of 4 clients at once, twice each,
# share forward passes; each series' answer is its rows of predict's file
start batch --quiet --threads 1 --max-queue-delay-us 200000
for r in 1 2; do
    for i in 0 1 2 3; do forecast ens application/json "$tmp/one$i.json" "$tmp/b$r$i.csv" > /dev/null & done
done
wait $(jobs -p | grep -v "^$pid$") 2>/dev/null
ok=0
for r in 1 2; do
    for i in 0 1 2 3; do
        id=$(sed -n 2p "$tmp/b$r$i.csv" | cut -d, -f1)
        python3 - "$tmp/b$r$i.csv" "$tmp/cli.csv" "$id" <<'PY' && ok=$((ok + 1))
import csv, sys
got = list(csv.reader(open(sys.argv[1])))
want = [r for r in csv.reader(open(sys.argv[2])) if r[0] == sys.argv[3]]
# bit for bit on AVX-512; AVX2 kernels may sum a lone row in another order (docs/serving.md)
ok = len(got) == 7 and got[0] == ["unique_id", "ds", "Ensemble"] and len(want) == 6 and all(
    g[:2] == w[:2] and abs(float(g[2]) - float(w[2])) <= 1e-6 * max(1.0, abs(float(w[2]))) for g, w in zip(got[1:], want))
sys.exit(0 if ok else 1)
PY
    done
done
check "batched one-series answers: each its rows of predict's file (8 of 8: got $ok)" "[ $ok = 8 ]"
execs=$(curl -s --max-time 20 "http://127.0.0.1:$port/metrics" |
        sed -n 's/^nv_inference_exec_count{model="ens",version="1"} \([0-9]*\)$/\1/p')
check "requests of several clients were batched: $execs executions for 8 requests" \
      "[ -n '$execs' ] && [ '$execs' -lt 8 ]"
stop
finish
