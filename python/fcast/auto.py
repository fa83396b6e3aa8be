"""neuralforecast.auto's Auto models, searched by fcast: AutoNHITS,
AutoNBEATS, AutoNBEATSx, AutoMLP, AutoLSTM, AutoTiDE, AutoPatchTST.

As neuralforecast 3.3.0's BaseAuto (common/_base_auto.py): fit draws
num_samples configurations from `config`, trains the model of each with
the last val_size points of every series held out (fit's val_size, or h
when 0) and scores it by its validation loss; the best configuration is
then trained on all the data (refit_with_val=True, or an
early_stop_patience_steps in config: with val_size still held out) and
forecasts. The column is the class name (AutoNHITS) or alias.

The search, by backend:

* backend='optuna' with optuna installed: optuna's study, as
  neuralforecast's _optuna_tune_model makes it (create_study(sampler,
  direction="minimize")), driven by ask and tell: study.ask() gives the
  optuna Trial that `config(trial)` is called with, fcast trains and scores
  the trial, study.tell(trial, score) (a trial without a score: tell with
  state FAIL, as optuna fails an objective's NaN). search_alg is any optuna
  sampler, used as given (a copy per fit, as neuralforecast deep-copies
  it); None or ray's BasicVariantGenerator (neuralforecast's default)
  stand for optuna's default TPESampler, as in neuralforecast, but seeded
  1 (TPESampler(seed=1)) where neuralforecast's is unseeded, so that a
  script gives the same trials each run; "random" is RandomSampler(seed=1).
  The study is kept as `study`.
* otherwise (backend='ray'; or backend='optuna' without optuna
  installed, which a one-time warning says): random search, drawn with
  fcast's generator (_space.py), seed 1 as neuralforecast's default
  BasicVariantGenerator(random_state=1); ray is not needed. search_alg None, "random", ray's BasicVariantGenerator or
  optuna's RandomSampler search that way (their own seeds cannot be read:
  fcast's stream is not theirs anyway); TPE and the other searchers are
  refused by name (with optuna installed, backend='optuna' runs them).

Differences, on purpose:

* a trial's score is its best validation loss, the loss of the weights
  fcast keeps (docs/training.md: fcast keeps the best validated weights);
  neuralforecast reports its last check.
* results is a pandas DataFrame, a row per trial: trial, loss,
  train_loss, seconds and its values as config/<name> (the columns of
  ray's ResultGrid.get_dataframe()), not ray's ResultGrid or optuna's
  Study (under optuna, `study` is the Study, its trials with
  neuralforecast's user_attrs ALL_PARAMS and METRICS); best_config holds
  the chosen values.
"""
import copy
import time
import warnings

import numpy as np
import pandas as pd

from . import models
from ._report import train_report
from ._space import RandInt, Trial, _Domain, _from_ray, resolve, tune
from .core import _Training
from .losses.pytorch import MAE

__all__ = ["AutoNHITS", "AutoNBEATS", "AutoNBEATSx", "AutoMLP", "AutoLSTM", "AutoTiDE", "AutoPatchTST", "tune"]

_SEED = 1   # neuralforecast's default search_alg: BasicVariantGenerator(random_state=1)
_RANDOM = ("BasicVariantGenerator", "RandomSampler")   # ray's and optuna's random searchers

# neuralforecast's BaseAuto._train_tune casts these, tune's samplers giving floats
_INTEGERS = ("batch_size", "windows_batch_size", "max_steps")


_warned = set()   # the one-time warnings given ("no optuna")


def _optuna():
    """The optuna module when it can be imported, else None. Looked up at
    each use, not once at import, so that installing it (or a test's
    stand-in in sys.modules) takes effect."""
    try:
        import optuna
    except ImportError:
        return None
    return optuna


