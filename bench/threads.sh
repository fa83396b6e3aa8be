#!/usr/bin/env bash
# Thread scaling, phase by phase; figures, not pass or fail.
#
#   bench/threads.sh [FCAST] [STEPS] [options]        (run from the repository)
#
# FCAST is the fcast binary (build/fcast), STEPS the timed training steps per
# run (40; also --steps). By default, for each thread count of the list:
#
#  - training: `fcast bench train --json` (N-HiTS h 48, input 96, fp32 and
#    bf16); a table per precision of milliseconds per step for each phase
#    (sample, gather, scale, forward, loss, backward, optimizer, the rest of
#    the step as "other", the whole step and windows/s; validation and
#    checkpoint_io, once per run, last), the speed-up from the first count
#    and the parallel efficiency, speed-up / (threads / first threads); '*'
#    marks an efficiency below 70%, '-' a phase under 0.1 ms at the first
#    count (too short to time). At the largest count, the time each phase
#    loses to imperfect scaling (its time minus its ideal, the first count's
#    time x first / N) and its share of the step's loss, the biggest named;
#  - predict on a large panel: `fcast bench fit --json` on a synthetic long
#    CSV (--predict-series series of --predict-length points, random walks
#    with a season, written here), N-HiTS h 12, input 24, one training step:
#    the forecast of every series' last 12 points, seconds and series/s
#    (and the file read's seconds);
#  - the indicator set: build/bench_indicators --threads LIST --no-talib
#    (sma, ema, rsi, bbands, macd and the set of five), million points/s.
#
# Options:
#   --threads-list LIST   thread counts, comma separated; the first is the
#                         base of the ratios (1,2,4,8,... up to and with nproc;
#                         2,16 for the efficiency from 2 threads to 16)
#   --steps N, --warmup N timed and untimed training steps per run (40, 3)
#   --windows-batch-size N  windows per training step (1024)
#   --precisions LIST     training precisions (fp32,bf16)
#   --reps R              runs per thread count, interleaved, the fastest kept (1)
#   --parts LIST          of train,predict,indicators (all three; '' with
#                         --neighbours for the neighbours alone)
#   --predict-series N, --predict-length N   the panel (20000 series, 120 points)
#   --indicator-series N, --indicator-points N, --indicator-reps N
#                         bench_indicators' sizes (1000, 5000, 3)
#   --bench-indicators PATH  (bench_indicators next to FCAST)
#   --neighbours          then also (STEPS steps, 1 thread and every core):
#                         every core beside a busy neighbour (a
#                         spinning process per core) and two trainings at
#                         once, each under fcast's default GOMP_SPINCOUNT=3000,
#                         OMP_WAIT_POLICY=passive and =active (slow)
#
# bench_indicators runs with GOMP_SPINCOUNT=3000, as fcast sets it for
# itself, unless GOMP_SPINCOUNT or OMP_WAIT_POLICY is set. Everything goes
# to a temporary directory, removed on exit.
set -euo pipefail
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
fcast=build/fcast steps=40 warmup=3 wbs=1024 precisions=fp32,bf16 reps=1 list=
parts=train,predict,indicators neighbours=0
predict_series=20000 predict_length=120
ind_series=1000 ind_points=5000 ind_reps=3 bench_ind=
positional=()
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --neighbours) neighbours=1; shift; continue ;;
    --*) [ $# -ge 2 ] || { echo "threads.sh: $1 needs a value (--help)" >&2; exit 2; } ;;
  esac
  case $1 in
    --threads-list) list=$2 ;;
    --steps) steps=$2 ;;
    --warmup) warmup=$2 ;;
    --windows-batch-size) wbs=$2 ;;
    --precisions) precisions=$2 ;;
    --reps) reps=$2 ;;
    --parts) parts=$2 ;;
    --predict-series) predict_series=$2 ;;
    --predict-length) predict_length=$2 ;;
    --indicator-series) ind_series=$2 ;;
    --indicator-points) ind_points=$2 ;;
    --indicator-reps) ind_reps=$2 ;;
    --bench-indicators) bench_ind=$2 ;;
    --*) echo "threads.sh: unknown option $1 (--help)" >&2; exit 2 ;;
    *) positional+=("$1"); shift; continue ;;
  esac
  shift 2
