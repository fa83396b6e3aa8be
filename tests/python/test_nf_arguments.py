"""Lightning's Trainer arguments, as a neuralforecast GPU script passes
them to a model: each one honoured (the device, the precision, the
progress) or refused by name with the reason, never dropped."""
import subprocess
import warnings

import pytest

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

from conftest import FAST, MONTHLY  # noqa: E402
from fcast import NeuralForecast  # noqa: E402
from fcast.models import NHITS  # noqa: E402

SMALL = dict(FAST, max_steps=20)

# The script (issue 35) less what neuralforecast 3.3.0 itself
# refuses (max_epochs), on the CPU
SCRIPT_ARGS = dict(strategy="auto", precision="32", gradient_clip_val=1.0, accumulate_grad_batches=2,
                   early_stop_patience_steps=15, val_check_steps=50, enable_progress_bar=False,
                   enable_model_summary=False, num_workers_loader=4, pin_memory_loader=True, logger=False,
                   deterministic=True, enable_checkpointing=False, accelerator="cpu", devices=1,
                   drop_last_loader=True)


def forecast(monthly, **kwargs):
    nf = NeuralForecast(models=[NHITS(h=12, input_size=24, **dict(SMALL, **kwargs))], freq="MS")
    nf.fit(monthly)
    return nf.predict()["NHITS"].to_numpy()


def test_script_arguments_accepted_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = NHITS(h=12, input_size=24, **SCRIPT_ARGS)
    settings = dict(model._settings())
    assert settings["device"] == "cpu" and settings["precision"] == "fp32"
    assert settings["clip-grad-norm"] == "1.0" and settings["grad-accum"] == "2"


@pytest.mark.parametrize("accelerator, devices, device", [
    ("gpu", None, "cuda"), ("cuda", 1, "cuda"), ("gpu", [1], "cuda:1"), ("gpu", "2,", "cuda:2"),
    ("cpu", None, "cpu"), ("cpu", 1, "cpu"), ("auto", None, "auto"), ("auto", -1, "auto"), (None, [0], "cuda:0")])
def test_accelerator_and_devices_are_the_device(accelerator, devices, device):
    assert dict(NHITS(h=12, input_size=24, accelerator=accelerator, devices=devices)._settings())["device"] == device


def test_device_not_sent_when_not_asked():
    assert "device" not in dict(NHITS(h=12, input_size=24)._settings())


@pytest.mark.parametrize("kwargs, words", [
    (dict(accelerator="gpu", devices=2), "mpirun"), (dict(accelerator="gpu", devices=[0, 1]), "mpirun"),
    (dict(strategy="ddp"), "mpirun"), (dict(accelerator="mps"), "accelerator='mps'"),
    (dict(precision="bf16-true"), "precision='bf16-true'"), (dict(precision=64), "precision=64"),
    (dict(max_epochs=75), "max_epochs is deprecated, use max_steps instead"),
    (dict(callbacks=[]), "callbacks"), (dict(max_time="00:01:00"), "max_time")])
def test_refused_by_name(kwargs, words):
    with pytest.raises(NotImplementedError, match=words.replace("(", r"\(")):
        NHITS(h=12, input_size=24, **kwargs)


@pytest.mark.parametrize("value, precision", [
    ("32", "fp32"), (32, "fp32"), ("32-true", "fp32"), ("16-mixed", "fp16"), (16, "fp16"), ("16", "fp16"),
    ("bf16-mixed", "bf16"), ("bf16", "bf16")])
def test_precision_names(value, precision):
    assert dict(NHITS(h=12, input_size=24, precision=value)._settings())["precision"] == precision


def cuda_failure(fcast_bin, tmp_path):
    """`fcast train --device cuda`'s message on this machine, None when it trains."""
    run = subprocess.run([fcast_bin, "train", "--model", "nhits", "--h", "12", "--input-size", "24", "--max-steps",
                          "1", "--data", MONTHLY, "--out", str(tmp_path / "m.safetensors"), "--device", "cuda"],
                         capture_output=True, text=True)
    return None if run.returncode == 0 else run.stderr.strip().split(": ", 1)[1]


