#!/usr/bin/env bash
# fcast serve and gap filling (docs/serving.md, Limits): --max-points
# counts a request's points after gap filling, and the memory plan charges
# them. With the flags of issue 32 (--memory-limit 40MiB --max-connections
# 64 --max-body 64KiB), --max-points 10000000 (filled points a connection)
# is refused at start, the plan naming the request data and the largest
# --max-points that fits, which a server without --max-points takes by
# itself; under it, a 91-byte request whose two
# points 57 years apart fill to 999,361 half-hours gets 413 at once, JSON
# or CSV, naming the series and the filled count, and a burst of 64 of them
# leaves the server's peak resident size (VmHWM, reset before) within
# 8 MiB, while valid forecasts are answered. $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
source tests/lib_serve.sh

mkdir -p "$tmp/models"
"$fcast" train --data data/taylor_halfhourly.csv --model nhits --h 12 --input-size 24 --max-steps 5 --quiet \
    --out "$tmp/models/hh.safetensors" 2>/dev/null
check "a half-hourly model to serve" "[ -s $tmp/models/hh.safetensors ]"
# --max-batch-windows 64: the model's buffers for a batch of 1024 windows alone pass 40 MiB
flags=(--memory-limit 40MiB --max-connections 64 --max-body 64KiB --max-batch-windows 64)

timeout 20 "$fcast" serve --models "$tmp/models" --port 0 "${flags[@]}" --max-points 10000000 2> "$tmp/plan.err"
rc=$?   # a server that starts would be killed by timeout (124)
check "--max-points 10000000 under 40 MiB: refused at start (exit 6, got $rc)" "[ $rc = 6 ]"
check "the plan names the request data after gap filling" \
      "grep -q 'request data after gap filling (--max-connections x --max-points x 17 bytes) 10880000000' $tmp/plan.err"
fits=$(sed -n 's/.*--max-points (at most \([0-9]*\) fits).*/\1/p' "$tmp/plan.err")
check "the plan gives the largest --max-points that fits ($fits)" "[ -n '$fits' ] && [ '$fits' -gt 1000 ]"

# --max-points not given: the limit's share, said at start
start fill "${flags[@]}"
check "without --max-points the server starts under the limit" "[ -n '$port' ]"
check "... taking the largest --max-points that fits ($fits), and saying so" \
      "grep -q -- '--max-points $fits: the points after gap filling a request may have' $tmp/fill.log"
stop
start fill "${flags[@]}" --max-points "${fits:-8000}" --quiet
check "with --max-points $fits the server starts" "[ -n '$port' ]"
url="http://127.0.0.1:$port/v1/models/hh/forecast"
gap='{"series":[{"unique_id":"a","ds":["2000-01-01 00:00:00","2057-01-01 00:00:00"],"y":[1,2]}]}'
post() { curl -s --max-time 10 -o "$1" -w '%{http_code} %{time_total}\n' -H "Content-Type: $2" --data-binary "$3" "$url"; }

read -r code secs < <(post "$tmp/gap.json" application/json "$gap")
check "JSON: two points 57 years apart: 413 (got $code)" "[ '$code' = 413 ]"
check "JSON: refused without filling (within 5 s on a loaded machine: $secs s)" "awk 'BEGIN { exit !($secs < 5) }'"
check "JSON: the error names the field, the series and the filled count" \
      "grep -q \"series\[0\]\.ds\[1\]: series 'a' runs from 2000-01-01 00:00:00 (series\[0\]\.ds\[0\]) to 2057-01-01 00:00:00 on the 30min grid: its 2 rows are 999361 points after gap filling\" $tmp/gap.json"
check "JSON: and the limit passed" "grep -q 'pass the limit of $fits (max_points)' $tmp/gap.json"
csv=$'unique_id,ds,y\na,2000-01-01 00:00:00,1\na,2057-01-01 00:00:00,2\n'
read -r code secs < <(post "$tmp/gap.csv.err" text/csv "$csv")
check "CSV: the same request: 413 naming series 'a' and its count (got $code)" \
      "[ '$code' = 413 ] && grep -q \"request:3: column 'ds' (2): series 'a' .*999361 points after gap filling\" $tmp/gap.csv.err"

# a valid request still forecasts: 48 half-hours, one of them a gap
valid=$(python3 -c 'import datetime as d, json
t = [d.datetime(2000, 1, 1) + d.timedelta(minutes=30 * i) for i in range(49) if i != 20]
print(json.dumps({"series": [{"unique_id": "v", "ds": [x.strftime("%Y-%m-%d %H:%M:%S") for x in t],
                              "y": [float(i % 7) for i in range(len(t))]}]}))')
read -r code secs < <(post "$tmp/valid.json" application/json "$valid")
check "a valid half-hourly request with a gap: 200 (got $code)" "[ '$code' = 200 ] && grep -q '\"unique_id\":\"v\"' $tmp/valid.json"

# a burst of 64 (one per connection): refused before the fill, so the peak barely moves
if [ -n "$port" ] && echo 5 > "/proc/$pid/clear_refs" 2>/dev/null; then
    hwm0=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
    burst=()
    for k in $(seq 64); do post "$tmp/burst.$k" application/json "$gap" > "$tmp/burst.$k.code" & burst+=($!); done
    wait "${burst[@]}"   # the curls only: the server is a job of this shell too
    hwm1=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
    refused=$(cat "$tmp"/burst.*.code | grep -c '^413 ')
    slowest=$(cat "$tmp"/burst.*.code | awk '{ if ($2 > m) m = $2 } END { print m + 0 }')
    echo "burst: 64 requests, $refused answered 413, slowest $slowest s; server peak $hwm0 -> $hwm1 kB"
    check "burst: all 64 refused with 413 ($refused)" "[ $refused = 64 ]"
    check "burst: the server's peak grew by less than 8 MiB ($hwm0 -> $hwm1 kB)" "[ \$(( $hwm1 - $hwm0 )) -lt 8192 ]"
else
    check "the server's peak resident size can be reset (/proc/$pid/clear_refs)" false
fi
check "the server still answers" "[ \"\$(post $tmp/after.json application/json '$valid' | cut -d' ' -f1)\" = 200 ]"
stop
check "SIGTERM: exit 0" "[ $? = 0 ]"

finish
