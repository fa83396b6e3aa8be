#!/usr/bin/env python3
"""Reference values of neuralforecast's training losses for fcast's C tests.

Run by developers, not by CI, from any directory:

    pip install -r python/requirements-fixtures.txt
    python3 python/make_loss_fixtures.py [--out FILE]   # default: tests/fixtures/losses.safetensors

Everything runs inside a temporary working directory (as make_fixtures.py),
so nothing is left behind but the fixture. Deterministic: fixed seeds, one
thread; the inputs are float32 and the same on every run.

For every case (a loss class of neuralforecast.losses.pytorch and its
parameters) the file holds, under the case's name:

    NAME.yhat      (B, h, Q)  forecasts, Q the loss's outputs per point
    NAME.y         (B, h)     targets
    NAME.mask      (B, h)     0/1 weights (outsample_mask)
    NAME.insample  (B, L)     the input windows (MASE's scale)
    NAME.loss      (1)        the loss, as the class returns it
    NAME.grad      (B, h, Q)  torch's d loss / d yhat

The inputs hold the awkward values on purpose: exact zeros in y (MAPE's
1/|y|), y == yhat == 0 (SMAPE's 0/0), yhat == y (the ties of |x|,
torch.max and torch.maximum), |y - yhat| == delta (Huber's switch), a
window with a constant input (MASE's scale 0) and unobserved points.

The classes are called with the shapes neuralforecast's training_step gives
them for a univariate model: y, mask (B, h, 1), y_hat (B, h, 1) or, for
MQLoss and HuberMQLoss, (B, h, Q) through their domain_map. MASE gets y_insample as
(B, L), the shape its docstring gives: per window scales. (training_step
passes (B, L, 1); MASE's scale[:, None, None] then broadcasts every window's
error against every window's scale: see check_mase_broadcast and
docs/training.md.)

DistributionLoss('Normal') (its per-point parts, kernels/distribution_normal.h),
under "normal.": raw (B, h, 2) network outputs, loc and scale (B) the
window scaler's, y (B, h) on the original scale, and from neuralforecast's
own domain_map, scale_decouple and get_distribution: nll (B, h), the
negated log_prob; grad (B, h, 2), autograd's d sum(nll) / d raw; icdf
(B, h, 5) Normal.icdf at NORMAL_QUANTILES; sampled (B, h, 5) the quantiles
DistributionLoss.sample draws from num_samples=1000 (what neuralforecast's
predict returns).

DistributionLoss('StudentT'), ('Poisson') and ('NegativeBinomial')
likewise under "studentt.", "poisson." and "negativebinomial."
(kernels/distribution_studentt.h, distribution_poisson.h, distribution_nbinomial.h): raw (B, h, 3),
(B, h, 1) or (B, h, 2), loc, scale, y (the counts' y non-negative,
integers and not), nll and grad. NegativeBinomial's nll and grad are
torch's in float64 on the same inputs: in float32 its lgamma(n + y) -
lgamma(n) cancels most digits at large total_count n (its own noise is
~1e-4 there), so the float64 values are the truth the kernel is held to.

Metadata: "cases" (JSON list of {name, loss, params}) and the versions.
"""

import argparse
import contextlib
import json
import os
import sys
import tempfile
import warnings

import numpy as np
import torch
from safetensors.numpy import load_file, save_file

import neuralforecast
from neuralforecast.losses.pytorch import (MAE, MAPE, MASE, MSE, SMAPE, DistributionLoss, HuberLoss, HuberMQLoss,
                                           MQLoss, QuantileLoss)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B, H, L = 5, 7, 12

