#!/usr/bin/env python3
"""Reference fixtures for neuralforecast's PatchTST for fcast's C tests.

Run by developers, not by CI, from any directory:

    pip install -r python/requirements-fixtures.txt
    python3 python/make_patchtst_fixtures.py [--out DIR]   # default: tests/fixtures/

It writes, under DIR:

    model_patchtst_small.safetensors         model_patchtst_prenorm.safetensors
    model_patchtst_mean_affine.safetensors   model_patchtst_mq.safetensors
    model_patchtst_norevin_relu.safetensors
    model_patchtst_long_patch.safetensors
    patchtst/predict_patchtst.safetensors

Model fixtures: exactly the tensors and metadata of make_tide_fixtures.py
(param.* for EVERY state_dict entry, input.insample_y/_mask,
input.outsample_y/_mask, output.forecast (B, h) or (B, h, Q), output.loss,
output.dforecast when Q > 1, grad.* of every trainable (requires_grad)
tensor, curve.loss (10 Adam steps, lr 1e-3), curve.param.<first and last
trainable>; "config", "state_dict_keys", "trainable_keys", "grad_none",
versions). PatchTST takes no exogenous input (EXOGENOUS_* all False): no
input.*_exog, empty exog lists in the config. Every tensor is float32,
including the BatchNorm counters num_batches_tracked (int64 in torch,
stored as float32 of shape (), the shape kept) and sdp_attn.scale (shape ()).

The forward is PatchTST.forward(windows_batch) itself, the model in
TRAINING mode with dropout = attn_dropout = head_dropout = 0 (fc_dropout is
stored in hparams but no module uses it), so deterministic. It reads
insample_y only; insample_mask is passed but never read (masked points are
simply their stored value 0). BatchNorm in training mode normalises with
the batch statistics and updates its running statistics on every forward,
hence the BatchNorm extras of these fixtures:

  param.*               the state BEFORE any forward (running_mean 0,
                        running_var 1, num_batches_tracked 0);
  output.forecast, output.loss, output.dforecast, grad.*
                        from exactly ONE training-mode forward from param.*;
  after_forward.<key>   for every running_mean, running_var and
                        num_batches_tracked of the state_dict: their values
                        after that one forward (num_batches_tracked 1);
  output.forecast_eval  the model in eval() mode, running statistics =
                        after_forward.*, everything else = param.*, same
                        inputs (B, h) or (B, h, Q);
  curve.*               start from param.* (the running statistics never
                        change a training-mode output; each curve step's
                        forward updates them again, they are not stored).

Predict fixture (patchtst/): NeuralForecast(freq='MS').fit on
tests/fixtures/lstm/history.csv (make_lstm_fixtures.py's 2-series panel,
read, not copied) with lr = 0, max_steps = 1 and the robust scaler, then
predict(): every state_dict entry of the FITTED model (param.*), the
forecast (N, h) in sorted unique_id order, the raw insample window
(input.insample_y), the scaler statistics (scaler.shift / scaler.scale) and
the scaled input the model received (scaled.insample_y); metadata as
make_lstm_fixtures.py's predict fixture (config plus scaler_type, max_steps,
learning_rate; forecast_ds, freq, unique_ids, history_csv =
"../lstm/history.csv"). lr = 0 leaves every weight as initialised, but the
one training step is a training-mode forward over the step's batch (1024
windows: windows_batch_size 1024 exceeds the panel's training windows, so
BaseModel.training_step draws 1024 with replacement), which
moves every BatchNorm running_mean / running_var and sets its
num_batches_tracked to 1: predict runs in eval mode with those, so param.*
holds the fitted BatchNorm buffers (asserted changed; every other tensor
asserted unchanged). Fit runs no other forward (validation is skipped with
val_size = 0: validation_step returns before any forward) and predict
exactly one, in eval mode, for both series (both asserted).

THE FORWARD fcast MUST COMPUTE (PatchTST), from the state_dict alone;
numpy_forward_patchtst() below is this text in float64 and is asserted
against every model fixture (training-mode output.forecast and the
after_forward.* statistics, eval-mode output.forecast_eval) and the
predict fixture, within 1e-5:

  Inputs of one window: y (L) (already scaled by the temporal scaler).
  Key prefixes: rv = "model.revin_layer.", bb = "model.backbone.", layer
  l = bb + "encoder.layers.{l}." (the names below without a prefix are
  under layer l), head = "model.head.linear". Hs = hidden_size,
  nh = n_heads, dk = Hs // nh, Fh = linear_hidden_size, S = stride,
  Q = c_out = outputs per point (loss.outputsize_multiplier: 1, or
  len(quantiles) for MQLoss).
  Pl = min(patch_len, L + S) (the model clamps the user's patch_len;
  config "patch_len_effective"), Np = floor((L + S - Pl) / S) + 1 (config
  "patch_num"; neuralforecast writes it int((L - Pl)/S + 1) + 1).
  All matrices are torch's (out, in); a Linear "lin" computes
  x @ lin.weight^T + lin.bias.

  1. RevIN norm (if revin; eps_r = 1e-5), per window over its L values:
       mu = mean(y), var = mean((y - mu)^2) (BIASED), sd = sqrt(var + eps_r)
       ref = y[L-1] if revin_subtract_last else mu   (the last insample
             value, even a masked 0; sd is still about the mean)
       z = (y - ref) / sd
       if revin_affine: z = z * rv.affine_weight[0] + rv.affine_bias[0]
     (torch .detach()es mu and sd, not ref = y[L-1]: irrelevant here, y is
     an input and no stored gradient flows into it.)
     Without revin: z = y (no rv tensors; rv.* exist only with affine).
  2. ReplicationPad1d((0, S)): zp = [z | z[L-1] repeated S times] (L + S).
  3. unfold(size Pl, step S): patch p = zp[p*S : p*S + Pl], p = 0..Np-1
     (trailing values that fill no whole patch are dropped).
  4. u[p] = W_P(patch p) + W_pos[p]   (Np, Hs); bb.W_P: (Hs, Pl),
     bb.W_pos: (Np, Hs). (Dropout(0) after the sum.)
  5. Encoder layers l = 0..encoder_layers-1, src = u (Np, Hs);
     scores_prev = none before layer 0. pre_norm = batch_normalization.
     Post-norm (batch_normalization False):
         a   = MHA_l(src)             src = BN_attn(src + a)
         f   = FF_l(src)              src = BN_ffn(src + f)
     Pre-norm (batch_normalization True): the normalised src REPLACES src,
     so the residual adds to the normalised value, and there is no norm
     after the last layer:
         src = BN_attn(src);  src = src + MHA_l(src)
         src = BN_ffn(src);   src = src + FF_l(src)
     MHA_l(x), names under self_attn.:
         q = W_Q(x), k = W_K(x), v = W_V(x)   (Np, Hs) each, (Hs, Hs) weights;
         head j (0..nh-1) owns columns j*dk .. j*dk+dk-1 of q, k, v;
         s_j = q_j k_j^T * c   (Np, Np), c = sdp_attn.scale (= dk^-0.5)
         if res_attention: s_j += scores_prev_j (layers l >= 1), and
             scores_prev_j = s_j (PRE-softmax, accumulated) for layer l+1
         A_j = softmax(s_j) over the key axis (last), o_j = A_j v_j (Np, dk)
         o[p, j*dk + e] = o_j[p, e] (heads concatenated, head-major)
         return to_out.0(o)           to_out.0: (Hs, Hs)
       Without res_attention the layer calls F.scaled_dot_product_attention
       with its default scale 1/sqrt(dk), the same number as
       sdp_attn.scale's (never trained: requires_grad False), which is then
       unused; nothing accumulates across layers.
     FF_l(x) = ff.3(act(ff.0(x))), ff.0: (Fh, Hs), ff.3: (Hs, Fh);
       act = GELU, exact erf form 0.5 x (1 + erf(x / sqrt 2)), or ReLU.
     BN (norm_attn.1 / norm_ffn.1, nn.BatchNorm1d(Hs), eps 1e-5, momentum
     0.1; always BatchNorm, see Surprises) over the B*Np rows (every patch
     of every window of the batch) and the Hs channels: channel d,
       training: m_d = mean over the B*Np rows, v_d = BIASED variance over
                 them; out = (x - m_d) / sqrt(v_d + 1e-5) * weight[d] + bias[d];
                 then running_mean = 0.9 running_mean + 0.1 m_d,
                 running_var = 0.9 running_var + 0.1 v_d * n/(n-1)
                 (UNBIASED, n = B*Np), num_batches_tracked += 1;
       eval:     out = (x - running_mean[d]) / sqrt(running_var[d] + 1e-5)
                 * weight[d] + bias[d]; nothing updated.
     So in training mode the windows of a batch are NOT independent.
  6. Flatten head: e (Np, Hs) -> f[d*Np + p] = e[p, d] (Hs*Np): the
     hidden unit is the slow index (permute to (Hs, Np), then flatten).
  7. g = head(f)   (h*Q), head.weight (h*Q, Hs*Np). (Dropout(0) after.)
  8. RevIN denorm (if revin), the same statistics for all h*Q outputs:
       if revin_affine:
           g = (g - rv.affine_bias[0]) / (rv.affine_weight[0] + eps_r^2)
       g = g * sd + ref
  9. forecast[t, q] = g[t*Q + q]   (h, Q); stored (h) when Q = 1.

Surprises (asserted on every run unless said otherwise):
  * batch_normalization=True does not switch LayerNorm to BatchNorm, it sets
    pre_norm: PatchTST passes norm="BatchNorm" and pre_norm=
    batch_normalization to PatchTST_backbone, which never passes `norm` on to
    TSTiEncoder (whose default is "BatchNorm" anyway). Every PatchTST of nf
    3.3 uses BatchNorm1d, the LayerNorm branch is unreachable.
  * Pre-norm has no final norm after the last encoder layer.
  * sdp_attn.scale is an nn.Parameter with requires_grad=False (lsa=False):
    in state_dict and named_parameters, not in trainable_keys, no grad.*.
    With learn_pos_embed=False, W_pos is likewise a frozen Parameter (drawn
    all the same). Adam, given model.parameters(), skips them (grad None).
  * num_batches_tracked is int64 (stored as float32); with momentum 0.1 it
    is only a counter and never enters the arithmetic.
  * BatchNorm running_var is updated with the UNBIASED batch variance, the
    normalisation uses the BIASED one.
  * Without res_attention (check_attention_surprises()): sdp_attn.scale is
    not read (changing it changes nothing; with res_attention it does), and
    scaled_dot_product_attention is called with dropout_p = attn_dropout
    whatever the mode: a non-zero attn_dropout drops attention weights at
    predict time too (0 in every fixture).
  * The RevIN denorm divides by affine_weight + eps^2 (1e-10), not by
    affine_weight: a no-op beside affine_weight = 1 in float32 (read in
    the source; the fixtures cannot tell the two apart).
  * patchtst_long_patch: patch_len 32 > L + S = 20 is clamped to 20 and
    Np = 1: one patch (the whole input plus S copies of its last value),
    the attention over one key is the identity on v (softmax of one score
    is 1), BatchNorm runs over B rows only. h = 14 > L = 12 is no special
    case (the head maps Hs*Np -> h*Q).
  * A training-mode forward makes every window's forecast depend on the
    other windows of the batch (BatchNorm statistics): fcast's
    output.forecast must be computed on the whole stored batch at once
    (check_batch_coupling(): window 0 alone gives another forecast).
  * NeuralForecast.fit trains a deep copy of the model it is given
    (nf.models[0] is not that object), and Lightning puts the model back
    in train mode after predict.

Initialisation (checked by check_init_rule() on every run, bit-exact against
torch's own calls): torch.manual_seed(random_seed) (pl.seed_everything in
BaseModel.__init__), then in CONSTRUCTION order, which differs from the
state_dict order only in W_pos: revin_layer (affine_weight 1, affine_bias
0, no draw), bb.W_P (weight, bias), bb.W_pos U(-0.02, 0.02) (drawn after
W_P although state_dict lists it first, drawn even when frozen), then per
layer self_attn.W_Q, W_K, W_V, to_out.0 (sdp_attn.scale = float32(dk^-0.5),
no draw), norm_attn.1 (weight 1, bias 0, running_mean 0, running_var 1,
num_batches_tracked 0, no draw), ff.0, ff.3, norm_ffn.1 (as norm_attn.1),
and last model.head.linear. Every nn.Linear draws its weight via
kaiming_uniform_(a=sqrt(5)) = U(-1/sqrt(fan_in), 1/sqrt(fan_in)), then its
bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)). neuralforecast applies no init of
its own.

Everything is computed with neuralforecast's own classes on CPU, one thread,
deterministic algorithms, fixed seeds, inside a temporary working directory
(removed at the end) so Lightning leaves nothing behind.
"""

