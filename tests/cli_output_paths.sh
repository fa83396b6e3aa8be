#!/usr/bin/env bash
# Output paths of every fcast command that writes a file (predict, eval,
# quant indicators, quant risk, quant backtest; train's model file is
# checked in its own tests): "-" is standard output with nothing else on it;
# a symlink stays a link and its target is replaced; a FIFO is written
# through (and without a reader fails at once); a device node is written
# through, never replaced; the output may not be an input (also through a
# symlink or hard link); a symlink planted at the old temporary name is not
# followed; a read-only directory, a full disk, a missing directory and an
# existing directory are clear errors, and a failed write keeps the previous
# file and leaves no temporary. (The random temporary name against planted
# links, and the cause of a failed write on a pipe, are in test_atomic_file.)
# $1 is the fcast binary.
set -uo pipefail
fcast=$(realpath "$1")
source tests/lib_cli.sh
trap 'umount "$tmp/full" 2>/dev/null; rm -rf "$tmp"' EXIT
chmod 755 "$tmp"   # reachable by the unprivileged user of the read-only case

scripts/split-tail.sh data/monthly_classics.csv 12 "$tmp/train.csv" "$tmp/test.csv"
cp data/eu_stock_markets.csv "$tmp/prices.csv"
"$fcast" train --data "$tmp/train.csv" --model mlp --h 12 --input-size 24 --max-steps 5 --threads 1 --quiet \
  --out "$tmp/m.safetensors" || { echo "cannot train the model the tests need" >&2; exit 1; }
