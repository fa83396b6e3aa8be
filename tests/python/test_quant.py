"""fcast.quant against independent truth: published Black-Scholes values and
QuantLib's Greeks, the formula and put-call parity under numpy broadcasting,
the Clewlow-Strickland geometric Asian, Monte Carlo within 3 standard
errors of closed forms, empyrical's risk measures, QuantLib's VaR and
numpy's portfolio weights on the bundled index prices
(tests/fixtures/quant_*_eu_stock.csv, python/make_risk_fixtures.py); pandas
labels kept; errors naming the argument."""
import math
import os
import re

import pytest

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

import fcast  # noqa: E402
from fcast import quant  # noqa: E402

from conftest import FIXTURES, MONTHLY  # noqa: E402

PRICES = os.path.join(os.path.dirname(MONTHLY), "eu_stock_markets.csv")


def bs_formula(call, S, K, T, v, r, q):
    """Black-Scholes-Merton price written out (math.erfc)."""
    N = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))  # noqa: E731
    d1 = (math.log(S / K) + (r - q + 0.5 * v * v) * T) / (v * math.sqrt(T))
    d2 = d1 - v * math.sqrt(T)
    if call:
        return S * math.exp(-q * T) * N(d1) - K * math.exp(-r * T) * N(d2)
    return K * math.exp(-r * T) * N(-d2) - S * math.exp(-q * T) * N(-d1)


def test_black_scholes_published_values():
    g = quant.black_scholes(["call", "put"], 100, 100, 1.0, 0.2, rate=0.05)
    assert g.price == pytest.approx([10.450584, 5.573526], abs=1e-6)   # Hull
    assert g.delta[0] == pytest.approx(0.636831, abs=1e-6)
    # QuantLib 1.29 BlackScholesCalculator, same inputs
    assert g.gamma[0] == pytest.approx(0.0187620173458, abs=1e-11)
    assert g.vega[0] == pytest.approx(37.5240346917, abs=1e-9)
    assert g.theta[0] == pytest.approx(-6.41402754644, abs=1e-9)
    assert g.rho[0] == pytest.approx(53.2324815454, abs=1e-9)
    put = quant.black_scholes("PUT", 100, 95, 0.5, 0.2, rate=0.10, div=0.05)   # Haug's dividend-yield put
    assert isinstance(put.price, float) and put.price == pytest.approx(2.46478764676, abs=1e-10)
    assert put.delta == pytest.approx(-0.264181599636, abs=1e-11)


def test_black_scholes_broadcasts_with_parity():
    strikes = np.linspace(60, 140, 9)
    vols = np.array([[0.05], [0.2], [0.6]])
    expiry, r, q = np.array([0.25, 1.0, 3.0]).reshape(3, 1), 0.03, 0.01
    call = quant.black_scholes("call", 100.0, strikes, expiry, vols, rate=r, div=q)
    put = quant.black_scholes("put", 100.0, strikes, expiry, vols, rate=r, div=q)
    assert call.price.shape == call.rho.shape == (3, 9)
    parity = 100 * np.exp(-q * expiry) - strikes * np.exp(-r * expiry)
    np.testing.assert_allclose(call.price - put.price, parity, rtol=0, atol=1e-11)
    np.testing.assert_allclose(call.delta - put.delta, np.exp(-q * expiry) + 0 * strikes, atol=1e-14)
    want = [[bs_formula(True, 100, k, expiry[i, 0], vols[i, 0], r, q) for k in strikes] for i in range(3)]
    np.testing.assert_allclose(call.price, want, rtol=1e-12, atol=1e-12)
    with pytest.raises(AssertionError):   # control: the puts are not the calls
        np.testing.assert_allclose(put.price, want, rtol=1e-6)
    # a whole chain of mixed types in one call
    types = np.array(["call", "put"] * 4)
    mixed = quant.black_scholes(types, 100, 100, 1.0, 0.2, rate=0.05).price
    assert mixed[0::2] == pytest.approx(10.450584, abs=1e-6) and mixed[1::2] == pytest.approx(5.573526, abs=1e-6)


