#!/usr/bin/env bash
# Checkpoints, resume and signals through the CLI: a run stopped (by a
# signal, at several points: mid-training, inside a validation check, during
# fp16 loss-scale backoff) and resumed writes the same model file, byte for
# byte, as the uninterrupted run; mismatched resumes are refused; one signal
# stops after the step with a checkpoint, two stop at once; kill -9 during
# checkpoint writes always leaves a checkpoint that loads. $1 is the binary.
set -uo pipefail
fcast=$1
# fcast with a test hook: FCAST_TEST_INTERRUPT_AT=N[:validation] stops a run after step N (tests/interrupt_at.c)
interrupting=$(dirname "$fcast")/fcast_interrupt_at
source tests/lib_cli.sh

data=data/monthly_classics.csv
head -1 $data >"$tmp/air.csv"; grep '^AirPassengers,' $data >>"$tmp/air.csv"
base=(--data $data --model nhits --h 12 --input-size 24 --max-steps 60 --val-size 12
      --val-check-steps 20 --scaler standard --threads 1 --quiet)
run=("${base[@]}" --mlp-units 64,64)
fp16=(--data "$tmp/air.csv" --model nhits --h 12 --input-size 24 --mlp-units 64,64 --max-steps 40
      --precision fp16 --threads 1 --quiet)

# checkpoint_step FILE: the "step" of a checkpoint's metadata (the
# safetensors header: 8-byte little-endian length, then JSON).
checkpoint_step() {
  local len
  len=$(od -An -tu8 -N8 "$1" | tr -d ' ')
  head -c $((8 + len)) "$1" | tail -c "$len" | grep -o '"step":"[0-9]*"' | grep -o '[0-9]*'
}

"$fcast" train "${run[@]}" --out "$tmp/full.safetensors" 2>/dev/null
"$fcast" train "${fp16[@]}" --out "$tmp/full16.safetensors" 2>"$tmp/full16.err"
check "the fp16 reference run skips steps (loss-scale backoff)" "grep -q 'skipped [1-9]' $tmp/full16.err || grep -q 'steps skipped by the loss scaler' $tmp/full16.err"

# interrupt_and_resume NAME AT ARGS...: stop at AT (FCAST_TEST_INTERRUPT_AT), resume, compare with REF
interrupt_and_resume() {
  local name=$1 at=$2 ref=$3; shift 3
  rm -f "$tmp/p.safetensors" "$tmp/p.ckpt.safetensors"
  FCAST_TEST_INTERRUPT_AT=$at "$interrupting" train "$@" --out "$tmp/p.safetensors" 2>"$tmp/stop.err"
  local rc=$?
  check "$name: exit 130 after the signal" "[ $rc -eq 130 ]"
  check "$name: the message says how to resume" "grep -q 'resume with:' $tmp/stop.err && grep -q -- '--resume $tmp/p.ckpt.safetensors' $tmp/stop.err"
  check "$name: the checkpoint is written beside --out" "[ -s $tmp/p.ckpt.safetensors ]"
  check "$name: the model so far is written to --out" "[ -s $tmp/p.safetensors ]"
  check "$name: no temporary file is left" "[ -z \"\$(ls -A $tmp | grep -E 'tmp|^\\.')\" ]"
  "$fcast" train "$@" --out "$tmp/p.safetensors" --resume "$tmp/p.ckpt.safetensors" 2>"$tmp/resume.err"
  check "$name: the resumed run completes" "[ $? -eq 0 ]"
  check "$name: its model file equals the uninterrupted run's byte for byte" "cmp -s $ref $tmp/p.safetensors"
}
interrupt_and_resume "mid-training" 25 "$tmp/full.safetensors" "${run[@]}"
interrupt_and_resume "inside a validation check" 40:validation "$tmp/full.safetensors" "${run[@]}"
interrupt_and_resume "fp16 during loss-scale backoff" 5 "$tmp/full16.safetensors" "${fp16[@]}"
check "the checkpoint was taken while the loss scale was backing off" \
    "grep -q 'steps skipped by the loss scaler' $tmp/resume.err"
# A device backend's state is not host memory: checkpoints stage it through
# to_host / to_device. FCAST_TEST_NOT_HOST_VISIBLE makes the CPU backend
# take that path (the CUDA backend's), which must write the same bytes.
FCAST_TEST_NOT_HOST_VISIBLE=1 interrupt_and_resume "staged through to_host (a device's path)" 25 \
    "$tmp/full.safetensors" "${run[@]}"

