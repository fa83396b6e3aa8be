#!/usr/bin/env python3
"""Reference values for the constrained portfolios of fcast quant portfolio
(tests/test_portfolio_qp.c, test_risk_parity.c, test_ledoit_wolf.c,
tests/python/test_quant_portfolio.py, tests/cli_quant_portfolio.sh).

Two return panels:
  eu   data/eu_stock_markets.csv (DAX, SMI, CAC, FTSE daily closes), aligned
       on ds and turned into simple returns as fcast does (p_t / p_{t-1} - 1);
  syn  tests/fixtures/quant/portfolio_synthetic_returns.csv, written here: 20
       assets x 300 daily returns of a 3-factor model (numpy default_rng(38);
       see synthetic_returns), %.10g, read back so that both sides use the
       same numbers. (The repository has no larger real panel: GOOG's dates do
       not overlap the index file's day numbers.)

mu is the sample mean, cov the sample covariance (ddof 1), both per period.
The independent solvers:
  constrained minimum variance, target return, frontier: cvxpy 1.9 with
      CLARABEL at tolerances 1e-13 (the covariance scaled by 1/max|cov|);
  maximum Sharpe: cvxpy/CLARABEL on the homogenised problem (min y'Sy,
      (mu - rf)'y = 1, lo 1'y <= y <= hi 1'y), and as a second route
      scipy.optimize.minimize(SLSQP) of -Sharpe over the box (rows ":scipy");
  risk parity: scipy.optimize.least_squares (method lm, tolerances 1e-15)
      on w_i (Sw)_i - b_i w'Sw = 0, sum w = 1 (not Spinu's programme);
  Ledoit-Wolf: sklearn.covariance.ledoit_wolf(R) (assume_centered=False).

Writes tests/fixtures/quant/portfolio_reference.csv (case,key,value; key an
asset id, or _target / _variance / _shrinkage / _rf / cov_ID1_ID2) and the
synthetic panel. Run with python3 (or any python with
cvxpy, clarabel, scipy, scikit-learn, pandas); from any directory.
"""
import csv
import os

import cvxpy as cp
import numpy as np
import pandas as pd
from scipy.optimize import least_squares, minimize
from sklearn.covariance import ledoit_wolf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "quant")
SYN = os.path.join(OUT, "portfolio_synthetic_returns.csv")
CLARABEL = dict(solver=cp.CLARABEL, tol_gap_abs=1e-13, tol_gap_rel=1e-13, tol_feas=1e-13, tol_ktratio=1e-10,
                max_iter=500)


def eu_returns():
    d = pd.read_csv(os.path.join(ROOT, "data", "eu_stock_markets.csv"))
    p = d.pivot(index="ds", columns="unique_id", values="y").dropna()
    p = p[sorted(p.columns, key=list(d["unique_id"].drop_duplicates()).index)]   # file order, as fcast
    return (p.values[1:] / p.values[:-1] - 1.0), list(p.columns)


def synthetic_returns():
    """20 assets, 300 days: r = a + B f + e, f ~ N(0, diag(0.010, 0.006,
    0.004)^2), B: market loadings U(0.5, 1.5) and two N(0, 0.5) styles,
    e ~ N(0, s_i^2), s_i ~ U(0.006, 0.02), a ~ U(-0.0002, 0.0008)."""
    rng = np.random.default_rng(38)
    n, t = 20, 300
    B = np.column_stack([rng.uniform(0.5, 1.5, n), rng.normal(0, 0.5, n), rng.normal(0, 0.5, n)])
    f = rng.normal(0, 1, (t, 3)) * np.array([0.010, 0.006, 0.004])
    e = rng.normal(0, 1, (t, n)) * rng.uniform(0.006, 0.02, n)
    R = rng.uniform(-0.0002, 0.0008, n) + f @ B.T + e
    ids = [f"S{i:02d}" for i in range(n)]
    with open(SYN, "w", newline="") as fh:
        fh.write("unique_id,ds,y\n")
        for j, name in enumerate(ids):
            for k in range(t):
                fh.write(f"{name},{k + 1},{R[k, j]:.10g}\n")
    back = pd.read_csv(SYN).pivot(index="ds", columns="unique_id", values="y")[ids]
    return back.values, ids


def scaled(S):
    return S / np.abs(S).max()


def min_variance(S, mu, lo, hi, target=None):
    w = cp.Variable(len(mu))
    cons = [cp.sum(w) == 1, w >= lo]
    cons += [w <= hi] if np.all(np.isfinite(hi)) else []
    if target is not None:
        cons.append(mu @ w == target)
    cp.Problem(cp.Minimize(cp.quad_form(w, cp.psd_wrap(scaled(S)))), cons).solve(**CLARABEL)
    return np.asarray(w.value)


def return_range(mu, lo, hi):
    """The greedy LP of fcast's fc_box_return_range (checked by cvxpy below)."""
    def fill(order):
        w = lo.copy()
        mass = 1.0 - lo.sum()
        for i in order:
            add = min(hi[i] - lo[i], mass)
            w[i] += add
            mass -= add
        return w @ mu
    return fill(np.argsort(mu)), fill(np.argsort(-mu))


def lp_highest(mu, lo, hi):
    w = cp.Variable(len(mu))
    cons = [cp.sum(w) == 1, w >= lo] + ([w <= hi] if np.all(np.isfinite(hi)) else [])
    return cp.Problem(cp.Maximize(mu @ w), cons).solve(solver=cp.HIGHS)


