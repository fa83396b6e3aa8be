#!/usr/bin/env bash
# A training's state when something goes wrong (issue 32): a checkpoint
# whose Adam moments no run could write is refused at resume; weights that
# are not finite are never written, to a checkpoint or a model file; a
# periodic checkpoint that cannot be written (a full disk) keeps the last
# good one and the run goes on to write its model; every such message says
# which checkpoint is good; the divergence hint suggests only what would
# change something. $1 is the binary.
set -uo pipefail
fcast=$1
# fcast with a test hook: FCAST_TEST_INTERRUPT_AT=N[:validation] stops a run after step N (tests/interrupt_at.c)
interrupting=$(dirname "$fcast")/fcast_interrupt_at
source tests/lib_cli.sh
trap 'umount "$tmp/full" 2>/dev/null; rm -rf "$tmp"' EXIT

data=data/monthly_classics.csv
run=(--data $data --model nhits --h 12 --input-size 24 --max-steps 60 --scaler standard --threads 1 --quiet
     --mlp-units 64,64)

# checkpoint_step FILE: the "step" of a checkpoint's metadata.
checkpoint_step() {
  local len
  len=$(od -An -tu8 -N8 "$1" | tr -d ' ')
  head -c $((8 + len)) "$1" | tail -c "$len" | grep -o '"step":"[0-9]*"' | grep -o '[0-9]*'
}
# set_floats IN OUT TENSOR INDEX COUNT VALUE: IN with COUNT elements of F32
# TENSOR from INDEX set to VALUE (a float32, "nan" allowed).
set_floats() {
  python3 - "$@" <<'PY'
import json, struct, sys
src, dst, name, first, count, value = sys.argv[1:]
b = bytearray(open(src, "rb").read())
n = struct.unpack("<Q", b[:8])[0]
start = 8 + n + json.loads(b[8:8 + n])[name]["data_offsets"][0]
for i in range(int(first), int(first) + int(count)):
    struct.pack_into("<f", b, start + 4 * i, float(value))
open(dst, "wb").write(b)
PY
}

# ---- a checkpoint's moments: refused at resume, naming the tensor and element
FCAST_TEST_INTERRUPT_AT=30 "$interrupting" train "${run[@]}" --out "$tmp/p.safetensors" 2>/dev/null
ck=$tmp/p.ckpt.safetensors
check "a checkpoint at step 30" "[ \"\$(checkpoint_step $ck)\" = 30 ]"
# negative second moments used to resume into 23 NaN weights, exit 0
set_floats $ck "$tmp/neg.ck" optimizer.exp_avg_sq 7 23 -1
"$fcast" train "${run[@]}" --out "$tmp/x.safetensors" --resume "$tmp/neg.ck" 2>"$tmp/err"
check "negative exp_avg_sq: exit 7 naming the file, tensor and element" \
      "[ $? -eq 7 ] && grep -q \"neg.ck: tensor 'optimizer.exp_avg_sq' element 7 is -1\" $tmp/err"
set_floats $ck "$tmp/nan.ck" optimizer.exp_avg 3 1 nan
"$fcast" train "${run[@]}" --out "$tmp/x.safetensors" --resume "$tmp/nan.ck" 2>"$tmp/err"
check "NaN exp_avg: exit 7 naming the tensor and element" \
      "[ $? -eq 7 ] && grep -q \"tensor 'optimizer.exp_avg': element 3 \[3\] is NaN\" $tmp/err"
edit_meta $ck "$tmp/loss.ck" last_train_loss nan
"$fcast" train "${run[@]}" --out "$tmp/x.safetensors" --resume "$tmp/loss.ck" 2>"$tmp/err"
check "a NaN last training loss: exit 7, inconsistent state" \
      "[ $? -eq 7 ] && grep -q 'last training loss not finite' $tmp/err"
check "no refused resume wrote a model" "[ ! -e $tmp/x.safetensors ]"

# ---- weights that are not finite are written nowhere. A first moment of
# 3e38 (finite: the reader takes it) sends a weight past the float range at
# the next step, and the step after fills a layer with NaN while the loss
# stays finite (a ReLU turns NaN into 0): no loss check sees it.
FCAST_TEST_INTERRUPT_AT=58 "$interrupting" train "${run[@]}" --out "$tmp/q.safetensors" 2>/dev/null
set_floats "$tmp/q.ckpt.safetensors" "$tmp/big58.ck" optimizer.exp_avg 0 1 3e38
"$fcast" train "${run[@]}" --out "$tmp/nan.safetensors" --resume "$tmp/big58.ck" 2>"$tmp/err"
check "NaN weights after the last step: exit 4, the model not written" "[ $? -eq 4 ] && [ ! -e $tmp/nan.safetensors ]"
check "... the message names the file, the step and the tensor" \
      "grep -q 'nan.safetensors: not written: the weights after 60 training steps are not finite (tensor .blocks\.' $tmp/err"
FCAST_TEST_INTERRUPT_AT=57 "$interrupting" train "${run[@]}" --out "$tmp/q.safetensors" 2>/dev/null
set_floats "$tmp/q.ckpt.safetensors" "$tmp/big57.ck" optimizer.exp_avg 0 1 3e38
"$fcast" train "${run[@]}" --out "$tmp/nan.safetensors" --resume "$tmp/big57.ck" --checkpoint "$tmp/c.ck" \
    --checkpoint-every 1 2>"$tmp/err"
check "NaN weights at a periodic checkpoint: exit 4, no model" "[ $? -eq 4 ] && [ ! -e $tmp/nan.safetensors ]"
check "... the checkpoint is not written over the good one, which the message names" \
      "grep -q 'c.ck: not written: the training state after step 59 is not valid' $tmp/err && grep -q 'c.ck still holds step 58' $tmp/err"