# Twice stopped, with periodic checkpoints and a run log appended to.
rm -f "$tmp/c.ck" "$tmp/run.jsonl"
FCAST_TEST_INTERRUPT_AT=15 "$interrupting" train "${run[@]}" --out "$tmp/c.safetensors" --checkpoint "$tmp/c.ck" \
    --checkpoint-every 7 --log-file "$tmp/run.jsonl" 2>/dev/null
check "periodic checkpoints: stopped at step 15" "[ \"\$(checkpoint_step $tmp/c.ck)\" = 15 ]"
FCAST_TEST_INTERRUPT_AT=45 "$interrupting" train "${run[@]}" --out "$tmp/c.safetensors" --checkpoint "$tmp/c.ck" \
    --checkpoint-every 7 --log-file "$tmp/run.jsonl" --resume "$tmp/c.ck" 2>/dev/null
check "stopped again at step 45" "[ \"\$(checkpoint_step $tmp/c.ck)\" = 45 ]"
"$fcast" train "${run[@]}" --out "$tmp/c.safetensors" --checkpoint "$tmp/c.ck" --checkpoint-every 7 \
    --log-file "$tmp/run.jsonl" --resume "$tmp/c.ck" 2>/dev/null
check "twice resumed: the same model file" "cmp -s $tmp/full.safetensors $tmp/c.safetensors"
check "the run log has three starts and summaries (interrupted, interrupted, completed)" \
    "[ \$(grep -c '\"event\":\"start\"' $tmp/run.jsonl) -eq 3 ] && [ \"\$(grep -o '\"status\":\"[a-z_]*\"' $tmp/run.jsonl | tr '\n' ' ')\" = '\"status\":\"interrupted\" \"status\":\"interrupted\" \"status\":\"completed\" ' ]"
check "the run log has a checkpoint event every 7 steps and at validation checks" \
    "[ \$(grep -c '\"event\":\"checkpoint\"' $tmp/run.jsonl) -eq 12 ]"
check "the run log has one step event per step run (15 + 30 + 15)" "[ \$(grep -c '\"event\":\"step\"' $tmp/run.jsonl) -eq 60 ]"
check "the resumed start events say where they start" \
    "[ \"\$(grep '\"event\":\"start\"' $tmp/run.jsonl | grep -o '\"start_step\":[0-9]*' | tr '\n' ' ')\" = '\"start_step\":0 \"start_step\":15 \"start_step\":45 ' ]"
check "fcast report reads the run log" "$fcast report $tmp/run.jsonl --out $tmp/report.html 2>$tmp/report.err && [ -s $tmp/report.html ]"

# Resuming what does not belong to this run is refused, naming why.
FCAST_TEST_INTERRUPT_AT=10 "$interrupting" train "${run[@]}" --out "$tmp/m.safetensors" 2>/dev/null
ck=$tmp/m.ckpt.safetensors
"$fcast" train "${run[@]}" --lr 0.002 --out "$tmp/x.safetensors" --resume $ck 2>"$tmp/err.txt"
check "other options: exit 4 naming the option and both values" "[ $? -eq 4 ] && grep -q -- '--lr 0.001, this run has 0.002' $tmp/err.txt"
"$fcast" train "${base[@]}" --mlp-units 32,32 --out "$tmp/x.safetensors" --resume $ck 2>"$tmp/err.txt"
check "another architecture: exit 4 naming the model" "[ $? -eq 4 ] && grep -q 'made with model' $tmp/err.txt"
"$fcast" train "${run[@]/$data/$tmp/air.csv}" --out "$tmp/x.safetensors" --resume $ck 2>"$tmp/err.txt"
check "other data: exit 4 naming the data" "[ $? -eq 4 ] && grep -q 'other data' $tmp/err.txt"
# one value changed, same length, same series, same second: still other data
cp $data "$tmp/d.csv"
FCAST_TEST_INTERRUPT_AT=10 "$interrupting" train "${run[@]/$data/$tmp/d.csv}" --out "$tmp/d.safetensors" 2>/dev/null
sed -i '0,/^AirPassengers,1949-01-01,112/s//AirPassengers,1949-01-01,999/' "$tmp/d.csv"
touch -r $ck "$tmp/d.csv"
"$fcast" train "${run[@]/$data/$tmp/d.csv}" --out "$tmp/x.safetensors" --resume "$tmp/d.ckpt.safetensors" 2>"$tmp/err.txt"
check "one value changed (same size and series): exit 4 naming other values" "[ $? -eq 4 ] && grep -q 'other values' $tmp/err.txt"
head -c 5000 $ck >"$tmp/cut.ck"
"$fcast" train "${run[@]}" --out "$tmp/x.safetensors" --resume "$tmp/cut.ck" 2>"$tmp/err.txt"
check "a truncated checkpoint: exit 7 naming it" "[ $? -eq 7 ] && grep -q cut.ck $tmp/err.txt"
"$fcast" train "${run[@]}" --out "$tmp/x.safetensors" --resume "$tmp/full.safetensors" 2>"$tmp/err.txt"
check "a model file is not a checkpoint: exit 7" "[ $? -eq 7 ] && grep -q 'not a checkpoint' $tmp/err.txt"
check "no refused resume wrote a model" "[ ! -e $tmp/x.safetensors ]"
# A damaged or edited state that no run could have reached is refused
# (a loss scale of 2 in fp32 used to halve every gradient silently).
for edit in "loss_scale 0x1p+1" "loss_scale inf" "loss_scale nan" "adam_steps -5" "adam_steps 11" "skipped_steps 3" \
            "bad_checks -1" "sampler_epoch 99999999" "best_val_loss -inf" "best_step 11" "step 99"; do
  edit_meta $ck "$tmp/ed.ck" $edit
  "$fcast" train "${run[@]}" --out "$tmp/x.safetensors" --resume "$tmp/ed.ck" 2>"$tmp/err.txt"
  check "edited checkpoint ($edit): exit 7, inconsistent state" "[ $? -eq 7 ] && grep -q 'state is inconsistent' $tmp/err.txt"