import contextlib
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
    BATCH, REPO, TRAINER_KWARGS, f32, forecast_tensor, model_loss, n_outputs,
    out_shape, quiet, fixture_main, report_written, set_determinism, versions, write)
from make_exog_fixtures import (  # noqa: E402
    as_tensor, case_inputs, config_exog, forward_exog, train_curve_exog)
from make_lstm_fixtures import (  # noqa: E402
    PANEL, capture_inputs, exog_lists, is_loss_key, manual_predict)

from neuralforecast import NeuralForecast  # noqa: E402
from neuralforecast.losses.pytorch import MAE, MQLoss  # noqa: E402
from neuralforecast.models import PatchTST  # noqa: E402

# --------------------------------------------------------------------------
# 1. Model fixtures
# --------------------------------------------------------------------------

# Architecture hparams, read back from model.hparams (patch_len as the user
# gave it; the clamped value is the derived "patch_len_effective").
PATCHTST_ARCH_KEYS = ["h", "input_size", "encoder_layers", "n_heads",
                      "hidden_size", "linear_hidden_size", "dropout",
                      "fc_dropout", "head_dropout", "attn_dropout",
                      "patch_len", "stride", "revin", "revin_affine",
                      "revin_subtract_last", "activation", "res_attention",
                      "batch_normalization", "learn_pos_embed",
                      "exclude_insample_y", "random_seed"]

