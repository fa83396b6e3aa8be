#!/usr/bin/env bash
# A training's state when something goes wrong (issue 32): a periodic
# checkpoint that cannot be written (a full disk) keeps the last good one
# and the run goes on to write its model; every such message says which
# checkpoint is good. $1 is the binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
trap 'umount "$tmp/full" 2>/dev/null; rm -rf "$tmp"' EXIT

data=data/monthly_classics.csv

# checkpoint_step FILE: the "step" of a checkpoint's metadata.
checkpoint_step() {
  local len
  len=$(od -An -tu8 -N8 "$1" | tr -d ' ')
  head -c $((8 + len)) "$1" | tail -c "$len" | grep -o '"step":"[0-9]*"' | grep -o '[0-9]*'
}

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
  FCAST_TEST_INTERRUPT_AT=5 "$fcast" train "${small[@]}" --out "$tmp/m.safetensors" --checkpoint "$tmp/full/s.ck" \
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
