"""fcast.quant's constrained portfolios against independent solvers: cvxpy
with CLARABEL (long-only, box, per-asset bounds, target return, frontier,
maximum Sharpe), scipy's least squares (risk parity) and scikit-learn's
ledoit_wolf, from tests/fixtures/quant/portfolio_reference.csv
(python/make_portfolio_fixtures.py) on the bundled index returns and the
synthetic 20-asset panel; pandas labels kept; bounds by column; errors
naming the argument and the reachable range."""
import os

import pytest

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

import fcast  # noqa: E402
from fcast import quant  # noqa: E402

from conftest import FIXTURES, MONTHLY  # noqa: E402

PRICES = os.path.join(os.path.dirname(MONTHLY), "eu_stock_markets.csv")
QP_ATOL = 1e-9          # cvxpy/CLARABEL at tolerances 1e-13: 2e-11 from fcast measured
RP_ATOL = 1e-12         # scipy's least squares on the contributions (1e-16 measured)


def eu_returns():
    wide = pd.read_csv(PRICES).pivot(index="ds", columns="unique_id", values="y").dropna()
    return wide[sorted(wide.columns)].pct_change().iloc[1:]


def syn_returns():
    long = pd.read_csv(os.path.join(FIXTURES, "quant", "portfolio_synthetic_returns.csv"), float_precision="round_trip")
    return long.pivot(index="ds", columns="unique_id", values="y")


@pytest.fixture(scope="module")
def ref():
    t = pd.read_csv(os.path.join(FIXTURES, "quant", "portfolio_reference.csv"), float_precision="round_trip")
    return {(c, k): v for c, k, v in t.itertuples(index=False)}


def weights(ref, case, columns):
    return pd.Series([ref[(case, c)] for c in columns], index=columns)


BOXES = {"long": (0.0, np.inf), "short": (-0.2, 0.5)}


@pytest.mark.parametrize("panel", ["eu", "syn"])
@pytest.mark.parametrize("box", ["long", "short", "box"])
def test_min_variance_target_and_max_sharpe_against_cvxpy(ref, panel, box):
    R = eu_returns() if panel == "eu" else syn_returns()
    lo, hi = BOXES.get(box, (0.02, 0.4) if panel == "eu" else (0.0, 0.1))
    w = quant.bounded_min_variance_weights(R, lower=lo, upper=hi)
    assert isinstance(w, pd.Series) and list(w.index) == list(R.columns)
    np.testing.assert_allclose(w, weights(ref, f"{panel}:{box}:minvar", R.columns), atol=QP_ATOL, rtol=0)
    assert w.sum() == pytest.approx(1.0, abs=1e-14) and (w >= lo - 1e-15).all() and (w <= hi + 1e-15).all()
    target = ref[(f"{panel}:{box}:target", "_target")]
    wt = quant.bounded_target_return_weights(R, target, lower=lo, upper=hi)
    np.testing.assert_allclose(wt, weights(ref, f"{panel}:{box}:target", R.columns), atol=QP_ATOL, rtol=0)
    mean, cov = quant.portfolio_moments(R)
    assert float(wt @ mean) == pytest.approx(target, rel=1e-13)
    assert float(wt @ cov @ wt) == pytest.approx(ref[(f"{panel}:{box}:target", "_variance")], rel=1e-9)
    ws = quant.max_sharpe_weights(R, risk_free=0.02 / 252, lower=lo, upper=hi)
    np.testing.assert_allclose(ws, weights(ref, f"{panel}:{box}:maxsharpe:0.02", R.columns), atol=QP_ATOL, rtol=0)
    sharpe = (ws @ mean - 0.02 / 252) / np.sqrt(ws @ cov @ ws)
    assert sharpe >= ref[(f"{panel}:{box}:maxsharpe:0.02:scipy", "_sharpe")] * (1 - 1e-13)   # SLSQP's, at least
    assert (lo, hi) != (0.0, np.inf) or not np.allclose(w, ws)   # control: different objectives


def test_bounds_by_column(ref):
    R = eu_returns()
    lower, upper = {"SMI": 0.1, "FTSE": 0.2}, {"DAX": 0.5, "SMI": 0.6, "CAC": 0.3, "FTSE": 1.0}
    w = quant.bounded_min_variance_weights(R, lower=lower, upper=upper)
    np.testing.assert_allclose(w, weights(ref, "eu:bounds:minvar", R.columns), atol=QP_ATOL, rtol=0)
    ws = quant.max_sharpe_weights(R, lower=pd.Series(lower), upper=upper)
    np.testing.assert_allclose(ws, weights(ref, "eu:bounds:maxsharpe:0", R.columns), atol=QP_ATOL, rtol=0)
    lo, hi = quant.return_range(R, lower=lower, upper=upper)
    assert lo == pytest.approx(ref[("eu:bounds:range", "_lowest")], rel=1e-14)
    assert hi == pytest.approx(ref[("eu:bounds:range", "_highest")], rel=1e-14)


