"""fcast.quant: option prices, risk measures and portfolio weights on
fcast's C engine (the `fcast quant` commands' code, through libfcast.so).

    from fcast import quant
    g = quant.black_scholes("call", spot=100, strike=[90, 100, 110], expiry=1.0, vol=0.2, rate=0.05)
    g.price, g.delta                                  # arrays of 3
    quant.mc_price("put", 100, 100, 1.0, 0.2, rate=0.05, asian=True, paths=200_000)
    quant.risk_summary(returns)                       # empyrical's Sharpe, Sortino, drawdown, ...
    quant.var_historical(returns, level=0.99)         # (VaR, CVaR), losses positive
    quant.min_variance_weights(returns_df)            # a Series indexed by the columns
    quant.backtest(close_df, positions_df, cost_bps=5)  # vectorbt's metrics, trades, equity curve
    quant.backtest_files("prices.csv", forecast="cv.csv", long_above=0.005)   # fcast cv's walk-forward

One module rather than three (options, risk, portfolio): it is small, it
mirrors `fcast quant` and src/quant, and `from fcast import quant` is the
one import a notebook needs. The conventions (units of the Greeks,
empyrical's annualisation over 252 periods, QuantLib's percentile for
historical VaR, fully invested weights with shorts allowed) are the
engine's, stated in docs/python.md and include/fcast.h; the results equal
QuantLib's, empyrical's and numpy's on the tests' fixtures.

Errors are fcast's exceptions (fcast.FcastValueError, a ValueError), their
message naming the argument and the position at fault ("vol[3] = -0.2";
positions of broadcast arrays count in C order).
"""
import ctypes
import dataclasses
import re
import sys
from ctypes import POINTER, c_double, c_int, c_size_t, c_uint64, c_void_p

import numpy as np

from ._lib import check, lib

_DOUBLE_P = POINTER(c_double)
PERIODS_PER_YEAR = 252


# The structs of include/fcast.h, field for field.
class _OptionArrays(ctypes.Structure):
    _fields_ = [("n", c_size_t), ("type", POINTER(c_int))] + \
               [(name, _DOUBLE_P) for name in ("spot", "strike", "rate", "div", "vol", "expiry")]


class _MCOption(ctypes.Structure):
    _fields_ = [("type", c_int), ("asian", c_int)] + \
               [(name, c_double) for name in ("spot", "strike", "rate", "div", "vol", "expiry")] + \
               [("fixing_times", _DOUBLE_P), ("n_fixings", c_size_t), ("steps", c_size_t), ("paths", c_uint64),
                ("seed", c_uint64), ("antithetic", c_int), ("no_control_variate", c_int)]


class _MCResult(ctypes.Structure):
    _fields_ = [(name, c_double) for name in ("price", "std_error", "ci_low", "ci_high")] + [("paths", c_uint64)]


class _Risk(ctypes.Structure):
    _fields_ = [("n", c_size_t)] + [(name, c_double) for name in ("mean", "annual_return", "annual_volatility",
                                                                    "sharpe", "sortino", "max_drawdown")]


def _ptr(array):
    return None if array is None else array.ctypes.data_as(_DOUBLE_P)


def _float64(values, name):
    """values as a C-contiguous float64 array: its own buffer when it is one."""
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(values, (pd.Series, pd.DataFrame)):
        values = values.to_numpy(dtype=np.float64, na_value=np.nan)
    try:
        a = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"fcast.quant: {name} must be numbers: {e}") from None
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)   # (ascontiguousarray makes 0-d 1-d)


# ------------------------------------------------------------------ options

