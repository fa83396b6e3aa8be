#!/usr/bin/env python3
"""Reference fixtures for neuralforecast's LSTM (direct mode) for fcast's C
tests.

Run by developers, not by CI, from any directory:

    pip install -r python/requirements-fixtures.txt
    python3 python/make_lstm_fixtures.py [--out DIR]   # default: tests/fixtures/

It writes, under DIR:

    model_lstm_small.safetensors    model_lstm_one_layer.safetensors
    model_lstm_upsample.safetensors model_lstm_exog.safetensors
    model_lstm_mq.safetensors
    lstm/history.csv  lstm/predict_lstm.safetensors

Model fixtures: exactly the tensors and metadata of make_fixtures.py's model
fixtures (param.*, input.insample_y/_mask, input.outsample_y/_mask,
output.forecast (B, h) or (B, h, Q), output.loss, output.dforecast when Q > 1,
grad.*, curve.loss (10 Adam steps, lr 1e-3), curve.param.<first and last
trainable>; "config", "state_dict_keys", "trainable_keys", versions) plus, for
lstm_exog, the exogenous inputs of make_exog_fixtures.py (input.futr_exog
(B, L+h, F), input.hist_exog (B, L, X), input.stat_exog (B, S)). The forward
is LSTM.forward(windows_batch) itself, recurrent=False (the direct
multi-step mode, LSTM's default): it reads insample_y (B, L, 1), futr_exog,
hist_exog and stat_exog; insample_mask is passed but never read (masked
points are simply their stored value 0).

Predict fixture (lstm/): a 2-series monthly panel (AirPassengers tail 48,
nottem tail 40), NeuralForecast(freq='MS').fit with lr = 0 and the robust
scaler, then predict(): every state_dict entry (param.*), the forecast (N, h)
in sorted unique_id order, and, to localise a mismatch, the raw insample
window (input.insample_y), the scaler statistics (scaler.shift/scale) and the
scaled input the model received (scaled.insample_y).

THE FORWARD fcast MUST COMPUTE (LSTM, recurrent=False), from the state_dict
alone; numpy_forward_lstm() below is this text in float64 and is asserted
against every model fixture within 1e-5:

  Inputs of one window: y (L) (already scaled), hist (L, X), stat (S),
  futr (L+h, F); X, S, F = lengths of hist/stat/futr_exog_list (0 allowed).
  H = encoder_hidden_size, Hd = decoder_hidden_size, Q = outputs per point
  (loss.outputsize_multiplier: 1, or len(quantiles) for MQLoss).

  1. Encoder input, (L, 1+X+S+F), column order
         [ y | hist (list order) | stat repeated at every step | futr[0:L] ]
     (futr rows 0..L-1 only: the insample part of the future exogenous).
  2. nn.LSTM, encoder_n_layers layers, batch_first, zero initial h and c,
     no projection (proj_size = 0), dropout between layers = encoder_dropout
     (0 in every fixture; nn.LSTM only applies it in training mode).
     Layer l has weight_ih_l{l} (4H, in_l) (in_0 = 1+X+S+F, in_l = H after),
     weight_hh_l{l} (4H, H), bias_ih_l{l} (4H), bias_hh_l{l} (4H) (both
     biases are present, and simply added, iff encoder_bias). Rows of the 4H
     axis are the gates in the order i, f, g, o (H rows each). For t = 0..L-1:
         z   = W_ih x_t + b_ih + W_hh h_{t-1} + b_hh          (4H)
         i = sigmoid(z[0:H]), f = sigmoid(z[H:2H]),
         g = tanh(z[2H:3H]),  o = sigmoid(z[3H:4H])
         c_t = f * c_{t-1} + i * g
         h_t = o * tanh(c_t)
     The output sequence h_0..h_{L-1} of layer l is the input of layer l+1.
     Let E (L, H) be the top layer's sequence.
  3. Time alignment to the horizon, D (h, H):
       h <= L: D = E[L-h : L]  (the last h hidden states; step k of the
               horizon reads the state after insample point L-h+k);
       h >  L: upsample_sequence = Linear(L, h) over TIME, per hidden unit:
               D[k, j] = sum_t U[k, t] E[t, j] + u[k]
               (U = upsample_sequence.weight (h, L), u = its bias (h)).
  4. If F > 0: D = [ D | futr[L : L+h] ]  (h, H+F), the horizon's futr
     values appended after the hidden units.
  5. Decoder MLP applied to each of the h rows independently (shared
     weights), mlp_decoder.layers is an nn.Sequential:
       decoder_layers = 1: layers.0 = Linear(H+F, Q); nothing else.
       decoder_layers = n >= 2: layers.0 = Linear(H+F, Hd), then for
         i = 1..n-2 layers.{3i} = Linear(Hd, Hd), and layers.{3(n-1)} =
         Linear(Hd, Q); every Linear but the last is followed by the
         activation (decoder_activation, ReLU by default) and a Dropout(0)
         (indices 3i+1, 3i+2, which hold no tensors). So n = 2: 0, 3;
         n = 3: 0, 3, 6.
     Output (h, Q): forecast[k, q]; the fixtures store (B, h) when Q = 1.
  Stat exog only enters the encoder (step 1); hist exog likewise; futr exog
  enters both (insample part in the encoder, horizon part in the decoder).

Initialisation (checked by check_init_rule() on every run, bit-exact against
torch's own calls): torch.manual_seed(random_seed) (pl.seed_everything in
BaseModel.__init__), then draws in state_dict order: every nn.LSTM tensor
U(-1/sqrt(H), 1/sqrt(H)) (weights and both biases alike), then each decoder
Linear (weight via kaiming_uniform_(a=sqrt(5)) = U(-1/sqrt(fan_in),
1/sqrt(fan_in)), then bias U(-1/sqrt(fan_in), 1/sqrt(fan_in))), then
upsample_sequence the same way (fan_in = L). neuralforecast applies no init
of its own to LSTM.

Everything is computed with neuralforecast's own classes on CPU, one thread,
deterministic algorithms, fixed seeds, inside a temporary working directory
(removed at the end) so Lightning leaves nothing behind.
"""