def _check_search_alg(search_alg):
    """Random search's searchers (fcast's own search, without optuna)."""
    name = type(search_alg).__name__
    if search_alg is None or (isinstance(search_alg, str) and search_alg == "random") or name in _RANDOM:
        return
    raise NotImplementedError(f"fcast: search_alg={name}: fcast's random search (backend='ray', or 'optuna' "
                              "without optuna installed) takes None, 'random', BasicVariantGenerator or "
                              "RandomSampler; backend='optuna' with optuna installed runs any optuna sampler "
                              "(TPESampler, ...); or use `fcast tune --sampler tpe` (docs/evaluation.md)")


def _sampler(optuna, search_alg, make=True):
    """The optuna sampler of search_alg, as neuralforecast's
    _optuna_tune_model picks it: an optuna sampler as given; anything else
    (its default BasicVariantGenerator, or None) optuna's default
    TPESampler, seeded here; fcast's "random", a seeded RandomSampler.
    Other searchers (ray's) are refused: neuralforecast would drop them
    for TPE unsaid. make=False: the check alone."""
    if isinstance(search_alg, optuna.samplers.BaseSampler):
        return search_alg
    if isinstance(search_alg, str) and search_alg == "random":
        return optuna.samplers.RandomSampler(seed=_SEED) if make else None
    if search_alg is None or type(search_alg).__name__ == "BasicVariantGenerator":
        return optuna.samplers.TPESampler(seed=_SEED) if make else None
    raise NotImplementedError(f"fcast: search_alg={type(search_alg).__name__} with backend='optuna': an optuna "
                              "sampler (optuna.samplers.TPESampler(), RandomSampler(), ...) or None (TPESampler)")


def _warn_once(key, message):
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, UserWarning, stacklevel=5)   # the user's fit or cross_validation


def _optuna_function(config):
    """A dict space as neuralforecast's _ray_config_to_optuna makes it: the
    same draws, but randint through suggest_int(lower, upper), which
    includes upper (randint(1, 20) draws 1..20 under optuna, 1..19 under ray)."""
    def config_f(trial):
        values = {}
        for name, value in config.items():
            domain = value if isinstance(value, _Domain) else _from_ray(value)
            if isinstance(domain, RandInt):
                values[name] = trial.suggest_int(name, domain.lower, domain.upper)
            else:
                values[name] = value if domain is None else domain.suggest(trial, name)
        return values
    return config_f


def _multipliers(values, h, trial):
    """neuralforecast's _translate_input_size_multipliers: input_size_multiplier
    (and inference_input_size_multiplier) as h times one of them."""
    for key, size in (("input_size_multiplier", "input_size"),
                      ("inference_input_size_multiplier", "inference_input_size")):
        if key in values:
            multipliers = values.pop(key)
            if size not in values:
                values[size] = (trial.suggest_categorical(size, [h * m for m in multipliers])
                                if isinstance(multipliers, (list, tuple)) else h * multipliers)
    return values


def _model_arguments(values):
    """A trial's values as fcast's constructor takes them: integral floats
    of the integer arguments as int, scaler_type None as identity
    (neuralforecast's None scales nothing), inference_input_size < 1 as
    None (neuralforecast's BaseModel reads both as input_size)."""
    values = dict(values)
    for name in _INTEGERS:
        if isinstance(values.get(name), float) and values[name].is_integer():
            values[name] = int(values[name])
    if "scaler_type" in values and values["scaler_type"] is None:
        values["scaler_type"] = "identity"
    if values.get("inference_input_size") is not None and values["inference_input_size"] < 1:
        values["inference_input_size"] = None
    return values


