#!/usr/bin/env bash
# fcast serve against hostile clients: tests/serve_hostile.py sends its
# corpus of malformed and hostile requests (broken HTTP over raw sockets,
# bad JSON and CSV bodies, wrong types, huge numbers, deep nesting,
# oversized bodies, wrong methods, paths and content types, slow-loris
# connections) to a server on a model trained here; every case must get
# its 4xx (or, for broken HTTP, a closed connection), the server must keep
# answering valid requests the same way, and exit 0 on SIGTERM. Then its
# guards (--phase guards) on a second server with a bearer token and 8
# connections: the token against cut and NUL-split copies of it, and
# clients trickling their headers on every connection, which must not stop
# the health probes and must be closed about --timeout after their accept.
# Bounded in time: every socket has a timeout, every wait a deadline. $1 is
# the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
source tests/lib_serve.sh
# term: SIGTERM to the server, then its exit status in $rc, waited for with
# a deadline: a server that does not drain fails ("timeout"), not hangs
term() {
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null
        rc=timeout
    else
        wait "$pid"
        rc=$?
    fi
}

serve_model
check "a model to serve" "[ -s $tmp/models/nhits.safetensors ]"
# a half-hourly model, for requests whose few points fill to a million half-hours
"$fcast" train --data data/taylor_halfhourly.csv --model nhits --h 12 --input-size 24 --max-steps 5 --quiet \
    --out "$tmp/models/halfhourly.safetensors" 2>/dev/null
check "a half-hourly model to serve" "[ -s $tmp/models/halfhourly.safetensors ]"

# --timeout 2: the slow-loris connections are closed after 2 s idle;
# --max-body 1MiB: the oversized cases are built around it;
# --max-points 100000: the gap-filling burst passes it after filling only
start serve --quiet --timeout 2 --max-body 1MiB --max-points 100000
check "the server starts and prints its port" "[ -n '$port' ]"

if [ -n "$port" ]; then
    # the whole corpus has a deadline too: a hang anywhere fails instead of blocking ctest
    timeout 120 python3 tests/serve_hostile.py "$port" nhits --server-timeout 2 --max-body 1048576 \
        --gap-model halfhourly --pid "$pid" > "$tmp/hostile.txt" 2>&1
    rc=$?
    # failures, known bugs and the summary on the test's output (ctest -V, or the log on failure)
    grep -E '^(FAIL|FIXED|KNOWN BUG|gap filling:)' "$tmp/hostile.txt"
    sed -n '/^category /,$p' "$tmp/hostile.txt"
    grep -q '^category ' "$tmp/hostile.txt" || tail -20 "$tmp/hostile.txt"   # a crash of the script itself
    check "every hostile request got its expected answer (serve_hostile.py exit $rc)" "[ $rc = 0 ]"
    check "the corpus holds at least 200 cases" \
          "[ \"\$(sed -n 's/^serve_hostile: \([0-9]*\) cases.*/\1/p' $tmp/hostile.txt)\" -ge 200 ]"
fi

check "the server is still alive after the corpus" "kill -0 $pid 2>/dev/null"
check "the server still answers" \
      "[ \"\$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 http://127.0.0.1:$port/v2/health/ready)\" = 200 ]"
term
check "SIGTERM: exit 0 (got $rc)" "[ $rc = 0 ]"

# the guards: --timeout 2 and 8 connections, as small as keeps the phase short
printf 'hostile-guards-token-7f3a\n' > "$tmp/token"
start guards --quiet --timeout 2 --max-connections 8 --auth-token-file "$tmp/token"
check "the guarded server starts" "[ -n '$port' ]"
if [ -n "$port" ]; then
    timeout 60 python3 tests/serve_hostile.py "$port" nhits --phase guards --server-timeout 2 --max-connections 8 \
        --token-file "$tmp/token" > "$tmp/guards.txt" 2>&1
    rc=$?
    grep -E '^(FAIL|FIXED|KNOWN BUG)' "$tmp/guards.txt"
    sed -n '/^category /,$p' "$tmp/guards.txt"
    grep -q '^category ' "$tmp/guards.txt" || tail -20 "$tmp/guards.txt"
    check "the guards held: the token's cases, slow headers (serve_hostile.py --phase guards exit $rc)" "[ $rc = 0 ]"
fi
term
check "the guarded server: SIGTERM, exit 0 (got $rc)" "[ $rc = 0 ]"

# under FC_SANITIZE: nothing reported by AddressSanitizer, LeakSanitizer or UBSan
check "no sanitizer report on the servers' standard error" \
      "! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' $tmp/serve.log $tmp/guards.log"

finish