def test_gpu_without_a_gpu_fails_as_the_cli(monthly, fcast_bin, tmp_path):
    """accelerator='gpu' never trains on the CPU: without a usable GPU the
    fit fails with the message `fcast train --device cuda` gives."""
    message = cuda_failure(fcast_bin, tmp_path)
    if message is None:
        pytest.skip("this machine has a usable GPU: accelerator='gpu' trains there")
    nf = NeuralForecast(models=[NHITS(h=12, input_size=24, accelerator="gpu", devices=[0], **SMALL)], freq="MS")
    with pytest.raises(Exception) as failure:
        nf.fit(monthly)
    text = str(failure.value)
    # The CLI's message, or, for an installed package whose library has no
    # libfcast-cuda.so beside it (the wheel), the same refusal of cuda:0
    assert message.split(": ", 1)[1] in text or text.startswith("device cuda:0: no CUDA backend"), text


def test_bf16_mixed_trains_bf16_as_the_cli(monthly, cli, fcast_bin, tmp_path):
    """precision='bf16-mixed' gives the CLI's --precision bf16 model, and
    not the fp32 one."""
    nf = NeuralForecast(models=[NHITS(h=12, input_size=24, precision="bf16-mixed", **SMALL)], freq="MS")
    nf.fit(monthly)
    ours = nf.predict()["NHITS"].to_numpy()
    out = tmp_path / "bf16.safetensors"
    subprocess.run([fcast_bin, "train", "--model", "nhits", "--h", "12", "--input-size", "24", "--max-steps", "20",
                    "--windows-batch-size", "128", "--mlp-units", "64:64,64:64,64:64", "--precision", "bf16",
                    "--freq", "MS", "--data", MONTHLY, "--out", str(out), "--device", "cpu"],
                   check=True, capture_output=True)
    np.testing.assert_allclose(ours, cli(out, monthly)["NHITS"].to_numpy(), rtol=1e-6, atol=1e-6)
    assert np.abs(ours - forecast(monthly, precision=32)).max() > 1e-3


@pytest.mark.parametrize("loss, flags, column", [
    ("HuberLoss(delta=2.0)", ["--loss", "huber", "--huber-delta", "2"], "NHITS"),
    ("QuantileLoss(q=0.9)", ["--loss", "quantile", "--quantile", "0.9"], "NHITS_ql0.9"),
    ("MASE(seasonality=12)", ["--loss", "mase", "--season", "12"], "NHITS"),
])
def test_loss_parameters_train_as_the_cli(monthly, cli, fcast_bin, tmp_path, loss, flags, column):
    """A loss's own parameter (Huber's delta, the quantile, MASE's season)
    gives the CLI's model with the matching flag, under the column
    neuralforecast names."""
    from fcast.losses import pytorch as losses

    def fit(text):   # scaled windows: errors near 1, where delta matters (Adam would hide a mere gradient scale)
        nf = NeuralForecast(models=[NHITS(h=12, input_size=24, loss=eval(text, vars(losses)), scaler_type="standard",
                                          **SMALL)], freq="MS")
        nf.fit(monthly)
        return nf.predict()
    ours = fit(loss)
    assert column in ours.columns, list(ours.columns)
    default = fit(loss.split("(")[0] + {"HuberLoss": "()", "QuantileLoss": "(q=0.5)", "MASE": "(seasonality=1)"}[
        loss.split("(")[0]])
    assert np.abs(ours[column].to_numpy() - default.iloc[:, -1].to_numpy()).max() > 1e-3   # the parameter matters
    out = tmp_path / "loss.safetensors"
    subprocess.run([fcast_bin, "train", "--model", "nhits", "--h", "12", "--input-size", "24", "--max-steps", "20",
                    "--windows-batch-size", "128", "--mlp-units", "64:64,64:64,64:64", "--freq", "MS",
                    "--scaler", "standard", "--data", MONTHLY, "--out", str(out), "--device", "cpu"] + flags,
                   check=True, capture_output=True)
    theirs = cli(out, monthly)
    np.testing.assert_allclose(ours[column].to_numpy(), theirs[theirs.columns[-1]].to_numpy(), rtol=1e-6, atol=1e-6)