class BaseAuto:
    """neuralforecast's BaseAuto over an fcast model class (_cls)."""

    _cls = None
    default_config = {}

    def __init__(self, h, loss=MAE(), valid_loss=None, config=None, search_alg=None, num_samples=10,
                 time_budget=None, refit_with_val=False, cpus=None, gpus=None, verbose=False, alias=None,
                 backend="ray", callbacks=None, ray_options=None, optuna_options=None):
        if backend not in ("ray", "optuna"):
            raise ValueError(f"Unknown backend {backend}. The supported backends are 'ray' and 'optuna'.")
        if callbacks is not None:
            raise NotImplementedError("fcast: callbacks: fcast's search runs no ray or optuna callbacks "
                                      "(verbose=True prints each trial; results holds them all)")
        optuna = _optuna() if backend == "optuna" else None
        if optuna is not None:
            _sampler(optuna, search_alg, make=False)   # refused now, not at fit
        else:
            _check_search_alg(search_alg)
        self._check_options(ray_options, optuna_options)
        config = self.get_default_config(h, backend) if config is None else config
        if backend == "ray" and not isinstance(config, dict):
            raise ValueError("You have to provide a dict as `config` when using `backend='ray'`")
        if backend == "optuna" and not callable(config):
            raise ValueError("You have to provide a function that takes a trial and returns a dict as `config` "
                             "when using `backend='optuna'`")
        self.h, self.loss, self.valid_loss, self.config = h, loss, valid_loss, config
        self.search_alg, self.num_samples, self.time_budget = search_alg, num_samples, time_budget
        self.verbose, self.alias, self.backend = verbose, alias, backend
        self.cpus, self.gpus = cpus, gpus   # cpus: fcast runs one trial at a time, on its threads
        probe = self._values(Trial(-1, np.random.default_rng(0)))   # fixed values, as neuralforecast's MockTrial
        self.refit_with_val = refit_with_val or "early_stop_patience_steps" in probe
        self.futr_exog_list, self.hist_exog_list, self.stat_exog_list = (
            list(probe.get(k) or []) for k in ("futr_exog_list", "hist_exog_list", "stat_exog_list"))
        self.model, self.results, self.study = None, None, None

    def _check_options(self, ray_options, optuna_options):
        """ray_options' cpus and gpus are the old arguments'; what changes a
        ray or optuna run (schedulers, study arguments) is refused."""
        if ray_options is not None:
            for name in ("run_config", "scheduler"):
                if getattr(ray_options, name, None) is not None:
                    raise NotImplementedError(f"fcast: ray_options.{name}: fcast's search runs without ray")
        if optuna_options is not None and any(vars(optuna_options).values()):
            raise NotImplementedError("fcast: optuna_options: fcast makes the study itself (create_study with the "
                                      "sampler and direction='minimize', then ask and tell); study and create_study "
                                      "arguments are not supported")
        self._ray_gpus = getattr(ray_options, "gpus", None)

    @classmethod
    def get_default_config(cls, h, backend, n_series=None):
        """neuralforecast's: input_size as h times each multiplier, step_size
        1 or h (inference_input_size for LSTM), a function of a trial for optuna."""
        config = dict(cls.default_config)
        config["input_size"] = tune.choice([h * x for x in config.pop("input_size_multiplier")])
        if "inference_input_size_multiplier" in config:
            config["inference_input_size"] = tune.choice(
                [h * x for x in config.pop("inference_input_size_multiplier")])
        else:
            config["step_size"] = tune.choice([1, h])
        config = {k: v for k, v in config.items() if k not in ("h", "loss")}   # BaseAuto sets both
        return _optuna_function(config) if backend == "optuna" else config

    def _values(self, trial):
        """One trial's model arguments."""
        values = _multipliers(resolve(self.config, trial), self.h, trial)
        for name in ("h", "loss", "valid_loss"):
            if values.get(name) is not None:
                raise Exception(f"Please use `{name}` init argument instead of `config['{name}']`.")
        values = {k: v for k, v in values.items() if k not in ("h", "loss", "valid_loss")}
        gpus = self.gpus if self.gpus is not None else self._ray_gpus
        if gpus and "accelerator" not in values:
            values["accelerator"] = "gpu"   # gpus > 0: the trials train on the GPU (refused without one)
        return _model_arguments(values)

    def _make(self, values):
        return self._cls(h=self.h, loss=self.loss, valid_loss=self.valid_loss, alias=repr(self), **values)

    def _train(self, model, val_size, name, verbose):
        extra = [("val-size", str(val_size))] if val_size else []
        return _Training(model._config(extra), self._panel, name, verbose, words=model._words).run()

    def _trial(self, trial, number, val_size):
        """A row of results: the trial's values, its best validation loss
        (NaN when no check ran), last train loss and seconds. trial is
        fcast's Trial or optuna's."""
        values = self._values(trial)
        start = time.monotonic()
        report = train_report(self._train(self._make(values), val_size, f"{self!r} trial {number}", False))
        row = {"trial": number, "loss": report.best_val_loss, "train_loss": report.last_train_loss,
               "seconds": time.monotonic() - start, **{f"config/{k}": v for k, v in values.items()}}
        if self.verbose:
            print(f"{self!r}: trial {number}: loss {row['loss']:.6g} {values}", flush=True)
        return row

    def _study(self):
        """optuna's study for this search (backend='optuna' with optuna
        installed), or None: fcast's random search."""
        if self.backend != "optuna":
            return None
        optuna = _optuna()
        if optuna is None:
            _warn_once("no optuna", "fcast: backend='optuna' but optuna is not installed: the Auto models search "
                                    "at random (numpy's generator, seed 1) instead of with an optuna sampler "
                                    "(neuralforecast's default: TPESampler); `pip install optuna` to search with "
                                    "optuna")
            return None
        sampler = _sampler(optuna, copy.deepcopy(self.search_alg))   # a copy: each fit draws the same trials
        return optuna.create_study(sampler=sampler, direction="minimize")

    @staticmethod
    def _tell(study, trial, row, values):
        """A trial's score told to optuna, with neuralforecast's user_attrs
        (ALL_PARAMS, METRICS); a trial without one told failed."""
        trial.set_user_attr("ALL_PARAMS", values)
        trial.set_user_attr("METRICS", {"loss": float(row["loss"]), "train_loss": float(row["train_loss"])})
        if np.isfinite(row["loss"]):
            study.tell(trial, float(row["loss"]))
        else:
            study.tell(trial, state=_optuna().trial.TrialState.FAIL)

    def _search(self, panel, val_size, name, verbose):
        """neuralforecast's BaseAuto.fit up to the refit: the trials (optuna's
        ask and tell, or random search), results, the best model."""
        self._panel, val_size = panel, val_size if val_size > 0 else self.h
        study = self._study()
        rng, rows, start = np.random.default_rng(_SEED), [], time.monotonic()
        for number in range(self.num_samples):
            if self.time_budget is not None and time.monotonic() - start >= self.time_budget:
                break
            if study is None:
                rows.append(self._trial(Trial(number, rng), number, val_size))
                continue
            trial = study.ask()
            try:
                row = self._trial(trial, number, val_size)
            except BaseException:   # a trial that cannot train (or Ctrl-C): failed, as optuna's optimize marks it
                study.tell(trial, state=_optuna().trial.TrialState.FAIL)
                raise
            self._tell(study, trial, row, {k[len("config/"):]: v for k, v in row.items() if k.startswith("config/")})
            rows.append(row)
        self.study = study
        configs = [{k[len("config/"):]: v for k, v in row.items() if k.startswith("config/")} for row in rows]
        self.results = pd.DataFrame(rows)
        scored = self.results[np.isfinite(self.results["loss"])]
        if scored.empty:
            raise ValueError(f"fcast: {self!r}: no trial was validated (each trial validates every "
                             "val_check_steps steps, 100 by default: give max_steps >= val_check_steps)")
        self.best_config = configs[scored["loss"].idxmin()]   # the values as drawn, not the frame's dtypes
        self.model = self._make(self.best_config)
        self._refit_val_size = val_size if self.refit_with_val else 0

    # What NeuralForecast asks of a model, answered by the best one
    def _config(self, extra=()):
        if self.model is None:
            raise Exception(f"fcast: {self!r} has not searched yet: fit it first")
        extra = [pair for pair in extra if pair[0] != "val-size"]
        if self._refit_val_size:
            extra.append(("val-size", str(self._refit_val_size)))
        return self.model._config(extra)

    def _words(self, message):
        return self.model._words(message) if self.model is not None else message

    def _shows_progress(self, verbose):
        return self.verbose or verbose

    def _to_json(self):
        """Saved as its best model, named as this one (load gives that model)."""
        return self.model._to_json()

    def __repr__(self):
        return type(self).__name__ if self.alias is None else self.alias


