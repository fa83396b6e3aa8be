#!/usr/bin/env python3
"""PyTorch-eager side of `fcast bench train --vs-torch`: training steps per
second of neuralforecast's NHITS on the CPU or an NVIDIA GPU.

    python3 python/bench_torch.py [--device cpu|cuda|cuda:N] [--threads N]
        [--steps 50] [--warmup 5] [--repeats 3] [--batch 1024]
        [--input-size 96] [--h 48] [--precision fp32|bf16|fp16] [--seed 1]

The model is neuralforecast's NHITS(h, input_size) with every other
hyperparameter at its default (3 identity stacks of one block, mlp_units
3*[[512, 512]], pool kernels [2, 2, 1], frequency downsampling [4, 2, 1],
MaxPool1d, linear interpolation, no exogenous inputs, MAE loss). One training
step is what NF's training_step does once the windows are sampled: forward of
the torch module on a windows_batch dict, MAE with full masks, backward,
Adam(lr=1e-3) step, zero_grad. The batch is one fixed set of random-normal
windows (insample_y [B, L, 1], outsample_y [B, h, 1], masks of ones), drawn
once so that data generation stays out of the timing; the loss therefore
falls as the model fits it.

Timing: --warmup steps, then --repeats runs of --steps steps, each timed with
time.perf_counter; seconds_per_step is the median run divided by --steps. On a
GPU, torch.cuda.synchronize() runs before each reading of the clock, since
kernels are queued and the step returns before they end.

Implementation: neuralforecast's NHITS when it imports, otherwise (or when the
environment has FCAST_BENCH_PURE_TORCH=1) a pure-torch copy of the same module
(same layers, same creation order, hence the same parameter count and, for
the same seed, the same initial weights).

--precision bf16 runs forward and loss under torch.autocast('cpu', bfloat16);
the master weights and Adam state stay fp32. fp16 on the CPU is refused
(PyTorch's CPU fp16 autocast is no baseline anyone uses).

--device cuda (or cuda:N): model and batch on that GPU (the batch is drawn on
the CPU with the same generator, then copied once, outside the timing),
TF32 off for fp32 matrix products (fp32 means fp32, as in fcast without
--tf32), and automatic mixed precision for bf16 and fp16:
torch.autocast('cuda', bfloat16 | float16), and for fp16 a GradScaler
(torch.amp.GradScaler('cuda'), or torch.cuda.amp.GradScaler on older torch;
its defaults are fcast's loss scaling: init 65536, x2 after 2000 clean
steps, x0.5 and a skipped step on inf/NaN).

AMX caveat: some VMs advertise AMX in CPUID (amx_tile in /proc/cpuinfo) but
hide CPUID leaves 0x1D/0x1E, which describe the tile palette; oneDNN then picks
AMX kernels for bf16 matmuls, configures no tiles, and the process dies with
SIGILL at the first tile instruction, which Python cannot catch. On such
machines the caller must set ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16 in this
script's environment (`fcast bench train --vs-torch` does so when its own
probe found AMX unusable). The script warns on stderr when bf16 is asked for,
amx_tile is advertised and that variable is unset.

Output: human-readable lines, then as the LAST stdout line one JSON object:
{"impl", "torch", "threads", "precision", "batch", "steps",
 "seconds_per_step", "windows_per_second", "final_loss",
 "device" ("cpu", or "cuda:0 (GPU name)"), "cuda" (torch's CUDA version on
 a GPU, else null), "autocast" ("bfloat16", "float16" or null),
 "grad_scaler" (true for fp16)}.
Exits non-zero with a message on stderr on any error.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

MLP_UNITS = 3 * [[512, 512]]
POOL_KERNELS = [2, 2, 1]
FREQ_DOWNSAMPLE = [4, 2, 1]


def fail(msg):
    sys.exit(f"bench_torch.py: {msg}")


def device_name(text):
    """argparse type of --device: cpu, cuda or cuda:N."""
    head, sep, index = text.partition(":")
    if text == "cpu" or (head == "cuda" and (not sep or index.isdigit())):
        return text
    raise argparse.ArgumentTypeError(f"'{text}' is not cpu, cuda or cuda:N")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", type=device_name, default="cpu", help="cpu, cuda or cuda:N (default: cpu)")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                   help="intra-op threads (default: all cores)")
    p.add_argument("--steps", type=int, default=50, help="measured steps per repeat")
    p.add_argument("--warmup", type=int, default=5, help="untimed steps first")
    p.add_argument("--repeats", type=int, default=3, help="timed runs; the median is reported")
    p.add_argument("--batch", type=int, default=1024, help="windows per step")
    p.add_argument("--input-size", type=int, default=96, help="input length L")
    p.add_argument("--h", type=int, default=48, help="forecast horizon")
    p.add_argument("--precision", choices=["fp32", "bf16", "fp16"], default="fp32")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    for name in ("threads", "steps", "repeats", "batch", "input_size", "h"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    if a.warmup < 0:
        p.error("--warmup must be >= 0")
    if a.precision == "fp16" and a.device == "cpu":
        p.error("--precision fp16 runs on --device cuda only: PyTorch's CPU fp16 autocast is no "
                "baseline anyone uses")
    return a


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def warn_amx(precision):
    if precision == "bf16" and "amx_tile" in cpu_flags() and not os.environ.get("ONEDNN_MAX_CPU_ISA"):
        print("bench_torch.py: warning: CPU advertises AMX and ONEDNN_MAX_CPU_ISA is unset; if the "
              "kernel does not grant AMX, bf16 will die with SIGILL "
              "(set ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16)", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Pure-torch NHITS: a copy of neuralforecast 3.3.0's models/nhits.py restricted
# to the configuration benchmarked here (identity basis, no exogenous, MAE).
# Layers are created in NF's order so that a given seed yields NF's weights.

def build_pure_torch(h, input_size):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class IdentityBasis(nn.Module):
        def __init__(self, backcast_size, forecast_size):
            super().__init__()
            self.backcast_size = backcast_size
            self.forecast_size = forecast_size

        def forward(self, theta):
            backcast = theta[:, : self.backcast_size]
            knots = theta[:, self.backcast_size:].reshape(len(theta), 1, -1)
            forecast = F.interpolate(knots, size=self.forecast_size, mode="linear")
            return backcast, forecast.permute(0, 2, 1)  # [B,1,h] -> [B,h,1]

    class Block(nn.Module):
        def __init__(self, kernel, n_theta):
            super().__init__()
            pooled = int(math.ceil(input_size / kernel))
            # NF's order: Linear(in, u0), then per hidden layer Linear + ReLU, then output.
            layers = [nn.Linear(pooled, MLP_UNITS[0][0])]
            for units in MLP_UNITS:
                layers += [nn.Linear(units[0], units[1]), nn.ReLU()]
            layers.append(nn.Linear(MLP_UNITS[-1][1], n_theta))
            self.pooling_layer = nn.MaxPool1d(kernel_size=kernel, stride=kernel, ceil_mode=True)
            self.layers = nn.Sequential(*layers)
            self.basis = IdentityBasis(input_size, h)

        def forward(self, y):
            y = self.pooling_layer(y.unsqueeze(1)).squeeze(1)
            return self.basis(self.layers(y))

    class NHITS(nn.Module):
        def __init__(self):
            super().__init__()
            self.h = h
            # NF: n_theta = input_size + max(h // n_freq_downsample, 1) (floor division).
            self.blocks = nn.ModuleList(
                Block(k, input_size + max(h // f, 1)) for k, f in zip(POOL_KERNELS, FREQ_DOWNSAMPLE))

        def forward(self, windows_batch):
            insample_y = windows_batch["insample_y"].squeeze(-1).contiguous()
            insample_mask = windows_batch["insample_mask"].squeeze(-1).contiguous()
            residuals = insample_y.flip(dims=(-1,))
            insample_mask = insample_mask.flip(dims=(-1,))
            forecast = insample_y[:, -1:, None]  # level with Naive1
            for block in self.blocks:
                backcast, block_forecast = block(residuals)
                residuals = (residuals - backcast) * insample_mask
                forecast = forecast + block_forecast
            return forecast

    def mae(y, y_hat, mask):
        # NF's MAE: _weighted_mean(|y - y_hat|, mask) = sum(l * w) / sum(w).
        return torch.sum(torch.abs(y - y_hat) * mask) / torch.sum(mask)

    return NHITS(), mae


def build_neuralforecast(h, input_size, seed):
    import logging
    from neuralforecast.models import NHITS
    # Lightning logs "Seed set to ..." on model creation; its packages set their
    # logger levels when imported, hence after the import.
    for name in ("lightning_fabric", "pytorch_lightning", "lightning"):
        logging.getLogger(name).setLevel(logging.ERROR)

    model = NHITS(h=h, input_size=input_size, random_seed=seed)

    def mae(y, y_hat, mask):
        return model.loss(y=y, y_hat=y_hat, mask=mask)

    return model, mae


def build_model(args):
    """Returns (impl name, module, loss fn(y, y_hat, mask))."""
    import torch
    if os.environ.get("FCAST_BENCH_PURE_TORCH", "") not in ("", "0"):
        reason = "FCAST_BENCH_PURE_TORCH is set"
    else:
        try:
            model, loss_fn = build_neuralforecast(args.h, args.input_size, args.seed)
            return "neuralforecast", model, loss_fn
        except ImportError as e:
            reason = f"neuralforecast not importable ({e})"
    print(f"using the pure-torch NHITS: {reason}")
    torch.manual_seed(args.seed)
    model, loss_fn = build_pure_torch(args.h, args.input_size)
    return "pure-torch", model, loss_fn


def open_device(torch, name, precision):
    """The torch.device for --device, checked; on a GPU, TF32 off."""
    device = torch.device(name)
    if device.type == "cpu":
        return device
    if not torch.cuda.is_available():
        fail(f"--device {name}: torch.cuda.is_available() is False (torch {torch.__version__}, "
             f"built with CUDA {torch.version.cuda})")
    if device.index is None:
        device = torch.device("cuda", torch.cuda.current_device())
    if device.index >= torch.cuda.device_count():
        fail(f"--device {name}: this machine has {torch.cuda.device_count()} GPU(s)")
    torch.cuda.set_device(device)
    if precision == "bf16" and not torch.cuda.is_bf16_supported():
        fail(f"--precision bf16: {torch.cuda.get_device_name(device)} has no bf16")
    torch.backends.cuda.matmul.allow_tf32 = False
    return device


def describe_device(torch, device):
    """"cpu", or "cuda:0 (GPU name, compute capability 9.0)"."""
    if device.type == "cpu":
        return "cpu"
    major, minor = torch.cuda.get_device_capability(device)
    return f"{device} ({torch.cuda.get_device_name(device)}, compute capability {major}.{minor})"


def make_grad_scaler(torch):
    """fp16's loss scaling: torch.amp.GradScaler('cuda') (torch >= 2.3), else
    torch.cuda.amp.GradScaler, both at their defaults."""
    if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler"):
        return torch.amp.GradScaler("cuda")
    return torch.cuda.amp.GradScaler()


def make_batch(args):
    import torch
    g = torch.Generator().manual_seed(args.seed)
    b, L, h = args.batch, args.input_size, args.h
    windows_batch = dict(
        insample_y=torch.randn(b, L, 1, generator=g),
        insample_mask=torch.ones(b, L, 1),
        futr_exog=None,  # NF passes None for absent exogenous groups
        hist_exog=None,
        stat_exog=None,
    )
    return windows_batch, torch.randn(b, h, 1, generator=g), torch.ones(b, h, 1)


def check_output(model, windows_batch, y, mask, args):
    """Runs one forward and shapes y and mask like the output (B,h,1 or B,h)."""
    import torch
    with torch.no_grad():
        out = model(windows_batch)
    b, h = args.batch, args.h
    if tuple(out.shape) == (b, h, 1):
        return y, mask
    if tuple(out.shape) == (b, h):
        return y.squeeze(-1), mask.squeeze(-1)
    fail(f"model output has shape {tuple(out.shape)}, expected ({b}, {h}, 1) or ({b}, {h})")


def main():
    args = parse_args()
    if args.device == "cpu":
        warn_amx(args.precision)
    try:
        import torch
    except ImportError as e:
        fail(f"torch is not importable ({e})")
    # Thread settings must precede any torch work (interop: before first use).
    torch.set_num_threads(args.threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError as e:
        print(f"bench_torch.py: warning: set_num_interop_threads: {e}", file=sys.stderr)

    device = open_device(torch, args.device, args.precision)
    on_gpu = device.type == "cuda"
    impl, model, loss_fn = build_model(args)
    model.train()
    n_params = sum(p.numel() for p in model.parameters())
    windows_batch, y, mask = make_batch(args)
    if on_gpu:  # drawn on the CPU as there, so both devices train on the same numbers
        model.to(device)
        windows_batch = {k: v if v is None else v.to(device) for k, v in windows_batch.items()}
        y, mask = y.to(device), mask.to(device)
    y, mask = check_output(model, windows_batch, y, mask, args)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    amp_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(args.precision)
    scaler = make_grad_scaler(torch) if args.precision == "fp16" else None

    def step():
        with torch.autocast(device.type, dtype=amp_dtype or torch.bfloat16, enabled=amp_dtype is not None):
            y_hat = model(windows_batch)
            loss = loss_fn(y, y_hat, mask)
        if scaler is None:
            loss.backward()
            opt.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(opt)  # unscales first; skips the step on inf/NaN
            scaler.update()
        opt.zero_grad()
        return loss

    def sync():  # a GPU returns before its queued kernels end: wait before reading the clock
        if on_gpu:
            torch.cuda.synchronize(device)

    where = describe_device(torch, device)
    cuda = torch.version.cuda if on_gpu else None
    amp = f" (autocast {str(amp_dtype).replace('torch.', '')}{' + GradScaler' if scaler else ''})" if amp_dtype else ""
    print(f"impl {impl}, torch {torch.__version__}{f', CUDA {cuda}' if cuda else ''}, device {where}, "
          f"threads {torch.get_num_threads()}, precision {args.precision}{amp}, parameters {n_params}")
    print(f"batch {args.batch}, L {args.input_size}, h {args.h}, "
          f"warmup {args.warmup}, {args.repeats} x {args.steps} steps")
    for _ in range(args.warmup):
        step()
    runs = []
    for r in range(args.repeats):
        sync()
        t0 = time.perf_counter()
        for _ in range(args.steps):
            loss = step()
        sync()
        runs.append((time.perf_counter() - t0) / args.steps)
        print(f"repeat {r + 1}: {runs[-1] * 1e3:.2f} ms/step, "
              f"{args.batch / runs[-1]:.0f} windows/s, loss {loss.item():.5f}")
    final_loss = loss.item()
    if not math.isfinite(final_loss):
        fail(f"loss is not finite ({final_loss})")
    sps = statistics.median(runs)
    print(f"median: {sps * 1e3:.2f} ms/step, {args.batch / sps:.0f} windows/s")
    print(json.dumps(dict(
        impl=impl, torch=torch.__version__, threads=torch.get_num_threads(),
        precision=args.precision, batch=args.batch, steps=args.steps,
        seconds_per_step=sps, windows_per_second=args.batch / sps, final_loss=final_loss,
        device=where, cuda=cuda, autocast=str(amp_dtype).replace("torch.", "") if amp_dtype else None,
        grad_scaler=scaler is not None)))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        fail("interrupted")
    except Exception as e:  # report any failure as one clear line, non-zero exit
        fail(f"{type(e).__name__}: {e}")
