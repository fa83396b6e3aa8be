#!/usr/bin/env python3
"""Reference fixtures for fcast's indicators, computed with the real TA-Lib.

    pip install ta-lib numpy        # wheels bundle the TA-Lib C library
    python3 python/make_quant_fixtures.py [--out DIR] [--prices FILE]

Runs from any directory: the defaults (--out tests/fixtures/quant, --prices
data/eu_stock_markets.csv) are found from this script's location, relative
paths given are taken from the directory it was started in, and nothing but
the fixtures is written (no training, no logs, no temporary files).

Writes, from data/eu_stock_markets.csv (DAX, SMI, CAC, FTSE; 1860 closes each):
  indicators_eu.csv       every indicator at TA-Lib's default parameters, all
                          four series, full length
  indicators_params.csv   non-default parameters (and period-1, swapped MACD
                          periods, asymmetric bands), DAX, first 1200 points
  indicators_nan.csv      NaNs inserted (interior, consecutive, leading) to pin
                          what a NaN does downstream ("poison" semantics)
  indicators_flat.csv     a synthetic series with constant stretches (zero
                          variance, no gains or losses)
  indicators_lookback.csv TA-Lib's lookback (talib.abstract) and resolved
                          parameters for each spec
Value columns are named as fcast names its output columns ("bbands_20_2_upper");
values are Python's repr of the double (shortest exact round trip, like
%.17g); an empty cell is NaN. The z-score, which TA-Lib lacks, is computed from
TA-Lib's SMA and STDDEV: (x - SMA) / STDDEV, NaN where STDDEV is 0.
The TA-Lib Python wrapper skips leading NaNs (a series starts at its first
value); the fixtures record TA-Lib's raw output, including its RSI of 0 after a
NaN, which fcast deliberately reports as NaN (see docs/quant-indicators.md).
"""
import argparse
import csv
import os
import sys

import numpy as np

try:
    import talib
    from talib import abstract