def test_accelerator_cpu_trains_the_default_model(monthly):
    np.testing.assert_array_equal(forecast(monthly, accelerator="cpu"), forecast(monthly, devices=1,
                                                                                   accelerator="cpu", logger=False))


@pytest.mark.parametrize("shown, verbose, prints", [(True, False, True), (False, True, False), (None, True, True),
                                                    (None, False, False)])
def test_enable_progress_bar(monthly, capsys, shown, verbose, prints):
    model = NHITS(h=12, input_size=24, **SMALL) if shown is None else \
        NHITS(h=12, input_size=24, enable_progress_bar=shown, **SMALL)
    NeuralForecast(models=[model], freq="MS").fit(monthly, verbose=verbose)
    printed = capsys.readouterr()
    assert bool((printed.out + printed.err).strip()) == prints


def test_cross_validation_shows_its_trainings(monthly, capsys):
    """cross_validation(verbose=True), or a model's enable_progress_bar=True,
    prints each training's progress on stderr (which training, its windows,
    the rate, the ETA), as neuralforecast's Lightning bars do; the frame is
    the same as without it."""
    def cv(verbose, **kwargs):
        nf = NeuralForecast(models=[NHITS(h=12, input_size=24, **dict(SMALL, **kwargs))], freq="MS")
        return nf.cross_validation(monthly, n_windows=3, step_size=12, refit=2, verbose=verbose)
    quiet = cv(False)
    printed = capsys.readouterr()
    assert not (printed.out + printed.err).strip()
    shown = cv(True)
    printed = capsys.readouterr()
    pd.testing.assert_frame_equal(quiet, shown)
    assert not printed.out.strip()
    lines = printed.err.strip().splitlines()
    assert all(" steps/s, ETA " in line for line in lines), lines
    assert any(line.startswith("NHITS: cross-validation training 1/2 (windows 1-2 of 3): step 20/20,")
               for line in lines), lines
    assert any(line.startswith("NHITS: cross-validation training 2/2 (window 3 of 3): step 20/20,") for line in lines)
    assert any("training 1/2" in line and "(all " in line for line in lines)   # the ETA of the trainings left
    pd.testing.assert_frame_equal(quiet, cv(False, enable_progress_bar=True))
    assert "cross-validation training 2/2" in capsys.readouterr().err


def test_fit_progress_on_stderr(monthly, capsys):
    nf = NeuralForecast(models=[NHITS(h=12, input_size=24, **SMALL)], freq="MS")
    nf.fit(monthly, verbose=True)
    printed = capsys.readouterr()
    assert not printed.out.strip()
    assert printed.err.strip().splitlines()[-1].startswith("NHITS: step 20/20, train loss ")
    assert " steps/s, ETA 0.0s" in printed.err.strip().splitlines()[-1]


class Adam:   # stands for torch.optim.Adam, which these tests do not import: fcast checks the class's name
    pass


class AdamW:
    pass


class SGD:
    pass


