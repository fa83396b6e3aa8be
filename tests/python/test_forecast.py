"""NeuralForecast on fcast: neuralforecast's frames, and the same forecasts
as the command-line tool on the same model file."""
import os

import pytest

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

from conftest import BITWISE_ACROSS_THREADS, FAST  # noqa: E402

H = 12


def point_columns(frame):
    return [c for c in frame.columns if c not in ("unique_id", "ds")]


def expected_ds(df, h, freq):
    """neuralforecast's future dates: the h dates at freq after each series' end."""
    last = df.groupby("unique_id")["ds"].max()
    step = freq if isinstance(freq, int) else pd.tseries.frequencies.to_offset(freq)
    return pd.DataFrame({"unique_id": np.repeat(last.index.to_numpy(), h),
                         "ds": pd.Series([d + (i + 1) * step for d in last for i in range(h)], dtype=df.ds.dtype)})


def test_fit_predict_frame(fitted, monthly):
    fc = fitted.predict()
    assert list(fc.columns) == ["unique_id", "ds", "NHITS", "NHITS1-median", "NHITS1-lo-90", "NHITS1-lo-80",
                                "NHITS1-hi-80", "NHITS1-hi-90"]
    pd.testing.assert_frame_equal(fc[["unique_id", "ds"]], expected_ds(monthly, H, "MS"))
    assert all(fc[c].dtype == np.float32 for c in point_columns(fc))   # neuralforecast's dtype
    assert np.isfinite(fc[point_columns(fc)].to_numpy()).all()


def test_forecasts_equal_cli(fitted, monthly, cli, tmp_path):
    """Each model file the object saves, run through `fcast predict`, gives
    the object's own forecasts (1e-6: the CLI writes them as text)."""
    fc = fitted.predict()
    fitted.save(tmp_path / "nf")
    for file, columns in (("NHITS_0.safetensors", ["NHITS"]), ("NHITS_1.safetensors", point_columns(fc)[1:])):
        theirs = cli(tmp_path / "nf" / file, monthly)
        pd.testing.assert_frame_equal(theirs[["unique_id", "ds"]], fc[["unique_id", "ds"]], check_dtype=False)
        assert [c.split("-", 1)[-1] for c in point_columns(theirs)] == [c.split("-", 1)[-1] for c in columns]
        np.testing.assert_allclose(fc[columns].to_numpy(), theirs[point_columns(theirs)].to_numpy(), rtol=1e-6,
                                   atol=1e-6)


def other_panel(monthly):
    """Another panel: two series cut 30 months short, renamed, rows shuffled
    (so the grouping path runs)."""
    cut = monthly[monthly.unique_id.isin(["AirPassengers", "gas"])]
    cut = cut.groupby("unique_id", group_keys=False).apply(lambda g: g.iloc[:-30])
    cut = cut.assign(unique_id=cut.unique_id.map({"AirPassengers": "zz_air", "gas": "aa_gas"}))
    return cut.sample(frac=1.0, random_state=0).reset_index(drop=True)


def test_predict_other_panel(fitted, monthly, cli, tmp_path):
    other = other_panel(monthly)
    fc = fitted.predict(df=other)
    pd.testing.assert_frame_equal(fc[["unique_id", "ds"]], expected_ds(other, H, "MS"))
    fitted.save(tmp_path / "nf")
    theirs = cli(tmp_path / "nf" / "NHITS_0.safetensors", other.sort_values(["unique_id", "ds"]))
    np.testing.assert_allclose(fc["NHITS"].to_numpy(), theirs["NHITS"].to_numpy(), rtol=1e-6, atol=1e-6)
    # the fitted data is still the default
    pd.testing.assert_frame_equal(fitted.predict()[["unique_id", "ds"]], expected_ds(monthly, H, "MS"))


def test_row_order_does_not_matter(fitted, monthly):
    shuffled = monthly.sample(frac=1.0, random_state=1)
    pd.testing.assert_frame_equal(fitted.predict(df=shuffled), fitted.predict(df=monthly))


