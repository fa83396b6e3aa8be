#!/usr/bin/env bash
# Work shared over MPI on loopback (docs/distributed.md), 2 ranks of 1
# thread on this machine (root and oversubscription allowed):
#  - with --deterministic-reduce, 2 ranks of 64 windows train the weights
#    one process trains with --grad-accum 2 of 64, byte for byte (the same
#    windows in the same slices, the gradients summed in the same order),
#    with validation split over the ranks too (the same losses, bit for bit);
#  - with MPI's own all-reduce, the forecasts agree to 1e-5 (relative);
#  - on a streamed file each rank keeps its shard of the series: the
#    first step's loss is one process's with the job's windows, the rest
#    close to it, reproducible, resumable;
#  - rank 0 alone writes the model, the run log and checkpoints; 2 ranks
#    resume a checkpoint to the uninterrupted run's weights, one process
#    refuses it;
#  - sharded predict (1,200 series, two chunks) and cv (6 trainings dealt
#    to the ranks) write one process's output byte for byte;
#  - a rank that fails (its data file is missing: a two-program launch),
#    dies (SIGKILL) or stops answering (SIGSTOP) ends the whole job with a
#    message, within the time limit, never a hang.
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

"${mpi[@]}" "$fcast" eval --forecasts "$tmp/one.csv" --actuals "$data" --out "$tmp/mpi_eval.csv" \
    > /dev/null 2> "$tmp/err.txt"
check "other commands refuse to run N times over under mpirun" \
      "[ $? -ne 0 ] && grep -q 'only fcast train, predict and cv run across the processes' $tmp/err.txt && [ ! -e $tmp/mpi_eval.csv ]"

# A panel of 1,200 series (300 scaled copies of the bundled four), more
# than one forecast chunk (1,024 windows): rank 1 forecasts the second chunk.
awk -F, 'NR == 1 { print; next } { row[++n] = $0 }
    END { for (k = 0; k < 300; k++) for (i = 1; i <= n; i++) { split(row[i], f, ",");
          printf "%s_%d,%s,%.4f\n", f[1], k, f[2], f[3] * (1 + k / 500) } }' "$data" > "$tmp/panel.csv"

# Sharded prediction: every rank forecasts its chunks, rank 0 writes; byte for byte one process's output.
"$fcast" predict --model "$tmp/one.safetensors,$tmp/allreduce.safetensors" --data "$tmp/panel.csv" --threads 1 \
    --out "$tmp/panel_one.csv" 2> /dev/null
"${mpi[@]}" "$fcast" predict --model "$tmp/one.safetensors,$tmp/allreduce.safetensors" --data "$tmp/panel.csv" \
    --threads 1 --out "$tmp/panel_ranks.csv" > "$tmp/predict.txt" 2>&1
check "2 ranks predict (exit 0)" "[ $? -eq 0 ]"
check "sharded predict: one process's forecasts, byte for byte (1,200 series, 2 models)" \
      "[ \$(wc -l < $tmp/panel_one.csv) -eq 14401 ] && cmp -s $tmp/panel_one.csv $tmp/panel_ranks.csv"
check "rank 0 alone says it wrote the forecasts" "[ \$(grep -c 'written to' $tmp/predict.txt) -eq 1 ]"
"${mpi[@]}" "$fcast" predict --model "$tmp/one.safetensors" --data "$data" --threads 1 --out "$tmp/small_ranks.csv" \
    > /dev/null 2>&1
check "sharded predict of fewer series than a chunk: one process's bytes" "cmp -s $tmp/one.csv $tmp/small_ranks.csv"

# Sharded cross-validation: the 6 trainings (2 models x 3 refits) dealt to the ranks, rank 0 writes.
cv=(cv --data "$data" --model nhits,mlp --h 12 --input-size 24 --max-steps 10 --windows-batch-size 64 --threads 1
    --seed 3 --n-windows 3 --refit 1)
