#!/usr/bin/env python3
"""Reference fixtures for exogenous variables (futr / hist / stat) from
neuralforecast's NHITS, MLP and NBEATSx, for fcast's C tests.

Run by developers, not by CI, from any directory:

    pip install -r python/requirements-fixtures.txt
    python3 python/make_exog_fixtures.py [--out DIR]   # default: tests/fixtures/

It writes, under DIR:

    model_nhits_exog.safetensors    model_nhits_hist.safetensors
    model_mlp_exog.safetensors      model_nbeatsx_exog.safetensors
    model_nbeatsx_stat.safetensors
    exog/history.csv  exog/static.csv  exog/future.csv
    exog/predict_nhits.safetensors  exog/predict_nbeatsx.safetensors
    exog/predict_mlp.safetensors

Model fixtures: the tensors and metadata of make_fixtures.py's model fixtures
(param.*, input.insample_y/_mask, input.outsample_y/_mask, output.forecast,
output.loss, output.dforecast when Q > 1, grad.*, curve.loss, curve.param.*;
"config", "state_dict_keys", "trainable_keys", versions) plus the exogenous
inputs exactly as BaseModel._parse_windows hands them to the model (already
scaled model inputs, time-major, channel last, channels in list order):
input.futr_exog (B, L+h, F), input.hist_exog (B, L, X), input.stat_exog (B, S),
each present only when the case has that kind. The config also holds
futr_exog_list / hist_exog_list / stat_exog_list ([] when none).

Predict fixtures (exog/): a 2-series monthly panel with futr, hist and static
exogenous columns, NeuralForecast(freq='MS').fit(df, static_df) with lr = 0
then predict(futr_df): every state_dict entry (param.*), the forecast (N, h)
in sorted unique_id order, and, to localise a mismatch, the raw model inputs
of the predict window (input.*), the per-window scaler statistics
(scaler.shift / scaler.scale (N, C), channels [y, futr_exog_list...,
hist_exog_list...]) and the scaled inputs the model received (scaled.*).

Everything is computed with neuralforecast's own classes on CPU, one thread,
deterministic algorithms, fixed seeds, inside a temporary working directory
(removed at the end) so Lightning leaves nothing behind. Where the script
re-derives a result by hand (a float64 numpy forward, the predict path), it
only asserts that the rules reported for fcast are the ones neuralforecast
follows; the fixtures always hold neuralforecast's own numbers.

What neuralforecast 3.3.0 does with future exogenous values at predict time
(checked by check_futr_df_errors() on every run; NeuralForecast.predict):
  * futr_df lacks one (unique_id, ds) row of the forecast horizon, or lacks a
    whole series: ValueError before any forecast is made, message
        "There are missing combinations of ids and times in `futr_df`.\\n"
        "You can run the `make_future_dataframe()` method to get the expected
        combinations or the `get_missing_future(futr_df)` method to get the
        missing combinations."
    (predict(futr_df=...) without df; with df= the commands read
    make_future_dataframe(df) / get_missing_future(futr_df, df)). No NaN
    forecast is ever returned.
  * the row exists but the value is NaN: ValueError "Found null values in
    `futr_df`".
  * a futr_exog_list column is absent from futr_df: ValueError "The following
    features are missing from `futr_df`: {'season_f'}".
  * futr_df is None while the model has futr exog: ValueError "Models require
    the following future exogenous features: {...}. Please provide them
    through the `futr_df` argument."
  * extra rows (dates after the horizon, unknown series) are dropped with the
    warning "Dropped N unused rows from `futr_df`." and the forecast is the
    same as without them.
"""

import copy
import json
import os
import sys
import warnings

import numpy as np
import pandas as pd
import torch
from safetensors.numpy import load_file

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_fixtures import (  # noqa: E402
    ARCH_KEYS, BATCH, CURVE_LR, CURVE_STEPS, REPO, SCALER_EPS, TRAINER_KWARGS,
    f32, interp_linear, load_series, model_loss, model_windows, n_outputs,
    forecast_tensor, out_shape, quiet, fixture_main, report_written, set_determinism, stack_of,
    versions, write)

from neuralforecast import NeuralForecast  # noqa: E402
from neuralforecast.common._scalers import TemporalNorm  # noqa: E402
from neuralforecast.losses.pytorch import MAE, MQLoss  # noqa: E402
from neuralforecast.models import MLP, NBEATSx, NHITS  # noqa: E402

# --------------------------------------------------------------------------
# 1. Model fixtures with exogenous inputs
# --------------------------------------------------------------------------

