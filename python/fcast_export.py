"""Export a trained neuralforecast model (NHITS, NBEATS, MLP, NBEATSx, LSTM, TiDE, with
their exogenous inputs, and PatchTST) as an fcast model file, so `fcast predict` serves it.

fcast's model files are safetensors whose tensor names equal the PyTorch
state_dict (so the other direction needs no tool: load_state_dict(load_file(p))).
This adds the metadata fcast needs: configuration, scaler, loss, time axis.

    from neuralforecast import NeuralForecast
    from neuralforecast.models import NHITS
    nf = NeuralForecast(models=[NHITS(h=12, input_size=24, scaler_type="standard")], freq="MS")
    nf.fit(df)
    from fcast_export import save_for_fcast
    save_for_fcast(nf.models[0], "nhits.safetensors", freq="MS", ds_kind="date")

Run as a script, it checks itself, both ways: it trains small models with
neuralforecast, exports them, runs `fcast predict` and compares the
forecasts; then it trains models with `fcast train`, loads each file into the
neuralforecast model of its configuration with load_state_dict(strict=True)
and compares `NeuralForecast.predict` with `fcast predict`.
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
    for key in ("futr_exog_list", "hist_exog_list", "stat_exog_list"):   # written only when not empty, as fcast does
        if hp.get(key):
            cfg[key] = list(hp[key])
    if name == "MLP":
        cfg.update(hidden_size=int(hp.get("hidden_size", 1024)), num_layers=int(hp.get("num_layers", 2)))
        return cfg
    if name == "TiDE":
        cfg.update(hidden_size=int(hp.get("hidden_size", 512)), decoder_output_dim=int(hp.get("decoder_output_dim", 32)),
                   temporal_decoder_dim=int(hp.get("temporal_decoder_dim", 128)),
                   dropout=float(hp.get("dropout", 0.3)), layernorm=bool(hp.get("layernorm", True)),
                   num_encoder_layers=int(hp.get("num_encoder_layers", 1)),
                   num_decoder_layers=int(hp.get("num_decoder_layers", 1)),
                   temporal_width=int(hp.get("temporal_width", 4)))
        return cfg
    if name == "PatchTST":
        # the architecture's hparams under neuralforecast's names (fc_dropout is not read by the model)
        cfg.update(encoder_layers=int(hp.get("encoder_layers", 3)), n_heads=int(hp.get("n_heads", 16)),
                   hidden_size=int(hp.get("hidden_size", 128)),
                   linear_hidden_size=int(hp.get("linear_hidden_size", 256)),
                   dropout=float(hp.get("dropout", 0.2)), head_dropout=float(hp.get("head_dropout", 0.0)),
                   attn_dropout=float(hp.get("attn_dropout", 0.0)), patch_len=int(hp.get("patch_len", 16)),
                   stride=int(hp.get("stride", 8)), revin=bool(hp.get("revin", True)),
                   revin_affine=bool(hp.get("revin_affine", False)),
                   revin_subtract_last=bool(hp.get("revin_subtract_last", True)),
                   activation=str(hp.get("activation", "gelu")).lower(),
                   res_attention=bool(hp.get("res_attention", True)),
                   batch_normalization=bool(hp.get("batch_normalization", False)),
                   learn_pos_embed=bool(hp.get("learn_pos_embed", True)))
        return cfg
    if name == "LSTM":
        # fcast has neuralforecast's direct LSTM with its defaults for these
        unsupported = {"recurrent": False, "encoder_bias": True, "encoder_dropout": 0.0}
        for key, value in unsupported.items():
            if hp.get(key, value) != value:
                raise ValueError(f"fcast's LSTM has {key}={value}, not {hp[key]}")
        if hp.get("decoder_activation") not in (None, "ReLU"):
            raise ValueError(f"fcast's LSTM decoder uses ReLU, not {hp['decoder_activation']}")
        cfg.update(encoder_n_layers=int(hp.get("encoder_n_layers", 2)),
                   encoder_hidden_size=int(hp.get("encoder_hidden_size", 128)),
                   decoder_hidden_size=int(hp.get("decoder_hidden_size", 128)),
                   decoder_layers=int(hp.get("decoder_layers", 2)))
        return cfg
    stacks = list(hp.get("stack_types", ["identity"] * 3 if name == "NHITS" else ["identity", "trend", "seasonality"]))
    cfg.update(stack_types=stacks, n_blocks=list(hp.get("n_blocks", [1] * len(stacks))),
               mlp_units=[list(u) for u in hp.get("mlp_units", 3 * [[512, 512]])])
    if name == "NHITS":
        cfg.update(n_pool_kernel_size=list(hp.get("n_pool_kernel_size", [2, 2, 1])),
                   n_freq_downsample=list(hp.get("n_freq_downsample", [4, 2, 1])))
    elif name == "NBEATSx":
        cfg.update(n_harmonics=int(hp.get("n_harmonics", 2)), n_polynomials=int(hp.get("n_polynomials", 2)))
    else:
        cfg.update(n_harmonics=int(hp.get("n_harmonics", 2)), n_basis=int(hp.get("n_basis", 2)))
    return cfg


def _loss(loss):
    """fcast's loss name and loss_params JSON for a neuralforecast loss."""
    name = type(loss).__name__
    simple = {"MAE": "mae", "MSE": "mse", "SMAPE": "smape", "MAPE": "mape"}
    if name in simple:
        return simple[name], {}
    if name == "HuberLoss":
        return "huber", {"delta": float(loss.delta)}
    if name == "MASE":
        return "mase", {"seasonality": int(loss.seasonality)}
    if name == "QuantileLoss":
        return "quantile", {"q": float(loss.q)}
    if name in ("MQLoss", "HuberMQLoss"):
        fc_name, params = ("mq", {}) if name == "MQLoss" else ("huber-mq", {"delta": float(loss.delta)})
        names = list(loss.output_names)
        levels = []
        for n in names:   # level_to_outputs' names ("-lo-80") give the levels back
            parts = n.split("-")
            if n != "-median" and (len(parts) != 3 or not parts[2].isdigit()):
                levels = None
                break
            if n != "-median" and int(parts[2]) not in levels:
                levels.append(int(parts[2]))
        if levels is not None and names[0] == "-median":
            return fc_name, {**params, "level": sorted(levels)}
        return fc_name, {**params, "quantiles": [float(q) for q in loss.quantiles.detach().cpu().tolist()]}
    if name == "IQLoss":
        return "iq", {"cos_embedding_dim": int(loss.cos_embedding_dim), "concentration0": float(loss.concentration0),
                      "concentration1": float(loss.concentration1)}
    if name == "DistributionLoss":
        dists = {"Normal": "normal", "StudentT": "studentt", "Poisson": "poisson",
                 "NegativeBinomial": "negative-binomial"}
        dist = loss.distribution if isinstance(loss.distribution, str) else type(loss.distribution).__name__
        if dist not in dists or loss.return_params:
            raise ValueError(f"fcast has DistributionLoss {', '.join(dists)} (without return_params), not {dist}")
        qs = [float(q) for q in loss.quantiles.detach().cpu().tolist()]
        names = list(loss.output_names)[1:]   # "" (the sample mean) first
        if names and names[0] == "-median" and all(n.split("-")[-1].isdigit() for n in names[1:]):
            levels = sorted({int(n.split("-")[-1]) for n in names[1:]})
            return dists[dist], {"level": levels, "num_samples": int(loss.num_samples)}
        return dists[dist], {"quantiles": qs, "num_samples": int(loss.num_samples)}
    raise ValueError(f"fcast knows MAE, MSE, HuberLoss, SMAPE, MAPE, MASE, QuantileLoss, MQLoss, HuberMQLoss and "
                     f"DistributionLoss, not {name}")