def test_adam_and_adamw_mapped_others_refused():
    NHITS(h=12, input_size=24, optimizer=Adam, optimizer_kwargs={"lr": 0.1, "betas": [0.9, 0.999], "eps": 1e-8})
    NHITS(h=12, input_size=24, optimizer_kwargs={"weight_decay": 0.1})   # neuralforecast ignores it without optimizer
    settings = lambda **kw: dict(NHITS(h=12, input_size=24, **kw)._settings())   # noqa: E731
    assert "optimizer" not in settings(optimizer=Adam) and "weight-decay" not in settings(optimizer=Adam)
    assert settings(optimizer=AdamW)["optimizer"] == "adamw" and "weight-decay" not in settings(optimizer=AdamW)
    assert settings(optimizer=AdamW, optimizer_kwargs={"weight_decay": 0.05})["weight-decay"] == "0.05"
    assert settings(optimizer=Adam, optimizer_kwargs={"weight_decay": 0.01})["weight-decay"] == "0.01"
    for optimizer, kwargs in ((SGD, None), (Adam, {"amsgrad": True}), (AdamW, {"betas": (0.8, 0.9)})):
        with pytest.raises(NotImplementedError, match="fcast trains with torch.optim.Adam or AdamW"):
            NHITS(h=12, input_size=24, optimizer=optimizer, optimizer_kwargs=kwargs)


def test_adamw_trains_another_model_and_saves(monthly, tmp_path):
    """AdamW's decoupled decay changes the model; Adam with weight_decay 0
    is the default Adam; save and load keep the optimizer."""
    default = forecast(monthly)
    assert np.array_equal(default, forecast(monthly, optimizer=Adam, optimizer_kwargs={"weight_decay": 0}))
    assert not np.allclose(default, forecast(monthly, optimizer=AdamW, optimizer_kwargs={"weight_decay": 0.5}))
    nf = NeuralForecast(models=[NHITS(h=12, input_size=24, optimizer=AdamW, **SMALL)], freq="MS")
    nf.fit(monthly)
    nf.save(str(tmp_path / "m"))
    loaded = NeuralForecast.load(str(tmp_path / "m")).models[0]
    assert dict(loaded._settings())["optimizer"] == "adamw"


def test_drop_last_loader_is_drop_last(monthly):
    """drop_last_loader=True skips each epoch's short last batch of series
    (4 series in batches of 3: the 4th of every epoch's order): another
    model than without it; fewer series than batch_size is refused, as
    neuralforecast's loader would yield no batch to train on."""
    assert dict(NHITS(h=12, input_size=24, drop_last_loader=True)._settings())["drop-last"] == "on"
    assert "drop-last" not in dict(NHITS(h=12, input_size=24)._settings())
    kept, dropped = forecast(monthly, batch_size=3), forecast(monthly, batch_size=3, drop_last_loader=True)
    assert not np.allclose(kept, dropped)
    with pytest.raises(Exception, match="drop_last_loader with batch_size 5 and 4 series"):
        forecast(monthly, batch_size=5, drop_last_loader=True)


def test_start_padding_enabled_is_start_padding(monthly, cli, fcast_bin, tmp_path):
    """start_padding_enabled=True pads input_size - 1 zeros before every
    series (the C key start-padding): series shorter than input_size train,
    as in neuralforecast, which refuses them without it; the forecast is
    the CLI's `fcast train --start-padding` model's."""
    assert dict(NHITS(h=6, input_size=24, start_padding_enabled=True)._settings())["start-padding"] == "on"
    assert "start-padding" not in dict(NHITS(h=6, input_size=24)._settings())
    short = monthly.groupby("unique_id").head(20).reset_index(drop=True)   # 20 points, input_size 24
    with pytest.raises(ValueError, match="fewer than input_size 24: .*start_padding_enabled"):
        NeuralForecast(models=[NHITS(h=6, input_size=24, **SMALL)], freq="MS").fit(short)
    nf = NeuralForecast(models=[NHITS(h=6, input_size=24, start_padding_enabled=True, **SMALL)], freq="MS")
    nf.fit(short)
    ours = nf.predict()
    assert len(ours) == 4 * 6 and np.isfinite(ours["NHITS"]).all()
    data, out = tmp_path / "short.csv", tmp_path / "padded.safetensors"
    short.to_csv(data, index=False)
    subprocess.run([fcast_bin, "train", "--model", "nhits", "--h", "6", "--input-size", "24", "--max-steps", "20",
                    "--windows-batch-size", "128", "--mlp-units", "64:64,64:64,64:64", "--start-padding",
                    "--freq", "MS", "--data", str(data), "--out", str(out), "--device", "cpu"],
                   check=True, capture_output=True)
    theirs = cli(out, short)
    assert list(theirs["unique_id"]) == list(ours["unique_id"])
    np.testing.assert_allclose(ours["NHITS"].to_numpy(), theirs["NHITS"].to_numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name, value, words", [
    ("gradient_clip_algorithm", "value", "gradient norm only"), ("pooling_mode", "AvgPool1d", "MaxPool1d only")])
