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
one, `nan` (GOOG with 3 leading NaNs and one inside) for what a NaN
does downstream, `unstable` for the functions whose unstable period
TA-Lib lets one set (talib.set_unstable_period(NAME, 25) on GOOG), and for
the patterns `planted`: a synthetic series
PLANTED of random bars with the rare patterns real prices never show in
these bars (BREAKAWAY, 3STARSINSOUTH, CONCEALBABYSWALL, ABANDONEDBABY,
KICKING, MATHOLD) set into it every 12 to 20 bars, exactly and jittered. The inputs each function reads are the ones talib.abstract
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

# The rare patterns, as (open, high, low, close) per candle, each set into
# random bars (planted_bars): they fire TA-Lib's pattern at the last candle.
TEMPLATES = {
    "CDLBREAKAWAY": [(110, 110.3, 99.8, 100), (98, 98.2, 96.5, 97), (97.5, 97.9, 95.5, 96), (96.5, 96.8, 94.5, 95),
                     (95.5, 99.3, 95.2, 99)],
    "CDL3STARSINSOUTH": [(110, 110.5, 89, 100), (104, 104.2, 95, 99), (98, 98.05, 97.45, 97.5)],
    "CDLCONCEALBABYSWALL": [(110, 110.05, 104.95, 105), (105, 105.05, 99.95, 100), (99, 101, 97.9, 98),
                            (101.5, 101.6, 97, 97)],
    "CDLABANDONEDBABY": [(110, 110.5, 99.5, 100), (99, 99.2, 98.8, 99.05), (100, 106, 99.9, 105.5)],
    "CDLKICKING": [(105, 105, 100, 100), (106, 111, 106, 111)],
    "CDLMATHOLD": [(100, 105.2, 99.8, 105), (106.5, 106.7, 105.8, 106.2), (105.0, 105.7, 104.5, 104.7),
                   (104.6, 104.8, 104.0, 104.3), (104.4, 110.5, 104.2, 110)],
}


def planted_bars(blocks=120, seed=37):
    """Random bars (a random walk, N(0, 1) bodies) with a template after each
    block of 12 to 20, as given, then jittered by 0.02 and by 0.1."""
    rng = np.random.default_rng(seed)
    cols = {c: [] for c in ("open", "high", "low", "close")}
    names = list(TEMPLATES)
    for b in range(blocks):
        n = int(rng.integers(12, 20))
        c = 100 + np.cumsum(rng.normal(0, 0.5, n))
        o = c + rng.normal(0, 1, n)
        h = np.maximum(o, c) + np.abs(rng.normal(0, 0.5, n))
        lo = np.minimum(o, c) - np.abs(rng.normal(0, 0.5, n))
        tp = np.array(TEMPLATES[names[b % len(names)]], float)
        tp = tp + rng.normal(0, 1, tp.shape) * [0, 0.02, 0.1][b // len(names) % 3]
        tp[:, 1] = np.maximum(tp[:, 1], np.maximum(tp[:, 0], tp[:, 3]))
        tp[:, 2] = np.minimum(tp[:, 2], np.minimum(tp[:, 0], tp[:, 3]))
        for k, part in (("open", (o, 0)), ("high", (h, 1)), ("low", (lo, 2)), ("close", (c, 3))):
            cols[k] += list(part[0]) + list(tp[:, part[1]])
    d = {k: np.array(v) for k, v in cols.items()}
    d["volume"] = np.full(len(d["close"]), 1000.0)
    return d


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
    d = planted_bars()
    t = np.arange(len(d["close"]))
    d["periods"] = (2 + (7 * t) % 29).astype(float)
    d["unit"] = (d["close"] - d["close"].min()) / (d["close"].max() - d["close"].min()) * 1.8 - 0.9
    series["PLANTED"] = d
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
    for uid in PATTERN_BARS:
        length = PATTERN_BARS[uid] if pattern else SHORT
        out.append(("default", uid, length, dict(params)))
    if pattern:
        out.append(("planted", "PLANTED", len(series["PLANTED"]["close"]), dict(params)))
    if params:
        out.append(("alt", "GOOG", SHORT, alt_params(fn, fn["ranges"])))
    matypes = [k for k in params if k.endswith("matype")]
    if matypes:
        for m in range(0, 14):
            out.append((f"matype{m}", "GOOG", SHORT, dict(params, **{k: m for k in matypes})))
    out.append(("nan", "GOOG", SHORT, dict(params)))
    if name in UNSTABLE_SETTABLE:
        out.append(("unstable", "GOOG", SHORT, dict(params)))
    return out


def with_nans(cols):
    cols = {k: v.copy() for k, v in cols.items()}
    for v in cols.values():
        v[:3] = np.nan
        v[150] = np.nan
    return cols


UNSTABLE_SETTABLE = set()
UNSTABLE_PERIOD = 25


def write_function(fn, series, out_dir):
    name = fn["name"]
    int_outputs = set()
    lines = []
    for case, uid, length, params in cases_for(fn, series):
        cols = inputs_for(name, series[uid], length)
        if case == "nan":
            cols = with_nans(cols)
        if case == "unstable":
            talib.set_unstable_period(name, UNSTABLE_PERIOD)
        try:
            outs, lookback = run(name, cols, params)
        finally:
            talib.set_unstable_period("ALL", 0)
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
    UNSTABLE_SETTABLE.update(inventory["unstable_period_settable"])
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