def test_save_load(fitted, monthly, tmp_path):
    from fcast import NeuralForecast

    fitted.save(tmp_path / "nf")
    with pytest.raises(Exception, match="overwrite=True"):
        fitted.save(tmp_path / "nf")
    fitted.save(tmp_path / "nf", overwrite=True)
    loaded = NeuralForecast.load(tmp_path / "nf")
    assert [repr(m) for m in loaded.models] == ["NHITS", "NHITS"] and loaded.freq == "MS"
    pd.testing.assert_frame_equal(loaded.predict(df=monthly), fitted.predict())
    pd.testing.assert_frame_equal(loaded.predict(), fitted.predict())   # save_dataset=True's default


def test_integer_ds(monthly):
    from fcast import NeuralForecast
    from fcast.models import MLP

    df = monthly.assign(ds=monthly.groupby("unique_id").cumcount() + 100)
    nf = NeuralForecast(models=[MLP(h=3, input_size=12, max_steps=5, hidden_size=32, alias="mlp")], freq=1)
    nf.fit(df)
    fc = nf.predict()
    assert list(fc.columns) == ["unique_id", "ds", "mlp"]
    assert fc.ds.dtype == df.ds.dtype
    pd.testing.assert_frame_equal(fc[["unique_id", "ds"]], expected_ds(df, 3, 1))


NEURALFORECAST_SCRIPT = """
from neuralforecast import NeuralForecast
from neuralforecast.models import NHITS

nf = NeuralForecast(models=[NHITS(h=12, input_size=24, max_steps=50)], freq='MS')
nf.fit(df)
forecasts = nf.predict()
"""


def test_neuralforecast_script_runs_with_imports_changed(monthly):
    script = NEURALFORECAST_SCRIPT.replace("from neuralforecast", "from fcast")
    scope = {"df": monthly}
    exec(script, scope)
    fc = scope["forecasts"]
    assert list(fc.columns) == ["unique_id", "ds", "NHITS"] and len(fc) == 4 * 12


def test_val_size_and_early_stopping(monthly):
    from fcast import NeuralForecast
    from fcast.models import NHITS

    nf = NeuralForecast(models=[NHITS(h=6, input_size=12, early_stop_patience_steps=1, val_check_steps=5,
                                      **FAST)], freq="MS")
    nf.fit(monthly, val_size=6)
    assert np.isfinite(nf.predict()["NHITS"]).all()


def every_model():
    from fcast import models

    small = dict(max_steps=3, windows_batch_size=32)
    return [models.NHITS(H, 24, mlp_units=[[16, 16]], n_pool_kernel_size=[2, 2, 1], **small),
            models.NBEATS(H, 24, mlp_units=[[16, 16]], n_harmonics=1, n_basis=1, **small),
            models.NBEATSx(H, 24, mlp_units=[[16, 16]], n_polynomials=1, stack_types=["identity", "trend"],
                           n_blocks=[1, 1], **small),
            models.MLP(H, 24, hidden_size=16, num_layers=1, **small),
            models.LSTM(H, 24, encoder_hidden_size=8, decoder_hidden_size=8, encoder_n_layers=1, **small),
            models.TiDE(H, 24, hidden_size=16, decoder_output_dim=4, temporal_decoder_dim=8, layernorm=False,
                        **small),
            models.PatchTST(H, 24, hidden_size=16, n_heads=2, linear_hidden_size=16, encoder_layers=1,
                            patch_len=8, stride=4, revin_affine=True, activation="relu", **small)]


def test_every_model_fits_and_predicts(monthly):
    """Each class trains through the C API with its own architecture
    arguments, and names its column after itself."""
    from fcast import NeuralForecast

    nf = NeuralForecast(models=every_model(), freq="MS")
    nf.fit(monthly)
    fc = nf.predict()
    assert point_columns(fc) == ["NHITS", "NBEATS", "NBEATSx", "MLP", "LSTM", "TiDE", "PatchTST"]
    assert np.isfinite(fc[point_columns(fc)].to_numpy()).all()


