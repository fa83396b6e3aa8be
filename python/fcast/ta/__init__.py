"""fcast.ta: TA-Lib's functions, by TA-Lib's names, arguments and defaults,
computed by fcast's C engine with TA-Lib's values.

A script that uses the ta-lib package switches by its import:

    import fcast.ta as talib                     # was: import talib
    atr = talib.ATR(high, low, close, timeperiod=14)
    slowk, slowd = talib.STOCH(high, low, close)
    upper, middle, lower = talib.BBANDS(close, 20, 2.0, 2.0, matype=talib.MA_Type.EMA)
    engulfing = talib.CDLENGULFING(open, high, low, close)   # int32: -100, 0, 100

Every function of TA-Lib 0.8.1 (the library inside the ta-lib 0.8.2 wheel)
that fcast computes is here, made from the library's registry
(fcast_ta_functions_json): TA-Lib's signature (inputs, then parameters
with TA-Lib's defaults, positional or by keyword), its outputs (a tuple
when there are several, in TA-Lib's order) and its values: they equal
TA-Lib's on the committed fixtures (tests/fixtures/talib, made by the
ta-lib package on real prices), most to the bit, every one within 1e-12
relative. Like TA-Lib, an output has one value per input value, NaN for
the lookback; leading NaNs of the inputs are skipped and a later NaN
carries through TA-Lib's arithmetic. Integer outputs (the patterns,
MAXINDEX, HT_TRENDMODE, ...) are int32 arrays with 0 for the lookback, as
ta-lib returns them.

Inputs, and where they go past ta-lib's:

* numpy arrays, lists, or anything numpy turns into an array; a
  contiguous float64 array goes to C as it is, without a copy; other
  dtypes are converted (ta-lib raises "input array type is not double").
* a pandas Series gives Series out with the input's index, as ta-lib's
  pandas wrapper returns them.
* a 2-D array computes every row as a series of its own, in parallel on
  all cores (ta-lib takes one series per call): outputs have its shape.
* timeperiod-like arguments must be integers (TypeError, as from ta-lib);
  a value out of TA-Lib's range is an fcast.FcastValueError (a ValueError)
  naming the function, the parameter and the range, where ta-lib raises a
  bare Exception with TA_BAD_PARAM.

`fcast.ta.abstract.Function('ATR')` takes a dict or DataFrame of open,
high, low, close, volume columns, as talib.abstract does;
get_functions(), get_function_groups() and MA_Type are TA-Lib's too.
"""
import ctypes
import enum
import json
import numbers
import sys

import numpy as np

from .._lib import error, lib

_DOUBLE_P = ctypes.POINTER(ctypes.c_double)


class MA_Type(enum.IntEnum):
    """TA-Lib's moving-average types (talib.MA_Type): the matype argument."""
    SMA = 0
    EMA = 1
    WMA = 2
    DEMA = 3
    TEMA = 4
    TRIMA = 5
    KAMA = 6
    MAMA = 7
    T3 = 8
    HMA = 9
    NONE = 10
    DEFAULT = 11
    ZLEMA = 12
    RMA = 13


def _catalog():
    return json.loads(lib.fcast_ta_functions_json().decode())


_CATALOG = {f["name"]: f for f in _catalog()}

def _arg_names(desc):
    """ta-lib's argument names for the inputs, the registry's roles: a price
    series by its column ("high"), one array "real", two "real0", "real1",
    MAVP's "periods"."""
    return [i["role"] for i in desc["inputs"]]


def _param_value(func, p, value):
    """The parameter as the spec's text: integers whole, reals finite-or-not
    as C reads them (the range check is C's)."""
    if p["type"] in ("integer", "matype"):
        value = getattr(value, "value", value)
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"fcast.ta.{func}: {p['name']} must be an integer, got {value!r}")
        return str(int(value))
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"fcast.ta.{func}: {p['name']} must be a number, got {value!r}")
    return repr(float(value))


def _as_array(func, name, value):
    """(float64 C-contiguous array, pandas index or None)."""
    pd = sys.modules.get("pandas")   # a Series exists only where pandas was imported
    index = None
    if pd is not None and isinstance(value, pd.Series):
        index = value.index
        value = value.to_numpy() if value.dtype == np.float64 else value.to_numpy(dtype=np.float64, na_value=np.nan)
    x = np.asarray(value)
    if x.dtype != np.float64:
        x = x.astype(np.float64)
    if x.ndim not in (1, 2):
        raise ValueError(f"fcast.ta.{func}: {name} must be one- or two-dimensional, got shape {x.shape}")
    return np.ascontiguousarray(x), index


def _inputs(func, names, values):
    arrays, index = [], None
    for name, value in zip(names, values):
        x, idx = _as_array(func, name, value)
        if index is None:
            index = idx
        if arrays and x.shape != arrays[0].shape:
            raise ValueError(f"fcast.ta.{func}: {name} has shape {x.shape}, {names[0]} {arrays[0].shape}: "
                             "the inputs must have the same length (ta-lib: input array lengths are different)")
        arrays.append(x)
    return arrays, index


