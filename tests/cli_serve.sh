#!/usr/bin/env bash
# fcast serve over loopback with curl (docs/serving.md): health, readiness
# and metadata; forecasts in JSON and CSV equal to fcast predict's, to the
# last printed digit; errors with the right status; dynamic batching
# (concurrent requests share forward passes and get the answers they get
# alone); a full queue answers 503 at once; SIGTERM under load answers
# every accepted request, then exits 0. Bounded in time: every curl has a
# timeout, every wait a deadline. $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
source tests/lib_serve.sh

serve_model
check "a model to serve" "[ -s $tmp/models/nhits.safetensors ]"
# a DistributionLoss model: served forecasts draw as predict's do (keyed by the model's input)
"$fcast" train --data data/monthly_classics.csv --model mlp --h 6 --input-size 12 --hidden-size 16 --num-layers 1 \
  --max-steps 5 --loss studentt --quiet --out "$tmp/models/studentt.safetensors" 2> /dev/null
check "a DistributionLoss model to serve" "[ -s $tmp/models/studentt.safetensors ]"

# code METHOD PATH [CURL ARGS...]: the HTTP status only
code() { local m=$1 p=$2; shift 2; curl -s -o /dev/null -w '%{http_code}' --max-time 20 -X "$m" "$@" "http://127.0.0.1:$port$p"; }
# body METHOD PATH [CURL ARGS...]: the body only
body() { local m=$1 p=$2; shift 2; curl -s --max-time 20 -X "$m" "$@" "http://127.0.0.1:$port$p"; }

# a GPU other than cuda:0 is refused clearly (the server's threads would not be bound to it)
"$fcast" serve --models "$tmp/models" --port 0 --device cuda:1 2> "$tmp/cuda1.err"
rc=$?
check "--device cuda:1: refused (exit 4) saying why" "[ $rc = 4 ] && grep -q 'runs on cuda:0' $tmp/cuda1.err"

# the memory plan against --memory-limit, before serving
"$fcast" serve --models "$tmp/models" --port 0 --memory-limit 64MiB 2> "$tmp/limit.err"
rc=$?
check "--memory-limit too small for the plan: refused at start (exit 6) with the breakdown" \
      "[ $rc = 6 ] && grep -q 'request bodies (--max-connections x --max-body)' $tmp/limit.err"

start main --quiet
check "the server starts and prints its port" "[ -n '$port' ]"
check "live" "[ \"\$(code GET /v2/health/live)\" = 200 ]"
check "ready" "[ \"\$(code GET /v2/health/ready)\" = 200 ]"
check "model ready" "[ \"\$(code GET /v2/models/nhits/ready)\" = 200 ]"
check "server metadata names fcast" "body GET /v2 > $tmp/v2.json; grep -q '\"name\": \"fcast\"' $tmp/v2.json"
body GET /v2/models/nhits > "$tmp/meta.json"
check "model metadata: KServe shapes and fcast's configuration" \
      "grep -q '\"shape\": \[-1, 24\]' $tmp/meta.json && grep -q '\"h\": 12' $tmp/meta.json && grep -q '\"model\": \"NHITS\"' $tmp/meta.json"

# forecasts: CSV in, CSV out, against fcast predict on the same file
"$fcast" predict --model "$tmp/models/nhits.safetensors" --data data/monthly_classics.csv --out "$tmp/predict.csv" 2>/dev/null
body POST /v1/models/nhits/forecast -H 'Content-Type: text/csv' -H 'Accept: text/csv' \
     --data-binary @data/monthly_classics.csv > "$tmp/served.csv"
check "CSV forecast equals fcast predict's file byte for byte" "cmp -s $tmp/predict.csv $tmp/served.csv"
"$fcast" predict --model "$tmp/models/studentt.safetensors" --data data/monthly_classics.csv --out "$tmp/predict_t.csv" \
  2> /dev/null
body POST /v1/models/studentt/forecast -H 'Content-Type: text/csv' -H 'Accept: text/csv' \
     --data-binary @data/monthly_classics.csv > "$tmp/served_t.csv"
