"""cross_validation and exogenous inputs through NeuralForecast, against
neuralforecast's own output (fixtures made with neuralforecast 3.3):

* cross_validation's frame has neuralforecast's columns and rows (the
  keys unique_id, ds, cutoff, y of tests/fixtures/cv, in their order);
* NHITS, NBEATSx and MLP with future, past and static columns, given
  neuralforecast's weights (tests/fixtures/exog), forecast what
  neuralforecast's predict(futr_df=...) forecast: the frames go through
  fcast.NeuralForecast's fit / save / load / predict, so this checks the
  columns passed, the static values and the future values end to end;
* refusals: no futr_df for a model that needs it, exogenous lists on a
  model whose neuralforecast class takes none."""
import json
import os
import struct

import pytest

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

from conftest import FIXTURES  # noqa: E402


def fixture(*parts):
    path = os.path.join(FIXTURES, *parts)
    if not os.path.exists(path):
        pytest.skip(f"no fixture {path} (set FCAST_FIXTURES to the source tree's tests/fixtures)")
    return path


# ---------------------------------------------------------------- cross-validation

CV_CASES = {  # h, input_size, n_windows, step_size, refit: as each keys file's first line says
    "monthly_norefit": (12, 24, 3, 12, False),
    "monthly_refit": (6, 12, 4, 2, True),
    "short_series": (12, 24, 3, 6, False),
}


@pytest.mark.parametrize("case", sorted(CV_CASES))
def test_cross_validation_rows_are_neuralforecasts(case):
    from fcast import NeuralForecast
    from fcast.models import MLP

    h, input_size, n_windows, step_size, refit = CV_CASES[case]
    keys_file = fixture("cv", f"{case}_keys.csv")
    with open(keys_file) as f:
        assert str((h, input_size, n_windows, step_size, refit)) in f.readline()
    keys = pd.read_csv(keys_file, comment="#", parse_dates=["ds", "cutoff"])
    df = pd.read_csv(fixture("cv", f"{case}_data.csv"), parse_dates=["ds"])
    nf = NeuralForecast(models=[MLP(h=h, input_size=input_size, max_steps=5, hidden_size=16)], freq="MS")
    cv = nf.cross_validation(df, n_windows=n_windows, step_size=step_size, refit=refit)
    assert list(cv.columns) == ["unique_id", "ds", "cutoff", "MLP", "y"]
    pd.testing.assert_frame_equal(cv[["unique_id", "ds", "cutoff", "y"]], keys, check_dtype=False)
    assert np.isfinite(cv["MLP"]).all()


def test_cross_validation_series_order_and_mq():
    """Integer ids sort as numbers in neuralforecast (9 before 10) but as
    text in fcast: the rows follow neuralforecast's order; MQLoss gives its
    columns; test_size stands for n_windows as in neuralforecast."""
    from fcast import NeuralForecast
    from fcast.losses.pytorch import MQLoss
    from fcast.models import MLP

    t = np.arange(40)
    df = pd.DataFrame({"unique_id": np.repeat([10, 9], 40), "ds": np.tile(t, 2),
                       "y": np.concatenate([np.sin(t / 3) + 5, np.cos(t / 4) + 9])})
    nf = NeuralForecast(models=[MLP(h=4, input_size=8, max_steps=5, loss=MQLoss(level=[80]))], freq=1)
    cv = nf.cross_validation(df, test_size=8, step_size=2)
    assert list(cv.columns) == ["unique_id", "ds", "cutoff", "MLP-median", "MLP-lo-80", "MLP-hi-80", "y"]
    assert list(cv["unique_id"].unique()) == [9, 10]
    assert len(cv) == 2 * 3 * 4   # (8 - 4) / 2 + 1 = 3 windows
    assert list(cv["cutoff"].unique()) == [31, 33, 35]
    expected_y = df.set_index(["unique_id", "ds"])["y"]
    assert np.array_equal(cv["y"].to_numpy(), expected_y.loc[list(zip(cv.unique_id, cv.ds))].to_numpy())
    with pytest.raises(Exception, match="divisible"):
        nf.cross_validation(df, test_size=7, step_size=2)


# ---------------------------------------------------------------- exogenous inputs

def read_safetensors(path):
    """{name: (dtype, shape, bytes)} and the metadata of a safetensors file."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    meta = header.pop("__metadata__", {})
    return {k: (v["dtype"], v["shape"], data[v["data_offsets"][0]:v["data_offsets"][1]])
            for k, v in header.items()}, meta


def write_safetensors(path, tensors, meta):
    header, blobs, offset = {"__metadata__": meta}, [], 0
    for name, (dtype, shape, blob) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def with_weights(model_file, reference):
    """model_file with every tensor replaced by the reference's "param.<name>"."""
    tensors, meta = read_safetensors(model_file)
    theirs, _ = read_safetensors(reference)
    for name, (dtype, shape, blob) in tensors.items():
        other = theirs.get("param." + name)
        assert other is not None and other[1] == shape, f"{name}: not in {reference} with shape {shape}"
        tensors[name] = (dtype, shape, other[2])
    write_safetensors(model_file, tensors, meta)


