#!/usr/bin/env bash
# fcast serve's model lifecycle and access (docs/serving.md): the bearer
# token (health open, the rest 401 without it; token files holding a NUL or
# a control byte, and paths that are not regular files, refused at start
# naming the file, a FIFO without blocking); load / unload / index
# through the repository endpoints; a corrupt file keeps the old model
# serving; SIGHUP re-reads the directory (a changed file swapped in, a
# removed one unloaded); a model file whose name is not a model name is
# warned of, at start and on SIGHUP; SIGTERM says the server drains (not
# training's checkpoint line); reloads under load fail no request. $1 is
# fcast.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
source tests/lib_serve.sh

mkdir -p "$tmp/models"
train() { "$fcast" train --data data/monthly_classics.csv --model nhits --h 12 --input-size 24 --max-steps 20 \
              --seed "$1" --quiet --out "$2" 2>/dev/null; }
train 1 "$tmp/models/nhits.safetensors"
train 2 "$tmp/seed2.safetensors"
cp "$tmp/seed2.safetensors" "$tmp/m2.safetensors"
"$fcast" predict --model "$tmp/models/nhits.safetensors" --data data/monthly_classics.csv --out "$tmp/p1.csv" 2>/dev/null
"$fcast" predict --model "$tmp/seed2.safetensors" --data data/monthly_classics.csv --out "$tmp/p2.csv" 2>/dev/null
check "two models that forecast differently" "! cmp -s $tmp/p1.csv $tmp/p2.csv"

code() { local m=$1 p=$2; shift 2; curl -s -o /dev/null -w '%{http_code}' --max-time 20 -X "$m" "$@" "http://127.0.0.1:$port$p"; }
# forecast NAME: the model's CSV answer for the bundled series
forecast() { curl -s --max-time 20 -X POST -H 'Content-Type: text/csv' -H 'Accept: text/csv' --data-binary @data/monthly_classics.csv \
                  "$@" "http://127.0.0.1:$port/v1/models/$name/forecast"; }

# --- the bearer token
printf '  s3cret-token\n' > "$tmp/token"
cp "$tmp/models/nhits.safetensors" "$tmp/models/bad name!.safetensors"   # not a model name: warned, not served
start serve --quiet --auth-token-file "$tmp/token"
rm "$tmp/models/bad name!.safetensors"
check "a model file whose name is not a model name: a warning naming it and why" \
      "grep -q \"bad name!.safetensors not served: its name is not a model name (1 to 127 letters, digits\" $tmp/serve.log"
check "token: health needs none" "[ \"\$(code GET /v2/health/ready)\" = 200 ] && [ \"\$(code GET /v2/health/live)\" = 200 ]"
check "token: 401 without it" "[ \"\$(code GET /v2/models/nhits)\" = 401 ] && [ \"\$(code GET /metrics)\" = 401 ]"
check "token: 401 with another" "[ \"\$(code GET /v2/models/nhits -H 'Authorization: Bearer s3cret-tokem')\" = 401 ]"
check "token: 200 with it (blanks around it in the file ignored)" \
      "[ \"\$(code GET /v2/models/nhits -H 'Authorization: Bearer s3cret-token')\" = 200 ]"
check "token: 401 says Bearer" \
      "curl -s -D $tmp/hdr.txt -o /dev/null http://127.0.0.1:$port/v2/models/nhits; grep -qi '^www-authenticate: bearer' $tmp/hdr.txt"
kill -TERM $pid; wait $pid
check "SIGTERM: serve says it drains, nothing of training's checkpoint" \
      "grep -q 'signal 15: draining the requests in flight' $tmp/serve.log && ! grep -q checkpoint $tmp/serve.log"
printf '\n' > "$tmp/empty_token"
"$fcast" serve --models "$tmp/models" --port 0 --auth-token-file "$tmp/empty_token" 2> "$tmp/empty.err"
check "an empty token file is refused at start" "grep -q 'holds no token' $tmp/empty.err"
# token files that are not one: refused at start, naming the file (a server that starts anyway or blocks is
# stopped by the timeout, and fails)
refused() {   # refused NAME FILE EXIT TEXT
    timeout -k 2 5 "$fcast" serve --models "$tmp/models" --port 0 --auth-token-file "$2" 2> "$tmp/refused.err"
    local rc=$?
    check "$1: exit $3 (got $rc), naming the file" "[ $rc = $3 ] && grep -qF -- '--auth-token-file $2' $tmp/refused.err && \
          grep -qF -- '$4' $tmp/refused.err"
}
printf 'Q\0\x8a\x13longsecret\n' > "$tmp/nul_token"   # was read as the token "Q": Bearer Q got 200
refused "a token file with a NUL" "$tmp/nul_token" 4 "the token holds a NUL byte (at byte 2)"
printf 'ab\x13cd\n' > "$tmp/ctl_token"
refused "a token with a control byte" "$tmp/ctl_token" 4 "control byte (0x13 at byte 3)"
mkdir "$tmp/token_dir"
refused "a directory as the token file" "$tmp/token_dir" 5 "is not a regular file (a directory)"
mkfifo "$tmp/token_fifo"   # was opened, which blocks until a writer comes (and the first SIGTERM was ignored)
refused "a FIFO as the token file, without blocking" "$tmp/token_fifo" 5 "is not a regular file (a FIFO)"

