"""Issue 35's check: a neuralforecast script written the way GPU users
write them (tests/fixtures/nf_script/script.py: Lightning's trainer
arguments, precision='bf16-mixed', MQLoss, early stopping, an alias,
cross_validation, predict_insample, save/load) runs on fcast with only its
imports changed, and answers as neuralforecast 3.3.0 does
(tests/fixtures/nf_script/expected.json, python/make_nf_script_fixtures.py:
three seeds on CPU): the same frames (columns, rows, ids, dates) and values
within five of neuralforecast's own seed spreads (the mean over rows of
each value's standard deviation over its seeds). The script's device is
the CPU here; tests/python/test_nf_arguments.py checks accelerator='gpu'
and the precision mapping, and scripts/gpu-check.sh runs this on a GPU."""
import json
import os

import pytest

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

FIXTURES = os.path.join(os.environ.get("FCAST_FIXTURES", os.path.join(os.path.dirname(__file__), "..", "fixtures")),
                        "nf_script")
SPREADS = 5


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    script = open(os.path.join(FIXTURES, "script.py")).read()
    text = script.replace("neuralforecast", "fcast")
    assert text.count("fcast") >= script.count("neuralforecast") > 0
    scope = {"SEED": 1, "ACCELERATOR": os.environ.get("FCAST_SCRIPT_ACCELERATOR", "cpu"),
             "PATH": str(tmp_path_factory.mktemp("saved"))}
    exec(compile(text, "script.py", "exec"), scope)
    return scope


def expected():
    with open(os.path.join(FIXTURES, "expected.json")) as f:
        return json.load(f)["frames"]


@pytest.mark.parametrize("name", ["forecast", "cv", "insample", "reloaded"])
def test_frames_as_neuralforecast(run, name):
    want, got = expected()[name], run[name].reset_index(drop=True)
    assert list(got.columns) == want["columns"]
    assert len(got) == want["rows"]
    assert [str(u) for u in got["unique_id"]] == want["unique_id"]
    assert [str(d)[:10] for d in got["ds"]] == want["ds"]
    for column, mean in want["mean"].items():
        spread = float(np.mean(want["std"][column]))
        gap = float(np.mean(np.abs(got[column].to_numpy(dtype=float) - np.asarray(mean))))
        assert gap <= SPREADS * spread + 1e-9, f"{name}.{column}: {gap:.2f} from neuralforecast's mean, " \
                                               f"its seed spread {spread:.2f}"


def test_loaded_models_forecast_as_the_saved_ones(run):
    before = run["nf"].predict()
    after = run["reloaded"][before.columns]
    pd.testing.assert_frame_equal(before.reset_index(drop=True), after.reset_index(drop=True))