EXOG_ARCH_KEYS = {
    "NHITS": ARCH_KEYS["NHITS"] + ["exclude_insample_y"],
    "MLP": ARCH_KEYS["MLP"] + ["exclude_insample_y"],
    "NBEATSx": ["h", "input_size", "stack_types", "n_blocks", "mlp_units",
                "n_polynomials", "n_harmonics", "shared_weights",
                "dropout_prob_theta", "activation", "exclude_insample_y",
                "random_seed"],
}

EXOG_CASES = {
    "nhits_exog": lambda: NHITS(h=12, input_size=24, mlp_units=3 * [[32, 32]],
                                futr_exog_list=["f1", "f2"],
                                hist_exog_list=["x1"],
                                stat_exog_list=["s1", "s2"],
                                random_seed=1, loss=MAE()),
    # Odd sizes: ceil-mode pooling of the exogenous channels, where neither
    # L = 25 nor L + h = 35 is a multiple of the kernels 3 and 2.
    "nhits_hist": lambda: NHITS(h=10, input_size=25, mlp_units=3 * [[16, 16]],
                                n_pool_kernel_size=[3, 2, 1],
                                n_freq_downsample=[4, 3, 1],
                                hist_exog_list=["x1", "x2"],
                                futr_exog_list=["f1"],
                                random_seed=1, loss=MAE()),
    "mlp_exog": lambda: MLP(h=12, input_size=24, hidden_size=32, num_layers=2,
                            futr_exog_list=["f1", "f2"],
                            hist_exog_list=["x1"],
                            stat_exog_list=["s1", "s2"],
                            random_seed=1, loss=MAE()),
    "nbeatsx_exog": lambda: NBEATSx(h=7, input_size=20,
                                    mlp_units=3 * [[16, 16]],
                                    stack_types=["identity", "trend",
                                                 "seasonality", "exogenous"],
                                    n_blocks=[1, 1, 1, 1],
                                    futr_exog_list=["f1", "f2"],
                                    hist_exog_list=["x1"],
                                    stat_exog_list=["s1"],
                                    random_seed=1, loss=MAE()),
    # Exogenous basis from the static values alone (broadcast over the
    # L + h positions), with 3 outputs per horizon point.
    "nbeatsx_stat": lambda: NBEATSx(h=7, input_size=20,
                                    mlp_units=3 * [[16, 16]],
                                    stack_types=["exogenous", "identity"],
                                    n_blocks=[1, 1],
                                    stat_exog_list=["s1", "s2"],
                                    random_seed=1, loss=MQLoss(level=[80])),
}

EXOG_NOTE = ("f1 = sin(2 pi (start+t)/12), f2 = cos(2 pi (start+t)/12) + 0.1 t/L "
             "over the L+h positions t of the window; x1 = N(0,1), "
             "x2 = 0.3 + 0.5 N(0,1) + 0.5 t/L (numpy RandomState(7), x1 drawn "
             "first, (B, L) each); s1 = linspace(-1, 1, B), "
             "s2 = 0.5 + 0.25 cos(b). Not masked (only y is).")


def exog_windows(model, starts, L, h, B):
    """Deterministic exogenous model inputs for the windows of model_windows.

    Returns float32 arrays futr (B, L+h, F), hist (B, L, X), stat (B, S) in
    the order of the model's lists, None for a kind the model does not use."""
    t = np.arange(L + h, dtype=np.float64)
    pos = starts[:, None].astype(np.float64) + t[None, :]
    futr_all = {
        "f1": np.sin(2 * np.pi * pos / 12),
        "f2": np.cos(2 * np.pi * pos / 12) + 0.1 * t[None, :] / L,
    }
    rs = np.random.RandomState(7)
    x1 = rs.standard_normal((B, L))
    x2 = 0.3 + 0.5 * rs.standard_normal((B, L)) + 0.5 * t[None, :L] / L
    hist_all = {"x1": x1, "x2": x2}
    b = np.arange(B, dtype=np.float64)
    stat_all = {"s1": np.linspace(-1.0, 1.0, B), "s2": 0.5 + 0.25 * np.cos(b)}

    def stack(names, table, axis):
        if not names:
            return None
        return f32(np.stack([table[n] for n in names], axis=axis))

    return (stack(model.futr_exog_list, futr_all, 2),
            stack(model.hist_exog_list, hist_all, 2),
            stack(model.stat_exog_list, stat_all, 1))


def as_tensor(a):
    return None if a is None else torch.tensor(a)


