#!/usr/bin/env bash
# fcast serve's resident memory under a long run of valid requests: it
# must stay flat. Sends N (default 100,000) single-series JSON forecast
# requests, samples the server's VmRSS (/proc/PID/status) before the first
# and after every STEP (default 10,000), and prints the samples and the
# growth from the first sample after warm-up (the one after STEP requests)
# to the last: PASS when within LIMIT_KIB (default 2048: 2 MiB) and every
# request was answered 200, else FAIL (exit 1).
#
#   bench/serve_memory.sh [BUILD_DIR] [MODEL.safetensors]
#
# Clients: wrk (CONNECTIONS connections, default 4) when installed. wrk
# runs for a duration, not a count, so it runs in the background and the
# server's own count of answered forecasts (/metrics) says when a step is
# done: VmRSS is sampled then, under load, and wrk stopped after N.
# Without wrk: Python threads on keep-alive http.client connections, N in
# rounds of STEP, sampled between rounds (new connections each round: each
# is a thread of the server's, thread-per-connection). Without a model it
# trains an N-HiTS (h 12, input 24) for 30 steps: the steps do not change
# the model's size. CLIENT=python uses the Python clients even where wrk is.
# About 50 s on 2 cores: not run by ctest.
set -euo pipefail
build=${1:-build}
fcast=$build/fcast
N=${N:-100000}
STEP=${STEP:-10000}
CONNECTIONS=${CONNECTIONS:-4}
LIMIT_KIB=${LIMIT_KIB:-2048}
CLIENT=${CLIENT:-auto}
tmp=$(mktemp -d)
pid="" wrk_pid=""
trap '[ -n "$wrk_pid" ] && kill $wrk_pid 2>/dev/null; [ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT

mkdir -p "$tmp/models"
if [ -n "${2:-}" ]; then
    cp "$2" "$tmp/models/nhits.safetensors"
else
    "$fcast" train --data data/monthly_classics.csv --model nhits --h 12 --input-size 24 --max-steps 30 \
        --quiet --out "$tmp/models/nhits.safetensors" 2>/dev/null
fi

# one request: the last 24 months of one series, as JSON
python3 - "$tmp" <<'PY'
import csv, json, sys
rows = [r for r in csv.DictReader(open("data/monthly_classics.csv")) if r["unique_id"] == "gas"][-24:]
json.dump({"series": [{"unique_id": "gas", "ds": [r["ds"] for r in rows], "y": [float(r["y"]) for r in rows]}]},
          open(sys.argv[1] + "/one.json", "w"))
PY

source tests/lib_serve.sh
start serve --quiet
[ -n "$port" ] || { echo "the server did not start:" >&2; cat "$tmp/serve.log" >&2; exit 2; }
url="http://127.0.0.1:$port/v1/models/nhits/forecast"

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$pid/status"; }
# metric NAME: the server's counter for the model (0 when absent)
metric() {
    curl -s --max-time 10 "http://127.0.0.1:$port/metrics" |
        awk -v name="$1" '$1 == name "{model=\"nhits\",version=\"1\"}" {n = $2} END {print n + 0}'
}

warm="" last=""
# sample COUNT: prints COUNT, VmRSS and the growth since the first sample after warm-up
sample() {
    last=$(rss_kib)
    [ -z "$warm" ] && warm=$last
    printf "  %9d %12d %+14d\n" "$1" "$last" $(( last - warm ))
}

echo "fcast serve: resident memory over $N single-series forecast requests"
printf "  %9s %12s %14s\n" "requests" "VmRSS KiB" "since warm-up"
printf "  %9d %12d %14s\n" 0 "$(rss_kib)" "-"
t0=$(date +%s.%N)
if [ "$CLIENT" != python ] && command -v wrk >/dev/null; then
    client="wrk, $CONNECTIONS connections"
    cat > "$tmp/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$tmp/one.json", "r"); wrk.body = f:read("*a"); f:close()
LUA
    wrk -t$(( CONNECTIONS < 2 ? 1 : 2 )) -c"$CONNECTIONS" -d3600s --timeout 10s -s "$tmp/post.lua" "$url" \
        > "$tmp/wrk.txt" 2>&1 &
    wrk_pid=$!
    next=$STEP
    while [ "$next" -le "$N" ]; do
        kill -0 "$wrk_pid" 2>/dev/null || { echo "wrk stopped early:" >&2; cat "$tmp/wrk.txt" >&2; exit 2; }
        n=$(( $(metric nv_inference_request_success) + $(metric nv_inference_request_failure) ))
        if [ "$n" -ge "$next" ]; then
            sample "$n"
            next=$(( next + STEP ))
        else
            sleep 0.02
        fi
    done
    kill -INT "$wrk_pid"
    wait "$wrk_pid" || true
    wrk_pid=""
    other=$(metric nv_inference_request_failure)
    # wrk's own view: answers other than 2xx, socket errors
    grep -E 'Non-2xx|Socket errors' "$tmp/wrk.txt" | sed 's/^ */  wrk: /' || true
else
    client="python3 http.client, keep-alive, $CONNECTIONS threads"
    sent=0 other=0
    while [ "$sent" -lt "$N" ]; do
        bad=$(python3 - "$port" "$STEP" "$CONNECTIONS" "$tmp/one.json" <<'PY'
import http.client, sys, threading
port, count, conns, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
body = open(path, "rb").read()
bad = [0] * conns
def run(k):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for _ in range(count // conns + (k < count % conns)):
        try:
            c.request("POST", "/v1/models/nhits/forecast", body, {"Content-Type": "application/json"})
            r = c.getresponse()
            r.read()
            bad[k] += r.status != 200
        except Exception:
            bad[k] += 1
            c.close()
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.close()
ts = [threading.Thread(target=run, args=(k,)) for k in range(conns)]
for t in ts: t.start()
for t in ts: t.join()
print(sum(bad))
PY
)
        other=$(( other + ${bad:-$STEP} ))
        sent=$(( sent + STEP ))
        sample "$sent"
    done
fi
secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
ok=$(metric nv_inference_request_success)
growth=$(( last - warm ))
echo "  client: $client; answered 200 (server's count): $ok; other answers: $other; $secs s"
echo "  growth from the sample after warm-up to the last: $growth KiB (limit $LIMIT_KIB KiB)"
kill -TERM "$pid"
wait "$pid" || true
pid=""
if [ "$growth" -le "$LIMIT_KIB" ] && [ "$other" -eq 0 ]; then
    echo "PASS"
else
    echo "FAIL"
    exit 1
fi