SMALL = dict(h=6, input_size=24, hidden_size=16, n_heads=4,
             linear_hidden_size=32, encoder_layers=2, patch_len=8, stride=4,
             dropout=0.0, attn_dropout=0.0, head_dropout=0.0, random_seed=1)

PATCHTST_CASES = {
    "patchtst_small": lambda: PatchTST(**SMALL, loss=MAE()),
    "patchtst_prenorm": lambda: PatchTST(**SMALL, batch_normalization=True,
                                         loss=MAE()),
    "patchtst_mean_affine": lambda: PatchTST(**SMALL, revin_subtract_last=False,
                                             revin_affine=True, loss=MAE()),
    "patchtst_norevin_relu": lambda: PatchTST(**SMALL, revin=False,
                                              activation="relu",
                                              res_attention=False,
                                              learn_pos_embed=False,
                                              loss=MAE()),
    "patchtst_mq": lambda: PatchTST(**SMALL, loss=MQLoss(level=[80])),
    "patchtst_long_patch": lambda: PatchTST(**{**SMALL, "h": 14,
                                               "input_size": 12,
                                               "patch_len": 32, "stride": 8},
                                            loss=MAE()),
}

# (patch_len_effective, patch_num) of each case: (8, 6) unless listed.
PATCHES = {"patchtst_long_patch": (20, 1)}

BN_EPS, BN_MOMENTUM, REVIN_EPS = 1e-5, 0.1, 1e-5
BN_STATS = ("running_mean", "running_var", "num_batches_tracked")


def is_bn_stat(k):
    return k.rsplit(".", 1)[-1] in BN_STATS


def arch_config(model):
    hp = dict(model.hparams)
    cfg = {"model": type(model).__name__}
    for k in PATCHTST_ARCH_KEYS:
        cfg[k] = hp[k]
    assert cfg["input_size"] == model.input_size and cfg["h"] == model.h
    assert model.RECURRENT is False and model.MULTIVARIATE is False
    drops = [m.p for m in model.modules() if isinstance(m, nn.Dropout)]
    assert drops and not any(drops), drops  # fc_dropout: in no module
    cfg.update(exog_lists(model))
    # Derived, read from the modules (for the C side's convenience).
    L, S = cfg["input_size"], cfg["stride"]
    bb = model.model.backbone
    cfg["patch_len_effective"] = bb.patch_len
    cfg["patch_num"] = bb.patch_num
    assert bb.patch_len == min(L + S, cfg["patch_len"])
    assert bb.patch_num == (L + S - bb.patch_len) // S + 1
    assert model.model.padding_patch == "end"
    assert model.model.head.linear.out_features == cfg["h"] * n_outputs(model)
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm1d)]
    assert len(bns) == 2 * cfg["encoder_layers"]
    assert not any(isinstance(m, nn.LayerNorm) for m in model.modules())
    assert all(m.eps == BN_EPS and m.momentum == BN_MOMENTUM and m.affine
               and m.track_running_stats for m in bns)
    for layer in bb.encoder.layers:
        assert layer.pre_norm == cfg["batch_normalization"]
        assert layer.res_attention == cfg["res_attention"]
    cfg["batchnorm_eps"] = BN_EPS
    cfg["batchnorm_momentum"] = BN_MOMENTUM
    if cfg["revin"]:
        rv = model.model.revin_layer
        assert rv.eps == REVIN_EPS and rv.affine == cfg["revin_affine"]
        assert rv.subtract_last == cfg["revin_subtract_last"]
    cfg["revin_eps"] = REVIN_EPS
    return cfg