def _type_codes(option_type):
    """"call"/"put" (any case; arrays of them) -> 1/0; integers go to C as
    they are (FCAST_CALL = 1, FCAST_PUT = 0), which checks them."""
    t = np.asarray(option_type)
    if t.dtype.kind in "iub":
        return t.astype(np.intc)
    if t.dtype.kind not in "USO":
        raise TypeError(f"fcast.quant: option_type must be 'call' or 'put', got {option_type!r}")
    codes = {"call": 1, "put": 0}
    flat = [str(v).lower() for v in t.ravel()]
    for i, v in enumerate(flat):
        if v not in codes:
            raise ValueError(f"fcast.quant: option_type[{i}] = {v!r}: expected 'call' or 'put'")
    return np.array([codes[v] for v in flat], dtype=np.intc).reshape(t.shape)


class _Options:
    """The arguments broadcast together, flattened (C order), as the C struct."""

    def __init__(self, option_type, spot, strike, expiry, vol, rate, div):
        arrays = np.broadcast_arrays(_type_codes(option_type), *[_float64(v, name) for v, name in (
            (spot, "spot"), (strike, "strike"), (expiry, "expiry"), (vol, "vol"), (rate, "rate"), (div, "div"))])
        self.shape = arrays[0].shape
        t, s, k, e, v, r, q = [np.ascontiguousarray(a).ravel() for a in arrays]
        self._keep = (t, s, k, e, v, r, q)
        self.struct = _OptionArrays(t.size, t.ctypes.data_as(POINTER(c_int)), _ptr(s), _ptr(k), _ptr(r), _ptr(q),
                                    _ptr(v), _ptr(e))

    def empty(self):
        return np.empty(self.shape)

    def shaped(self, a):
        """An array of the broadcast shape; a float for scalar inputs."""
        return a.reshape(self.shape)[()] if self.shape == () else a.reshape(self.shape)


@dataclasses.dataclass(frozen=True)
class Greeks:
    """Black-Scholes price and Greeks, QuantLib's units: vega and rho per
    1.00 of volatility and rate (divide by 100 for a point), theta per
    year (divide by 365 for a calendar day)."""
    price: np.ndarray
    delta: np.ndarray
    gamma: np.ndarray
    vega: np.ndarray
    theta: np.ndarray
    rho: np.ndarray


def black_scholes(option_type, spot, strike, expiry, vol, rate=0.0, div=0.0):
    """European options under Black-Scholes-Merton: price and Greeks.

    option_type: "call" or "put"; spot, strike > 0; expiry > 0 in years;
    vol > 0 (0.2 for 20%); rate (continuously compounded) and div (the
    continuous dividend yield) finite. Every argument may be an array: they
    broadcast as numpy's do, and each field of the Greeks returned has the
    broadcast shape (floats for scalar arguments)."""
    o = _Options(option_type, spot, strike, expiry, vol, rate, div)
    out = [o.empty() for _ in range(6)]
    check(lib.fcast_bs_european(ctypes.byref(o.struct), *[_ptr(a) for a in out]))
    return Greeks(*[o.shaped(a) for a in out])


def asian_geometric(option_type, spot, strike, expiry, vol, rate=0.0, div=0.0, fixings=12, fixing_times=None):
    """Discrete geometric-average-price Asian options in closed form (Kemna
    and Vorst; QuantLib's AnalyticDiscreteGeometricAveragePriceAsianEngine).

    The average is over `fixings` prices at expiry j / fixings, j = 1 ..
    fixings, or at fixing_times (years, sorted, none after any option's
    expiry; 0 counts today's spot). Arguments broadcast as in black_scholes."""
    o = _Options(option_type, spot, strike, expiry, vol, rate, div)
    times = None if fixing_times is None else _float64(fixing_times, "fixing_times").ravel()
    n_fixings = len(times) if times is not None else int(fixings)
    price = o.empty()
    check(lib.fcast_asian_geometric(ctypes.byref(o.struct), _ptr(times), n_fixings, _ptr(price)))
    return o.shaped(price)


@dataclasses.dataclass(frozen=True)
class MCResult:
    """A Monte Carlo price: the estimate, its standard error, the 95%
    interval (price -+ 1.959964 std_error) and the paths simulated."""
    price: float
    std_error: float
    ci_low: float
    ci_high: float
    paths: int


