"""vectorbt's side of bench/bench_backtest.c: the same sma-cross grid on
the same GBM prices, traded and measured as fcast does (see
python/make_backtest_fixtures.py for the equivalence of the two).

    python3 python/bench_vectorbt_backtest.py [--prices FILE]
        [--symbols 100] [--days 2500] [--fast 100] [--slow 100] [--slice 100]

--prices: the float64 file bench_backtest writes (symbols x days, row-major);
without it the prices are generated here with the same splitmix64 and
Box-Muller as the C side. vectorbt holds one column per (combination,
symbol), so it runs the first --slice combinations (fast 1, slow 110 ..,
in the C grid's order) on every symbol; the C program scales its time.
The last lines are "vectorbt_seconds S" and "vectorbt_sharpe_first X".
Every figure is one run after a warm-up on a small grid (numba compiles
on the first call).
"""
import argparse
import math
import time

import numpy as np
import pandas as pd
import vectorbt as vbt

MASK = (1 << 64) - 1


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def gbm(s, days):
    state, out = s, np.empty(days)
    out[0] = 100.0
    mu, sigma = 2e-4, 1e-2
    t = 1
    while t < days:
        state, a = splitmix64(state)
        state, b = splitmix64(state)
        u1, u2 = ((a >> 11) + 0.5) * 2.0 ** -53, ((b >> 11) + 0.5) * 2.0 ** -53
        r = math.sqrt(-2.0 * math.log(u1))
        for k, z in enumerate((r * math.cos(2 * math.pi * u2), r * math.sin(2 * math.pi * u2))):
            if t + k < days:
                out[t + k] = out[t + k - 1] * math.exp(mu - 0.5 * sigma * sigma + sigma * z)
        t += 2
    return out


def grid_run(close, pairs):
    """close: (days, symbols); pairs: (fast, slow) list. Every metric fcast reports."""
    days, symbols = close.shape
    windows = sorted({w for p in pairs for w in p})
    ma = vbt.MA.run(close, window=windows, short_name="ma").ma.to_numpy().reshape(days, len(windows), symbols)
    at = {w: i for i, w in enumerate(windows)}
    fast = np.concatenate([ma[:, at[f], :] for f, _ in pairs], axis=1)
    slow = np.concatenate([ma[:, at[s], :] for _, s in pairs], axis=1)
    w = np.where(fast > slow, 1.0, 0.0)                      # NaN compares false: flat
    prev = np.vstack([np.zeros((1, w.shape[1])), w[:-1]])
    size = np.where(w != prev, w, np.nan)
    price = np.tile(close, (1, len(pairs)))
    pf = vbt.Portfolio.from_orders(price, size=size, size_type="targetpercent", direction="both", fees=5e-4,
                                   init_cash=100000.0, freq="1D")
    acc = pf.returns().vbt.returns(freq="1D", year_freq="252D")
    out = dict(total=acc.total(), annual=acc.annualized(), vol=acc.annualized_volatility(), sharpe=acc.sharpe_ratio(),
               sortino=acc.sortino_ratio(), calmar=acc.calmar_ratio(), mdd=acc.max_drawdown(),
               dd_bars=pf.drawdowns.duration.max(), trades=pf.positions.count(), win=pf.positions.closed.win_rate())
    o = pf.orders.values
    value = pf.value().to_numpy()
    out["turnover"] = np.bincount(o["col"], o["size"] * o["price"] / (value[o["idx"], o["col"]] + o["fees"]),
                                  minlength=w.shape[1])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prices")
    for name, default in (("symbols", 100), ("days", 2500), ("fast", 100), ("slow", 100), ("slice", 100)):
        ap.add_argument(f"--{name}", type=int, default=default)
    a = ap.parse_args()
    if a.prices:
        close = np.fromfile(a.prices, dtype=np.float64).reshape(a.symbols, a.days).T.copy()
    else:
        close = np.column_stack([gbm(s, a.days) for s in range(a.symbols)])
    pairs = [(1 + i, 110 + j) for i in range(a.fast) for j in range(a.slow)][:a.slice]
    grid_run(close[:300, :2], pairs[:2])                      # warm-up: numba compiles
    t0 = time.perf_counter()
    out = grid_run(close, pairs)
    secs = time.perf_counter() - t0
    print(f"vectorbt {vbt.__version__}: {len(pairs)} combinations x {a.symbols} symbols in {secs:.3f} s")
    print(f"vectorbt_seconds {secs:.6f}")
    print(f"vectorbt_sharpe_first {float(np.asarray(out['sharpe'])[0]):.17g}")


if __name__ == "__main__":
    main()