# neuralforecast 3.3.0's default_config of each class (neuralforecast/auto.py),
# with fcast's distributions for ray.tune's
_COMMON = {"h": None, "loss": None, "random_seed": tune.randint(1, 20),
           "learning_rate": tune.loguniform(1e-4, 1e-1),
           "scaler_type": tune.choice([None, "robust", "standard"]),
           "batch_size": tune.choice([32, 64, 128, 256]),
           "windows_batch_size": tune.choice([128, 256, 512, 1024])}


class AutoNHITS(BaseAuto):
    _cls = models.NHITS
    default_config = dict(_COMMON, input_size_multiplier=[1, 2, 3, 4, 5],
                          n_pool_kernel_size=tune.choice([[2, 2, 1], 3 * [1], 3 * [2], 3 * [4], [8, 4, 1],
                                                          [16, 8, 1]]),
                          n_freq_downsample=tune.choice([[168, 24, 1], [24, 12, 1], [180, 60, 1], [60, 8, 1],
                                                         [40, 20, 1], [1, 1, 1]]),
                          max_steps=tune.quniform(500, 1500, 100))


class AutoNBEATS(BaseAuto):
    _cls = models.NBEATS
    default_config = dict(_COMMON, input_size_multiplier=[1, 2, 3, 4, 5], max_steps=tune.choice([500, 1000]))