check "a DistributionLoss model's sampled forecast equals fcast predict's byte for byte" \
      "head -1 $tmp/served_t.csv | grep -q 'MLP-lo-90' && cmp -s $tmp/predict_t.csv $tmp/served_t.csv"
# JSON in, JSON out: the same numbers as predict's CSV
python3 - "$tmp" <<'EOF'
import csv, json, sys
tmp = sys.argv[1]
series = {}
for r in csv.DictReader(open("data/monthly_classics.csv")):
    s = series.setdefault(r["unique_id"], {"unique_id": r["unique_id"], "ds": [], "y": []})
    s["ds"].append(r["ds"]); s["y"].append(float(r["y"]) if r["y"] else None)
json.dump({"series": list(series.values())}, open(f"{tmp}/request.json", "w"))
one = series["gas"]
json.dump({"series": [one], "h": 3}, open(f"{tmp}/request_h3.json", "w"))
json.dump({"series": [one], "level": [80]}, open(f"{tmp}/request_level.json", "w"))
EOF
check "a DistributionLoss model asked for levels: refused (400), naming fcast predict --level" \
      "[ \"\$(code POST /v1/models/studentt/forecast -H 'Content-Type: application/json' --data-binary @$tmp/request_level.json)\" = 400 ] && body POST /v1/models/studentt/forecast -H 'Content-Type: application/json' --data-binary @$tmp/request_level.json | grep -q 'predict --level'"
body POST /v1/models/nhits/forecast -H 'Content-Type: application/json' --data-binary @"$tmp/request.json" \
     > "$tmp/served.json"
python3 - "$tmp" <<'EOF' > "$tmp/json_check.txt"
import csv, json, sys
tmp = sys.argv[1]
want = [(r["unique_id"], r["ds"], r["NHITS"]) for r in csv.DictReader(open(f"{tmp}/predict.csv"))]
got = []
doc = json.load(open(f"{tmp}/served.json"))
for f in doc["forecasts"]:
    for ds, v in zip(f["ds"], f["NHITS"]):
        got.append((f["unique_id"], ds, "%.9g" % v))
print("same" if got == want and len(got) == 48 else "differ %d %d" % (len(got), len(want)))
EOF
check "JSON forecast equals fcast predict's values" "grep -qx same $tmp/json_check.txt"
check "h below the model's horizon: the first h steps" \
      "body POST /v1/models/nhits/forecast --data-binary @$tmp/request_h3.json > $tmp/h3.json; python3 < $tmp/h3.json -c 'import json,sys; d=json.load(sys.stdin); sys.exit(len(d[\"forecasts\"][0][\"NHITS\"]) != 3)'"

# KServe v2 infer: the last 24 points of each series as windows (B, 24) in,
# (B, 12) out: the values fcast predict gives those series
python3 - "$tmp" <<'EOF'
import csv, json, sys
tmp = sys.argv[1]
series = {}
for r in csv.DictReader(open("data/monthly_classics.csv")):
    series.setdefault(r["unique_id"], []).append(float(r["y"]))
rows = [series[k][-24:] for k in sorted(series)]
json.dump({"id": "r1", "inputs": [{"name": "insample_y", "shape": [len(rows), 24], "datatype": "FP32", "data": rows}]},
          open(f"{tmp}/infer.json", "w"))
bad = {"inputs": [{"name": "insample_y", "shape": [1, 23], "datatype": "FP32", "data": [0.0] * 23}]}
json.dump(bad, open(f"{tmp}/infer_bad_shape.json", "w"))
EOF
body POST /v2/models/nhits/infer -H 'Content-Type: application/json' --data-binary @"$tmp/infer.json" > "$tmp/infer_out.json"
python3 - "$tmp" <<'EOF' > "$tmp/infer_check.txt"
import csv, json, sys
tmp = sys.argv[1]
want = [r["NHITS"] for r in csv.DictReader(open(f"{tmp}/predict.csv"))]
doc = json.load(open(f"{tmp}/infer_out.json"))
out = doc["outputs"][0]
got = ["%.9g" % v for v in out["data"]]
ok = out["shape"] == [4, 12] and out["name"] == "forecast" and doc["id"] == "r1" and doc["model_name"] == "nhits"
print("same" if ok and got == want else "differ")
EOF
check "KServe v2 infer: shapes, id and fcast predict's values" "grep -qx same $tmp/infer_check.txt"
check "KServe v2 infer: a window of the wrong length is 400 naming the shape" \
      "body POST /v2/models/nhits/infer --data-binary @$tmp/infer_bad_shape.json > $tmp/o.txt; grep -q 'inputs\[0\].shape' $tmp/o.txt"
