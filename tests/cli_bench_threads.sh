#!/usr/bin/env bash
# bench/threads.sh at tiny sizes, so that the script cannot rot: its
# training table has a row per phase of `fcast bench train --json` (and
# other, whole step, windows/s) with numeric cells, a speed-up and an
# efficiency column, and names the phase with the biggest share of the
# time lost; the predict and indicator tables have their rows; bad options
# exit 2; its temporary directory is gone after it. Figures are not
# checked: they are noise at these sizes.
# $1 is the fcast binary (bench_indicators is built next to it).
set -uo pipefail
fcast=$1
source tests/lib_cli.sh

mkdir "$tmp/t"
TMPDIR="$tmp/t" bash bench/threads.sh "$fcast" --threads-list 1,2 --steps 2 --warmup 1 --windows-batch-size 64 \
  --predict-series 300 --predict-length 60 --indicator-series 50 --indicator-points 1000 --indicator-reps 1 \
  > "$tmp/out" 2> "$tmp/err"
rc=$?
check "threads.sh exits 0 (rc $rc: $(tail -n 3 "$tmp/err"))" '[ "$rc" -eq 0 ]'
check "threads.sh removes its temporary directory" '[ -z "$(ls -A "$tmp/t")" ]'

num='-?[0-9]+(\.[0-9]+)?'
ratio="($num""x|-)"
eff="([0-9]+%\\*?|-)"
# row NAME PATTERN: a line of the table NAME, then the cells PATTERN
row() { grep -Eq "^$1 +$2( |$)" "$tmp/out"; }
for prec in fp32 bf16; do
  check "a $prec training table" 'grep -q "^training $prec " "$tmp/out"'
done
check "the header has the efficiency column" 'grep -Eq "^phase +1T ms +2T ms +x +eff +lost@2T +share$" "$tmp/out"'
for phase in sample gather scale forward loss backward optimizer other; do
  check "row $phase, twice (fp32, bf16): ms, ms, speed-up, efficiency, lost ms, share" \
    '[ "$(grep -Ec "^$phase +$num +$num +$ratio +$eff +$num +($num%|-)$" "$tmp/out")" -eq 2 ]'
done
check "the whole step has numeric ratios" \
  'row "whole step" "$num +$num +$num""x +[0-9]+%\\*? +$num +($num%|-)"'
check "windows/s has numeric ratios" 'row windows/s "$num +$num +$num""x +[0-9]+%\\*?"'
for phase in validation checkpoint_io; do
  check "row $phase (once per run)" 'row $phase "$num +$num +$ratio +$eff +\(once per run,"'
done
check "the biggest share of the lost time is named, or none lost" \
  '[ "$(grep -Ec "^(fp32|bf16) at 2 threads: (.* biggest share: [a-z_]+ |no time lost)" "$tmp/out")" -eq 2 ]'
check "a predict table on the panel" 'grep -q "^predict: .* on 300 series (18000 points)" "$tmp/out"'
for r in "predict s" series/s "read s"; do
  check "predict row $r" 'row "$r" "$num +$num +$num""x +[0-9]+%\\*?"'
done
check "an indicator table" 'grep -Eq "^indicator +1T Mp/s +2T Mp/s +x +eff$" "$tmp/out"'
for ind in sma:20 ema:20 rsi:14 bbands:20:2 macd:12:26:9 "set \\(5 specs\\)"; do
  check "indicator row $ind" 'row "$ind" "$num +$num +$num""x +[0-9]+%\\*?"'
done

for bad in "--threads-list 1,0" "--threads-list two" "--parts train,nothing" "--steps" "--no-such-option"; do
  bash bench/threads.sh "$fcast" $bad > /dev/null 2>&1
  rc=$?
  check "threads.sh $bad exits 2 (got $rc)" '[ "$rc" -eq 2 ]'
done
check "--help prints the usage" 'bash bench/threads.sh --help | grep -q -- "--threads-list LIST"'
[ "$fails" -eq 0 ] || cat "$tmp/out" "$tmp/err" >&2
finish
