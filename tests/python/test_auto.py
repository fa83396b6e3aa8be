"""fcast.auto: neuralforecast's Auto models, searched without ray, and
with optuna when it is installed (test_auto_optuna.py runs the real one)."""
import sys
import types
import warnings

import numpy as np
import pandas as pd
import pytest

import fcast.auto as auto_module
from fcast import NeuralForecast
from fcast._space import Trial, resolve
from fcast.auto import (AutoLSTM, AutoMLP, AutoNBEATS, AutoNBEATSx, AutoNHITS, AutoPatchTST, AutoTiDE,
                        _model_arguments, tune)
from fcast.models import NHITS

H = 4
# tiny trials: one validation check at the last step, so best = last loss
_FIXED = {"max_steps": 5, "val_check_steps": 5, "mlp_units": [[8, 8]] * 3, "windows_batch_size": 64}


def _validation_loss(df, values):
    """A configuration's validation loss computed here: with val_size = h
    the one validation window per series is its last h points, forecast
    from the points before by the model trained with them held out."""
    nf = NeuralForecast(models=[NHITS(h=H, **values)], freq="MS")
    nf.fit(df, val_size=H)
    history = df.groupby("unique_id").head(len(df) // 3 - H)
    forecast = nf.predict(df=history)
    actual = df.groupby("unique_id").tail(H)
    return float(np.mean(np.abs(forecast["NHITS"].to_numpy() - actual["y"].to_numpy())))


def test_auto_nhits_picks_the_lowest_validation_loss(panel):
    config = dict(_FIXED, input_size=tune.choice([4, 8, 12]), learning_rate=tune.loguniform(1e-3, 3e-2),
                  random_seed=tune.randint(1, 20))
    auto = AutoNHITS(h=H, config=config, num_samples=3)
    nf = NeuralForecast(models=[auto], freq="MS")
    nf.fit(panel)
    forecast = nf.predict()
    assert list(forecast.columns) == ["unique_id", "ds", "AutoNHITS"] and len(forecast) == 3 * H
    results = auto.results
    assert len(results) == 3 and results["loss"].notna().all()
    rescored = []
    for _, row in results.iterrows():
        values = {k[len("config/"):]: v for k, v in row.items() if k.startswith("config/")}
        values = {k: int(v) if isinstance(v, np.integer) else v for k, v in values.items()}
        rescored.append(_validation_loss(panel, values))
    np.testing.assert_allclose(rescored, results["loss"], rtol=1e-4)
    best = int(np.argmin(rescored))
    assert auto.best_config["input_size"] == results["config/input_size"][best]
    assert auto.best_config["learning_rate"] == results["config/learning_rate"][best]


# neuralforecast 3.3.0's default_config spaces, copied from neuralforecast/auto.py
# (AutoNHITS, AutoMLP, AutoLSTM, AutoPatchTST): choices as lists, ranges as (low, high) inclusive
_NF_SPACES = {
    AutoNHITS: {"input_size": [H * m for m in [1, 2, 3, 4, 5]], "step_size": [1, H],
                "n_pool_kernel_size": [[2, 2, 1], [1, 1, 1], [2, 2, 2], [4, 4, 4], [8, 4, 1], [16, 8, 1]],
                "n_freq_downsample": [[168, 24, 1], [24, 12, 1], [180, 60, 1], [60, 8, 1], [40, 20, 1], [1, 1, 1]],
                "learning_rate": (1e-4, 1e-1), "scaler_type": [None, "robust", "standard"],
                "max_steps": list(range(500, 1501, 100)), "batch_size": [32, 64, 128, 256],
                "windows_batch_size": [128, 256, 512, 1024], "random_seed": list(range(1, 20))},
    AutoMLP: {"input_size": [H * m for m in [1, 2, 3, 4, 5]], "step_size": [1, H], "hidden_size": [256, 512, 1024],
              "num_layers": [2, 3, 4, 5], "learning_rate": (1e-4, 1e-1), "scaler_type": [None, "robust", "standard"],
              "max_steps": [500, 1000], "batch_size": [32, 64, 128, 256], "windows_batch_size": [128, 256, 512, 1024],
              "random_seed": list(range(1, 20))},
    AutoLSTM: {"input_size": [H * m for m in [-1, 4, 16, 64]], "inference_input_size": [-H],
               "encoder_hidden_size": [16, 32, 64, 128], "encoder_n_layers": [1, 2, 3], "context_size": [5, 10, 50],
               "decoder_hidden_size": [16, 32, 64, 128], "learning_rate": (1e-4, 1e-1), "max_steps": [500, 1000],
               "batch_size": [16, 32], "random_seed": list(range(1, 20))},
    AutoPatchTST: {"input_size": [H * m for m in [1, 2, 3]], "step_size": [1, H], "hidden_size": [16, 128, 256],
                   "n_heads": [4, 16], "patch_len": [16, 24], "learning_rate": (1e-4, 1e-1),
                   "scaler_type": [None, "robust", "standard"], "revin": [False, True], "max_steps": [500, 1000, 5000],
                   "batch_size": [32, 64, 128, 256], "windows_batch_size": [128, 256, 512, 1024],
                   "random_seed": list(range(1, 20))},
}


def _inside(value, space):
    if isinstance(space, tuple):
        return space[0] <= value <= space[1]
    return value in space


@pytest.mark.filterwarnings("ignore:Input size too small")   # AutoLSTM's -h, as neuralforecast warns too
@pytest.mark.parametrize("cls", list(_NF_SPACES), ids=lambda c: c.__name__)
def test_default_config_draws_lie_in_neuralforecast_spaces(cls):
    space = _NF_SPACES[cls]
    rng = np.random.default_rng(5)
    for number in range(40):
        values = resolve(cls.get_default_config(H, "ray"), Trial(number, rng))
        assert set(values) == set(space)
        for name, value in values.items():
            assert _inside(value, space[name]), (name, value)
        cls._cls(h=H, **_model_arguments(values))   # and fcast's model takes every draw


def test_optuna_default_config_draws_randint_inclusive():
    """neuralforecast's _ray_config_to_optuna calls suggest_int(lower, upper):
    under optuna randint(1, 20) draws 20 too, under ray it never does."""
    rng = np.random.default_rng(1)
    seeds = {AutoNHITS.get_default_config(H, "optuna")(Trial(n, rng))["random_seed"] for n in range(400)}
    assert seeds == set(range(1, 21))
    ray = {resolve(AutoNHITS.get_default_config(H, "ray"), Trial(n, rng))["random_seed"] for n in range(400)}
    assert ray == set(range(1, 20))


@pytest.mark.parametrize("cls", [AutoNBEATS, AutoNBEATSx, AutoTiDE], ids=lambda c: c.__name__)
def test_other_default_configs_make_fcast_models(cls):
    rng = np.random.default_rng(2)
    for number in range(20):
        cls._cls(h=H, **_model_arguments(resolve(cls.get_default_config(H, "ray"), Trial(number, rng))))


def test_callable_config_runs_without_optuna(panel, monkeypatch):
    """backend='optuna' without optuna installed: fcast's random search, and
    a warning that says so, once."""
    monkeypatch.setitem(sys.modules, "optuna", None)   # `import optuna` raises ImportError
    monkeypatch.setattr(auto_module, "_warned", set())

    def config(trial):
        assert isinstance(trial, Trial)
        return dict(_FIXED, input_size=trial.suggest_categorical("input_size", [4, 8]),
                    learning_rate=trial.suggest_float("learning_rate", 1e-3, 1e-2, log=True),
                    random_seed=trial.suggest_int("random_seed", 1, 3))
    auto = AutoNHITS(h=H, config=config, num_samples=2, backend="optuna", alias="tuned")
    nf = NeuralForecast(models=[auto], freq="MS")
    with pytest.warns(UserWarning, match="optuna is not installed.*at random"):
        nf.fit(panel, val_size=8)
    assert list(nf.predict().columns) == ["unique_id", "ds", "tuned"]
    assert len(auto.results) == 2 and auto.study is None
    assert auto.results["config/input_size"].isin([4, 8]).all()
    assert auto.results["config/learning_rate"].between(1e-3, 1e-2).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = AutoNHITS(h=H, config=config, num_samples=2, backend="optuna")
        NeuralForecast(models=[again], freq="MS").fit(panel, val_size=8)   # warned once
    pd.testing.assert_frame_equal(again.results.drop(columns="seconds"), auto.results.drop(columns="seconds"))


def _stand_in_optuna():
    """A module standing for optuna (CI has none): create_study, a study's
    ask and tell, samplers.TPESampler and RandomSampler, trial.TrialState;
    every call recorded in `calls`. Its trials draw choice number % len."""
    calls = []

    class BaseSampler:
        def __init__(self, seed=None):
            self.seed = seed
            calls.append((type(self).__name__, seed))

    class TPESampler(BaseSampler):
        pass

    class RandomSampler(BaseSampler):
        pass

    class StandInTrial:
        def __init__(self, number):
            self.number, self.params, self.user_attrs = number, {}, {}

        def suggest_categorical(self, name, choices):
            self.params[name] = list(choices)[self.number % len(choices)]
            return self.params[name]

        def suggest_float(self, name, low, high, step=None, log=False):
            self.params[name] = low + (high - low) * self.number / 4
            return self.params[name]

        def suggest_int(self, name, low, high, step=1, log=False):
            self.params[name] = low + self.number % (high - low + 1)
            return self.params[name]

        def set_user_attr(self, key, value):
            self.user_attrs[key] = value

    class Study:
        def __init__(self, sampler, direction):
            self.sampler, self.direction, self.trials = sampler, direction, []

        def ask(self):
            self.trials.append(StandInTrial(len(self.trials)))
            calls.append(("ask", self.trials[-1].number))
            return self.trials[-1]

        def tell(self, trial, values=None, state=None):
            calls.append(("tell", trial.number, values, state))

    def create_study(sampler=None, direction=None):
        calls.append(("create_study", type(sampler).__name__, getattr(sampler, "seed", None), direction))
        return Study(sampler, direction)

    module = types.ModuleType("optuna")
    module.create_study = create_study
    module.samplers = types.SimpleNamespace(BaseSampler=BaseSampler, TPESampler=TPESampler,
                                            RandomSampler=RandomSampler)
    module.trial = types.SimpleNamespace(TrialState=types.SimpleNamespace(COMPLETE="COMPLETE", FAIL="FAIL"))
    return module, calls


def test_backend_optuna_drives_optuna_by_ask_and_tell(panel, monkeypatch):
    """With optuna importable, backend='optuna' makes neuralforecast's study
    (create_study(sampler, direction='minimize'); None: TPESampler, seeded
    1 here), asks it for each trial, calls config with optuna's trial,
    trains and scores it as fcast does, tells the score, and keeps the
    trial of the lowest score told."""
    optuna, calls = _stand_in_optuna()
    monkeypatch.setitem(sys.modules, "optuna", optuna)
    given = []

    def config(trial):
        given.append(trial)
        return dict(_FIXED, input_size=trial.suggest_categorical("input_size", [4, 8, 12]),
                    learning_rate=trial.suggest_float("learning_rate", 1e-3, 2e-2), random_seed=7)
    auto = AutoNHITS(h=H, config=config, num_samples=3, backend="optuna")
    nf = NeuralForecast(models=[auto], freq="MS")
    nf.fit(panel)
    assert calls[0] == ("TPESampler", 1) and calls[1] == ("create_study", "TPESampler", 1, "minimize")
    told = [c for c in calls if c[0] == "tell"]
    assert [c[0] for c in calls[2:]] == ["ask", "tell"] * 3 and [c[1] for c in told] == [0, 1, 2]
    asked = [t for t in given if not isinstance(t, Trial)]   # less the constructor's probe (neuralforecast's MockTrial)
    assert asked == auto.study.trials   # config was called with the study's own trials
    losses = auto.results["loss"].to_list()
    assert [c[2] for c in told] == losses and all(c[3] is None for c in told)
    best = int(np.argmin(losses))
    assert auto.best_config["input_size"] == [4, 8, 12][best]
    assert auto.best_config["learning_rate"] == asked[best].params["learning_rate"]
    assert asked[best].user_attrs["ALL_PARAMS"] == auto.best_config
    assert asked[best].user_attrs["METRICS"]["loss"] == losses[best]
    # the refit is the best trial's model: the same forecasts as that configuration fit alone
    alone = NeuralForecast(models=[NHITS(h=H, **auto.best_config)], freq="MS")
    alone.fit(panel)
    np.testing.assert_array_equal(nf.predict()["AutoNHITS"].to_numpy(), alone.predict()["NHITS"].to_numpy())

    # a given sampler is used (a copy per fit, as neuralforecast deep-copies it), any optuna sampler
    calls.clear()
    sampler = optuna.samplers.RandomSampler(seed=5)
    searched = AutoNHITS(h=H, config=config, num_samples=1, backend="optuna", search_alg=sampler)
    NeuralForecast(models=[searched], freq="MS").fit(panel)
    assert ("create_study", "RandomSampler", 5, "minimize") in calls and searched.study.sampler is not sampler
    # a trial without a validation loss is told failed
    calls.clear()
    study = optuna.create_study()
    trial = study.ask()
    AutoNHITS._tell(study, trial, {"loss": float("nan"), "train_loss": 1.0}, {})
    assert calls[-1] == ("tell", 0, None, "FAIL")
    with pytest.raises(NotImplementedError, match="HyperOptSearch with backend='optuna'"):
        AutoNHITS(h=H, config=config, backend="optuna", search_alg=type("HyperOptSearch", (), {})())


def test_refusals_name_the_argument():
    class TPESampler:   # stands for optuna.samplers.TPESampler: refused by its name
        pass
    with pytest.raises(NotImplementedError, match="TPESampler"):
        AutoNHITS(h=H, search_alg=TPESampler())
    with pytest.raises(NotImplementedError, match="callbacks"):
        AutoNHITS(h=H, callbacks=[print])
    with pytest.raises(ValueError, match="Unknown backend"):
        AutoNHITS(h=H, backend="hyperopt")
    with pytest.raises(ValueError, match="dict"):
        AutoNHITS(h=H, config=lambda trial: {}, backend="ray")
    with pytest.raises(Exception, match="`h` init argument"):
        AutoNHITS(h=H, config={"h": 8, "input_size": 8})


def test_cross_validation_searches_before_the_windows(panel):
    """The search sees no cross-validation point: the same search on the
    panel without its last 2 h points picks the same trials' losses."""
    config = dict(_FIXED, input_size=tune.choice([4, 8]), random_seed=tune.randint(1, 20))
    auto = AutoNHITS(h=H, config=config, num_samples=2)
    cv = NeuralForecast(models=[auto], freq="MS").cross_validation(panel, n_windows=2, step_size=H)
    assert list(cv.columns) == ["unique_id", "ds", "cutoff", "AutoNHITS", "y"] and len(cv) == 3 * 2 * H
    alone = AutoNHITS(h=H, config=config, num_samples=2)
    NeuralForecast(models=[alone], freq="MS").fit(panel.groupby("unique_id").head(48 - 2 * H))
    np.testing.assert_allclose(auto.results["loss"], alone.results["loss"], rtol=1e-6)


@pytest.mark.parametrize("refit", [True, 2])
def test_cross_validation_refit_with_a_fixed_config_is_the_model_refit(panel, refit):
    """refit with an Auto model of one configuration gives that model's
    refit cross-validation, window by window, beside other models."""
    fixed = dict(_FIXED, input_size=8, random_seed=3)
    auto = AutoNHITS(h=H, config=dict(fixed, learning_rate=tune.choice([1e-2])), num_samples=1)
    cv = NeuralForecast(models=[NHITS(h=H, learning_rate=1e-2, **fixed), auto], freq="MS").cross_validation(
        panel, n_windows=3, step_size=2, refit=refit)
    assert list(cv.columns) == ["unique_id", "ds", "cutoff", "NHITS", "AutoNHITS", "y"] and len(cv) == 3 * 3 * H
    alone = NeuralForecast(models=[NHITS(h=H, learning_rate=1e-2, **fixed)], freq="MS").cross_validation(
        panel, n_windows=3, step_size=2, refit=refit)
    pd.testing.assert_frame_equal(cv[["unique_id", "ds", "cutoff", "NHITS", "y"]], alone)
    np.testing.assert_array_equal(cv["AutoNHITS"].to_numpy(), cv["NHITS"].to_numpy())


def test_cross_validation_refit_searches_at_each_cutoff(panel):
    """As neuralforecast's cross_validation(refit=True) fits (so searches)
    at each window's cutoff: each window's forecasts are those of the Auto
    model fit on the series up to that cutoff, and the object is left with
    the last search (its results) and its best model."""
    config = dict(_FIXED, input_size=tune.choice([4, 8, 12]), learning_rate=tune.loguniform(1e-3, 3e-2),
                  random_seed=tune.randint(1, 20))
    auto = AutoNHITS(h=H, config=config, num_samples=3)
    nf = NeuralForecast(models=[auto], freq="MS")
    cv = nf.cross_validation(panel, n_windows=2, step_size=H, refit=True)
    assert list(cv.columns) == ["unique_id", "ds", "cutoff", "AutoNHITS", "y"] and len(cv) == 3 * 2 * H
    for window in range(2):
        alone = AutoNHITS(h=H, config=config, num_samples=3)
        fit = NeuralForecast(models=[alone], freq="MS")
        fit.fit(panel.groupby("unique_id").head(48 - (2 - window) * H))
        rows = cv[cv["cutoff"] == cv["cutoff"].unique()[window]]
        np.testing.assert_allclose(rows["AutoNHITS"].to_numpy(), fit.predict()["AutoNHITS"].to_numpy(), rtol=1e-6)
    np.testing.assert_allclose(auto.results["loss"], alone.results["loss"], rtol=1e-6)   # the last search's
    assert auto.best_config == alone.best_config
    np.testing.assert_allclose(nf.predict()["AutoNHITS"].to_numpy(), fit.predict()["AutoNHITS"].to_numpy(),
                               rtol=1e-6)
