#!/usr/bin/env bash
# Data-parallel training over MPI on loopback (docs/distributed.md), 2 ranks
# of 1 thread on this machine (root and oversubscription allowed):
#  - with --deterministic-reduce, 2 ranks of 64 windows train the weights
#    one process trains with --grad-accum 2 of 64, byte for byte (the same
#    windows in the same slices, the gradients summed in the same order);
#  - with MPI's own all-reduce, the forecasts agree to 1e-5 (relative);
#  - rank 0 alone writes the model, the run log and checkpoints; 2 ranks
#    resume a checkpoint to the uninterrupted run's weights, one process
#    refuses it;
#  - a rank that fails (its data file is missing: a two-program launch)
#    stops the whole job with a message naming the file, within the time
#    limit, never a hang.
# Skipped (77) where mpirun is absent or fcast was built without MPI.
set -uo pipefail
fcast=${1:-build/fcast}
source "$(dirname "$0")/lib_cli.sh"
command -v mpirun > /dev/null || { echo "no mpirun: skipped"; exit 77; }
data=data/monthly_classics.csv
# Open MPI keeps allocations to the end (and its unloaded plugins'), which
# LeakSanitizer reports from every rank: under a sanitized build the MPI
# runs check memory errors, not leaks (fcast's own leaks are the other
# tests' business, without MPI).
if sanitized "$fcast"; then export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"; fi
mpi=(timeout 120 mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS -np 2)
base=(--data "$data" --model nhits --h 12 --input-size 24 --threads 1 --seed 3 --quiet --windows-batch-size 64)
common=("${base[@]}" --max-steps 15)
short=("${base[@]}" --max-steps 10)

"${mpi[@]}" "$fcast" train "${common[@]}" --deterministic-reduce \
    --out "$tmp/ranks.safetensors" --log-file "$tmp/ranks.jsonl" > "$tmp/ranks.txt" 2>&1
code=$?
if grep -q "built without MPI" "$tmp/ranks.txt"; then echo "fcast built without MPI: skipped"; exit 77; fi
check "2 ranks train (exit 0)" "[ $code -eq 0 ]"
[ $code -eq 0 ] || cat "$tmp/ranks.txt" >&2
check "rank 0 alone prints the summary" "[ \$(grep -c '^trained 15 steps' $tmp/ranks.txt) -eq 1 ]"
check "rank 0 alone writes the run log (one start event)" "[ \$(grep -c '\"event\":\"start\"' $tmp/ranks.jsonl) -eq 1 ]"

"$fcast" train "${common[@]}" --grad-accum 2 --out "$tmp/one.safetensors" > /dev/null 2>&1
check "one process with --grad-accum 2 trains" "[ $? -eq 0 ]"
check "--deterministic-reduce: the same weights, byte for byte" "same_weights $tmp/ranks.safetensors $tmp/one.safetensors"
"$fcast" predict --model "$tmp/ranks.safetensors" --data "$data" --out "$tmp/ranks.csv" 2> /dev/null
"$fcast" predict --model "$tmp/one.safetensors" --data "$data" --out "$tmp/one.csv" 2> /dev/null
check "--deterministic-reduce: the same forecasts, byte for byte" "cmp -s $tmp/ranks.csv $tmp/one.csv"

"${mpi[@]}" "$fcast" train "${common[@]}" --out "$tmp/allreduce.safetensors" > /dev/null 2>&1
check "MPI's all-reduce trains (exit 0)" "[ $? -eq 0 ]"
"$fcast" predict --model "$tmp/allreduce.safetensors" --data "$data" --out "$tmp/allreduce.csv" 2> /dev/null
check "MPI's all-reduce: forecasts within 1e-5 of one process's" "python3 - $tmp/allreduce.csv $tmp/one.csv <<'EOF'
import csv, sys
a, b = ([float(r['NHITS']) for r in csv.DictReader(open(p))] for p in sys.argv[1:])
sys.exit(not (len(a) == len(b) > 0 and max(abs(x - y) / max(abs(y), 1.0) for x, y in zip(a, b)) <= 1e-5))
EOF"

"${mpi[@]}" "$fcast" predict --model "$tmp/one.safetensors" --data "$data" --out "$tmp/mpi_predict.csv" \
    > /dev/null 2> "$tmp/err.txt"
check "other commands refuse to run N times over under mpirun" \
      "[ $? -ne 0 ] && grep -q 'only fcast train runs across the processes of an MPI job' $tmp/err.txt && [ ! -e $tmp/mpi_predict.csv ]"

# Checkpoints: written by rank 0, resumed by as many ranks (to the uninterrupted run's weights), refused by one process
"${mpi[@]}" "$fcast" train "${short[@]}" --out "$tmp/full.safetensors" > /dev/null 2>&1
"${mpi[@]}" "$fcast" train "${short[@]}" --out "$tmp/part.safetensors" \
    --checkpoint "$tmp/ck.safetensors" --checkpoint-every 5 > /dev/null 2>&1
check "rank 0 writes the checkpoint" "[ -s $tmp/ck.safetensors ]"
"${mpi[@]}" "$fcast" train "${short[@]}" --out "$tmp/resumed.safetensors" \
    --resume "$tmp/ck.safetensors" > /dev/null 2>&1
check "2 ranks resume to the uninterrupted run's weights" "same_weights $tmp/full.safetensors $tmp/resumed.safetensors"
"$fcast" train "${short[@]}" --out "$tmp/alone.safetensors" \
    --resume "$tmp/ck.safetensors" > /dev/null 2> "$tmp/err.txt"
check "one process refuses a 2-rank checkpoint, saying why" \
      "[ $? -eq 4 ] && grep -q 'made by 2 processes (mpirun -np 2), this run has 1' $tmp/err.txt"

# A failing rank: rank 1's data file does not exist; rank 0 would wait for it in the first step.
start=$(date +%s)
timeout 120 mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS \
    -np 1 "$fcast" train "${common[@]}" --out "$tmp/fail0.safetensors" : \
    -np 1 "$fcast" train "${common[@]/$data/$tmp/missing.csv}" --out "$tmp/fail1.safetensors" > "$tmp/fail.txt" 2>&1
code=$?
check "a failing rank stops the job (non-zero exit, not the timeout)" "[ $code -ne 0 ] && [ $code -ne 124 ]"
check "the message names the missing file" "grep -q 'missing.csv' $tmp/fail.txt"
check "it stops within a minute" "[ \$(( \$(date +%s) - start )) -lt 60 ]"
check "no model file from the failed job" "[ ! -e $tmp/fail0.safetensors ]"

finish
