"""fcast.quant's options beyond Black-Scholes against independent truth:
implied volatilities against the committed QuantLib fixture
(tests/fixtures/quant/options_implied_vol.csv, python/make_option_fixtures.py)
within 1e-10, round trips through fcast.quant.black_scholes under numpy
broadcasting, the bounds as errors naming the position; binomial trees
against QuantLib's CRR at equal steps (options_binomial.csv) and the
accurate American values; Longstaff-Schwartz against QuantLib's
Bermudan FD value and MCAmericanEngine (options_lsm.csv); barrier options
against QuantLib's AnalyticBarrierEngine (options_barrier.csv) and their
Monte Carlo within 4 standard errors of it; Monte Carlo Greeks within 4
standard errors of the Black-Scholes Greeks."""
import os

import pytest

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

import fcast  # noqa: E402
from fcast import quant  # noqa: E402

from conftest import FIXTURES  # noqa: E402

IV = os.path.join(FIXTURES, "quant", "options_implied_vol.csv")
TREES = os.path.join(FIXTURES, "quant", "options_binomial.csv")
LSM = os.path.join(FIXTURES, "quant", "options_lsm.csv")
BARRIERS = os.path.join(FIXTURES, "quant", "options_barrier.csv")


def test_implied_vol_matches_quantlib_fixture():
    f = pd.read_csv(IV)
    vol = quant.implied_vol(f.type.to_numpy(), f.S, f.K, f["T"], f.price, rate=f.r, div=f.q)
    assert np.max(np.abs(vol - f.vol)) <= 1e-10
    ok = f.ql_ok == 1
    assert ok.sum() > 1300
    assert np.max(np.abs(vol[ok] - f.ql_vol[ok])) <= 1e-10


def test_implied_vol_round_trip_broadcasts():
    strikes = np.array([[75.0], [100.0], [140.0]])
    vols = np.array([0.1, 0.3, 0.9])
    g = quant.black_scholes("put", 100, strikes, 0.75, vols, rate=0.02, div=0.01)
    back = quant.implied_vol("put", 100, strikes, 0.75, g.price, rate=0.02, div=0.01)
    assert back.shape == (3, 3)
    np.testing.assert_allclose(back, np.broadcast_to(vols, (3, 3)), rtol=0, atol=1e-10)
    assert isinstance(quant.implied_vol("call", 100, 100, 1.0, 10.450583572185577, rate=0.05), float)


def test_implied_vol_bounds():
    # a call below S e^{-qT} - K e^{-rT} = 100 - 90 e^{-0.05} = 14.389
    with pytest.raises(fcast.FcastValueError, match=r"option 1: price 14 of the call is below its lower bound"):
        quant.implied_vol("call", 100, [100, 90], 1.0, [10.0, 14.0], rate=0.05)
    with pytest.raises(fcast.FcastValueError, match=r"option 0: price 100 of the call is at or above"):
        quant.implied_vol("call", 100, 90, 1.0, 100.0)
    vol, status = quant.implied_vol("call", 100, [100, 90, 90], 1.0, [10.0, 14.0, 100.0], rate=0.05,
                                    errors="status")
    assert list(status) == [quant.IV_OK, quant.IV_BELOW_LOWER, quant.IV_ABOVE_UPPER]
    assert np.isfinite(vol[0]) and np.isnan(vol[1:]).all()
    with pytest.raises(fcast.FcastValueError, match=r"option 0: T = -1"):
        quant.implied_vol("call", 100, 100, -1.0, 5.0)


