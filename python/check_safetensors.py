#!/usr/bin/env python3
"""Cross-check fcast's safetensors writer against Python's safetensors package.

    python3 python/check_safetensors.py BUILD_DIR/test_safetensors

Runs `test_safetensors --export DIR`, which writes two files with fcast:

  round_trip.safetensors   every dtype fcast writes, a scalar, an empty tensor,
                           8 dimensions and UTF-8 metadata; this script opens it
                           with safetensors (torch framework, for BF16) and
                           compares every tensor and metadata entry with the
                           values below (kept in step with tests/test_safetensors.c).
  like_python.safetensors  the tensors of the unit test's Python fixture, added
                           in the order Python's writer sorts them; it must be
                           byte-identical to what this safetensors version writes.

Exits non-zero on any mismatch. Needs: safetensors, torch, numpy.
"""
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
from safetensors import safe_open
from safetensors.numpy import save as np_save


def expected_round_trip():
    bf16 = torch.tensor([1.0, -2.0, 0.25, 0.0], dtype=torch.bfloat16)  # 0x3f80 0xc000 0x3e80 0
    tensors = {
        "w": torch.tensor([[-0.5, -0.25, 0.0], [0.25, 0.5, 0.75]], dtype=torch.float32),
        "bf": bf16,
        "scalar": torch.tensor(3.5, dtype=torch.float64),
        "idx": torch.tensor([-1, 0, 1, 2147483647], dtype=torch.int32).reshape(2, 1, 2),
        "empty": torch.zeros(0, dtype=torch.uint8),
        "steps": torch.tensor([0, -1, 1 << 40], dtype=torch.int64),
        "deep": torch.tensor([1.0, -2.0], dtype=torch.float16).reshape(1, 1, 1, 1, 1, 1, 1, 2),
    }
    metadata = {"config": '{"model":"nhits","h":12}', "name": "café ✓", "version": "1"}
    return tensors, metadata


def check_round_trip(path):
    want, want_meta = expected_round_trip()
    failures = []
    with safe_open(str(path), framework="pt") as f:
        if list(f.keys()) != sorted(want):  # safe_open lists names sorted
            failures.append(f"tensor names {list(f.keys())} != {sorted(want)}")
        if f.metadata() != want_meta:
            failures.append(f"metadata {f.metadata()} != {want_meta}")
        for name, w in want.items():
            got = f.get_tensor(name)
            if got.dtype != w.dtype or tuple(got.shape) != tuple(w.shape) or not torch.equal(got, w):
                failures.append(f"tensor {name}: got {got.dtype} {tuple(got.shape)} {got}, "
                                f"want {w.dtype} {tuple(w.shape)} {w}")
    return failures


def check_like_python(path):
    tensors = {
        "w": np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5,
        "b": np.array([1, -2], dtype=np.int64),
        "h": np.array([1.5, -0.25], dtype=np.float16),
        "u": np.array([7, 8, 9], dtype=np.uint8),
        "s": np.array(-3.25, dtype=np.float64),
    }
    reference = np_save(tensors, metadata={"format": "np"})
    ours = Path(path).read_bytes()
    if ours != reference:
        return [f"like_python.safetensors differs from safetensors.numpy.save: "
                f"{len(ours)} vs {len(reference)} bytes\n  fcast:  {ours[:400]!r}\n"
                f"  python: {reference[:400]!r}"]
    return []


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.argv[1], "--export", tmp], check=True)
        failures = check_round_trip(Path(tmp) / "round_trip.safetensors")
        failures += check_like_python(Path(tmp) / "like_python.safetensors")
    import safetensors
    for f in failures:
        print("FAIL:", f)
    print(f"safetensors {safetensors.__version__}: "
          f"{'OK' if not failures else f'{len(failures)} failure(s)'}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
