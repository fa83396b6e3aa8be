"""fcast.quant's constrained portfolios (re-exported by fcast.quant):
long-only and box-constrained minimum variance and target return, the
efficient frontier, the maximum-Sharpe portfolio, risk parity and
Ledoit-Wolf shrinkage, on the C engine of `fcast quant portfolio`
(include/fcast/quant_portfolio.h, docs/quant-portfolio.md).

    from fcast import quant
    quant.bounded_min_variance_weights(returns_df, upper=0.4)      # long-only, at most 40% each
    quant.max_sharpe_weights(returns_df, risk_free=0.02 / 252)
    quant.efficient_frontier(returns_df, 20)                       # a DataFrame, a row per point
    quant.risk_parity_weights(returns_df, shrink="ledoit-wolf")

Every function takes a (periods, assets) matrix of simple returns (a
DataFrame labels the results by its columns) and computes the sample mean
and the covariance from it: shrink="sample" (ddof 1, as portfolio_moments)
or "ledoit-wolf" (scikit-learn's ledoit_wolf, ddof 0 and shrunk). Returns,
targets and the risk-free rate are per period (an annual R is R / 252).
Bounds: lower (finite) and upper (may be inf) are numbers for every asset,
arrays, or dicts / Series by column, assets left out taking 0 and inf;
the defaults are long-only (0, inf). Weights are fully invested (sum 1).
"""
import ctypes
from ctypes import POINTER, c_double, c_int, c_size_t

import numpy as np

from . import quant as _q
from ._lib import check, lib

__all__ = ["ledoit_wolf", "return_range", "bounded_min_variance_weights", "bounded_target_return_weights",
           "efficient_frontier", "max_sharpe_weights", "risk_parity_weights", "risk_contributions",
           "PortfolioReport"]

_D = POINTER(c_double)


class PortfolioReport(ctypes.Structure):
    """How a solve went (fcast_portfolio_report): active-set changes or
    Newton steps, the constraints active at the solution, and the largest
    KKT residual (risk parity: max |RC_i - b_i|)."""
    _fields_ = [("iterations", c_size_t), ("n_active", c_size_t), ("residual", c_double)]


_R = POINTER(PortfolioReport)
# The C signatures of include/fcast/quant_portfolio.h (declared here, the
# module that calls them).
_SIGNATURES = {
    "fcast_portfolio_ledoit_wolf": [_D, c_size_t, c_size_t, _D, _D],
    "fcast_portfolio_return_range": [_D, c_size_t, _D, _D, _D, _D],
    "fcast_portfolio_bounded_min_variance": [_D, _D, c_size_t, _D, _D, _D, _R],
    "fcast_portfolio_bounded_target_return": [_D, _D, c_size_t, _D, _D, c_double, _D, _R],
    "fcast_portfolio_frontier": [_D, _D, c_size_t, _D, _D, c_size_t, _D, _D, _R],
    "fcast_portfolio_max_sharpe": [_D, _D, c_size_t, _D, _D, c_double, _D, _R],
    "fcast_portfolio_risk_parity": [_D, c_size_t, _D, _D, _R],
    "fcast_portfolio_risk_contributions": [_D, c_size_t, _D, _D],
}
for _name, _args in _SIGNATURES.items():
    getattr(lib, _name).restype, getattr(lib, _name).argtypes = c_int, _args


def _moments(returns, shrink):
    """(R, columns, mean, cov) of a return matrix, cov by `shrink`."""
    R, columns = _q._matrix(returns)
    n = R.shape[1]
    mean, cov = np.empty(n), np.empty((n, n))
    _q._check_matrix(lib.fcast_portfolio_moments(_q._ptr(R), R.shape[0], n, _q._ptr(mean), _q._ptr(cov)), returns)
    if shrink == "ledoit-wolf":
        s = c_double()
        check(lib.fcast_portfolio_ledoit_wolf(_q._ptr(R), R.shape[0], n, _q._ptr(cov), ctypes.byref(s)))
    elif shrink != "sample":
        raise ValueError(f"fcast.quant: shrink={shrink!r}: expected 'sample' or 'ledoit-wolf'")
    return R, columns, mean, cov


def _per_asset(value, columns, n, default, name):
    """A bound or budget per asset: a number, a sequence of n, or a dict /
    Series by column (assets left out: default)."""
    if isinstance(value, dict) or (hasattr(value, "index") and hasattr(value, "to_dict")):
        if columns is None:
            raise ValueError(f"fcast.quant: {name} by name needs a DataFrame of returns")
        names = list(columns)
        out = np.full(n, float(default))
        for key, v in dict(value).items():
            if key not in names:
                raise ValueError(f"fcast.quant: {name}[{key!r}]: not a column of the returns")
            out[names.index(key)] = float(v)
        return out
    a = _q._float64(value, name)
    if a.ndim == 0 or a.size == 1:
        return np.full(n, float(a.reshape(-1)[0]))
    if a.shape != (n,):
        raise ValueError(f"fcast.quant: {name} must be a number or {n} values (one per asset), got shape {a.shape}")
    return np.ascontiguousarray(a)


def _bounds(lower, upper, columns, n):
    return _per_asset(lower, columns, n, 0.0, "lower"), _per_asset(upper, columns, n, np.inf, "upper")