def test_tree_matches_quantlib_crr():
    f = pd.read_csv(TREES)
    comparable = (f.ql_exact_grid == 1) | (f.exercise == "european")
    for row in f[comparable].itertuples():
        p = quant.tree_price(row.type, row.S, row.K, row.T, row.vol, rate=row.r, div=row.q,
                             american=row.exercise == "american", steps=row.steps, tree="crr")
        assert p == pytest.approx(row.ql_crr, rel=2e-11, abs=0)
        # fed the rate and yield QuantLib's tree effectively uses: the same bits
        p = quant.tree_price(row.type, row.S, row.K, row.T, row.vol, rate=row.ql_r_tree, div=row.ql_q_tree,
                             american=row.exercise == "american", steps=row.steps, tree="crr")
        assert p == pytest.approx(row.ql_crr, rel=1e-14, abs=0)
    am = f[(f.exercise == "american") & (f.steps == 1000)]
    for row in am.itertuples():
        p = quant.tree_price(row.type, row.S, row.K, row.T, row.vol, rate=row.r, div=row.q)
        assert p == pytest.approx(row.reference, rel=2e-5)


def test_tree_errors():
    with pytest.raises(fcast.FcastValueError, match="steps"):
        quant.tree_price("put", 100, 100, 1.0, 0.2, steps=1)
    with pytest.raises(fcast.FcastValueError, match="vol"):
        quant.tree_price("put", 100, 100, 1.0, -0.2)
    with pytest.raises(ValueError, match="tree must be"):
        quant.tree_price("put", 100, 100, 1.0, 0.2, tree="jr")


def test_lsm_against_quantlib():
    row = pd.read_csv(LSM).iloc[0]   # the American put S = K = 100
    r = quant.lsm_price(row.type, row.S, row.K, row["T"], row.vol, rate=row.r, div=row.q, steps=int(row.steps),
                        paths=60_000, calibration_paths=20_000, seed=3)
    # low-biased: not above the Bermudan value by more than 4 standard errors, nor below by more than 0.5% more
    assert r.price <= row.bermudan + 4 * r.std_error
    assert r.price >= row.bermudan - 4 * r.std_error - 0.005 * row.bermudan
    assert abs(r.price - row.ql_mc) <= 4 * np.hypot(r.std_error, row.ql_mc_se) + 0.005 * row.bermudan
    assert r.paths == 60_000 and r.calibration_paths == 20_000
    with pytest.raises(fcast.FcastValueError, match="calibration_paths"):
        quant.lsm_price("put", 100, 100, 1.0, 0.2, calibration_paths=10)


def test_barrier_matches_quantlib():
    f = pd.read_csv(BARRIERS)
    for row in f.itertuples():
        p = quant.barrier_price(row.type, row.S, row.K, row.T, row.vol, rate=row.r, div=row.q, barrier=row.H,
                                kind=row.kind, rebate=row.rebate)
        assert p == pytest.approx(row.ql_price, rel=1e-10, abs=1e-12)
    row = f[(f.kind == "up-and-out") & (f.type == "put") & (f.rebate > 0)].iloc[0]
    exact = quant.barrier_price(row.type, row.S, row.K, row["T"], row.vol, rate=row.r, div=row.q, barrier=row.H,
                                kind=row.kind, rebate=row.rebate)
    mc = quant.barrier_mc_price(row.type, row.S, row.K, row["T"], row.vol, rate=row.r, div=row.q, barrier=row.H,
                                kind=row.kind, rebate=row.rebate, steps=20, paths=100_000)
    assert abs(mc.price - exact) <= 4 * mc.std_error
    with pytest.raises(fcast.FcastValueError, match="barrier"):
        quant.barrier_price("call", 100, 100, 1.0, 0.2, barrier=110, kind="down-and-out")


@pytest.mark.parametrize("method", ["pathwise", "lr"])
def test_mc_greeks_against_black_scholes(method):
    bs = quant.black_scholes("put", 100, 95, 0.5, 0.25, rate=0.03, div=0.01)
    g = quant.mc_greeks("put", 100, 95, 0.5, 0.25, rate=0.03, div=0.01, method=method, paths=200_000)
    assert abs(g.delta - bs.delta) <= 4 * g.delta_std_error
    assert abs(g.vega - bs.vega) <= 4 * g.vega_std_error
    if method == "lr":
        assert abs(g.gamma - bs.gamma) <= 4 * g.gamma_std_error
    else:
        assert np.isnan(g.gamma)
    with pytest.raises(ValueError, match="method"):
        quant.mc_greeks("put", 100, 95, 0.5, 0.25, method="fd")