def save_for_fcast(model, path, freq, ds_kind):
    """Writes `model` (a fitted neuralforecast NHITS, NBEATS, MLP, NBEATSx, LSTM, TiDE or PatchTST) to `path`.
    freq: the pandas alias of the data ("MS", "D", "h", "30min", or "1" for an
    integer ds); ds_kind: "index", "date" or "datetime"."""
    name = type(model).__name__
    if name not in ("NHITS", "NBEATS", "MLP", "NBEATSx", "LSTM", "TiDE", "PatchTST"):
        raise ValueError(f"fcast serves NHITS, NBEATS, MLP, NBEATSx, LSTM, TiDE and PatchTST, not {name}")
    loss, params = _loss(model.loss)
    # clone: loss.quantiles and valid_loss.quantiles share storage, which save_file refuses;
    # float(): BatchNorm's num_batches_tracked (int64) becomes the float fcast keeps
    tensors = {k: v.detach().cpu().float().contiguous().clone() for k, v in model.state_dict().items()}
    # scaler_type='revin': fcast inverts with RevIN's initial bias 0 and weight 1, which point and quantile
    # losses leave as they are (their loss is on the scaled data); trained ones (a distribution loss) are not in fcast
    revin = {k: tensors.pop(k) for k in ("scaler.revin_bias", "scaler.revin_weight") if k in tensors}
    # IQLoss: neuralforecast registers the loss's head again as valid_loss (the same module when valid_loss is
    # None); fcast validates at the forecast quantile through the training head, so the copy is not kept
    for k in [k for k in tensors if k.startswith("valid_loss.") and type(model.loss).__name__ == "IQLoss"]:
        del tensors[k]
    if revin and (revin["scaler.revin_bias"].abs().max() != 0 or (revin["scaler.revin_weight"] - 1).abs().max() != 0):
        raise ValueError("fcast's revin scaler keeps RevIN's bias 0 and weight 1; this model trained them "
                         f"({ {k: v.flatten().tolist() for k, v in revin.items()} })")
    meta = {
        "format": "pt",
        "fcast_file_version": "1",
        "fcast_version": "neuralforecast export",
        "model": name,
        "config": json.dumps(_config(model), separators=(",", ":")),
        "scaler_type": model.hparams.get("scaler_type", "identity") or "identity",
        "loss": loss,
        "loss_params": json.dumps(params, separators=(",", ":")),
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
    from neuralforecast.losses.pytorch import HuberMQLoss, IQLoss, MQLoss, MASE
    from neuralforecast.models import LSTM, NBEATS, NHITS, PatchTST, TiDE
    worst = 0.0
    for model in (NHITS(h=12, input_size=24, mlp_units=3 * [[64, 64]], scaler_type="standard", max_steps=30,
                        **quiet),
                  NBEATS(h=12, input_size=24, mlp_units=3 * [[64, 64]], scaler_type="robust", max_steps=30,
                         **quiet),
                  NHITS(h=12, input_size=24, mlp_units=3 * [[64, 64]], loss=MQLoss(level=[80, 90]),
                        scaler_type="standard", max_steps=30, **quiet),
                  NBEATS(h=12, input_size=24, mlp_units=3 * [[64, 64]], loss=MASE(seasonality=12), max_steps=30,
                         **quiet),
                  NHITS(h=12, input_size=24, mlp_units=3 * [[64, 64]], loss=HuberMQLoss(level=[80, 90], delta=0.5),
                        scaler_type="standard", max_steps=30, **quiet),
                  NHITS(h=12, input_size=24, mlp_units=3 * [[64, 64]], scaler_type="revin", max_steps=30, **quiet),
                  NHITS(h=12, input_size=24, mlp_units=3 * [[64, 64]], loss=IQLoss(cos_embedding_dim=16),
                        scaler_type="robust", max_steps=30, **quiet),
                  LSTM(h=12, input_size=24, encoder_hidden_size=32, decoder_hidden_size=32, scaler_type="robust",
                       max_steps=30, **quiet),
                  TiDE(h=12, input_size=24, hidden_size=64, layernorm=False, loss=MQLoss(level=[80]),
                       scaler_type="standard", max_steps=30, **quiet),
                  PatchTST(h=12, input_size=24, hidden_size=32, n_heads=4, linear_hidden_size=64,
                           scaler_type="robust", max_steps=30, **quiet)):
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
        cols = [c for c in want.columns if c.startswith(name)]
        assert [c for c in got.columns if c.startswith(name)] == cols, f"columns differ: {list(got.columns)}"
        rel = max(np.max(np.abs(got[c].values - want[c].values) / np.abs(want[c].values)) for c in cols)
        print(f"{name} ({type(model.loss).__name__}): fcast predict vs neuralforecast predict over {cols}, "
              f"max relative difference {rel:.2e}")
        worst = max(worst, rel)
    sampled = _compare_distributions(fcast, df, tmp, quiet)
    worst = max(worst, _compare_exog(fcast, tmp, quiet))
    worst = max(worst, _compare_reverse(fcast, df, tmp, quiet))
    return 0 if worst < 1e-4 and sampled < 0.15 else 1


def _compare_distributions(fcast, df, tmp, quiet):
    """DistributionLoss models: both libraries forecast from the same weights
    by sampling (torch's generator against fcast's Philox), so their columns
    agree to sampling noise only. With 20000 draws a quantile's noise is
    about 0.015 standard deviations of the point's distribution in each
    library; the largest gap, in units of the 80 % interval's width / 2.563
    (a Normal's standard deviation), must stay under 0.15 (the largest of
    ~300 gaps of sd ~0.026 each is ~0.08); for the count
    distributions less one count, since two samplers' quantiles of a
    discrete distribution may land on neighbouring counts (measured: 1 in
    6 standard deviations of nottem's Poisson). NegativeBinomial trains 3
    steps: neuralforecast's own training of it on these series stops before
    step 30, torch's argument check refusing a probs outside [0, 1)
    (measured with neuralforecast 3.3.0; fcast clamps probs as
    probs_to_logits does and trains on). Returns the largest gap."""
    import os, subprocess
    import numpy as np
    import pandas as pd
    from neuralforecast import NeuralForecast
    from neuralforecast.losses.pytorch import DistributionLoss
    from neuralforecast.models import MLP, NHITS
    worst = 0.0
    for dist in ("Normal", "StudentT", "Poisson", "NegativeBinomial"):
        loss = DistributionLoss(dist, level=[80, 90], num_samples=20000)
        counts = dist in ("Poisson", "NegativeBinomial")
        model = (NHITS(h=12, input_size=24, mlp_units=3 * [[64, 64]], loss=loss, scaler_type="standard",
                       max_steps=3 if dist == "NegativeBinomial" else 30, **quiet) if counts or dist == "Normal"
                 else MLP(h=12, input_size=24, hidden_size=64, num_layers=2, loss=loss, scaler_type="robust",
                          max_steps=30, **quiet))
        nf = NeuralForecast(models=[model], freq="MS")
        nf.fit(df)
        want = nf.predict().sort_values(["unique_id", "ds"]).reset_index(drop=True)
        path, hist, out = (os.path.join(tmp, n) for n in ("d.safetensors", "dhist.csv", "dfc.csv"))
        save_for_fcast(nf.models[0], path, freq="MS", ds_kind="date")
        df.to_csv(hist, index=False, date_format="%Y-%m-%d")
        subprocess.run([fcast, "predict", "--model", path, "--data", hist, "--out", out], check=True)
        got = pd.read_csv(out, parse_dates=["ds"]).sort_values(["unique_id", "ds"]).reset_index(drop=True)
        name = type(model).__name__
        cols = [c for c in want.columns if c.startswith(name)]
        assert [c for c in got.columns if c.startswith(name)] == cols, f"columns differ: {list(got.columns)}"
        sd = np.maximum((want[f"{name}-hi-80"] - want[f"{name}-lo-80"]).to_numpy() / 2.563, 1e-9)
        slack = 1.0 if counts else 0.0
        gap = max(float(np.max(np.maximum(np.abs(got[c].to_numpy() - want[c].to_numpy()) - slack, 0) / sd))
                  for c in cols)
        print(f"{name} (DistributionLoss {dist}): fcast predict vs neuralforecast predict over {cols}, "
              f"largest gap {gap:.3f} standard deviations (20000 draws each)")
        worst = max(worst, gap)
    return worst


def _compare_exog(fcast, tmp, quiet):
    """An NBEATSx with future, past and static inputs (its exogenous stack
    too), trained by neuralforecast on tests/fixtures/exog and exported:
    fcast predict --futr-data --stat-exog-file against predict(futr_df=...)."""
    import os, subprocess
    import numpy as np
    import pandas as pd
    from neuralforecast import NeuralForecast
    from neuralforecast.models import NBEATSx
    d = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "fixtures", "exog")
    df = pd.read_csv(os.path.join(d, "history.csv"), parse_dates=["ds"])
    static = pd.read_csv(os.path.join(d, "static.csv"))
    futr = pd.read_csv(os.path.join(d, "future.csv"), parse_dates=["ds"])
    model = NBEATSx(h=6, input_size=12, mlp_units=3 * [[32, 32]], stack_types=["identity", "trend", "exogenous"],
                    futr_exog_list=["trend_f", "season_f"], hist_exog_list=["lag_h"],
                    stat_exog_list=["s_size", "s_flag"], scaler_type="robust", max_steps=30, **quiet)
    nf = NeuralForecast(models=[model], freq="MS")
    nf.fit(df, static_df=static)
    want = nf.predict(futr_df=futr).sort_values(["unique_id", "ds"])
    path, out = os.path.join(tmp, "x.safetensors"), os.path.join(tmp, "fcx.csv")
    save_for_fcast(nf.models[0], path, freq="MS", ds_kind="date")
    subprocess.run([fcast, "predict", "--model", path, "--data", os.path.join(d, "history.csv"), "--futr-data",
                    os.path.join(d, "future.csv"), "--stat-exog-file", os.path.join(d, "static.csv"), "--out", out],
                   check=True)
    got = pd.read_csv(out, parse_dates=["ds"]).sort_values(["unique_id", "ds"])
    assert list(got["ds"]) == list(want["ds"]), "future ds differ"
    rel = np.max(np.abs(got["NBEATSx"].values - want["NBEATSx"].values) / np.abs(want["NBEATSx"].values))
    print(f"NBEATSx with future, past and static inputs: fcast predict vs neuralforecast predict, "
          f"max relative difference {rel:.2e}")
    return rel