def test_fixed_arguments_say_why(name, value, words):
    with pytest.raises(NotImplementedError, match=f"{name}.*{words}"):
        NHITS(h=12, input_size=24, **{name: value})
    from fcast.models import NBEATS
    with pytest.raises(NotImplementedError, match="dropout_prob_theta.*NBEATS has no dropout either"):
        NBEATS(h=12, input_size=24, dropout_prob_theta=0.1)


def test_interpolation_mode(monthly, tmp_path):
    """interpolation_mode='nearest' trains N-HiTS with nearest knots (other
    forecasts than linear's from the same seed), and a saved model loads
    back nearest (the key in its file); 'cubic' trains too, and is refused
    with several outputs, as neuralforecast refuses it."""
    nf = NeuralForecast(models=[NHITS(h=12, input_size=24, interpolation_mode="nearest", **SMALL)], freq="MS")
    nf.fit(monthly)
    nearest = nf.predict()["NHITS"].to_numpy()
    assert not np.allclose(nearest, forecast(monthly, interpolation_mode="linear"))
    nf.save(tmp_path / "nf")
    again = NeuralForecast.load(tmp_path / "nf").predict(df=monthly)["NHITS"].to_numpy()
    np.testing.assert_array_equal(again, nearest)
    cubic = forecast(monthly, interpolation_mode="cubic")
    assert np.isfinite(cubic).all() and not np.allclose(cubic, nearest)
    from fcast.losses.pytorch import MQLoss
    with pytest.raises(ValueError, match="cubic interpolation is not available with multiple outputs"):
        NHITS(h=12, input_size=24, interpolation_mode="cubic", loss=MQLoss(level=[80]))
    with pytest.raises(ValueError, match="expected linear, nearest or cubic"):
        NHITS(h=12, input_size=24, interpolation_mode="spline")


def without_run_record(data):
    """A safetensors file's bytes less its metadata's run_config (the
    arguments the run was given, as given)."""
    import json
    import struct
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    header["__metadata__"].pop("run_config")
    return header, data[8 + n:]


def test_dropout_prob_theta(monthly, tmp_path):
    """dropout_prob_theta=0 saves the model of a model without it (the same
    tensors and config; only the run's record of given arguments names it),
    and no file without it mentions dropout; p > 0
    changes training (other forecasts from the same seed) and the saved
    model predicts again the same forecasts (no dropout out of training)."""
    files = []
    for kwargs in ({}, {"dropout_prob_theta": 0.0}, {"dropout_prob_theta": 0.3}):
        nf = NeuralForecast(models=[NHITS(h=12, input_size=24, **SMALL, **kwargs)], freq="MS")
        nf.fit(monthly)
        path = tmp_path / str(len(files))
        nf.save(path)
        files.append(((path / "NHITS_0.safetensors").read_bytes(), nf.predict()["NHITS"].to_numpy(), path))
    assert without_run_record(files[0][0]) == without_run_record(files[1][0])
    assert b"dropout" not in files[0][0]
    assert not np.allclose(files[2][1], files[0][1])
    again = NeuralForecast.load(files[2][2]).predict(df=monthly)["NHITS"].to_numpy()
    np.testing.assert_array_equal(again, files[2][1])
    np.testing.assert_array_equal(NeuralForecast.load(files[2][2]).predict(df=monthly)["NHITS"].to_numpy(), again)