done
edit_meta $ck "$tmp/ed.ck" step 10
"$fcast" train "${run[@]}" --out "$tmp/ed.safetensors" --resume "$tmp/ed.ck" 2>/dev/null
check "the editing itself keeps a checkpoint that resumes to the same model" "cmp -s $tmp/full.safetensors $tmp/ed.safetensors"
rm -f "$tmp/ed.safetensors"
"$fcast" train "${run[@]}" --out "$tmp/y.safetensors" --checkpoint "$tmp/y.safetensors" 2>"$tmp/err.txt"
check "--checkpoint equal to --out is refused before training" "[ $? -eq 4 ] && [ ! -e $tmp/y.safetensors ]"

# --windows-batch-size auto: the sweep's trials neither read the checkpoint
# nor write checkpoints or log lines; a resume keeps the batch the run chose.
auto=(--data $data --model nhits --h 12 --input-size 24 --mlp-units 64,64 --max-steps 30 --val-size 12
      --val-check-steps 10 --scaler standard --threads 1 --quiet --windows-batch-size auto --memory-limit 256MiB)
rm -f "$tmp/auto.jsonl"
FCAST_TEST_INTERRUPT_AT=12 "$interrupting" train "${auto[@]}" --out "$tmp/a.safetensors" --checkpoint "$tmp/a.ck" \
    --checkpoint-every 1 --log-file "$tmp/auto.jsonl" 2>/dev/null
check "auto batch: stopped at step 12 with 12 step and 12 checkpoint events (none from the sweep's trials)" \
    "[ $? -eq 130 ] && [ \$(grep -c '\"event\":\"step\"' $tmp/auto.jsonl) -eq 12 ] && [ \$(grep -c '\"event\":\"checkpoint\"' $tmp/auto.jsonl) -eq 12 ]"
"$fcast" train "${auto[@]}" --out "$tmp/a.safetensors" --checkpoint "$tmp/a.ck" --checkpoint-every 1 \
    --log-file "$tmp/auto.jsonl" --resume "$tmp/a.ck" 2>"$tmp/err.txt"
check "auto batch: the resume keeps the chosen batch and completes" "[ $? -eq 0 ] && [ \$(grep -c '\"event\":\"step\"' $tmp/auto.jsonl) -eq 30 ]"