def _compare_reverse(fcast, df, tmp, quiet):
    """fcast -> neuralforecast: `fcast train` writes the file, the matching
    neuralforecast model (fitted one step at learning rate 0, so that the
    NeuralForecast object is ready to predict) takes its tensors by
    load_state_dict(strict=True), BatchNorm's running statistics included,
    and predicts; its forecasts must equal `fcast predict`'s."""
    import os, subprocess
    import numpy as np
    import pandas as pd
    from safetensors.torch import load_file
    from neuralforecast import NeuralForecast
    from neuralforecast.models import LSTM, NHITS, PatchTST, TiDE
    hist = os.path.join(tmp, "hist.csv")
    df.to_csv(hist, index=False, date_format="%Y-%m-%d")
    cases = [("nhits", ["--mlp-units", "32,32,32", "--scaler", "standard"],
              lambda: NHITS(h=12, input_size=24, mlp_units=3 * [[32, 32]], scaler_type="standard", **frozen)),
             ("lstm", ["--encoder-hidden-size", "16", "--decoder-hidden-size", "16"],
              lambda: LSTM(h=12, input_size=24, encoder_hidden_size=16, decoder_hidden_size=16, scaler_type="robust",
                           **frozen)),
             ("tide", ["--hidden-size", "32", "--layernorm", "off"],
              lambda: TiDE(h=12, input_size=24, hidden_size=32, layernorm=False, **frozen)),
             ("patchtst", ["--hidden-size", "32", "--n-heads", "4", "--linear-hidden-size", "64", "--scaler", "robust"],
              lambda: PatchTST(h=12, input_size=24, hidden_size=32, n_heads=4, linear_hidden_size=64,
                               scaler_type="robust", **frozen))]
    frozen = dict(max_steps=1, learning_rate=0.0, **quiet)
    worst = 0.0
    for kind, flags, make in cases:
        path, out = os.path.join(tmp, f"r_{kind}.safetensors"), os.path.join(tmp, f"r_{kind}.csv")
        subprocess.run([fcast, "train", "--data", hist, "--model", kind, "--h", "12", "--input-size", "24",
                        "--max-steps", "30", "--lr", "1e-3", "--quiet", *flags, "--out", path], check=True)
        subprocess.run([fcast, "predict", "--model", path, "--data", hist, "--out", out], check=True)
        nf = NeuralForecast(models=[make()], freq="MS")
        nf.fit(df)
        model = nf.models[0]
        state = {k: v for k, v in load_file(path).items() if not k.startswith(("loss.", "valid_loss."))}
        model.load_state_dict(state, strict=True)
        want = pd.read_csv(out, parse_dates=["ds"]).sort_values(["unique_id", "ds"])
        got = nf.predict().sort_values(["unique_id", "ds"])
        name = type(model).__name__
        assert list(got["ds"]) == list(want["ds"]), "future ds differ"
        rel = np.max(np.abs(got[name].values - want[name].values) / np.abs(want[name].values))
        print(f"{name}: trained by fcast, loaded into neuralforecast (strict): neuralforecast predict vs fcast "
              f"predict, max relative difference {rel:.2e}")
        worst = max(worst, rel)
    return worst


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(_self_check(sys.argv[1]))