"$fcast" "${cv[@]}" --out "$tmp/cv_one.csv" > /dev/null 2>&1
"${mpi[@]}" "$fcast" "${cv[@]}" --out "$tmp/cv_ranks.csv" > "$tmp/cv.txt" 2>&1
check "2 ranks cross-validate (exit 0)" "[ $? -eq 0 ]"
check "sharded cv: one process's output, byte for byte" "[ -s $tmp/cv_one.csv ] && cmp -s $tmp/cv_one.csv $tmp/cv_ranks.csv"
check "each rank trained 3 of the 6 models" \
      "[ \$(grep -c '^rank 0: cv:' $tmp/cv.txt) -eq 3 ] && [ \$(grep -c '^rank 1: cv:' $tmp/cv.txt) -eq 3 ]"

# Validation shared by the ranks: each validates its chunks of the 14,400 windows; the losses and the
# early-stopped weights are one process's with --grad-accum 2.
val=("${base[@]/$data/$tmp/panel.csv}" --max-steps 12 --val-size 12 --val-check-steps 3 --early-stop-patience 1)
"${mpi[@]}" "$fcast" train "${val[@]}" --deterministic-reduce --out "$tmp/val_ranks.safetensors" \
    --log-file "$tmp/val_ranks.jsonl" > /dev/null 2>&1
"$fcast" train "${val[@]}" --grad-accum 2 --out "$tmp/val_one.safetensors" --log-file "$tmp/val_one.jsonl" > /dev/null 2>&1
check "validation split over ranks: the same validation losses, bit for bit" \
      "vals() { grep -o '\"val_loss\":[^,]*' \$1; }; [ -n \"\$(vals $tmp/val_one.jsonl)\" ] && [ \"\$(vals $tmp/val_one.jsonl)\" = \"\$(vals $tmp/val_ranks.jsonl)\" ]"
check "validation split over ranks: the same weights" "same_weights $tmp/val_ranks.safetensors $tmp/val_one.safetensors"

# A streamed data store (each rank its own store file): the same weights as one process in memory.
stream=("${base[@]/$data/$tmp/panel.csv}" --max-steps 8)
"${mpi[@]}" "$fcast" train "${stream[@]}" --deterministic-reduce --data-store stream --store-dir "$tmp" \
    --out "$tmp/stream_ranks.safetensors" > /dev/null 2>&1
"$fcast" train "${stream[@]}" --grad-accum 2 --out "$tmp/stream_one.safetensors" > /dev/null 2>&1
check "2 ranks on streamed data train one process's weights" \
      "[ -s $tmp/stream_ranks.safetensors ] && same_weights $tmp/stream_ranks.safetensors $tmp/stream_one.safetensors"

# Without --deterministic-reduce each rank streams only its shard of the series (every N-th). The job
# draws one process's windows, each rank training on those of its series, weighted by observed points:
# on data with missing values, the first step's loss is one process's with the job's windows in one
# batch (2 and 3 ranks), the validation losses and forecasts stay close to it, a fixed number of ranks
# repeats its bits, and a checkpoint resumes to the uninterrupted run's weights.
awk -F, 'NR == 1 { print; next } { print (NR % 7 ? $0 : $1 "," $2 ",") }' "$tmp/panel.csv" > "$tmp/holes.csv"
one_step=(--data "$tmp/holes.csv" --model nhits --h 12 --input-size 24 --threads 1 --seed 3 --quiet)
shard=("${one_step[@]}" --max-steps 8 --val-size 12 --val-check-steps 4)
sharded=("${shard[@]}" --windows-batch-size 64 --data-store stream --store-dir "$tmp")
"${mpi[@]}" "$fcast" train "${sharded[@]}" --out "$tmp/shard.safetensors" --log-file "$tmp/shard.jsonl" \
    > "$tmp/shard.txt" 2>&1
check "2 ranks train on their shards (exit 0), rank 0 saying so" \
      "[ $? -eq 0 ] && grep -q 'each of the 2 ranks keeps 1/2 of the series in its store' $tmp/shard.txt"
"$fcast" train "${shard[@]}" --windows-batch-size 128 --out "$tmp/shard_one.safetensors" \
    --log-file "$tmp/shard_one.jsonl" > /dev/null 2>&1
