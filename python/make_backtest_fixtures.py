"""Reference values for fcast's portfolio backtester from vectorbt.

Writes tests/fixtures/quant/backtest_*.csv from the bundled prices
(data/eu_stock_markets.csv: DAX, FTSE; data/goog_daily_ohlcv.csv: GOOG's
close) for several signals: an SMA(10)/SMA(30) cross (long-only, then with
costs, then with stops), a random +1/0/-1 signal and random fractional
positions (seed 42), with and without costs, and volatility targeting.

fcast's conventions, and the vectorbt call that computes the same thing:
  - a target w_t (a fraction of equity) decided on the close of t is traded
    at that close; an order goes out only when w_t differs from w_{t-1}
    (from flat at bar 0), so the shares are held between orders:
        Portfolio.from_orders(close, size=where(changed, w, nan),
            size_type='targetpercent', direction='both', fees=bps/1e4,
            fixed_fees=F, slippage=s/1e4, init_cash=capital, freq='1D')
  - metrics with 252 bars a year (one case 365): vectorbt's returns
    accessor with freq='1D', year_freq='252D' ('365D') on Portfolio.returns();
  - the drawdown duration is Portfolio.drawdowns.duration.max(); trades are
    Portfolio.positions (one per position, open or closed, fees in the
    PnL), hit rate the share of closed ones with pnl > 0;
  - turnover = sum over orders of size x price / the value before it.
The sizing (fraction, volatility target) and stops are fcast's own rules
(docs/quant-analytics.md), computed here independently with pandas; vectorbt
then trades the resulting targets.

Signals are stored run-length encoded (case, unique_id, bar, signal: the
value from that bar on) with at most 2 decimals, so that both sides read
the same doubles.

    python3 python/make_backtest_fixtures.py
"""
from pathlib import Path

import numpy as np
import pandas as pd
import vectorbt as vbt

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "quant"
PPY = 252

BASE = dict(cost_bps=0.0, slippage_bps=0.0, fixed_cost=0.0, capital=100000.0, size_fraction=1.0, vol_target=0.0,
            vol_window=20, max_leverage=1.0, stop_loss=0.0, take_profit=0.0, periods_per_year=PPY)
CASES = {
    "sma_long": dict(signal="sma", short=False),
    "sma_long_costs": dict(signal="sma", short=False, cost_bps=10.0, slippage_bps=5.0, fixed_cost=1.0),
    "sma_short_stops": dict(signal="sma", short=True, cost_bps=5.0, stop_loss=0.05, take_profit=0.10),
    "random": dict(signal="random", short=True),
    "random_costs": dict(signal="random", short=True, cost_bps=20.0, slippage_bps=10.0, fixed_cost=5.0),
    "fractional_costs": dict(signal="fractional", short=True, cost_bps=10.0, slippage_bps=2.0,
                             size_fraction=0.8),
    "random_vol_target": dict(signal="random", short=True, cost_bps=5.0, vol_target=0.15, vol_window=20,
                              max_leverage=2.0),
    "sma_long_costs_365": dict(signal="sma", short=False, cost_bps=10.0, slippage_bps=5.0, periods_per_year=365),
}


def prices():
    eu = pd.read_csv(ROOT / "data" / "eu_stock_markets.csv")
    goog = pd.read_csv(ROOT / "data" / "goog_daily_ohlcv.csv")
    return {"DAX": eu[eu.unique_id == "DAX"].y.to_numpy(float),
            "FTSE": eu[eu.unique_id == "FTSE"].y.to_numpy(float),
            "GOOG": goog.close.to_numpy(float)}


def sma_signal(close, short):
    c = pd.Series(close)
    fast, slow = c.rolling(10).mean(), c.rolling(30).mean()
    s = np.where(fast > slow, 1.0, -1.0 if short else 0.0)
    s[slow.isna().to_numpy()] = 0.0
    return s


def random_signal(n, rng, fractional):
    """A new value with probability 0.05 a bar: -1/0/1, or a fraction with 2 decimals."""
    s = np.empty(n)
    v = 0.0
    for t in range(n):
        if rng.random() < 0.05:
            v = round(rng.uniform(-1, 1), 2) if fractional else float(rng.integers(-1, 2))
        s[t] = v
    return s


def vol_scale(close, cfg):
    # numpy's two-pass std over each window: pandas' rolling std updates running
    # sums and loses ~1e-9 of relative accuracy over 2,000 bars
    w = cfg["vol_window"]
    r = close[1:] / close[:-1] - 1.0
    vol = np.full(len(close), np.nan)
    vol[w:] = np.lib.stride_tricks.sliding_window_view(r, w).std(axis=1, ddof=1) * np.sqrt(cfg["periods_per_year"])
    with np.errstate(divide="ignore"):
        scale = np.minimum(cfg["max_leverage"], cfg["vol_target"] / vol)
    scale[vol == 0] = cfg["max_leverage"]
    scale[np.isnan(vol)] = 0.0
    return scale