chmod 644 "$tmp"/*

COMMANDS=(predict eval indicators risk backtest)
# cmd NAME OUT: runs command NAME writing to OUT (stdout and stderr as the caller
# redirects); with EXEC=exec, fcast replaces the calling (sub)shell, keeping its pid.
cmd() {
  case "$1" in
    predict) ${EXEC:-} "$fcast" predict --model "$tmp/m.safetensors" --data "$tmp/train.csv" --threads 1 --out "$2" ;;
    eval) ${EXEC:-} "$fcast" eval --model "$tmp/m.safetensors" --train "$tmp/train.csv" --test "$tmp/test.csv" --season 12 \
            --threads 1 --out "$2" ;;
    indicators) ${EXEC:-} "$fcast" quant indicators --data "$tmp/prices.csv" --ind sma:5,rsi:14 --threads 1 --out "$2" ;;
    risk) ${EXEC:-} "$fcast" quant risk --data "$tmp/prices.csv" --csv --out "$2" ;;
    backtest) ${EXEC:-} "$fcast" quant backtest --data "$tmp/prices.csv" --fast 5:10:5 --slow 20:30:10 --out "$2" ;;
  esac
}
# The file each command reads that an output could clobber, and its flag.
declare -A INPUT=([predict]="$tmp/train.csv" [eval]="$tmp/test.csv" [indicators]="$tmp/prices.csv"
                  [risk]="$tmp/prices.csv" [backtest]="$tmp/prices.csv")
declare -A INPUT_FLAG=([predict]=--data [eval]=--test [indicators]=--data [risk]=--data [backtest]=--data)
export fcast tmp
export -f cmd
# expect NAME CODE NEEDLE OUT [PREFIX...]: runs NAME to OUT (under PREFIX, e.g.
# timeout or setpriv, hence through bash -c) and checks the exit status and
# that stderr holds NEEDLE.
expect() {
  local name=$1 code=$2 needle=$3 out=$4; shift 4
  "$@" bash -c 'cmd "$@"' _ "$name" "$out" >"$tmp/stdout" 2>"$tmp/err"; local rc=$?
  check "$name --out $out: exit $code (got $rc: $(head -c 300 "$tmp/err"))" "[ $rc -eq $code ]"
  check "$name --out $out: stderr names '$needle' ($(head -c 300 "$tmp/err"))" "grep -qF -- \"$needle\" '$tmp/err'"
}
# (find's listing is read first: under pipefail, grep -q closing the pipe
# early would fail find with SIGPIPE and the negation pass a leftover file)
no_temporaries() { ! grep -q . <<<"$(find "$1" -name '*.tmp.*' -type f)"; }

for c in "${COMMANDS[@]}"; do
  # A regular file: the reference output.
  cmd "$c" "$tmp/$c.ref" >/dev/null 2>"$tmp/err"
  check "$c writes a file ($(head -c 300 "$tmp/err"))" "[ -s '$tmp/$c.ref' ]"

  # "-": the same bytes on standard output, and nothing else there.
  cmd "$c" - >"$tmp/$c.stdout" 2>"$tmp/err"
  check "$c --out -: standard output is exactly the file ($(head -c 300 "$tmp/err"))" \
    "cmp -s '$tmp/$c.ref' '$tmp/$c.stdout'"

  # A symlink: still the same link afterwards; its target has the output.
  echo old >"$tmp/$c.real"
  ln -s "$c.real" "$tmp/$c.link"
  cmd "$c" "$tmp/$c.link" >/dev/null 2>&1
  check "$c: a symlink stays a symlink" "[ -L '$tmp/$c.link' ] && [ \"\$(readlink '$tmp/$c.link')\" = '$c.real' ]"
  check "$c: the symlink's target holds the output" "cmp -s '$tmp/$c.ref' '$tmp/$c.real'"

  # A FIFO with a reader: written through. Without one: an error at once, no hang.
  mkfifo "$tmp/$c.fifo"
  timeout 10 cat "$tmp/$c.fifo" >"$tmp/$c.from_fifo" &
  reader=$!
  sleep 0.2
  timeout 60 bash -c 'cmd "$@"' _ "$c" "$tmp/$c.fifo" >/dev/null 2>"$tmp/err"
  wait "$reader"
  check "$c: a FIFO's reader gets the output ($(head -c 300 "$tmp/err"))" "cmp -s '$tmp/$c.ref' '$tmp/$c.from_fifo'"
  check "$c: the FIFO is still a FIFO" "[ -p '$tmp/$c.fifo' ]"
  expect "$c" 5 "no reader" "$tmp/$c.fifo" timeout 60

  # Same file as the input: refused, the input untouched, whatever the spelling.
  cp "${INPUT[$c]}" "$tmp/$c.input_copy"
  expect "$c" 4 "is the input file given to ${INPUT_FLAG[$c]}" "${INPUT[$c]}"
  ln -s "${INPUT[$c]}" "$tmp/$c.input_link"
  expect "$c" 4 "is the input file given to ${INPUT_FLAG[$c]}" "$tmp/$c.input_link"
  ln "${INPUT[$c]}" "$tmp/$c.input_hard"
  expect "$c" 4 "is the input file given to ${INPUT_FLAG[$c]}" "$tmp/$c.input_hard"
  rm "$tmp/$c.input_hard"
  check "$c: the input is untouched" "cmp -s '${INPUT[$c]}' '$tmp/$c.input_copy'"

  # A symlink planted at the old predictable temporary name <out>.tmp.<pid>
  # (the pid is known: exec keeps the subshell's): its target is untouched.
  echo precious >"$tmp/victim"
  ( ln -s "$tmp/victim" "$tmp/$c.out.tmp.$BASHPID"; EXEC=exec cmd "$c" "$tmp/$c.out" ) >/dev/null 2>&1
  check "$c: a symlink planted at the old temporary name is not followed" "[ \"\$(cat '$tmp/victim')\" = precious ]"
  check "$c: the output is a new regular file beside the planted link" \
    "[ -f '$tmp/$c.out' ] && [ ! -L '$tmp/$c.out' ] && cmp -s '$tmp/$c.ref' '$tmp/$c.out'"

  # A missing directory, an existing directory: refused before the work (the
  # --out error comes first even though the input does not exist).
  expect "$c" 5 "directory '$tmp/nodir' does not exist" "$tmp/nodir/out.csv"
  expect "$c" 5 "is a directory" "$tmp"
  check "$c: no temporary left in the test directory" "no_temporaries '$tmp'"
done

# The --out check runs before anything is read: a directory as --out with a
# missing input is reported as the --out error.
"$fcast" predict --model "$tmp/m.safetensors" --data "$tmp/missing.csv" --out "$tmp" 2>"$tmp/err"
check "predict: --out checked before the input is read (exit $?)" "grep -q 'is a directory' '$tmp/err'"
"$fcast" quant backtest --data "$tmp/missing.csv" --out "$tmp" 2>"$tmp/err"
check "backtest: --out checked before the input is read" "grep -q 'is a directory' '$tmp/err'"
# The model file is an input of predict and eval too.
expect predict 4 "is the input file given to --model" "$tmp/m.safetensors"
expect eval 4 "is the input file given to --model" "$tmp/m.safetensors"

# A device node of our own (never /dev/null itself): written through, and
# still the same device afterwards.
if mknod "$tmp/null" c 1 3 2>/dev/null; then
  for c in "${COMMANDS[@]}"; do
    cmd "$c" "$tmp/null" >/dev/null 2>"$tmp/err"
    check "$c: writes through a device node ($(head -c 300 "$tmp/err"))" "[ -c '$tmp/null' ] && [ \"\$(stat -c %t:%T '$tmp/null')\" = 1:3 ]"
  done
else
  echo "skipped: device node case (mknod needs root)"
fi

# A read-only directory: root ignores permissions, so as root the commands
# run as nobody. The previous file survives.
mkdir "$tmp/ro" && echo previous >"$tmp/ro/out.csv" && chmod 555 "$tmp/ro"
as_user=()
if [ "$(id -u)" -eq 0 ]; then
  if command -v setpriv >/dev/null; then as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  else echo "skipped: read-only directory case (root without setpriv)"; fi
fi
if [ "$(id -u)" -ne 0 ] || [ ${#as_user[@]} -gt 0 ]; then
  for c in "${COMMANDS[@]}"; do
    expect "$c" 5 "cannot create files in directory '$tmp/ro': Permission denied" "$tmp/ro/out.csv" "${as_user[@]}"
    check "$c: the file in the read-only directory is kept" "[ \"\$(cat '$tmp/ro/out.csv')\" = previous ]"
  done
fi

# A full disk: a 64 KiB tmpfs filled to the last block. The previous file
# survives whole, the error names the cause, no temporary remains. Where
# mount is not permitted, a file-size limit (EFBIG) stands in for it.
mkdir "$tmp/full"
if mount -t tmpfs -o size=64k tmpfs "$tmp/full" 2>/dev/null; then
  for c in "${COMMANDS[@]}"; do
    echo "previous $c" >"$tmp/full/$c.csv"
  done
  dd if=/dev/zero of="$tmp/full/filler" bs=4k count=100 2>/dev/null
  for c in "${COMMANDS[@]}"; do
    expect "$c" 5 "No space left on device" "$tmp/full/$c.csv"
    check "$c: the previous file survives a full disk" "[ \"\$(cat '$tmp/full/$c.csv')\" = 'previous $c' ]"
  done
  check "no temporary left on the full disk" "no_temporaries '$tmp/full'"
else
  echo "mount not permitted: a file-size limit (EFBIG) stands in for a full disk"
  for c in "${COMMANDS[@]}"; do
    echo "previous $c" >"$tmp/full/$c.csv"
    ( trap '' XFSZ; ulimit -f 1; cmd "$c" "$tmp/full/$c.csv" ) >/dev/null 2>"$tmp/err"
    check "$c: EFBIG named" "grep -q 'File too large' '$tmp/err'"
    check "$c: the previous file survives" "[ \"\$(cat '$tmp/full/$c.csv')\" = 'previous $c' ]"
  done
  check "no temporary left" "no_temporaries '$tmp/full'"
fi

# predict: series shorter than the input window are forecast with one warning line.
awk -F, 'NR == 1 || ++n[$1] <= 10' "$tmp/train.csv" >"$tmp/short.csv"
"$fcast" predict --model "$tmp/m.safetensors" --data "$tmp/short.csv" --out "$tmp/short_fc.csv" 2>"$tmp/err"
check "predict: short series are forecast ($?)" "[ -s '$tmp/short_fc.csv' ]"
check "predict: one warning line with the count and the first three ids ($(cat "$tmp/err"))" \
  "[ \$(grep -c 'shorter than the input window' '$tmp/err') -eq 1 ] &&
   grep -q \"4 series are shorter than the input window of 24 points ('AirPassengers' (10), 'gas' (10), 'nottem' (10), ...)\" '$tmp/err'"
finish
