"""The ctypes layer: errors, zero-copy data, arguments, loss names,
interruption."""
import ctypes
import os
import signal
import threading
import time

import pytest

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

import fcast  # noqa: E402
from fcast import NeuralForecast, _lib, core  # noqa: E402
from fcast._data import Panel  # noqa: E402
from fcast.losses import MAE, MQLoss  # noqa: E402
from fcast.models import LSTM, MLP, NHITS, PatchTST  # noqa: E402

from conftest import FAST  # noqa: E402


def test_library_and_version():
    assert _lib.lib.fcast_api_version() == _lib.API_VERSION == 2
    assert fcast.__version__ == _lib.lib.fc_version().decode()


def test_every_kind_of_the_library_has_its_class():
    """The model classes are the library's kinds (fcast_config_model_kind),
    each by its neuralforecast name: a kind added to the C side without a
    class here fails this test."""
    from fcast import models
    kinds = _lib.model_kinds()
    assert list(kinds)[:2] == ["NHITS", "NBEATS"] and kinds["PatchTST"] == "patchtst"
    assert sorted(models.__all__) == sorted(kinds)
    for name, key in kinds.items():
        assert getattr(models, name)._kind == key


def test_invalid_value_is_a_value_error_with_fcasts_message():
    with pytest.raises(ValueError) as info:
        NHITS(h=12, input_size=24, scaler_type="bogus")
    assert isinstance(info.value, fcast.FcastValueError)
    assert info.value.status_name == "FC_ERR_INVALID"
    assert "scaler_type 'bogus': expected identity, standard, robust, minmax or revin" in str(info.value)


def test_missing_model_file_is_an_os_error(fitted, tmp_path):
    fitted.save(tmp_path / "nf")
    (tmp_path / "nf" / "NHITS_1.safetensors").unlink()
    with pytest.raises(OSError) as info:
        NeuralForecast.load(tmp_path / "nf")
    assert isinstance(info.value, fcast.FcastIOError) and info.value.status_name == "FC_ERR_IO"
    assert "NHITS_1.safetensors: cannot open" in str(info.value)


def test_data_errors_name_the_problem(monthly):
    with pytest.raises(ValueError, match="duplicate"):
        Panel(pd.concat([monthly, monthly.iloc[:1]]), "MS")
    with pytest.raises(ValueError, match="unknown frequency 'C'"):   # custom business days: holidays
        Panel(monthly, "C")
    with pytest.raises(ValueError, match="1949-01-01 .* is not a weekday"):   # a Saturday
        Panel(monthly, "B")
    with pytest.raises(ValueError, match="1949-02-01 is off the W grid"):   # W-SUN: weeks; the data is monthly
        Panel(monthly, "W-SUN")
    with pytest.raises(ValueError, match="time zone"):
        Panel(monthly.assign(ds=monthly.ds.dt.tz_localize("UTC")), "MS")


def test_values_beyond_float_range_are_refused(fitted, monthly):
    """The models read floats, where 1e39 is inf: the CLI refuses such a file
    (exit 3), and a DataFrame's arrays are refused the same way, by series
    and ds (predict gave a forecast computed from inf, fit blamed its
    learning rate)."""
    bad = monthly.copy()
    bad.loc[140, "y"] = 1e39
    message = r"series 'AirPassengers', ds 1960-09-01\): y is 1e\+39, beyond the float range"
    with pytest.raises(ValueError, match=message):
        fitted.predict(df=bad)
    with pytest.raises(ValueError, match=message):
        NeuralForecast(models=[MLP(h=6, input_size=12, max_steps=1)], freq="MS").fit(df=bad)
    with pytest.raises(ValueError, match=r"ds 1949-01-01\): column 'price' is -2e\+39, beyond the float range"):
        Panel(monthly.assign(price=np.where(monthly.index == 0, -2e39, 1.0)), "MS", exog=["price"])
    static = pd.DataFrame({"unique_id": monthly.unique_id.unique(), "size": 5e38})
    with pytest.raises(ValueError, match=r"column 'size', row 0 \(series 'AirPassengers'\): 5e\+38 is beyond"):
        Panel(monthly, "MS", static_df=static, stat=["size"])