class AutoNBEATSx(BaseAuto):
    _cls = models.NBEATSx
    default_config = dict(_COMMON, input_size_multiplier=[1, 2, 3, 4, 5], max_steps=tune.choice([500, 1000]))


class AutoMLP(BaseAuto):
    _cls = models.MLP
    default_config = dict(_COMMON, input_size_multiplier=[1, 2, 3, 4, 5], hidden_size=tune.choice([256, 512, 1024]),
                          num_layers=tune.randint(2, 6), max_steps=tune.choice([500, 1000]))


class AutoLSTM(BaseAuto):
    _cls = models.LSTM
    default_config = {"input_size_multiplier": [-1, 4, 16, 64], "inference_input_size_multiplier": [-1],
                      "h": None, "encoder_hidden_size": tune.choice([16, 32, 64, 128]),
                      "encoder_n_layers": tune.randint(1, 4), "context_size": tune.choice([5, 10, 50]),
                      "decoder_hidden_size": tune.choice([16, 32, 64, 128]),
                      "learning_rate": tune.loguniform(1e-4, 1e-1), "max_steps": tune.choice([500, 1000]),
                      "batch_size": tune.choice([16, 32]), "loss": None, "random_seed": tune.randint(1, 20)}


class AutoTiDE(BaseAuto):
    _cls = models.TiDE
    default_config = dict(_COMMON, input_size_multiplier=[1, 2, 3, 4, 5], hidden_size=tune.choice([256, 512, 1024]),
                          decoder_output_dim=tune.choice([8, 16, 32]), temporal_decoder_dim=tune.choice([32, 64, 128]),
                          num_encoder_layers=tune.choice([1, 2, 3]), num_decoder_layers=tune.choice([1, 2, 3]),
                          temporal_width=tune.choice([4, 8, 16]), dropout=tune.choice([0.0, 0.1, 0.2, 0.3, 0.5]),
                          layernorm=tune.choice([True, False]), learning_rate=tune.loguniform(1e-5, 1e-2),
                          max_steps=tune.quniform(500, 1500, 100))


class AutoPatchTST(BaseAuto):
    _cls = models.PatchTST
    default_config = dict(_COMMON, input_size_multiplier=[1, 2, 3], hidden_size=tune.choice([16, 128, 256]),
                          n_heads=tune.choice([4, 16]), patch_len=tune.choice([16, 24]),
                          revin=tune.choice([False, True]), max_steps=tune.choice([500, 1000, 5000]))