def assert_same_across_threads(a, b):
    """Forecasts of trainings on other thread counts: bit for bit where
    fp32 training does not depend on the thread count (AVX-512), within
    float32 rounding where oneDNN's kernels split their sums by thread
    (AVX2-only CPUs; docs/training.md)."""
    if BITWISE_ACROSS_THREADS:
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    else:   # last-bit differences that 30 Adam steps grow to ~1e-3 of the forecast
        pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-2)


def test_models_side_by_side(monthly):
    """Three models trained 3 at a time (a thread and a backend each) and
    one after another with every thread give the same forecasts, bit for
    bit: each model's training does not depend on its thread count
    (issue 36)."""
    from fcast import NeuralForecast
    from fcast.models import MLP, NBEATS, NHITS

    def fit(parallel):
        nf = NeuralForecast(models=[NHITS(h=H, input_size=24, **FAST), NBEATS(h=H, input_size=24, **FAST),
                                    MLP(h=H, input_size=24, max_steps=30, hidden_size=32)], freq="MS",
                            parallel=parallel)
        nf.fit(monthly)
        return nf.predict()

    together, alone = fit(3), fit(1)
    assert list(together.columns) == ["unique_id", "ds", "NHITS", "NBEATS", "MLP"]
    assert_same_across_threads(together, alone)
    if not BITWISE_ACROSS_THREADS and len(os.sched_getaffinity(0)) <= 2:
        # on every CPU: trainings of one thread each, 2 or 3 at once, the same bits
        pd.testing.assert_frame_equal(together, fit(2), check_exact=True)
    with pytest.raises(ValueError, match="parallel=0"):
        NeuralForecast(models=[MLP(h=H, input_size=24)], freq="MS", parallel=0)


def test_cross_validation_side_by_side(monthly):
    """cross_validation of several models side by side gives the frame of
    one after another, bit for bit (each model's trainings too: refit)."""
    from fcast import NeuralForecast
    from fcast.models import MLP, NHITS

    def cv(parallel):
        nf = NeuralForecast(models=[NHITS(h=H, input_size=24, **FAST),
                                    MLP(h=H, input_size=24, max_steps=30, hidden_size=32)], freq="MS",
                            parallel=parallel)
        return nf.cross_validation(monthly, n_windows=2, step_size=H, refit=True)

    together, alone = cv(2), cv(1)
    assert list(together.columns) == ["unique_id", "ds", "cutoff", "NHITS", "MLP", "y"]
    assert_same_across_threads(together, alone)


def test_side_by_side_reruns_what_did_not_fit_alone():
    """A training that ran out of memory beside others is run again alone
    (fit never fails side by side where one at a time fits); another
    failure is raised; every thread is joined."""
    import threading

    from fcast import core
    from fcast._lib import FC_ERR_INVALID, FC_ERR_MEMORY, FcastError

    class Stub:
        def __init__(self, name, fail, log):
            self.name, self.fail, self.log, self.failure, self.model = name, fail, log, None, None
            self._done = threading.Event()
            self._thread = threading.Thread(target=self._train)

        def _train(self):
            self.log.append(self.name)
            self.failure = FcastError(self.fail, "no") if self.fail else None
            self.model = None if self.fail else self.name
            self._done.set()

        def again(self):
            return Stub(self.name + "-alone", 0, self.log)

        def run(self):
            self._thread.start()
            self._thread.join()
            if self.failure:
                raise self.failure

    log = []
    trainings = [Stub("a", 0, log), Stub("b", FC_ERR_MEMORY, log), Stub("c", 0, log)]
    core._run_side_by_side(trainings, 2)
    assert [t.model for t in trainings] == ["a", "b-alone", "c"] and log[-1] == "b-alone"
    failing = [Stub("a", FC_ERR_INVALID, []), Stub("b", 0, [])]
    with pytest.raises(FcastError):
        core._run_side_by_side(failing, 2)
