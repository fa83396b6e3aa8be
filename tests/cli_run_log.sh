#!/usr/bin/env bash
# The run log (--log-file, --profile) and the terminal progress: the events
# a run writes, with the keys docs/operations.md lists; GPU samples through
# a stand-in NVML library; what the terminal shows; fcast report reading it.
# $1 is the fcast binary (the stand-in NVML is built beside it).
set -uo pipefail
fcast=$1
# fcast with a test hook: FCAST_TEST_INTERRUPT_AT=N[:validation] stops a run after step N (tests/interrupt_at.c)
interrupting=$(dirname "$fcast")/fcast_interrupt_at
source tests/lib_cli.sh

fake_nvml=$(dirname "$fcast")/libfake_nvml.so
run=(--data data/monthly_classics.csv --model nhits --h 12 --input-size 24 --mlp-units 64,64 --max-steps 40
     --val-size 12 --val-check-steps 10 --scaler standard --threads 1)
FCAST_NVML_LIBRARY=$fake_nvml "$fcast" train "${run[@]}" --out "$tmp/m.safetensors" --log-file "$tmp/run.jsonl" \
    --profile 2>"$tmp/progress.txt"
check "training with a run log succeeds" "[ $? -eq 0 ]"
log=$tmp/run.jsonl
events() { grep -c "^{\"event\":\"$1\"" "$log"; }
check "one start event, first, with schema 2 and the configuration" \
    "head -1 $log | grep -q '^{\"event\":\"start\",\"schema\":2,' && [ \$(events start) -eq 1 ] && head -1 $log | grep -q '\"config\":{\"data\":\"data/monthly_classics.csv\"'"
check "the start event names the device" "head -1 $log | grep -q '\"device\":\"cpu\"'"
check "one step event per step (40)" "[ \$(events step) -eq 40 ]"
check "one validation event per check (4)" "[ \$(events validation) -eq 4 ]"
check "one profile event per step with --profile" "[ \$(events profile) -eq 40 ]"
check "one summary, last, completed" "tail -1 $log | grep -q '^{\"event\":\"summary\",.*\"status\":\"completed\"'"
for key in step elapsed_s train_loss train_loss_unit lr loss_scale skipped grad_norm windows_per_s rss_bytes device_bytes; do
  check "every step event has $key" "[ \$(grep '^{\"event\":\"step\"' $log | grep -c '\"$key\":') -eq 40 ]"
done
check "the training loss is labelled scaled, validation original" \
    "grep -q '\"train_loss_unit\":\"scaled\"' $log && grep -q '\"val_loss_unit\":\"original\"' $log"
for phase in sample gather scale forward loss backward optimizer validation checkpoint_io; do
  check "the summary times phase $phase" "tail -1 $log | grep -q '\"$phase\":[0-9]'"
done
check "GPU samples from NVML: both devices of the stand-in, with its figures" \
    "grep -qE '\"event\":\"gpu\",.*\"device\":1,\"util_pct\":87(\\.0)?,\"mem_used_bytes\":1073741824,\"mem_total_bytes\":17179869184,\"temp_c\":61(\\.0)?,\"power_w\":210.5' $log"
check "the JSON has no NaN or Infinity (null instead)" "! grep -qiE 'nan|inf[^o]' $log"

check "the terminal labels both losses" \
    "grep -q 'train loss (scaled)' $tmp/progress.txt && grep -q 'validation loss (original units)' $tmp/progress.txt"
check "the terminal shows elapsed time and ETA" "grep -q 'elapsed [0-9]*s  eta [0-9]*s' $tmp/progress.txt"
check "the summary names where the time went" "grep -q '^time: sample' $tmp/progress.txt"

FCAST_NVML_LIBRARY=$tmp/no-nvml.so "$fcast" train "${run[@]}" --quiet --out "$tmp/n.safetensors" --log-file "$tmp/run2.jsonl" 2>/dev/null
check "without NVML (none at that path) there are no GPU events" "! grep -q '\"event\":\"gpu\"' $tmp/run2.jsonl"
check "the run log does not change the model" "cmp -s $tmp/m.safetensors $tmp/n.safetensors"