def make_patchtst_fixture(case, out_dir):
    with quiet():
        model = PATCHTST_CASES[case]()
    assert model.training  # train mode; dropout 0 makes it deterministic
    h = model.h
    iy, im, oy, om, fx, hx, sx, starts = case_inputs(model)
    assert fx is None and hx is None and sx is None
    t_iy, t_im = torch.tensor(iy), torch.tensor(im)
    t_oy, t_om = torch.tensor(oy).unsqueeze(-1), torch.tensor(om).unsqueeze(-1)

    tensors = {}
    state = model.state_dict()
    for k, v in state.items():
        tensors["param." + k] = f32(v)  # before any forward
    trainable = [k for k, p in model.named_parameters() if p.requires_grad]
    frozen = [k for k in state if is_loss_key(k) or is_bn_stat(k)
              or k.endswith(".sdp_attn.scale")
              or (k == "model.backbone.W_pos"
                  and not model.hparams["learn_pos_embed"])]
    assert trainable == [k for k in state if k not in frozen], trainable
    twin = copy.deepcopy(model)  # the determinism check runs on this copy

    model.zero_grad()
    Q = n_outputs(model)
    y_hat = forward_exog(model, t_iy, t_im, None, None, None)  # THE forward
    assert y_hat.shape == (BATCH, h, Q), y_hat.shape
    after = {k: v.detach().clone() for k, v in model.state_dict().items()
             if is_bn_stat(k)}
    again = forward_exog(twin, t_iy, t_im, None, None, None)
    assert torch.equal(y_hat, again), case  # deterministic in train mode
    for k, v in twin.state_dict().items():
        if is_bn_stat(k):
            assert torch.equal(v, after[k]), (case, k)
    y_hat.retain_grad()
    loss = model_loss(model, t_oy, y_hat, t_om)
    loss.backward()
    tensors["input.insample_y"] = f32(iy)
    tensors["input.insample_mask"] = f32(im)
    tensors["input.outsample_y"] = f32(oy)
    tensors["input.outsample_mask"] = f32(om)
    tensors["output.forecast"] = forecast_tensor(model, y_hat)
    tensors["output.loss"] = f32(loss.reshape(1))
    if Q > 1:
        tensors["output.dforecast"] = f32(y_hat.grad)
    for k, v in after.items():
        tensors["after_forward." + k] = f32(v)
        if k.endswith("num_batches_tracked"):
            assert v.dtype == torch.int64 and int(v) == 1, (case, k)
        else:
            # (state's tensors are the live buffers: compare with param.*)
            assert not np.array_equal(f32(v), tensors["param." + k]), (case, k)
    tensors["output.forecast_eval"] = eval_forecast(model)(t_iy, t_im)
    params = dict(model.named_parameters())
    grad_none = []
    for k in trainable:
        g = params[k].grad
        if g is None:
            grad_none.append(k)
            g = torch.zeros_like(params[k])
        tensors["grad." + k] = f32(g)
    assert grad_none == [], (case, grad_none)  # the loss reaches everything
    for k, p in params.items():
        if not p.requires_grad:
            assert p.grad is None, (case, k)

    # The curve starts from param.*: this model's weights are still those
    # (only its running statistics moved, unread in training mode).
    for k, v in model.state_dict().items():
        if not is_bn_stat(k):
            assert np.array_equal(f32(v), tensors["param." + k]), (case, k)
    curve = train_curve_exog(model, t_iy, t_im, t_oy, t_om, None, None, None)
    assert abs(curve[0] - loss.item()) == 0.0
    assert curve[-1] < curve[0], (case, curve)
    tensors["curve.loss"] = f32(curve)
    params = dict(model.named_parameters())
    for k in (trainable[0], trainable[-1]):
        tensors["curve.param." + k] = f32(params[k])

    cfg = config_exog(model, arch_config)
    assert (cfg["patch_len_effective"], cfg["patch_num"]) == \
        PATCHES.get(case, (8, 6)), (case, cfg)
    errs = check_patchtst_forward_rules(cfg, tensors)
    check_mask_ignored(case, tensors)
    check_batch_coupling(case, tensors)
    meta = {"config": json.dumps(cfg),
            "state_dict_keys": json.dumps(list(state.keys())),
            "trainable_keys": json.dumps(trainable),
            "grad_none": json.dumps(grad_none),
            "window_starts": json.dumps([int(s) for s in starts]),
            "series": "AirPassengers / mean(AirPassengers)"}
    meta.update(versions())
    path = os.path.join(out_dir, f"model_{case}.safetensors")
    write(path, tensors, meta)
    return path, cfg, {k: list(v.shape) for k, v in tensors.items()}, errs


def eval_forecast(model):
    """forward(iy, im) -> the eval-mode forecast of a copy of model (its
    current state, running statistics included), without autograd."""
    twin = copy.deepcopy(model).eval()

    def run(iy, im):
        with torch.no_grad():
            return forecast_tensor(twin, forward_exog(twin, iy, im, None,
                                                      None, None))
    return run