close_losses() {   # close_losses KEY TOLERANCE A.jsonl B.jsonl [first]: KEY's values agree within TOLERANCE
    python3 - "$@" <<'EOF'
import json, sys
key, tol, a, b = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
va, vb = ([json.loads(l)[key] for l in open(p) if f'"{key}"' in l] for p in (a, b))
if len(sys.argv) > 5: va, vb = va[:1], vb[:1]
sys.exit(not (len(va) == len(vb) > 0 and all(abs(x - y) <= tol * abs(y) for x, y in zip(va, vb))))
EOF
}
# (1e-12 where oneDNN computes a row alike in products of 64 and of 128
# rows, as on AVX-512; on AVX2 (Zen 3) the rows differ in their last bits:
# 1.3e-10 measured. Weighting micro-batches by windows instead of target
# points moves it by 6e-4.)
check "shards: the first step's loss is one process's (2 ranks, 1e-8)" \
      "close_losses train_loss 1e-8 $tmp/shard.jsonl $tmp/shard_one.jsonl first"
check "shards: the validation losses within 1e-6 of one process's" \
      "close_losses val_loss 1e-6 $tmp/shard.jsonl $tmp/shard_one.jsonl"
"$fcast" predict --model "$tmp/shard.safetensors" --data "$tmp/holes.csv" --out "$tmp/shard.csv" 2> /dev/null
"$fcast" predict --model "$tmp/shard_one.safetensors" --data "$tmp/holes.csv" --out "$tmp/shard_one.csv" 2> /dev/null
check "shards: forecasts within 1e-4 (relative) of one process's" "python3 - $tmp/shard.csv $tmp/shard_one.csv <<'EOF'
import csv, sys
a, b = ([float(r['NHITS']) for r in csv.DictReader(open(p))] for p in sys.argv[1:])
sys.exit(not (len(a) == len(b) > 0 and max(abs(x - y) / max(abs(y), 1.0) for x, y in zip(a, b)) <= 1e-4))
EOF"
timeout 120 mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS -np 3 "$fcast" train "${one_step[@]}" \
    --max-steps 1 --windows-batch-size 64 --data-store stream --store-dir "$tmp" --out "$tmp/shard3.safetensors" \
    --log-file "$tmp/shard3.jsonl" > /dev/null 2>&1
"$fcast" train "${one_step[@]}" --max-steps 1 --windows-batch-size 192 --out "$tmp/shard3_one.safetensors" \
    --log-file "$tmp/shard3_one.jsonl" > /dev/null 2>&1
check "shards: the first step's loss is one process's (3 ranks, 1e-8)" \
      "close_losses train_loss 1e-8 $tmp/shard3.jsonl $tmp/shard3_one.jsonl first"
"${mpi[@]}" "$fcast" train "${sharded[@]}" --out "$tmp/shard_again.safetensors" > /dev/null 2>&1
check "shards: 2 ranks repeat their model file byte for byte" "cmp -s $tmp/shard.safetensors $tmp/shard_again.safetensors"
"${mpi[@]}" "$fcast" train "${sharded[@]}" --out "$tmp/shard_part.safetensors" \
    --checkpoint "$tmp/shard_ck.safetensors" --checkpoint-every 4 > /dev/null 2>&1
"${mpi[@]}" "$fcast" train "${sharded[@]}" --out "$tmp/shard_resumed.safetensors" \
    --resume "$tmp/shard_ck.safetensors" > /dev/null 2>&1
check "shards: a checkpoint resumes to the uninterrupted run's weights" \
      "[ -s $tmp/shard_ck.safetensors ] && cmp -s $tmp/shard.safetensors $tmp/shard_resumed.safetensors"

# A checkpoint names the data, not how the ranks hold it. On 4 series each step draws from all four, so
# the sampler's place is past a shard's 2 series: shards resume to their uninterrupted run's bytes; a
# checkpoint of ranks holding the whole file resumes on shards; and 5 ranks on 4 series hold the whole
# file each, saying so.
tiny=(--data "$data" --model mlp --h 12 --input-size 24 --hidden-size 16 --threads 1 --seed 3 --quiet --store-dir "$tmp")
small=("${tiny[@]}" --max-steps 6)
"${mpi[@]}" "$fcast" train "${small[@]}" --data-store stream --out "$tmp/small_full.safetensors" > /dev/null 2>&1
"${mpi[@]}" "$fcast" train "${small[@]}" --data-store stream --out "$tmp/small_part.safetensors" \
    --checkpoint "$tmp/small_ck.safetensors" --checkpoint-every 3 > /dev/null 2>&1
