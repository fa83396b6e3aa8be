"""fcast.quant.backtest against vectorbt: the committed fixtures of
python/make_backtest_fixtures.py (vectorbt 1.2's Portfolio.from_orders and
its returns accessor on the bundled DAX, FTSE and GOOG prices) for every
case, metrics and trades to 1e-10 relative; a rule as text equal to its
positions given; backtest_files' signal file and cv walk-forward equal to
the positions pandas derives from the same files by the documented rules
(forward fill; the latest cutoff's forecast return against the
thresholds); pandas labels kept; errors naming the argument."""
import os

import pytest

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

import fcast  # noqa: E402
from fcast import quant  # noqa: E402

from conftest import FIXTURES, MONTHLY  # noqa: E402

DATA = os.path.dirname(MONTHLY)
QUANT = os.path.join(FIXTURES, "quant")
RTOL, ATOL = 1e-10, 1e-12


def prices():
    eu = pd.read_csv(os.path.join(DATA, "eu_stock_markets.csv"))
    goog = pd.read_csv(os.path.join(DATA, "goog_daily_ohlcv.csv"))
    return {"DAX": eu[eu.unique_id == "DAX"].y.to_numpy(float), "FTSE": eu[eu.unique_id == "FTSE"].y.to_numpy(float),
            "GOOG": goog.close.to_numpy(float)}


def signal(runs, case, uid, n):
    s = np.full(n, np.nan)
    for r in runs[(runs.case == case) & (runs.unique_id == uid)].itertuples():
        s[r.bar:] = r.signal
    return s


@pytest.fixture(scope="module")
def fixtures():
    read = lambda name: pd.read_csv(os.path.join(QUANT, f"backtest_{name}.csv"))  # noqa: E731
    return read("cases"), read("signals"), read("metrics"), read("trades")


def test_every_case_equals_vectorbt(fixtures):
    cases, runs, metrics, trades = fixtures
    px = prices()
    checked = 0
    for case in cases.itertuples():
        for uid, close in px.items():
            r = quant.backtest(close, signal(runs, case.case, uid, len(close)), cost_bps=case.cost_bps,
                               slippage_bps=case.slippage_bps, fixed_cost=case.fixed_cost, capital=case.capital,
                               size=case.size_fraction, vol_target=case.vol_target, vol_window=case.vol_window,
                               max_leverage=case.max_leverage, stop_loss=case.stop_loss, take_profit=case.take_profit,
                               periods_per_year=case.periods_per_year)
            want = metrics[(metrics.case == case.case) & (metrics.unique_id == uid)].iloc[0]
            got = r.metrics.iloc[0]
            for col in ("total_return", "annual_return", "annual_volatility", "sharpe", "sortino", "calmar",
                        "max_drawdown", "turnover", "hit_rate", "end_equity"):
                np.testing.assert_allclose(got[col], want[col], rtol=RTOL, atol=ATOL,
                                           err_msg=f"{case.case} {uid} {col}")
            for col in ("max_drawdown_bars", "trades", "closed_trades"):
                assert got[col] == want[col], (case.case, uid, col)
            t = trades[(trades.case == case.case) & (trades.unique_id == uid)]
            assert len(r.trades) == len(t)
            np.testing.assert_array_equal(r.trades.entry.to_numpy(), t.entry_bar.to_numpy())
            np.testing.assert_array_equal(r.trades.exit.to_numpy(), t.exit_bar.to_numpy())
            np.testing.assert_allclose(r.trades.pnl.to_numpy(), t.pnl.to_numpy(), rtol=RTOL, atol=1e-9)
            np.testing.assert_allclose(r.trades["return"].to_numpy(), t.ret.to_numpy(), rtol=RTOL, atol=ATOL)
            assert (r.trades.exit_reason == "open").sum() == t.open.sum()
            checked += 1
    assert checked == 24


def test_rule_equals_its_positions_and_labels_kept():
    eu = pd.read_csv(os.path.join(DATA, "eu_stock_markets.csv")).pivot(index="ds", columns="unique_id", values="y")
    by_rule = quant.backtest(eu, rule="cross(sma:10, sma:30)", short=True, cost_bps=5)
    fast, slow = eu.rolling(10).mean(), eu.rolling(30).mean()
    pos = np.where(fast > slow, 1.0, -1.0)
    pos[slow.isna().to_numpy()] = 0.0
    given = quant.backtest(eu, pd.DataFrame(pos, index=eu.index, columns=eu.columns), cost_bps=5)
    np.testing.assert_allclose(by_rule.metrics.end_equity, given.metrics.end_equity, rtol=1e-12)
    assert list(by_rule.metrics.index) == list(eu.columns)
    assert set(by_rule.equity.columns) == {"symbol", "ds", "position", "equity", "drawdown", "returns"}
    assert len(by_rule.equity) == eu.size
    assert by_rule.equity.drawdown.max() <= 0