def as_state(t, k):
    """A stored float32 tensor as torch holds it: num_batches_tracked back
    to int64."""
    v = torch.tensor(t[k])
    return v.long() if k.endswith("num_batches_tracked") else v


def param_state(t):
    """param.* as a state_dict."""
    return {k[6:]: as_state(t, k) for k in t if k.startswith("param.")}


def load_after_forward(model, t):
    """param.* with the BatchNorm statistics replaced by after_forward.*."""
    state = param_state(t)
    for k in state:
        if is_bn_stat(k):
            state[k] = as_state(t, "after_forward." + k)
    model.load_state_dict(state)


def verify_patchtst_fixture(case, path):
    """Reload the written file into a fresh model and recompute everything
    bit-exactly from the stored tensors alone."""
    t = load_file(path)
    with quiet():
        model = PATCHTST_CASES[case]()
    model.load_state_dict(param_state(t))
    assert model.training
    iy = torch.tensor(t["input.insample_y"])
    im = torch.tensor(t["input.insample_mask"])
    oy = torch.tensor(t["input.outsample_y"]).unsqueeze(-1)
    om = torch.tensor(t["input.outsample_mask"]).unsqueeze(-1)
    assert not any(k.startswith("input.") and k.endswith("_exog") for k in t)
    y_hat = forward_exog(model, iy, im, None, None, None)
    y_hat.retain_grad()
    loss = model_loss(model, oy, y_hat, om)
    loss.backward()
    assert np.array_equal(forecast_tensor(model, y_hat),
                          t["output.forecast"]), case
    if "output.dforecast" in t:
        assert np.array_equal(f32(y_hat.grad), t["output.dforecast"]), case
    assert np.array_equal(f32(loss.reshape(1)), t["output.loss"]), case
    stats = [k for k in model.state_dict() if is_bn_stat(k)]
    assert sorted("after_forward." + k for k in stats) == \
        sorted(k for k in t if k.startswith("after_forward.")), case
    for k in stats:
        assert np.array_equal(f32(model.state_dict()[k]),
                              t["after_forward." + k]), (case, k)
    for k, p in model.named_parameters():
        if p.requires_grad:
            assert np.array_equal(f32(p.grad), t["grad." + k]), (case, k)
        else:
            assert "grad." + k not in t, (case, k)
    with quiet():
        fresh = PATCHTST_CASES[case]()
    load_after_forward(fresh, t)
    assert np.array_equal(eval_forecast(fresh)(iy, im),
                          t["output.forecast_eval"]), case
    assert np.array_equal(train_curve_exog(model, iy, im, oy, om, None, None,
                                           None), t["curve.loss"]), case
    params = dict(model.named_parameters())
    for k in t:
        if k.startswith("curve.param."):
            assert np.array_equal(f32(params[k[12:]]), t[k]), (case, k)


def check_batch_coupling(case, tensors):
    """In training mode a window's forecast depends on the batch: window 0
    alone differs from its row of output.forecast; in eval mode it does
    not."""
    with quiet():
        model = PATCHTST_CASES[case]()
    model.load_state_dict(param_state(tensors))
    iy = as_tensor(tensors["input.insample_y"])[:1]
    im = as_tensor(tensors["input.insample_mask"])[:1]
    if model.model.backbone.patch_num > 1:  # BatchNorm needs 2 rows or more
        out = forecast_tensor(model, forward_exog(model, iy, im, None, None,
                                                  None).detach())
        assert not np.array_equal(out, tensors["output.forecast"][:1]), case
    load_after_forward(model, tensors)
    out = eval_forecast(model)(iy, im)
    err = np.abs(out - tensors["output.forecast_eval"][:1]).max()
    assert err < 1e-6, (case, err)  # batch of 1: other matmul blocking


def check_mask_ignored(case, tensors):
    """PatchTST.forward never reads insample_mask: all-ones gives the same
    (training mode, on a fresh model: the stored model's statistics are
    not touched)."""
    with quiet():
        model = PATCHTST_CASES[case]()
    model.load_state_dict(param_state(tensors))
    iy = as_tensor(tensors["input.insample_y"])
    out = forward_exog(model, iy, torch.ones_like(iy), None, None, None)
    assert np.array_equal(forecast_tensor(model, out),
                          tensors["output.forecast"]), case


# -- the forward pass by hand (float64 numpy): the text at the top --------

ERF = np.vectorize(math.erf)
ACT = {"gelu": lambda v: 0.5 * v * (1.0 + ERF(v / math.sqrt(2.0))),
       "relu": lambda v: np.maximum(v, 0.0)}


def softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def batch_norm(P, key, x, training, running, new):
    """BatchNorm1d over the B*Np rows of x (B, Np, Hs), channel = last axis.
    Training: batch statistics, and the updated running ones into new."""
    rows = x.reshape(-1, x.shape[-1])
    rm, rv, nb = (f"{key}.{n}" for n in BN_STATS)
    if training:
        n = len(rows)
        m, v = rows.mean(0), rows.var(0)  # biased
        mom = BN_MOMENTUM
        new[rm] = (1 - mom) * running[rm] + mom * m
        new[rv] = (1 - mom) * running[rv] + mom * v * n / (n - 1)  # unbiased
        new[nb] = running[nb] + 1
    else:
        m, v = running[rm], running[rv]
    return (x - m) / np.sqrt(v + BN_EPS) * P[key + ".weight"] + P[key + ".bias"]