# name, fcast loss name, its parameters (fcast's loss_params), the class
CASES = [
    ("mae", "mae", {}, lambda: MAE()),
    ("mse", "mse", {}, lambda: MSE()),
    ("huber_d0.5", "huber", {"delta": 0.5}, lambda: HuberLoss(delta=0.5)),
    ("huber_d2", "huber", {"delta": 2.0}, lambda: HuberLoss(delta=2.0)),
    ("smape", "smape", {}, lambda: SMAPE()),
    ("mape", "mape", {}, lambda: MAPE()),
    ("mase_s1", "mase", {"seasonality": 1}, lambda: MASE(seasonality=1)),
    ("mase_s4", "mase", {"seasonality": 4}, lambda: MASE(seasonality=4)),
    ("quantile_q0.1", "quantile", {"q": 0.1}, lambda: QuantileLoss(q=0.1)),
    ("quantile_q0.9", "quantile", {"q": 0.9}, lambda: QuantileLoss(q=0.9)),
    ("mq_level", "mq", {"level": [80, 90]}, lambda: MQLoss(level=[80, 90])),
    ("mq_quantiles", "mq", {"quantiles": [0.1, 0.5, 0.9]}, lambda: MQLoss(quantiles=[0.1, 0.5, 0.9])),
    # appended after the cases above, so their inputs (one rng) stay the same
    ("huber_mq_level", "huber-mq", {"delta": 0.5, "level": [80, 90]},
     lambda: HuberMQLoss(level=[80, 90], delta=0.5)),
    ("huber_mq_quantiles", "huber-mq", {"delta": 2.0, "quantiles": [0.1, 0.5, 0.9]},
     lambda: HuberMQLoss(quantiles=[0.1, 0.5, 0.9], delta=2.0)),
]


NORMAL_QUANTILES = [0.05, 0.1, 0.5, 0.9, 0.95]


def normal_distribution():
    """DistributionLoss('Normal')'s per-point parts (module docstring)."""
    rng = np.random.default_rng(20250101)
    raw = rng.normal(0.0, 1.5, size=(B, H, 2)).astype(np.float32)
    raw[0, 0, 1] = 25.0                # softplus above its threshold 20: b itself
    raw[0, 1, 1] = -8.0                # std near its floor 0.2 scale
    loc = rng.normal(0.0, 3.0, size=B).astype(np.float32)
    scale = rng.uniform(0.5, 4.0, size=B).astype(np.float32)
    scale[1] = 1.0; loc[1] = 0.0       # the identity scaler's
    y = (loc[:, None] + scale[:, None] * rng.normal(0.0, 1.5, size=(B, H))).astype(np.float32)
    loss = DistributionLoss(distribution="Normal", quantiles=NORMAL_QUANTILES, num_samples=1000)
    t_raw = torch.tensor(raw, requires_grad=True)
    t_loc, t_scale = torch.tensor(loc)[:, None, None], torch.tensor(scale)[:, None, None]
    args = loss.scale_decouple(output=loss.domain_map(t_raw), loc=t_loc, scale=t_scale)
    distr = loss.get_distribution(distr_args=args)
    nll = -distr.log_prob(torch.tensor(y)[:, :, None])
    (grad,) = torch.autograd.grad(nll.sum(), t_raw)
    qs = torch.tensor(NORMAL_QUANTILES)
    icdf = torch.stack([distr.icdf(q) for q in qs], dim=-1)[:, :, 0, :]
    torch.manual_seed(1)
    _, _, sampled = loss.sample(distr_args=[a.detach() for a in args])
    f32 = lambda a: np.ascontiguousarray(a.detach().numpy() if torch.is_tensor(a) else a, dtype=np.float32)
    return {"normal.raw": f32(raw), "normal.loc": f32(loc), "normal.scale": f32(scale), "normal.y": f32(y),
            "normal.nll": f32(nll[:, :, 0]), "normal.grad": f32(grad), "normal.icdf": f32(icdf),
            "normal.sampled": f32(sampled[:, :, 0, :])}