def forward_exog(model, iy, im, fx, hx, sx):
    windows_batch = dict(insample_y=iy.unsqueeze(-1),
                         insample_mask=im.unsqueeze(-1),
                         futr_exog=fx, hist_exog=hx, stat_exog=sx)
    return model(windows_batch)  # (B, h, Q)


def train_curve_exog(model, iy, im, oy, om, fx, hx, sx):
    """Loss before each of CURVE_STEPS Adam steps on one fixed batch."""
    opt = torch.optim.Adam(model.parameters(), lr=CURVE_LR)
    losses = []
    for _ in range(CURVE_STEPS):
        opt.zero_grad()
        loss = model_loss(model, oy, forward_exog(model, iy, im, fx, hx, sx), om)
        losses.append(loss.item())
        loss.backward()
        opt.step()
    return np.array(losses, dtype=np.float32)


def exog_lists(model):
    return {"futr_exog_list": list(model.futr_exog_list),
            "hist_exog_list": list(model.hist_exog_list),
            "stat_exog_list": list(model.stat_exog_list)}


def arch_config(model):
    cls = type(model).__name__
    hp = dict(model.hparams)
    cfg = {"model": cls}
    for k in EXOG_ARCH_KEYS[cls]:
        cfg[k] = hp[k]
    cfg.update(exog_lists(model))
    return cfg


def config_exog(model, arch=None):
    """The fixture's config: the architecture (arch(model), this script's
    arch_config by default; the LSTM and TiDE scripts pass theirs), the
    loss and the curve's optimizer."""
    cfg = (arch or arch_config)(model)
    cfg["loss"] = type(model.loss).__name__
    if isinstance(model.loss, MQLoss):
        cfg["n_outputs"] = n_outputs(model)
        cfg["quantiles"] = [float(q) for q in model.loss.quantiles]
    cfg["learning_rate"] = CURVE_LR
    cfg["optimizer"] = {"name": "Adam", "betas": [0.9, 0.999], "eps": 1e-8,
                        "weight_decay": 0.0, "steps": CURVE_STEPS}
    cfg["batch"] = BATCH
    return cfg


def case_inputs(model):
    L, h = model.input_size, model.h
    iy, im, oy, om, starts = model_windows(L, h, BATCH)
    fx, hx, sx = exog_windows(model, starts, L, h, BATCH)
    return iy, im, oy, om, fx, hx, sx, starts


def make_exog_fixture(case, out_dir):
    with quiet():
        model = EXOG_CASES[case]()
    h = model.h
    iy, im, oy, om, fx, hx, sx, starts = case_inputs(model)
    t_iy, t_im = torch.tensor(iy), torch.tensor(im)
    t_oy, t_om = torch.tensor(oy).unsqueeze(-1), torch.tensor(om).unsqueeze(-1)
    t_fx, t_hx, t_sx = as_tensor(fx), as_tensor(hx), as_tensor(sx)

    tensors = {}
    state = model.state_dict()
    for k, v in state.items():
        tensors["param." + k] = f32(v)
    trainable = [k for k, p in model.named_parameters() if p.requires_grad]

    model.zero_grad()
    Q = n_outputs(model)
    y_hat = forward_exog(model, t_iy, t_im, t_fx, t_hx, t_sx)
    assert y_hat.shape == (BATCH, h, Q), y_hat.shape
    y_hat.retain_grad()
    loss = model_loss(model, t_oy, y_hat, t_om)
    loss.backward()
    tensors["input.insample_y"] = f32(iy)
    tensors["input.insample_mask"] = f32(im)
    tensors["input.outsample_y"] = f32(oy)
    tensors["input.outsample_mask"] = f32(om)
    for name, a in (("futr_exog", fx), ("hist_exog", hx), ("stat_exog", sx)):
        if a is not None:
            tensors["input." + name] = f32(a)
    tensors["output.forecast"] = forecast_tensor(model, y_hat)
    tensors["output.loss"] = f32(loss.reshape(1))
    if Q > 1:
        tensors["output.dforecast"] = f32(y_hat.grad)
    params = dict(model.named_parameters())
    for k in trainable:
        g = params[k].grad
        # every trainable parameter must be reached by the loss
        assert g is not None, (case, k)
        tensors["grad." + k] = f32(g)

    curve = train_curve_exog(model, t_iy, t_im, t_oy, t_om, t_fx, t_hx, t_sx)
    assert abs(curve[0] - loss.item()) == 0.0
    assert curve[-1] < curve[0], (case, curve)
    tensors["curve.loss"] = f32(curve)
    params = dict(model.named_parameters())
    for k in (trainable[0], trainable[-1]):
        tensors["curve.param." + k] = f32(params[k])

    cfg = config_exog(model)
    check_exog_forward_rules(cfg, tensors)
    meta = {"config": json.dumps(cfg),
            "state_dict_keys": json.dumps(list(state.keys())),
            "trainable_keys": json.dumps(trainable),
            "window_starts": json.dumps([int(s) for s in starts]),
            "series": "AirPassengers / mean(AirPassengers)",
            "exog": EXOG_NOTE}
    meta.update(versions())
    path = os.path.join(out_dir, f"model_{case}.safetensors")
    write(path, tensors, meta)
    return path, cfg, {k: list(v.shape) for k, v in tensors.items()}