except ImportError:
    sys.exit("make_quant_fixtures.py: the ta-lib package is missing (pip install ta-lib)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DEFAULT_SPECS = ["sma", "ema", "wma", "rsi", "mom", "roc", "stddev", "bbands", "macd", "zscore"]
PARAM_SPECS = ["sma:5", "sma:20", "sma:1", "ema:10", "ema:20", "ema:1", "wma:10", "wma:1", "rsi:7",
               "rsi:2", "mom:3", "roc:5", "stddev:10:2", "stddev:20", "bbands:10:1.5", "bbands:20:2",
               "bbands:20:2:1", "macd:5:13:4", "macd:12:26:9", "macd:26:12:9", "zscore:5", "zscore:20"]
NAN_SPECS = DEFAULT_SPECS + ["rsi:7", "sma:20", "bbands:20:2", "stddev:20"]
LOOKBACK_SPECS = DEFAULT_SPECS + PARAM_SPECS + ["sma:100000", "macd:2:3:1", "macd:10:10:1", "bbands:2"]

# name -> (TA-Lib function, parameter names in spec order)
TALIB_NAMES = {
    "sma": ("SMA", ["timeperiod"]),
    "ema": ("EMA", ["timeperiod"]),
    "wma": ("WMA", ["timeperiod"]),
    "rsi": ("RSI", ["timeperiod"]),
    "mom": ("MOM", ["timeperiod"]),
    "roc": ("ROC", ["timeperiod"]),
    "stddev": ("STDDEV", ["timeperiod", "nbdev"]),
    "bbands": ("BBANDS", ["timeperiod", "nbdevup", "nbdevdn"]),
    "macd": ("MACD", ["fastperiod", "slowperiod", "signalperiod"]),
    "zscore": ("STDDEV", ["timeperiod"]),  # same window and range as STDDEV
}
OUTPUT_NAMES = {"bbands": ["upper", "middle", "lower"], "macd": ["macd", "signal", "hist"]}
ZSCORE_DEFAULT = 20  # fcast's choice: TA-Lib has no z-score; BBANDS' default window


def talib_params(spec):
    """Resolved TA-Lib parameters of a spec, as fcast resolves them."""
    name, *given = spec.split(":")
    func, names = TALIB_NAMES[name]
    params = dict(abstract.Function(func).parameters)
    params.pop("matype", None)
    if name == "zscore":
        params = {"timeperiod": ZSCORE_DEFAULT}
    for key, text in zip(names, given):
        params[key] = float(text) if "nbdev" in key else int(text)
    if name == "bbands" and len(given) == 2:
        params["nbdevdn"] = params["nbdevup"]  # "bbands:20:2": both bands at 2 deviations
    return name, params


def compute(spec, x):
    """List of output arrays of `spec` on x (float64 with NaNs)."""
    name, p = talib_params(spec)
    if name == "zscore":
        sma = talib.SMA(x, p["timeperiod"])
        sd = talib.STDDEV(x, p["timeperiod"], 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(sd > 0, (x - sma) / sd, np.nan)
        return [z]
    func = getattr(talib, TALIB_NAMES[name][0])
    if name == "bbands":
        out = func(x, p["timeperiod"], p["nbdevup"], p["nbdevdn"], 0)
    elif name == "macd":
        out = func(x, p["fastperiod"], p["slowperiod"], p["signalperiod"])
    elif name == "stddev":
        out = func(x, p["timeperiod"], p["nbdev"])
    else:
        out = func(x, p["timeperiod"])
    return list(out) if isinstance(out, (tuple, list)) else [out]


def column_names(spec):
    label = spec.lower().replace(":", "_")
    suffixes = OUTPUT_NAMES.get(spec.split(":")[0])
    return [f"{label}_{s}" for s in suffixes] if suffixes else [label]


def cell(v):
    return "" if np.isnan(v) else repr(float(v))


def load_prices(path):
    series = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            series.setdefault(row["unique_id"], []).append((int(row["ds"]), float(row["y"])))
    return {k: (np.array([d for d, _ in v]), np.array([y for _, y in v])) for k, v in series.items()}


def write_wide(path, series, specs, note):
    """unique_id,ds,y,<one column per output of each spec>."""
    header = ["unique_id", "ds", "y"] + [c for s in specs for c in column_names(s)]
    with open(path, "w", newline="") as f:
        f.write(f"# {note}; generated by python/make_quant_fixtures.py with ta-lib {talib.__version__} "
                f"(C library {talib.__ta_version__.decode().split()[0]})\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for uid, (ds, y) in series.items():
            cols = [o for s in specs for o in compute(s, y)]
            for i in range(len(y)):
                w.writerow([uid, int(ds[i]), cell(y[i])] + [cell(c[i]) for c in cols])
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def head(prices, uid, n):
    ds, y = prices[uid]
    return {uid: (ds[:n], y[:n])}


def with_nans(prices):
    """Interior, consecutive and leading NaNs on the first 700 points: long
    enough to see WMA and STDDEV recover at TA-Lib's periodic re-anchoring."""
    out = {}
    for uid, holes in (("DAX", [300]), ("SMI", list(range(10)) + [400, 401]), ("CAC", [450])):
        ds, y = prices[uid]
        y = y[:700].copy()
        y[holes] = np.nan
        out[uid] = (ds[:700], y)
    return out


def flat_series():
    """Constant stretches between random-walk stretches (fixed seed)."""
    rng = np.random.default_rng(7)
    parts = [np.full(60, 50.0), 50.0 + np.cumsum(rng.standard_normal(80)), np.full(60, 42.5),
             42.5 + np.cumsum(rng.standard_normal(40))]
    y = np.round(np.concatenate(parts), 2)
    return {"FLAT": (np.arange(1, len(y) + 1), y)}


def write_lookbacks(path):
    with open(path, "w", newline="") as f:
        f.write(f"# TA-Lib lookbacks (talib.abstract) with ta-lib {talib.__version__}\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["spec", "lookback", "p1", "p2", "p3"])
        for spec in LOOKBACK_SPECS:
            name, params = talib_params(spec)
            func = abstract.Function(TALIB_NAMES[name][0])
            func.parameters = {k: v for k, v in params.items() if k in func.parameters}
            values = [repr(v) if isinstance(v, float) else str(v) for v in params.values()]
            w.writerow([spec, func.lookback] + values + [""] * (3 - len(values)))
    print(f"wrote {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "fixtures", "quant"))
    ap.add_argument("--prices", default=os.path.join(ROOT, "data", "eu_stock_markets.csv"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    prices = load_prices(args.prices)
    write_wide(os.path.join(args.out, "indicators_eu.csv"), prices, DEFAULT_SPECS,
               "TA-Lib default parameters on eu_stock_markets")
    write_wide(os.path.join(args.out, "indicators_params.csv"), head(prices, "DAX", 1200), PARAM_SPECS,
               "non-default parameters on the DAX (first 1200 points)")
    write_wide(os.path.join(args.out, "indicators_nan.csv"), with_nans(prices), NAN_SPECS,
               "NaNs inserted: DAX@300, SMI@0-9,400,401, CAC@450 (first 700 points)")
    write_wide(os.path.join(args.out, "indicators_flat.csv"), flat_series(), DEFAULT_SPECS + ["zscore:5"],
               "synthetic series with constant stretches")
    write_lookbacks(os.path.join(args.out, "indicators_lookback.csv"))


if __name__ == "__main__":
    main()