def attention(cfg, P, pre, x, prev):
    """MHA of one layer on x (B, Np, Hs); returns (output, scores to pass
    on: the pre-softmax scores with res_attention, else None)."""
    lin = lambda v, k: v @ P[f"{pre}{k}.weight"].T + P[f"{pre}{k}.bias"]
    B, Np, Hs = x.shape
    nh = cfg["n_heads"]
    dk = Hs // nh
    heads = lambda v: v.reshape(B, Np, nh, dk).transpose(0, 2, 1, 3)
    q, k, v = (heads(lin(x, n)) for n in ("W_Q", "W_K", "W_V"))
    scale = float(P[pre + "sdp_attn.scale"])
    assert scale == float(np.float32(dk ** -0.5))
    s = q @ k.transpose(0, 1, 3, 2) * scale                 # (B, nh, Np, Np)
    if cfg["res_attention"]:
        if prev is not None:
            s = s + prev
        prev = s
    else:
        prev = None
    o = softmax(s) @ v                                       # (B, nh, Np, dk)
    o = o.transpose(0, 2, 1, 3).reshape(B, Np, Hs)
    return lin(o, "to_out.0"), prev


def numpy_forward_patchtst(cfg, P, iy, training, running):
    """The text at the top. P: every state_dict entry (float64); running:
    the BatchNorm statistics to start from. Returns the forecast ((B, h) or
    (B, h, Q)) and the statistics after the forward (unchanged in eval)."""
    L, h, S = cfg["input_size"], cfg["h"], cfg["stride"]
    Pl, Np = cfg["patch_len_effective"], cfg["patch_num"]
    Hs = cfg["hidden_size"]
    Q = cfg.get("n_outputs", 1)
    B = len(iy)
    z = iy
    if cfg["revin"]:
        mu = iy.mean(1, keepdims=True)
        sd = np.sqrt(((iy - mu) ** 2).mean(1, keepdims=True) + REVIN_EPS)
        ref = iy[:, -1:] if cfg["revin_subtract_last"] else mu
        z = (iy - ref) / sd
        if cfg["revin_affine"]:
            z = (z * P["model.revin_layer.affine_weight"]
                 + P["model.revin_layer.affine_bias"])
    zp = np.concatenate([z, np.repeat(z[:, -1:], S, 1)], 1)     # (B, L+S)
    assert Np == (L + S - Pl) // S + 1
    patches = np.stack([zp[:, p * S:p * S + Pl] for p in range(Np)], 1)
    bb = "model.backbone."
    src = (patches @ P[bb + "W_P.weight"].T + P[bb + "W_P.bias"]
           + P[bb + "W_pos"])                                    # (B, Np, Hs)
    act = ACT[cfg["activation"]]
    new = dict(running)
    prev = None
    for l in range(cfg["encoder_layers"]):
        pre = f"{bb}encoder.layers.{l}."
        bn = lambda x, n: batch_norm(P, pre + n, x, training, running, new)
        ff = lambda x: (act(x @ P[pre + "ff.0.weight"].T + P[pre + "ff.0.bias"])
                        @ P[pre + "ff.3.weight"].T + P[pre + "ff.3.bias"])
        if cfg["batch_normalization"]:  # pre-norm
            src = bn(src, "norm_attn.1")
            a, prev = attention(cfg, P, pre + "self_attn.", src, prev)
            src = src + a
            src = bn(src, "norm_ffn.1")
            src = src + ff(src)
        else:                           # post-norm
            a, prev = attention(cfg, P, pre + "self_attn.", src, prev)
            src = bn(src + a, "norm_attn.1")
            src = bn(src + ff(src), "norm_ffn.1")
    flat = src.transpose(0, 2, 1).reshape(B, Hs * Np)          # d*Np + p
    g = flat @ P["model.head.linear.weight"].T + P["model.head.linear.bias"]
    if cfg["revin"]:
        if cfg["revin_affine"]:
            g = ((g - P["model.revin_layer.affine_bias"])
                 / (P["model.revin_layer.affine_weight"] + REVIN_EPS ** 2))
        g = g * sd + ref
    return out_shape(g.reshape(B, h, Q)), new


def expected_keys(cfg):
    """The state_dict, names and order, from the config."""
    keys = []
    if cfg.get("n_outputs", 1) > 1:
        keys += ["loss.quantiles", "valid_loss.quantiles"]
    if cfg["revin"] and cfg["revin_affine"]:
        keys += ["model.revin_layer.affine_weight",
                 "model.revin_layer.affine_bias"]
    bb = "model.backbone."
    keys += [bb + "W_pos", bb + "W_P.weight", bb + "W_P.bias"]
    lin = lambda p: [p + ".weight", p + ".bias"]
    bn = lambda p: [f"{p}.{n}" for n in ("weight", "bias") + BN_STATS]
    for l in range(cfg["encoder_layers"]):
        pre = f"{bb}encoder.layers.{l}."
        keys += lin(pre + "self_attn.W_Q") + lin(pre + "self_attn.W_K") + \
            lin(pre + "self_attn.W_V") + [pre + "self_attn.sdp_attn.scale"] + \
            lin(pre + "self_attn.to_out.0") + bn(pre + "norm_attn.1") + \
            lin(pre + "ff.0") + lin(pre + "ff.3") + bn(pre + "norm_ffn.1")
    keys += lin("model.head.linear")
    return keys