def test_valid_loss_is_the_c_valid_loss_key(monthly):
    """valid_loss: a point loss without parameters is the C API's valid-loss
    (a DistributionLoss model scored on its mean, as neuralforecast's); the
    training loss itself adds nothing; others are refused saying why, and a
    point valid_loss of a multi-quantile model is refused as neuralforecast
    refuses it."""
    from fcast import NeuralForecast
    from fcast.losses.pytorch import MAE, MSE, DistributionLoss, MQLoss, QuantileLoss
    from fcast.models import MLP
    assert ("valid-loss", "mse") in MLP(h=6, input_size=12, valid_loss=MSE())._settings()
    assert not any(k == "valid-loss" for k, _ in MLP(h=6, input_size=12, valid_loss=MAE())._settings())
    with pytest.raises(NotImplementedError, match="point loss without parameters"):
        MLP(h=6, input_size=12, valid_loss=QuantileLoss(0.9))
    nf = NeuralForecast(models=[MLP(h=6, input_size=12, hidden_size=16, num_layers=1, max_steps=4, val_check_steps=4,
                                    loss=DistributionLoss("Normal"), valid_loss=MAE())], freq="MS")
    nf.fit(monthly, val_size=6)
    assert nf.predict().shape[0] == 4 * 6
    with pytest.raises(ValueError, match="validated with its own loss"):   # when the model is made
        MLP(h=6, input_size=12, max_steps=2, loss=MQLoss(), valid_loss=MAE())


def _torch_like(name):
    """A class named as torch's scheduler (fcast reads the name; CI has no torch)."""
    return type(name, (), {})


@pytest.mark.parametrize("scheduler, kwargs, flags", [
    ("CosineAnnealingLR", {"T_max": 20, "eta_min": 1e-5}, ["--lr-scheduler", "cosine", "--lr-t-max", "20",
                                                           "--lr-eta-min", "1e-05"]),
    ("ExponentialLR", {"gamma": 0.9}, ["--lr-scheduler", "exponential", "--lr-gamma", "0.9"]),
    ("StepLR", {"step_size": 5}, ["--lr-step-size", "5", "--lr-gamma", "0.1"]),   # torch's gamma 0.1
])
def test_lr_scheduler_trains_as_the_cli(monthly, cli, fcast_bin, tmp_path, scheduler, kwargs, flags):
    """lr_scheduler and lr_scheduler_kwargs (stepped every step, as
    neuralforecast's) train the CLI's model with the matching flags, and
    another model than the default StepLR's."""
    nf = NeuralForecast(models=[NHITS(h=12, input_size=24, lr_scheduler=_torch_like(scheduler),
                                      lr_scheduler_kwargs=kwargs, **SMALL)], freq="MS")
    nf.fit(monthly)
    ours = nf.predict()["NHITS"].to_numpy()
    out = tmp_path / "s.safetensors"
    subprocess.run([fcast_bin, "train", "--model", "nhits", "--h", "12", "--input-size", "24", "--max-steps", "20",
                    "--windows-batch-size", "128", "--mlp-units", "64:64,64:64,64:64", "--freq", "MS", "--data",
                    MONTHLY, "--out", str(out), "--device", "cpu"] + flags, check=True, capture_output=True)
    np.testing.assert_allclose(ours, cli(out, monthly)["NHITS"].to_numpy(), rtol=1e-6, atol=1e-6)
    assert np.abs(ours - forecast(monthly)).max() > 1e-4


def test_other_lr_schedulers_are_refused():
    with pytest.raises(NotImplementedError, match="StepLR, CosineAnnealingLR and ExponentialLR"):
        NHITS(h=12, input_size=24, lr_scheduler=_torch_like("OneCycleLR"), lr_scheduler_kwargs={"max_lr": 0.1})
    with pytest.raises(NotImplementedError, match="needs T_max"):
        NHITS(h=12, input_size=24, lr_scheduler=_torch_like("CosineAnnealingLR"))
    with pytest.raises(NotImplementedError, match="without an lr_scheduler"):
        NHITS(h=12, input_size=24, lr_scheduler_kwargs={"gamma": 0.5})