def verify_exog_fixture(case, path):
    """Reload the written file into a fresh model and recompute everything
    bit-exactly from the stored tensors alone."""
    t = load_file(path)
    with quiet():
        model = EXOG_CASES[case]()
    model.load_state_dict({k[6:]: torch.tensor(v) for k, v in t.items()
                           if k.startswith("param.")})
    iy = torch.tensor(t["input.insample_y"])
    im = torch.tensor(t["input.insample_mask"])
    oy = torch.tensor(t["input.outsample_y"]).unsqueeze(-1)
    om = torch.tensor(t["input.outsample_mask"]).unsqueeze(-1)
    fx, hx, sx = (as_tensor(t.get("input." + n))
                  for n in ("futr_exog", "hist_exog", "stat_exog"))
    for name, lst in (("futr_exog", model.futr_exog_list),
                      ("hist_exog", model.hist_exog_list),
                      ("stat_exog", model.stat_exog_list)):
        assert (("input." + name) in t) == bool(lst), (case, name)
    y_hat = forward_exog(model, iy, im, fx, hx, sx)
    y_hat.retain_grad()
    loss = model_loss(model, oy, y_hat, om)
    loss.backward()
    assert np.array_equal(forecast_tensor(model, y_hat), t["output.forecast"]), case
    if "output.dforecast" in t:
        assert np.array_equal(f32(y_hat.grad), t["output.dforecast"]), case
    assert np.array_equal(f32(loss.reshape(1)), t["output.loss"]), case
    for k, p in model.named_parameters():
        if p.requires_grad:
            assert np.array_equal(f32(p.grad), t["grad." + k]), (case, k)
    assert np.array_equal(train_curve_exog(model, iy, im, oy, om, fx, hx, sx),
                          t["curve.loss"]), case
    params = dict(model.named_parameters())
    for k in t:
        if k.startswith("curve.param."):
            assert np.array_equal(f32(params[k[12:]]), t[k]), (case, k)


# -- the forward pass by hand (float64 numpy), to check the reported rules --

