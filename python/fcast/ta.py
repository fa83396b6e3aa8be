"""fcast.ta: TA-Lib's indicator functions, by TA-Lib's names, arguments and
defaults, computed by fcast's C engine with TA-Lib's values.

A script that uses the ta-lib package switches by its import:

    import fcast.ta as ta                       # was: import talib as ta
    sma = ta.SMA(close, timeperiod=20)
    upper, middle, lower = ta.BBANDS(close, timeperiod=20, nbdevup=2.0, nbdevdn=2.0)
    macd, signal, hist = ta.MACD(close)

SMA, EMA, WMA, BBANDS, RSI, MACD, MOM, ROC and STDDEV are here, with the
signatures of ta-lib's functions, TA-Lib 0.8.1's defaults and its
values: the engine's outputs equal TA-Lib's on the fixtures the tests
compare with (tests/fixtures/quant, made by the ta-lib package), most of
them to the bit. Like TA-Lib, each output has one value per input value,
NaN for the lookback; leading NaNs of the input are skipped and a later NaN
carries through the running sums (the one difference: TA-Lib's RSI turns
to 0 after a NaN, fcast's stays NaN; docs/quant-indicators.md).

Every other TA-Lib function is absent: `fcast.ta.ADX` raises
AttributeError, rather than a stub that fails later. BBANDS takes
matype=0 (a simple moving average) only; another raises
NotImplementedError.

Inputs, and where they differ from ta-lib's:

* a one-dimensional numpy array or anything numpy turns into one (ta-lib
  takes ndarrays only). A contiguous float64 array goes to C as it is,
  without a copy; another dtype (integers, float32) is converted to
  float64 (ta-lib raises "input array type is not double").
* a pandas Series gives Series out, with the input's index and no name,
  as ta-lib's pandas wrapper returns them; a float64 Series is read from
  its own buffer (ta-lib's wrapper copies it).
* timeperiod-like arguments must be integers (TypeError otherwise, as
  from ta-lib); a value out of TA-Lib's range is an fcast.FcastValueError
  (a ValueError) whose message names the function, the argument and the
  limit, where ta-lib raises a bare Exception with TA_BAD_PARAM.
"""
import ctypes
import numbers
import sys

import numpy as np

from ._lib import error, lib

__all__ = ["SMA", "EMA", "WMA", "BBANDS", "RSI", "MACD", "MOM", "ROC", "STDDEV"]

_DOUBLE_P = ctypes.POINTER(ctypes.c_double)


def _int(func, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"fcast.ta.{func}: {name} must be an integer, got {value!r}")
    return int(value)


def _real(func, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"fcast.ta.{func}: {name} must be a number, got {value!r}")
    return repr(float(value))


def _as_input(func, real):
    """(the float64 contiguous values, the pandas index or None)."""
    pd = sys.modules.get("pandas")   # a Series exists only where pandas was imported
    index = None
    if pd is not None and isinstance(real, pd.Series):
        index = real.index
        real = real.to_numpy() if real.dtype == np.float64 else real.to_numpy(dtype=np.float64, na_value=np.nan)
    x = np.asarray(real)
    if x.ndim != 1:
        raise ValueError(f"fcast.ta.{func}: real must be one-dimensional, got shape {x.shape}")
    if x.dtype != np.float64:
        x = x.astype(np.float64)
    return np.ascontiguousarray(x), index


def _compute(func, call, spec, real, n_out):
    """Runs the engine's indicator `spec` on real: one output array, or a tuple."""
    x, index = _as_input(func, real)
    outs = [np.empty(len(x)) for _ in range(n_out)]
    ptrs = (_DOUBLE_P * n_out)(*[o.ctypes.data_as(_DOUBLE_P) for o in outs])
    status = lib.fcast_indicator(spec.encode(), x.ctypes.data_as(_DOUBLE_P), len(x), ptrs, n_out)
    if status:
        e = error(status)
        raise type(e)(status, f"{call}: {e}")
    if index is not None:
        import pandas as pd

        outs = [pd.Series(o, index=index) for o in outs]
    return tuple(outs) if n_out > 1 else outs[0]


def _single(func, kind, real, timeperiod):
    period = _int(func, "timeperiod", timeperiod)
    return _compute(func, f"{func}(timeperiod={period})", f"{kind}:{period}", real, 1)


def SMA(real, timeperiod=30):
    """Simple Moving Average (Overlap Studies): the mean of the last timeperiod values.

    timeperiod: 1 to 100000 (default 30). Lookback: timeperiod - 1."""
    return _single("SMA", "sma", real, timeperiod)