"$fcast" report "$log" --out "$tmp/report.html" 2>"$tmp/err.txt"
check "fcast report reads the log, GPU charts included" "[ $? -eq 0 ] && grep -q 'GPU' $tmp/report.html"

"$fcast" train "${run[@]}" --out "$tmp/x.safetensors" --log-file "$tmp/nowhere/run.jsonl" 2>"$tmp/err.txt"
check "a run log in a missing directory is refused before training" \
    "[ $? -eq 5 ] && grep -q nowhere $tmp/err.txt && [ ! -e $tmp/x.safetensors ]"

# A FIFO: without a reader the run is refused at once (it used to wait in
# open(2) forever); a reader that goes away must not kill the run (SIGPIPE):
# training finishes and writes its model, the log failure is the exit code.
short=(--data data/monthly_classics.csv --model nhits --h 12 --input-size 24 --mlp-units 64,64 --max-steps 20
       --threads 1 --quiet)
mkfifo "$tmp/fifo"
timeout -k 2 10 "$fcast" train "${short[@]}" --out "$tmp/f.safetensors" --log-file "$tmp/fifo" 2>"$tmp/err.txt"
check "a FIFO log without a reader: refused at once (exit 5), no model" \
    "[ $? -eq 5 ] && grep -q 'no reader' $tmp/err.txt && [ ! -e $tmp/f.safetensors ]"
head -c 100 "$tmp/fifo" >/dev/null &
timeout -k 2 20 "$fcast" train "${short[@]}" --out "$tmp/f.safetensors" --log-file "$tmp/fifo" 2>"$tmp/err.txt"
check "a FIFO log whose reader quits: the run completes with its model, exit 5 (not SIGPIPE)" \
    "[ $? -eq 5 ] && [ -s $tmp/f.safetensors ] && grep -q 'Broken pipe' $tmp/err.txt"
wait

# A log whose last line was cut (a full disk, a kill): a run appending to it
# drops the cut line, so the log stays lines that fcast report reads.
head -c -40 "$log" >"$tmp/cut.jsonl"
"$fcast" train "${short[@]}" --out "$tmp/c.safetensors" --log-file "$tmp/cut.jsonl" 2>"$tmp/err.txt"
check "appending to a log with a cut last line drops it, and the report reads the log" \
    "grep -q 'last line was cut short' $tmp/err.txt && $fcast report $tmp/cut.jsonl --out $tmp/cut.html 2>/dev/null"
# A full disk (a 64 KiB tmpfs, where mounting is allowed): the cut line is
# taken back at once; the stopped run resumes appending to a readable log.
mkdir "$tmp/small"
if mount -t tmpfs -o size=64k tmpfs "$tmp/small" 2>/dev/null; then
  full=("${short[@]/20/300}" --val-size 12 --val-check-steps 10)
  FCAST_TEST_INTERRUPT_AT=250 "$interrupting" train "${full[@]}" --out "$tmp/d.safetensors" --log-file "$tmp/small/run.jsonl" \
      --profile 2>"$tmp/err.txt"
  check "full disk: the stopped run warns, exits 130" "[ $? -eq 130 ] && grep -q 'No space left' $tmp/err.txt"
  check "full disk: the log ends with a whole line" "[ \"\$(tail -c 1 $tmp/small/run.jsonl | od -An -c | tr -d ' ')\" = '\\n' ]"
  "$fcast" train "${full[@]}" --out "$tmp/d.safetensors" --log-file "$tmp/small/run.jsonl" \
      --resume "$tmp/d.ckpt.safetensors" 2>/dev/null
  check "full disk: the resumed run completes (exit 5: its log is incomplete) and the log reads" \
      "[ $? -eq 5 ] && $fcast report $tmp/small/run.jsonl --out $tmp/small.html 2>/dev/null"
  umount "$tmp/small"
fi
finish
