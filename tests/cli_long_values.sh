#!/usr/bin/env bash
# Values at the edges of what a flag takes keep their messages whole and
# their numbers exact: a 500 KB --out (through --config: one argument is at
# most 128 KB) and a 2,000-entry --mlp-units are refused with the reason at
# the end of the message, not cut before it; numbers below the smallest
# normal double (1e-308, 1e-320: subnormals) are numbers (which a command
# may then refuse for what they are, saying so), an overflow
# (1e400) is refused; the run log given first is named as given.
# $1 is the fcast binary.
set -uo pipefail
fcast=$(realpath "$1")
source tests/lib_cli.sh
data=data/monthly_classics.csv

long=$(python3 -c "print('d/' * 1000 + 'x' * 500000)")
printf 'out: %s\n' "$long" >"$tmp/long.yaml"
"$fcast" quant risk --data data/eu_stock_markets.csv --config "$tmp/long.yaml" 2>"$tmp/err"; rc=$?
check "a 500 KB --out: exit 5 ($rc)" "[ $rc -eq 5 ]"
check "a 500 KB --out: the message ends with the reason ($(tail -c 120 "$tmp/err"))" \
  "grep -qE '(File name too long|does not exist)\$' '$tmp/err'"
check "a 500 KB --out: the message is cut to a readable size ($(wc -c <"$tmp/err") bytes)" \
  "[ \$(wc -c <'$tmp/err') -lt 2100 ]"

units=$(python3 -c "print(','.join(['64'] * 2000))")
"$fcast" train --data "$data" --model mlp --h 6 --input-size 12 --mlp-units "$units" --max-steps 1 \
  --out "$tmp/u.safetensors" 2>"$tmp/err"; rc=$?
check "2,000 --mlp-units: refused ($rc)" "[ $rc -eq 4 ] || [ $rc -eq 2 ]"
check "2,000 --mlp-units: the message ends with the reason ($(tail -c 120 "$tmp/err"))" \
  "grep -q 'at most 8)\$' '$tmp/err'"

# Black-Scholes with K = 1e-308: the call is worth S (to the digits printed).
"$fcast" quant option --call --S 100 --K 1e-308 --sigma 0.2 --T 1 --paths 1000 2>"$tmp/err"; rc=$?
check "--K 1e-308 is read as a number, then refused for what it is ($rc: $(head -c 200 "$tmp/err"))" \
  "[ $rc -eq 4 ] && ! grep -q 'expects a finite number' '$tmp/err' && grep -q 'more than 2^1022 times' '$tmp/err'"
"$fcast" quant option --call --S 100 --K 1e-300 --sigma 0.2 --T 1 --paths 1000 --json >"$tmp/o.json" 2>"$tmp/err"; rc=$?
check "--K 1e-300 is priced ($rc: $(head -c 200 "$tmp/err"))" "[ $rc -eq 0 ]"
check "... and Black-Scholes prices the call at S" \
  "python3 -c 'import json,sys; d=json.load(open(\"$tmp/o.json\")); sys.exit(abs(d[\"bs_price\"]-100)>1e-9)'"
"$fcast" quant option --call --S 100 --K 100 --r 1e-320 --sigma 0.2 --T 1 --paths 1000 >/dev/null 2>"$tmp/err"; rc=$?
check "--r 1e-320 (a subnormal) is a number ($rc: $(head -c 200 "$tmp/err"))" "[ $rc -eq 0 ]"
"$fcast" quant option --call --S 100 --K 100 --r 1e400 --sigma 0.2 --T 1 2>"$tmp/err"; rc=$?
check "--r 1e400 overflows: refused" "[ $rc -eq 2 ] && grep -q 'expects a finite number' '$tmp/err'"

# fcast report RUN.jsonl --out RUN.jsonl: named as the first argument, as given
printf '{}\n' >"$tmp/run.jsonl"
"$fcast" report "$tmp/run.jsonl" --out "$tmp/run.jsonl" 2>"$tmp/err"; rc=$?
check "report: the run log given first is named so ($rc: $(head -c 200 "$tmp/err"))" \
  "[ $rc -eq 4 ] && grep -q 'given as the first argument' '$tmp/err'"
"$fcast" report "$tmp/run.jsonl" --log "$tmp/run.jsonl" --out - 2>"$tmp/err"; rc=$?
check "report: the run log given first and with --log is refused ($rc)" "[ $rc -eq 2 ] && grep -q 'given twice' '$tmp/err'"
finish