def test_bad_arguments_are_named(fitted, monthly):
    """h goes to C as size_t: 6.5 failed inside ctypes and -1 wrapped to
    2^64 - 1; an id with a NUL reached C cut short and came back a KeyError."""
    with pytest.raises(TypeError, match=r"^h must be a positive integer, got 6\.5$"):
        MLP(h=6.5, input_size=12)
    with pytest.raises(ValueError, match="^h must be a positive integer, got -1$"):
        MLP(h=-1, input_size=12)
    with pytest.raises(TypeError, match="^h must be a positive integer, got True$"):
        MLP(h=True, input_size=12)
    with pytest.raises(TypeError, match=r"^input_size must be an integer, got 12\.0$"):
        NHITS(h=6, input_size=12.0)
    assert MLP(h=np.int64(6), input_size=np.int32(12)).h == 6
    with pytest.raises(ValueError, match=r"^fcast: column 'unique_id' holds the id 'a\\x00b', which contains a NUL"):
        fitted.predict(df=monthly.assign(unique_id="a\0b"))


def y_address_passed(monkeypatch, nf, df):
    """The address of the y buffer that nf.predict(df=df) gives to
    fcast_data_from_columns. A spy replaces the function on the ctypes
    library object (where the package looks it up at each call), records
    the address its y pointer holds and calls the real function."""
    seen = []
    real = _lib.lib.fcast_data_from_columns

    def spy(n, ids, indptr, y, *rest):
        seen.append(ctypes.cast(y, ctypes.c_void_p).value)
        return real(n, ids, indptr, y, *rest)

    monkeypatch.setattr(_lib.lib, "fcast_data_from_columns", spy)
    nf.predict(df=df)
    return seen[0]


def test_y_passes_without_a_copy(monkeypatch, fitted, monthly):
    """A float64 column of grouped rows reaches C as the DataFrame's own
    buffer (the address of df["y"].to_numpy(), which is the column's
    storage); one that needs converting or regrouping is copied (the
    controls)."""
    assert monthly.y.dtype == np.float64
    assert y_address_passed(monkeypatch, fitted, monthly) == monthly["y"].to_numpy().ctypes.data
    shuffled = monthly.sample(frac=1.0, random_state=0)
    assert y_address_passed(monkeypatch, fitted, shuffled) != shuffled["y"].to_numpy().ctypes.data
    as_float32 = monthly.astype({"y": np.float32})
    assert y_address_passed(monkeypatch, fitted, as_float32) != as_float32["y"].to_numpy().ctypes.data


def neuralforecast_mq_names(level):
    """neuralforecast's MQLoss(level).output_names: from neuralforecast when
    it is installed, else as its level_to_outputs (losses/pytorch.py, 3.3)
    gives them, computed there and written down here."""
    try:
        from neuralforecast.losses.pytorch import MQLoss as NfMQLoss
    except ImportError:
        return {(80, 90): ["-median", "-lo-90", "-lo-80", "-hi-80", "-hi-90"],
                (90, 80, 50): ["-median", "-lo-90", "-lo-80", "-lo-50", "-hi-50", "-hi-80", "-hi-90"],
                (95,): ["-median", "-lo-95", "-hi-95"],
                (99, 1, 50, 60): ["-median", "-lo-99", "-lo-60", "-lo-50", "-lo-1", "-hi-1", "-hi-50", "-hi-60",
                                  "-hi-99"]}[tuple(level)]
    return [str(n) for n in NfMQLoss(level=list(level)).output_names]


@pytest.mark.parametrize("level", [(80, 90), (90, 80, 50), (95,), (99, 1, 50, 60)])
def test_mqloss_names_are_neuralforecasts(level):
    assert MQLoss(level=list(level)).output_names == neuralforecast_mq_names(level)


