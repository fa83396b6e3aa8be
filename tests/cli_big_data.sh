#!/usr/bin/env bash
# Ten million rows inside 1 GiB: a generated CSV of 1000 series x 10000
# hourly points (183 MB) is loaded and N-HiTS trains on it with
# --memory-limit 1GiB; the peak resident size (/usr/bin/time -v) minus the
# process's baseline stays within the limit. Measured when written: 669 MiB
# (the loader's peak: the parsed rows, their sort keys and the dataset;
# the file itself is handed back to the kernel as it is parsed). With a
# 512 MiB limit the run is refused before loading, from the loader's
# estimated peak (684 MiB for these rows).
# $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
if sanitized "$fcast"; then echo "skipped: resident-size limits do not apply under AddressSanitizer"; exit 0; fi
awk 'BEGIN { srand(1); print "unique_id,ds,y";
             for (s = 0; s < 1000; s++) for (t = 0; t < 10000; t++)
                 printf "S%d,%d,%.3f\n", s, t, 100 + 10 * sin(6.2831853 * t / 24 + s) + rand() }' > "$tmp/big.csv"
check "the generated file has 10,000,001 lines" "[ \$(wc -l < $tmp/big.csv) -eq 10000001 ]"
max_rss_kb() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }'; }
base=$(max_rss_kb "$fcast" --version)
peak=$(max_rss_kb "$fcast" train --data "$tmp/big.csv" --model nhits --h 24 --input-size 96 --memory-limit 1GiB \
       --max-steps 20 --threads 2 --out "$tmp/m.safetensors")
echo "peak resident ${peak} kB, baseline ${base} kB, limit 1048576 kB"
check "training on 10M rows completes" "[ -s $tmp/m.safetensors ]"
check "peak resident minus baseline within 1 GiB ($peak - $base kB)" "[ \$(( $peak - $base )) -le 1048576 ]"
start=$(date +%s)
"$fcast" train --data "$tmp/big.csv" --model nhits --h 24 --input-size 96 --memory-limit 512MiB \
    --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "512 MiB is refused before loading, within 5 s" "[ $? -eq 1 ] && [ \$(( \$(date +%s) - $start )) -le 5 ]"
check "the message gives the rows and the loader's peak" "grep -q '10000000 rows' $tmp/err.txt && grep -q 'at its peak' $tmp/err.txt"
rm -f "$tmp/big.csv"
finish