def expected_shapes(cfg):
    Hs, Fh, Np = cfg["hidden_size"], cfg["linear_hidden_size"], cfg["patch_num"]
    Q = cfg.get("n_outputs", 1)
    shapes = {}
    for k in expected_keys(cfg):
        last = k.rsplit(".", 1)[-1]
        if k.endswith(("quantiles",)):
            shapes[k] = (Q,)
        elif k.startswith("model.revin_layer."):
            shapes[k] = (1,)
        elif k.endswith(("sdp_attn.scale", "num_batches_tracked")):
            shapes[k] = ()
        elif ".norm_" in k:
            shapes[k] = (Hs,)
        elif k.endswith("W_pos"):
            shapes[k] = (Np, Hs)
        else:
            out_in = {"W_P": (Hs, cfg["patch_len_effective"]),
                      "W_Q": (Hs, Hs), "W_K": (Hs, Hs), "W_V": (Hs, Hs),
                      "to_out.0": (Hs, Hs), "ff.0": (Fh, Hs), "ff.3": (Hs, Fh),
                      "linear": (cfg["h"] * Q, Hs * Np)}
            name = k[:-len(last) - 1]
            o, i = next(v for s, v in out_in.items() if name.endswith(s))
            shapes[k] = (o, i) if last == "weight" else (o,)
    return shapes


def check_patchtst_forward_rules(cfg, tensors):
    P = {k[6:]: tensors[k].astype(np.float64) for k in tensors
         if k.startswith("param.")}
    want = expected_keys(cfg)
    assert list(P) == want, (list(P), want)  # names AND state_dict order
    shapes = expected_shapes(cfg)
    for k, v in P.items():
        assert v.shape == shapes[k], (k, v.shape, shapes[k])
    init = {k: v for k, v in P.items() if is_bn_stat(k)}
    iy = tensors["input.insample_y"].astype(np.float64)
    errs = {}
    got, new = numpy_forward_patchtst(cfg, P, iy, True, init)
    errs["train"] = max_diff(got, tensors["output.forecast"])
    errs["stats"] = max(max_diff(new[k], tensors["after_forward." + k],
                                 rel=True) for k in init)
    after = {k: tensors["after_forward." + k].astype(np.float64) for k in init}
    got, same = numpy_forward_patchtst(cfg, P, iy, False, after)
    assert all(same[k] is after[k] for k in after)
    errs["eval"] = max_diff(got, tensors["output.forecast_eval"])
    assert max(errs.values()) < 1e-5, (cfg, errs)
    return errs


def max_diff(got, ref, rel=False):
    assert got.shape == ref.shape, (got.shape, ref.shape)
    d = np.abs(got - ref)
    if rel:
        d = d / np.maximum(1.0, np.abs(ref))
    return float(np.max(d))


def check_attention_surprises():
    """Without res_attention sdp_attn.scale is not read (with it, it is),
    and attn_dropout is applied in eval mode too (scaled_dot_product_attention
    gets dropout_p = attn_dropout whatever the mode)."""
    for res in (False, True):
        with quiet():
            model = PatchTST(**SMALL, res_attention=res, loss=MAE()).eval()
        iy = torch.tensor(case_inputs(model)[0])
        im = torch.ones_like(iy)
        with torch.no_grad():
            ref = forward_exog(model, iy, im, None, None, None)
            for layer in model.model.backbone.encoder.layers:
                layer.self_attn.sdp_attn.scale.fill_(0.1)
            out = forward_exog(model, iy, im, None, None, None)
        assert torch.equal(ref, out) == (not res), res
    with quiet():
        model = PatchTST(**{**SMALL, "attn_dropout": 0.5},
                         res_attention=False, loss=MAE()).eval()
    with torch.no_grad():
        a = forward_exog(model, iy, im, None, None, None)
        b = forward_exog(model, iy, im, None, None, None)
    assert not torch.equal(a, b)  # dropout at eval time


def check_init_rule():
    """The initialisation described at the top, bit-exact against a fresh
    model of every case: seed, then torch's own calls in construction
    order (the state_dict order with W_pos moved after W_P)."""
    for case, make in PATCHTST_CASES.items():
        with quiet():
            model = make()
        state = model.state_dict()
        keys = [k for k in state if not is_loss_key(k)]  # quantiles: not drawn
        wpos = "model.backbone.W_pos"
        keys.remove(wpos)
        keys.insert(keys.index("model.backbone.W_P.bias") + 1, wpos)
        dk = model.hparams["hidden_size"] // model.hparams["n_heads"]
        torch.manual_seed(model.random_seed)
        fan_in = None
        for k in keys:
            v = state[k]
            w = torch.empty_like(v)
            last = k.rsplit(".", 1)[-1]
            if k.startswith("model.revin_layer."):
                want = torch.ones_like(v) if last == "affine_weight" else \
                    torch.zeros_like(v)
                assert torch.equal(v, want), (case, k)
                continue
            if ".norm_" in k:
                want = {"weight": 1, "bias": 0, "running_mean": 0,
                        "running_var": 1, "num_batches_tracked": 0}[last]
                assert v.dtype == (torch.int64 if last == "num_batches_tracked"
                                   else torch.float32), (case, k)
                assert torch.equal(v, torch.full_like(v, want)), (case, k)
                continue
            if k.endswith("sdp_attn.scale"):
                assert v.shape == () and torch.equal(
                    v, torch.tensor(dk ** -0.5)), (case, k)
                continue
            if k == wpos:
                nn.init.uniform_(w, -0.02, 0.02)
                bound = 0.02
            elif last == "weight":
                nn.init.kaiming_uniform_(w, a=math.sqrt(5))
                fan_in = v.shape[1]
                bound = 1.0 / math.sqrt(fan_in)
            else:  # bias of the Linear whose weight came just before
                bound = 1.0 / math.sqrt(fan_in)
                nn.init.uniform_(w, -bound, bound)
            assert torch.equal(w, v), (case, k)
            assert float(v.abs().max()) <= bound * (1 + 1e-6), (case, k)
        # The frozen tensors: the scales always, W_pos unless learned.
        frozen = sorted(k for k, p in model.named_parameters()
                        if not p.requires_grad and not is_loss_key(k))
        want = sorted(k for k in state if k.endswith("sdp_attn.scale"))
        if not model.hparams["learn_pos_embed"]:
            want = sorted(want + [wpos])
        assert frozen == want, (case, frozen)