def _call(desc, spec, call, arrays):
    """Runs spec over the arrays (one series, or one per row): outputs shaped as the input."""
    shape = arrays[0].shape
    rows, n = (1, shape[0]) if len(shape) == 1 else shape
    indptr = (ctypes.c_int64 * (rows + 1))(*[r * n for r in range(rows + 1)])
    ins = (_DOUBLE_P * len(arrays))(*[a.ctypes.data_as(_DOUBLE_P) for a in arrays])
    outs = [np.empty(shape) for _ in desc["outputs"]]
    optr = (_DOUBLE_P * len(outs))(*[o.ctypes.data_as(_DOUBLE_P) for o in outs])
    status = lib.fcast_indicator_inputs(spec.encode(), rows, indptr, ins, len(arrays), optr, len(outs))
    if status:
        e = error(status)
        raise type(e)(status, f"{call}: {e}")
    return outs


def _finish(desc, outs, index):
    """ta-lib's output types: int32 (0 in the lookback) for integer outputs,
    Series for a Series input, a tuple when there are several."""
    ints = set(desc["integer_outputs"])
    done = []
    for name, o in zip(desc["outputs"], outs):
        if name in ints:
            o = np.where(np.isnan(o), 0, o).astype(np.int32)
        if index is not None:
            import pandas as pd

            o = pd.Series(o, index=index)
        done.append(o)
    return tuple(done) if len(done) > 1 else done[0]


def _run(desc, args, kwargs):
    func = desc["name"]
    names = _arg_names(desc)
    params = desc["parameters"]
    bound = _bind(func, args, kwargs)
    text = [_param_value(func, p, bound[p["name"]]) for p in params]
    call = f"{func}(" + ", ".join(f"{p['name']}={t}" for p, t in zip(params, text)) + ")"
    spec = ":".join([func.lower()] + text)
    arrays, index = _inputs(func, names, [bound[n] for n in names])
    return _finish(desc, _call(desc, spec, call, arrays), index)


def _bind(func, args, kwargs):
    """Python's own binding of args and kwargs to TA-Lib's signature, defaults filled."""
    try:
        bound = _SIGNATURES[func].bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"fcast.ta.{func}: {e}") from None
    bound.apply_defaults()
    return bound.arguments


def _default(p):
    return int(p["default"]) if p["type"] != "real" else float(p["default"])


def _signature(desc):
    import inspect

    P = inspect.Parameter
    ps = [P(n, P.POSITIONAL_OR_KEYWORD) for n in _arg_names(desc)]
    ps += [P(p["name"], P.POSITIONAL_OR_KEYWORD, default=_default(p)) for p in desc["parameters"]]
    return inspect.Signature(ps)


def _doc(desc):
    ins = ", ".join(_arg_names(desc))
    ps = "; ".join(f"{p['name']} = {_default(p)!r} ({p['type']}, {p['min']:g} to {p['max']:g})"
                   for p in desc["parameters"]) or "none"
    return (f"{desc['display_name']} ({desc['group']}): TA-Lib's {desc['name']}.\n\n"
            f"Inputs: {ins}. Parameters: {ps}.\nOutputs: {', '.join(desc['outputs'])}. "
            f"Lookback at the defaults: {desc['lookback']}.")


def _make(desc):
    def function(*args, **kwargs):
        return _run(desc, args, kwargs)

    function.__name__ = function.__qualname__ = desc["name"]
    function.__signature__ = _SIGNATURES[desc["name"]]
    function.__doc__ = _doc(desc)
    function.__module__ = __name__
    return function


_SIGNATURES = {name: _signature(d) for name, d in _CATALOG.items()}
__all__ = sorted(name for name, d in _CATALOG.items() if d["available"])
for _name in __all__:
    globals()[_name] = _make(_CATALOG[_name])
__all__ += ["MA_Type", "get_functions", "get_function_groups", "abstract", "set_unstable_period",
            "get_unstable_period"]


def set_unstable_period(func_id, period):
    """talib.set_unstable_period: a function with an unstable period (ADX,
    ATR, EMA, RSI, the HT_ functions, ...; "ALL" for every one) drops its
    first `period` values, as TA-Lib's does. Process-wide, as in TA-Lib.
    While one is set, the functions TA-Lib feeds it into (MACD, STOCHRSI,
    any with a matype, ...) raise fcast.FcastValueError rather than give
    other values than TA-Lib's."""
    from .._lib import check

    check(lib.fcast_ta_set_unstable_period(str(func_id).upper().encode(), int(period)))


def get_unstable_period(func_id):
    """talib.get_unstable_period."""
    from .._lib import check

    n = ctypes.c_size_t()
    check(lib.fcast_ta_unstable_period(str(func_id).upper().encode(), ctypes.byref(n)))
    return n.value


def get_functions():
    """TA-Lib's function names that fcast computes, as talib.get_functions()."""
    return [n for n in _CATALOG if _CATALOG[n]["available"]]


def get_function_groups():
    """{group: [names]} as talib.get_function_groups()."""
    groups = {}
    for name in get_functions():
        groups.setdefault(_CATALOG[name]["group"], []).append(name)
    return groups


def __getattr__(name):
    """A TA-Lib function fcast does not compute yet, or no TA-Lib name: AttributeError."""
    if name in _CATALOG:
        raise AttributeError(f"module 'fcast.ta' has no attribute '{name}' (TA-Lib's {name} is not in fcast yet)")
    raise AttributeError(f"module 'fcast.ta' has no attribute '{name}'")


from . import abstract  # noqa: E402  (it uses the functions above)