def test_geometric_asian_closed_form():
    t = 36.0 * np.arange(1, 11) / 360.0   # QuantLib's Clewlow & Strickland case
    call = quant.asian_geometric("call", 100, 100, 1.0, 0.2, rate=0.06, div=0.03, fixing_times=t)
    assert call == pytest.approx(5.3425606635, abs=1e-10)
    assert quant.asian_geometric("call", 100, 100, 1.0, 0.2, 0.06, 0.03, fixings=10) == pytest.approx(call, abs=1e-13)
    one = quant.asian_geometric(["call", "put"], 100, 100, 1.0, 0.2, 0.06, 0.03, fixing_times=[1.0])
    np.testing.assert_allclose(one, quant.black_scholes(["call", "put"], 100, 100, 1.0, 0.2, 0.06, 0.03).price,
                               atol=1e-12)


def test_monte_carlo_matches_the_closed_forms():
    for kind in ("call", "put"):
        r = quant.mc_price(kind, 100, 100, 1.0, 0.2, rate=0.05, div=0.02, paths=200_000, antithetic=True, seed=7)
        want = bs_formula(kind == "call", 100, 100, 1.0, 0.2, 0.05, 0.02)
        assert abs(r.price - want) < 3 * r.std_error and 0 < r.std_error < 0.05
        assert r.paths == 200_000 and r.ci_low < r.price < r.ci_high
        assert r.ci_high - r.ci_low == pytest.approx(2 * 1.959963984540054 * r.std_error, rel=1e-12)
    again = quant.mc_price("put", 100, 100, 1.0, 0.2, rate=0.05, div=0.02, paths=200_000, antithetic=True, seed=7)
    assert again == r   # a seed gives the same bits
    assert quant.mc_price("put", 100, 100, 1.0, 0.2, 0.05, 0.02, paths=200_000, antithetic=True, seed=8) != r
    # fixings today and at the expiry: half a European call struck at 2K - S0
    two = quant.mc_price("call", 90, 87, 0.75, 0.13, rate=0.025, div=0.06, asian=True, fixing_times=[0.0, 0.75],
                         paths=200_000, antithetic=True, seed=3)
    want = 0.5 * bs_formula(True, 90, 2 * 87 - 90, 0.75, 0.13, 0.025, 0.06)
    assert abs(two.price - want) < 3 * two.std_error
    asian = quant.mc_price("call", 90, 87, 0.75, 0.13, rate=0.025, div=0.06, asian=True, paths=100_000)
    geometric = quant.asian_geometric("call", 90, 87, 0.75, 0.13, 0.025, 0.06, fixings=12)
    assert geometric < asian.price < geometric + 0.1   # the arithmetic average is above the geometric one


def eu_returns():
    """Simple returns of DAX, SMI, CAC, FTSE aligned on ds, columns sorted
    (the fixtures' making: python/make_risk_fixtures.py)."""
    wide = pd.read_csv(PRICES).pivot(index="ds", columns="unique_id", values="y").dropna()
    return wide[sorted(wide.columns)].pct_change().iloc[1:]


def fixture(name):
    return pd.read_csv(os.path.join(FIXTURES, name), float_precision="round_trip")


def metric(r, name):
    """One measure of the risk fixture ("sharpe", "hist_var_0.95", ...) of r."""
    if not name.startswith(("hist_", "normal_")):
        return getattr(quant.risk_summary(r), name)
    kind, level = name.rsplit("_", 1)
    var, tail = (quant.var_historical if kind.startswith("hist") else quant.var_normal)(r, float(level))
    return var if kind.endswith("_var") else tail


def test_risk_against_empyrical_and_quantlib():
    R = eu_returns()
    want = fixture("quant_risk_eu_stock.csv")
    table = quant.risk_summary(R)
    assert list(table.columns) == ["CAC", "DAX", "FTSE", "SMI"] and table.loc["n"].eq(1859).all()
    compared = 0
    for row in want.itertuples():
        got = metric(R[row.series], row.metric)
        assert got == pytest.approx(row.value, rel=1e-9, abs=1e-15), (row.series, row.metric)
        if row.metric in table.index:
            assert table.loc[row.metric, row.series] == got
        other = R.columns[(list(R.columns).index(row.series) + 1) % 4]   # control: another index differs
        assert metric(R[other], row.metric) != pytest.approx(row.value, rel=1e-9, abs=1e-15)
        compared += 1
    assert compared == 84
    s = quant.risk_summary(np.array([0.1, -0.2, 0.05, -0.1, 0.3]))
    assert s.n == 5 and s.mean == pytest.approx(0.03) and s.max_drawdown == pytest.approx(0.8316 / 1.1 - 1)


