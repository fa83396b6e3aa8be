"""Shared fixtures of the Python package's tests.

Run from the source tree, the tests import fcast from python/ (which loads
$FCAST_LIBRARY, else build/libfcast.so); copied elsewhere, they import the
installed package, and $FCAST_DATA names the data directory. The
command-line tool they compare with is $FCAST_BIN, else the `fcast`
beside the library loaded. Each test module skips itself when numpy or
pandas is missing (pytest.importorskip), so this file imports neither.
"""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.isdir(os.path.join(ROOT, "python", "fcast")):
    sys.path.insert(0, os.path.join(ROOT, "python"))

MONTHLY = os.path.join(os.environ.get("FCAST_DATA") or os.path.join(ROOT, "data"), "monthly_classics.csv")
FIXTURES = os.environ.get("FCAST_FIXTURES") or os.path.join(ROOT, "tests", "fixtures")

# Whether fp32 training gives the same bits on any thread count: on AVX-512
# oneDNN sums a row alike however the threads split the work; on AVX2-only
# CPUs (AMD Zen 3) its kernels split the sums by thread (docs/training.md).
def _has_avx512():
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and " avx512f" in line for line in f)
    except OSError:
        return False


BITWISE_ACROSS_THREADS = _has_avx512()

# Small models, so that the whole run stays within seconds: the sizes are
# fcast's to train, the assertions do not depend on accuracy.
FAST = dict(max_steps=30, windows_batch_size=128, mlp_units=3 * [[64, 64]])


@pytest.fixture(scope="module")
def panel():
    """Three short noisy monthly sines: the Auto models' tests search on it."""
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 48
    return pd.concat([pd.DataFrame({"unique_id": uid, "ds": pd.date_range("2000-01-01", periods=n, freq="MS"),
                                    "y": 10 + np.sin(np.arange(n) / 2 + k) + rng.normal(0, 0.1, n)})
                      for k, uid in enumerate(["a", "b", "c"])], ignore_index=True)


@pytest.fixture(scope="session")
def monthly():
    pd = pytest.importorskip("pandas")
    return pd.read_csv(MONTHLY, parse_dates=["ds"])


@pytest.fixture(scope="session")
def fitted(monthly):
    """A NeuralForecast of a point model and an MQLoss model, fit once."""
    from fcast import NeuralForecast
    from fcast.losses.pytorch import MQLoss
    from fcast.models import NHITS

    nf = NeuralForecast(models=[NHITS(h=12, input_size=24, **FAST),
                                NHITS(h=12, input_size=24, loss=MQLoss(level=[80, 90]), **FAST)], freq="MS")
    nf.fit(monthly)
    return nf


@pytest.fixture(scope="session")
def fcast_bin():
    """The command-line tool built with the library under test."""
    from fcast import _lib

    candidates = [os.environ.get("FCAST_BIN"), os.path.join(os.path.dirname(_lib.lib._name), "fcast")]
    for path in candidates:
        if path and os.access(path, os.X_OK) and not os.path.isdir(path):
            return path
    pytest.skip(f"no fcast command-line tool at {[c for c in candidates if c]} (set FCAST_BIN)")


def cli_predict(fcast_bin, model_file, df, tmp_path):
    """`fcast predict` of model_file on df (written as CSV), as a DataFrame."""
    import pandas as pd

    data, out = tmp_path / "data.csv", tmp_path / "cli.csv"
    df.to_csv(data, index=False)
    subprocess.run([fcast_bin, "predict", "--model", str(model_file), "--data", str(data), "--out", str(out)],
                   check=True, capture_output=True)
    return pd.read_csv(out, parse_dates=["ds"])


def predict_fixture(fcast_bin, folder, name, tmp_path):
    """`fcast predict` of the fixture model FOLDER/NAME.safetensors on the
    bundled monthly data, and the fixture's own forecasts FOLDER/NAME.csv
    (neuralforecast's), both sorted by unique_id and ds: (got, want)."""
    import pandas as pd

    out = tmp_path / "fc.csv"
    subprocess.run([fcast_bin, "predict", "--model", os.path.join(folder, f"{name}.safetensors"), "--data", MONTHLY,
                    "--out", str(out)], check=True, capture_output=True)
    by_key = ["unique_id", "ds"]
    want = pd.read_csv(os.path.join(folder, f"{name}.csv")).sort_values(by_key).reset_index(drop=True)
    got = pd.read_csv(out).sort_values(by_key).reset_index(drop=True)
    return got, want


@pytest.fixture
def cli(fcast_bin, tmp_path):
    return lambda model_file, df: cli_predict(fcast_bin, model_file, df, tmp_path)
