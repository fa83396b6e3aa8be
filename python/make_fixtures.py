#!/usr/bin/env python3
"""Reference fixtures from neuralforecast (PyTorch) for fcast's C tests.

Run by developers, not by CI, from any directory:

    pip install -r python/requirements-fixtures.txt
    python3 python/make_fixtures.py [--out DIR]   # default: tests/fixtures/

Paths are absolute (the data file and the default --out are found from this
script's location; a relative --out is taken from the directory it was started
in). Everything runs inside a temporary working directory, removed at the end,
so that nothing Lightning may write into the current directory
(lightning_logs/, checkpoints/) is left in the repository or wherever the
script was started: the only files written are the fixtures.

Everything is computed with neuralforecast's own classes (NHITS, NBEATS, MLP,
MAE, MSE, MQLoss, TemporalNorm, TimeSeriesDataset/Loader, BaseModel._create_windows,
BaseModel._normalization, NeuralForecast.fit/predict) on CPU, one thread,
deterministic algorithms, fixed seeds. Where the script also re-derives a
result by hand (windows, interpolation, predict path), it is only to assert
that the rules written in docs/parity.md are the ones neuralforecast follows;
the fixture always stores neuralforecast's own numbers.

Layout and semantics of every file: docs/parity.md.
"""

import argparse
import contextlib
import copy
import io
import json
import logging
import os
import sys
import tempfile
import warnings

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from safetensors.numpy import load_file, save_file

import neuralforecast
from neuralforecast import NeuralForecast
from neuralforecast.common._scalers import TemporalNorm
from neuralforecast.losses.pytorch import MAE, MSE, MQLoss
from neuralforecast.models import MLP, NBEATS, NHITS
from neuralforecast.tsdataset import TimeSeriesDataset, TimeSeriesLoader

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA_CSV = os.path.join(REPO, "data", "monthly_classics.csv")

BATCH = 8            # windows per model fixture
CURVE_STEPS = 10     # Adam steps recorded in curve.loss
CURVE_LR = 1e-3      # Adam learning rate for the curve (betas, eps: defaults)
SCALER_EPS = 1e-6    # TemporalNorm's default eps, the one BaseModel uses

# The Lightning trainer only runs in the end-to-end predict fixture; keep it
# quiet, on CPU, without logs or checkpoints (main() also runs in a scratch
# directory, in case a Lightning version writes something regardless).
TRAINER_KWARGS = dict(
    accelerator="cpu",
    devices=1,
    enable_progress_bar=False,
    enable_model_summary=False,
    logger=False,
    enable_checkpointing=False,
    deterministic=True,
)


@contextlib.contextmanager
def scratch_cwd():
    """Run the block in a fresh temporary directory as the working directory,
    then return to the previous one and delete it with whatever it holds."""
    old = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="fcast_fixtures_") as tmp:
        os.chdir(tmp)
        try:
            yield tmp
        finally:
            os.chdir(old)


def fixture_main(doc, subdir, generate, verbose_help="print the configs and tensor shapes"):
    """The command line every fixture script shares: --out (tests/fixtures/
    by default, made absolute before the scratch directory is entered),
    --verbose; its own directory under --out; generate(args) run inside a
    scratch working directory."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures"))
    ap.add_argument("--verbose", action="store_true", help=verbose_help)
    args = ap.parse_args()
    args.out = os.path.abspath(args.out)
    os.makedirs(os.path.join(args.out, subdir), exist_ok=True)
    with scratch_cwd():
        return generate(args)


def report_written(written, shapes, configs, verbose):
    """Every written file read back (safetensors) and kept under 300 kB, its
    size printed; with verbose, each case's config and tensor shapes."""
    total = 0
    for path in written:
        if path.endswith(".safetensors"):
            load_file(path)
        size = os.path.getsize(path)
        total += size
        assert size < 300_000, f"{path} is {size} bytes"
        print(f"{os.path.relpath(path, REPO):45s} {size:8d} bytes")
    print(f"{'total':45s} {total:8d} bytes")
    if not verbose:
        return
    for case, shp in shapes.items():
        print(f"\n{case}: {json.dumps(configs[case])}")
        for k, s in shp.items():
            print(f"  {k} {s}")


def set_determinism():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(0)
    np.random.seed(0)
    warnings.filterwarnings("ignore")
    for name in ("lightning", "pytorch_lightning", "lightning.pytorch",
                 "lightning_fabric", "neuralforecast"):
        logging.getLogger(name).setLevel(logging.ERROR)


@contextlib.contextmanager
def quiet():
    """Silence 'Seed set to 1' and the trainer's chatter."""
    with contextlib.redirect_stdout(io.StringIO()), \
         contextlib.redirect_stderr(io.StringIO()):
        yield


def versions():
    return {
        "neuralforecast_version": neuralforecast.__version__,
        "torch_version": torch.__version__,
    }


def f32(t):
    # Always a copy: .numpy() shares memory with the tensor, and the Adam
    # steps of the loss curve later update the parameters in place.
    if isinstance(t, torch.Tensor):
        t = t.detach().cpu().numpy()
    return np.array(t, dtype=np.float32, copy=True, order="C")