def mc_price(option_type, spot, strike, expiry, vol, rate=0.0, div=0.0, *, asian=False, paths=1_000_000,
             steps=None, fixings=None, fixing_times=None, antithetic=False, control_variate=True, seed=42):
    """One option priced by Monte Carlo, as `fcast quant option` prices it:
    exact lognormal paths from counter-based draws (the same price for a
    seed on any number of threads), the C code running without the GIL.

    asian: False for a European option (steps: time steps per path, 1 by
    default, the paths being exact), True for an arithmetic-average-price
    Asian (fixings: 12 by default, at expiry j / fixings; or fixing_times;
    control_variate: the geometric average, whose price is known).
    antithetic: also each path's mirror. paths are rounded up to whole
    draws (2 paths, 4 antithetic)."""
    times = None if fixing_times is None else _float64(fixing_times, "fixing_times").ravel()
    o = _MCOption(type=int(_type_codes(option_type)), asian=bool(asian), spot=spot, strike=strike, rate=rate,
                  div=div, vol=vol, expiry=expiry, fixing_times=_ptr(times),
                  n_fixings=len(times) if times is not None else int(fixings or 0), steps=int(steps or 0),
                  paths=int(paths), seed=int(seed), antithetic=bool(antithetic),
                  no_control_variate=bool(asian) and not control_variate)
    r = _MCResult()
    check(lib.fcast_mc_price(ctypes.byref(o), ctypes.byref(r)))
    return MCResult(r.price, r.std_error, r.ci_low, r.ci_high, int(r.paths))


# ------------------------------------------------------------------ risk

@dataclasses.dataclass(frozen=True)
class RiskSummary:
    """Risk of simple returns per period, empyrical's conventions (252
    periods a year, risk-free rate and required return 0)."""
    n: int
    mean: float               # per period
    annual_return: float      # CAGR
    annual_volatility: float  # std(ddof=1) * sqrt(252)
    sharpe: float             # NaN for constant returns
    sortino: float            # inf when no period lost
    max_drawdown: float       # <= 0


def _returns(returns):
    r = _float64(returns, "returns")
    if r.ndim != 1:
        raise ValueError(f"fcast.quant: returns must be one-dimensional, got shape {r.shape}")
    return r


def _risk_one(r):
    out = _Risk()
    check(lib.fcast_risk_summary(_ptr(r), len(r), ctypes.byref(out)))
    return RiskSummary(int(out.n), *[getattr(out, f[0]) for f in _Risk._fields_[1:]])


def risk_summary(returns):
    """Mean, CAGR, annual volatility, Sharpe, Sortino and maximum drawdown
    of simple returns (at least 2; finite, none below -1).

    A one-dimensional array or Series gives a RiskSummary; a DataFrame of
    returns, one column per asset, a DataFrame with a column per asset and
    a row per measure (as `fcast quant risk` prints it)."""
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(returns, pd.DataFrame):
        return pd.DataFrame({c: dataclasses.asdict(_risk_one(_returns(returns[c]))) for c in returns.columns})
    return _risk_one(_returns(returns))


def _var(fn, returns, level):
    r = _returns(returns)
    a, b = c_double(), c_double()
    check(fn(_ptr(r), len(r), float(level), ctypes.byref(a), ctypes.byref(b)))
    return a.value, b.value


def var_historical(returns, level=0.95):
    """(VaR, CVaR) of one period at confidence `level`, losses positive:
    the k-th worst return negated, k = ceil((1 - level) n) (QuantLib's
    percentile, no interpolation), and the mean of the k worst negated."""
    return _var(lib.fcast_var_historical, returns, level)


def var_normal(returns, level=0.95):
    """(VaR, expected shortfall) of one period under a normal law with the
    returns' mean and standard deviation (ddof 1), losses positive."""
    return _var(lib.fcast_var_normal, returns, level)