import copy
import json
import math
import os
import sys

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from safetensors.numpy import load_file

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_fixtures import (  # noqa: E402
    BATCH, CURVE_LR, CURVE_STEPS, REPO, SCALER_EPS, TRAINER_KWARGS, f32,
    forecast_tensor, load_series, model_loss, model_windows, n_outputs,
    out_shape, quiet, fixture_main, report_written, set_determinism, versions, write)
from make_exog_fixtures import (  # noqa: E402
    EXOG_NOTE, as_tensor, case_inputs, config_exog, exog_windows, forward_exog,
    train_curve_exog)

from neuralforecast import NeuralForecast  # noqa: E402
from neuralforecast.common._scalers import TemporalNorm  # noqa: E402
from neuralforecast.losses.pytorch import MAE, MQLoss  # noqa: E402
from neuralforecast.models import LSTM  # noqa: E402

# --------------------------------------------------------------------------
# 1. Model fixtures
# --------------------------------------------------------------------------

# Architecture hparams, read back from model.hparams (decoder_activation is
# taken resolved, from the model: hparams keeps the None the user passed).
LSTM_ARCH_KEYS = ["h", "input_size", "encoder_n_layers", "encoder_hidden_size",
                  "encoder_bias", "encoder_dropout", "decoder_hidden_size",
                  "decoder_layers", "decoder_activation", "recurrent",
                  "exclude_insample_y", "random_seed"]

SMALL = dict(h=6, input_size=12, encoder_n_layers=2, encoder_hidden_size=16,
             decoder_hidden_size=16, decoder_layers=2, random_seed=1)

