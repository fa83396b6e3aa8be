#!/usr/bin/env bash
# fcast plan and --memory-limit through the CLI: the plan names its items
# and the batch that fits; a run over its limit is refused before training
# (within seconds, no model written) with the biggest consumers and the
# batch that fits; that batch then trains within the limit (peak resident
# memory by /usr/bin/time -v, minus the process's baseline), the summary
# reports memory, and --windows-batch-size auto picks a batch that fits.
# $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
run=(--data data/taylor_halfhourly.csv --model nhits --h 48 --input-size 96 --threads 1)

"$fcast" plan "${run[@]}" --memory-limit 80MiB > "$tmp/plan.txt"
check "plan lists activations and Adam moments" "grep -q '^  activations' $tmp/plan.txt && grep -q '^  Adam moments' $tmp/plan.txt"
check "plan prints a total and the bytes per window" "grep -q '^  total' $tmp/plan.txt && grep -q '^bytes per window: [0-9]' $tmp/plan.txt"
fits=$(sed -n 's/^largest --windows-batch-size within the limit: \([0-9]*\)$/\1/p' "$tmp/plan.txt")
check "plan gives the largest batch within 80 MiB ($fits)" "[ -n '$fits' ] && [ '$fits' -gt 0 ] && [ '$fits' -lt 1024 ]"

start=$(date +%s)
"$fcast" train "${run[@]}" --memory-limit 80MiB --max-steps 1000 --out "$tmp/m.safetensors" 2> "$tmp/err.txt"
rc=$?
check "over the limit: exit 6 (memory)" "[ $rc -eq 6 ]"
check "refused before training (within 5 s)" "[ \$(( \$(date +%s) - $start )) -le 5 ]"
check "the message names the biggest consumers and the batch that fits" \
    "grep -q 'activations' $tmp/err.txt && grep -q -- 'largest --windows-batch-size that fits is $fits' $tmp/err.txt"
check "no model written" "[ ! -e $tmp/m.safetensors ]"

# Peak resident memory as /usr/bin/time -v reports it, minus the process's
# own baseline (the same binary printing its version), within the limit.
max_rss_kb() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }'; }
base=$(max_rss_kb "$fcast" --version)
peak=$(max_rss_kb "$fcast" train "${run[@]}" --memory-limit 80MiB --windows-batch-size "$fits" --max-steps 20 \
       --out "$tmp/m.safetensors")
echo "peak resident ${peak} kB, baseline ${base} kB, limit 81920 kB"
check "the batch that fits trains" "[ -s $tmp/m.safetensors ]"
sanitized "$fcast" ||   # AddressSanitizer's shadow memory is not the program's
    check "peak resident minus baseline stays within the limit ($peak - $base kB)" "[ \$(( $peak - $base )) -le 81920 ]"
"$fcast" train "${run[@]}" --memory-limit 80MiB --windows-batch-size "$fits" --max-steps 20 --out "$tmp/m.safetensors" 2> "$tmp/log.txt"
check "the summary reports peak memory, plan and limit" "grep -q '^memory: peak resident .*plan .*limit 80.0 MiB' $tmp/log.txt"

"$fcast" train "${run[@]}" --memory-limit 80MiB --windows-batch-size auto --max-steps 5 --out "$tmp/a.safetensors" 2> "$tmp/auto.txt"
chosen=$(sed -n 's/^--windows-batch-size auto: \([0-9]*\),.*/\1/p' "$tmp/auto.txt")
check "auto explains its choice" "grep -q 'the smallest within 3% of the fastest of' $tmp/auto.txt"
check "auto chooses a batch that fits ($chosen <= $fits)" "[ -n '$chosen' ] && [ '$chosen' -le '$fits' ] && [ -s $tmp/a.safetensors ]"

"$fcast" predict --model "$tmp/m.safetensors" --data data/taylor_halfhourly.csv --out "$tmp/fc.csv" --memory-limit 64MiB
check "predict within a limit writes its forecasts" "[ \$(tail -n +2 $tmp/fc.csv | wc -l) -eq 48 ]"
"$fcast" predict --model "$tmp/m.safetensors" --data data/taylor_halfhourly.csv --out "$tmp/fc2.csv" --memory-limit 20MiB 2> "$tmp/err.txt"
check "predict over its limit exits 6 with the reason, writing nothing" \
    "[ $? -eq 6 ] && grep -q -- '--memory-limit' $tmp/err.txt && [ ! -e $tmp/fc2.csv ]"

"$fcast" train "${run[@]}" --memory-limit 12XB --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "a malformed size is refused, naming the flag" "[ $? -ne 0 ] && grep -q -- '--memory-limit' $tmp/err.txt"

finish
