#!/usr/bin/env python3
"""Reference fixtures for neuralforecast's TiDE for fcast's C tests.

Run by developers, not by CI, from any directory:

    pip install -r python/requirements-fixtures.txt
    python3 python/make_tide_fixtures.py [--out DIR]   # default: tests/fixtures/

It writes, under DIR:

    model_tide_small.safetensors     model_tide_deep.safetensors
    model_tide_exog.safetensors      model_tide_futr_only.safetensors
    model_tide_mq.safetensors        model_tide_exog_noln.safetensors
    tide/predict_tide.safetensors    tide/predict_tide_noln.safetensors

Model fixtures: exactly the tensors and metadata of make_lstm_fixtures.py
(param.*, input.insample_y/_mask, input.outsample_y/_mask, input.futr_exog
(B, L+h, F) / input.hist_exog (B, L, X) / input.stat_exog (B, S) when the case
has that kind, output.forecast (B, h) or (B, h, Q), output.loss,
output.dforecast when Q > 1, grad.*, curve.loss (10 Adam steps, lr 1e-3),
curve.param.<first and last trainable>; "config", "state_dict_keys",
"trainable_keys", versions). The forward is TiDE.forward(windows_batch)
itself, the model in training mode with dropout = 0 (so deterministic:
fcast's dropout masks come from its own Philox stream, never torch's). It
reads insample_y, futr_exog, hist_exog, stat_exog; insample_mask is passed
but never read (masked points are simply their stored value 0).
A trainable tensor the loss does not reach (TiDE's unused
hist_exog_projection, tide_futr_only) has grad None in torch: stored as
zeros, and listed in the metadata "grad_none".

tide_exog_noln (and tide/predict_tide_noln) are additions to the requested
cases: with one output per point and layernorm=True the temporal decoder's
LayerNorm is over ONE value and cancels everything before it (see
"Surprises" below), so the exogenous projections only reach the forecast
with layernorm=False (or Q > 1).

Predict fixtures (tide/): NeuralForecast(freq='MS').fit(df, static_df) on
tests/fixtures/exog/history.csv + static.csv (make_exog_fixtures.py's
panel, read, not copied) with lr = 0 and the robust scaler, then
predict(futr_df=tests/fixtures/exog/future.csv): every state_dict entry
(param.*), forecast (N, h) in sorted unique_id order, and, to localise a
mismatch, as make_exog_fixtures.py's predict fixtures: the raw model inputs
of the predict window (input.*), the scaler statistics (scaler.shift /
scaler.scale (N, C), channels [y, futr_exog_list..., hist_exog_list...]) and
the scaled inputs the model received (scaled.*). Metadata: config (plus
scaler_type, max_steps, learning_rate), forecast_ds, freq, unique_ids.

THE FORWARD fcast MUST COMPUTE (TiDE), from the state_dict alone;
numpy_forward_tide() below is this text in float64 and is asserted against
every model fixture within 1e-5:

  Inputs of one window: y (L) (already scaled), hist (L, X), futr (L+h, F),
  stat (S); X, F, S = lengths of hist/futr/stat_exog_list (0 allowed).
  Hs = hidden_size, Dd = decoder_output_dim, T = temporal_decoder_dim,
  W = temporal_width, Q = outputs per point (loss.outputsize_multiplier: 1,
  or len(quantiles) for MQLoss). All matrices are torch's (out, in); a
  Linear "lin" computes x @ lin.weight^T + lin.bias.

  R(prefix, x): one MLPResidual (prefix.lin1, prefix.lin2, prefix.skip,
  prefix.norm), x of length in:
      a = relu(lin1(x))                  lin1: (hid, in)
      z = lin2(a) + skip(x)              lin2: (out, hid), skip: (out, in)
      (Dropout sits between lin2 and the sum: identity at p = 0.)
      if layernorm: z = (z - mean(z)) / sqrt(var(z) + 1e-5) * norm.weight
                        + norm.bias, mean and BIASED variance over the out
                    values of z (nn.LayerNorm(out), eps 1e-5);
      return z (out). Without layernorm the block has no norm.* tensors.
  A block applied to a (rows, in) matrix acts on each row independently
  (shared weights; the LayerNorm too is per row, over its out values).

  1. Global skip: g = global_skip(y), (h*Q), global_skip: (h*Q, L);
     G[k, q] = g[k*Q + q]   (h, Q)   (reshape (h, -1): horizon-major).
  2. If X > 0: Ph = R(hist_exog_projection, hist[t]) for every t -> (L, W).
     If F > 0: Pf = R(futr_exog_projection, futr[t]) for every t = 0..L+h-1
       -> (L+h, W) (the insample AND the horizon rows).
  3. Encoder input e, concatenated in this order:
       [ y (L)
       | Ph flattened time-major, Ph[t, w] at L + t*W + w      (if X > 0)
       | Pf flattened time-major, (L+h)*W values               (if F > 0)
       | stat (S)                                              (if S > 0) ]
     length Ne = L + (X>0)*L*W + (F>0)*(L+h)*W + S
     (= dense_encoder.0.lin1.weight.shape[1]).
  4. dense_encoder: e = R(dense_encoder.i, e) for i = 0..num_encoder_layers-1
     (block 0: Ne -> Hs -> Hs; others Hs -> Hs -> Hs).
  5. dense_decoder: for i = 0..num_decoder_layers-1, e = R(dense_decoder.i, e);
     every block Hs -> Hs -> Hs except the LAST, Hs -> Hs -> Dd*h, whose
     LayerNorm (if any) is over all Dd*h values at once (not per step).
  6. D[k, j] = e[k*Dd + j]   (h, Dd)   (reshape (h, -1): horizon-major).
  7. If F > 0: D = [ D | Pf[L : L+h] ]   (h, Dd + W): row k (horizon step k)
     is the Dd decoded values of step k followed by the W projected future
     values of step k (insample row index L + k of Pf).
  8. temporal_decoder: O = R(temporal_decoder, D) per row, (Dd+(F>0)*W) ->
     T -> Q; its LayerNorm (if any) is over the Q outputs of the row.
  9. forecast = O + G   (h, Q), element by element (each of the Q outputs
     of step k gets its own skip value g[k*Q + q]); stored (h) when Q = 1.
  Stat exog only enters the encoder input; hist exog only through Ph in the
  encoder input; futr exog through Pf both in the encoder input (all L+h
  rows) and in the temporal decoder (horizon rows). hist_exog_projection
  exists whenever X > 0 OR F > 0: with F > 0 and X = 0 it is built with
  input_dim 0 and never called (see Surprises).

Surprises (all but the exclude_insample_y one asserted on every run):
  * Q = 1 with layernorm=True (tide_small, tide_exog, tide_futr_only, the
    predict fixture): the temporal decoder's LayerNorm normalises ONE value,
    z - mean(z) = 0 exactly, so O = temporal_decoder.norm.bias and
    forecast = global_skip(y) + temporal_decoder.norm.bias, bit-exactly in
    float32. Encoder, decoder, projections and the rest of the temporal
    decoder have gradient exactly 0 (not None); only global_skip.* and
    temporal_decoder.norm.bias get non-zero gradients. The true gradient of
    temporal_decoder.norm.weight (sum of dy * xhat, xhat = 0) is 0 too, but
    torch's CPU LayerNorm backward stores float32 rounding noise there (max
    ~1e-6 in grad.temporal_decoder.norm.weight), and Adam, which divides by
    sqrt(v), turns that noise into ~lr-sized steps of that weight during the
    curve: harmless (it multiplies xhat = 0), not stored in curve.param.*.
  * tide_futr_only: hist_exog_projection is MLPResidual(0, Hs, W):
    lin1.weight (Hs, 0), skip.weight (W, 0) (empty tensors), lin1.bias (Hs)
    and skip.bias (W) all 0 (bound 1/sqrt(0) replaced by 0), lin2 (W, Hs)
    drawn normally, norm.weight 1 / norm.bias 0 (W). forward never calls it
    (guarded by hist_exog_size > 0); its grads are None. Its draws still
    shift the random stream of everything after it.
  * With MQLoss the temporal decoder's LayerNorm is across the Q quantile
    outputs of one step.
  * exclude_insample_y is not read by TiDE.forward: BaseModel._parse_windows
    multiplies insample_y by 0 before the forward when it is set.
  * At predict time neuralforecast hands insample_y over as a strided view
    into its (N, C, L+h) window buffer (strides (C*(L+h), 1, 1)); the same
    values in another memory layout make global_skip's float32 matmul round
    differently (1 ulp in one forecast value here), so the bit-exact check of
    the predict path replays the forward on buffers of the recorded layout.

Initialisation (checked by check_init_rule() on every run, bit-exact against
torch's own calls): torch.manual_seed(random_seed) (pl.seed_everything in
BaseModel.__init__), then modules in construction order: hist_exog_projection
(if X > 0 or F > 0), futr_exog_projection (if F > 0), dense_encoder.*,
dense_decoder.*, temporal_decoder, global_skip; inside an MLPResidual
norm (weight 1, bias 0, no draw), lin1, lin2, skip; every nn.Linear draws
its weight via kaiming_uniform_(a=sqrt(5)) = U(-1/sqrt(fan_in),
1/sqrt(fan_in)) (nothing drawn for an empty weight), then its bias
U(-b, b), b = 1/sqrt(fan_in), or 0 when fan_in = 0 (the draw happens
anyway: uniform_(0, 0) consumes the stream). The state_dict order is the
same (norm.* first in each block). neuralforecast applies no init of its own.

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
    BATCH, CURVE_LR, CURVE_STEPS, REPO, TRAINER_KWARGS, f32, forecast_tensor,
    model_loss, model_windows, n_outputs, out_shape, quiet, fixture_main, report_written,
    set_determinism, versions, write)
from make_exog_fixtures import (  # noqa: E402
    EXOG_NOTE, FUTR, HIST, L_PRED, PANEL_NOTE, STAT, as_tensor, case_inputs, config_exog,
    capture_inputs, exog_windows, forward_exog, manual_predict_exog,
    train_curve_exog)
from make_lstm_fixtures import exog_lists, is_loss_key  # noqa: E402

from neuralforecast import NeuralForecast  # noqa: E402
from neuralforecast.losses.pytorch import MAE, MQLoss  # noqa: E402
from neuralforecast.models import TiDE  # noqa: E402

# --------------------------------------------------------------------------
# 1. Model fixtures
# --------------------------------------------------------------------------

# Architecture hparams, read back from model.hparams.
TIDE_ARCH_KEYS = ["h", "input_size", "hidden_size", "decoder_output_dim",
                  "temporal_decoder_dim", "dropout", "layernorm",
                  "num_encoder_layers", "num_decoder_layers", "temporal_width",
                  "exclude_insample_y", "random_seed"]

SMALL = dict(h=6, input_size=12, hidden_size=16, decoder_output_dim=4,
             temporal_decoder_dim=8, dropout=0.0, random_seed=1)
EXOG = dict(futr_exog_list=["f1", "f2"], hist_exog_list=["x1"],
            stat_exog_list=["s1", "s2"], temporal_width=3)

TIDE_CASES = {
    "tide_small": lambda: TiDE(**SMALL, loss=MAE()),
    "tide_deep": lambda: TiDE(**SMALL, num_encoder_layers=2,
                              num_decoder_layers=2, layernorm=False,
                              loss=MAE()),
    "tide_exog": lambda: TiDE(**SMALL, **EXOG, loss=MAE()),
    "tide_futr_only": lambda: TiDE(**SMALL, futr_exog_list=["f1"], loss=MAE()),
    "tide_mq": lambda: TiDE(**SMALL, loss=MQLoss(level=[80])),
    # Addition: the exogenous path reaching the forecast (see the top).
    "tide_exog_noln": lambda: TiDE(**SMALL, **EXOG, layernorm=False,
                                   loss=MAE()),
}

LN_EPS = 1e-5


def arch_config(model):
    hp = dict(model.hparams)
    cfg = {"model": type(model).__name__}
    for k in TIDE_ARCH_KEYS:
        cfg[k] = hp[k]
    assert cfg["input_size"] == model.input_size and cfg["h"] == model.h
    assert cfg["dropout"] == 0.0
    assert model.RECURRENT is False and model.MULTIVARIATE is False
    cfg.update(exog_lists(model))
    # Derived, read from the modules (for the C side's convenience).
    cfg["dense_encoder_input_size"] = model.dense_encoder[0].lin1.in_features
    norms = [m for m in model.modules() if isinstance(m, nn.LayerNorm)]
    assert bool(norms) == cfg["layernorm"]
    assert all(m.eps == LN_EPS and m.elementwise_affine for m in norms)
    cfg["layernorm_eps"] = LN_EPS
    return cfg


def make_tide_fixture(case, out_dir):
    with quiet():
        model = TIDE_CASES[case]()
    assert model.training  # train mode; dropout 0 makes it deterministic
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
    assert trainable == [k for k in state if not is_loss_key(k)], trainable

    model.zero_grad()
    Q = n_outputs(model)
    y_hat = forward_exog(model, t_iy, t_im, t_fx, t_hx, t_sx)
    assert y_hat.shape == (BATCH, h, Q), y_hat.shape
    again = forward_exog(model, t_iy, t_im, t_fx, t_hx, t_sx)
    assert torch.equal(y_hat, again), case  # deterministic in train mode
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
    grad_none = []
    for k in trainable:
        g = params[k].grad
        if g is None:
            grad_none.append(k)
            g = torch.zeros_like(params[k])
        tensors["grad." + k] = f32(g)
    # Only the never-called projection of tide_futr_only lacks a gradient.
    want_none = ([k for k in trainable if k.startswith("hist_exog_projection.")]
                 if model.hist_exog_size == 0 else [])
    assert grad_none == want_none, (case, grad_none)

    curve = train_curve_exog(model, t_iy, t_im, t_oy, t_om, t_fx, t_hx, t_sx)
    assert abs(curve[0] - loss.item()) == 0.0
    assert curve[-1] < curve[0], (case, curve)
    tensors["curve.loss"] = f32(curve)
    params = dict(model.named_parameters())
    for k in (trainable[0], trainable[-1]):
        tensors["curve.param." + k] = f32(params[k])

    cfg = config_exog(model, arch_config)
    err = check_tide_forward_rules(cfg, tensors)
    check_mask_ignored(case, tensors)
    check_single_output_norm(case, cfg, tensors)
    meta = {"config": json.dumps(cfg),
            "state_dict_keys": json.dumps(list(state.keys())),
            "trainable_keys": json.dumps(trainable),
            "grad_none": json.dumps(grad_none),
            "window_starts": json.dumps([int(s) for s in starts]),
            "series": "AirPassengers / mean(AirPassengers)"}
    if fx is not None or hx is not None or sx is not None:
        meta["exog"] = EXOG_NOTE
    meta.update(versions())
    path = os.path.join(out_dir, f"model_{case}.safetensors")
    write(path, tensors, meta)
    return path, cfg, {k: list(v.shape) for k, v in tensors.items()}, err


def load_params(model, t):
    model.load_state_dict({k[6:]: torch.tensor(v) for k, v in t.items()
                           if k.startswith("param.")})


def verify_tide_fixture(case, path):
    """Reload the written file into a fresh model and recompute everything
    bit-exactly from the stored tensors alone."""
    t = load_file(path)
    with quiet():
        model = TIDE_CASES[case]()
    load_params(model, t)
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
            g = p.grad if p.grad is not None else torch.zeros_like(p)
            assert np.array_equal(f32(g), t["grad." + k]), (case, k)
    assert np.array_equal(train_curve_exog(model, iy, im, oy, om, fx, hx, sx),
                          t["curve.loss"]), case
    params = dict(model.named_parameters())
    for k in t:
        if k.startswith("curve.param."):
            assert np.array_equal(f32(params[k[12:]]), t[k]), (case, k)


def stored_inputs(tensors):
    g = lambda n: as_tensor(tensors.get("input." + n))
    return (g("insample_y"), g("insample_mask"), g("futr_exog"),
            g("hist_exog"), g("stat_exog"))


def check_mask_ignored(case, tensors):
    """TiDE.forward never reads insample_mask: all-ones gives the same."""
    with quiet():
        model = TIDE_CASES[case]()
    load_params(model, tensors)
    iy, _, fx, hx, sx = stored_inputs(tensors)
    with torch.no_grad():
        out = forward_exog(model, iy, torch.ones_like(iy), fx, hx, sx)
    assert np.array_equal(forecast_tensor(model, out),
                          tensors["output.forecast"]), case


def check_single_output_norm(case, cfg, tensors):
    """Q = 1 with layernorm: forecast = global_skip(y) + temporal_decoder.
    norm.bias bit-exactly, and only global_skip.* and that bias get a
    non-zero gradient (but for rounding noise on the norm's weight).
    Otherwise the dense path does reach the forecast."""
    with quiet():
        model = TIDE_CASES[case]()
    load_params(model, tensors)
    iy = as_tensor(tensors["input.insample_y"])
    grads = {k[5:]: v for k, v in tensors.items() if k.startswith("grad.")}
    nonzero = sorted(k for k, v in grads.items() if np.any(v != 0))
    if cfg["layernorm"] and cfg.get("n_outputs", 1) == 1:
        with torch.no_grad():
            want = model.global_skip(iy) + model.temporal_decoder.norm.bias
        assert np.array_equal(f32(want), tensors["output.forecast"]), case
        live = ["global_skip.bias", "global_skip.weight",
                "temporal_decoder.norm.bias"]
        # temporal_decoder.norm.weight's true gradient, sum dy * xhat, is 0;
        # torch's CPU LayerNorm backward leaves float32 rounding noise there
        # (about 1e-6; it computes a difference of two rounded products).
        noise = "temporal_decoder.norm.weight"
        assert set(nonzero) - {noise} == set(live), (case, nonzero)
        assert float(np.abs(grads[noise]).max()) < 1e-5, case
    else:
        for pre in ("dense_encoder.0.", "dense_decoder.0.", "temporal_decoder.",
                    "futr_exog_projection.", "hist_exog_projection."):
            if any(k.startswith(pre) for k in grads):
                assert any(k.startswith(pre) for k in nonzero), (case, pre)


# -- the forward pass by hand (float64 numpy): the text at the top --------

def residual_block(P, prefix, x, layernorm):
    """One MLPResidual over the last axis of x (..., in)."""
    lin = lambda v, k: v @ P[f"{prefix}.{k}.weight"].T + P[f"{prefix}.{k}.bias"]
    z = lin(np.maximum(lin(x, "lin1"), 0.0), "lin2") + lin(x, "skip")
    if layernorm:
        mu = z.mean(-1, keepdims=True)
        var = ((z - mu) ** 2).mean(-1, keepdims=True)
        z = ((z - mu) / np.sqrt(var + LN_EPS) * P[f"{prefix}.norm.weight"]
             + P[f"{prefix}.norm.bias"])
    return z


def numpy_forward_tide(cfg, P, iy, fx, hx, sx):
    L, h = cfg["input_size"], cfg["h"]
    Q = cfg.get("n_outputs", 1)
    Dd = cfg["decoder_output_dim"]
    ln = cfg["layernorm"]
    B = len(iy)
    G = (iy @ P["global_skip.weight"].T + P["global_skip.bias"]).reshape(B, h, Q)
    parts = [iy]
    if hx is not None:
        Ph = residual_block(P, "hist_exog_projection", hx, ln)    # (B, L, W)
        parts.append(Ph.reshape(B, -1))
    if fx is not None:
        Pf = residual_block(P, "futr_exog_projection", fx, ln)    # (B, L+h, W)
        parts.append(Pf.reshape(B, -1))
    if sx is not None:
        parts.append(sx)
    e = np.concatenate(parts, 1)
    assert e.shape[1] == cfg["dense_encoder_input_size"]
    for i in range(cfg["num_encoder_layers"]):
        e = residual_block(P, f"dense_encoder.{i}", e, ln)
    for i in range(cfg["num_decoder_layers"]):
        e = residual_block(P, f"dense_decoder.{i}", e, ln)
    D = e.reshape(B, h, Dd)
    if fx is not None:
        D = np.concatenate([D, Pf[:, L:]], 2)
    O = residual_block(P, "temporal_decoder", D, ln)                # (B, h, Q)
    return out_shape(O + G)


def expected_keys(cfg):
    X, F = len(cfg["hist_exog_list"]), len(cfg["futr_exog_list"])
    block = lambda p: ([f"{p}.norm.weight", f"{p}.norm.bias"]
                       if cfg["layernorm"] else []) + \
        [f"{p}.{n}.{w}" for n in ("lin1", "lin2", "skip")
         for w in ("weight", "bias")]
    keys = []
    if X > 0 or F > 0:
        keys += block("hist_exog_projection")
    if F > 0:
        keys += block("futr_exog_projection")
    for i in range(cfg["num_encoder_layers"]):
        keys += block(f"dense_encoder.{i}")
    for i in range(cfg["num_decoder_layers"]):
        keys += block(f"dense_decoder.{i}")
    keys += block("temporal_decoder")
    keys += ["global_skip.weight", "global_skip.bias"]
    return keys


def expected_shapes(cfg):
    """Shape of every tensor named by expected_keys, from the config."""
    L, h = cfg["input_size"], cfg["h"]
    X, F, S = (len(cfg[k]) for k in ("hist_exog_list", "futr_exog_list",
                                     "stat_exog_list"))
    Hs, Dd, T, W = (cfg[k] for k in ("hidden_size", "decoder_output_dim",
                                     "temporal_decoder_dim", "temporal_width"))
    Q = cfg.get("n_outputs", 1)
    Ne = L + (X > 0) * L * W + (F > 0) * (L + h) * W + S
    assert Ne == cfg["dense_encoder_input_size"]
    dims = {}
    if X > 0 or F > 0:
        dims["hist_exog_projection"] = (X, Hs, W)
    if F > 0:
        dims["futr_exog_projection"] = (F, Hs, W)
    ne, nd = cfg["num_encoder_layers"], cfg["num_decoder_layers"]
    for i in range(ne):
        dims[f"dense_encoder.{i}"] = (Ne if i == 0 else Hs, Hs, Hs)
    for i in range(nd):
        dims[f"dense_decoder.{i}"] = (Hs, Hs, Dd * h if i == nd - 1 else Hs)
    dims["temporal_decoder"] = (Dd + (F > 0) * W, T, Q)
    shapes = {}
    for p, (i, hid, o) in dims.items():
        shapes.update({f"{p}.norm.weight": (o,), f"{p}.norm.bias": (o,),
                       f"{p}.lin1.weight": (hid, i), f"{p}.lin1.bias": (hid,),
                       f"{p}.lin2.weight": (o, hid), f"{p}.lin2.bias": (o,),
                       f"{p}.skip.weight": (o, i), f"{p}.skip.bias": (o,)})
    shapes["global_skip.weight"] = (h * Q, L)
    shapes["global_skip.bias"] = (h * Q,)
    return shapes


def check_tide_forward_rules(cfg, tensors):
    P = {k[6:]: tensors[k].astype(np.float64) for k in tensors
         if k.startswith("param.") and not is_loss_key(k[6:])}
    want = expected_keys(cfg)
    assert list(P) == want, (list(P), want)  # names AND state_dict order
    shapes = expected_shapes(cfg)
    for k, v in P.items():
        assert v.shape == shapes[k], (k, v.shape, shapes[k])
    get = lambda k: (tensors[k].astype(np.float64) if k in tensors else None)
    got = numpy_forward_tide(cfg, P, get("input.insample_y"),
                             get("input.futr_exog"), get("input.hist_exog"),
                             get("input.stat_exog"))
    ref = tensors["output.forecast"]
    assert got.shape == ref.shape, (got.shape, ref.shape)
    err = float(np.max(np.abs(got - ref)))
    assert err < 1e-5, (cfg, err)
    return err


def check_init_rule():
    """The initialisation described at the top, bit-exact against a fresh
    model of every case: seed, then torch's own calls in state_dict order."""
    for case, make in TIDE_CASES.items():
        with quiet():
            model = make()
        torch.manual_seed(model.random_seed)
        fan_in = None
        for k, v in model.state_dict().items():
            if is_loss_key(k):
                continue  # MQLoss's quantiles: not drawn
            if ".norm." in k:
                want = torch.ones_like(v) if k.endswith(".weight") else \
                    torch.zeros_like(v)
                assert torch.equal(v, want), (case, k)
                continue
            w = torch.empty_like(v)
            if k.endswith(".weight"):
                fan_in = v.shape[1]
                if v.numel():  # nothing drawn for an empty weight
                    nn.init.kaiming_uniform_(w, a=math.sqrt(5))
            else:  # bias of the Linear whose weight came just before
                bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
                nn.init.uniform_(w, -bound, bound)
            assert torch.equal(w, v), (case, k)
            if fan_in > 0:
                assert float(v.abs().max()) <= (1 + 1e-6) / math.sqrt(fan_in)
            elif v.numel():  # the bias of an input-less Linear
                assert not torch.any(v != 0), (case, k)


# --------------------------------------------------------------------------
# 2. End-to-end predict fixture
# --------------------------------------------------------------------------

PREDICT = dict(h=6, input_size=L_PRED, hidden_size=16, decoder_output_dim=4,
               temporal_decoder_dim=8, dropout=0.0, scaler_type="robust",
               futr_exog_list=FUTR, hist_exog_list=HIST, stat_exog_list=STAT,
               max_steps=1, learning_rate=0.0, random_seed=1)

PREDICT_CASES = {
    "tide": lambda: TiDE(**PREDICT, **TRAINER_KWARGS),
    # Addition: the exogenous values reach the forecast.
    "tide_noln": lambda: TiDE(**PREDICT, layernorm=False, **TRAINER_KWARGS),
}

EXOG_DIR = os.path.join(REPO, "tests", "fixtures", "exog")


def capture_layout(model):
    """Record (shape, stride, storage offset, storage size) of every input
    of every forward call (capture_inputs keeps contiguous clones)."""
    seen = []

    def hook(_module, args):
        seen.append({k: (tuple(v.shape), v.stride(), v.storage_offset(),
                         v.untyped_storage().nbytes() // v.element_size())
                     for k, v in args[0].items() if v is not None})
    return seen, model.register_forward_pre_hook(hook)


def predict_in_layout(model, wb, layout, shift, scale):
    """The forward on the captured values, each input laid out in memory as
    neuralforecast laid it out, then y's inverse robust scaling
    z * scale + shift (TemporalNorm.inverse_transform), in float32."""
    assert len(layout) == 1
    batch = {}
    for k, v in wb.items():
        if v is None:
            batch[k] = None
            continue
        shape, stride, offset, size = layout[0][k]
        buf = torch.zeros(size, dtype=v.dtype)
        view = buf.as_strided(shape, stride, offset)
        view.copy_(v)
        batch[k] = view
    with torch.no_grad():
        out = model(batch)
    n = out.shape[0]
    y = (out * torch.tensor(scale[:, :1]).reshape(n, 1, 1)
         + torch.tensor(shift[:, :1]).reshape(n, 1, 1))
    return f32(y[:, :, 0])


def read_panel():
    """make_exog_fixtures.py's panel, read as it reads it back."""
    hist = pd.read_csv(os.path.join(EXOG_DIR, "history.csv"), parse_dates=["ds"])
    futr = pd.read_csv(os.path.join(EXOG_DIR, "future.csv"), parse_dates=["ds"])
    stat = pd.read_csv(os.path.join(EXOG_DIR, "static.csv"))
    return hist, futr, stat


def make_predict_fixture(case, tide_dir, hist, futr, stat):
    with quiet():
        model = PREDICT_CASES[case]()
        init_state = copy.deepcopy(model.state_dict())
        nf = NeuralForecast(models=[model], freq="MS")
        nf.fit(df=hist, static_df=stat)
    fitted = nf.models[0]
    state = fitted.state_dict()
    assert list(state) == list(init_state)
    for k, v in init_state.items():
        assert torch.equal(v, state[k]), f"lr=0 changed {k}"
    seen, handle = capture_inputs(fitted)
    layout, handle2 = capture_layout(fitted)
    with quiet():
        fcst = nf.predict(futr_df=futr)
    handle.remove()
    handle2.remove()
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
    assert len(seen) == 1, len(seen)  # one forward call for the 2 series
    wb = seen[0]
    for k in ("insample_y", "futr_exog", "hist_exog", "stat_exog"):
        got = wb[k].squeeze(-1) if k == "insample_y" else wb[k]
        assert torch.equal(got, scaled[k]), (case, k)
    assert torch.equal(wb["insample_mask"].squeeze(-1),
                       torch.ones(len(ids), L_PRED))
    # manual_predict_exog feeds insample_y as a (N, L) view of stride
    # (L+h)*4 (its scaled (N, L+h, 4) buffer); neuralforecast feeds the same
    # values as a view into its (N, C, L+h) window buffer: global_skip's
    # matmul rounds differently with the other layout (1 ulp here).
    rel = np.abs(manual - fc) / np.abs(fc)
    assert float(rel.max()) < 1e-6, (case, manual, fc)
    again = predict_in_layout(fitted, wb, layout, shift, scale)
    assert np.array_equal(again, fc), (case, again, fc)

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

    # The scaled-space forecast by the numpy forward, inverse-scaled.
    P = {k[6:]: v.astype(np.float64) for k, v in tensors.items()
         if k.startswith("param.")}
    z = numpy_forward_tide(cfg, P, *(tensors["scaled." + n].astype(np.float64)
                                     for n in ("insample_y", "futr_exog",
                                               "hist_exog")),
                           tensors["input.stat_exog"].astype(np.float64))
    back = z * scale[:, :1].astype(np.float64) + shift[:, :1].astype(np.float64)
    err = float(np.max(np.abs(back - fc) / np.maximum(1.0, np.abs(fc))))
    assert err < 1e-5, (case, err)

    meta = {"config": json.dumps(cfg), "freq": "MS",
            "unique_ids": json.dumps(ids), "forecast_ds": json.dumps(ds),
            "column": cls, "history_csv": "../exog/history.csv",
            "static_csv": "../exog/static.csv",
            "future_csv": "../exog/future.csv",
            "scaler_channels": json.dumps(["y"] + FUTR + HIST),
            "panel": PANEL_NOTE,
            "state_dict_keys": json.dumps(list(state.keys()))}
    meta.update(versions())
    path = os.path.join(tide_dir, f"predict_{case}.safetensors")
    write(path, tensors, meta)
    return path, cfg, {k: list(v.shape) for k, v in tensors.items()}, err


# --------------------------------------------------------------------------


def main():
    return fixture_main(__doc__, "tide", generate)


def generate(args):
    set_determinism()
    check_init_rule()
    written, shapes, configs, errs = [], {}, {}, {}
    for case in TIDE_CASES:
        path, cfg, shp, err = make_tide_fixture(case, args.out)
        verify_tide_fixture(case, path)
        written.append(path)
        shapes[case], configs[case], errs[case] = shp, cfg, err
    hist, futr, stat = read_panel()
    for case in PREDICT_CASES:
        path, cfg, shp, err = make_predict_fixture(
            case, os.path.join(args.out, "tide"), hist, futr, stat)
        written.append(path)
        key = "predict_" + case
        shapes[key], configs[key], errs[key] = shp, cfg, err

    report_written(written, shapes, configs, args.verbose)
    for case, err in errs.items():
        print(f"numpy forward vs neuralforecast, {case}: max diff {err:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