done
[ ${#positional[@]} -le 2 ] || { echo "threads.sh: at most two arguments, FCAST and STEPS (--help)" >&2; exit 2; }
[ ${#positional[@]} -ge 1 ] && fcast=${positional[0]}
[ ${#positional[@]} -ge 2 ] && steps=${positional[1]}
cores=$(nproc)
if [ -z "$list" ]; then
  list=1
  for ((t = 2; t < cores; t *= 2)); do list+=",$t"; done
  [ "$cores" -gt 1 ] && list+=",$cores"
fi
[[ $list =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { echo "threads.sh: --threads-list '$list': expected counts like 1,2,16" >&2; exit 2; }
for n in "$steps" "$warmup" "$wbs" "$reps" "$predict_series" "$predict_length" "$ind_series" "$ind_points" "$ind_reps"; do
  [[ $n =~ ^[0-9]+$ ]] || { echo "threads.sh: '$n': expected a whole number" >&2; exit 2; }
done
[ -x "$fcast" ] || { echo "threads.sh: $fcast is not an executable (build first, or name it)" >&2; exit 2; }
[ -n "$bench_ind" ] || bench_ind=$(dirname "$fcast")/bench_indicators
has_part() { [[ ,$parts, == *,$1,* ]]; }
for p in ${parts//,/ }; do
  case $p in train|predict|indicators) ;; *) echo "threads.sh: --parts: '$p' is not train, predict or indicators" >&2; exit 2 ;; esac
done
counts=${list//,/ }
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT

# The tables: python3 (standard library) reads what the runs wrote.
cat > "$tmp/table.py" <<'EOF'
import json, sys

EFF_MARK = 0.70     # efficiencies below this are marked
NEGLIGIBLE_MS = 0.1  # a phase under this many ms at the first count: no ratios (timer noise)

def cell(v):
    return "-" if v is None else ("%.0f" % v if v >= 1000 else "%.2f" % v if v < 100 else "%.1f" % v)

def ratios(values, counts, kind, negligible=False):
    """Per count after the first: (speed-up, efficiency), None where undefined."""
    out = []
    for v, n in zip(values[1:], counts[1:]):
        v0 = values[0]
        if negligible or v is None or v0 is None or v <= 0 or v0 <= 0:
            out.append((None, None))
            continue
        x = v0 / v if kind == "time" else v / v0
        out.append((x, x / (n / counts[0])))
    return out

def header(first, counts, unit, lost):
    col = lambda n: ("%dT %s" % (n, unit)).strip()
    h = "%-15s %9s" % (first, col(counts[0]))
    for n in counts[1:]:
        h += " %9s %6s %5s" % (col(n), "x", "eff")
    if lost:
        h += " %9s %6s" % ("lost@%dT" % max(counts), "share")
    return h

def row(name, values, counts, kind, negligible=False, lost=None):
    s = "%-15s %9s" % (name, cell(values[0]))
    for v, (x, e) in zip(values[1:], ratios(values, counts, kind, negligible)):
        s += " %9s %6s %5s" % (cell(v), "-" if x is None else "%.2fx" % x,
                                "-" if e is None else "%.0f%%%s" % (100 * e, "*" if round(100 * e) < 100 * EFF_MARK else ""))
    if lost is not None:
        s += " %9.2f %5.0f%%" % lost if lost[1] is not None else " %9.2f %6s" % (lost[0], "-")
    return s

def best(runs, key):
    return max(runs, key=key)

def train(path):
    by = {}
    for line in open(path):
        n, text = line.split(" ", 1)
        for r in json.loads(text)["runs"]:
            by.setdefault(r["precision"], {}).setdefault(int(n), []).append(r)
    wbs = int(sys.argv[3])
    for prec, per in by.items():
        counts = [c for c in map(int, sys.argv[4].split(",")) if c in per]
        runs = [best(per[c], lambda r: r["windows_per_second"]) for c in counts]
        names = list(runs[0]["phase_seconds_per_step"])
        once = [p for p in ("validation", "checkpoint_io") if p in names]
        step_phases = [p for p in names if p not in once]
        ms = {p: [1e3 * r["phase_seconds_per_step"][p] for r in runs] for p in names}
        step = [1e3 * wbs / r["windows_per_second"] for r in runs]
        ms["other"] = [s - sum(ms[p][i] for p in step_phases) for i, s in enumerate(step)]
        ms["whole step"] = step
        top = counts.index(max(counts))
        ideal = lambda v: v[0] * counts[0] / counts[top]
        lost_step = step[top] - ideal(step)
        print("training %s (%s; %d windows/step): ms per step at each thread count, x = speed-up from %d "
              "thread%s, eff = x / threads ratio (* below %.0f%%)" % (prec, runs[0]["kernel"], wbs, counts[0],
              "" if counts[0] == 1 else "s", 100 * EFF_MARK))
        print(header("phase", counts, "ms", len(counts) > 1))
        lost = {}
        for p in step_phases + ["other", "whole step"]:
            l = ms[p][top] - ideal(ms[p])
            lost[p] = l
            share = 100 * l / lost_step if lost_step > 0 else None
            small = p != "whole step" and abs(ms[p][0]) < NEGLIGIBLE_MS
            print(row(p, ms[p], counts, "time", small, (l, share) if len(counts) > 1 else None))
        print(row("windows/s", [r["windows_per_second"] for r in runs], counts, "rate"))
        for p in once:
            print(row(p, ms[p], counts, "time", ms[p][0] < NEGLIGIBLE_MS) + "   (once per run, over the steps)")
        if len(counts) > 1:
            n = counts[top]
            if lost_step > 0:
                order = sorted((p for p in step_phases + ["other"]), key=lambda p: -lost[p])
                rest = ", ".join("%s %.0f%%" % (p, 100 * lost[p] / lost_step) for p in order[1:4] if 100 * lost[p] / lost_step >= 0.5)
                print("%s at %d threads: %.2f ms of the %.2f ms step lost to imperfect scaling (ideal %.2f ms); "
                      "biggest share: %s %.0f%%%s" % (prec, n, lost_step, step[top], ideal(step), order[0],
                      100 * lost[order[0]] / lost_step, " (then %s)" % rest if rest else ""))
            else:
                print("%s at %d threads: no time lost to imperfect scaling" % (prec, n))
        print()

def predict(path):
    per = {}
    for line in open(path):
        n, text = line.split(" ", 1)
        j = json.loads(text)
        per.setdefault(int(n), []).append((j, j["runs"][0]))
    counts = [c for c in map(int, sys.argv[3].split(",")) if c in per]
    runs = [best(per[c], lambda x: -x[1]["predict_seconds"]) for c in counts]
    j = runs[0][0]
    print("predict: fcast bench fit, %s h %d input %d on %d series (%d points), the last h points of each "
          "forecast (%s)" % (j["model"], j["h"], j["input_size"], j["n_series"], j["n_points"],
          runs[0][1]["precision"]))
    print(header("", counts, "", False))
    sec = [r["predict_seconds"] for _, r in runs]
    print(row("predict s", sec, counts, "time"))
    print(row("series/s", [j["n_series"] / s for s in sec], counts, "rate"))
    print(row("read s", [r["load_seconds"] for _, r in runs], counts, "time") + "   (the CSV read)")
    print()

def indicators(path):
    table, counts = {}, None
    for line in open(path):
        f = line.split()
        if f[:1] == ["indicator"]:
            counts = [int(h[:-1]) for h in f[1:] if h.endswith("T")]
            continue
        if counts is None or len(f) < len(counts) + 1:
            continue
        try:
            vals = [float(v) for v in f[-len(counts):]]
        except ValueError:
            continue
        table[" ".join(f[:-len(counts)])] = vals
    title = open(path).readline().strip()
    print("indicator set (bench_indicators: %s)" % title.split(": ", 1)[-1])
    print(header("indicator", counts, "Mp/s", False))
    for name, vals in table.items():
        print(row(name, vals, counts, "rate"))
    print()

{"train": train, "predict": predict, "indicators": indicators}[sys.argv[1]](sys.argv[2])
EOF

if has_part train; then
  echo "fcast bench train: $steps steps (after $warmup), $precisions, threads $list, $cores cores here" >&2
  for ((r = 0; r < reps; r++)); do
    for n in $counts; do
      line=$("$fcast" bench train --steps "$steps" --warmup "$warmup" --windows-batch-size "$wbs" --threads "$n" \
               --precisions "$precisions" --json 2>"$tmp/err" | tail -n 1) || { cat "$tmp/err" >&2; exit 1; }
      echo "$n $line" >> "$tmp/train"
    done
  done
  python3 "$tmp/table.py" train "$tmp/train" "$wbs" "$list"
fi

if has_part predict; then
  echo "predict: writing a panel of $predict_series series x $predict_length points" >&2
  python3 - "$predict_series" "$predict_length" > "$tmp/panel.csv" <<'EOF'
import math, random, sys
series, length = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(1)
out = ["unique_id,ds,y\n"]
for s in range(series):
    v, amp = 100 + 50 * rng.random(), 10 * rng.random()
    for t in range(length):
        v += rng.gauss(0, 1)
        out.append("s%d,%d,%.3f\n" % (s, t + 1, v + amp * math.sin(2 * math.pi * t / 12)))
    if len(out) > 100000:
        sys.stdout.write("".join(out))
        out = []
sys.stdout.write("".join(out))
EOF
  for ((r = 0; r < reps; r++)); do
    for n in $counts; do
      line=$("$fcast" bench fit --data "$tmp/panel.csv" --max-steps 1 --precisions fp32 --threads "$n" --quiet \
               --json 2>"$tmp/err" | tail -n 1) || { cat "$tmp/err" >&2; exit 1; }
      echo "$n $line" >> "$tmp/predict"
    done
  done
  python3 "$tmp/table.py" predict "$tmp/predict" "$list"
fi

if has_part indicators; then
  if [ -x "$bench_ind" ]; then
    spin=(); [ -n "${GOMP_SPINCOUNT+x}${OMP_WAIT_POLICY+x}" ] || spin=(GOMP_SPINCOUNT=3000)
    env "${spin[@]}" "$bench_ind" --no-talib --series "$ind_series" --points "$ind_points" --reps "$ind_reps" \
      --threads "$list" > "$tmp/ind"
    python3 "$tmp/table.py" indicators "$tmp/ind"
  else
    echo "indicator set: $bench_ind not found (build it, or --bench-indicators PATH)"
  fi
fi

[ "$neighbours" = 1 ] || exit 0

# ---- neighbours: every core alone, beside a busy neighbour, two trainings at once ----
# windows/s of one precision from `fcast bench train --json`
wps() { python3 -c 'import json,sys; r=json.loads(sys.stdin.readlines()[-1]); print(" ".join("%.0f" % x["windows_per_second"] for x in r["runs"]))'; }
train() { "$fcast" bench train --steps "$steps" --warmup 3 --threads "$1" --precisions fp32,bf16 --json 2>/dev/null | wps; }

echo "neighbours: fcast bench train, $steps steps, fp32 and bf16 windows/s, $cores cores"
one=$(train 1)
all=$(train "$cores")
echo "1 thread:            $one"
echo "$cores threads:           $all"
python3 -c "a='$one'.split(); b='$all'.split(); print('scaling 1 -> $cores threads: fp32 %.2fx, bf16 %.2fx' % (float(b[0])/float(a[0]), float(b[1])/float(a[1])))"

for setting in "default (GOMP_SPINCOUNT=3000)|" "OMP_WAIT_POLICY=passive|OMP_WAIT_POLICY=passive" "OMP_WAIT_POLICY=active|OMP_WAIT_POLICY=active"; do
  name=${setting%%|*}; env=${setting#*|}
  # with a busy neighbour: one spinning process per core
  for _ in $(seq "$cores"); do yes > /dev/null & done
  busy=$(env $env bash -c "$(declare -f train wps); fcast=$fcast steps=$steps train $cores")
  kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true
  # two trainings at once
  env $env bash -c "$(declare -f train wps); fcast=$fcast steps=$steps train $cores" > "$tmp/other" &
  pair=$(env $env bash -c "$(declare -f train wps); fcast=$fcast steps=$steps train $cores")
  wait
  other=$(cat "$tmp/other")
  python3 - "$name" "$all" "$busy" "$pair" "$other" <<'EOF'
import sys
name, alone, busy, pair, other = sys.argv[1], *[list(map(float, s.split())) for s in sys.argv[2:]]
print(f"{name}: busy neighbour fp32 {busy[0]:.0f} ({busy[0]/alone[0]:.2f}x), bf16 {busy[1]:.0f} ({busy[1]/alone[1]:.2f}x); "
      f"two trainings, each fp32 {pair[0]:.0f} / {other[0]:.0f} ({pair[0]/alone[0]:.2f}x / {other[0]/alone[0]:.2f}x)")
EOF
done