def other_distribution(name, k, y_of, dtype=torch.float32):
    """DistributionLoss(name)'s NLL and autograd gradient per point."""
    rng = np.random.default_rng({"StudentT": 11, "Poisson": 12, "NegativeBinomial": 13}[name])
    raw = rng.normal(0.0, 1.5, size=(B, H, k)).astype(np.float32)
    raw[0, 0, :] = 25.0                # softplus above its threshold 20
    loc = rng.normal(0.0, 3.0, size=B).astype(np.float32)
    scale = rng.uniform(0.5, 4.0, size=B).astype(np.float32)
    scale[1] = 1.0; loc[1] = 0.0       # the identity scaler's
    if name == "NegativeBinomial":
        loc = np.abs(loc)              # counts: mu >= 0 (a clamped probs is tests/test_distribution_nll.c's own check)
    y = y_of(rng, loc, scale).astype(np.float32)
    loss = DistributionLoss(distribution=name, level=[80])
    t_raw = torch.tensor(raw, dtype=dtype, requires_grad=True)
    t_loc, t_scale = (torch.tensor(a, dtype=dtype)[:, None, None] for a in (loc, scale))
    args = loss.scale_decouple(output=loss.domain_map(t_raw), loc=t_loc, scale=t_scale)
    nll = -loss.get_distribution(distr_args=args).log_prob(torch.tensor(y, dtype=dtype)[:, :, None])
    (grad,) = torch.autograd.grad(nll.sum(), t_raw)
    f32 = lambda a: np.ascontiguousarray(a.detach().numpy() if torch.is_tensor(a) else a, dtype=np.float32)
    p = name.lower() + "."
    return {p + "raw": f32(raw), p + "loc": f32(loc), p + "scale": f32(scale), p + "y": f32(y),
            p + "nll": f32(nll[:, :, 0]), p + "grad": f32(grad)}


def studentt_y(rng, loc, scale):
    return loc[:, None] + scale[:, None] * rng.standard_t(4.0, size=(B, H))


def poisson_y(rng, loc, scale):
    y = rng.poisson(3.0, size=(B, H)).astype(np.float64)
    y[2, :3] = [0.0, 0.5, 2.25]        # zero (xlogy's 0) and non-integers
    return y


@contextlib.contextmanager
def scratch_cwd():
    old = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="fcast_loss_fixtures_") as tmp:
        os.chdir(tmp)
        try:
            yield tmp
        finally:
            os.chdir(old)


def inputs(rng, q_count, delta):
    """float32 inputs with the special values of the module docstring."""
    y = rng.normal(0.0, 2.0, size=(B, H)).astype(np.float32)
    yhat = (y[:, :, None] + rng.normal(0.0, 1.5, size=(B, H, q_count))).astype(np.float32)
    mask = (rng.random((B, H)) > 0.2).astype(np.float32)
    insample = rng.normal(0.0, 2.0, size=(B, L)).astype(np.float32)
    y[0, 0] = 0.0                      # MAPE: zero denominator
    y[0, 1] = 0.0; yhat[0, 1, :] = 0.0  # SMAPE: 0 / 0
    yhat[0, 2, :] = y[0, 2]            # ties: |0|, max(q d, (q-1) d), maximum(+-e, 0)
    yhat[1, 0, :] = 0.0                # SMAPE: |yhat| at 0
    yhat[1, 1, :] = y[1, 1] + np.float32(delta)   # Huber: exactly at the switch
    yhat[1, 2, :] = y[1, 2] - np.float32(delta)
    mask[0, :3] = 1.0; mask[1, :3] = 1.0
    mask[2, 3] = 0.0; yhat[2, 3, :] = 1e30  # an unobserved point with a wild forecast
    insample[3, :] = 1.5               # MASE: constant window, scale 0
    return yhat, y, mask, insample


def evaluate(loss, yhat, y, mask, insample):
    """The class's loss and torch's gradient wrt yhat, as training_step calls it."""
    yh = torch.tensor(yhat, requires_grad=True)
    out = loss.domain_map(yh)
    value = loss(y=torch.tensor(y)[:, :, None], y_hat=out, y_insample=torch.tensor(insample),
                 mask=torch.tensor(mask)[:, :, None])
    (grad,) = torch.autograd.grad(value, yh)
    return value.detach().numpy().reshape(1).astype(np.float32), grad.numpy().astype(np.float32)