check "KServe v2 infer: a shape larger than its body is refused before any allocation (400)" \
      "body POST /v2/models/nhits/infer -H 'Content-Type: application/json' --data-binary \
       '{\"inputs\": [{\"name\": \"insample_y\", \"shape\": [90000, 24], \"datatype\": \"FP32\", \"data\": [1]}]}' \
       > $tmp/o.txt; grep -q 'holds more values than the body' $tmp/o.txt"
check "KServe v2 infer: GET is 405" "[ \"\$(code GET /v2/models/nhits/infer)\" = 405 ]"

# errors: status and message
check "unknown model: 404" "[ \"\$(code POST /v1/models/none/forecast --data-binary @$tmp/request.json)\" = 404 ]"
check "unknown path: 404" "[ \"\$(code GET /nothing/here)\" = 404 ]"
check "wrong method: 405" "[ \"\$(code GET /v1/models/nhits/forecast)\" = 405 ]"
check "malformed JSON: 400" "[ \"\$(code POST /v1/models/nhits/forecast -H 'Content-Type: application/json' --data-binary '{\"series\": [')\" = 400 ]"
check "a field of the wrong type: 400 naming it" \
      "body POST /v1/models/nhits/forecast --data-binary '{\"series\": [{\"unique_id\": \"a\", \"ds\": [1], \"y\": [\"x\"]}]}' > $tmp/o.txt; grep -q 'series\[0\].y\[0\]' $tmp/o.txt"
check "an unsupported content type: 415" \
      "[ \"\$(code POST /v1/models/nhits/forecast -H 'Content-Type: application/xml' --data-binary '<a/>')\" = 415 ]"
check "h beyond the model's horizon: 400" \
      "[ \"\$(code POST /v1/models/nhits/forecast --data-binary '{\"series\": [{\"unique_id\": \"a\", \"ds\": [\"2000-01-01\"], \"y\": [1]}], \"h\": 13}')\" = 400 ]"
head -c 17000000 /dev/zero | tr '\0' ' ' > "$tmp/big.txt"
check "a body past --max-body: 413" "[ \"\$(code POST /v1/models/nhits/forecast --data-binary @$tmp/big.txt)\" = 413 ]"
check "the server still answers after the errors" "[ \"\$(code GET /v2/health/ready)\" = 200 ]"

# metrics: Prometheus text with Triton's names; the successes counted
body GET /metrics > "$tmp/metrics.txt"
check "metrics: successes of the model counted" \
      "grep -q '^nv_inference_request_success{model=\"nhits\",version=\"1\"} 4$' $tmp/metrics.txt"
check "metrics: failures counted" "grep -q '^nv_inference_request_failure{model=\"nhits\",version=\"1\"} [1-9]' $tmp/metrics.txt"
check "metrics: request duration histogram" "grep -q '^fcast_request_duration_seconds_bucket{model=\"nhits\",le=\"+Inf\"}' $tmp/metrics.txt"
check "SIGTERM: exit 0" "stop"

# dynamic batching: 24 concurrent one-series requests with a queue delay
# share forward passes (executions < requests), and each answer equals the
# series' forecast alone
start batch --quiet --max-queue-delay-us 200000
for i in $(seq 24); do
    body POST /v1/models/nhits/forecast -H 'Accept: text/csv' --data-binary @"$tmp/request_h3.json" > "$tmp/b$i.csv" &
