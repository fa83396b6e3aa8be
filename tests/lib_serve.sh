# Shared by the scripts that run fcast serve (tests/cli_serve*.sh,
# bench/serve*.sh; sourced, not run). Needs $fcast and $tmp.
#
# serve_model: trains the small N-HiTS the serve scripts forecast with
# (monthly data, h = 12, input 24, 30 steps) into $tmp/models/nhits.safetensors.
serve_model() {
    mkdir -p "$tmp/models"
    "$fcast" train --data data/monthly_classics.csv --model nhits --h 12 --input-size 24 --max-steps 30 --quiet \
        --out "$tmp/models/nhits.safetensors" 2>/dev/null
}
# start NAME FLAGS...: starts `fcast serve --models $tmp/models --port 0
# FLAGS` in the background, its stderr in $tmp/NAME.log; sets $pid and
# $port (empty when the server did not print its port within 10 s or died).
start() {
    local name=$1; shift
    "$fcast" serve --models "$tmp/models" --port 0 "$@" 2> "$tmp/$name.log" &
    pid=$!
    port=""
    for _ in $(seq 200); do
        port=$(sed -n 's|.*on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$tmp/$name.log" | head -1)
        [ -n "$port" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
}
# stop: SIGTERM, then the server's exit status
stop() { kill -TERM "$pid" 2>/dev/null; wait "$pid"; }
# forecast MODEL CONTENT_TYPE BODY_FILE OUT: POSTs BODY_FILE to the running
# server's /v1/models/MODEL/forecast asking for CSV, the answer into OUT;
# prints the HTTP status.
forecast() { curl -s --max-time 60 -X POST -H "Content-Type: $2" -H 'Accept: text/csv' --data-binary "@$3" \
             -o "$4" -w '%{http_code}' "http://127.0.0.1:$port/v1/models/$1/forecast"; }