def check_mase_broadcast(rng):
    """neuralforecast's training_step passes y_insample as (B, L, 1): MASE's
    scale is then (B, 1), scale[:, None, None] (B, 1, 1, 1), and the loss
    divides every window's error by every window's scale. Verified, so the
    documentation's statement stays true for the version in the metadata."""
    yhat, y, mask, ins = inputs(rng, 1, 1.0)
    ins[3, :] = rng.normal(size=L)
    loss = MASE(seasonality=1)
    t = lambda a: torch.tensor(a)
    per_window = loss(y=t(y)[:, :, None], y_hat=t(yhat), y_insample=t(ins), mask=t(mask)[:, :, None]).item()
    broadcast = loss(y=t(y)[:, :, None], y_hat=t(yhat), y_insample=t(ins)[:, :, None], mask=t(mask)[:, :, None]).item()
    scale = np.abs(np.diff(ins.astype(np.float64), axis=1)).mean(axis=1)
    err = (np.abs(y - yhat[:, :, 0]) * mask).sum()
    expected = err * (1.0 / scale).sum() / mask.sum()
    assert abs(broadcast - expected) <= 1e-4 * abs(expected), (broadcast, expected)
    return {"per_window": per_window, "training_step_shape": broadcast}


def check_mq_weight():
    """MQLoss's 1 / len(quantiles) is 1 (len of a (1, 1, 1, Q) tensor)."""
    rng = np.random.default_rng(7)
    loss = MQLoss(level=[80, 90])
    y = torch.tensor(rng.normal(size=(2, 3, 1)).astype(np.float32))
    yhat = torch.tensor(rng.normal(size=(2, 3, 5)).astype(np.float32))
    got = loss(y=y, y_hat=loss.domain_map(yhat), mask=torch.ones_like(y)).item()
    e = loss.domain_map(yhat) - y.unsqueeze(-1)
    q = loss.quantiles
    summed = (q * torch.clamp(-e, min=0) + (1 - q) * torch.clamp(e, min=0)).sum().item() / 6
    assert abs(got - summed) <= 1e-6 * abs(summed), (got, summed)


def generate(out):
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    warnings.filterwarnings("ignore")
    rng = np.random.default_rng(20240613)
    tensors, cases = {}, []
    for name, fc_name, params, make in CASES:
        loss = make()
        q_count = len(loss.output_names)
        yhat, y, mask, ins = inputs(rng, q_count, params.get("delta", 1.0))
        value, grad = evaluate(loss, yhat, y, mask, ins)
        assert np.isfinite(value).all() and np.isfinite(grad).all(), name
        for key, arr in (("yhat", yhat), ("y", y), ("mask", mask), ("insample", ins), ("loss", value),
                         ("grad", grad)):
            tensors[f"{name}.{key}"] = np.ascontiguousarray(arr, dtype=np.float32)
        cases.append({"name": name, "loss": fc_name, "params": params,
                      "output_names": [str(s) for s in loss.output_names]})
    tensors.update(normal_distribution())
    tensors.update(other_distribution("StudentT", 3, studentt_y))
    tensors.update(other_distribution("Poisson", 1, poisson_y))
    tensors.update(other_distribution("NegativeBinomial", 2, poisson_y, torch.float64))
    check_mq_weight()
    mase = check_mase_broadcast(rng)
    meta = {
        "cases": json.dumps(cases),
        "normal_quantiles": json.dumps(NORMAL_QUANTILES),
        "shape": json.dumps({"B": B, "h": H, "L": L}),
        "mase_training_step_broadcast": json.dumps(mase),
        "neuralforecast_version": neuralforecast.__version__,
        "torch_version": torch.__version__,
        "numpy_version": np.__version__,
    }
    save_file(tensors, out, metadata=dict(sorted(meta.items())))
    os.chmod(out, 0o644)
    load_file(out)
    print(f"{os.path.relpath(out, REPO)}: {len(cases)} cases, {os.path.getsize(out)} bytes")
    for c in cases:
        print(f"  {c['name']:14s} {c['loss']:9s} {json.dumps(c['params']):30s} {c['output_names']}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures", "losses.safetensors"))
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    with scratch_cwd():
        return generate(out)


if __name__ == "__main__":
    sys.exit(main())