"${mpi[@]}" "$fcast" train "${small[@]}" --data-store stream --out "$tmp/small_res.safetensors" \
    --resume "$tmp/small_ck.safetensors" > "$tmp/small_res.txt" 2>&1
check "shards resume a checkpoint whose place is past a shard's series, to the same bytes" \
      "cmp -s $tmp/small_full.safetensors $tmp/small_res.safetensors"
"${mpi[@]}" "$fcast" train "${small[@]}" --data-store memory --out "$tmp/mem_part.safetensors" \
    --checkpoint "$tmp/mem_ck.safetensors" --checkpoint-every 3 > /dev/null 2>&1
"${mpi[@]}" "$fcast" train "${small[@]}" --data-store stream --out "$tmp/mem_res.safetensors" \
    --resume "$tmp/mem_ck.safetensors" > "$tmp/mem_res.txt" 2>&1
check "a checkpoint of whole-file ranks resumes on shards" "[ $? -eq 0 ] && [ -s $tmp/mem_res.safetensors ]"
[ -s "$tmp/mem_res.safetensors" ] || cat "$tmp/mem_res.txt" >&2
timeout 120 mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS -np 5 "$fcast" train "${tiny[@]}" \
    --max-steps 2 --data-store stream --out "$tmp/five.safetensors" > "$tmp/five.txt" 2>&1
check "5 ranks on 4 streamed series train, each holding the whole file, rank 0 saying so" \
      "[ $? -eq 0 ] && grep -q '4 series for 5 ranks, fewer series than ranks: every rank keeps the whole file' $tmp/five.txt"

# --windows-batch-size auto on shards: the trials train on one rank's own series; rank 0's (AirPassengers,
# nottem: one point each here) have no training window, so rank 1 times them and its choice is the job's.
python3 - "$data" "$tmp/lopsided.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
last = {r[0]: r for r in rows[1:]}
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(rows[0])
    for r in rows[1:]:
        if r[0] not in ("AirPassengers", "nottem") or r is last[r[0]]: w.writerow(r)
EOF
"${mpi[@]}" "$fcast" train --data "$tmp/lopsided.csv" --model mlp --h 12 --input-size 24 --hidden-size 16 --threads 1 \
    --max-steps 2 --data-store stream --store-dir "$tmp" --windows-batch-size auto --memory-limit 1GiB \
    --out "$tmp/lopsided.safetensors" > "$tmp/lopsided.txt" 2>&1
check "auto batch on shards: timed by the rank whose series have windows, rank 0 saying so" \
      "[ $? -eq 0 ] && grep -q 'timed by rank 1 (rank 0.s series have no training window)' $tmp/lopsided.txt"

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

# The gradient mean on the CPU and on a stand-in GPU (its group joined once with rank 0's id), in a job
# of 2 and of 3 ranks (test_dist_grads.c; alone, ctest runs it too).
grads_test="$(dirname "$fcast")/test_dist_grads"
for n in 2 3; do
    timeout 120 mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS -np $n "$grads_test" > "$tmp/grads.txt" 2>&1
    check "the gradient mean over $n ranks, CPU and stand-in GPU (test_dist_grads)" \
          "[ $? -eq 0 ] && [ \$(grep -c ' 0 failed' $tmp/grads.txt) -eq $n ]"
done

# A failing rank: rank 1's data file does not exist; rank 0 would wait for it in the first step.
start=$(date +%s)
timeout 120 mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS \
    -np 1 "$fcast" train "${common[@]}" --out "$tmp/fail0.safetensors" : \
    -np 1 "$fcast" train "${common[@]/$data/$tmp/missing.csv}" --out "$tmp/fail1.safetensors" > "$tmp/fail.txt" 2>&1
code=$?
check "a failing rank stops the job with the exit code of its failure (5: I/O)" "[ $code -eq 5 ]"
check "the message names the missing file" "grep -q 'missing.csv' $tmp/fail.txt"
check "it stops within a minute" "[ \$(( \$(date +%s) - start )) -lt 60 ]"
check "no model file from the failed job" "[ ! -e $tmp/fail0.safetensors ]"