def test_errors_name_the_argument():
    close = np.linspace(100, 110, 50)
    bad = np.zeros(50)
    bad[7] = 1.5
    with pytest.raises(fcast.FcastValueError, match=r"positions\[7\] = 1\.5"):
        quant.backtest(close, bad)
    with pytest.raises(ValueError, match="positions or rule"):
        quant.backtest(close)
    with pytest.raises(fcast.FcastValueError, match="--rule: expected ','"):
        quant.backtest(close, rule="cross(sma:2 sma:3)")
    with pytest.raises(fcast.FcastValueError, match="--cost-bps"):
        quant.backtest(close, np.ones(50), cost_bps=-1)


def test_files_equal_their_positions_built_with_pandas(tmp_path):
    eu = pd.read_csv(os.path.join(DATA, "eu_stock_markets.csv"))
    wide = eu.pivot(index="ds", columns="unique_id", values="y")
    # a signal file: DAX long from day 100, half short from day 900; CAC long from day 50
    sig = pd.DataFrame(dict(unique_id=["DAX", "DAX", "CAC"], ds=[100, 900, 50], position=[1.0, -0.5, 1.0]))
    sig.to_csv(tmp_path / "sig.csv", index=False)
    got = quant.backtest_files(os.path.join(DATA, "eu_stock_markets.csv"), signal=tmp_path / "sig.csv", cost_bps=5)
    pos = sig.pivot(index="ds", columns="unique_id", values="position").reindex(wide.index).ffill().fillna(0.0)
    pos = pos.reindex(columns=wide.columns, fill_value=0.0)
    want = quant.backtest(wide, pos, cost_bps=5)
    np.testing.assert_allclose(got.metrics.set_index("symbol").end_equity[want.metrics.index],
                               want.metrics.end_equity, rtol=1e-12)
    # a cv file: cutoffs every 10 days from day 1600, 3 steps, yhat = y(c) (1 + 0.01 sin(c + 2k))
    rows = []
    for uid in wide.columns:
        for c in range(1600, 1851, 10):
            for k in (1, 2, 3):
                rows.append(dict(unique_id=uid, ds=c + k, cutoff=c, MLP=wide[uid][c] * (1 + 0.01 * np.sin(c + 2 * k)),
                                 y=wide[uid][c + k]))
    pd.DataFrame(rows).to_csv(tmp_path / "cv.csv", index=False)
    got = quant.backtest_files(os.path.join(DATA, "eu_stock_markets.csv"), forecast=tmp_path / "cv.csv", horizon=2,
                               long_above=0.002, short_below=-0.004, short=True, cost_bps=5)
    f = pd.DataFrame(rows)
    f = f[f.ds == f.cutoff + 2]
    ret = (f.MLP.to_numpy() / np.array([wide[u][c] for u, c in zip(f.unique_id, f.cutoff)]) - 1)
    at = pd.DataFrame(dict(unique_id=f.unique_id, ds=f.cutoff, r=ret)).pivot(index="ds", columns="unique_id", values="r")
    held = at.reindex(wide.index).ffill()                       # the latest cutoff <= t; NaN before the first
    pos = np.where(held > 0.002, 1.0, np.where(held < -0.004, -1.0, 0.0))
    want = quant.backtest(wide, pd.DataFrame(pos, index=wide.index, columns=held.columns)[wide.columns], cost_bps=5)
    np.testing.assert_allclose(got.metrics.set_index("symbol").end_equity[want.metrics.index],
                               want.metrics.end_equity, rtol=1e-12)
    assert (got.equity[got.equity.ds.astype(int) < 1600].position == 0).all()   # flat before the first cutoff
    with pytest.raises(fcast.FcastValueError, match="--horizon 4"):
        quant.backtest_files(os.path.join(DATA, "eu_stock_markets.csv"), forecast=tmp_path / "cv.csv", horizon=4)
