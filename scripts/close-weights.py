#!/usr/bin/env python3
"""close-weights.py A B TOL: exit 0 when two model files (safetensors) hold
the same tensors (names, shapes) with every F32 value within TOL relative
(of max(1, |b|)) of the other's, and every other tensor equal; prints the
largest relative difference on stderr.

For weights that may differ in their last bits: computed on another CPU
(a fixture written on AVX-512, read on AVX2), or with another thread count
on a CPU whose oneDNN kernels split their sums by thread (AVX2 only).
The standard library only, so it runs wherever python3 does."""
import json
import struct
import sys


def tensors(path):
    b = open(path, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    h = json.loads(b[8:8 + n])
    h.pop("__metadata__", None)
    out = {}
    for name, t in h.items():
        lo, hi = t["data_offsets"]
        raw = b[8 + n + lo:8 + n + hi]
        out[name] = (t["dtype"], t["shape"], struct.unpack("<%df" % (len(raw) // 4), raw) if t["dtype"] == "F32" else raw)
    return out


def main():
    a, b, tol = tensors(sys.argv[1]), tensors(sys.argv[2]), float(sys.argv[3])
    ok = a.keys() == b.keys() and all(a[k][:2] == b[k][:2] for k in a)
    worst = 0.0
    for k in a if ok else ():
        if a[k][0] != "F32":
            ok = ok and a[k][2] == b[k][2]
            continue
        for x, y in zip(a[k][2], b[k][2]):
            worst = max(worst, abs(x - y) / max(1.0, abs(y)))
    print("close_weights: largest relative difference %.3g" % worst, file=sys.stderr)
    sys.exit(0 if ok and worst <= tol else 1)


if __name__ == "__main__":
    main()