# ------------------------------------------------------------------ portfolios

def _matrix(returns):
    """(values (T, N) C-contiguous float64, column labels or None)."""
    pd = sys.modules.get("pandas")
    columns = returns.columns if pd is not None and isinstance(returns, pd.DataFrame) else None
    R = _float64(returns, "returns")
    if R.ndim != 2:
        raise ValueError(f"fcast.quant: returns must be a (periods, assets) matrix, got shape {R.shape}")
    return R, columns


def _check_matrix(status, returns):
    """check(status), naming the DataFrame's row and column of a bad value."""
    try:
        check(status)
    except ValueError as e:
        pd = sys.modules.get("pandas")
        m = re.search(r"\(period (\d+), asset (\d+)\)", str(e))
        if m and pd is not None and isinstance(returns, pd.DataFrame):
            t, j = int(m.group(1)), int(m.group(2))
            e.args = (f"{e} [row {returns.index[t]!r}, column {returns.columns[j]!r}]",)
        raise


def _labelled(values, columns, name=None):
    if columns is None:
        return values
    import pandas as pd

    return pd.Series(values, index=columns, name=name)


def portfolio_moments(returns):
    """(mean, covariance) per period of a (periods, assets) return matrix,
    ddof 1: a Series and a DataFrame labelled by a DataFrame's columns."""
    R, columns = _matrix(returns)
    mean, cov = np.empty(R.shape[1]), np.empty((R.shape[1], R.shape[1]))
    _check_matrix(lib.fcast_portfolio_moments(_ptr(R), R.shape[0], R.shape[1], _ptr(mean), _ptr(cov)), returns)
    if columns is None:
        return mean, cov
    import pandas as pd

    return pd.Series(mean, index=columns, name="mean"), pd.DataFrame(cov, index=columns, columns=columns)


def min_variance_weights(returns):
    """The fully invested (weights summing to 1, shorts allowed) portfolio of
    least variance: a Series indexed by a DataFrame's columns, or an array."""
    R, columns = _matrix(returns)
    w = np.empty(R.shape[1])
    _check_matrix(lib.fcast_portfolio_min_variance(_ptr(R), R.shape[0], R.shape[1], _ptr(w)), returns)
    return _labelled(w, columns, "min_variance")


def target_return_weights(returns, target):
    """The fully invested portfolio of least variance whose mean return per
    period is `target` (an annual target over 252 periods: target / 252)."""
    R, columns = _matrix(returns)
    w = np.empty(R.shape[1])
    _check_matrix(lib.fcast_portfolio_target_return(_ptr(R), R.shape[0], R.shape[1], float(target), _ptr(w)),
                  returns)
    return _labelled(w, columns, "target_return")


# ------------------------------------------------------------------ backtests

class _BacktestConfig(ctypes.Structure):
    _fields_ = [(name, c_double) for name in ("cost_bps", "slippage_bps", "fixed_cost", "capital", "size_fraction",
                                              "vol_target")] + \
               [("vol_window", c_size_t)] + \
               [(name, c_double) for name in ("max_leverage", "stop_loss", "take_profit", "periods_per_year")]


_STAT_FIELDS = ("total_return", "annual_return", "annual_volatility", "sharpe", "sortino", "calmar", "max_drawdown")


class _BacktestStats(ctypes.Structure):
    _fields_ = [(name, c_double) for name in _STAT_FIELDS] + [("max_drawdown_bars", c_size_t)] + \
               [("turnover", c_double), ("hit_rate", c_double), ("trades", c_size_t), ("closed_trades", c_size_t),
                ("end_equity", c_double)]


class _BacktestTrade(ctypes.Structure):
    _fields_ = [(name, c_size_t) for name in ("series", "entry_row", "exit_row", "bars")] + [("direction", c_int)] + \
               [(name, c_double) for name in ("size", "entry_price", "exit_price", "pnl", "ret")] + \
               [("exit_reason", ctypes.c_char_p)]