# --------------------------------------------------------------------------
# 2. End-to-end predict fixture
# --------------------------------------------------------------------------

PREDICT = dict(h=6, input_size=24, hidden_size=16, n_heads=4,
               linear_hidden_size=32, encoder_layers=2, patch_len=8, stride=4,
               dropout=0.0, scaler_type="robust", max_steps=1,
               learning_rate=0.0, random_seed=1)

LSTM_DIR = os.path.join(REPO, "tests", "fixtures", "lstm")


@contextlib.contextmanager
def record_modes():
    """Record (self.training, number of windows) at every PatchTST.forward
    call of the block.
    On the class, not a hook on the instance: NeuralForecast.fit trains a
    deep copy of the model it is given (nf.models[0] is not that model)."""
    modes = []
    forward = PatchTST.forward

    def recording(self, windows_batch):
        modes.append((self.training, len(windows_batch["insample_y"])))
        return forward(self, windows_batch)
    PatchTST.forward = recording
    try:
        yield modes
    finally:
        PatchTST.forward = forward


def make_predict_fixture(patchtst_dir):
    df = pd.read_csv(os.path.join(LSTM_DIR, "history.csv"), parse_dates=["ds"])
    with quiet(), record_modes() as fit_modes:
        model = PatchTST(**PREDICT, **TRAINER_KWARGS)
        init_state = copy.deepcopy(model.state_dict())
        nf = NeuralForecast(models=[model], freq="MS")
        nf.fit(df=df)
    fitted = nf.models[0]
    # one training step on 1024 windows, no validation
    assert fit_modes == [(True, 1024)], fit_modes
    state = fitted.state_dict()
    assert list(state) == list(init_state)
    for k, v in init_state.items():
        if k.endswith("num_batches_tracked"):
            assert int(v) == 0 and int(state[k]) == 1, k
        elif is_bn_stat(k):  # moved by the training-mode forward
            assert not torch.equal(v, state[k]), f"lr=0 kept {k}"
        else:
            assert torch.equal(v, state[k]), f"lr=0 changed {k}"
    seen, handle = capture_inputs(fitted)
    with quiet(), record_modes() as modes:
        fcst = nf.predict()
    handle.remove()
    assert modes == [(False, 2)], modes  # one eval-mode forward, 2 series
    ids = sorted(df.unique_id.unique())
    assert "PatchTST" in fcst.columns
    fc = np.stack([fcst[fcst.unique_id == u]["PatchTST"].to_numpy() for u in ids])
    ds = [[d.strftime("%Y-%m-%d") for d in fcst[fcst.unique_id == u].ds]
          for u in ids]
    L, h = PREDICT["input_size"], PREDICT["h"]
    for i, u in enumerate(ids):  # the h months after each series' last date
        last = df[df.unique_id == u].ds.max()
        want = pd.date_range(last, periods=h + 1, freq="MS")[1:]
        assert ds[i] == [d.strftime("%Y-%m-%d") for d in want], (u, ds[i])

    scaler_type = dict(fitted.hparams)["scaler_type"]
    assert fitted.training  # Lightning restores train mode after predict
    fitted.eval()  # as predict ran it
    raw, shift, scale, scaled, manual = manual_predict(fitted, df, scaler_type)
    assert len(seen) == 1, len(seen)
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

    # The scaled-space forecast by the numpy forward (eval mode, the fitted
    # statistics), inverse-scaled.
    P = {k[6:]: v.astype(np.float64) for k, v in tensors.items()
         if k.startswith("param.")}
    stats = {k: v for k, v in P.items() if is_bn_stat(k)}
    z, _ = numpy_forward_patchtst(cfg, P, tensors["scaled.insample_y"].astype(
        np.float64), False, stats)
    back = z * scale[:, None].astype(np.float64) + shift[:, None].astype(np.float64)
    err = float(np.max(np.abs(back - fc) / np.maximum(1.0, np.abs(fc))))
    assert err < 1e-5, err

    meta = {"config": json.dumps(cfg), "freq": "MS",
            "unique_ids": json.dumps(ids), "forecast_ds": json.dumps(ds),
            "column": "PatchTST", "history_csv": "../lstm/history.csv",
            "panel": json.dumps({u: f"tail {n}" for u, n in PANEL.items()}),
            "state_dict_keys": json.dumps(list(state.keys()))}
    meta.update(versions())
    path = os.path.join(patchtst_dir, "predict_patchtst.safetensors")
    write(path, tensors, meta)
    return path, cfg, {k: list(v.shape) for k, v in tensors.items()}, err


# --------------------------------------------------------------------------


def main():
    return fixture_main(__doc__, "patchtst", generate)


def generate(args):
    set_determinism()
    check_init_rule()
    check_attention_surprises()
    written, shapes, configs, errs = [], {}, {}, {}
    for case in PATCHTST_CASES:
        path, cfg, shp, err = make_patchtst_fixture(case, args.out)
        verify_patchtst_fixture(case, path)
        written.append(path)
        shapes[case], configs[case], errs[case] = shp, cfg, err
    path, cfg, shp, err = make_predict_fixture(os.path.join(args.out, "patchtst"))
    written.append(path)
    shapes["predict_patchtst"], configs["predict_patchtst"] = shp, cfg
    errs["predict_patchtst"] = {"predict": err}

    report_written(written, shapes, configs, args.verbose)
    for case, err in errs.items():
        print(f"numpy forward vs neuralforecast, {case}: max diff " +
              ", ".join(f"{k} {v:.3g}" for k, v in err.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
