#!/usr/bin/env python3
"""TA-Lib's side of bench/bench_ta.c: every TA-Lib function at its
defaults on the bars bench_ta wrote, timed with the ta-lib Python package
(pip install TA-Lib).

    python3 python/bench_talib_all.py --data FILE --series 1000 --points 10000 [--reps 3] [--only ATR,ADX]

--data holds six float64 columns (open, high, low, close, volume, periods),
each series after series. Prints "talib NAME seconds" per function: the
best of --reps runs of a loop over the series that keeps every output, as
a user of TA-Lib does.
"""
import argparse
import sys
import time

import numpy as np

try:
    import talib
    from talib import abstract
except ImportError:
    sys.exit("bench_talib_all.py: the ta-lib package is missing (pip install TA-Lib)")

COLS = ["open", "high", "low", "close", "volume", "periods"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--series", type=int, required=True)
    ap.add_argument("--points", type=int, required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    raw = np.fromfile(a.data, dtype=np.float64).reshape(len(COLS), a.series, a.points)
    data = {c: raw[i] for i, c in enumerate(COLS)}
    only = {n.upper() for n in a.only.split(",") if n}
    for name in sorted(talib.get_functions()):
        if only and name not in only:
            continue
        f = abstract.Function(name)
        cols = []
        for value in f.info["input_names"].values():
            cols.extend([value] if isinstance(value, str) else value)
        fn = getattr(talib, name)
        rows = [[np.ascontiguousarray(data[c][s]) for c in cols] for s in range(a.series)]
        best = float("inf")
        for _ in range(a.reps):
            t0 = time.perf_counter()
            kept = [fn(*r) for r in rows]
            best = min(best, time.perf_counter() - t0)
            del kept
        print(f"talib {name} {best:.6f}", flush=True)


if __name__ == "__main__":
    main()