def i32(a):
    return np.ascontiguousarray(np.asarray(a, dtype=np.int32))


def write(path, tensors, metadata):
    meta = {k: (v if isinstance(v, str) else json.dumps(v))
            for k, v in metadata.items()}
    save_file(tensors, path, metadata=meta)
    sort_metadata(path)
    os.chmod(path, 0o644)  # safetensors creates files private to the user


def sort_metadata(path):
    """Rewrite the header with __metadata__ keys sorted, in place.

    The safetensors writer keeps metadata in a hash map, so its key order
    (and thus the file's bytes) changes from run to run; committed fixtures
    should only change when their content does. The header keeps its length
    (same JSON, reordered), so tensor offsets are untouched."""
    with open(path, "r+b") as f:
        n = int.from_bytes(f.read(8), "little")
        raw = f.read(n)
        header = json.loads(raw)
        header["__metadata__"] = dict(sorted(header["__metadata__"].items()))
        new = json.dumps(header, separators=(",", ":")).encode()
        if len(new) > n:
            return  # different escaping than the writer's: leave it as is
        f.seek(8)
        f.write(new + b" " * (n - len(new)))  # the format allows space padding


def load_series(uid):
    df = pd.read_csv(DATA_CSV)
    return df[df.unique_id == uid].reset_index(drop=True)


# --------------------------------------------------------------------------
# 1. Model fixtures
# --------------------------------------------------------------------------

# Architecture-defining constructor arguments, read back from model.hparams
# (so the defaults neuralforecast applied are recorded, not assumed).
ARCH_KEYS = {
    "NHITS": ["h", "input_size", "stack_types", "n_blocks", "mlp_units",
              "n_pool_kernel_size", "n_freq_downsample", "pooling_mode",
              "interpolation_mode", "dropout_prob_theta", "activation",
              "random_seed"],
    "NBEATS": ["h", "input_size", "stack_types", "n_blocks", "mlp_units",
               "n_harmonics", "n_basis", "basis", "shared_weights",
               "dropout_prob_theta", "activation", "random_seed"],
    "MLP": ["h", "input_size", "hidden_size", "num_layers", "random_seed"],
}

MODEL_CASES = {
    "nhits_small": lambda: NHITS(h=12, input_size=24, mlp_units=3 * [[32, 32]],
                                 random_seed=1, loss=MAE()),
    "nhits_odd": lambda: NHITS(h=10, input_size=25, mlp_units=3 * [[16, 16]],
                               n_pool_kernel_size=[3, 2, 1],
                               n_freq_downsample=[4, 3, 1],
                               random_seed=1, loss=MAE()),
    "nhits_mse": lambda: NHITS(h=12, input_size=24, mlp_units=3 * [[32, 32]],
                               random_seed=1, loss=MSE()),
    "nbeats_small": lambda: NBEATS(h=12, input_size=24,
                                   mlp_units=3 * [[32, 32]],
                                   random_seed=1, loss=MAE()),
    "nbeats_odd": lambda: NBEATS(h=7, input_size=20, mlp_units=3 * [[16, 16]],
                                 stack_types=["seasonality", "trend",
                                              "identity"],
                                 n_blocks=[2, 1, 1], random_seed=1, loss=MAE()),
    "mlp_small": lambda: MLP(h=12, input_size=24, hidden_size=32,
                             num_layers=2, random_seed=1, loss=MAE()),
    # Several outputs per horizon point (loss.outputsize_multiplier Q > 1):
    # the forecast is (B, h, Q). Q = 5 (median and two intervals) for N-HiTS
    # (knots 3, 6 and 12 per quantile) and MLP, Q = 3 for N-BEATS with every
    # stack type and an odd horizon.
    "nhits_mq": lambda: NHITS(h=12, input_size=24, mlp_units=3 * [[32, 32]],
                              random_seed=1, loss=MQLoss(level=[80, 90])),
    "nbeats_mq": lambda: NBEATS(h=7, input_size=20, mlp_units=3 * [[16, 16]],
                                stack_types=["identity", "trend",
                                             "seasonality"],
                                random_seed=1,
                                loss=MQLoss(quantiles=[0.1, 0.5, 0.9])),
    "mlp_mq": lambda: MLP(h=12, input_size=24, hidden_size=32, num_layers=2,
                          random_seed=1, loss=MQLoss(level=[80, 90])),
}


