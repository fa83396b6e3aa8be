"""Export a trained neuralforecast model (NHITS, NBEATS, MLP) as an fcast
model file, so `fcast predict` serves it.

fcast's model files are safetensors whose tensor names equal the PyTorch
state_dict (so the other direction needs no tool: load_state_dict(load_file(p))).
This adds the metadata fcast needs: configuration, scaler, loss, time axis.

    from neuralforecast import NeuralForecast
    from neuralforecast.models import NHITS
    nf = NeuralForecast(models=[NHITS(h=12, input_size=24, scaler_type="standard")], freq="MS")
    nf.fit(df)
    from fcast_export import save_for_fcast
    save_for_fcast(nf.models[0], "nhits.safetensors", freq="MS", ds_kind="date")

Run as a script, it checks itself: it trains a small model with
neuralforecast, exports it, runs `fcast predict` and compares the forecasts.
    python3 python/fcast_export.py build/fcast
It runs from any directory (needs neuralforecast, pandas, safetensors): the
data is found from this script's location, FCAST is taken from the directory
the script was started in (or from PATH), and training, the exported models
and the forecasts all happen in a temporary directory, the working directory
meanwhile, removed at the end, so Lightning leaves no lightning_logs/ behind.
"""
import json
import sys

from safetensors.torch import save_file

DS_KINDS = {"index": "integer index", "date": "date", "datetime": "datetime"}


def _config(model):
    hp = model.hparams
    name = type(model).__name__
    cfg = {"model": name, "h": int(hp["h"]), "input_size": int(hp["input_size"])}
    if name == "MLP":
        cfg.update(hidden_size=int(hp.get("hidden_size", 1024)), num_layers=int(hp.get("num_layers", 2)))
        return cfg
    stacks = list(hp.get("stack_types", ["identity"] * 3 if name == "NHITS" else ["identity", "trend", "seasonality"]))
    cfg.update(stack_types=stacks, n_blocks=list(hp.get("n_blocks", [1] * len(stacks))),
               mlp_units=[list(u) for u in hp.get("mlp_units", 3 * [[512, 512]])])
    if name == "NHITS":
        cfg.update(n_pool_kernel_size=list(hp.get("n_pool_kernel_size", [2, 2, 1])),
                   n_freq_downsample=list(hp.get("n_freq_downsample", [4, 2, 1])))
    else:
        cfg.update(n_harmonics=int(hp.get("n_harmonics", 2)), n_basis=int(hp.get("n_basis", 2)))
    return cfg


def save_for_fcast(model, path, freq, ds_kind):
    """Writes `model` (a fitted neuralforecast NHITS, NBEATS or MLP) to `path`.
    freq: the pandas alias of the data ("MS", "D", "h", "30min", or "1" for an
    integer ds); ds_kind: "index", "date" or "datetime"."""
    name = type(model).__name__
    if name not in ("NHITS", "NBEATS", "MLP"):
        raise ValueError(f"fcast serves NHITS, NBEATS and MLP, not {name}")
    loss = type(model.loss).__name__.lower()
    if loss not in ("mae", "mse"):
        raise ValueError(f"fcast knows the MAE and MSE losses, not {type(model.loss).__name__}")
    tensors = {k: v.detach().cpu().float().contiguous() for k, v in model.state_dict().items()}
    meta = {
        "format": "pt",
        "fcast_file_version": "1",
        "fcast_version": "neuralforecast export",
        "model": name,
        "config": json.dumps(_config(model), separators=(",", ":")),
        "scaler_type": model.hparams.get("scaler_type", "identity") or "identity",
        "loss": loss,
        "ds_kind": DS_KINDS[ds_kind],
        "freq": freq,
        "seed": str(model.hparams.get("random_seed", 1)),
        "steps": str(model.hparams.get("max_steps", 0)),
    }
    save_file(tensors, path, metadata=meta)


def _self_check(fcast):
    """neuralforecast fit + predict versus fcast predict on the exported file."""
    import logging, os, shutil, tempfile, warnings
    import pandas as pd
    warnings.filterwarnings("ignore")
    logging.disable(logging.CRITICAL)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    df = pd.read_csv(os.path.join(root, "data", "monthly_classics.csv"), parse_dates=["ds"])
    fcast = os.path.abspath(fcast) if os.sep in fcast else (shutil.which(fcast) or fcast)
    quiet = dict(logger=False, enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    old = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="fcast_export_") as tmp:
        os.chdir(tmp)   # whatever Lightning writes into the working directory goes with it
        try:
            return _compare(fcast, df, tmp, quiet)
        finally:
            os.chdir(old)


def _compare(fcast, df, tmp, quiet):
    """Trains, exports and compares, in the working directory `tmp`."""
    import os, subprocess
    import numpy as np
    import pandas as pd
    from neuralforecast import NeuralForecast
    from neuralforecast.models import NBEATS, NHITS
    worst = 0.0
    for model in (NHITS(h=12, input_size=24, mlp_units=3 * [[64, 64]], scaler_type="standard", max_steps=30,
                        **quiet),
                  NBEATS(h=12, input_size=24, mlp_units=3 * [[64, 64]], scaler_type="robust", max_steps=30,
                         **quiet)):
        nf = NeuralForecast(models=[model], freq="MS")
        nf.fit(df)
        want = nf.predict().sort_values(["unique_id", "ds"])
        path = os.path.join(tmp, "m.safetensors")
        save_for_fcast(nf.models[0], path, freq="MS", ds_kind="date")
        out = os.path.join(tmp, "fc.csv")
        hist = os.path.join(tmp, "hist.csv")
        df.to_csv(hist, index=False, date_format="%Y-%m-%d")
        subprocess.run([fcast, "predict", "--model", path, "--data", hist, "--out", out], check=True)
        got = pd.read_csv(out, parse_dates=["ds"]).sort_values(["unique_id", "ds"])
        name = type(model).__name__
        assert list(got["ds"]) == list(want["ds"]), "future ds differ"
        rel = np.max(np.abs(got[name].values - want[name].values) / np.abs(want[name].values))
        print(f"{name}: fcast predict vs neuralforecast predict, max relative difference {rel:.2e}")
        worst = max(worst, rel)
    return 0 if worst < 1e-4 else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(_self_check(sys.argv[1]))