done
wait $(jobs -p | grep -v "^$pid$") 2>/dev/null
body POST /v1/models/nhits/forecast -H 'Accept: text/csv' --data-binary @"$tmp/request_h3.json" > "$tmp/alone.csv"
# (Bit for bit where oneDNN computes a row alike in a product of one row
# and of many, as on AVX-512; on AVX2 its kernels for one row and for many
# sum in other orders, so the last bits may differ: within 1e-6 relative.)
same=0 close=0
for i in $(seq 24); do
  cmp -s "$tmp/b$i.csv" "$tmp/alone.csv" && same=$((same + 1))
  python3 - "$tmp/b$i.csv" "$tmp/alone.csv" <<'PY' && close=$((close + 1))
import csv, sys
a, b = (list(csv.reader(open(f))) for f in sys.argv[1:3])
ok = len(a) == len(b) > 1 and a[0] == b[0] and all(
    x[:2] == y[:2] and all(abs(float(u) - float(v)) <= 1e-6 * max(1.0, abs(float(v))) for u, v in zip(x[2:], y[2:]))
    for x, y in zip(a[1:], b[1:]))
sys.exit(0 if ok else 1)
PY
done
echo "batched answers: $same of 24 bit for bit equal to the unbatched one"
check "batched answers equal the unbatched one, to 1e-6 relative (24 of 24: got $close)" "[ $close = 24 ]"
body GET /metrics > "$tmp/metrics_b.txt"
execs=$(sed -n 's/^nv_inference_exec_count{model="nhits",version="1"} \([0-9]*\)$/\1/p' "$tmp/metrics_b.txt")
check "requests were batched: $execs executions for 25 requests" "[ -n '$execs' ] && [ '$execs' -lt 25 ]"
stop

# a full queue: 503 with Retry-After, at once
start full --quiet --max-queue 1 --max-queue-delay-us 1000000
for i in $(seq 6); do
    curl -s -o /dev/null -D "$tmp/h$i.txt" -w '%{http_code}\n' --max-time 20 -X POST --data-binary @"$tmp/request_h3.json" \
        "http://127.0.0.1:$port/v1/models/nhits/forecast" > "$tmp/c$i.txt" &
done
wait $(jobs -p | grep -v "^$pid$") 2>/dev/null
codes=$(cat "$tmp"/c*.txt | sort | uniq -c | tr -s ' ' | tr '\n' ';')
check "a full queue answers 503 ($codes)" "grep -q 503 $tmp/c*.txt && grep -q 200 $tmp/c*.txt"
check "503 carries Retry-After" "grep -il '^retry-after: 1' $tmp/h*.txt >/dev/null"
stop

# GPU gauges in the metrics through NVML (here a stand-in NVML: 2 GPUs,
# 87 % busy, 1 GiB of 16 GiB used, 61 C, 210.5 W)
FCAST_TEST_SERVE_GPU_METRICS=1 FCAST_NVML_LIBRARY="$(dirname "$fcast")/libfake_nvml.so" start gpu --quiet
body GET /metrics > "$tmp/metrics_gpu.txt"
check "metrics: NVML's readings per GPU" \
      "grep -q '^nv_gpu_utilization{gpu_uuid=\"cuda:1\"} 0.87' $tmp/metrics_gpu.txt && \
       grep -q '^nv_gpu_memory_total_bytes{gpu_uuid=\"cuda:0\"} 17179869184' $tmp/metrics_gpu.txt && \
       grep -q '^nv_gpu_power_usage{gpu_uuid=\"cuda:0\"} 210.5' $tmp/metrics_gpu.txt"
stop

# a request that waits in the queue past --request-timeout without starting
# leaves it with 503 (here the batcher would wait 3 s for company)
start timeout --quiet --max-queue-delay-us 3000000 --request-timeout 0.3
t0=$(date +%s%N)
got=$(code POST /v1/models/nhits/forecast --data-binary @"$tmp/request_h3.json")
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "a request past --request-timeout: 503 after about 0.3 s (got $got after $ms ms)" "[ $got = 503 ] && [ $ms -lt 2500 ]"
check "the server is still ready after a timeout" "[ \"\$(code GET /v2/health/ready)\" = 200 ]"
stop

