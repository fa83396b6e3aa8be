#!/usr/bin/env python3
"""Conformal interval fixtures from neuralforecast's own functions.

Run by developers, not by CI:

    pip install -r python/requirements-fixtures.txt
    python3 python/make_conformal_fixtures.py [--out FILE]  # default: tests/fixtures/conformal.safetensors

neuralforecast.utils.add_conformal_distribution_intervals and
add_conformal_error_intervals on random conformity scores (laid out as its
_conformity_scores writes them: rows by series, window, horizon step) and
forecasts, for levels [80, 95] and [50]. Stored: scores (N, W, h), forecasts
(N, h), and each method's output columns after the point forecast
(N, h, 2 * levels), in neuralforecast's column order (kept in metadata).
"""

import argparse
import json
import os

import numpy as np
import pandas as pd
from safetensors.numpy import save_file

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "..", "tests", "fixtures", "conformal.safetensors"))
    out = os.path.abspath(ap.parse_args().out)
    import neuralforecast
    from neuralforecast.utils import add_conformal_distribution_intervals, add_conformal_error_intervals

    rng = np.random.default_rng(13)
    N, W, h = 5, 7, 6
    scores = np.abs(rng.normal(size=(N, W, h)) * rng.uniform(0.5, 3.0, size=(N, 1, 1))).astype(np.float32)
    scores[0, 2, 3] = 0.0  # exact zeros and ties
    scores[1, :, 0] = 1.5
    fcst = (rng.normal(size=(N, h)) * 10).astype(np.float32)
    cs_df = pd.DataFrame({"M": scores.reshape(-1)})
    tensors = {"scores": scores, "forecasts": fcst}
    meta = {"neuralforecast": neuralforecast.__version__, "numpy": np.__version__}
    for tag, level in (("l80_95", [80, 95]), ("l50", [50])):
        for method, fn in (("distribution", add_conformal_distribution_intervals),
                           ("error", add_conformal_error_intervals)):
            vals, cols = fn(fcst.reshape(-1, 1), cs_df, model="M", cs_n_windows=W, n_series=N, horizon=h,
                            level=level)
            tensors[f"{method}_{tag}"] = np.ascontiguousarray(vals[:, 1:].reshape(N, h, -1).astype(np.float32))
            meta[f"columns_{method}_{tag}"] = json.dumps(cols)
    save_file(tensors, out, metadata=meta)
    os.chmod(out, 0o644)


if __name__ == "__main__":
    main()