# --- the repository: load, unload, index; a corrupt file keeps the old model
start serve --quiet
name=nhits
forecast > "$tmp/a1.csv"
check "serves the first model" "cmp -s $tmp/a1.csv $tmp/p1.csv"
cp "$tmp/m2.safetensors" "$tmp/models/m2.safetensors"
check "load m2: 200" "[ \"\$(code POST /v2/repository/models/m2/load)\" = 200 ]"
name=m2
forecast > "$tmp/m2.csv"
check "m2 forecasts as its file does" "cmp -s <(sed 1d $tmp/m2.csv) <(sed 1d $tmp/p2.csv)"
check "the index lists both" "curl -s -X POST http://127.0.0.1:$port/v2/repository/index > $tmp/index.json; grep -q '\"m2\"' $tmp/index.json"
check "unload m2: 200, then 404" "[ \"\$(code POST /v2/repository/models/m2/unload)\" = 200 ] && \
      [ \"\$(code POST /v1/models/m2/forecast --data-binary '{}')\" = 404 ]"
check "load of a missing file: 404" "[ \"\$(code POST /v2/repository/models/none/load)\" = 404 ]"
check "load: GET is 405" "[ \"\$(code GET /v2/repository/models/m2/load)\" = 405 ]"
cp "$tmp/models/nhits.safetensors" "$tmp/nhits.bak"
head -c 3000 /dev/urandom > "$tmp/models/nhits.safetensors"
check "load of a corrupt file: 400" "[ \"\$(code POST /v2/repository/models/nhits/load)\" = 400 ]"
name=nhits
forecast > "$tmp/a2.csv"
check "a corrupt file keeps the old model serving" "cmp -s $tmp/a2.csv $tmp/p1.csv"

# --- SIGHUP: a changed file swapped in, a removed one unloaded, a corrupt one ignored
cp "$tmp/m2.safetensors" "$tmp/models/.hidden.safetensors"   # not a model name either (a leading dot)
kill -HUP $pid
for _ in $(seq 100); do   # the reload reads the directory within 10 s even on a loaded machine
  grep -q 'reload: .hidden.safetensors' "$tmp/serve.log" && break
  sleep 0.1
done
rm "$tmp/models/.hidden.safetensors"
check "SIGHUP: a model file whose name is not a model name is reported" \
      "grep -q 'reload: .hidden.safetensors not served: its name is not a model name' $tmp/serve.log"
check "SIGHUP with the corrupt file: the old model still serves" "forecast > $tmp/f.csv; cmp -s $tmp/f.csv $tmp/p1.csv"
cp "$tmp/seed2.safetensors" "$tmp/models/nhits.safetensors"
kill -HUP $pid
for _ in $(seq 100); do grep -q 'reload: model nhits loaded' "$tmp/serve.log" && break; sleep 0.05; done
check "SIGHUP: the changed file serves" "forecast > $tmp/f.csv; cmp -s $tmp/f.csv $tmp/p2.csv"
cp "$tmp/m2.safetensors" "$tmp/models/m2.safetensors"
kill -HUP $pid
for _ in $(seq 100); do grep -q 'reload: model m2 loaded' "$tmp/serve.log" && break; sleep 0.05; done
rm "$tmp/models/m2.safetensors"
kill -HUP $pid
for _ in $(seq 100); do grep -q 'reload: model m2 unloaded' "$tmp/serve.log" && break; sleep 0.05; done
check "SIGHUP: a removed file is unloaded" "[ \"\$(code GET /v2/models/m2/ready)\" = 404 ]"

# --- reloads under load: no request fails
for w in 1 2 3; do
    ( for i in $(seq 40); do code POST /v1/models/nhits/forecast -H 'Content-Type: text/csv' \
          --data-binary @data/monthly_classics.csv; echo; done > "$tmp/load$w.txt" ) &
done
loaders=$(jobs -p | grep -v "^$pid$")
for i in $(seq 6); do
    cp "$tmp/$([ $((i % 2)) = 0 ] && echo seed2.safetensors || echo nhits.bak)" "$tmp/models/nhits.safetensors.tmp"
    mv "$tmp/models/nhits.safetensors.tmp" "$tmp/models/nhits.safetensors"
    code POST /v2/repository/models/nhits/load > /dev/null
    kill -HUP $pid
    sleep 0.2
done
wait $loaders
total=$(cat "$tmp"/load*.txt | grep -c .)
ok=$(cat "$tmp"/load*.txt | grep -c '^200$')
check "reloads under load: every request answered 200 ($ok of $total)" "[ $total = 120 ] && [ $ok = 120 ]"
kill -TERM $pid
wait $pid
check "exit 0 after all that" "[ $? = 0 ]"

finish