def model_windows(L, h, B):
    """B windows of AirPassengers / mean, with a few masked points (y = 0).

    Returns numpy arrays insample_y, insample_mask (B, L) and outsample_y,
    outsample_mask (B, h)."""
    y = load_series("AirPassengers").y.to_numpy(dtype=np.float64)
    y = y / y.mean()
    starts = np.linspace(0, len(y) - (L + h), B).round().astype(int)
    win = np.stack([y[s:s + L + h] for s in starts]).astype(np.float32)
    mask = np.ones_like(win)
    # Masked insample points: one interior, the LAST insample point (Naive1
    # level reads it), the first one, and two in one window.
    for b, t in [(1, 3), (3, L - 1), (5, 0), (6, L // 2), (6, L // 2 + 1)]:
        mask[b, t] = 0.0
    # Masked outsample points: first, middle, last horizon step.
    for b, t in [(2, 0), (4, h // 2), (6, h - 1)]:
        mask[b, L + t] = 0.0
    win = win * mask  # fcast stores masked points as 0
    return win[:, :L], mask[:, :L], win[:, L:], mask[:, L:], starts


def model_loss(model, y, y_hat, mask):
    # Keywords: MAE and MSE declare mask / y_insample in different orders.
    if isinstance(model.loss, MQLoss):
        # training_step maps the (B, h, Q) output to (B, h, 1, Q) first
        y_hat = model.loss.domain_map(y_hat)
    return model.loss(y=y, y_hat=y_hat, mask=mask)


def n_outputs(model):
    return model.loss.outputsize_multiplier


def forecast_tensor(model, y_hat):
    """(B, h) for one output per point, as the first fixtures; (B, h, Q)
    otherwise."""
    return f32(y_hat.squeeze(-1) if n_outputs(model) == 1 else y_hat)


def forward(model, insample_y, insample_mask):
    windows_batch = dict(insample_y=insample_y.unsqueeze(-1),
                         insample_mask=insample_mask.unsqueeze(-1),
                         futr_exog=None, hist_exog=None, stat_exog=None)
    return model(windows_batch)  # (B, h, Q)


def config_of(model, name_of_class, loss_name):
    hp = dict(model.hparams)
    cfg = {"model": name_of_class}
    for k in ARCH_KEYS[name_of_class]:
        cfg[k] = hp[k]
    cfg["loss"] = loss_name
    if isinstance(model.loss, MQLoss):
        cfg["n_outputs"] = n_outputs(model)
        cfg["quantiles"] = [float(q) for q in model.loss.quantiles]
    cfg["learning_rate"] = CURVE_LR
    cfg["optimizer"] = {"name": "Adam", "betas": [0.9, 0.999], "eps": 1e-8,
                        "weight_decay": 0.0, "steps": CURVE_STEPS}
    cfg["batch"] = BATCH
    return cfg


def make_model_fixture(case, out_dir):
    with quiet():
        model = MODEL_CASES[case]()
    cls = type(model).__name__
    L, h = model.input_size, model.h
    iy, im, oy, om, starts = model_windows(L, h, BATCH)
    t_iy, t_im = torch.tensor(iy), torch.tensor(im)
    t_oy, t_om = torch.tensor(oy).unsqueeze(-1), torch.tensor(om).unsqueeze(-1)

    tensors = {}
    state = model.state_dict()
    for k, v in state.items():
        tensors["param." + k] = f32(v)
    trainable = [k for k, p in model.named_parameters() if p.requires_grad]

    model.zero_grad()
    Q = n_outputs(model)
    y_hat = forward(model, t_iy, t_im)
    assert y_hat.shape == (BATCH, h, Q), y_hat.shape
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
        # d loss / d forecast (B, h, Q): checks the model's backward without
        # the loss kernel
        tensors["output.dforecast"] = f32(y_hat.grad)
    params = dict(model.named_parameters())
    for k in trainable:
        g = params[k].grad
        tensors["grad." + k] = f32(g if g is not None else torch.zeros_like(params[k]))

    curve = train_curve(model, t_iy, t_im, t_oy, t_om)
    assert abs(curve[0] - loss.item()) == 0.0
    tensors["curve.loss"] = f32(curve)
    params = dict(model.named_parameters())
    for k in (trainable[0], trainable[-1]):
        tensors["curve.param." + k] = f32(params[k])

    cfg = config_of(model, cls, type(model.loss).__name__)
    if cls == "NBEATS":
        check_nbeats_basis(state, cfg)
    check_forward_rules(cfg, tensors)
    meta = {"config": json.dumps(cfg),
            "state_dict_keys": json.dumps(list(state.keys())),
            "trainable_keys": json.dumps(trainable),
            "window_starts": json.dumps([int(s) for s in starts]),
            "series": "AirPassengers / mean(AirPassengers)"}
    meta.update(versions())
    path = os.path.join(out_dir, f"model_{case}.safetensors")
    write(path, tensors, meta)
    return path, list(state.keys()), {k: tuple(v.shape) for k, v in state.items()}


def verify_model_fixture(case, path):
    """Reload the written file into a fresh model and recompute everything:
    the stored parameters must be the ones that produced the outputs."""
    t = load_file(path)
    with quiet():
        model = MODEL_CASES[case]()
    model.load_state_dict({k[6:]: torch.tensor(v) for k, v in t.items()
                           if k.startswith("param.")})
    iy, im = torch.tensor(t["input.insample_y"]), torch.tensor(t["input.insample_mask"])
    oy = torch.tensor(t["input.outsample_y"]).unsqueeze(-1)
    om = torch.tensor(t["input.outsample_mask"]).unsqueeze(-1)
    y_hat = forward(model, iy, im)
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
    assert np.array_equal(train_curve(model, iy, im, oy, om), t["curve.loss"])
    params = dict(model.named_parameters())
    for k in t:
        if k.startswith("curve.param."):
            assert np.array_equal(f32(params[k[12:]]), t[k]), (case, k)


def train_curve(model, iy, im, oy, om):
    """Loss before each of CURVE_STEPS Adam steps on one fixed batch."""
    opt = torch.optim.Adam(model.parameters(), lr=CURVE_LR)
    losses = []
    for _ in range(CURVE_STEPS):
        opt.zero_grad()
        loss = model_loss(model, oy, forward(model, iy, im), om)
        losses.append(loss.item())
        loss.backward()
        opt.step()
    return np.array(losses, dtype=np.float32)


def check_interpolation_rule():
    """Assert the closed form documented in parity.md equals F.interpolate
    (mode='linear', align_corners=False, size=h) for uneven knot counts."""
    g = torch.Generator().manual_seed(3)
    for n_in, n_out in [(2, 10), (3, 10), (3, 12), (6, 12), (10, 10), (1, 7)]:
        x = torch.randn(2, 1, n_in, generator=g)
        ref = F.interpolate(x, size=n_out, mode="linear").numpy()[:, 0]
        xs = x.numpy()[:, 0].astype(np.float64)
        out = np.empty((2, n_out))
        scale = n_in / n_out
        for j in range(n_out):
            src = max(scale * (j + 0.5) - 0.5, 0.0)
            i0 = int(src)
            i1 = i0 + 1 if i0 < n_in - 1 else i0
            lam = src - i0
            out[:, j] = (1 - lam) * xs[:, i0] + lam * xs[:, i1]
        assert np.allclose(out, ref, atol=1e-6), (n_in, n_out)


def numpy_forward(cfg, P, iy, im):
    """The forward pass as parity.md describes it, in float64 numpy, from
    the state_dict alone; only used to check that description."""
    L, h = cfg["input_size"], cfg["h"]
    Q = cfg.get("n_outputs", 1)
    B = len(iy)
    relu = lambda v: np.maximum(v, 0.0)
    lin = lambda v, k: v @ P[k + ".weight"].T + P[k + ".bias"]
    if cfg["model"] == "MLP":
        v = iy
        for i in range(cfg["num_layers"]):
            v = relu(lin(v, f"mlp.{i}"))
        return out_shape(lin(v, "out").reshape(B, h, Q))
    res, mask = iy[:, ::-1], im[:, ::-1]  # newest point first
    fc = np.repeat(iy[:, -1:, None], h, axis=1)  # Naive1 level, mask ignored
    n_units = len(cfg["mlp_units"])
    blocks = [t for t, n in zip(cfg["stack_types"], cfg["n_blocks"])
              for _ in range(n)]
    for b, kind in enumerate(blocks):
        pre = f"blocks.{b}.layers."
        x = res
        if cfg["model"] == "NHITS":
            k = cfg["n_pool_kernel_size"][stack_of(cfg, b)]
            x = np.stack([res[:, j * k:(j + 1) * k].max(1)
                          for j in range(-(-L // k))], 1)
        v = lin(x, pre + "0")  # first Linear: no activation
        for u in range(n_units):
            v = relu(lin(v, pre + str(1 + 2 * u)))
        theta = lin(v, pre + str(1 + 2 * n_units))
        if kind == "identity" and cfg["model"] == "NHITS":
            # knots quantile-major (B, Q, K), each row interpolated to h
            knots = theta[:, L:].reshape(B * Q, -1)
            fore = interp_linear(knots, h).reshape(B, Q, h).transpose(0, 2, 1)
            back = theta[:, :L]
        elif kind == "identity":
            back, fore = theta[:, :L], theta[:, L:].reshape(B, h, Q)
        else:
            Bb = P[f"blocks.{b}.basis.backcast_basis"]
            Bf = P[f"blocks.{b}.basis.forecast_basis"]
            n = Bb.shape[0]
            back = theta[:, :n] @ Bb
            fore = np.einsum("bpq,pt->btq", theta[:, n:].reshape(B, n, Q), Bf)
        res = (res - back) * mask
        fc = fc + fore
    return out_shape(fc)


def out_shape(fc):
    """(B, h, Q) as the fixtures store it: (B, h) when Q is 1."""
    return fc[:, :, 0] if fc.shape[2] == 1 else fc


def stack_of(cfg, b):
    edges = np.cumsum(cfg["n_blocks"])
    return int(np.searchsorted(edges, b, side="right"))


def interp_linear(knots, n_out):
    n_in = knots.shape[1]
    out = np.empty((knots.shape[0], n_out))
    for j in range(n_out):
        src = max(n_in / n_out * (j + 0.5) - 0.5, 0.0)
        i0 = int(src)
        i1 = i0 + 1 if i0 < n_in - 1 else i0
        out[:, j] = (1 - (src - i0)) * knots[:, i0] + (src - i0) * knots[:, i1]
    return out


def check_forward_rules(cfg, tensors):
    P = {k[6:]: tensors[k].astype(np.float64) for k in tensors
         if k.startswith("param.")}
    iy = tensors["input.insample_y"].astype(np.float64)
    im = tensors["input.insample_mask"].astype(np.float64)
    got = numpy_forward(cfg, P, iy, im)
    ref = tensors["output.forecast"]
    assert got.shape == ref.shape, (got.shape, ref.shape)
    assert np.max(np.abs(got - ref)) < 1e-5, (cfg["model"], np.abs(got - ref).max())


def check_nbeats_basis(state, cfg):
    """Assert the closed forms of parity.md for the N-BEATS basis tensors."""
    L, h = cfg["input_size"], cfg["h"]
    blocks = [t for t, n in zip(cfg["stack_types"], cfg["n_blocks"])
              for _ in range(n)]
    for b, kind in enumerate(blocks):
        key = f"blocks.{b}.basis."
        if kind == "trend":
            P = cfg["n_basis"] + 1
            back = np.stack([(np.arange(L) / L) ** i for i in range(P)])
            fore = np.stack([(np.arange(h) / h) ** i for i in range(P)])
        elif kind == "seasonality":
            H = cfg["n_harmonics"]
            freq = np.concatenate([[0.0], np.arange(H, H / 2 * h) / H])
            tb = np.arange(L)[None, :] / h * freq[:, None]
            tf = np.arange(h)[None, :] / h * freq[:, None]
            back = np.concatenate([np.cos(-2 * np.pi * tb), np.sin(-2 * np.pi * tb)])
            fore = np.concatenate([np.cos(2 * np.pi * tf), np.sin(2 * np.pi * tf)])
        else:
            assert key + "backcast_basis" not in state
            continue
        assert np.allclose(state[key + "backcast_basis"].numpy(), back, atol=1e-6)
        assert np.allclose(state[key + "forecast_basis"].numpy(), fore, atol=1e-6)


def check_pooling_rule():
    """Assert the documented MaxPool1d(k, stride=k, ceil_mode=True) rule:
    ceil(L/k) outputs, output j = max of x[j*k : min((j+1)*k, L)]."""
    g = torch.Generator().manual_seed(4)
    for L, k in [(24, 2), (25, 3), (25, 2), (20, 1), (7, 4)]:
        x = torch.randn(3, L, generator=g)
        pool = torch.nn.MaxPool1d(kernel_size=k, stride=k, ceil_mode=True)
        ref = pool(x.unsqueeze(1)).squeeze(1).numpy()
        n_out = -(-L // k)
        xs = x.numpy()
        out = np.stack([xs[:, j * k:min((j + 1) * k, L)].max(1)
                        for j in range(n_out)], 1)
        assert ref.shape == out.shape and np.array_equal(ref, out), (L, k)


# --------------------------------------------------------------------------
# 2. Scaler fixtures
# --------------------------------------------------------------------------

SCALER_TYPES = ["identity", "standard", "robust", "minmax"]


def scaler_windows(L, h):
    """Hand-built windows that hit the scalers' edge cases (see parity.md)."""
    rng = np.random.default_rng(7)
    rows, masks, notes = [], [], []

    def add(x, m, note):
        x = np.asarray(x, dtype=np.float32)
        m = np.asarray(m, dtype=np.float32)
        rows.append(x * m)  # masked points hold 0, as fcast stores them
        masks.append(m)
        notes.append(note)

    ones = np.ones(L + h)
    add(rng.normal(5, 2, L + h), ones, "12 valid insample points (even count)")
    m = ones.copy(); m[[2, 7]] = 0
    add(rng.normal(-3, 1, L + h), m, "2 masked insample points, 10 valid (even)")
    m = ones.copy(); m[[4]] = 0
    add([float(i * i % 17) for i in range(L + h)], m,
        "1 masked insample point, 11 valid (odd count)")
    add(np.full(L + h, 3.5), ones, "constant insample: std 0 and mad 0")
    x = np.array([5, 5, 5, 5, 5, 5, 5, 1, 9, 2, 8, 5, 4, 6, 7, 3], float)
    add(x, ones, "mad 0 but std > 0: >half the points equal the median")
    m = ones.copy(); m[:L] = 0
    add(rng.normal(10, 1, L + h), m, "all insample masked (outsample valid)")
    m = ones.copy(); m[:L - 1] = 0
    add(rng.normal(2, 1, L + h), m, "only the last insample point valid")
    m = ones.copy(); m[[L + 1, L + 3]] = 0
    add(rng.normal(1000, 300, L + h), m, "large values, masked outsample points")
    x = rng.normal(0, 1, L + h); x[5] = 40.0
    add(x, ones, "outlier in the insample")
    m = ones.copy(); m[[0, 1, 2, 3]] = 0
    x = rng.normal(0, 0.01, L + h) - 7
    add(x, m, "negative, tiny spread, 8 valid insample points")
    return np.stack(rows), np.stack(masks), notes


def scale_through_basemodel(scaler_type, x, mask, L, h):
    """Run BaseModel._normalization itself on windows [B, L+h, C=2, 1]."""
    with quiet():
        model = NHITS(h=h, input_size=L, mlp_units=[[4, 4]], stack_types=["identity"],
                      n_blocks=[1], n_pool_kernel_size=[1], n_freq_downsample=[1],
                      scaler_type=scaler_type)
    temporal = torch.tensor(np.stack([x, mask], axis=2)[..., None])
    windows = dict(temporal=temporal.clone(),
                   temporal_cols=pd.Index(["y", "available_mask"]))
    windows = model._normalization(windows=windows, y_idx=0)
    z = windows["temporal"][:, :, 0, 0]
    shift = model.scaler.x_shift[:, 0, 0, 0]
    scale = model.scaler.x_scale[:, 0, 0, 0]
    return z, shift, scale


def make_scaler_fixture(out_dir):
    L, h = 12, 4
    x, mask, notes = scaler_windows(L, h)
    check_lower_median()
    stat_mask = mask.copy()
    stat_mask[:, L:] = 0.0  # BaseModel._normalization: only the insample counts
    tensors = {"x": f32(x), "mask": f32(mask)}
    for t in SCALER_TYPES:
        norm = TemporalNorm(scaler_type=t, dim=1, eps=SCALER_EPS)
        tx = torch.tensor(x)[:, :, None]
        z = norm.transform(x=tx, mask=torch.tensor(stat_mask)[:, :, None])
        shift = norm.x_shift.reshape(-1)
        scale = norm.x_scale.reshape(-1)
        inv = norm.inverse_transform(z)
        bz, bshift, bscale = scale_through_basemodel(t, x, mask, L, h)
        assert torch.equal(torch.nan_to_num(bz, 9e9), torch.nan_to_num(z[:, :, 0], 9e9)), t
        assert torch.equal(torch.nan_to_num(bshift, 9e9), torch.nan_to_num(shift, 9e9)), t
        assert torch.equal(torch.nan_to_num(bscale, 9e9), torch.nan_to_num(scale, 9e9)), t
        tensors[f"{t}.z"] = f32(z[:, :, 0])
        tensors[f"{t}.shift"] = f32(shift)
        tensors[f"{t}.scale"] = f32(scale)
        tensors[f"{t}.inv"] = f32(inv[:, :, 0])
    check_even_median_rows(x, stat_mask, tensors["robust.shift"])
    meta = {"L": str(L), "h": str(h), "eps": repr(SCALER_EPS),
            "dim": "1 (time)", "rows": json.dumps(notes),
            "median": "lower middle value for an even count (torch.nanmedian)"}
    meta.update(versions())
    path = os.path.join(out_dir, "scalers.safetensors")
    write(path, tensors, meta)
    return path


def check_even_median_rows(x, stat_mask, robust_shift):
    """robust.shift of every row with an even count of valid insample
    points is the LOWER of the two middle values."""
    n_telling = 0  # rows where lower and upper middle values differ
    for b in range(len(x)):
        valid = np.sort(x[b][stat_mask[b] > 0])
        if len(valid) >= 2 and len(valid) % 2 == 0:
            lo, hi = valid[len(valid) // 2 - 1], valid[len(valid) // 2]
            assert robust_shift[b] == lo, b
            n_telling += int(lo != hi)
    assert n_telling >= 3


def check_lower_median():
    v = torch.tensor([[4.0, 1.0, 3.0, 2.0, float("nan")]])
    assert torch.nanmedian(v, dim=1).values.item() == 2.0  # not 2.5, not 3


# --------------------------------------------------------------------------
# 3. Window fixtures
# --------------------------------------------------------------------------

WINDOW_CASES = {
    "a": dict(L=6, h=3, step_size=1, val_size=0, threshold=0.0),
    "b": dict(L=6, h=3, step_size=2, val_size=4, threshold=0.0),
    "c": dict(L=6, h=3, step_size=1, val_size=0, threshold=0.5),
    # start_padding_enabled: L - 1 zeros before the training part; series B
    # (17 points) is shorter than d's input size and trains all the same
    "d": dict(L=20, h=3, step_size=1, val_size=0, threshold=0.0, start_padding=True),
    "e": dict(L=6, h=3, step_size=2, val_size=4, threshold=0.0, start_padding=True),
}


def window_dataset():
    """Two series, lengths 30 and 17, with masked points (y = 0 there)."""
    lens = {"A": 30, "B": 17}
    masked = {"A": [4, 10, 11, 12, 13, 27], "B": [0, 15]}
    frames = []
    for k, (uid, n) in enumerate(lens.items()):
        y = np.arange(1, n + 1, dtype=np.float64) + 100.0 * k
        m = np.ones(n)
        m[masked[uid]] = 0.0
        frames.append(pd.DataFrame({
            "unique_id": uid,
            "ds": pd.date_range("2000-01-01", periods=n, freq="MS"),
            "y": y * m, "available_mask": m}))
    return pd.concat(frames, ignore_index=True), lens


def nf_windows(df, case):
    """Ask neuralforecast for the windows: TimeSeriesDataset -> Loader ->
    BaseModel._create_windows, exactly as training_step / validation_step."""
    dataset, uids, _, _ = TimeSeriesDataset.from_df(df)
    # shuffle=False: training shuffles the series order of each batch, which
    # only permutes the series blocks of the list below.
    batch = next(iter(TimeSeriesLoader(dataset, batch_size=32, shuffle=False)))
    with quiet():
        model = NHITS(h=case["h"], input_size=case["L"], mlp_units=[[4, 4]],
                      stack_types=["identity"], n_blocks=[1],
                      n_pool_kernel_size=[1], n_freq_downsample=[1],
                      step_size=case["step_size"],
                      start_padding_enabled=case.get("start_padding", False),
                      training_data_availability_threshold=case["threshold"])
    model.val_size, model.test_size = case["val_size"], 0  # as BaseModel._fit
    out = {}
    for step in ("train", "val") if case["val_size"] else ("train",):
        windows, _, _, cond, _, cols = model._create_windows(batch, step=step)
        out[step] = (windows, cond, cols)
    return out, dataset, list(uids)


def decode_windows(windows, cond, cols, sizes, max_size, L, h, step, case):
    """Map window rows back to (series, own start) and pull y / mask."""
    n_series = len(sizes)
    per_series = windows.shape[0] // n_series
    yi, mi = cols.get_loc("y"), cols.get_loc("available_mask")
    if step == "train":   # start padding: L - 1 more zeros on the left of the padded axis
        first = -(L - 1) if case.get("start_padding") else 0
        stride = case["step_size"]
    else:  # 'val' keeps the last L + val_size points of the padded axis
        first = max_size - (L + case["val_size"])
        stride = case["step_size"]
    series, start = [], []
    for w in cond.tolist():
        s, j = divmod(w, per_series)
        series.append(s)
        start.append(first + j * stride - (max_size - sizes[s]))
    y = windows[cond, :, yi, 0]
    mask = windows[cond, :, mi, 0]
    return np.array(series), np.array(start), f32(y), f32(mask)


def reproduce_train_windows(y_list, m_list, case):
    """The rules of parity.md, written independently of neuralforecast."""
    L, h, step = case["L"], case["h"], case["step_size"]
    max_size = max(len(v) for v in y_list)
    min_in = max(1, int(L * case["threshold"]))
    min_out = max(1, int(h * case["threshold"]))
    series, start, ys, ms = [], [], [], []
    for s, (y, m) in enumerate(zip(y_list, m_list)):
        pad = max_size - len(y) + (L - 1 if case.get("start_padding") else 0)
        n_cut = len(y) - case["val_size"]
        total = pad + n_cut + h  # left pad, cut series, right pad of h zeros
        for p in range(0, total - (L + h) + 1, step):
            own = p - pad
            idx = np.arange(own, own + L + h)
            ok = (idx >= 0) & (idx < n_cut)
            yy = np.where(ok, y[np.clip(idx, 0, len(y) - 1)], 0.0)
            mm = np.where(ok, m[np.clip(idx, 0, len(y) - 1)], 0.0)
            if mm[:L].sum() >= min_in and mm[L:].sum() >= min_out:
                series.append(s); start.append(own); ys.append(yy); ms.append(mm)
    return np.array(series), np.array(start), f32(ys), f32(ms)


def make_window_fixture(out_dir):
    df, lens = window_dataset()
    y_list = [df[df.unique_id == u].y.to_numpy() for u in lens]
    m_list = [df[df.unique_id == u].available_mask.to_numpy() for u in lens]
    sizes = list(lens.values())
    max_size = max(sizes)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    tensors = {"data.y": f32(np.concatenate(y_list)),
               "data.mask": f32(np.concatenate(m_list)),
               "data.offsets": i32(offsets)}
    for name, case in WINDOW_CASES.items():
        out, _, uids = nf_windows(df, case)
        assert uids == list(lens)
        for step, (windows, cond, cols) in out.items():
            s, st, y, m = decode_windows(windows, cond, cols, sizes, max_size,
                                         case["L"], case["h"], step, case)
            # Every decoded window must be the series' own points at the
            # decoded start (0 outside the series or masked).
            for k in range(len(s)):
                idx = np.arange(st[k], st[k] + case["L"] + case["h"])
                src = y_list[s[k]]
                # Training windows never see the last val_size points.
                n = len(src) - (case["val_size"] if step == "train" else 0)
                ok = (idx >= 0) & (idx < n)
                want = np.where(ok, src[np.clip(idx, 0, len(src) - 1)], 0.0)
                assert np.array_equal(y[k], f32(want)), (name, step, k)
            if step == "train":
                rs, rst, ry, rm = reproduce_train_windows(y_list, m_list, case)
                assert np.array_equal(rs, s) and np.array_equal(rst, st), name
                assert np.array_equal(ry, y) and np.array_equal(rm, m), name
            prefix = name if step == "train" else f"{name}.val"
            tensors[f"{prefix}.series"] = i32(s)
            tensors[f"{prefix}.start"] = i32(st)
            tensors[f"{prefix}.y"] = y
            tensors[f"{prefix}.mask"] = m
    meta = {"unique_ids": json.dumps(list(lens)),
            "lengths": json.dumps(sizes),
            "cases": json.dumps(WINDOW_CASES),
            "order": "series-major (sorted unique_id), start ascending"}
    meta.update(versions())
    path = os.path.join(out_dir, "windows.safetensors")
    write(path, tensors, meta)
    return path


# --------------------------------------------------------------------------
# 4. End-to-end predict fixture
# --------------------------------------------------------------------------

PREDICT = dict(h=6, input_size=12, mlp_units=3 * [[16, 16]],
               scaler_type="standard", max_steps=1, learning_rate=0.0,
               random_seed=1)


def predict_history():
    air = load_series("AirPassengers").tail(40)
    nott = load_series("nottem").tail(30)
    df = pd.concat([air, nott], ignore_index=True)
    df["ds"] = pd.to_datetime(df["ds"])
    df["y"] = df["y"].astype(np.float64)
    return df


def manual_predict(model, df, L, h):
    """The predict path by hand (last L points, standard scaler on them,
    forward, inverse) to check the documented rule; returns shift, scale,
    raw insample and forecasts."""
    ids = sorted(df.unique_id.unique())
    y = np.stack([df[df.unique_id == u].y.to_numpy()[-L:] for u in ids])
    x = torch.tensor(np.concatenate([y, np.zeros((len(ids), h))], 1),
                     dtype=torch.float32)[:, :, None]
    mask = torch.ones_like(x)
    mask[:, L:] = 0
    norm = TemporalNorm("standard", dim=1, eps=SCALER_EPS)
    z = norm.transform(x, mask)
    with torch.no_grad():
        out = forward(model, z[:, :L, 0], mask[:, :L, 0])
    fc = norm.inverse_transform(out, norm.x_shift, norm.x_scale)
    return (f32(norm.x_shift.reshape(-1)), f32(norm.x_scale.reshape(-1)),
            f32(y), f32(fc[:, :, 0]))


def make_predict_fixture(out_dir):
    df = predict_history()
    csv_path = os.path.join(out_dir, "predict_history.csv")
    df.assign(ds=df.ds.dt.strftime("%Y-%m-%d")).to_csv(csv_path, index=False,
                                                       float_format="%.6g")
    df = pd.read_csv(csv_path, parse_dates=["ds"])  # predict from the file
    with quiet():
        model = NHITS(**PREDICT, **TRAINER_KWARGS)
        init_state = copy.deepcopy(model.state_dict())
        nf = NeuralForecast(models=[model], freq="MS")
        nf.fit(df=df)
        fcst = nf.predict()
    fitted = nf.models[0]
    state = fitted.state_dict()
    for k, v in init_state.items():
        assert torch.equal(v, state[k]), f"lr=0 changed {k}"
    ids = sorted(df.unique_id.unique())
    assert "NHITS" in fcst.columns
    fc = np.stack([fcst[fcst.unique_id == u]["NHITS"].to_numpy() for u in ids])
    ds = [[d.strftime("%Y-%m-%d") for d in fcst[fcst.unique_id == u].ds]
          for u in ids]
    L, h = PREDICT["input_size"], PREDICT["h"]
    shift, scale, raw, manual = manual_predict(fitted, df, L, h)
    # Same arithmetic up to float32 rounding of the batched matmuls.
    assert np.max(np.abs(manual - fc) / np.abs(fc)) < 1e-6, (manual, fc)
    tensors = {"param." + k: f32(v) for k, v in state.items()}
    tensors["forecast"] = f32(fc)
    tensors["input.insample_y"] = raw
    tensors["scaler.shift"] = shift
    tensors["scaler.scale"] = scale
    cfg = {"model": "NHITS", **{k: v for k, v in PREDICT.items()}}
    for k in ARCH_KEYS["NHITS"]:
        cfg[k] = dict(fitted.hparams)[k]
    meta = {"config": json.dumps(cfg), "freq": "MS",
            "unique_ids": json.dumps(ids), "forecast_ds": json.dumps(ds),
            "column": "NHITS", "history_csv": "predict_history.csv",
            "state_dict_keys": json.dumps(list(state.keys()))}
    meta.update(versions())
    path = os.path.join(out_dir, "predict_nhits.safetensors")
    write(path, tensors, meta)
    return path, csv_path


# --------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures"))
    args = ap.parse_args()
    args.out = os.path.abspath(args.out)  # before scratch_cwd() changes directory
    os.makedirs(args.out, exist_ok=True)
    with scratch_cwd():
        return generate(args)


def generate(args):
    set_determinism()
    check_interpolation_rule()
    check_pooling_rule()

    written = []
    keys = {}
    for case in MODEL_CASES:
        path, _, shapes = make_model_fixture(case, args.out)
        verify_model_fixture(case, path)
        written.append(path)
        keys[case] = shapes
    written.append(make_scaler_fixture(args.out))
    written.append(make_window_fixture(args.out))
    written.extend(make_predict_fixture(args.out))

    total = 0
    for path in written:
        if path.endswith(".safetensors"):
            load_file(path)  # every file must load back
        size = os.path.getsize(path)
        total += size
        assert size < 300_000, f"{path} is {size} bytes"
        print(f"{os.path.relpath(path, REPO):45s} {size:8d} bytes")
    assert total < 3_000_000
    print(f"{'total':45s} {total:8d} bytes")
    for case, shapes in keys.items():
        print(f"\n{case}:")
        for k, s in shapes.items():
            print(f"  {k} {list(s)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
