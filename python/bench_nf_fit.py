#!/usr/bin/env python3
"""Whole training runs of every model kind, side by side in one run:
neuralforecast's fit against `fcast train`, same data, configuration, steps
and threads.

    python3 python/bench_nf_fit.py build/fcast [--models nhits,nbeats,...]
        [--steps 100] [--threads 2] [--repeats 2] [--data data/monthly_classics.csv]

Each model is neuralforecast's class at its defaults with h 12 and input 24
(windows_batch_size its own: 1024, LSTM 128); fcast trains `--model KIND`
with the same h, input and steps, also at its defaults (which are
neuralforecast's). neuralforecast runs without logger, checkpoints,
progress bar or validation; the time is NeuralForecast.fit's wall time, and
fcast's the process's. windows/s = steps x windows per step / wall time,
so both include everything a user waits for (Lightning's set-up, fcast's
start-up and memory plan). Runs alternate (neuralforecast, fcast, ...), so a
busy neighbour slows both; compare the ratios, not the absolute figures.
Needs neuralforecast, torch and pandas (python/requirements-fixtures.txt);
runs from any directory, in a temporary working directory it removes.
"""
import argparse
import logging
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = ["nhits", "nbeats", "nbeatsx", "mlp", "lstm", "tide", "patchtst"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fcast")
    ap.add_argument("--models", default=",".join(KINDS))
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--data", default=os.path.join(REPO, "data", "monthly_classics.csv"))
    a = ap.parse_args()
    a.fcast, a.data = os.path.abspath(a.fcast), os.path.abspath(a.data)
    warnings.filterwarnings("ignore")
    logging.disable(logging.CRITICAL)
    import pandas as pd
    import torch
    torch.set_num_threads(a.threads)
    df = pd.read_csv(a.data, parse_dates=["ds"])
    old = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="fcast_bench_fit_") as tmp:
        os.chdir(tmp)   # whatever Lightning writes goes with it
        try:
            for kind in a.models.split(","):
                for rep in range(a.repeats):
                    report(kind, rep, a, df, tmp)
        finally:
            os.chdir(old)
    return 0


def nf_fit(kind, a, df):
    from neuralforecast import NeuralForecast
    from neuralforecast import models
    classes = dict(nhits=models.NHITS, nbeats=models.NBEATS, nbeatsx=models.NBEATSx, mlp=models.MLP,
                   lstm=models.LSTM, tide=models.TiDE, patchtst=models.PatchTST)
    quiet = dict(logger=False, enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    m = classes[kind](h=12, input_size=24, max_steps=a.steps, val_check_steps=10**6, **quiet)
    nf = NeuralForecast(models=[m], freq="MS")
    t = time.perf_counter()
    nf.fit(df)
    return time.perf_counter() - t, int(m.hparams["windows_batch_size"])


def fcast_train(kind, a, tmp):
    cmd = [a.fcast, "train", "--data", a.data, "--model", kind, "--h", "12", "--input-size", "24",
           "--max-steps", str(a.steps), "--threads", str(a.threads), "--quiet",
           "--out", os.path.join(tmp, "m.safetensors")]
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return time.perf_counter() - t, r.stderr


def report(kind, rep, a, df, tmp):
    tn, wbs = nf_fit(kind, a, df)
    tf, err = fcast_train(kind, a, tmp)
    kernel = re.search(r"\(([0-9.]+) windows/s, ([a-z0-9]+)", err)
    print(f"{kind:9s} run {rep}: {wbs} windows/step; neuralforecast {a.steps * wbs / tn:7.0f} windows/s "
          f"({tn:6.2f} s), fcast {a.steps * wbs / tf:7.0f} windows/s ({tf:6.2f} s"
          f"{', ' + kernel.group(2) if kernel else ''}); fcast / neuralforecast {tn / tf:.2f}x", flush=True)


if __name__ == "__main__":
    sys.exit(main())