class _Columns(ctypes.Structure):
    _fields_ = [("n", c_size_t), ("names", POINTER(ctypes.c_char_p)), ("values", POINTER(_DOUBLE_P))]


_INT64_P = POINTER(ctypes.c_int64)
for _name, _restype, _argtypes in (
        ("fcast_backtest_config_init", None, [c_void_p]),
        ("fcast_signal_from_positions", c_int, [c_size_t, _DOUBLE_P, POINTER(c_void_p)]),
        ("fcast_signal_from_rule", c_int, [ctypes.c_char_p, c_int, c_size_t, _INT64_P, c_void_p, POINTER(c_void_p)]),
        ("fcast_signal_free", None, [c_void_p]),
        ("fcast_backtest_signal", c_int, [c_void_p, c_void_p, c_size_t, _INT64_P, _DOUBLE_P, c_void_p, c_void_p]),
        ("fcast_backtest_curve", c_int, [c_void_p, c_size_t, c_void_p, c_size_t, _INT64_P, _DOUBLE_P] +
         4 * [_DOUBLE_P]),
        ("fcast_backtest_trades", c_int, [c_void_p, c_size_t, c_void_p, c_size_t, _INT64_P, _DOUBLE_P,
                                          POINTER(POINTER(_BacktestTrade)), POINTER(c_size_t)]),
        ("fcast_backtest_trades_free", None, [c_void_p])):
    getattr(lib, _name).restype, getattr(lib, _name).argtypes = _restype, _argtypes


@dataclasses.dataclass
class BacktestResult:
    """quant.backtest's answer: metrics (a DataFrame, a row per symbol,
    the columns of `fcast quant backtest --out`), trades (a row per trade:
    symbol, entry and exit bar labels, direction, size, prices, return,
    pnl, bars, exit_reason) and equity (a row per bar and symbol: position,
    equity, drawdown, returns), as pandas DataFrames."""
    metrics: object
    trades: object
    equity: object


def _bars_by_symbols(x, name):
    """(values (symbols, bars) C-contiguous, bar labels, symbol labels) of a
    1-D array/Series (one symbol) or a (bars, symbols) array/DataFrame."""
    pd = sys.modules.get("pandas")
    index = columns = None
    if pd is not None and isinstance(x, pd.DataFrame):
        index, columns = x.index, list(x.columns)
    elif pd is not None and isinstance(x, pd.Series):
        index, columns = x.index, [x.name if x.name is not None else "0"]
    a = _float64(x, name)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise ValueError(f"fcast.quant: {name} must be (bars,) or (bars, symbols), got shape {a.shape}")
    if columns is None:
        columns = [str(j) for j in range(a.shape[1])]
    if index is None:
        index = np.arange(a.shape[0])
    return np.ascontiguousarray(a.T), index, [str(c) for c in columns]


def _config(cost_bps, slippage_bps, fixed_cost, capital, size, vol_target, vol_window, max_leverage, stop_loss,
            take_profit, periods_per_year):
    c = _BacktestConfig()
    lib.fcast_backtest_config_init(ctypes.byref(c))
    for field, value in (("cost_bps", cost_bps), ("slippage_bps", slippage_bps), ("fixed_cost", fixed_cost),
                         ("capital", capital), ("size_fraction", size), ("vol_target", vol_target),
                         ("max_leverage", max_leverage), ("stop_loss", stop_loss), ("take_profit", take_profit),
                         ("periods_per_year", periods_per_year)):
        setattr(c, field, float(value))
    c.vol_window = int(vol_window)
    return c


