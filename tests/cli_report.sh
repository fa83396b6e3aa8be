#!/usr/bin/env bash
# fcast report end to end: a run log fixture, forecasts of a quick training
# run with synthetic intervals, and the actuals, rendered by headless
# chromium (a declared test dependency): the page renders, its charts have
# lines of many points, the console is clean, the screenshot is not blank.
# Then the errors. $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
log=tests/fixtures/run_log.jsonl

chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
    echo "FAIL: chromium is missing: run scripts/install-deps.sh --test (the report test needs a headless browser)" >&2
    exit 1
fi

scripts/split-tail.sh data/monthly_classics.csv 12 "$tmp/train.csv" "$tmp/test.csv"
"$fcast" train --data "$tmp/train.csv" --model nhits --h 12 --input-size 24 --mlp-units 16,16 --max-steps 20 \
    --threads 1 --quiet --out "$tmp/m.safetensors"
"$fcast" predict --model "$tmp/m.safetensors" --data "$tmp/train.csv" --out "$tmp/fc.csv" 2>/dev/null
# Intervals in neuralforecast's naming, around the point forecast.
awk -F, -v OFS=, 'NR == 1 { print $0, "NHITS-lo-90", "NHITS-hi-90"; next } { print $0, $3 * 0.9, $3 * 1.1 }' \
    "$tmp/fc.csv" > "$tmp/fci.csv"

"$fcast" report "$log" --forecasts "$tmp/fci.csv" --actuals data/monthly_classics.csv --out "$tmp/r.html"
check "report exits 0" "[ $? -eq 0 ]"
check "one self-contained page: no external scripts, styles or images" \
    "! grep -Eq '<script[^>]* src=|<link |<img |https?://[^\"]*\\.(js|css)' $tmp/r.html"
check "forecast section names every default series" \
    "grep -c '<text[^>]*font-weight=\"bold\">\\(AirPassengers\\|gas\\|nottem\\|wineind\\)</text>' $tmp/r.html | grep -qx 4"
check "the page says history is drawn for context when it is" "grep -q 'before the forecast for context' $tmp/r.html"
# Actuals of the forecast's range only (the held-out tail): no history, and
# the page must not claim any.
"$fcast" report "$log" --forecasts "$tmp/fci.csv" --actuals "$tmp/test.csv" --out "$tmp/t.html"
check "actuals without history: no claim of context" \
    "[ $? -eq 0 ] && ! grep -q 'for context' $tmp/t.html && grep -q 'hold no values before it' $tmp/t.html"

timeout 60 "$chromium" --headless=new --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
    --dump-dom "file://$tmp/r.html" > "$tmp/dom.html" 2> "$tmp/dom.err"
check "chromium renders the page" "grep -q '<h1>fcast training report</h1>' $tmp/dom.html"
charts=$(grep -o '<svg class="chart' "$tmp/dom.html" | wc -l)
check "at least 12 charts in the DOM (got $charts)" "[ $charts -ge 12 ]"
# The longest line path: the training loss, one point a logged step.
longest=$(grep -o ' d="M[^"]*"' "$tmp/dom.html" | awk '{ print gsub(/L/, "L") }' | sort -n | tail -1)
check "a line with hundreds of points (got ${longest:-0})" "[ ${longest:-0} -ge 250 ]"
check "forecast intervals drawn as bands" "grep -q 'class=\"band\"' $tmp/dom.html"
check "no console messages or uncaught errors" "! grep -Eiq 'CONSOLE|Uncaught' $tmp/dom.err"

timeout 60 "$chromium" --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
    --screenshot="$tmp/shot.png" --window-size=1200,3000 "file://$tmp/r.html" > /dev/null 2>&1
check "screenshot is a PNG" "[ \"\$(head -c 8 $tmp/shot.png | od -An -tx1 | tr -d ' ')\" = 89504e470d0a1a0a ]"
check "screenshot is not blank (over 50 KB)" "[ \$(stat -c %s $tmp/shot.png) -gt 50000 ]"
if [ -n "${FCAST_REPORT_SCREENSHOT:-}" ]; then cp "$tmp/shot.png" "$FCAST_REPORT_SCREENSHOT"; fi

# A crashed run: no summary, a cut-off last line; still a page, saying so.
head -n 120 "$log" > "$tmp/crash.jsonl"
printf '{"event":"step","step":999,"train_lo' >> "$tmp/crash.jsonl"
"$fcast" report "$tmp/crash.jsonl" --out - > "$tmp/crash.html"
check "a crashed run's log still reports, to stdout" "[ $? -eq 0 ] && grep -q 'has no summary' $tmp/crash.html"
check "the cut-off line is mentioned" "grep -q 'cut off' $tmp/crash.html"

# Forecasts alone, a chosen series.
"$fcast" report "$log" --forecasts "$tmp/fc.csv" --series gas --out "$tmp/f.html"
check "forecasts without actuals" "[ $? -eq 0 ] && grep -q '>gas</text>' $tmp/f.html && ! grep -q '>nottem</text>' $tmp/f.html"

# Errors: usage 2, malformed input 3, invalid choice 4, newer schema 7.
"$fcast" report "$log" --actuals "$tmp/test.csv" --out "$tmp/x.html" 2> "$tmp/err.txt"
check "--actuals without --forecasts is a usage error" "[ $? -eq 2 ] && grep -q -- '--forecasts' $tmp/err.txt"
"$fcast" report "$log" --forecasts "$tmp/fc.csv" --series gas,nope --out "$tmp/x.html" 2> "$tmp/err.txt"
check "an unknown series is refused, named" "[ $? -eq 4 ] && grep -q \"'nope'\" $tmp/err.txt"
{ head -n 3 "$log"; echo '{"event":"step",'; tail -n 2 "$log"; } > "$tmp/bad.jsonl"
"$fcast" report "$tmp/bad.jsonl" --out "$tmp/x.html" 2> "$tmp/err.txt"
check "a malformed line names file:line" "[ $? -eq 3 ] && grep -q 'bad.jsonl:4: malformed JSON' $tmp/err.txt"
echo '{"event":"start","schema":3}' > "$tmp/new.jsonl"
"$fcast" report "$tmp/new.jsonl" --out "$tmp/x.html" 2> "$tmp/err.txt"
check "a newer schema is refused with a clear message" "[ $? -eq 7 ] && grep -q 'schema 3 is newer' $tmp/err.txt"
check "nothing written on failure" "[ ! -e $tmp/x.html ]"
"$fcast" report --out "$tmp/x.html" 2> "$tmp/err.txt"
check "a missing run log is a usage error" "[ $? -eq 2 ] && grep -q 'run log' $tmp/err.txt"
finish
