#!/usr/bin/env python3
"""The inventory of TA-Lib's functions (issue 37), from the TA-Lib package
that the indicator fixtures use:

    pip install TA-Lib==0.8.2       # its wheel bundles the TA-Lib C library 0.8.1
    python3 python/make_talib_inventory.py [--out FILE]

Writes tests/fixtures/talib/functions.json (by default): TA-Lib's versions,
its function groups, and for every function (talib.abstract's view) its
group, inputs (price series or real arrays), parameters with their
defaults, outputs, the lookback at the defaults (the leading values TA-Lib
leaves out), whether it has an unstable period, and the functions whose
unstable period talib lets one set. It is the list fcast's indicator set
is checked against, one function at a time, as they are written. Nothing
else is written.
"""
import argparse
import json
import os

import talib
from talib import abstract

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "tests", "fixtures", "talib", "functions.json")


def plain(value):
    """A parameter's default as JSON: numbers stay numbers, the rest its text."""
    return value if isinstance(value, (int, float, str, bool)) or value is None else str(value)


PROBE_INPUT_LENGTH = 400
INT_PROBES = [-1, 0, 1, 2, 3]
INT_MAX_PROBES = [100000, 100001]
REAL_PROBES = [-3e37, -1.0, -0.01, 0.0, 0.001, 0.01, 0.99, 1.0, 1.01, 100.0, 3e37]


def accepts(name, params):
    """Whether TA-Lib takes these parameters (TA_BAD_PARAM raises)."""
    import numpy as np
    rng = np.random.default_rng(0)
    close = 100 + np.cumsum(rng.normal(0, 1, PROBE_INPUT_LENGTH))
    data = {"open": close, "high": close + 1, "low": close - 1, "close": close,
            "volume": np.full(PROBE_INPUT_LENGTH, 1000.0), "periods": np.full(PROBE_INPUT_LENGTH, 5.0)}
    f = abstract.Function(name)
    try:
        f.set_parameters(params)
        f(data)
        return True
    except Exception:
        return False


def param_range(name, param, default):
    """TA-Lib's accepted range of one parameter, probed (talib does not expose
    the C library's ranges): integers from the smallest accepted of -1..3 to
    100000; reals between the smallest and largest accepted probe."""
    if isinstance(default, int):
        lo = next((v for v in INT_PROBES if accepts(name, {param: v})), None)
        hi = max((v for v in INT_MAX_PROBES if accepts(name, {param: v})), default=None)
        if param.endswith("matype"):
            hi = max(v for v in range(0, 20) if accepts(name, {param: v}))
        return {"min": lo, "max": hi, "type": "integer"}
    ok = [v for v in REAL_PROBES if accepts(name, {param: v})]
    return {"min": min(ok) if ok else None, "max": max(ok) if ok else None, "type": "real"}


def unstable_affected(names, settable):
    """The functions, other than the settable ones, whose values TA-Lib
    changes when an unstable period is set (TA-Lib applies EMA's, RSI's,
    ... inside MACD, STOCHRSI, ...): those that differ with every unstable
    period at 25, at their defaults, and every function taking a matype
    (its moving average may be one of the settable ones)."""
    import numpy as np
    rng = np.random.default_rng(1)
    close = 100 + np.cumsum(rng.normal(0, 1, 400))
    data = {"open": close + rng.normal(0, 0.5, 400), "high": close + 1, "low": close - 1, "close": close,
            "volume": rng.integers(100, 1000, 400).astype(float), "periods": np.full(400, 5.0)}

    def run(name):
        outs = abstract.Function(name)(data)
        return [np.asarray(o, float) for o in (outs if isinstance(outs, list) else [outs])]

    affected = []
    for name in names:
        if name in settable:
            continue
        if any(k.endswith("matype") for k in abstract.Function(name).info["parameters"]):
            affected.append(name)
            continue
        talib.set_unstable_period("ALL", 0)
        base = run(name)
        talib.set_unstable_period("ALL", 25)
        moved = run(name)
        talib.set_unstable_period("ALL", 0)
        if not all(np.array_equal(a, b, equal_nan=True) for a, b in zip(base, moved)):
            affected.append(name)
    return sorted(affected)


def describe(name):
    f = abstract.Function(name)
    info = f.info
    return {
        "name": name,
        "group": info["group"],
        "display_name": info["display_name"],
        "inputs": {k: v if isinstance(v, str) else list(v) for k, v in info["input_names"].items()},
        "parameters": {k: plain(v) for k, v in info["parameters"].items()},
        "ranges": {k: param_range(name, k, v) for k, v in info["parameters"].items()},
        "outputs": list(info["output_names"]),
        "output_flags": {k: list(v) for k, v in info["output_flags"].items()},
        "lookback": f.lookback,
        "unstable_period": "Function has an unstable period" in info["function_flags"],
        "flags": list(info["function_flags"] or []),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    out = os.path.abspath(ap.parse_args().out)
    groups = talib.get_function_groups()
    functions = [describe(n) for g in sorted(groups) for n in sorted(groups[g])]
    from talib import _ta_lib
    inventory = {
        "generated_by": "python/make_talib_inventory.py",
        "talib_python_version": talib.__version__,
        "ta_lib_c_version": talib.__ta_version__.decode().split(" ")[0],
        "function_count": len(functions),
        "groups": {g: sorted(groups[g]) for g in sorted(groups)},
        "unstable_period_settable": sorted(k for k in getattr(_ta_lib, "_ta_func_unst_ids", {})
                                           if k not in ("NONE", "ALL")),
        "unstable_period_affected": unstable_affected(
            [f["name"] for f in functions],
            {k for k in getattr(_ta_lib, "_ta_func_unst_ids", {}) if k not in ("NONE", "ALL")}),
        "functions": functions,
    }
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(inventory, f, indent=1, sort_keys=False)
        f.write("\n")
    print(f"{len(functions)} functions in {len(groups)} groups written to {out}")


if __name__ == "__main__":
    main()
