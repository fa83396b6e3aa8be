#!/usr/bin/env python3
"""TA-Lib's side of bench/bench_indicators.c: the same indicator set on the
same data shape, timed with the ta-lib Python package (pip install ta-lib).

    python3 python/bench_talib.py [--data FILE] [--series 1000] [--points 10000] [--reps 5]

--data reads the float64 values bench_indicators wrote (series after series);
without it the data is generated here with the same LCG random walk as the C
program. Prints one line per indicator, "talib <spec> <seconds>", plus "set" (all five
per series), each the best of --reps runs of a loop over series that keeps
every output array (as a user of TA-Lib would); "talib-discarding" lines time
the same loops dropping each output at once, so that it stays in cache (the
most favourable case for TA-Lib).
"""
import argparse
import sys
import time

import numpy as np

try:
    import talib
except ImportError:
    sys.exit("bench_talib.py: the ta-lib package is missing (pip install ta-lib)")

SPECS = {
    "sma:20": lambda x: talib.SMA(x, 20),
    "ema:20": lambda x: talib.EMA(x, 20),
    "rsi:14": lambda x: talib.RSI(x, 14),
    "bbands:20:2": lambda x: talib.BBANDS(x, 20, 2.0, 2.0),
    "macd:12:26:9": lambda x: talib.MACD(x, 12, 26, 9),
}

MASK64 = (1 << 64) - 1


def generate(series, points):
    """y0 = 1000, y_t = y_{t-1} + (u_t - 0.5), u from the C program's LCG."""
    state = np.array([(42 ^ ((s + 1) * 0x9E3779B97F4A7C15)) & MASK64 for s in range(series)], dtype=np.uint64)
    steps = np.empty((series, points))
    a, c = np.uint64(6364136223846793005), np.uint64(1442695040888963407)
    with np.errstate(over="ignore"):
        for t in range(points):
            state = state * a + c
            steps[:, t] = (state >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0) - 0.5
    steps[:, 0] += 1000.0
    return np.cumsum(steps, axis=1)  # sequential adds, as the C loop


def best_of(reps, fn):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        kept = fn()
        best = min(best, time.perf_counter() - t0)
        del kept
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data")
    ap.add_argument("--series", type=int, default=1000)
    ap.add_argument("--points", type=int, default=10000)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    if args.data:
        x = np.fromfile(args.data, dtype=np.float64).reshape(args.series, args.points)
    else:
        x = generate(args.series, args.points)
    rows = [np.ascontiguousarray(r) for r in x]

    def kept(fns):
        return [[f(r) for f in fns] for r in rows]

    def discarded(fns):
        for r in rows:
            for f in fns:
                f(r)
    for name, fn in SPECS.items():
        print(f"talib {name} {best_of(args.reps, lambda: kept([fn])):.6f}", flush=True)
        print(f"talib-discarding {name} {best_of(args.reps, lambda: discarded([fn])):.6f}", flush=True)
    fns = list(SPECS.values())
    print(f"talib set {best_of(args.reps, lambda: kept(fns)):.6f}", flush=True)
    print(f"talib-discarding set {best_of(args.reps, lambda: discarded(fns)):.6f}", flush=True)
    print(f"talib version {talib.__version__} (C library {talib.__ta_version__.decode()})", flush=True)


if __name__ == "__main__":
    main()