def _make_signal(positions, rule, short, close, indptr, shape):
    sig = c_void_p()
    if (positions is None) == (rule is None):
        raise ValueError("fcast.quant.backtest: give positions or rule, one of them")
    if rule is not None:
        names = (ctypes.c_char_p * 1)(b"close")
        values = (_DOUBLE_P * 1)(_ptr(close))
        cols = _Columns(1, names, values)
        check(lib.fcast_signal_from_rule(str(rule).encode(), int(bool(short)), shape[0], indptr, ctypes.byref(cols),
                                         ctypes.byref(sig)))
        return sig
    pos, _, _ = _bars_by_symbols(positions, "positions")
    if pos.shape != shape:
        raise ValueError(f"fcast.quant.backtest: positions have shape {pos.T.shape}, the prices {shape[::-1]}")
    check(lib.fcast_signal_from_positions(pos.size, _ptr(pos), ctypes.byref(sig)))
    return sig


def _trades_frame(pd, sig, cfg, n_series, indptr, close, index, symbols, by_row=False, combo=0):
    """combo's trades; index labels the bars (by_row: each row of the layout)."""
    tr, n = POINTER(_BacktestTrade)(), c_size_t()
    check(lib.fcast_backtest_trades(sig, combo, ctypes.byref(cfg), n_series, indptr, _ptr(close), ctypes.byref(tr),
                                    ctypes.byref(n)))
    try:
        label = (lambda row: index[row]) if by_row else (lambda row: index[row % len(index)])  # noqa: E731
        rows = [dict(symbol=symbols[t.series], entry=label(t.entry_row), exit=label(t.exit_row),
                     direction="long" if t.direction > 0 else "short", size=t.size, entry_price=t.entry_price,
                     exit_price=t.exit_price, ret=t.ret, pnl=t.pnl, bars=int(t.bars),
                     exit_reason=t.exit_reason.decode()) for t in tr[:n.value]]
    finally:
        lib.fcast_backtest_trades_free(tr)
    columns = ["symbol", "entry", "exit", "direction", "size", "entry_price", "exit_price", "ret", "pnl", "bars",
               "exit_reason"]
    return pd.DataFrame(rows, columns=columns).rename(columns={"ret": "return"})


def backtest(close, positions=None, *, rule=None, short=False, cost_bps=0.0, slippage_bps=0.0, fixed_cost=0.0,
             capital=1e6, size=1.0, vol_target=0.0, vol_window=20, max_leverage=1.0, stop_loss=0.0, take_profit=0.0,
             periods_per_year=PERIODS_PER_YEAR):
    """Trade a signal as `fcast quant backtest` does (docs/quant-analytics.md),
    with vectorbt's arithmetic and metrics.

    close: closing prices, (bars,) or (bars, symbols) (an array, Series or
    DataFrame; NaN where missing, skipped with its bar). positions: the
    target position of each bar in [-1, 1], a fraction of equity decided on
    that bar's close, the same shape (NaN: flat); or rule: a rule as text
    over the close ("cross(sma:10, sma:50)", "long: crossup(close, sma:20);
    exit: below(rsi:14, 30)"), short for long-short. The costs, sizing and
    stops are the CLI's flags: cost_bps (--cost-bps), slippage_bps,
    fixed_cost, capital, size (--size fixed:F), vol_target, vol_window,
    max_leverage, stop_loss, take_profit, periods_per_year.

    Returns a BacktestResult of pandas DataFrames: metrics, trades, equity."""
    import pandas as pd

    px, index, symbols = _bars_by_symbols(close, "close")
    n_series, bars = px.shape
    indptr = np.arange(0, px.size + 1, bars, dtype=np.int64)
    ip = indptr.ctypes.data_as(_INT64_P)
    cfg = _config(cost_bps, slippage_bps, fixed_cost, capital, size, vol_target, vol_window, max_leverage, stop_loss,
                  take_profit, periods_per_year)
    sig = _make_signal(positions, rule, short, px, ip, px.shape)
    try:
        stats = (_BacktestStats * n_series)()
        check(lib.fcast_backtest_signal(sig, ctypes.byref(cfg), n_series, ip, _ptr(px), None, stats))
        metrics = pd.DataFrame([{f[0]: getattr(s, f[0]) for f in _BacktestStats._fields_} for s in stats],
                               index=pd.Index(symbols, name="symbol"))
        curve = [np.empty(px.size) for _ in range(4)]
        check(lib.fcast_backtest_curve(sig, 0, ctypes.byref(cfg), n_series, ip, _ptr(px), *[_ptr(a) for a in curve]))
        equity = pd.DataFrame({"symbol": np.repeat(symbols, bars), "ds": np.tile(np.asarray(index), n_series),
                               "position": curve[0], "equity": curve[1], "drawdown": curve[2], "returns": curve[3]})
        trades = _trades_frame(pd, sig, cfg, n_series, ip, px, index, symbols)
    finally:
        lib.fcast_signal_free(sig)
    return BacktestResult(metrics, trades, equity.dropna(subset=["equity"]).reset_index(drop=True))


