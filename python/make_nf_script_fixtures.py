"""tests/fixtures/nf_script/expected.json: what neuralforecast 3.3.0 answers
for tests/fixtures/nf_script/script.py (issue 35's GPU-style script), run on
CPU with seeds 1, 2 and 3: each frame's columns and rows, and for each of
its number columns the per-row mean and standard deviation over the seeds
(the seed spread that tests/python/test_nf_gpu_script.py holds fcast to).

Run by developers, in a scratch directory (neuralforecast writes
lightning_logs/), with python/requirements-fixtures.txt installed:
    cd $(mktemp -d) && python /path/to/fcast/python/make_nf_script_fixtures.py /path/to/fcast
"""
import json
import os
import sys

import numpy as np

FRAMES = ("forecast", "cv", "insample", "reloaded")
SEEDS = (1, 2, 3)


def run(script, seed):
    scope = {"SEED": seed, "ACCELERATOR": "cpu", "PATH": os.path.abspath(f"saved_{seed}")}
    exec(compile(script, "script.py", "exec"), scope)
    return {name: scope[name].reset_index(drop=True) for name in FRAMES}


def summary(runs, name):
    first = runs[0][name]
    numbers = [c for c in first.columns if c not in ("unique_id", "ds", "cutoff")]
    stacked = {c: np.stack([r[name][c].to_numpy(dtype=float) for r in runs]) for c in numbers}
    return {"columns": list(first.columns), "rows": len(first),
            "unique_id": [str(u) for u in first["unique_id"]],
            "ds": [str(d)[:10] for d in first["ds"]],
            "mean": {c: [round(float(v), 4) for v in s.mean(axis=0)] for c, s in stacked.items()},
            "std": {c: [round(float(v), 4) for v in s.std(axis=0)] for c, s in stacked.items()}}


def main():
    root = sys.argv[1]
    folder = os.path.join(root, "tests", "fixtures", "nf_script")
    script = open(os.path.join(folder, "script.py")).read()
    runs = [run(script, seed) for seed in SEEDS]
    out = {"neuralforecast": __import__("neuralforecast").__version__, "seeds": list(SEEDS),
           "frames": {name: summary(runs, name) for name in FRAMES}}
    with open(os.path.join(folder, "expected.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
