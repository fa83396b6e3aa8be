#!/usr/bin/env python3
"""Adds calendar columns to a long CSV whose ds is a date or a datetime, for
`fcast train --futr-exog` (they are known in the future) and to write the
future file `fcast predict --futr-data` reads:

    scripts/calendar-features.py IN.csv OUT.csv [--future H --freq MINUTES]

Columns added (Fourier terms, as utilsforecast's time features):
  day_sin, day_cos     time of day, period 24 h
  week_sin, week_cos   time of week, period 7 days (Monday 00:00 = 0)
  weekend              1 on Saturday and Sunday, else 0

With --future H the output instead holds, for every series, the H points
after its last ds (FREQ minutes apart; no y): the --futr-data file. Only the
Python standard library is used, so it runs wherever fcast's tests do."""

import argparse
import csv
import math
import sys
from datetime import datetime, timedelta

COLUMNS = ["day_sin", "day_cos", "week_sin", "week_cos", "weekend"]


def parse_ds(text):
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d"):
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            pass
    raise SystemExit(f"calendar-features: ds '{text}' is not a date or datetime (YYYY-MM-DD[ HH:MM[:SS]])")


def features(t):
    day = (t.hour * 3600 + t.minute * 60 + t.second) / 86400.0
    week = (t.weekday() + day) / 7.0
    return [f"{math.sin(2 * math.pi * day):.6g}", f"{math.cos(2 * math.pi * day):.6g}",
            f"{math.sin(2 * math.pi * week):.6g}", f"{math.cos(2 * math.pi * week):.6g}",
            "1" if t.weekday() >= 5 else "0"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inp")
    ap.add_argument("out")
    ap.add_argument("--future", type=int, default=0, help="write the next H points of every series instead")
    ap.add_argument("--freq", type=float, default=30.0, help="minutes between points (with --future)")
    args = ap.parse_args()
    with open(args.inp, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "unique_id" not in rows[0] or "ds" not in rows[0]:
        raise SystemExit(f"calendar-features: {args.inp} needs unique_id and ds columns")
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        if args.future:
            last = {}
            for r in rows:
                t = parse_ds(r["ds"])
                last[r["unique_id"]] = max(t, last.get(r["unique_id"], t))
            w.writerow(["unique_id", "ds"] + COLUMNS)
            for uid, t in last.items():
                for k in range(1, args.future + 1):
                    s = t + timedelta(minutes=args.freq * k)
                    w.writerow([uid, s.strftime("%Y-%m-%d %H:%M:%S")] + features(s))
        else:
            names = list(rows[0].keys())
            w.writerow(names + COLUMNS)
            for r in rows:
                w.writerow([r[n] for n in names] + features(parse_ds(r["ds"])))


if __name__ == "__main__":
    sys.exit(main())