check "... the good checkpoint holds step 58" "[ \"\$(checkpoint_step $tmp/c.ck)\" = 58 ]"
FCAST_TEST_INTERRUPT_AT=59 "$interrupting" train "${run[@]}" --out "$tmp/r.safetensors" --resume "$tmp/c.ck" 2>/dev/null
check "... and resumes" "[ $? -eq 130 ]"

# ---- the divergence hint: scaling the data only where it is not scaled
diverge=(--data $data --model nhits --h 12 --input-size 24 --max-steps 5 --lr 1e30 --threads 1 --quiet)
"$fcast" train "${diverge[@]}" --scaler identity --out "$tmp/d.safetensors" 2>"$tmp/err"
check "diverged without a scaler: exit 4, lower --lr or --scaler standard" \
      "[ $? -eq 4 ] && grep -q 'training diverged at step .*lower --lr (1e+30) or scale the data (--scaler standard)' $tmp/err"
"$fcast" train "${diverge[@]}" --scaler standard --out "$tmp/d.safetensors" 2>"$tmp/err"
check "diverged with --scaler standard: lower --lr alone" \
      "[ $? -eq 4 ] && grep -q 'training diverged at step' $tmp/err && ! grep -q -- '--scaler' $tmp/err"

# ---- a full disk at periodic checkpoints: a 64 KiB tmpfs holds one
# checkpoint of this model (37 KB) but not a second beside it (the
# temporary), so the second write fails; --out is on another disk.
small=(--data $data --model mlp --h 12 --input-size 24 --hidden-size 80 --num-layers 1 --max-steps 8 --threads 1
       --quiet)
"$fcast" train "${small[@]}" --out "$tmp/ref.safetensors" 2>/dev/null
mkdir "$tmp/full"
if mount -t tmpfs -o size=64k tmpfs "$tmp/full" 2>/dev/null; then
  "$fcast" train "${small[@]}" --out "$tmp/m.safetensors" --checkpoint "$tmp/full/s.ck" --checkpoint-every 1 2>"$tmp/err"
  check "full disk at checkpoints: the run completes and writes its model" "[ $? -eq 0 ] && [ -s $tmp/m.safetensors ]"
  check "... the model equals the run's without checkpoints" "cmp -s $tmp/ref.safetensors $tmp/m.safetensors"
  check "... one warning names the step, the cause and the good checkpoint" \
        "[ \$(grep -c warning $tmp/err) -eq 1 ] && grep -q 'the checkpoint after step 2 could not be written (.*No space left on device); .*s.ck still holds step 1; training goes on' $tmp/err"
  check "... the checkpoint left holds step 1, whole, and nothing else is on the disk" \
        "[ \"\$(checkpoint_step $tmp/full/s.ck)\" = 1 ] && [ \"\$(ls -A $tmp/full)\" = s.ck ]"
  "$fcast" train "${small[@]}" --out "$tmp/m2.safetensors" --resume "$tmp/full/s.ck" 2>/dev/null
  check "... it resumes to the uninterrupted run's model" "[ $? -eq 0 ] && cmp -s $tmp/ref.safetensors $tmp/m2.safetensors"
  rm -f "$tmp/full/s.ck" "$tmp/m.safetensors"
  FCAST_TEST_INTERRUPT_AT=5 "$interrupting" train "${small[@]}" --out "$tmp/m.safetensors" --checkpoint "$tmp/full/s.ck" \
      --checkpoint-every 1 2>"$tmp/err"
  check "full disk, then a stop: exit 130 with the model so far" "[ $? -eq 130 ] && [ -s $tmp/m.safetensors ]"
  check "... the stop's checkpoint could not be written, the message names the good one and how to resume" \
        "grep -q 'its checkpoint could not be written (.*No space left on device); .*s.ck still holds step 1' $tmp/err && grep -q -- '--resume .*s.ck' $tmp/err"
  check "... which holds step 1" "[ \"\$(checkpoint_step $tmp/full/s.ck)\" = 1 ]"
  # --out on the full disk: the completed run's message names the good checkpoint
  dd if=/dev/zero of="$tmp/full/filler" bs=4k count=100 2>/dev/null
  "$fcast" train "${small[@]}" --out "$tmp/full/o.safetensors" --checkpoint "$tmp/c2.ck" --checkpoint-every 3 \
      2>"$tmp/err"
  check "--out on a full disk: exit 5 naming the file, the cause and the good checkpoint" \
        "[ $? -eq 5 ] && grep -q 'o.safetensors: cannot write: No space left on device; the model after step 8 was not written; .*c2.ck still holds step 6' $tmp/err"
  umount "$tmp/full"
else
  echo "mount not permitted: a file-size limit (EFBIG) above the model file (13 KB) and below a checkpoint (37 KB) stands in"
  ( trap '' XFSZ; ulimit -f 24; "$fcast" train "${small[@]}" --out "$tmp/m.safetensors" --checkpoint "$tmp/full/s.ck" \
      --checkpoint-every 1 ) 2>"$tmp/err"
  check "checkpoints too large to write: the run completes and writes its model" \
        "[ $? -eq 0 ] && cmp -s $tmp/ref.safetensors $tmp/m.safetensors"
  check "... one warning, naming the step and that no checkpoint was written" \
        "[ \$(grep -c warning $tmp/err) -eq 1 ] && grep -q 'after step 1 could not be written (.*File too large); no checkpoint of this run was written' $tmp/err"
  check "... nothing is left" "[ -z \"\$(ls -A $tmp/full)\" ]"
fi
finish