def targets(close, signal, cfg):
    """fcast's sizing and stops (docs/quant-analytics.md), written afresh."""
    w = signal * cfg["size_fraction"]
    if cfg["vol_target"] > 0:
        w = w * vol_scale(close, cfg)
    if not (cfg["stop_loss"] > 0 or cfg["take_profit"] > 0):
        return w
    out = np.zeros_like(w)
    direction, entry, stopped_at = 0, 0.0, None
    for t in range(len(w)):
        wt = w[t]
        if stopped_at is not None and signal[t] != stopped_at:
            stopped_at = None
        if stopped_at is not None:
            wt = 0.0
        if direction != 0 and np.sign(wt) == direction:
            gain = (close[t] / entry - 1.0) * direction
            if (cfg["stop_loss"] > 0 and gain <= -cfg["stop_loss"]) or \
               (cfg["take_profit"] > 0 and gain >= cfg["take_profit"]):
                stopped_at, wt = signal[t], 0.0
        if np.sign(wt) != direction:
            direction, entry = int(np.sign(wt)), close[t]
        out[t] = wt
    return out


def portfolio(close, w, cfg):
    prev = np.concatenate([[0.0], w[:-1]])
    # a new target when it differs by more than vectorbt's is_close_nb tolerance
    changed = np.abs(w - prev) > np.maximum(1e-9 * np.maximum(np.abs(w), np.abs(prev)), 1e-12)
    orders = np.where(changed, w, np.nan)
    return vbt.Portfolio.from_orders(
        pd.Series(close), size=orders, size_type="targetpercent", direction="both", fees=cfg["cost_bps"] / 1e4,
        fixed_fees=cfg["fixed_cost"], slippage=cfg["slippage_bps"] / 1e4, init_cash=cfg["capital"], freq="1D")


def metrics(pf, close, ppy):
    rets = pf.returns()
    acc = rets.vbt.returns(freq="1D", year_freq=f"{ppy:g}D")
    pos = pf.positions.values
    closed = pos[pos["status"] == 1]
    orders = pf.orders.values
    value = pf.value().to_numpy()
    before = value[orders["idx"]] + orders["fees"] + orders["size"] * np.abs(orders["price"] - close[orders["idx"]])
    dd = pf.drawdowns.duration.values
    return dict(total_return=acc.total(), annual_return=acc.annualized(), annual_volatility=acc.annualized_volatility(),
                sharpe=acc.sharpe_ratio(), sortino=acc.sortino_ratio(), calmar=acc.calmar_ratio(),
                max_drawdown=acc.max_drawdown(), max_drawdown_bars=int(dd.max()) if len(dd) else 0,
                turnover=float(np.sum(orders["size"] * orders["price"] / before)),
                hit_rate=float(np.mean(closed["pnl"] > 0)) if len(closed) else np.nan,
                trades=len(pos), closed_trades=len(closed), end_equity=value[-1])


def rle(case, uid, s):
    keep = np.concatenate([[True], s[1:] != s[:-1]])
    return [dict(case=case, unique_id=uid, bar=int(t), signal=s[t]) for t in np.flatnonzero(keep)]


def main():
    rng = np.random.default_rng(42)
    data = prices()
    cases, signals, rows, trades, curve = [], [], [], [], []
    for name, spec in CASES.items():
        cfg = {**BASE, **{k: v for k, v in spec.items() if k in BASE}}
        cases.append(dict(case=name, **cfg))
        for uid, close in data.items():
            if spec["signal"] == "sma":
                s = sma_signal(close, spec["short"])
            else:
                s = random_signal(len(close), rng, spec["signal"] == "fractional")
            signals += rle(name, uid, s)
            pf = portfolio(close, targets(close, s, cfg), cfg)
            rows.append(dict(case=name, unique_id=uid, **metrics(pf, close, cfg["periods_per_year"])))
            for p in pf.positions.values:
                trades.append(dict(case=name, unique_id=uid, entry_bar=p["entry_idx"], exit_bar=p["exit_idx"],
                                   direction=1 if p["direction"] == 0 else -1, size=p["size"],
                                   entry_price=p["entry_price"], exit_price=p["exit_price"], pnl=p["pnl"],
                                   ret=p["return"], open=int(p["status"] == 0)))
            if name == "random_costs" and uid == "DAX":
                curve = pd.DataFrame(dict(case=name, unique_id=uid, bar=np.arange(len(close)),
                                          equity=pf.value().to_numpy(), returns=pf.returns().to_numpy()))
    OUT.mkdir(parents=True, exist_ok=True)
    fmt = "%.17g"
    pd.DataFrame(cases).to_csv(OUT / "backtest_cases.csv", index=False, float_format=fmt)
    pd.DataFrame(signals).to_csv(OUT / "backtest_signals.csv", index=False, float_format="%.2f")
    pd.DataFrame(rows).to_csv(OUT / "backtest_metrics.csv", index=False, float_format=fmt)
    pd.DataFrame(trades).to_csv(OUT / "backtest_trades.csv", index=False, float_format=fmt)
    curve.to_csv(OUT / "backtest_equity.csv", index=False, float_format=fmt)


if __name__ == "__main__":
    main()
