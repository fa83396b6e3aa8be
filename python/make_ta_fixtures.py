#!/usr/bin/env python3
"""Reference outputs of every TA-Lib function, made by the TA-Lib package
(issue 37), for fcast's indicator set to be checked against:

    pip install TA-Lib==0.8.2       # its wheel bundles the TA-Lib C library 0.8.1
    python3 python/make_ta_fixtures.py [--out DIR]

Reads real prices from data/goog_daily_ohlcv.csv (GOOG, daily, 2004-2013)
and data/eurusd_hourly_ohlcv.csv (EUR/USD, hourly, 2017-2018); see
data/README.md for where they come from. Writes, under tests/fixtures/talib:

  input.csv        the bars the cases run on: series, t, open, high, low,
                   close, volume, plus two derived columns: `periods` (a
                   varying period for MAVP, 2 + (7 t mod 29)) and `unit`
                   (the close rescaled into [-0.9, 0.9] over each series,
                   for ACOS, ASIN, EXP, COSH, ... which are NaN or inf on
                   prices)
  out/NAME.csv     one line per case and output: case, series, length,
                   parameters (name=value, space separated), output name,
                   then one value per bar (Python's repr of the double;
                   "nan" where TA-Lib leaves the bar out, including the
                   lookback of an integer output, where TA-Lib writes 0)

Cases: `default` on both series (300 bars; the candlestick patterns on
every bar, where their signals are rarer), `alt` with other parameters on
GOOG, `matypeK` for every moving-average type K of a function that takes
one, and `nan` (GOOG with 3 leading NaNs and one inside) for what a NaN
does downstream. The inputs each function reads are the ones talib.abstract
names for it (`price` is the close; `price0`, `price1` are high and low).
Nothing else is written.
"""
import argparse
import csv
import json
import os

import numpy as np
import talib
from talib import abstract

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
SERIES = [("GOOG", "data/goog_daily_ohlcv.csv"), ("EURUSD", "data/eurusd_hourly_ohlcv.csv")]
SHORT = 300          # bars of a case, except the patterns'
PATTERN_BARS = {"GOOG": 2148, "EURUSD": 2500}
COLUMNS = ["open", "high", "low", "close", "volume"]


def read_series():
    series = {}
    for uid, path in SERIES:
        with open(os.path.join(ROOT, path)) as f:
            rows = list(csv.DictReader(f))
        n = PATTERN_BARS[uid]
        d = {c: np.array([float(r[c]) for r in rows[:n]]) for c in COLUMNS}
        t = np.arange(n)
        d["periods"] = (2 + (7 * t) % 29).astype(float)
        lo, hi = d["close"].min(), d["close"].max()
        d["unit"] = (d["close"] - lo) / (hi - lo) * 1.8 - 0.9
        series[uid] = d
    return series


def write_input(series, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["series", "t"] + COLUMNS + ["periods", "unit"])
        for uid, d in series.items():
            for t in range(len(d["close"])):
                w.writerow([uid, t] + [repr(float(d[c][t])) for c in COLUMNS + ["periods", "unit"]])


UNIT_INPUT = {"ACOS", "ASIN", "ATAN", "COS", "COSH", "EXP", "SIN", "SINH", "TAN", "TANH"}


def inputs_for(name, d, length):
    """talib.abstract's inputs for the function: a dict of the columns it reads."""
    f = abstract.Function(name)
    cols = {}
    for key, value in f.info["input_names"].items():
        for col in ([value] if isinstance(value, str) else value):
            src = "unit" if (name in UNIT_INPUT and col == "close") else col
            cols[col] = np.ascontiguousarray(d[src][:length])
    return cols


def alt_params(info, ranges):
    alt = {}
    for k, v in info["parameters"].items():
        r = ranges[k]
        if k.endswith("matype"):
            alt[k] = 1
        elif r["type"] == "integer":
            lo = r["min"] if r["min"] is not None else 1
            a = max(lo, (2 * v) // 3)
            alt[k] = a if a != v else v + 3
        else:
            a = v * 1.5 if v != 0 else 0.1
            hi = r["max"] if r["max"] is not None else a
            alt[k] = min(a, hi)
    return alt


def run(name, cols, params):
    f = abstract.Function(name)
    f.set_parameters(params)
    outs = f(cols)
    if not isinstance(outs, list):
        outs = [outs]
    return outs, f.lookback


def fmt(values, is_int, lookback):
    cells = []
    for i, v in enumerate(values):
        if is_int:
            cells.append("nan" if i < lookback else repr(int(v)))
        else:
            cells.append("nan" if np.isnan(v) else repr(float(v)))
    return cells


def cases_for(fn, series):
    name = fn["name"]
    params = fn["parameters"]
    pattern = fn["group"] == "Pattern Recognition"
    out = []
    for uid in series:
        length = PATTERN_BARS[uid] if pattern else SHORT
        out.append(("default", uid, length, dict(params)))
    if params:
        out.append(("alt", "GOOG", SHORT, alt_params(fn, fn["ranges"])))
    matypes = [k for k in params if k.endswith("matype")]
    if matypes:
        for m in range(0, 14):
            out.append((f"matype{m}", "GOOG", SHORT, dict(params, **{k: m for k in matypes})))
    out.append(("nan", "GOOG", SHORT, dict(params)))
    return out


def with_nans(cols):
    cols = {k: v.copy() for k, v in cols.items()}
    for v in cols.values():
        v[:3] = np.nan
        v[150] = np.nan
    return cols


def write_function(fn, series, out_dir):
    name = fn["name"]
    int_outputs = set()
    lines = []
    for case, uid, length, params in cases_for(fn, series):
        cols = inputs_for(name, series[uid], length)
        if case == "nan":
            cols = with_nans(cols)
        outs, lookback = run(name, cols, params)
        ptext = " ".join(f"{k}={v!r}" for k, v in params.items())
        first = 3 if case == "nan" else 0
        for oname, values in zip(fn["outputs"], outs):
            is_int = np.asarray(values).dtype.kind in "iu"
            if is_int:
                int_outputs.add(oname)
                cells = ["nan"] * first + fmt(values[first:], True, lookback)
            else:
                cells = fmt(values, False, lookback)
            lines.append([case, uid, str(length), ptext, oname] + cells)
    with open(os.path.join(out_dir, f"{name}.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerows(lines)
    return sorted(int_outputs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "fixtures", "talib"))
    out = os.path.abspath(ap.parse_args().out)
    with open(os.path.join(out, "functions.json")) as f:
        inventory = json.load(f)
    series = read_series()
    os.makedirs(os.path.join(out, "out"), exist_ok=True)
    write_input(series, os.path.join(out, "input.csv"))
    int_outputs = {}
    for fn in inventory["functions"]:
        ints = write_function(fn, series, os.path.join(out, "out"))
        if ints:
            int_outputs[fn["name"]] = ints
    with open(os.path.join(out, "integer_outputs.json"), "w") as f:
        json.dump(int_outputs, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(inventory['functions'])} functions written to {out}/out (TA-Lib {talib.__version__})")


if __name__ == "__main__":
    main()