def ledoit_wolf(returns):
    """(covariance, shrinkage): scikit-learn's sklearn.covariance.ledoit_wolf
    of the returns (centred; S = X'X / T, ddof 0; shrunk toward
    trace(S) / N times the identity). A DataFrame of returns gives a
    DataFrame labelled by its columns."""
    R, columns = _q._matrix(returns)
    n = R.shape[1]
    cov, s = np.empty((n, n)), c_double()
    _q._check_matrix(lib.fcast_portfolio_ledoit_wolf(_q._ptr(R), R.shape[0], n, _q._ptr(cov), ctypes.byref(s)),
                     returns)
    if columns is not None:
        import pandas as pd

        cov = pd.DataFrame(cov, index=columns, columns=columns)
    return cov, s.value


def return_range(returns, lower=0.0, upper=np.inf):
    """(lowest, highest) mean return per period of fully invested weights
    in the bounds: the targets bounded_target_return_weights can meet."""
    R, columns, mean, _ = _moments(returns, "sample")
    lo, hi = _bounds(lower, upper, columns, R.shape[1])
    a, b = c_double(), c_double()
    check(lib.fcast_portfolio_return_range(_q._ptr(mean), len(mean), _q._ptr(lo), _q._ptr(hi), ctypes.byref(a),
                                           ctypes.byref(b)))
    return a.value, b.value


def _solve(fn, returns, lower, upper, shrink, name, *args):
    R, columns, mean, cov = _moments(returns, shrink)
    lo, hi = _bounds(lower, upper, columns, R.shape[1])
    w = np.empty(R.shape[1])
    check(fn(_q._ptr(mean), _q._ptr(cov), R.shape[1], _q._ptr(lo), _q._ptr(hi), *args, _q._ptr(w), None))
    return _q._labelled(w, columns, name)


def bounded_min_variance_weights(returns, lower=0.0, upper=np.inf, shrink="sample"):
    """The fully invested portfolio of least variance with lower <= w <= upper
    (long-only by default), solved exactly (an active-set QP)."""
    return _solve(lib.fcast_portfolio_bounded_min_variance, returns, lower, upper, shrink, "min_variance")


def bounded_target_return_weights(returns, target, lower=0.0, upper=np.inf, shrink="sample"):
    """... earning the mean return `target` per period (within return_range,
    else a ValueError giving the range, a year)."""
    return _solve(lib.fcast_portfolio_bounded_target_return, returns, lower, upper, shrink, "target_return",
                  float(target))


def max_sharpe_weights(returns, risk_free=0.0, lower=0.0, upper=np.inf, shrink="sample"):
    """The maximum-Sharpe (tangency) portfolio within the bounds for a
    risk-free return per period; a ValueError when no weights in the bounds
    earn more than it."""
    return _solve(lib.fcast_portfolio_max_sharpe, returns, lower, upper, shrink, "max_sharpe", float(risk_free))


def efficient_frontier(returns, n_points=20, lower=0.0, upper=np.inf, shrink="sample"):
    """n_points (>= 2) efficient portfolios, their targets evenly spaced from
    the bounded minimum-variance portfolio's return to the highest reachable
    one. For a DataFrame of returns, a DataFrame with a row per point and
    columns target, mean, volatility (per period) and one per asset;
    otherwise (targets (n_points,), weights (n_points, assets))."""
    R, columns, mean, cov = _moments(returns, shrink)
    n = R.shape[1]
    lo, hi = _bounds(lower, upper, columns, n)
    targets, W = np.empty(int(n_points)), np.empty((int(n_points), n))
    check(lib.fcast_portfolio_frontier(_q._ptr(mean), _q._ptr(cov), n, _q._ptr(lo), _q._ptr(hi), int(n_points),
                                       _q._ptr(targets), _q._ptr(W), None))
    if columns is None:
        return targets, W
    import pandas as pd

    out = pd.DataFrame(W, columns=columns)
    out.insert(0, "volatility", np.sqrt(np.maximum(np.einsum("ki,ij,kj->k", W, cov, W), 0.0)))
    out.insert(0, "mean", W @ mean)
    out.insert(0, "target", targets)
    return out


def risk_parity_weights(returns, budgets=None, shrink="sample"):
    """Long-only risk budgeting: weights whose risk contributions
    w_i (S w)_i / w'Sw equal budgets / sum(budgets) (positive; a number,
    array or dict by column, others 1), equal by default, to 1e-12."""
    R, columns, mean, cov = _moments(returns, shrink)
    b = None if budgets is None else _per_asset(budgets, columns, R.shape[1], 1.0, "budgets")
    w = np.empty(R.shape[1])
    check(lib.fcast_portfolio_risk_parity(_q._ptr(cov), R.shape[1], _q._ptr(b), _q._ptr(w), None))
    return _q._labelled(w, columns, "risk_parity")


def risk_contributions(returns, weights, shrink="sample"):
    """The shares w_i (S w)_i / w'Sw of the portfolio's variance, summing to 1."""
    R, columns, mean, cov = _moments(returns, shrink)
    w = _per_asset(weights, columns, R.shape[1], 0.0, "weights")
    rc = np.empty(R.shape[1])
    check(lib.fcast_portfolio_risk_contributions(_q._ptr(cov), R.shape[1], _q._ptr(w), _q._ptr(rc)))
    return _q._labelled(rc, columns, "risk_contribution")