LSTM_CASES = {
    "lstm_small": lambda: LSTM(**SMALL, loss=MAE()),
    "lstm_one_layer": lambda: LSTM(h=5, input_size=9, encoder_n_layers=1,
                                   encoder_hidden_size=8,
                                   decoder_hidden_size=16, decoder_layers=1,
                                   random_seed=1, loss=MAE()),
    "lstm_upsample": lambda: LSTM(h=12, input_size=8, encoder_n_layers=2,
                                  encoder_hidden_size=8, decoder_hidden_size=8,
                                  decoder_layers=2, random_seed=1, loss=MAE()),
    "lstm_exog": lambda: LSTM(**SMALL, futr_exog_list=["f1", "f2"],
                              hist_exog_list=["x1"], stat_exog_list=["s1"],
                              loss=MAE()),
    "lstm_mq": lambda: LSTM(**SMALL, loss=MQLoss(level=[80])),
}


def exog_lists(model):
    return {"futr_exog_list": list(model.futr_exog_list),
            "hist_exog_list": list(model.hist_exog_list),
            "stat_exog_list": list(model.stat_exog_list)}


def arch_config(model):
    hp = dict(model.hparams)
    cfg = {"model": type(model).__name__}
    for k in LSTM_ARCH_KEYS:
        cfg[k] = hp[k]
    cfg["decoder_activation"] = model.decoder_activation  # resolved name
    # The values the model runs with are the ones recorded.
    assert cfg["input_size"] == model.input_size and cfg["h"] == model.h
    assert cfg["recurrent"] is False and model.RECURRENT is False
    cfg.update(exog_lists(model))
    return cfg


def make_lstm_fixture(case, out_dir):
    with quiet():
        model = LSTM_CASES[case]()
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
    # Everything but MQLoss's frozen quantiles (loss.quantiles, and
    # valid_loss.quantiles, the same Parameter) is trainable.
    assert trainable == [k for k in state if not is_loss_key(k)], trainable

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
        tensors["grad." + k] = f32(g if g is not None else torch.zeros_like(params[k]))

    curve = train_curve_exog(model, t_iy, t_im, t_oy, t_om, t_fx, t_hx, t_sx)
    assert abs(curve[0] - loss.item()) == 0.0
    tensors["curve.loss"] = f32(curve)
    params = dict(model.named_parameters())
    for k in (trainable[0], trainable[-1]):
        tensors["curve.param." + k] = f32(params[k])

    cfg = config_exog(model, arch_config)
    check_lstm_forward_rules(cfg, tensors)
    check_mask_ignored(case, tensors)
    meta = {"config": json.dumps(cfg),
            "state_dict_keys": json.dumps(list(state.keys())),
            "trainable_keys": json.dumps(trainable),
            "window_starts": json.dumps([int(s) for s in starts]),
            "series": "AirPassengers / mean(AirPassengers)"}
    if fx is not None or hx is not None or sx is not None:
        meta["exog"] = EXOG_NOTE
    meta.update(versions())
    path = os.path.join(out_dir, f"model_{case}.safetensors")
    write(path, tensors, meta)
    return path, cfg, {k: list(v.shape) for k, v in tensors.items()}


def verify_lstm_fixture(case, path):
    """Reload the written file into a fresh model and recompute everything
    bit-exactly from the stored tensors alone."""
    t = load_file(path)
    with quiet():
        model = LSTM_CASES[case]()
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


def is_loss_key(k):
    return k.startswith(("loss.", "valid_loss."))


def check_mask_ignored(case, tensors):
    """LSTM.forward never reads insample_mask: all-ones gives the same."""
    with quiet():
        model = LSTM_CASES[case]()
    model.load_state_dict({k[6:]: torch.tensor(v) for k, v in tensors.items()
                           if k.startswith("param.")})
    g = lambda n: as_tensor(tensors.get("input." + n))
    iy = g("insample_y")
    # With autograd on, as the stored forward: nn.LSTM's CPU forward under
    # torch.no_grad() (and predict's inference mode) takes another kernel
    # path whose float32 results differ in the last bits.
    out = forward_exog(model, iy, torch.ones_like(iy), g("futr_exog"),
                       g("hist_exog"), g("stat_exog")).detach()
    assert np.array_equal(forecast_tensor(model, out),
                          tensors["output.forecast"]), case


