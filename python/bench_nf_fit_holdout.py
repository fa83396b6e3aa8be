#!/usr/bin/env python3
"""neuralforecast side of `fcast bench fit --vs-neuralforecast`: one whole
fit on a panel file with the last h points of every series held out, then
those points forecast and scored, timed as fcast times its own.

    python3 python/bench_nf_fit_holdout.py --data FILE --model nhits --h 48
        --input-size 96 --steps 1000 --threads 2 --precision fp32|bf16|fp16
        --freq h --scaler identity --windows-batch-size 1024 --batch-size 32
        --lr 0.001 --num-lr-decays 3 --seed 1 --device cpu|cuda

The model is neuralforecast's class for --model with every setting above
given and every other at its default (as fcast's are); validation, logger,
checkpoints and progress bar are off. --precision bf16 / fp16 is
Lightning's "bf16-mixed" / "16-mixed" (autocast, fp32 master weights).
Times: load_seconds reads the CSV (pandas), fit_seconds is
NeuralForecast.fit, predict_seconds NeuralForecast.predict; the MAE is
over the held-out points that have a value. Runs in a temporary working
directory that it removes, so whatever Lightning writes goes with it.

Output: lines for a person, then as the LAST stdout line one JSON object:
{"load_seconds", "fit_seconds", "predict_seconds", "windows_per_second",
 "mae", "points", "versions"}. Exits non-zero with a message on stderr on
any error. Needs neuralforecast, torch and pandas
(python/requirements-fixtures.txt).
"""
import argparse
import json
import logging
import os
import sys
import tempfile
import time
import warnings

PRECISION = {"fp32": "32-true", "bf16": "bf16-mixed", "fp16": "16-mixed"}


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--model", default="nhits")
    ap.add_argument("--h", type=int, required=True)
    ap.add_argument("--input-size", type=int, required=True)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--precision", choices=sorted(PRECISION), default="fp32")
    ap.add_argument("--freq", required=True)
    ap.add_argument("--scaler", default="identity")
    ap.add_argument("--windows-batch-size", type=int, default=1024)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--num-lr-decays", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    return ap.parse_args()


def read_panel(path):
    """The file as fcast reads it: ds as integers when they all are, else dates."""
    import pandas as pd
    df = pd.read_csv(path, dtype={"unique_id": str})
    df = df[["unique_id", "ds", "y"]]
    if not pd.api.types.is_integer_dtype(df["ds"]):
        df["ds"] = pd.to_datetime(df["ds"])
    return df.sort_values(["unique_id", "ds"]).reset_index(drop=True)


def split_tail(df, h):
    """Training rows and the last h rows of every series longer than h."""
    n = df.groupby("unique_id")["y"].transform("size")
    pos = df.groupby("unique_id").cumcount()
    tail = pos >= n - h
    keep = n > h
    return df[~tail & keep], df[tail & keep]


def make_model(a):
    from neuralforecast import models
    classes = dict(nhits=models.NHITS, nbeats=models.NBEATS, nbeatsx=models.NBEATSx, mlp=models.MLP,
                   lstm=models.LSTM, tide=models.TiDE, patchtst=models.PatchTST)
    if a.model not in classes:
        raise SystemExit(f"bench_nf_fit_holdout: no neuralforecast class for --model {a.model}")
    quiet = dict(logger=False, enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    accel = dict(accelerator="cpu") if a.device == "cpu" else dict(accelerator="gpu", devices=1)
    return classes[a.model](h=a.h, input_size=a.input_size, max_steps=a.steps, val_check_steps=10**6,
                            scaler_type=a.scaler, windows_batch_size=a.windows_batch_size,
                            batch_size=a.batch_size, learning_rate=a.lr, num_lr_decays=a.num_lr_decays,
                            random_seed=a.seed, precision=PRECISION[a.precision], **accel, **quiet)


def freq_of(text):
    return int(text) if text.isdigit() else text


def main():
    a = parse_args()
    a.data = os.path.abspath(a.data)
    warnings.filterwarnings("ignore")
    logging.disable(logging.CRITICAL)
    import numpy as np
    import torch
    import neuralforecast
    from neuralforecast import NeuralForecast
    if a.threads:
        torch.set_num_threads(a.threads)
    t0 = time.perf_counter()
    df = read_panel(a.data)
    train, test = split_tail(df, a.h)
    t1 = time.perf_counter()
    old = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="fcast_bench_nf_") as tmp:
        os.chdir(tmp)
        try:
            model = make_model(a)
            nf = NeuralForecast(models=[model], freq=freq_of(a.freq))
            t2 = time.perf_counter()
            nf.fit(train)
            t3 = time.perf_counter()
            fc = nf.predict()
            t4 = time.perf_counter()
        finally:
            os.chdir(old)
    col = [c for c in fc.columns if c not in ("unique_id", "ds")][0]
    fc = fc.reset_index() if "unique_id" not in fc.columns else fc
    merged = test.merge(fc[["unique_id", "ds", col]], on=["unique_id", "ds"], how="left")
    err = (merged[col] - merged["y"]).abs().dropna()
    if len(err) != merged["y"].notna().sum():
        raise SystemExit("bench_nf_fit_holdout: the forecasts do not cover the held-out points")
    fit_seconds = t3 - t2
    out = dict(load_seconds=t1 - t0, fit_seconds=fit_seconds, predict_seconds=t4 - t3,
               windows_per_second=a.steps * a.windows_batch_size / fit_seconds, mae=float(np.mean(err)),
               points=int(len(err)),
               versions=f"neuralforecast {neuralforecast.__version__}, torch {torch.__version__.split('+')[0]}")
    print(f"neuralforecast {a.model} {a.precision}: fit {fit_seconds:.2f} s, predict {t4 - t3:.2f} s, "
          f"MAE {out['mae']:.4f} over {out['points']} points", flush=True)
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