def EMA(real, timeperiod=30):
    """Exponential Moving Average (Overlap Studies), k = 2 / (timeperiod + 1),
    seeded with the SMA of the first timeperiod values, as TA-Lib.

    timeperiod: 1 to 100000 (default 30). Lookback: timeperiod - 1."""
    return _single("EMA", "ema", real, timeperiod)


def WMA(real, timeperiod=30):
    """Weighted Moving Average (Overlap Studies): weights 1 .. timeperiod, the latest heaviest.

    timeperiod: 1 to 100000 (default 30). Lookback: timeperiod - 1."""
    return _single("WMA", "wma", real, timeperiod)


def RSI(real, timeperiod=14):
    """Relative Strength Index (Momentum Indicators), Wilder's smoothing as TA-Lib.

    timeperiod: 2 to 100000 (default 14). Lookback: timeperiod."""
    return _single("RSI", "rsi", real, timeperiod)


def MOM(real, timeperiod=10):
    """Momentum (Momentum Indicators): real[t] - real[t - timeperiod].

    timeperiod: 1 to 100000 (default 10). Lookback: timeperiod."""
    return _single("MOM", "mom", real, timeperiod)


def ROC(real, timeperiod=10):
    """Rate of change (Momentum Indicators): ((real / prevPrice) - 1) * 100.

    timeperiod: 1 to 100000 (default 10). Lookback: timeperiod."""
    return _single("ROC", "roc", real, timeperiod)


def STDDEV(real, timeperiod=5, nbdev=1.0):
    """Standard Deviation (Statistic Functions): population deviation of the
    last timeperiod values, times nbdev.

    timeperiod: 2 to 100000 (default 5); nbdev: a finite number (default 1.0).
    Lookback: timeperiod - 1."""
    period, dev = _int("STDDEV", "timeperiod", timeperiod), _real("STDDEV", "nbdev", nbdev)
    return _compute("STDDEV", f"STDDEV(timeperiod={period}, nbdev={dev})", f"stddev:{period}:{dev}", real, 1)


def BBANDS(real, timeperiod=20, nbdevup=2.0, nbdevdn=2.0, matype=0):
    """Bollinger Bands (Overlap Studies): (upperband, middleband, lowerband),
    the SMA of timeperiod values plus nbdevup and minus nbdevdn population
    standard deviations.

    timeperiod: 2 to 100000 (default 20, Bollinger's: TA-Lib's since 0.8.1,
    whose changelog moved it from 5; pass timeperiod=5 for the result of an
    older ta-lib's BBANDS(real)); nbdevup, nbdevdn: finite numbers (2.0).
    matype: 0 (SMA) only; TA-Lib's other moving averages raise
    NotImplementedError. Lookback: timeperiod - 1."""
    if int(getattr(matype, "value", matype)) != 0:
        raise NotImplementedError(f"fcast.ta.BBANDS: matype={matype!r}: only matype=0 (SMA, TA-Lib's default) "
                                  "is implemented")
    period = _int("BBANDS", "timeperiod", timeperiod)
    up, dn = _real("BBANDS", "nbdevup", nbdevup), _real("BBANDS", "nbdevdn", nbdevdn)
    return _compute("BBANDS", f"BBANDS(timeperiod={period}, nbdevup={up}, nbdevdn={dn})",
                    f"bbands:{period}:{up}:{dn}", real, 3)


def MACD(real, fastperiod=12, slowperiod=26, signalperiod=9):
    """Moving Average Convergence/Divergence (Momentum Indicators):
    (macd, macdsignal, macdhist): EMA(fast) - EMA(slow), its EMA over
    signalperiod, and their difference; periods swapped when slow < fast,
    as TA-Lib does.

    fastperiod, slowperiod: 2 to 100000 (12, 26); signalperiod: 1 to 100000
    (9). Lookback: max(fast, slow) - 1 + signalperiod - 1."""
    fast, slow = _int("MACD", "fastperiod", fastperiod), _int("MACD", "slowperiod", slowperiod)
    signal = _int("MACD", "signalperiod", signalperiod)
    return _compute("MACD", f"MACD(fastperiod={fast}, slowperiod={slow}, signalperiod={signal})",
                    f"macd:{fast}:{slow}:{signal}", real, 3)


def __getattr__(name):
    """Any other name, TA-Lib's ADX included, is absent: AttributeError."""
    hint = f" (TA-Lib's {name} is not implemented; fcast.ta has {', '.join(__all__)})" if name.isupper() else ""
    raise AttributeError(f"module 'fcast.ta' has no attribute '{name}'{hint}")