# -- the forward pass by hand (float64 numpy): the text at the top --------

def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def lstm_layer(P, l, x, H, bias):
    """One nn.LSTM layer over x (B, T, in): returns the states (B, T, H)."""
    Wih, Whh = P[f"hist_encoder.weight_ih_l{l}"], P[f"hist_encoder.weight_hh_l{l}"]
    b = (P[f"hist_encoder.bias_ih_l{l}"] + P[f"hist_encoder.bias_hh_l{l}"]
         if bias else np.zeros(4 * H))
    B, T, _ = x.shape
    hs, c = np.zeros((B, H)), np.zeros((B, H))
    out = np.empty((B, T, H))
    for t in range(T):
        z = x[:, t] @ Wih.T + hs @ Whh.T + b
        i, f = sigmoid(z[:, :H]), sigmoid(z[:, H:2 * H])
        g, o = np.tanh(z[:, 2 * H:3 * H]), sigmoid(z[:, 3 * H:])
        c = f * c + i * g
        hs = o * np.tanh(c)
        out[:, t] = hs
    return out


ACT = {"ReLU": lambda v: np.maximum(v, 0.0), "Tanh": np.tanh,
       "Identity": lambda v: v}


def numpy_forward_lstm(cfg, P, iy, fx, hx, sx):
    L, h = cfg["input_size"], cfg["h"]
    H = cfg["encoder_hidden_size"]
    B = len(iy)
    parts = [iy[:, :, None]]                                     # y
    parts += [hx] if hx is not None else []                      # hist
    parts += [np.repeat(sx[:, None, :], L, 1)] if sx is not None else []
    parts += [fx[:, :L]] if fx is not None else []               # futr insample
    x = np.concatenate(parts, 2)
    for l in range(cfg["encoder_n_layers"]):
        x = lstm_layer(P, l, x, H, cfg["encoder_bias"])
    if h > L:
        U, u = P["upsample_sequence.weight"], P["upsample_sequence.bias"]
        d = np.einsum("kt,btj->bkj", U, x) + u[None, :, None]
    else:
        d = x[:, L - h:]
    if fx is not None:
        d = np.concatenate([d, fx[:, L:]], 2)
    n = cfg["decoder_layers"]
    idx = [0] if n == 1 else [3 * i for i in range(n)]
    act = ACT[cfg["decoder_activation"]]
    for j, i in enumerate(idx):
        d = d @ P[f"mlp_decoder.layers.{i}.weight"].T + P[f"mlp_decoder.layers.{i}.bias"]
        if j < len(idx) - 1:
            d = act(d)
    assert d.shape == (B, h, cfg.get("n_outputs", 1))
    return out_shape(d)


def check_lstm_forward_rules(cfg, tensors):
    P = {k[6:]: tensors[k].astype(np.float64) for k in tensors
         if k.startswith("param.") and not is_loss_key(k[6:])}
    # The model tensor names the text above lists, and nothing else.
    n = cfg["decoder_layers"]
    want = []
    for l in range(cfg["encoder_n_layers"]):
        want += [f"hist_encoder.weight_ih_l{l}", f"hist_encoder.weight_hh_l{l}"]
        if cfg["encoder_bias"]:
            want += [f"hist_encoder.bias_ih_l{l}", f"hist_encoder.bias_hh_l{l}"]
    for i in ([0] if n == 1 else [3 * i for i in range(n)]):
        want += [f"mlp_decoder.layers.{i}.weight", f"mlp_decoder.layers.{i}.bias"]
    if cfg["h"] > cfg["input_size"]:
        want += ["upsample_sequence.weight", "upsample_sequence.bias"]
    assert sorted(P) == sorted(want), (sorted(P), want)
    get = lambda k: (tensors[k].astype(np.float64) if k in tensors else None)
    got = numpy_forward_lstm(cfg, P, get("input.insample_y"),
                             get("input.futr_exog"), get("input.hist_exog"),
                             get("input.stat_exog"))
    ref = tensors["output.forecast"]
    assert got.shape == ref.shape, (got.shape, ref.shape)
    err = np.max(np.abs(got - ref))
    assert err < 1e-5, (cfg, err)
    return err


