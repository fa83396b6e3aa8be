#!/usr/bin/env python3
"""Cross-validation layout fixtures from neuralforecast for tests/cli_cv.sh.

Run by developers, not by CI:

    pip install -r python/requirements-fixtures.txt
    python3 python/make_cv_fixtures.py [--out DIR]   # default: tests/fixtures/cv/

For each case, neuralforecast's NeuralForecast.cross_validation runs on a
bundled data file (a trained model is needed to get there: one step of a
tiny MLP) and the fixture keeps what does not depend on the weights: the
columns in their order, and every row's unique_id, ds, cutoff and y, in
neuralforecast's row order. fcast cv must write the same keys and y (its
forecasts differ: its training draws other windows). Everything runs in a
temporary working directory (Lightning writes lightning_logs/ there).
"""

import argparse
import contextlib
import logging
import os
import sys
import tempfile
import warnings

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")

# name: (data file, series kept (None: all), rows cut from the front of the
# first kept series, h, input_size, n_windows, step_size, refit)
CASES = {
    "monthly_norefit": ("monthly_classics.csv", None, 0, 12, 24, 3, 12, False),
    "monthly_refit": ("monthly_classics.csv", ["AirPassengers", "nottem"], 0, 6, 12, 4, 2, True),
    # a short series: cv_times gives it only the windows it has room for
    "short_series": ("monthly_classics.csv", ["AirPassengers", "nottem"], 125, 12, 24, 3, 6, False),
}


@contextlib.contextmanager
def scratch_cwd():
    old = os.getcwd()
    with tempfile.TemporaryDirectory() as d:
        os.chdir(d)
        try:
            yield
        finally:
            os.chdir(old)


def load(case):
    path, keep, cut, *_ = CASES[case]
    df = pd.read_csv(os.path.join(DATA, path), parse_dates=["ds"])
    if keep is not None:
        df = df[df.unique_id.isin(keep)]
    if cut:
        first = sorted(df.unique_id.unique())[0]
        rows = df.index[df.unique_id == first][:cut]
        df = df.drop(rows)
    return df.reset_index(drop=True)


def run(case):
    from neuralforecast import NeuralForecast
    from neuralforecast.models import MLP

    _, _, _, h, L, n_windows, step, refit = CASES[case]
    df = load(case)
    model = MLP(h=h, input_size=L, hidden_size=8, num_layers=1, max_steps=1, random_seed=1,
                enable_progress_bar=False, enable_model_summary=False, logger=False,
                accelerator="cpu")
    nf = NeuralForecast(models=[model], freq="MS")
    cv = nf.cross_validation(df=df, n_windows=n_windows, step_size=step, refit=refit)
    return df, cv


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "..", "tests", "fixtures", "cv"))
    out = os.path.abspath(ap.parse_args().out)
    os.makedirs(out, exist_ok=True)
    logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    import neuralforecast
    with scratch_cwd():
        for case in CASES:
            df, cv = run(case)
            data_path = os.path.join(out, f"{case}_data.csv")
            df.assign(ds=df.ds.dt.strftime("%Y-%m-%d")).to_csv(data_path, index=False)
            keys = cv[["unique_id", "ds", "cutoff", "y"]].copy()
            keys["ds"] = keys.ds.dt.strftime("%Y-%m-%d")
            keys["cutoff"] = keys.cutoff.dt.strftime("%Y-%m-%d")
            with open(os.path.join(out, f"{case}_keys.csv"), "w") as f:
                f.write(f"# neuralforecast {neuralforecast.__version__}, pandas {pd.__version__}; "
                        f"columns: {','.join(cv.columns)}; case {case}: {CASES[case][3:]}"
                        " (h, input_size, n_windows, step_size, refit)\n")
                keys.to_csv(f, index=False)
            print(case, len(cv), "rows", list(cv.columns), file=sys.stderr)


if __name__ == "__main__":
    main()