# Refusals on every rank end the job with their exit codes: the memory plan over --memory-limit (6),
# predict's missing history (5).
"${mpi[@]}" "$fcast" train "${common[@]}" --memory-limit 20MiB --out "$tmp/lim.safetensors" > "$tmp/lim.txt" 2>&1
check "a job over --memory-limit (per rank) exits 6, saying what it needs" \
      "[ $? -eq 6 ] && grep -q 'memory-limit 20.0 MiB: this run needs' $tmp/lim.txt"
"${mpi[@]}" "$fcast" predict --model "$tmp/one.safetensors" --data "$tmp/nothere.csv" --out "$tmp/x.csv" \
    > "$tmp/x.txt" 2>&1
check "sharded predict of a missing file exits 5, naming it" "[ $? -eq 5 ] && grep -q 'nothere.csv' $tmp/x.txt"

# A rank that dies (SIGKILL) or stops answering while alive (SIGSTOP), mid-training: the job ends with a
# message, never a hang. The launcher ends a job whose rank died; a stopped rank is caught by the other
# ranks' watchdog on the step's reductions (FCAST_MPI_TIMEOUT, 3 s here).
rank_pid() {   # the pid of rank $1 of the job whose command line holds $2
    local p
    for p in $(pgrep -f -- "$2"); do
        tr '\0' '\n' < "/proc/$p/environ" 2> /dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && { echo "$p"; return; }
    done
}
lose_rank() {   # lose_rank SIGNAL NAME: a 2-rank training whose rank 1 gets SIGNAL once under way
    FCAST_MPI_TIMEOUT=3 timeout 120 mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS -x FCAST_MPI_TIMEOUT \
        -np 2 "$fcast" train "${base[@]}" --max-steps 1000000 --out "$tmp/$2.safetensors" > "$tmp/$2.txt" 2>&1 &
    local job=$! victim="" i
    for i in $(seq 300); do victim=$(rank_pid 1 "$2.safetensors"); [ -n "$victim" ] && break; sleep 0.1; done
    sleep 2   # into the steps
    start=$(date +%s)
    [ -n "$victim" ] && kill "-$1" "$victim"
    wait $job
}
lose_rank KILL killed
code=$?
check "a killed rank ends the job (non-zero exit, not the timeout)" "[ $code -ne 0 ] && [ $code -ne 124 ]"
check "the launcher names the killed rank" "grep -q 'rank 1' $tmp/killed.txt"
check "the job ends within 30 s of the kill" "[ \$(( \$(date +%s) - start )) -lt 30 ]"
lose_rank STOP stopped
code=$?
check "a stopped rank ends the job (non-zero exit, not the timeout)" "[ $code -ne 0 ] && [ $code -ne 124 ]"
check "rank 0's watchdog says which reduction it waited in" \
      "grep -q 'rank 0 waited 3 s for the other ranks in the' $tmp/stopped.txt"
check "the job ends within 30 s of the stop" "[ \$(( \$(date +%s) - start )) -lt 30 ]"

# The whole job suspended (SIGSTOP to every rank, as Ctrl-Z or a scheduler does) for longer than the
# limit, then resumed: not a hang, the training goes on (the watchdog counts its own wakes, not a clock).
FCAST_MPI_TIMEOUT=2 timeout 120 mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS -x FCAST_MPI_TIMEOUT \
    -np 2 "$fcast" train "${base[@]}" --max-steps 1000000 --out "$tmp/paused.safetensors" > "$tmp/paused.txt" 2>&1 &
job=$!
for i in $(seq 300); do r1=$(rank_pid 1 paused.safetensors); [ -n "$r1" ] && break; sleep 0.1; done
r0=$(rank_pid 0 paused.safetensors)
sleep 2
kill -STOP $r0 $r1; sleep 5; kill -CONT $r0 $r1; sleep 3
check "a job suspended past the limit and resumed goes on" "kill -0 $r0 2> /dev/null && kill -0 $r1 2> /dev/null"
check "no rank took the suspension for a hang" "! grep -q 'waited' $tmp/paused.txt"
kill -TERM $r0 $r1; wait $job
check "the resumed job stops on a signal to its ranks, rank 0 writing the model" "[ -s $tmp/paused.safetensors ]"

finish