# Real signals, sent while a long run trains.
long=(--data $data --model nhits --h 12 --input-size 24 --max-steps 100000 --threads 1 --quiet)
# stop_with GAP SIGNALS...: starts a long run, sends each signal (GAP
# seconds apart) after it has trained a little, and waits for it (at most 60 s).
stop_with() {
  local gap=$1; shift
  rm -f "$tmp/s.ck" "$tmp/s.safetensors"
  "$fcast" train "${long[@]}" "${extra[@]}" --out "$tmp/s.safetensors" --checkpoint "$tmp/s.ck" --checkpoint-every 1 \
      2>"$tmp/sig.err" &
  local pid=$! i
  for i in $(seq 100); do [ -s "$tmp/s.ck" ] && break; sleep 0.1; done
  for s in "$@"; do kill -s "$s" $pid; sleep "$gap"; done
  for i in $(seq 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  kill -9 $pid 2>/dev/null
  wait $pid
}
# resumes_from CK: the checkpoint loads and the run goes on from its step.
resumes_from() {
  local k
  k=$(checkpoint_step "$1") || return 1
  FCAST_TEST_INTERRUPT_AT=$((k + 1)) "$interrupting" train "${long[@]}" "${extra[@]}" --out "$tmp/r.safetensors" --checkpoint "$tmp/r.ck" \
      --resume "$1" 2>/dev/null
  [ $? -eq 130 ] && [ "$(checkpoint_step "$tmp/r.ck")" = $((k + 1)) ]
}
extra=(--mlp-units 256,256)
stop_with 0 INT
check "SIGINT: exit 130" "[ $? -eq 130 ]"
check "SIGINT: stopped after a step, checkpoint and model written, resume command printed" \
    "grep -q 'stopped after step' $tmp/sig.err && grep -q 'resume with:' $tmp/sig.err && [ -s $tmp/s.safetensors ]"
check "SIGINT: the checkpoint resumes" "resumes_from $tmp/s.ck"
stop_with 0 TERM
check "SIGTERM: exit 130 with a checkpoint that resumes" "[ $? -eq 130 ] && resumes_from $tmp/s.ck"
# The second signal must land while the first step still runs: wider
# layers (about 0.3 s a step), 50 ms apart (two signals pending at once
# would be delivered as one).
extra=(--mlp-units 1024,1024)
stop_with 0.05 INT INT
check "two signals: exit 130 at once" "[ $? -eq 130 ] && grep -q 'stopped at once' $tmp/sig.err"
check "two signals: the last complete checkpoint resumes" "resumes_from $tmp/s.ck"
check "two signals: no temporary file is left" "[ -z \"\$(ls -A $tmp | grep -E '^\\.s\\.|tmp')\" ]"

# A checkpoint of version 1 (data hashed in one chain; written by fcast at 3df5164 with the command
# below, --checkpoint-every 3 of 6 steps) still resumes on whole data, to the weights this fcast trains
# uninterrupted (the versions differ only in how the data is hashed).
v1=(--data $data --model mlp --h 12 --input-size 24 --hidden-size 8 --num-layers 1 --threads 1 --quiet
    --max-steps 6 --seed 5)
"$fcast" train "${v1[@]}" --out "$tmp/v1_full.safetensors" 2>/dev/null
"$fcast" train "${v1[@]}" --out "$tmp/v1_resumed.safetensors" --resume tests/fixtures/checkpoint_v1.safetensors \
    2>"$tmp/v1.err"
# (bit for bit on a CPU that computes the fixture's three steps as the one
# that wrote it did, a Zen 4 with AVX-512; elsewhere its kernels may sum in
# another order: within 1e-5, where a state read wrong is off by far more)
check "a version 1 checkpoint resumes to the uninterrupted run's weights" \
      "close_weights $tmp/v1_full.safetensors $tmp/v1_resumed.safetensors 1e-5"
cat $data > "$tmp/v1_other.csv"; echo 'AirPassengers,1961-01-01,1' >> "$tmp/v1_other.csv"
"$fcast" train "${v1[@]/$data/$tmp/v1_other.csv}" --out "$tmp/v1_x.safetensors" \
    --resume tests/fixtures/checkpoint_v1.safetensors 2>"$tmp/v1_other.err"
check "a version 1 checkpoint refuses other data, saying so" "[ $? -eq 4 ] && grep -q 'made on other data' $tmp/v1_other.err"

# kill -9 at random moments of a run that checkpoints every step (a third
# of its time is spent writing them): the checkpoint always loads.
extra=(--mlp-units 256,256)
killed=0 loaded=0
for i in 1 2 3 4 5 6; do
  "$fcast" train "${long[@]}" "${extra[@]}" --out "$tmp/k.safetensors" --checkpoint "$tmp/k.ck" --checkpoint-every 1 2>/dev/null &
  pid=$!
  sleep "$(awk -v s=$RANDOM 'BEGIN { print 0.8 + (s % 1000) / 1000 }')"
  kill -9 $pid; wait $pid 2>/dev/null
  [ -e "$tmp/k.ck" ] || continue
  killed=$((killed + 1))
  resumes_from "$tmp/k.ck" && loaded=$((loaded + 1))
  rm -f "$tmp"/.k.ck.* "$tmp"/k.ck.tmp.*   # what SIGKILL cannot clean
done
check "kill -9 during checkpoint writes: every checkpoint left loads ($loaded of $killed)" "[ $killed -ge 3 ] && [ $loaded -eq $killed ]"
finish