def test_model_arguments():
    settings = dict(PatchTST(h=6, input_size=24, hidden_size=32, n_heads=4, revin=False, learning_rate=1e-3,
                             random_seed=7, scaler_type="standard", early_stop_patience_steps=-1,
                             loss=MQLoss(level=[80]))._settings())
    assert settings == {"loss": "mq", "level": "80", "hidden-size": "32", "n-heads": "4", "revin": "off",
                        "lr": "0.001", "seed": "7", "scaler": "standard", "early-stop-patience": "-1"}
    assert dict(NHITS(h=6, input_size=12, mlp_units=[[8, 16], [16, 16]])._settings())["mlp-units"] == "8:16,16:16"
    with pytest.warns(UserWarning, match="3 \\* horizon"):
        assert LSTM(h=4).input_size == 12   # neuralforecast's input_size=-1: 3 h
    assert dict(NHITS(h=6, input_size=12, futr_exog_list=["price", "promo"])._settings())["futr-exog"] == "price,promo"
    with pytest.raises(NotImplementedError, match="cat_exog_list"):
        NHITS(h=6, input_size=12, cat_exog_list=["store"])
    with pytest.raises(NotImplementedError, match="max_epochs"):   # neuralforecast 3.3.0 refuses it too
        MLP(h=6, input_size=12, max_epochs=3)
    assert dict(MLP(h=6, input_size=12, accelerator="cpu", futr_exog_list=None)._settings())["device"] == "cpu"
    with pytest.raises(ValueError, match="n_heads \\(4\\) must divide hidden_size \\(30\\)"):
        PatchTST(h=6, input_size=24, hidden_size=30, n_heads=4)   # the whole configuration, at construction
    with pytest.raises(ValueError, match="^max_steps '-3'"):   # the argument's name, not the C key max-steps
        NHITS(h=6, input_size=12, max_steps=-3)
    with pytest.raises(ValueError, match="^learning_rate 'nan'"):
        NHITS(h=6, input_size=12, learning_rate=float("nan"))
    with pytest.raises(NotImplementedError, match="valid_loss"):
        MLP(h=6, input_size=12, valid_loss=MQLoss())
    MLP(h=6, input_size=12, valid_loss=MAE())


def test_unsupported_calls_say_so(fitted):
    with pytest.raises(NotImplementedError, match="use_fitted"):
        fitted.cross_validation(use_fitted=True)
    with pytest.raises(Exception, match="without prediction intervals"):
        fitted.predict(level=[80])
    with pytest.raises(NotImplementedError, match="local_scaler_type"):
        NeuralForecast(models=[MLP(h=6, input_size=12)], freq="MS", local_scaler_type="standard")


def test_ctrl_c_stops_training_and_keeps_the_model(monkeypatch, monthly):
    """A Ctrl-C while fit waits (SIGINT to the process, sent here from the
    training thread's progress callback at step 3) sets the cancel flag:
    training stops after its current step, fit re-raises KeyboardInterrupt,
    and the model trained so far forecasts. Python's own SIGINT handler is
    installed for the test, since a shell's background job starts with
    SIGINT ignored."""
    steps = []
    on_step = core._Training._on_step

    def interrupting(self, user, step, max_steps, loss):
        on_step(self, user, step, max_steps, loss)
        steps.append(step)
        if step == 3:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(core._Training, "_on_step", interrupting)
    nf = NeuralForecast(models=[NHITS(h=6, input_size=12, **dict(FAST, max_steps=5000))], freq="MS")
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            nf.fit(monthly)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert 3 <= steps[-1] < 5000
    assert np.isfinite(nf.predict()["NHITS"]).all()


def test_training_does_not_hold_the_gil(monthly):
    """Another Python thread runs while the C side trains: ctypes releases
    the GIL for the call. The call is made here without a progress
    callback, which would let the GIL change hands at every step anyway."""
    from fcast._data import Handle

    ticks, stop = [], threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.002)

    config = NHITS(h=6, input_size=12, **dict(FAST, max_steps=400))._config()
    panel, model = Panel(monthly, "MS"), Handle(_lib.lib.fcast_model_free)
    thread = threading.Thread(target=ticker)
    thread.start()
    try:
        start = time.perf_counter()
        _lib.check(_lib.lib.fcast_train(config, panel.handle, _lib.PROGRESS_FN(), None, None, model.out()))
        end = time.perf_counter()
    finally:
        stop.set()
        thread.join()
    during = [t for t in ticks if start < t < end]
    assert len(during) >= 0.2 * (end - start) / 0.002, (len(during), end - start)


def test_training_errors_carry_the_workers_message(monthly):
    """fc_last_error is per thread: a failure inside fcast_train, on the
    training thread, reaches fit's caller with its message."""
    nf = NeuralForecast(models=[PatchTST(h=6, input_size=5000, max_steps=2)], freq="MS")   # longer than any series
    with pytest.raises(ValueError, match=r"training points, fewer than input_size 5000"):
        nf.fit(monthly)
    with pytest.raises(Exception, match="must fit"):
        nf.predict()
