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


def describe(name):
    f = abstract.Function(name)
    info = f.info
    return {
        "name": name,
        "group": info["group"],
        "display_name": info["display_name"],
        "inputs": {k: v if isinstance(v, str) else list(v) for k, v in info["input_names"].items()},
        "parameters": {k: plain(v) for k, v in info["parameters"].items()},
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
        "functions": functions,
    }
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(inventory, f, indent=1, sort_keys=False)
        f.write("\n")
    print(f"{len(functions)} functions in {len(groups)} groups written to {out}")


if __name__ == "__main__":
    main()