def check_init_rule():
    """The initialisation described at the top, bit-exact against a fresh
    model of every case: seed, then draws in state_dict order."""
    for case, make in LSTM_CASES.items():
        with quiet():
            model = make()
        H = model.encoder_hidden_size
        torch.manual_seed(model.random_seed)
        for k, v in model.state_dict().items():
            if is_loss_key(k):
                continue  # MQLoss's quantiles: not drawn
            w = torch.empty_like(v)
            if k.startswith("hist_encoder."):
                bound = 1.0 / math.sqrt(H)
                nn.init.uniform_(w, -bound, bound)
            elif k.endswith(".weight"):
                nn.init.kaiming_uniform_(w, a=math.sqrt(5))
                bound = 1.0 / math.sqrt(v.shape[1])
            else:  # bias of the Linear whose weight came just before
                bound = 1.0 / math.sqrt(fan_in)
                nn.init.uniform_(w, -bound, bound)
            if k.endswith(".weight") and not k.startswith("hist_encoder."):
                fan_in = v.shape[1]
            assert torch.equal(w, v), (case, k)
            assert float(v.abs().max()) <= bound * (1 + 1e-6), (case, k)


# --------------------------------------------------------------------------
# 2. End-to-end predict fixture
# --------------------------------------------------------------------------

PREDICT = dict(h=6, input_size=12, encoder_hidden_size=16,
               decoder_hidden_size=16, scaler_type="robust", max_steps=1,
               learning_rate=0.0, random_seed=1)
PANEL = {"AirPassengers": 48, "nottem": 40}


def write_history(lstm_dir):
    frames = [load_series(u).tail(n) for u, n in PANEL.items()]
    df = pd.concat(frames, ignore_index=True)[["unique_id", "ds", "y"]]
    df["ds"] = pd.to_datetime(df["ds"])
    df["y"] = df["y"].astype(np.float64)
    path = os.path.join(lstm_dir, "history.csv")
    df.assign(ds=df.ds.dt.strftime("%Y-%m-%d")).to_csv(path, index=False,
                                                       float_format="%.6g")
    os.chmod(path, 0o644)
    return pd.read_csv(path, parse_dates=["ds"]), path  # predict from the file


def capture_inputs(model):
    seen = []

    def hook(_module, args):
        seen.append({k: (None if v is None else v.detach().clone())
                     for k, v in args[0].items()})
    return seen, model.register_forward_pre_hook(hook)


def manual_predict(model, df, scaler_type):
    """Last L points of each series, scaled by their own statistics (the
    horizon excluded), forward, inverse with the same statistics."""
    ids = sorted(df.unique_id.unique())
    L, h = model.input_size, model.h
    y = np.stack([df[df.unique_id == u].y.to_numpy()[-L:] for u in ids])
    x = torch.tensor(np.concatenate([y, np.zeros((len(ids), h))], 1),
                     dtype=torch.float32)[:, :, None]
    mask = torch.ones_like(x)
    mask[:, L:] = 0
    norm = TemporalNorm(scaler_type, dim=1, eps=SCALER_EPS)
    z = norm.transform(x, mask)
    with torch.no_grad():
        out = forward_exog(model, z[:, :L, 0], mask[:, :L, 0], None, None, None)
    fc = norm.inverse_transform(out, norm.x_shift, norm.x_scale)
    return (f32(y), f32(norm.x_shift.reshape(-1)), f32(norm.x_scale.reshape(-1)),
            z[:, :L, 0], f32(fc[:, :, 0]))