def pool_max(a, k):
    """MaxPool1d(k, stride=k, ceil_mode=True) along axis 1 of (B, T[, C]):
    ceil(T/k) outputs, the last one over the (possibly shorter) tail."""
    T = a.shape[1]
    return np.stack([a[:, j * k:min((j + 1) * k, T)].max(1)
                     for j in range(-(-T // k))], 1)


def numpy_forward_exog(cfg, P, iy, im, fx, hx, sx):
    """fcast's documented forward with exogenous inputs, from the state_dict:

    * MLP: input [y (L) | hist (L*X, time-major) | futr ((L+h)*F) | stat (S)].
    * N-HiTS block: [pool(flipped residual) | pool(hist) | pool(futr) | stat];
      the exogenous channels are NOT flipped (oldest first), each pooled
      separately along time (ceil mode: the short last window holds the
      newest hist point / the last horizon point), then flattened time-major.
    * NBEATSx block: [flipped residual (L) | hist (L*X) | futr ((L+h)*F) | S],
      not pooled. Exogenous basis E (B, L+h, F+S) = [futr | stat repeated
      over time]; theta = [forecast coefs (F+S) | backcast coefs (F+S)]
      (forecast FIRST, unlike the other bases); backcast[t] = sum_p
      theta_b[p] E[t, p] for t = 0..L-1 in chronological order, subtracted
      from the FLIPPED residual as is; forecast (B, h, 1): one output only,
      added to every one of the Q outputs (broadcast)."""
    L, h = cfg["input_size"], cfg["h"]
    Q = cfg.get("n_outputs", 1)
    B = len(iy)
    relu = lambda v: np.maximum(v, 0.0)
    lin = lambda v, k: v @ P[k + ".weight"].T + P[k + ".bias"]
    flat = lambda a: a.reshape(B, -1)
    if cfg["model"] == "MLP":
        parts = [iy]
        parts += [flat(hx)] if hx is not None else []
        parts += [flat(fx)] if fx is not None else []
        parts += [sx] if sx is not None else []
        v = np.concatenate(parts, 1)
        for i in range(cfg["num_layers"]):
            v = relu(lin(v, f"mlp.{i}"))
        return out_shape(lin(v, "out").reshape(B, h, Q))
    res, mask = iy[:, ::-1], im[:, ::-1]
    fc = np.repeat(iy[:, -1:, None], h, axis=1)  # (B, h, 1)
    n_units = len(cfg["mlp_units"])
    blocks = [t for t, n in zip(cfg["stack_types"], cfg["n_blocks"])
              for _ in range(n)]
    for b, kind in enumerate(blocks):
        pre = f"blocks.{b}.layers."
        if cfg["model"] == "NHITS":
            k = cfg["n_pool_kernel_size"][stack_of(cfg, b)]
            pool = lambda a: pool_max(a, k)
        else:
            pool = lambda a: a
        parts = [pool(res)]
        parts += [flat(pool(hx))] if hx is not None else []
        parts += [flat(pool(fx))] if fx is not None else []
        parts += [sx] if sx is not None else []
        v = lin(np.concatenate(parts, 1), pre + "0")
        for u in range(n_units):
            v = relu(lin(v, pre + str(1 + 2 * u)))
        theta = lin(v, pre + str(1 + 2 * n_units))
        if kind == "identity" and cfg["model"] == "NHITS":
            knots = theta[:, L:].reshape(B * Q, -1)
            fore = interp_linear(knots, h).reshape(B, Q, h).transpose(0, 2, 1)
            back = theta[:, :L]
        elif kind == "identity":
            back, fore = theta[:, :L], theta[:, L:].reshape(B, h, Q)
        elif kind == "exogenous":
            E = [fx] if fx is not None else []
            E += [np.repeat(sx[:, None, :], L + h, 1)] if sx is not None else []
            E = np.concatenate(E, 2)
            n = E.shape[2]
            assert theta.shape[1] == 2 * n
            fore = np.einsum("bp,btp->bt", theta[:, :n], E[:, L:])[:, :, None]
            back = np.einsum("bp,btp->bt", theta[:, n:], E[:, :L])
        else:
            Bb = P[f"blocks.{b}.basis.backcast_basis"]
            Bf = P[f"blocks.{b}.basis.forecast_basis"]
            n = Bb.shape[0]
            back = theta[:, :n] @ Bb
            fore = np.einsum("bpq,pt->btq", theta[:, n:].reshape(B, n, Q), Bf)
        res = (res - back) * mask
        fc = fc + fore
    return out_shape(fc)


def check_exog_forward_rules(cfg, tensors):
    P = {k[6:]: tensors[k].astype(np.float64) for k in tensors
         if k.startswith("param.")}
    get = lambda k: (tensors[k].astype(np.float64) if k in tensors else None)
    got = numpy_forward_exog(cfg, P, get("input.insample_y"),
                             get("input.insample_mask"), get("input.futr_exog"),
                             get("input.hist_exog"), get("input.stat_exog"))
    ref = tensors["output.forecast"]
    assert got.shape == ref.shape, (got.shape, ref.shape)
    assert np.max(np.abs(got - ref)) < 1e-5, (cfg["model"], np.abs(got - ref).max())


def check_exog_basis_mq():
    """NBEATSx's exogenous block gives one output per horizon point even
    with MQLoss: its (B, h, 1) forecast is added to every quantile."""
    with quiet():
        model = EXOG_CASES["nbeatsx_stat"]()
    iy, im, _, _, fx, hx, sx, _ = case_inputs(model)
    blk = model.blocks[0]
    res = torch.tensor(iy).flip(-1)
    with torch.no_grad():
        _, fore = blk(insample_y=res, futr_exog=None, hist_exog=None,
                      stat_exog=torch.tensor(sx))
    assert fore.shape == (BATCH, model.h, 1), fore.shape


# --------------------------------------------------------------------------
# 2. End-to-end predict fixtures with exogenous columns
# --------------------------------------------------------------------------

H, L_PRED = 6, 12
FUTR = ["trend_f", "season_f"]
HIST = ["lag_h"]
STAT = ["s_size", "s_flag"]
EXOG_LISTS = dict(futr_exog_list=FUTR, hist_exog_list=HIST,
                  stat_exog_list=STAT)
COMMON = dict(h=H, input_size=L_PRED, max_steps=1, learning_rate=0.0,
              random_seed=1, **EXOG_LISTS)

PREDICT_CASES = {
    "nhits": lambda: NHITS(mlp_units=3 * [[16, 16]], scaler_type="robust",
                           **COMMON, **TRAINER_KWARGS),
    "nbeatsx": lambda: NBEATSx(mlp_units=3 * [[16, 16]],
                               stack_types=["identity", "trend", "exogenous"],
                               n_blocks=[1, 1, 1], scaler_type="standard",
                               **COMMON, **TRAINER_KWARGS),
    "mlp": lambda: MLP(hidden_size=16, num_layers=2, scaler_type="minmax",
                       **COMMON, **TRAINER_KWARGS),
}

# unique_id: (rows kept from the end, trend_f offset, lag_h slope, lag_h
# level, static s_size, static s_flag)
PANEL = {"AirPassengers": (48, 1.0, 0.3, 50.0, 1.0, 0),
         "nottem": (40, -2.0, -1.7, 200.0, 2.5, 1)}

PANEL_NOTE = ("trend_f = i/12 + offset (i = row index within the series, "
              "continued over the future rows; offset 1.0 AirPassengers, -2.0 "
              "nottem); season_f = round(sin(2 pi month/12), 6); "
              "lag_h = slope*y + level + 3 N(0,1) (RandomState(11); "
              "slope/level 0.3/50 and -1.7/200); "
              "CSV values written with %.6g and read back")


def futr_columns(idx, ds, offset):
    return {"trend_f": idx / 12.0 + offset,
            # rounded (and -0 made 0) so that sin(2 pi) is written as 0
            "season_f": np.round(np.sin(2 * np.pi * ds.dt.month.to_numpy()
                                        / 12.0), 6) + 0.0}


def exog_panel():
    rs = np.random.RandomState(11)
    hist, futr, stat = [], [], []
    for uid, (n, offset, slope, level, size, flag) in PANEL.items():
        s = load_series(uid).tail(n).reset_index(drop=True)
        ds = pd.to_datetime(s["ds"])
        y = s["y"].to_numpy(dtype=np.float64)
        idx = np.arange(n, dtype=np.float64)
        hist.append(pd.DataFrame({
            "unique_id": uid, "ds": ds, "y": y,
            **futr_columns(idx, ds, offset),
            "lag_h": slope * y + level + 3.0 * rs.standard_normal(n)}))
        fds = pd.Series(pd.date_range(ds.iloc[-1], periods=H + 1, freq="MS")[1:])
        futr.append(pd.DataFrame({
            "unique_id": uid, "ds": fds,
            **futr_columns(np.arange(n, n + H, dtype=np.float64), fds, offset)}))
        stat.append({"unique_id": uid, "s_size": size, "s_flag": flag})
    return (pd.concat(hist, ignore_index=True),
            pd.concat(futr, ignore_index=True), pd.DataFrame(stat))


def write_panel(exog_dir):
    """Write the CSVs and read them back, so the models see the file values."""
    hist, futr, stat = exog_panel()
    paths = {k: os.path.join(exog_dir, f"{k}.csv")
             for k in ("history", "future", "static")}
    for key, df in (("history", hist), ("future", futr)):
        df.assign(ds=df.ds.dt.strftime("%Y-%m-%d")).to_csv(
            paths[key], index=False, float_format="%.6g")
    stat.to_csv(paths["static"], index=False, float_format="%.6g")
    for p in paths.values():
        os.chmod(p, 0o644)
    hist = pd.read_csv(paths["history"], parse_dates=["ds"])
    futr = pd.read_csv(paths["future"], parse_dates=["ds"])
    stat = pd.read_csv(paths["static"])
    return hist, futr, stat, [paths["history"], paths["static"], paths["future"]]


def capture_inputs(model):
    """Record the windows_batch of every forward call."""
    seen = []

    def hook(_module, args):
        wb = args[0]
        seen.append({k: (None if v is None else v.detach().clone())
                     for k, v in wb.items()})
    return seen, model.register_forward_pre_hook(hook)


def manual_predict_exog(model, hist, futr, stat, scaler_type):
    """The predict path by hand: last L history rows + the h future rows of
    every series; each temporal channel (y, futr, hist) scaled by its own
    statistics over the L insample points (the y availability mask, the
    horizon excluded), statics unscaled; forward; inverse with y's stats."""
    ids = sorted(hist.unique_id.unique())
    L, h = model.input_size, model.h
    N = len(ids)
    chans = ["y"] + FUTR + HIST
    x = np.full((N, L + h, len(chans)), np.nan)
    for i, u in enumerate(ids):
        past = hist[hist.unique_id == u].tail(L)
        fut = futr[futr.unique_id == u]
        assert len(fut) == h
        for c, name in enumerate(chans):
            x[i, :L, c] = past[name].to_numpy()
            if name in FUTR:
                x[i, L:, c] = fut[name].to_numpy()
    raw = x.copy()
    x = torch.tensor(x, dtype=torch.float32)
    mask = torch.zeros(N, L + h, 1)
    mask[:, :L] = 1.0
    norm = TemporalNorm(scaler_type, dim=1, eps=SCALER_EPS)
    z = norm.transform(x, mask)
    F, X = len(FUTR), len(HIST)
    iy, fx, hx = z[:, :L, 0], z[:, :, 1:1 + F], z[:, :L, 1 + F:1 + F + X]
    sx = torch.tensor(np.stack([stat.set_index("unique_id").loc[ids, s]
                                for s in STAT], 1), dtype=torch.float32)
    with torch.no_grad():
        out = forward_exog(model, iy, torch.ones(N, L), fx, hx, sx)
    fc = norm.inverse_transform(out, norm.x_shift[:, :, :1],
                                norm.x_scale[:, :, :1])
    scaled = dict(insample_y=iy, futr_exog=fx, hist_exog=hx, stat_exog=sx)
    return (raw, f32(norm.x_shift[:, 0]), f32(norm.x_scale[:, 0]), scaled,
            f32(fc[:, :, 0]))


def fit_predict(case, hist, futr, stat):
    with quiet():
        model = PREDICT_CASES[case]()
        init_state = copy.deepcopy(model.state_dict())
        nf = NeuralForecast(models=[model], freq="MS")
        nf.fit(df=hist, static_df=stat)
    fitted = nf.models[0]
    state = fitted.state_dict()
    for k, v in init_state.items():
        assert torch.equal(v, state[k]), f"lr=0 changed {k}"
    seen, handle = capture_inputs(fitted)
    with quiet():
        fcst = nf.predict(futr_df=futr)
    handle.remove()
    return nf, fitted, fcst, seen


def make_exog_predict_fixture(case, exog_dir, hist, futr, stat):
    nf, fitted, fcst, seen = fit_predict(case, hist, futr, stat)
    cls = type(fitted).__name__
    assert cls in fcst.columns
    ids = sorted(hist.unique_id.unique())
    fc = np.stack([fcst[fcst.unique_id == u][cls].to_numpy() for u in ids])
    ds = [[d.strftime("%Y-%m-%d") for d in fcst[fcst.unique_id == u].ds]
          for u in ids]
    for i, u in enumerate(ids):  # the forecast dates are future.csv's
        want = futr[futr.unique_id == u].ds.dt.strftime("%Y-%m-%d").tolist()
        assert ds[i] == want, (u, ds[i], want)

    scaler_type = dict(fitted.hparams)["scaler_type"]
    raw, shift, scale, scaled, manual = manual_predict_exog(
        fitted, hist, futr, stat, scaler_type)
    # What the model received, one forward call for the 2 series.
    assert len(seen) == 1, len(seen)
    wb = seen[0]
    for k in ("insample_y", "futr_exog", "hist_exog", "stat_exog"):
        got = wb[k].squeeze(-1) if k == "insample_y" else wb[k]
        assert got.shape == scaled[k].shape, (k, got.shape, scaled[k].shape)
        # bit-exact: the same per-channel reductions as BaseModel's
        assert torch.equal(got, scaled[k]), (case, k)
    assert torch.equal(wb["insample_mask"].squeeze(-1), torch.ones(len(ids), L_PRED))
    assert np.array_equal(manual, fc), (case, manual, fc)

    state = fitted.state_dict()
    tensors = {"param." + k: f32(v) for k, v in state.items()}
    tensors["forecast"] = f32(fc)
    F, X = len(FUTR), len(HIST)
    tensors["input.insample_y"] = f32(raw[:, :L_PRED, 0])
    tensors["input.futr_exog"] = f32(raw[:, :, 1:1 + F])
    tensors["input.hist_exog"] = f32(raw[:, :L_PRED, 1 + F:1 + F + X])
    tensors["input.stat_exog"] = f32(wb["stat_exog"])
    tensors["scaler.shift"] = shift
    tensors["scaler.scale"] = scale
    tensors["scaled.insample_y"] = f32(wb["insample_y"].squeeze(-1))
    tensors["scaled.futr_exog"] = f32(wb["futr_exog"])
    tensors["scaled.hist_exog"] = f32(wb["hist_exog"])
    cfg = arch_config(fitted)
    cfg["scaler_type"] = scaler_type
    cfg["loss"] = type(fitted.loss).__name__
    for k in ("max_steps", "learning_rate"):
        cfg[k] = dict(fitted.hparams)[k]
    meta = {"config": json.dumps(cfg), "freq": "MS",
            "unique_ids": json.dumps(ids), "forecast_ds": json.dumps(ds),
            "column": cls, "history_csv": "history.csv",
            "static_csv": "static.csv", "future_csv": "future.csv",
            "scaler_channels": json.dumps(["y"] + FUTR + HIST),
            "panel": PANEL_NOTE,
            "state_dict_keys": json.dumps(list(state.keys()))}
    meta.update(versions())
    path = os.path.join(exog_dir, f"predict_{case}.safetensors")
    write(path, tensors, meta)
    return path, nf, fc, cfg, {k: list(v.shape) for k, v in tensors.items()}


def expect_error(fn, *fragments):
    try:
        with quiet():
            fn()
    except ValueError as e:
        msg = str(e)
        for frag in fragments:
            assert frag in msg, (frag, msg)
        return msg
    raise AssertionError(f"no ValueError (wanted {fragments})")


def check_futr_df_errors(nf, futr, fc):
    """The behaviours written at the top of this file."""
    ids = sorted(futr.unique_id.unique())
    out = {}
    one_row = futr.drop(index=futr.index[futr.unique_id == ids[1]][2])
    out["missing row"] = expect_error(
        lambda: nf.predict(futr_df=one_row),
        "There are missing combinations of ids and times in `futr_df`.",
        "make_future_dataframe()", "get_missing_future(futr_df)")
    one_series = futr[futr.unique_id != ids[0]]
    out["missing series"] = expect_error(
        lambda: nf.predict(futr_df=one_series),
        "There are missing combinations of ids and times in `futr_df`.")
    nan_val = futr.copy()
    nan_val.loc[nan_val.index[3], "season_f"] = np.nan
    out["NaN value"] = expect_error(lambda: nf.predict(futr_df=nan_val),
                                    "Found null values in `futr_df`")
    out["missing column"] = expect_error(
        lambda: nf.predict(futr_df=futr.drop(columns=["season_f"])),
        "The following features are missing from `futr_df`: {'season_f'}")
    out["no futr_df"] = expect_error(
        lambda: nf.predict(),
        "Models require the following future exogenous features")
    # Extra rows: a date after the horizon and an unknown series.
    later = futr.ds.max() + pd.offsets.MonthBegin(1)
    extra = pd.concat([futr, futr.tail(1).assign(ds=later),
                       futr.head(1).assign(unique_id="zzz")], ignore_index=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with quiet():
            fcst = nf.predict(futr_df=extra)
    msgs = [str(x.message) for x in w]
    assert any("Dropped 2 unused rows from `futr_df`." in m for m in msgs), msgs
    col = repr(nf.models[0])
    again = np.stack([fcst[fcst.unique_id == u][col].to_numpy() for u in ids])
    assert np.array_equal(again, fc)
    out["extra rows"] = "warning: Dropped 2 unused rows from `futr_df`."
    return out


# --------------------------------------------------------------------------


def main():
    return fixture_main(__doc__, "exog", generate, verbose_help="print the configs and futr_df error messages")


def generate(args):
    set_determinism()
    check_exog_basis_mq()
    written, shapes, configs = [], {}, {}
    for case in EXOG_CASES:
        path, cfg, shp = make_exog_fixture(case, args.out)
        verify_exog_fixture(case, path)
        written.append(path)
        shapes[case], configs[case] = shp, cfg

    exog_dir = os.path.join(args.out, "exog")
    hist, futr, stat, csvs = write_panel(exog_dir)
    written.extend(csvs)
    errors = None
    for case in PREDICT_CASES:
        path, nf, fc, cfg, shp = make_exog_predict_fixture(
            case, exog_dir, hist, futr, stat)
        written.append(path)
        shapes["predict_" + case], configs["predict_" + case] = shp, cfg
        if errors is None:
            errors = check_futr_df_errors(nf, futr, fc)

    report_written(written, shapes, configs, args.verbose)
    if args.verbose:
        print()
        for k, msg in errors.items():
            print(f"futr_df {k}: {msg!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