_TABLE_FNS = (
    ("fcast_table_read_prices", c_int, [ctypes.c_char_p, POINTER(c_void_p)]),
    ("fcast_table_n_series", c_size_t, [c_void_p]),
    ("fcast_table_id", ctypes.c_char_p, [c_void_p, c_size_t]),
    ("fcast_table_indptr", _INT64_P, [c_void_p]),
    ("fcast_table_values", _DOUBLE_P, [c_void_p]),
    ("fcast_table_ds_text", c_int, [c_void_p, c_size_t, ctypes.c_char_p, c_size_t]),
    ("fcast_table_free", None, [c_void_p]),
    ("fcast_signal_read_csv", c_int, [ctypes.c_char_p, ctypes.c_char_p, c_void_p, POINTER(c_void_p)]),
    ("fcast_signal_from_forecast_csv", c_int, [ctypes.c_char_p, c_void_p, c_void_p, POINTER(c_void_p)]),
    ("fcast_signal_n_combinations", c_size_t, [c_void_p]),
    ("fcast_signal_n_params", c_size_t, [c_void_p]),
    ("fcast_signal_param_name", ctypes.c_char_p, [c_void_p, c_size_t]),
    ("fcast_signal_params", _DOUBLE_P, [c_void_p, c_size_t]))
for _name, _restype, _argtypes in _TABLE_FNS:
    getattr(lib, _name).restype, getattr(lib, _name).argtypes = _restype, _argtypes


class _ForecastRule(ctypes.Structure):
    _fields_ = [("model", ctypes.c_char_p), ("horizon", c_size_t), ("long_above", ctypes.c_char_p),
                ("short_below", ctypes.c_char_p), ("allow_short", c_int)]


def _table_ds(t, n_rows):
    buf = ctypes.create_string_buffer(64)
    out = []
    for i in range(n_rows):
        check(lib.fcast_table_ds_text(t, i, buf, 64))
        out.append(buf.value.decode())
    return np.array(out)


def _range_text(value):
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        return ":".join(f"{float(v):.17g}" for v in value).encode()
    return (value if isinstance(value, str) else f"{float(value):.17g}").encode()


