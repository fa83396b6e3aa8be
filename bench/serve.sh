#!/usr/bin/env bash
# fcast serve under load: throughput and latency of single-series forecast
# requests over loopback, driven by wrk (Debian's `wrk` package), at several
# concurrency levels, without and with a dynamic-batching queue delay; the
# mean batch size from the server's own metrics; and, next to it, the
# in-process latency of fc_predict (bench_predict) on the same model.
#
#   bench/serve.sh [BUILD_DIR] [MODEL.safetensors]
#
# Without a model it trains the default N-HiTS (3 stacks of [512, 512],
# h = 12, input 24) on data/monthly_classics.csv for 200 steps. wrk runs on
# the same machine as the server and takes CPU from it: the figures are
# for the pair, on this machine; compare ratios from one run. Servers:
# --max-batch-windows 1 (no batching), the defaults (batch what is waiting,
# 1 compute thread on 2 cores), a 1 ms queue delay, 2 compute threads.
set -euo pipefail
build=${1:-build}
fcast=$build/fcast
tmp=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=""
source tests/lib_serve.sh
if ! command -v wrk >/dev/null; then
    echo "bench/serve.sh needs wrk: apt-get install -y wrk" >&2
    exit 2
fi
mkdir -p "$tmp/models"
if [ -n "${2:-}" ]; then
    cp "$2" "$tmp/models/nhits.safetensors"
else
    echo "training the default N-HiTS (200 steps) to serve..."
    "$fcast" train --data data/monthly_classics.csv --model nhits --h 12 --input-size 24 --max-steps 200 \
        --quiet --out "$tmp/models/nhits.safetensors" 2>/dev/null
fi

# one request: the last 24 months of one series, as JSON
python3 - "$tmp" <<'EOF'
import csv, json, sys
rows = [r for r in csv.DictReader(open("data/monthly_classics.csv")) if r["unique_id"] == "gas"][-24:]
json.dump({"series": [{"unique_id": "gas", "ds": [r["ds"] for r in rows], "y": [float(r["y"]) for r in rows]}]},
          open(sys.argv[1] + "/one.json", "w"))
EOF
cat > "$tmp/post.lua" <<EOF
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$tmp/one.json", "r"); wrk.body = f:read("*a"); f:close()
EOF

# metric NAME: the server's counter for the model
metric() { curl -s "http://127.0.0.1:$port/metrics" | sed -n "s/^$1{model=\"nhits\",version=\"1\"} \([0-9]*\)$/\1/p"; }

# run_level FLAGS CONCURRENCY: one row of the table
run_level() {
    local c=$1 threads=$(( $1 < 2 ? 1 : 2 ))
    local n0 e0 n1 e1
    n0=$(metric nv_inference_count); e0=$(metric nv_inference_exec_count)
    wrk -t$threads -c"$c" -d5s --latency -s "$tmp/post.lua" "http://127.0.0.1:$port/v1/models/nhits/forecast" \
        > "$tmp/wrk.txt"
    n1=$(metric nv_inference_count); e1=$(metric nv_inference_exec_count)
    local rps p50 p99 batch
    rps=$(awk '/Requests\/sec/ {print $2}' "$tmp/wrk.txt")
    p50=$(awk '$1 == "50%" {print $2}' "$tmp/wrk.txt")
    p99=$(awk '$1 == "99%" {print $2}' "$tmp/wrk.txt")
    batch=$(awk -v n=$((n1 - n0)) -v e=$((e1 - e0)) 'BEGIN {printf "%.1f", e ? n / e : 0}')
    printf "  %-28s %5d %12s %9s %9s %11s\n" "$label" "$c" "$rps" "$p50" "$p99" "$batch"
}

printf "\nfcast serve, one series per request (JSON), wrk on the same machine:\n"
printf "  %-28s %5s %12s %9s %9s %11s\n" "server" "conc." "requests/s" "p50" "p99" "mean batch"
for flags in "--max-batch-windows 1" "" "--max-queue-delay-us 1000" "--threads 2"; do
    label=${flags:-defaults}
    start serve --quiet $flags
    for c in 1 4 8 16 64; do run_level "$c"; done
    kill -TERM $pid; wait $pid || true
done

printf "\nin process (no HTTP):\n"
"$build/bench_predict" "$tmp/models/nhits.safetensors" data/monthly_classics.csv
