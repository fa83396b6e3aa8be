"""fcast.ta.abstract: talib.abstract's Function, over fcast's engine.

    from fcast.ta import abstract                  # was: from talib import abstract
    atr = abstract.Function("ATR")
    atr(ohlcv_df, timeperiod=10)                   # a Series (a DataFrame for several outputs)
    abstract.STOCH({"high": h, "low": l, "close": c})   # a list of arrays

A Function reads its inputs by column name from a dict of arrays or a
pandas DataFrame (input_names says which: "high", "low", "close" for
ATR; the price "close" for SMA, another with input_names = {"price":
"open"}), takes TA-Lib's parameters positionally or by keyword (or
set_parameters), and reports info, lookback and output_names as
talib.abstract does. A DataFrame in gives a Series (one output) or a
DataFrame (several) with its index; a dict gives an array or a list.
"""
import ctypes
import sys
from collections import OrderedDict

from . import _CATALOG, _run
from .._lib import check, lib

_KEYS = {"real": "price", "real0": "price0", "real1": "price1", "periods": "periods"}


def _input_names(desc):
    """talib.abstract's input_names: {"price": "close"}, {"prices": [...]}, ..."""
    names = OrderedDict()
    for i in desc["inputs"]:
        key = _KEYS.get(i["role"])
        if key:
            names[key] = i["column"]
        else:
            names.setdefault("prices", []).append(i["column"])
    return names


class Function:
    """One of TA-Lib's functions, as talib.abstract.Function(name)."""

    def __init__(self, name, *args, **kwargs):
        key = name.upper()
        if key not in _CATALOG or not _CATALOG[key]["available"]:
            raise Exception(f"Function {name} not supported by fcast.ta")   # ta-lib's wording and type
        self._desc = _CATALOG[key]
        self._input_names = _input_names(self._desc)
        self._params = OrderedDict((p["name"], int(p["default"]) if p["type"] != "real" else float(p["default"]))
                                   for p in self._desc["parameters"])
        self._inputs = None
        self.set_function_args(*args, **kwargs)

    # -- description, as talib.abstract --------------------------------
    @property
    def info(self):
        d = self._desc
        return {"name": d["name"], "group": d["group"], "display_name": d["display_name"],
                "function_flags": ["Function has an unstable period"] if d["unstable_period"] else None,
                "input_names": OrderedDict(self._input_names), "parameters": OrderedDict(self._params),
                "output_flags": OrderedDict((o, ["Line"]) for o in d["outputs"]),
                "output_names": list(d["outputs"])}

    @property
    def output_names(self):
        return list(self._desc["outputs"])

    @property
    def input_names(self):
        return OrderedDict(self._input_names)

    @input_names.setter
    def input_names(self, names):
        for key, value in names.items():
            if key not in self._input_names:
                raise KeyError(f"{self._desc['name']} has no input {key!r} (it has {list(self._input_names)})")
            self._input_names[key] = value

    @property
    def parameters(self):
        return OrderedDict(self._params)

    @parameters.setter
    def parameters(self, params):
        self.set_parameters(params)

    def set_parameters(self, params=None, **kwargs):
        for key, value in dict(params or {}, **kwargs).items():
            if key not in self._params:
                raise KeyError(f"{self._desc['name']} has no parameter {key!r} (it has {list(self._params)})")
            self._params[key] = value

    def set_input_arrays(self, input_arrays):
        self._inputs = input_arrays
        return True

    def set_function_args(self, *args, **kwargs):
        args = list(args)
        if args and not isinstance(args[0], (int, float)):
            self.set_input_arrays(args.pop(0))
        for name, value in zip(list(self._params), args):
            self._params[name] = value
        for key, value in kwargs.items():
            if key in self._params:
                self._params[key] = value
            elif key in self._input_names:
                self._input_names[key] = value
            else:
                raise TypeError(f"{self._desc['name']}() got an unexpected keyword argument {key!r}")

    @property
    def lookback(self):
        spec = ":".join([self._desc["name"].lower()] + [str(getattr(v, "value", v)) for v in self._params.values()])
        n = ctypes.c_size_t()
        check(lib.fcast_indicator_lookback(spec.encode(), ctypes.byref(n)))
        return n.value

    # -- running ----------------------------------------------------------
    def _columns(self):
        cols = []
        for value in self._input_names.values():
            cols.extend([value] if isinstance(value, str) else value)
        return cols

    def run(self, input_arrays=None):
        if input_arrays is not None:
            self.set_input_arrays(input_arrays)
        if self._inputs is None:
            raise Exception(f"{self._desc['name']}: no input arrays (set_input_arrays or call with them)")
        data = self._inputs
        arrays = []
        for col in self._columns():
            try:
                arrays.append(data[col])
            except (KeyError, IndexError):
                raise Exception(f"input_arrays parameter missing required data key: {col}") from None
        outs = _run(self._desc, arrays, dict(self._params))
        outs = list(outs) if isinstance(outs, tuple) else [outs]
        pd = sys.modules.get("pandas")
        if pd is not None and isinstance(data, pd.DataFrame):
            frame = pd.DataFrame({n: o.to_numpy() if hasattr(o, "to_numpy") else o
                                  for n, o in zip(self.output_names, outs)}, index=data.index)
            return frame[self.output_names[0]] if len(outs) == 1 else frame
        return outs[0] if len(outs) == 1 else outs

    @property
    def outputs(self):
        return self.run()

    def __call__(self, *args, **kwargs):
        self.set_function_args(*args, **kwargs)
        return self.run()

    def __repr__(self):
        return f"<fcast.ta.abstract.Function {self._desc['name']}: {self._desc['display_name']}>"


def __getattr__(name):
    """abstract.ATR is Function('ATR'), as in talib.abstract."""
    if name.upper() == name and name in _CATALOG and _CATALOG[name]["available"]:
        return Function(name)
    raise AttributeError(f"module 'fcast.ta.abstract' has no attribute '{name}'")