def backtest_files(data, *, signal=None, signal_column=None, forecast=None, model=None, horizon=0, long_above=None,
                   short_below=None, short=False, combination=None, **costs):
    """`fcast quant backtest --signal FILE` or `--from-forecast FILE` from
    Python: data is the price CSV (unique_id, ds, y or close); signal a
    positions file (signal_column, default "position"); forecast the output
    of fcast predict or fcast cv (model, horizon, long_above and
    short_below as numbers, "start:stop:step" texts or (start, stop, step)
    tuples, short for long-short). costs are quant.backtest's keywords
    (cost_bps, slippage_bps, fixed_cost, capital, size, vol_target, ...).

    Returns a BacktestResult: metrics has a row per (combination, symbol)
    with the combination's number (from 1) and parameters; trades and
    equity are those of `combination` (needed when there are several;
    "best": the best Sharpe), with ds as the files spell them."""
    import pandas as pd

    if (signal is None) == (forecast is None):
        raise ValueError("fcast.quant.backtest_files: give signal or forecast, one of them")
    defaults = dict(cost_bps=0.0, slippage_bps=0.0, fixed_cost=0.0, capital=1e6, size=1.0, vol_target=0.0,
                    vol_window=20, max_leverage=1.0, stop_loss=0.0, take_profit=0.0,
                    periods_per_year=PERIODS_PER_YEAR)
    unknown = set(costs) - set(defaults)
    if unknown:
        raise TypeError(f"fcast.quant.backtest_files: unknown keyword(s) {sorted(unknown)}")
    cfg = _config(**{**defaults, **costs})
    t, sig = c_void_p(), c_void_p()
    check(lib.fcast_table_read_prices(str(data).encode(), ctypes.byref(t)))
    try:
        if signal is not None:
            check(lib.fcast_signal_read_csv(str(signal).encode(), signal_column.encode() if signal_column else None, t,
                                            ctypes.byref(sig)))
        else:
            rule = _ForecastRule(model.encode() if model else None, int(horizon), _range_text(long_above),
                                 _range_text(short_below), int(bool(short)))
            check(lib.fcast_signal_from_forecast_csv(str(forecast).encode(), ctypes.byref(rule), t, ctypes.byref(sig)))
        return _run_table(pd, t, sig, cfg, combination)
    finally:
        lib.fcast_signal_free(sig)
        lib.fcast_table_free(t)


def _run_table(pd, t, sig, cfg, combination):
    S, n = lib.fcast_table_n_series(t), lib.fcast_signal_n_combinations(sig)
    ids = [lib.fcast_table_id(t, i).decode() for i in range(S)]
    ip, close = lib.fcast_table_indptr(t), lib.fcast_table_values(t)
    rows = ip[S]
    stats = (_BacktestStats * (n * S))()
    check(lib.fcast_backtest_signal(sig, ctypes.byref(cfg), S, ip, close, None, stats))
    names = [lib.fcast_signal_param_name(sig, i).decode() for i in range(lib.fcast_signal_n_params(sig))]
    records = []
    for c in range(n):
        params = lib.fcast_signal_params(sig, c)
        for s in range(S):
            m = stats[c * S + s]
            records.append(dict(symbol=ids[s], combination=c + 1, **{p: params[i] for i, p in enumerate(names)},
                                **{f[0]: getattr(m, f[0]) for f in _BacktestStats._fields_}))
    metrics = pd.DataFrame(records)
    if combination is None and n > 1:
        return BacktestResult(metrics, None, None)
    combo = 0 if combination is None else \
        int(metrics.sharpe.idxmax() // S) if combination == "best" else int(combination) - 1
    if not 0 <= combo < n:
        raise ValueError(f"fcast.quant.backtest_files: combination = {combination}: expected 1 to {n} or 'best'")
    ds = _table_ds(t, rows)
    curve = [np.empty(rows) for _ in range(4)]
    check(lib.fcast_backtest_curve(sig, combo, ctypes.byref(cfg), S, ip, close, *[_ptr(a) for a in curve]))
    symbol = np.repeat(ids, [ip[i + 1] - ip[i] for i in range(S)])
    equity = pd.DataFrame({"symbol": symbol, "ds": ds, "position": curve[0], "equity": curve[1],
                           "drawdown": curve[2], "returns": curve[3]}).dropna(subset=["equity"]).reset_index(drop=True)
    trades = _trades_frame(pd, sig, cfg, S, ip, np.ctypeslib.as_array(close, shape=(rows,)), ds, ids, by_row=True,
                           combo=combo)
    return BacktestResult(metrics, trades, equity)


# The rest of fcast.quant lives in its own files, one topic each; they use
# the helpers above, so they are imported last.
from ._quant_options import *    # noqa: E402,F401,F403
from ._quant_portfolio import *  # noqa: E402,F401,F403