@pytest.mark.parametrize("kind", ["nhits", "nbeatsx", "mlp"])
def test_exogenous_forecasts_are_neuralforecasts(kind, tmp_path):
    import fcast.models
    from fcast import NeuralForecast

    reference = fixture("exog", f"predict_{kind}.safetensors")
    tensors, meta = read_safetensors(reference)
    config = json.loads(meta["config"])
    cls = getattr(fcast.models, config.pop("model"))
    config.pop("loss")
    config["learning_rate"] = 1e-3   # neuralforecast's 0 (fcast refuses it): the weights are replaced anyway
    history = pd.read_csv(fixture("exog", "history.csv"), parse_dates=["ds"])
    future = pd.read_csv(fixture("exog", "future.csv"), parse_dates=["ds"])
    static = pd.read_csv(fixture("exog", "static.csv"))
    nf = NeuralForecast(models=[cls(**config)], freq=meta["freq"])
    nf.fit(history, static_df=static)   # one step at learning rate 0: the file's layout, then its weights
    nf.save(tmp_path / "nf")
    with_weights(tmp_path / "nf" / f"{cls.__name__}_0.safetensors", reference)
    loaded = NeuralForecast.load(tmp_path / "nf")
    fc = loaded.predict(df=history, static_df=static, futr_df=future)
    dtype, shape, blob = tensors["forecast"]
    want = np.frombuffer(blob, dtype=np.float32).reshape(shape)
    assert list(fc.columns) == ["unique_id", "ds", cls.__name__]
    assert list(fc["unique_id"].unique()) == json.loads(meta["unique_ids"])
    assert [str(d.date()) for d in fc["ds"][:shape[1]]] == json.loads(meta["forecast_ds"])[0]
    np.testing.assert_allclose(fc[cls.__name__].to_numpy().reshape(shape), want, rtol=1e-5, atol=1e-4)
    other = future.assign(trend_f=future["trend_f"] * 3)
    assert not np.allclose(loaded.predict(df=history, static_df=static, futr_df=other)[cls.__name__], fc[cls.__name__])


def test_exogenous_refusals():
    from fcast import FcastValueError, NeuralForecast
    from fcast.models import NBEATS, NHITS

    history = pd.read_csv(fixture("exog", "history.csv"), parse_dates=["ds"])
    nf = NeuralForecast(models=[NHITS(h=6, input_size=12, max_steps=2, futr_exog_list=["trend_f"])], freq="MS")
    nf.fit(history)
    with pytest.raises(ValueError, match="futr_df"):
        nf.predict()
    with pytest.raises(KeyError, match="trend_f"):
        nf.predict(futr_df=history[["unique_id", "ds"]])
    with pytest.raises(FcastValueError, match="futr"):
        NBEATS(h=6, input_size=12, futr_exog_list=["trend_f"])
    with pytest.raises(ValueError, match="static_df"):
        NeuralForecast(models=[NHITS(h=6, input_size=12, stat_exog_list=["s_size"])], freq="MS").fit(history)


# ---------------------------------------------------------------- conformal intervals

def test_conformal_intervals_equal_cli(monthly, fcast_bin, tmp_path):
    """fit(prediction_intervals=PredictionIntervals()) then predict(level=...)
    gives neuralforecast's columns, and the values `fcast predict --level`
    computes from the saved model file (1e-6: the CLI writes text)."""
    import subprocess

    from fcast import NeuralForecast
    from fcast.models import MLP
    from fcast.utils import PredictionIntervals

    nf = NeuralForecast(models=[MLP(h=12, input_size=24, max_steps=20, hidden_size=32)], freq="MS")
    nf.fit(monthly, prediction_intervals=PredictionIntervals(n_windows=3, step_size=2))
    fc = nf.predict(level=[90, 80])
    assert list(fc.columns) == ["unique_id", "ds", "MLP", "MLP-lo-90", "MLP-lo-80", "MLP-hi-80", "MLP-hi-90"]
    v = fc[["MLP-lo-90", "MLP-lo-80", "MLP", "MLP-hi-80", "MLP-hi-90"]].to_numpy()
    assert (np.diff(v, axis=1) >= 0).all() and (v[:, 4] > v[:, 3]).any()
    nf.save(tmp_path / "nf")
    monthly.to_csv(tmp_path / "data.csv", index=False)
    subprocess.run([fcast_bin, "predict", "--model", str(tmp_path / "nf" / "MLP_0.safetensors"), "--data",
                    str(tmp_path / "data.csv"), "--level", "80,90", "--out", str(tmp_path / "cli.csv")],
                   check=True, capture_output=True)
    cli = pd.read_csv(tmp_path / "cli.csv", parse_dates=["ds"])
    assert list(cli.columns) == list(fc.columns)
    np.testing.assert_allclose(cli[fc.columns[2:]].to_numpy(), fc[fc.columns[2:]].to_numpy(), rtol=1e-6)
    plain = NeuralForecast(models=[MLP(h=12, input_size=24, max_steps=2)], freq="MS")
    plain.fit(monthly)
    with pytest.raises(Exception, match="without prediction intervals"):
        plain.predict(level=[80])


