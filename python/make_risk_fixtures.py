#!/usr/bin/env python3
"""Reference values for tests/test_risk.c and tests/test_portfolio.c.

Reads data/eu_stock_markets.csv (DAX, SMI, CAC, FTSE daily closes), aligns the
series on ds (inner join), takes simple returns, and writes:

  tests/fixtures/quant_risk_eu_stock.csv       series,metric,value
  tests/fixtures/quant_portfolio_eu_stock.csv  portfolio,asset,value

Risk measures come from empyrical (pip install empyrical-reloaded); VaR/CVaR
follow QuantLib's percentile without interpolation (its loop is transcribed
below); parametric VaR/ES use scipy.stats.norm; portfolio weights use numpy
with the Merton closed form w = S^-1 [1 mu] c (a different route from the
engine's KKT solve). Values are written with %.17g.

    pip install empyrical-reloaded numpy pandas scipy
    python3 python/make_risk_fixtures.py

Runs from any directory: the data and the fixtures are found from this
script's location, and nothing but the two fixtures is written.
"""
import csv
import math
import os

import empyrical
import numpy as np
import pandas as pd
from scipy.stats import norm

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "data", "eu_stock_markets.csv")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")

LEVELS = [0.5, 0.9, 0.95, 0.99]
TARGET_RETURN = 0.0008  # per period (about 20% a year)


def returns_panel(path):
    df = pd.read_csv(path)
    wide = df.pivot(index="ds", columns="unique_id", values="y").dropna()  # inner join on ds
    wide = wide[sorted(wide.columns)]  # the engine sorts series by unique_id
    return wide.pct_change().iloc[1:]


def quantlib_percentile(x, percent):
    """GeneralStatistics::percentile with unit weights (no interpolation)."""
    s = sorted(x)
    k, integral, target = 0, 1.0, percent * len(s)
    while integral < target and k != len(s) - 1:
        k += 1
        integral += 1.0
    return s[k], s[: k + 1]


def risk_rows(name, r):
    r = np.asarray(r, dtype=float)
    rows = [
        ("annual_return", empyrical.annual_return(r)),
        ("annual_volatility", empyrical.annual_volatility(r)),
        ("sharpe", empyrical.sharpe_ratio(r)),
        ("sortino", empyrical.sortino_ratio(r)),
        ("max_drawdown", empyrical.max_drawdown(r)),
    ]
    mu, sd = r.mean(), r.std(ddof=1)
    for a in LEVELS:
        q, tail = quantlib_percentile(r, 1.0 - a)
        rows.append((f"hist_var_{a}", -q))
        rows.append((f"hist_cvar_{a}", -np.mean(tail)))
        z = norm.ppf(a)
        rows.append((f"normal_var_{a}", -(mu + sd * norm.ppf(1.0 - a))))
        rows.append((f"normal_es_{a}", sd * norm.pdf(z) / (1.0 - a) - mu))
    return [(name, m, float(v)) for m, v in rows]


def portfolio_rows(R):
    X = R.to_numpy()
    mu = X.mean(axis=0)
    S = np.cov(X, rowvar=False, ddof=1)
    Si = np.linalg.inv(S)
    ones = np.ones(len(mu))
    w_min = Si @ ones / (ones @ Si @ ones)
    a, b, c = ones @ Si @ ones, ones @ Si @ mu, mu @ Si @ mu
    d = a * c - b * b
    lam = (c - b * TARGET_RETURN) / d
    gam = (a * TARGET_RETURN - b) / d
    w_tgt = lam * (Si @ ones) + gam * (Si @ mu)
    rows = [("target", "_target_return", TARGET_RETURN)]
    rows += [("min_variance", n, w) for n, w in zip(R.columns, w_min)]
    rows += [("target", n, w) for n, w in zip(R.columns, w_tgt)]
    return rows


def write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for a, b, v in rows:
            w.writerow([a, b, "%.17g" % v])


def main():
    R = returns_panel(DATA)
    rows = []
    for name in R.columns:
        rows += risk_rows(name, R[name])
    write(os.path.join(FIXTURES, "quant_risk_eu_stock.csv"), ["series", "metric", "value"], rows)
    write(os.path.join(FIXTURES, "quant_portfolio_eu_stock.csv"), ["portfolio", "asset", "value"],
          portfolio_rows(R))
    print(f"{len(R)} returns x {len(R.columns)} series; fixtures written")


if __name__ == "__main__":
    main()
