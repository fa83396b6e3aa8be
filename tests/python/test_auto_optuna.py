"""fcast.auto's backend='optuna' with the real optuna (skipped where it is
not installed, as in CI: test_auto.py drives a stand-in module there). The
study is neuralforecast 3.3.0's (create_study(sampler, direction=
'minimize')), driven by ask and tell; the config function gets optuna's
own trials."""
import pytest

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")
optuna = pytest.importorskip("optuna")

from fcast import NeuralForecast  # noqa: E402
from fcast.auto import AutoMLP, AutoNHITS, _model_arguments  # noqa: E402
from fcast.models import NHITS  # noqa: E402

H = 4
_FIXED = {"max_steps": 5, "val_check_steps": 5, "mlp_units": [[8, 8]] * 3, "windows_batch_size": 64}


def config(trial):
    return dict(_FIXED, input_size=trial.suggest_categorical("input_size", [4, 8, 12]),
                learning_rate=trial.suggest_float("learning_rate", 1e-3, 3e-2, log=True),
                random_seed=trial.suggest_int("random_seed", 1, 20))


def search(panel, **kwargs):
    auto = AutoNHITS(h=H, config=config, backend="optuna", **kwargs)
    nf = NeuralForecast(models=[auto], freq="MS")
    nf.fit(panel)
    return auto, nf


def test_the_study_is_told_every_score_and_the_best_is_kept(panel):
    auto, nf = search(panel, num_samples=4)
    study = auto.study
    assert isinstance(study, optuna.Study) and isinstance(study.sampler, optuna.samplers.TPESampler)
    assert study.direction == optuna.study.StudyDirection.MINIMIZE
    trials = study.trials
    assert [t.state for t in trials] == [optuna.trial.TrialState.COMPLETE] * 4
    assert [t.value for t in trials] == auto.results["loss"].to_list()
    for trial, (_, row) in zip(trials, auto.results.iterrows()):
        assert trial.params == {k: row[f"config/{k}"] for k in ("input_size", "learning_rate", "random_seed")}
    assert study.best_trial.number == int(auto.results["loss"].idxmin())
    assert study.best_trial.user_attrs["ALL_PARAMS"] == auto.best_config   # neuralforecast's user_attrs
    assert study.best_trial.user_attrs["METRICS"]["loss"] == study.best_value
    alone = NeuralForecast(models=[NHITS(h=H, **auto.best_config)], freq="MS")
    alone.fit(panel)
    np.testing.assert_array_equal(nf.predict()["AutoNHITS"].to_numpy(), alone.predict()["NHITS"].to_numpy())


def test_default_sampler_is_seeded_tpe(panel):
    """search_alg None: TPESampler(seed=1), so that a script's trials are
    the same at every run (neuralforecast's default TPESampler is unseeded)."""
    first, _ = search(panel, num_samples=3)
    again, _ = search(panel, num_samples=3)
    pd.testing.assert_frame_equal(first.results.drop(columns="seconds"), again.results.drop(columns="seconds"))
    seeded, _ = search(panel, num_samples=3, search_alg=optuna.samplers.TPESampler(seed=1))
    pd.testing.assert_frame_equal(first.results.drop(columns="seconds"), seeded.results.drop(columns="seconds"))


def test_a_given_sampler_draws_the_trials(panel):
    """Any optuna sampler is used as given: RandomSampler(seed=3)'s draws
    (which do not depend on the scores) are those of a study of that sampler
    asked the same suggestions; the sampler is copied, so a second fit draws
    them again."""
    sampler = optuna.samplers.RandomSampler(seed=3)
    auto = AutoNHITS(h=H, config=config, backend="optuna", num_samples=3, search_alg=sampler)
    nf = NeuralForecast(models=[auto], freq="MS")
    nf.fit(panel)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=3))
    expected = []
    for _ in range(3):
        trial = study.ask()
        config(trial)
        expected.append(trial.params)
        study.tell(trial, 1.0)
    assert [t.params for t in auto.study.trials] == expected
    first = auto.results.drop(columns="seconds")
    nf.fit(panel)
    pd.testing.assert_frame_equal(auto.results.drop(columns="seconds"), first)
    tpe = optuna.samplers.TPESampler(seed=2, n_startup_trials=2)   # trials 3 and 4 from the told scores
    guided, _ = search(panel, num_samples=4, search_alg=tpe)
    assert len(guided.study.trials) == 4 and guided.results["loss"].notna().all()


@pytest.mark.filterwarnings("ignore:Choices for a categorical distribution")   # lists: neuralforecast's too
def test_default_configs_take_optuna_trials():
    """neuralforecast's default_config as its _ray_config_to_optuna makes it
    (randint through suggest_int, inclusive; quniform with a step), drawn by
    optuna's trials, makes fcast models."""
    for cls in (AutoNHITS, AutoMLP):
        config_f = cls.get_default_config(H, "optuna")
        study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
        for _ in range(20):
            trial = study.ask()
            values = config_f(trial)
            assert 1 <= values["random_seed"] <= 20 and values["input_size"] in [H * m for m in range(1, 6)]
            cls._cls(h=H, **_model_arguments(values))
            study.tell(trial, 1.0)