# ---------------------------------------------------------------- frequencies

def test_anchored_weeks():
    """pandas' anchored weeks (W-SUN, W-WED) are fcast's 7-day grid: the
    forecasts' dates continue the series on its weekday, as pandas'
    date_range does."""
    from fcast import NeuralForecast
    from fcast.models import MLP

    for freq, start in (("W-SUN", "2020-01-05"), ("W-WED", "2020-01-01")):
        ds = pd.date_range(start, periods=60, freq=freq)
        df = pd.DataFrame({"unique_id": "a", "ds": ds, "y": np.sin(np.arange(60) / 3) + 5})
        nf = NeuralForecast(models=[MLP(h=4, input_size=8, max_steps=3)], freq=freq)
        nf.fit(df)
        fc = nf.predict()
        want = pd.date_range(ds[-1], periods=5, freq=freq)[1:]
        assert (fc["ds"].to_numpy() == want.to_numpy()).all(), freq


def test_business_days():
    """freq='B' is pandas' business days: a series of weekdays trains with
    no filled gap over its weekends, predict's dates skip weekends as
    pandas.bdate_range does (Friday -> Monday), and a weekend date in B
    data is an error naming its row."""
    from fcast import NeuralForecast
    from fcast._data import Panel
    from fcast.models import MLP

    ds = pd.bdate_range("2024-01-01", periods=80)   # ends on a Friday
    assert ds[-1].day_name() == "Friday"
    df = pd.DataFrame({"unique_id": "a", "ds": ds, "y": np.sin(np.arange(80) / 3) + 5})
    nf = NeuralForecast(models=[MLP(h=7, input_size=10, max_steps=3)], freq="B")
    nf.fit(df)
    fc = nf.predict()
    want = pd.bdate_range(ds[-1], periods=8)[1:]
    assert (fc["ds"].to_numpy() == want.to_numpy()).all()
    weekend = pd.concat([df, pd.DataFrame({"unique_id": ["a"], "ds": [pd.Timestamp("2024-04-27")], "y": [1.0]})],
                        ignore_index=True)
    with pytest.raises(ValueError, match=r"row 80.*2024-04-27.*not a weekday \(Monday to Friday\), as frequency B"):
        Panel(weekend, "B")


def test_conformal_quantiles_are_the_levels_bounds(monthly):
    """predict(quantiles=...) names the conformal bounds as neuralforecast
    does (NHITS-ql0.1, ...): q < 0.5 the lower bound of level 100 - 200 q,
    q > 0.5 the upper bound of 200 q - 100, 0.5 the forecast."""
    from fcast import NeuralForecast
    from fcast.models import MLP
    from fcast.utils import PredictionIntervals

    nf = NeuralForecast(models=[MLP(h=12, input_size=24, max_steps=10, hidden_size=16)], freq="MS")
    nf.fit(monthly, prediction_intervals=PredictionIntervals(n_windows=3))
    by_level = nf.predict(level=[80, 50])
    by_q = nf.predict(quantiles=[0.9, 0.1, 0.25, 0.5, 0.75])
    assert list(by_q.columns) == ["unique_id", "ds", "MLP", "MLP-ql0.1", "MLP-ql0.25", "MLP-ql0.5", "MLP-ql0.75",
                                  "MLP-ql0.9"]
    for q, column in ((0.1, "MLP-lo-80"), (0.25, "MLP-lo-50"), (0.5, "MLP"), (0.75, "MLP-hi-50"), (0.9, "MLP-hi-80")):
        assert np.array_equal(by_q[f"MLP-ql{q}"].to_numpy(), by_level[column].to_numpy()), q
    assert (by_q["MLP-ql0.9"] > by_q["MLP-ql0.75"]).any()
    with pytest.raises(ValueError, match="both level and quantiles"):
        nf.predict(level=[80], quantiles=[0.1])
    with pytest.raises(ValueError, match="in \\(0, 1\\)"):
        nf.predict(quantiles=[1.5])