def make_predict_fixture(lstm_dir):
    df, csv_path = write_history(lstm_dir)
    with quiet():
        model = LSTM(**PREDICT, **TRAINER_KWARGS)
        init_state = copy.deepcopy(model.state_dict())
        nf = NeuralForecast(models=[model], freq="MS")
        nf.fit(df=df)
    fitted = nf.models[0]
    state = fitted.state_dict()
    for k, v in init_state.items():
        assert torch.equal(v, state[k]), f"lr=0 changed {k}"
    seen, handle = capture_inputs(fitted)
    with quiet():
        fcst = nf.predict()
    handle.remove()
    ids = sorted(df.unique_id.unique())
    assert "LSTM" in fcst.columns
    fc = np.stack([fcst[fcst.unique_id == u]["LSTM"].to_numpy() for u in ids])
    ds = [[d.strftime("%Y-%m-%d") for d in fcst[fcst.unique_id == u].ds]
          for u in ids]
    L, h = PREDICT["input_size"], PREDICT["h"]
    for i, u in enumerate(ids):  # the h months after each series' last date
        last = df[df.unique_id == u].ds.max()
        want = pd.date_range(last, periods=h + 1, freq="MS")[1:]
        assert ds[i] == [d.strftime("%Y-%m-%d") for d in want], (u, ds[i])

    scaler_type = dict(fitted.hparams)["scaler_type"]
    raw, shift, scale, scaled, manual = manual_predict(fitted, df, scaler_type)
    assert len(seen) == 1, len(seen)  # one forward call, one window a series
    wb = seen[0]
    assert torch.equal(wb["insample_y"].squeeze(-1), scaled)
    assert torch.equal(wb["insample_mask"].squeeze(-1), torch.ones(len(ids), L))
    assert all(wb[k] is None for k in ("futr_exog", "hist_exog", "stat_exog"))
    assert np.array_equal(manual, fc), (manual, fc)

    tensors = {"param." + k: f32(v) for k, v in state.items()}
    tensors["forecast"] = f32(fc)
    tensors["input.insample_y"] = raw
    tensors["scaler.shift"] = shift
    tensors["scaler.scale"] = scale
    tensors["scaled.insample_y"] = f32(scaled)
    cfg = arch_config(fitted)
    cfg["scaler_type"] = scaler_type
    cfg["loss"] = type(fitted.loss).__name__
    for k in ("max_steps", "learning_rate"):
        cfg[k] = dict(fitted.hparams)[k]
    meta = {"config": json.dumps(cfg), "freq": "MS",
            "unique_ids": json.dumps(ids), "forecast_ds": json.dumps(ds),
            "column": "LSTM", "history_csv": "history.csv",
            "panel": json.dumps({u: f"tail {n}" for u, n in PANEL.items()}),
            "state_dict_keys": json.dumps(list(state.keys()))}
    meta.update(versions())
    path = os.path.join(lstm_dir, "predict_lstm.safetensors")
    write(path, tensors, meta)
    return [csv_path, path], cfg, {k: list(v.shape) for k, v in tensors.items()}


# --------------------------------------------------------------------------


def main():
    return fixture_main(__doc__, "lstm", generate)


def generate(args):
    set_determinism()
    check_init_rule()
    written, shapes, configs = [], {}, {}
    for case in LSTM_CASES:
        path, cfg, shp = make_lstm_fixture(case, args.out)
        verify_lstm_fixture(case, path)
        written.append(path)
        shapes[case], configs[case] = shp, cfg
    paths, cfg, shp = make_predict_fixture(os.path.join(args.out, "lstm"))
    written.extend(paths)
    shapes["predict_lstm"], configs["predict_lstm"] = shp, cfg

    report_written(written, shapes, configs, args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
