#!/usr/bin/env bash
# Members side by side against one at a time (issue 36): the same
# `fcast ensemble` run twice in one sitting, --parallel 1 (each member
# with every thread, the sequential baseline) and the default (members
# side by side: a thread each on the CPU, 8 streams on a GPU), on two
# panels: M4 Weekly (359 series, h=13; ../shared/data or $M4_WEEKLY) and a
# synthetic panel of M4 Hourly's shape (414 series x 900 points, h=48,
# daily and weekly cycles with noise, made here). Prints, per panel,
# members/s of each, the ratio, the windows/s of each against the device's
# peak for the members' architecture (one N-HiTS training of the first
# member's shape at 8192 windows a step), and checks that both runs wrote
# the same file. Figures, not pass or fail; say which CPU or GPU ran.
#
#   bench/ensemble.sh [build/fcast] [steps] [seeds]     (run from the repository)
#   DEVICE=cuda bench/ensemble.sh ...                  (on a GPU)
#
# The members: nhits,nbeats x input 2..7 horizons x smape,mase,mape x seeds
# (N-BEATS's M4 recipe; 5 seeds: 180 members). Defaults keep a CPU run to
# minutes: 20 steps, 1 seed (36 members a panel). MULTIPLES, LOSSES and
# PEAK_STEPS (10) make it smaller (scripts/gpu-check.sh --cpu); WEEKLY=0
# skips M4 Weekly. Exit status 1 when the two runs wrote different files.
set -euo pipefail
fcast=${1:-build/fcast}
steps=${2:-20}
seeds=${3:-1}
device=${DEVICE:-auto}
root="$(cd "$(dirname "$0")/.." && pwd)"
weekly=${M4_WEEKLY:-../shared/data/m4_weekly_train.csv}
multiples=${MULTIPLES:-2,3,4,5,6,7}
losses=${LOSSES:-smape,mase,mape}
peak_steps=${PEAK_STEPS:-10}
same=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

seed_list=$(seq -s, 1 "$seeds")
echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; device $device"

# The synthetic hourly panel: 414 series of 900 points, deterministic.
awk 'BEGIN { srand(7); print "unique_id,ds,y";
             for (s = 0; s < 414; s++) { level = 50 + 10 * (s % 17); phase = s * 0.37
               for (t = 0; t < 900; t++) {
                 y = level + 8 * sin(2 * 3.14159265 * t / 24 + phase) + 3 * sin(2 * 3.14159265 * t / 168) + 2 * (rand() - 0.5)
                 printf "H%d,%d,%.3f\n", s + 1, t + 1, y } } }' > "$tmp/hourly.csv"

# windows/s of a `fcast train` run's last line ("... (12345 windows/s, fp32)")
train_rate() { sed -n 's/.*(\([0-9.]*\) windows\/s.*/\1/p' | tail -1; }

# bench_panel NAME DATA H: both runs, then the figures.
bench_panel() {
    local name=$1 data=$2 h=$3
    local flags=(--data "$data" --h "$h" --model nhits,nbeats --input-size-multiples "$multiples"
                 --losses "$losses" --seeds "$seed_list" --max-steps "$steps" --scaler robust
                 --device "$device" --quiet)
    local n_mult n_loss
    n_mult=$(tr ',' '\n' <<<"$multiples" | wc -l)
    n_loss=$(tr ',' '\n' <<<"$losses" | wc -l)
    local members=$((2 * n_mult * n_loss * seeds))
    local t0 t1 t2
    t0=$(date +%s.%N)
    "$fcast" ensemble "${flags[@]}" --parallel 1 --out "$tmp/one.safetensors" 2> /dev/null
    t1=$(date +%s.%N)
    "$fcast" ensemble "${flags[@]}" --out "$tmp/side.safetensors" 2> /dev/null
    t2=$(date +%s.%N)
    local peak
    peak=$("$fcast" train --data "$data" --model nhits --h "$h" --input-size $((2 * h)) --max-steps "$peak_steps" \
               --windows-batch-size 8192 --device "$device" --out "$tmp/peak.safetensors" 2>&1 | train_rate)
    python3 - "$name" "$members" "$steps" "$t0" "$t1" "$t2" "$peak" <<'EOF'
import sys
name, members, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t0, t1, t2, peak = (float(x) for x in sys.argv[4:8])
one, side = t1 - t0, t2 - t1
windows = members * steps * 1024   # every member: steps x 1024 windows
print(f"{name}: {members} members x {steps} steps")
print(f"  one at a time:  {members / one:8.3f} members/s  {windows / one:10.0f} windows/s "
      f"({100 * windows / one / peak:5.1f}% of the peak)")
print(f"  side by side:   {members / side:8.3f} members/s  {windows / side:10.0f} windows/s "
      f"({100 * windows / side / peak:5.1f}% of the peak)")
print(f"  ratio: {one / side:.2f}x the members per second; peak {peak:.0f} windows/s "
      f"(one N-HiTS training at 8192 windows a step)")
EOF
    # Bit for bit where training does not depend on the thread count
    # (AVX-512, GPUs); on AVX2-only CPUs oneDNN splits its sums by thread,
    # so one member with every thread and one with fewer differ in the last
    # bits: within float32 rounding there, and said so.
    if cmp -s "$tmp/one.safetensors" "$tmp/side.safetensors"; then echo "  same file: yes"
    elif ! grep -qw avx512f /proc/cpuinfo &&
        python3 "$root/scripts/close-weights.py" "$tmp/one.safetensors" "$tmp/side.safetensors" 1e-5 2> /dev/null; then
        echo "  same file: no, the same weights within 1e-5 (an AVX2 CPU: oneDNN's sums depend on the thread count)"
    else echo "  same file: NO (the runs differ)"; same=0; fi
}

if [ "${WEEKLY:-1}" = 0 ]; then :
elif [ -r "$weekly" ]; then bench_panel "M4 Weekly (359 series, h=13)" "$weekly" 13
else echo "M4 Weekly: $weekly not found (set M4_WEEKLY)"; fi
bench_panel "synthetic M4-Hourly shape (414 x 900, h=48)" "$tmp/hourly.csv" 48
[ $same = 1 ]