def max_sharpe_cvxpy(S, mu, lo, hi, rf):
    y = cp.Variable(len(mu))
    k = cp.sum(y)
    cons = [(mu - rf) @ y == 1, y >= lo * k, k >= 0]
    cons += [y <= hi * k] if np.all(np.isfinite(hi)) else []
    cp.Problem(cp.Minimize(cp.quad_form(y, cp.psd_wrap(S / np.abs(S).max()))), cons).solve(**CLARABEL)
    return np.asarray(y.value) / np.sum(y.value)


def max_sharpe_scipy(S, mu, lo, hi, rf, w0):
    def neg(w):
        return -(w @ mu - rf) / np.sqrt(w @ S @ w)
    bounds = [(lo[i], hi[i] if np.isfinite(hi[i]) else None) for i in range(len(mu))]
    r = minimize(neg, w0, method="SLSQP", bounds=bounds, constraints=[{"type": "eq", "fun": lambda w: w.sum() - 1}],
                 options={"ftol": 1e-15, "maxiter": 1000})
    return r.x


def risk_parity(S, b):
    b = b / b.sum()
    def F(w):
        v = w @ S @ w
        return np.append(w * (S @ w) / v - b, w.sum() - 1.0)
    r = least_squares(F, b / np.sqrt(np.diag(S)) / np.sum(b / np.sqrt(np.diag(S))), method="lm", xtol=1e-15,
                      ftol=1e-15, gtol=1e-15, max_nfev=10000)
    return r.x


def main():
    os.makedirs(OUT, exist_ok=True)
    rows = []

    def put(case, w, ids, **extra):
        for k, v in extra.items():
            rows.append((case, "_" + k, v))
        for name, v in zip(ids, w):
            rows.append((case, name, v))

    for panel, (R, ids) in (("eu", eu_returns()), ("syn", synthetic_returns())):
        n = len(ids)
        mu, S = R.mean(0), np.cov(R, rowvar=False, ddof=1)
        zero, inf = np.zeros(n), np.full(n, np.inf)
        boxes = {"long": (zero, inf), "box": (np.full(n, 0.02), np.full(n, 0.4)) if panel == "eu"
                 else (zero, np.full(n, 0.1)), "short": (np.full(n, -0.2), np.full(n, 0.5))}
        if panel == "eu":   # --bounds DAX=0:0.5,SMI=0.1:0.6,CAC=0:0.3,FTSE=0.2:1
            boxes["bounds"] = (np.array([0.0, 0.1, 0.0, 0.2]), np.array([0.5, 0.6, 0.3, 1.0]))
        for name, (lo, hi) in boxes.items():
            w = min_variance(S, mu, lo, hi)
            put(f"{panel}:{name}:minvar", w, ids, variance=w @ S @ w)
            low, high = return_range(mu, lo, hi)
            assert abs(high - lp_highest(mu, lo, hi)) < 1e-12 * abs(high), (panel, name)
            put(f"{panel}:{name}:range", [], ids, lowest=low, highest=high)
            target = 0.5 * (w @ mu + high)
            wt = min_variance(S, mu, lo, hi, target)
            put(f"{panel}:{name}:target", wt, ids, target=target, variance=wt @ S @ wt)
            for rf_annual in (0.0, 0.02):
                rf = rf_annual / 252
                if high <= rf:
                    continue
                ws = max_sharpe_cvxpy(S, mu, lo, hi, rf)
                put(f"{panel}:{name}:maxsharpe:{rf_annual:g}", ws, ids, rf=rf,
                    sharpe=(ws @ mu - rf) / np.sqrt(ws @ S @ ws))
                wq = max_sharpe_scipy(S, mu, lo, hi, rf, ws)
                put(f"{panel}:{name}:maxsharpe:{rf_annual:g}:scipy", wq, ids, rf=rf,
                    sharpe=(wq @ mu - rf) / np.sqrt(wq @ S @ wq))
        lo, hi = boxes["long"]
        w0 = min_variance(S, mu, lo, hi)
        high = return_range(mu, lo, hi)[1]
        for k, target in enumerate(np.linspace(w0 @ mu, high, 5)[:-1]):   # the last point: the greedy corner
            wk = w0 if k == 0 else min_variance(S, mu, lo, hi, target)
            put(f"{panel}:long:frontier:{k}", wk, ids, target=target, variance=wk @ S @ wk)
        put(f"{panel}:riskparity", risk_parity(S, np.ones(n)), ids)
        budgets = np.linspace(1.0, 2.0, n)
        put(f"{panel}:riskparity:budgets", risk_parity(S, budgets), ids)
        rows.extend((f"{panel}:riskparity:budgets", f"_budget_{name}", b) for name, b in zip(ids, budgets))
        L, shrinkage = ledoit_wolf(R)
        rows.append((f"{panel}:lw", "_shrinkage", shrinkage))
        rows.extend((f"{panel}:lw", f"cov_{ids[i]}_{ids[j]}", L[i, j]) for i in range(n) for j in range(n))
        w = min_variance(L, mu, zero, inf)
        put(f"{panel}:lw:long:minvar", w, ids, variance=w @ L @ w)
        ws = max_sharpe_cvxpy(L, mu, zero, inf, 0.0)
        put(f"{panel}:lw:long:maxsharpe:0", ws, ids, rf=0.0)
        put(f"{panel}:lw:riskparity", risk_parity(L, np.ones(n)), ids)

    with open(os.path.join(OUT, "portfolio_reference.csv"), "w", newline="") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(["case", "key", "value"])
        for case, key, v in rows:
            out.writerow([case, key, f"{float(v):.17g}"])
    print(f"{len(rows)} rows")


if __name__ == "__main__":
    main()