# SIGTERM under load: every accepted request is answered, then exit 0
# (the signal is sent once all 12 wait in the queue, which a batch window of
# 2 s keeps them in: a fixed pause lost requests still connecting on a busy
# machine, with the old binary too)
start drain --quiet --max-queue-delay-us 2000000
for i in $(seq 12); do
    curl -s -o /dev/null -w '%{http_code}\n' --max-time 20 -X POST --data-binary @"$tmp/request_h3.json" \
        "http://127.0.0.1:$port/v1/models/nhits/forecast" > "$tmp/d$i.txt" 2>/dev/null &
done
for i in $(seq 100); do
    pending=$(body GET /metrics | sed -n 's/^nv_inference_pending_request_count{model="nhits",version="1"} \([0-9]*\)$/\1/p')
    [ "${pending:-0}" -ge 12 ] && break
    sleep 0.02
done
kill -TERM "$pid"
wait $(jobs -p | grep -v "^$pid$") 2>/dev/null
wait "$pid"
rc=$?
answered=$(cat "$tmp"/d*.txt | grep -c '^200$')
check "SIGTERM under load: exit 0 (got $rc)" "[ $rc = 0 ]"
check "SIGTERM under load: the 12 queued requests answered 200 (got $answered)" "[ $answered = 12 ]"
check "SIGTERM: stderr says the server stops accepting, drains and exits, and nothing of checkpoints" \
      "grep -q 'no new connections are accepted, the requests in flight finish, then the server exits' $tmp/drain.log && \
       grep -q 'draining the requests in flight, up to --drain-timeout' $tmp/drain.log && \
       grep -q '^fcast serve: stopped$' $tmp/drain.log && ! grep -qi checkpoint $tmp/drain.log"

# the access log (no --quiet): each line starts with the time of the answer,
# ISO 8601 UTC with milliseconds, between the times before and after the
# requests; /healthz and /readyz answer as /v2/health/live and /ready, and,
# as they do, without the bearer token the other endpoints need
printf 'sesame\n' > "$tmp/token"
before=$(python3 -c 'import time; print(time.time())')
start logged --auth-token-file "$tmp/token"
for p in /v2/health/live /healthz /v2/health/ready /readyz; do
    curl -s --max-time 20 -o "$tmp/probe_body" -w '%{http_code}' "http://127.0.0.1:$port$p" > "$tmp/probe_code"
    echo "$(cat "$tmp/probe_code") $(cat "$tmp/probe_body")" > "$tmp/probe$(echo "$p" | tr / _).txt"
done
check "/healthz: /v2/health/live's status and body, without the token" \
      "cmp -s $tmp/probe_v2_health_live.txt $tmp/probe_healthz.txt && grep -q '^200 {\"live\": true}' $tmp/probe_healthz.txt"
check "/readyz: /v2/health/ready's status and body, without the token" \
      "cmp -s $tmp/probe_v2_health_ready.txt $tmp/probe_readyz.txt && grep -q '^200 {\"ready\": true}' $tmp/probe_readyz.txt"
check "/readyz takes GET and HEAD only: POST is 405" "[ \"\$(code POST /readyz)\" = 405 ]"
check "other endpoints still need the token: 401" "[ \"\$(code GET /v2)\" = 401 ]"
code GET /v2 -H 'Authorization: Bearer sesame' > /dev/null
stop
after=$(python3 -c 'import time; print(time.time())')
python3 - "$tmp/logged.log" "$before" "$after" > "$tmp/log_check.txt" <<'PY'
import datetime, re, sys
lines = [l for l in open(sys.argv[1]) if re.search(r" (GET|POST) /", l)]
lo, hi = float(sys.argv[2]), float(sys.argv[3])
ok = len(lines) == 7
for l in lines:
    m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})Z (GET|POST) (\S+) (\d{3}) \d+ \d+$", l)
    if not m:
        ok = False
        continue
    t = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc).timestamp()
    ok = ok and lo - 0.001 <= t <= hi + 0.001
print("ok" if ok else "bad: %r" % lines)
PY
check "access log: 7 lines, each 'TIME METHOD PATH STATUS BYTES MICROSECONDS' with TIME ISO 8601 UTC (ms) of the run" \
      "grep -qx ok $tmp/log_check.txt"

finish
