#!/usr/bin/env python3
"""A 500-asset long-only efficient frontier of 20 points: fcast's active-set
solver (bench/bench_portfolio.c) against cvxpy on the same problems, side by
side in one run; prints both times, their ratio and the largest difference
of the weights.

The returns: 1000 days of a 5-factor model of 500 assets (numpy
default_rng(500)), mean and sample covariance (ddof 1) per day. cvxpy
solves the frontier's targets as fcast computed them (read back from
bench_portfolio's output), each the minimum of w'Sw subject to sum w = 1,
w >= 0, mu'w = target, one Parameter-ised problem compiled once (the
first solve's compilation counted), with CLARABEL at its default
tolerances and at 1e-10; fcast's seconds are the best of 3 runs.

    cmake --build build --target bench_portfolio
    python3 bench/portfolio_cvxpy.py [build/bench_portfolio] [N] [POINTS]
"""
import os
import subprocess
import sys
import tempfile
import time

import cvxpy as cp
import numpy as np


def returns(n, t=1000):
    rng = np.random.default_rng(500)
    B = np.column_stack([rng.uniform(0.5, 1.5, n), rng.normal(0, 0.5, (n, 4))])
    f = rng.normal(0, 1, (t, 5)) * np.array([0.01, 0.006, 0.005, 0.004, 0.003])
    e = rng.normal(0, 1, (t, n)) * rng.uniform(0.006, 0.02, n)
    return rng.uniform(-0.0002, 0.0008, n) + f @ B.T + e


def cvxpy_frontier(mu, S, targets, **settings):
    w, target = cp.Variable(len(mu)), cp.Parameter()
    scale = np.abs(S).max()
    problem = cp.Problem(cp.Minimize(cp.quad_form(w, cp.psd_wrap(S / scale))),
                         [cp.sum(w) == 1, w >= 0, mu @ w == target])
    W = np.empty((len(targets), len(mu)))
    t0 = time.perf_counter()
    for k, value in enumerate(targets):
        target.value = value
        problem.solve(solver=cp.CLARABEL, **settings)
        W[k] = w.value
    return time.perf_counter() - t0, W


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "build/bench_portfolio"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    points = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    R = returns(n)
    t = R.shape[0]
    with tempfile.TemporaryDirectory() as tmp:
        path, out = os.path.join(tmp, "returns.f64"), os.path.join(tmp, "frontier.f64")
        np.ascontiguousarray(R).tofile(path)
        line = subprocess.run([binary, path, str(t), str(n), str(points), "3", out], check=True, capture_output=True,
                              text=True).stdout.strip()
        raw = np.fromfile(out)
    targets, W_fcast = raw[:points], raw[points:].reshape(points, n)
    fcast_seconds = float(line.split("seconds=")[1].split()[0])
    print(line)
    mu, S = R.mean(0), np.cov(R, rowvar=False, ddof=1)
    # the last target is the highest reachable return, a single point: cvxpy gets the first points - 1
    for label, settings in (("default", {}), ("1e-10", dict(tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10))):
        seconds, W = cvxpy_frontier(mu, S, targets[:-1], **settings)
        seconds *= points / (points - 1)   # per point as many as fcast solved
        diff = np.abs(W - W_fcast[:-1]).max()
        var_f = np.einsum("ki,ij,kj->k", W_fcast[:-1], S, W_fcast[:-1])
        var_c = np.einsum("ki,ij,kj->k", W, S, W)
        print(f"engine=cvxpy-clarabel tolerances={label} seconds={seconds:.4f} ratio_cvxpy_over_fcast="
              f"{seconds / fcast_seconds:.1f} max_weight_diff={diff:.2e} "
              f"max_rel_variance_excess_of_cvxpy={np.max((var_c - var_f) / var_f):.2e}")


if __name__ == "__main__":
    main()