@pytest.mark.parametrize("panel", ["eu", "syn"])
def test_frontier(ref, panel):
    R = eu_returns() if panel == "eu" else syn_returns()
    f = quant.efficient_frontier(R, 5)
    assert list(f.columns[:3]) == ["target", "mean", "volatility"] and len(f) == 5
    for k in range(4):
        case = f"{panel}:long:frontier:{k}"
        assert f["target"][k] == pytest.approx(ref[(case, "_target")], rel=1e-9)
        np.testing.assert_allclose(f.loc[k, R.columns].astype(float), weights(ref, case, R.columns),
                                   atol=QP_ATOL, rtol=0)
    np.testing.assert_allclose(f["mean"], f["target"], rtol=1e-12)
    assert f["target"].iloc[-1] == pytest.approx(quant.return_range(R)[1], rel=1e-15)
    assert f["volatility"].is_monotonic_increasing
    targets, W = quant.efficient_frontier(R.to_numpy(), 5)   # arrays in, arrays out
    np.testing.assert_array_equal(W, f[R.columns].to_numpy())


@pytest.mark.parametrize("panel", ["eu", "syn"])
def test_risk_parity_against_scipy(ref, panel):
    R = eu_returns() if panel == "eu" else syn_returns()
    w = quant.risk_parity_weights(R)
    np.testing.assert_allclose(w, weights(ref, f"{panel}:riskparity", R.columns), atol=RP_ATOL, rtol=0)
    np.testing.assert_allclose(quant.risk_contributions(R, w), 1.0 / R.shape[1], atol=1e-12, rtol=0)
    budgets = {c: ref[(f"{panel}:riskparity:budgets", f"_budget_{c}")] for c in R.columns}
    wb = quant.risk_parity_weights(R, budgets=budgets)
    np.testing.assert_allclose(wb, weights(ref, f"{panel}:riskparity:budgets", R.columns), atol=RP_ATOL, rtol=0)
    b = pd.Series(budgets)[R.columns]
    np.testing.assert_allclose(quant.risk_contributions(R, wb), b / b.sum(), atol=1e-12, rtol=0)
    wl = quant.risk_parity_weights(R, shrink="ledoit-wolf")
    np.testing.assert_allclose(wl, weights(ref, f"{panel}:lw:riskparity", R.columns), atol=RP_ATOL, rtol=0)


@pytest.mark.parametrize("panel", ["eu", "syn"])
def test_ledoit_wolf_against_sklearn(ref, panel):
    R = eu_returns() if panel == "eu" else syn_returns()
    cov, s = quant.ledoit_wolf(R)
    assert s == pytest.approx(ref[(f"{panel}:lw", "_shrinkage")], rel=1e-12)
    want = np.array([[ref[(f"{panel}:lw", f"cov_{a}_{b}")] for b in R.columns] for a in R.columns])
    np.testing.assert_allclose(cov.to_numpy(), want, rtol=1e-12, atol=0)
    assert list(cov.index) == list(R.columns)
    # its relation to the sample covariance (ddof 1): (1 - s) (T-1)/T S + s (T-1)/T trace(S)/N I
    T, N = R.shape
    S = np.cov(R.to_numpy(), rowvar=False, ddof=1) * (T - 1) / T
    np.testing.assert_allclose(cov, (1 - s) * S + s * np.trace(S) / N * np.eye(N), rtol=1e-11, atol=0)
    w = quant.bounded_min_variance_weights(R, shrink="ledoit-wolf")
    np.testing.assert_allclose(w, weights(ref, f"{panel}:lw:long:minvar", R.columns), atol=QP_ATOL, rtol=0)
    ws = quant.max_sharpe_weights(R, shrink="ledoit-wolf")
    np.testing.assert_allclose(ws, weights(ref, f"{panel}:lw:long:maxsharpe:0", R.columns), atol=QP_ATOL, rtol=0)


def failure(call):
    with pytest.raises(fcast.FcastValueError) as info:
        call()
    return str(info.value)


def test_errors():
    R = eu_returns()
    assert "--max-weight x 4 assets must be at least 1" in failure(
        lambda: quant.bounded_min_variance_weights(R, upper=0.2))
    msg = failure(lambda: quant.bounded_target_return_weights(R, 0.5 / 252))
    assert "is above the highest return reachable under the bounds (reachable: " in msg
    assert "fcast_portfolio_bounded_target_return" in msg
    assert "earns more than the risk-free rate" in failure(lambda: quant.max_sharpe_weights(R, risk_free=1.0 / 252))
    assert "budgets[2] = -1" in failure(lambda: quant.risk_parity_weights(R, budgets={"FTSE": -1}))
    assert "lower[1] = -inf" in failure(lambda: quant.bounded_min_variance_weights(R, lower={"DAX": -np.inf}))
    with pytest.raises(ValueError, match=r"upper\['XYZ'\]: not a column"):
        quant.bounded_min_variance_weights(R, upper={"XYZ": 1})
    with pytest.raises(ValueError, match="shrink='oas'"):
        quant.risk_parity_weights(R, shrink="oas")
    bad = R.copy()
    bad.iloc[3, 2] = np.nan
    assert "[row" in failure(lambda: quant.max_sharpe_weights(bad))   # the DataFrame's row and column named