def test_portfolio_weights_against_numpy():
    R = eu_returns()
    want = fixture("quant_portfolio_eu_stock.csv")
    target = want.query("asset == '_target_return'")["value"].item()
    w_min, w_target = quant.min_variance_weights(R), quant.target_return_weights(R, target)
    for name, w in (("min_variance", w_min), ("target", w_target)):
        expected = want.query("portfolio == @name and asset != '_target_return'").set_index("asset")["value"]
        assert isinstance(w, pd.Series) and list(w.index) == list(R.columns)
        np.testing.assert_allclose(w[expected.index], expected, rtol=1e-9, atol=1e-13)
        assert w.sum() == pytest.approx(1.0, abs=1e-13)
    mean, cov = quant.portfolio_moments(R)
    np.testing.assert_allclose(mean, R.mean(), rtol=1e-12)
    np.testing.assert_allclose(cov, np.cov(R.to_numpy(), rowvar=False, ddof=1), rtol=1e-12)
    assert list(cov.index) == list(cov.columns) == list(R.columns)
    assert float(w_target @ mean) == pytest.approx(target, rel=1e-12)
    assert not np.allclose(w_min, w_target)   # control
    plain = quant.min_variance_weights(R.to_numpy())   # an array in, an array out
    assert isinstance(plain, np.ndarray) and np.array_equal(plain, w_min.to_numpy())


def failure(exception, call):
    """The message of the exception call() raises; fcast's are FcastValueErrors."""
    with pytest.raises(exception) as info:
        call()
    return str(info.value), info.value


def test_errors_name_the_argument():
    r = eu_returns()
    prices = pd.read_csv(PRICES).pivot(index="ds", columns="unique_id", values="y")
    cases = [
        (lambda: quant.black_scholes("call", 100, 100, 1.0, [0.2, -0.2]),
         r"^fcast_bs_european: vol\[1\] = -0.2: must be a positive number$"),
        (lambda: quant.black_scholes(["call", "straddle"], 100, 100, 1.0, 0.2),
         r"option_type\[1\] = 'straddle': expected 'call' or 'put'"),
        (lambda: quant.asian_geometric("call", 100, 100, 1.0, 0.2, fixing_times=[0.5, 2.0]),
         r"fcast_asian_geometric: fixing_times\[1\] = 2 is after expiry\[0\] = 1"),
        (lambda: quant.mc_price("call", 100, 100, 1.0, 0.2, asian=True, steps=4, paths=1000),
         "fcast_mc_price: steps = 4: not for an Asian option"),
        (lambda: quant.mc_price("call", 100, 100, 1.0, 0.2, paths=10**11),
         "fcast_mc_price: paths: expected 2 to 10000000000 paths"),
        (lambda: quant.var_historical(r["DAX"], level=1.5),
         r"fcast_var_historical: level = 1.5: must be a confidence level in \(0, 1\)"),
        (lambda: quant.risk_summary(pd.Series([np.nan, 0.01, 0.02])),
         r"fcast_risk_summary: returns\[0\] = nan: must be finite"),
        (lambda: quant.min_variance_weights(prices.pct_change()),   # the first row of pct_change is NaN
         r"returns\[0\] \(period 0, asset 0\) = nan.*\[row 1, column 'CAC'\]"),
        (lambda: quant.target_return_weights(r[["DAX"]], 0.001),
         "n_assets = 1: a target return needs at least 2 assets"),
    ]
    for call, pattern in cases:
        text, e = failure(ValueError, call)
        assert re.search(pattern, text), (text, pattern)
        assert "--" not in text   # the API's names, not the CLI's flags
    text, e = failure(ValueError, cases[0][0])
    assert isinstance(e, fcast.FcastValueError) and e.status_name == "FC_ERR_INVALID"
