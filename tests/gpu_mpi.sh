#!/usr/bin/env bash
# A data-parallel job on two GPUs (ctest -L gpu, `make test-gpu`;
# docs/distributed.md): NCCL's all-reduce between the ranks' GPUs, which no
# CI machine has. On a machine with 2 NVIDIA GPUs, mpirun and NCCL:
#  - 2 ranks (one per GPU: cuda takes the rank's local GPU) train, and
#    their forecasts are within 1e-4 (relative) of one GPU with
#    --grad-accum 2: the same windows, the sums in another order;
#  - two runs of the same job give the same weights, byte for byte, with
#    NCCL's reduction and with --deterministic-reduce;
#  - sharded predict over the 2 GPUs writes one GPU's bytes.
# Elsewhere it says why it cannot run and exits 77 (skipped). $1: fcast.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
command -v mpirun > /dev/null || { echo "skipped: no mpirun"; exit 77; }
gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
[ "${gpus:-0}" -ge 2 ] || { echo "skipped: a job on GPUs needs 2 GPUs, this machine has ${gpus:-0}"; exit 77; }
mpi=(timeout 600 mpirun --allow-run-as-root --oversubscribe -np 2)
data=data/monthly_classics.csv
run=(--data "$data" --model nhits --h 12 --input-size 24 --max-steps 50 --seed 5 --windows-batch-size 128 --quiet)

"${mpi[@]}" "$fcast" train "${run[@]}" --device cuda --out "$tmp/nccl.safetensors" > "$tmp/nccl.txt" 2>&1
code=$?
check "2 ranks train on 2 GPUs through NCCL (exit 0)" "[ $code -eq 0 ] && [ -s $tmp/nccl.safetensors ]"
[ $code -eq 0 ] || cat "$tmp/nccl.txt" >&2
"${mpi[@]}" "$fcast" train "${run[@]}" --device cuda --out "$tmp/nccl2.safetensors" > /dev/null 2>&1
check "NCCL's reduction: two runs, the same weights" "same_weights $tmp/nccl.safetensors $tmp/nccl2.safetensors"
"$fcast" train "${run[@]}" --device cuda:0 --grad-accum 2 --out "$tmp/one.safetensors" > /dev/null 2>&1
"$fcast" predict --model "$tmp/nccl.safetensors" --data "$data" --device cuda:0 --out "$tmp/nccl.csv" 2> /dev/null
"$fcast" predict --model "$tmp/one.safetensors" --data "$data" --device cuda:0 --out "$tmp/one.csv" 2> /dev/null
check "2 GPUs' forecasts within 1e-4 of one GPU with --grad-accum 2" "python3 - $tmp/nccl.csv $tmp/one.csv <<'EOF'
import csv, sys
a, b = ([float(r['NHITS']) for r in csv.DictReader(open(p))] for p in sys.argv[1:])
sys.exit(not (len(a) == len(b) > 0 and max(abs(x - y) / max(abs(y), 1.0) for x, y in zip(a, b)) <= 1e-4))
EOF"

for i in 1 2; do
    "${mpi[@]}" "$fcast" train "${run[@]}" --device cuda --deterministic-reduce \
        --out "$tmp/fixed$i.safetensors" > /dev/null 2>&1
done
check "--deterministic-reduce on GPUs: two runs, the same weights" \
      "[ -s $tmp/fixed1.safetensors ] && same_weights $tmp/fixed1.safetensors $tmp/fixed2.safetensors"

awk -F, 'NR == 1 { print; next } { row[++n] = $0 }
    END { for (k = 0; k < 300; k++) for (i = 1; i <= n; i++) { split(row[i], f, ",");
          printf "%s_%d,%s,%.4f\n", f[1], k, f[2], f[3] * (1 + k / 500) } }' "$data" > "$tmp/panel.csv"
"$fcast" predict --model "$tmp/one.safetensors" --data "$tmp/panel.csv" --device cuda:0 --out "$tmp/p1.csv" 2> /dev/null
"${mpi[@]}" "$fcast" predict --model "$tmp/one.safetensors" --data "$tmp/panel.csv" --device cuda \
    --out "$tmp/p2.csv" > /dev/null 2>&1
check "sharded predict on 2 GPUs: one GPU's bytes" "[ -s $tmp/p1.csv ] && cmp -s $tmp/p1.csv $tmp/p2.csv"

finish
