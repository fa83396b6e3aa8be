"""neuralforecast's models, trained by fcast: NHITS, NBEATS, NBEATSx, MLP,
LSTM, TiDE, PatchTST.

Each class takes its neuralforecast constructor's arguments. Every argument
falls in one of these kinds, decided per argument:

* mapped: sent to the C side as `fcast train`'s flag of the same meaning
  (docs/training.md): max_steps -> max-steps, learning_rate -> lr,
  scaler_type -> scaler, random_seed -> seed, early_stop_patience_steps ->
  early-stop-patience, the architecture's own (mlp_units, hidden_size,
  patch_len, ...) by their kebab-case names; and of the Lightning trainer's
  keyword arguments, gradient_clip_val -> clip-grad-norm (Lightning clips
  the norm by default, as fcast), accumulate_grad_batches -> grad-accum,
  drop_last_loader -> drop-last, start_padding_enabled -> start-padding,
  and in _trainer.py: precision ("bf16-mixed" -> bf16, "16-mixed" ->
  fp16, 32 -> fp32), accelerator and devices -> device ("gpu" -> cuda,
  devices=[N] -> cuda:N; without a usable GPU the fit fails as `fcast
  train --device cuda` does), enable_progress_bar -> fit's progress.
  Arguments not given are not sent: the C side has neuralforecast's
  defaults for each model. Values are checked by the C side when the
  model is made, so a bad one fails here with fcast's message.
  The exogenous lists (futr_exog_list, hist_exog_list, stat_exog_list)
  go as futr-exog, hist-exog and stat-exog; the models whose
  neuralforecast class takes none (NBEATS, PatchTST) refuse them.
  optimizer=torch.optim.Adam or AdamW with optimizer_kwargs at torch's
  defaults but weight_decay -> optimizer and weight-decay.
* fixed: arguments fcast does not implement (categorical exogenous
  inputs, other optimizers, schedulers, ...). Their neuralforecast
  default is accepted; any other value raises NotImplementedError, since
  training without it would give another model.
* refused: Lightning arguments that would change the answers and that
  fcast does not implement (max_epochs, as neuralforecast 3.3.0 refuses
  it; callbacks, max_time, more than one device, ...): NotImplementedError
  with the reason (_trainer.REFUSED).
* without effect: arguments that cannot change the forecasts (inference
  batch sizes, data loader workers, logging, model summaries,
  deterministic: fcast's runs are deterministic): accepted silently.
* anything else raises TypeError, as neuralforecast's Trainer would.
"""
import numbers
import re
import warnings

from . import _lib
from ._data import Handle
from ._trainer import REFUSED, TRAINER, trainer_settings
from .losses.pytorch import MAE, _Loss

__all__ = ["NHITS", "NBEATS", "NBEATSx", "MLP", "LSTM", "TiDE", "PatchTST"]

# The library's model kinds, {class name: fcast_config_new's key}: a class
# below takes its key from here by its name (neuralforecast's, which the
# library's kind table holds), and tests/python/test_bindings.py checks
# that every kind has its class, so a kind added to the library cannot be
# missing here unnoticed.
_KINDS = _lib.model_kinds()

# neuralforecast argument -> fcast_config_set key, where not its kebab-case
_KEYS = {"learning_rate": "lr", "scaler_type": "scaler", "random_seed": "seed", "futr_exog_list": "futr-exog",
         "hist_exog_list": "hist-exog", "stat_exog_list": "stat-exog",
         "early_stop_patience_steps": "early-stop-patience", "n_polynomials": "n-basis",
         "gradient_clip_val": "clip-grad-norm", "accumulate_grad_batches": "grad-accum",
         "drop_last_loader": "drop-last", "start_padding_enabled": "start-padding"}

_TRAINING = ("max_steps", "learning_rate", "batch_size", "windows_batch_size", "num_lr_decays",
             "early_stop_patience_steps", "val_check_steps", "step_size", "scaler_type", "random_seed",
             "gradient_clip_val", "accumulate_grad_batches", "drop_last_loader", "start_padding_enabled",
             "precision")   # precision: in _trainer.py

# neuralforecast's exogenous lists: mapped when not empty (a model kind that
# takes none refuses them on the C side, as neuralforecast does)
_EXOG = ("futr_exog_list", "hist_exog_list", "stat_exog_list")

_FIXED = {"cat_exog_list": None,
          "categorical_cardinalities": None, "cat_emb_dim": "fastai", "exclude_insample_y": False,
          "val_monitor": "ptl/val_loss",
          "training_data_availability_threshold": 0.0,
          "gradient_clip_algorithm": "norm"}

# Why a fixed argument's other values are refused (docs/python.md's table)
_WHY_FIXED = {"dropout_prob_theta": "neuralforecast's NBEATS has no dropout either (its blocks raise "
                                    "NotImplementedError('dropout')); NHITS and NBEATSx have it",
              "pooling_mode": "fcast's N-HiTS pools with MaxPool1d only",
              "activation": "fcast's blocks use ReLU only",
              "gradient_clip_algorithm": "fcast clips the gradient norm only",
              "cat_exog_list": "no categorical exogenous inputs", "categorical_cardinalities":
              "no categorical exogenous inputs", "cat_emb_dim": "no categorical exogenous inputs"}

# torch.optim.Adam's and AdamW's defaults but weight_decay, which fcast
# takes (Adam's L2 on the gradient, AdamW's decoupled decay); lr is the
# model's learning_rate (neuralforecast overrides optimizer_kwargs' lr)
_ADAM_DEFAULTS = {"lr": None, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": None, "amsgrad": False,
                  "maximize": False, "foreach": None, "capturable": False, "differentiable": False, "fused": None}

# torch's optimizer classes by name (and fcast's names, which save writes)
_OPTIMIZERS = {"Adam": "adam", "AdamW": "adamw", "adam": "adam", "adamw": "adamw"}


def _differs_from_adam(key, value):
    """Whether an optimizer_kwargs entry makes another optimizer than torch's
    Adam or AdamW at their defaults (lr and weight_decay do not)."""
    if key not in _ADAM_DEFAULTS:
        return True
    default = _ADAM_DEFAULTS[key]
    return default is not None and (tuple(value) if isinstance(value, list) else value) != default


def _optimizer_settings(model, optimizer, optimizer_kwargs):
    """(fcast's optimizer name or None, its fcast_config_set pairs): None for
    neuralforecast's default (optimizer None, when it ignores
    optimizer_kwargs); torch.optim.Adam or AdamW at torch's defaults but
    weight_decay -> optimizer and weight-decay. Anything else is refused."""
    if optimizer is None:
        return None, []
    name = optimizer if isinstance(optimizer, str) else getattr(optimizer, "__name__", repr(optimizer))
    kwargs = dict(optimizer_kwargs or {})
    if name not in _OPTIMIZERS or any(_differs_from_adam(key, value) for key, value in kwargs.items()):
        raise NotImplementedError(f"fcast: {model}(optimizer={name}, optimizer_kwargs={kwargs!r}): fcast trains "
                                  "with torch.optim.Adam or AdamW at torch's defaults (betas (0.9, 0.999), eps "
                                  "1e-8, no amsgrad) and any weight_decay; other optimizers and settings are not "
                                  "implemented")
    kind, pairs = _OPTIMIZERS[name], []
    if kind == "adamw":   # Adam, the default, is not sent: its model files stay as they were
        pairs.append(("optimizer", kind))
    if kwargs.get("weight_decay") is not None and (kind == "adamw" or kwargs["weight_decay"] != 0):
        pairs.append(("weight-decay", _text(float(kwargs["weight_decay"]))))
    return kind, pairs

# torch's schedulers fcast steps as neuralforecast does (once per step):
# their C API keys, their arguments' keys and the arguments they require
_SCHEDULERS = {"StepLR": ("step", {"step_size": "lr-step-size", "gamma": "lr-gamma"}, ("step_size",)),
               "CosineAnnealingLR": ("cosine", {"T_max": "lr-t-max", "eta_min": "lr-eta-min"}, ("T_max",)),
               "ExponentialLR": ("exponential", {"gamma": "lr-gamma"}, ("gamma",))}


def _scheduler_settings(model, scheduler, scheduler_kwargs):
    """(the scheduler's name or None, its fcast_config_set pairs):
    neuralforecast's lr_scheduler, a torch scheduler class (or its name),
    built with lr_scheduler_kwargs and stepped every step. None: the
    default StepLR of num_lr_decays halvings. StepLR (gamma 0.1 unless
    given, torch's default), CosineAnnealingLR and ExponentialLR map to
    lr-scheduler and its keys; others are refused."""
    if scheduler is None:
        if scheduler_kwargs:
            raise NotImplementedError(f"fcast: {model}(lr_scheduler_kwargs={scheduler_kwargs!r}) without an "
                                      "lr_scheduler: neuralforecast ignores them, and so would fcast")
        return None, []
    name = scheduler if isinstance(scheduler, str) else getattr(scheduler, "__name__", repr(scheduler))
    kwargs = dict(scheduler_kwargs or {})
    if name not in _SCHEDULERS:
        raise NotImplementedError(f"fcast: {model}(lr_scheduler={name}): fcast has torch's StepLR, "
                                  "CosineAnnealingLR and ExponentialLR")
    kind, keys, required = _SCHEDULERS[name]
    unknown = [k for k in kwargs if k not in keys and not (k == "last_epoch" and kwargs[k] == -1)]
    missing = [k for k in required if k not in kwargs]
    if unknown or missing:
        raise NotImplementedError(f"fcast: {model}(lr_scheduler={name}, lr_scheduler_kwargs={kwargs!r}): "
                                  f"{name} takes {', '.join(keys)}" + (f" and needs {', '.join(missing)}"
                                                                         if missing else ""))
    if name == "StepLR":
        kwargs.setdefault("gamma", 0.1)
    return name, [("lr-scheduler", kind)] + [(keys[k], _text(v)) for k, v in kwargs.items() if k in keys]


# Lightning trainer arguments that cannot change the forecasts: accepted
# without a word (why, for docs/python.md's table)
_NO_EFFECT = {"valid_batch_size": "fcast validates in batches of its own size",
              "inference_windows_batch_size": "fcast forecasts in batches of its own size",
              "dataloader_kwargs": "fcast has no data loader", "num_workers_loader": "fcast has no data loader",
              "pin_memory_loader": "fcast has no data loader", "logger": "no Lightning logs",
              "enable_model_summary": "no model summary", "enable_checkpointing": "no Lightning checkpoints",
              "default_root_dir": "no Lightning logs", "log_every_n_steps": "no Lightning logs",
              "num_sanity_val_steps": "no sanity validation", "benchmark": "no cuDNN benchmarking",
              "deterministic": "fcast's runs are deterministic either way"}


def _text(value):
    """A value in the text of `fcast train`'s flags: on/off, comma lists,
    mlp_units' [in, out] pairs as in:out."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (list, tuple)):
        return ",".join(":".join(_text(v) for v in item) if isinstance(item, (list, tuple)) else _text(item)
                        for item in value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    return str(value)


def _argument_words(message, keys):
    """A configuration error in the constructor's words: each key of the
    C API (max-steps, lr, futr-exog) as the argument it came from
    (max_steps, learning_rate, futr_exog_list)."""
    names = {key: name for name, key in _KEYS.items()}
    for key in sorted(set(keys), key=len, reverse=True):
        name = names.get(key, key.replace("-", "_"))
        message = re.sub(rf"(?<![\w-]){re.escape(key)}(?![\w-])", name, message)
    return message


def _check_integer(name, value, positive=False):
    """h and input_size go to C as size_t: a float would fail in ctypes and
    -1 would wrap to 2^64 - 1, so both are refused here by name, as Python
    refuses range(6.5) (TypeError) and a count below 1 (ValueError)."""
    kind = "a positive integer" if positive else "an integer"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {kind}, got {value!r}")
    if positive and value < 1:
        raise ValueError(f"{name} must be {kind}, got {value!r}")


def _is_default(value, default):
    """Whether a fixed argument is at neuralforecast's default ([] counts as
    None for the exogenous lists)."""
    return value == default or (default is None and isinstance(value, (list, tuple)) and not value)


def _valid_loss_key(model, valid_loss):
    """neuralforecast's valid_loss as the C API's valid-loss key: none when
    it is None or the training loss; a point loss without parameters (MAE,
    MSE, SMAPE, MAPE, HuberLoss at delta 1) by name, scored on a
    DistributionLoss model's mean as neuralforecast scores it; any other
    refused saying why (the C side refuses it with a multi-quantile or
    IQLoss training loss, as neuralforecast does)."""
    if valid_loss is None or valid_loss == model.loss:
        return []
    names = {"MAE": "mae", "MSE": "mse", "SMAPE": "smape", "MAPE": "mape"}
    kind = type(valid_loss).__name__
    if kind in names:
        return [("valid-loss", names[kind])]
    if kind == "HuberLoss" and float(valid_loss._params.get("delta", 1.0)) == 1.0:
        return [("valid-loss", "huber")]
    raise NotImplementedError(f"fcast: {type(model).__name__}(valid_loss={valid_loss!r}): fcast validates with "
                              "the training loss or a point loss without parameters (MAE, MSE, SMAPE, MAPE, "
                              "HuberLoss(delta=1.0))")


class _Model:
    """What the model classes share: the arguments' kinds, the fcast
    configuration they make, the name of their forecast columns."""

    _kind = None          # fcast_config_new's model name: _KINDS[class name], set below
    _arch = ()            # architecture arguments mapped to config keys
    _fixed = {}           # this model's fixed arguments and their defaults
    _no_effect = {}       # this model's arguments neuralforecast reads neither, and why

    def __init_subclass__(cls, **kwargs):
        """A class named as a kind is that kind; a user's subclass of one
        keeps its parent's."""
        super().__init_subclass__(**kwargs)
        if cls.__name__ in _KINDS:
            cls._kind = _KINDS[cls.__name__]
        elif cls._kind is None:
            raise TypeError(f"fcast: model class {cls.__name__} is none of libfcast's kinds "
                            f"({', '.join(_KINDS)}); name it as the kind (src/models/model_kind_list.h)")

    def __init__(self, h, input_size, loss=None, valid_loss=None, alias=None, **kwargs):
        _check_integer("h", h, positive=True)
        _check_integer("input_size", input_size)
        if input_size < 1:   # neuralforecast's protection for its recurrent models' -1, on every model
            input_size = 3 * h
            warnings.warn(f"Input size too small. Automatically setting input size to 3 * horizon = {input_size}")
        self.h, self.input_size, self.alias = h, input_size, alias
        self.loss = MAE() if loss is None else loss
        if not isinstance(self.loss, _Loss):
            raise TypeError(f"fcast: loss {self.loss!r} is not one of fcast.losses' classes")
        self.valid_loss = valid_loss
        self._valid = _valid_loss_key(self, valid_loss)
        self.futr_exog_list, self.hist_exog_list, self.stat_exog_list = (list(kwargs.get(k) or []) for k in _EXOG)
        self._args = self._sort(kwargs)
        kind, self._optimizer = _optimizer_settings(type(self).__name__, kwargs.get("optimizer"),
                                                    kwargs.get("optimizer_kwargs"))
        if kind is not None:
            self._args["optimizer"] = kind   # save writes the name: a class is no JSON
        scheduler, self._scheduler = _scheduler_settings(type(self).__name__, kwargs.get("lr_scheduler"),
                                                         kwargs.get("lr_scheduler_kwargs"))
        if scheduler is not None:
            self._args["lr_scheduler"] = scheduler
        self._config()   # made and dropped: the C side checks every value now, as neuralforecast does

    def _sort(self, kwargs):
        """The mapped arguments; fixed and refused ones checked, those
        without effect on the forecasts accepted."""
        mapped = {}
        for name, value in kwargs.items():
            if name in _TRAINING or name in self._arch or name in TRAINER:
                mapped[name] = value
            elif name in ("optimizer", "optimizer_kwargs", "lr_scheduler", "lr_scheduler_kwargs"):
                mapped[name] = value   # checked and sent together: _optimizer_settings, _scheduler_settings
            elif name in _EXOG:
                if value:
                    mapped[name] = list(value)
            elif name in self._fixed or name in _FIXED:
                default = self._fixed.get(name, _FIXED.get(name))
                if not _is_default(value, default):
                    why = f": {_WHY_FIXED[name]}" if name in _WHY_FIXED else ""
                    raise NotImplementedError(f"fcast: {type(self).__name__}({name}={value!r}) is not supported "
                                              f"(only its default {default!r}){why}")
            elif name in REFUSED:
                raise NotImplementedError(f"fcast: {type(self).__name__}({name}={value!r}): {REFUSED[name]}")
            elif name not in self._no_effect and name not in _NO_EFFECT:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument '{name}' "
                                "(neither neuralforecast's nor a trainer argument fcast knows)")
        return mapped

    def _settings(self):
        """(key, text) pairs for fcast_config_set: the loss first (level
        needs it), then the mapped arguments."""
        pairs = list(self.loss._settings()) + self._valid
        for name, value in self._args.items():
            if name not in TRAINER and name not in ("optimizer", "optimizer_kwargs", "lr_scheduler",
                                                    "lr_scheduler_kwargs"):
                pairs.append((_KEYS.get(name, name.replace("_", "-")), _text(value)))
        return pairs + self._optimizer + self._scheduler + trainer_settings(self._args)

    def _shows_progress(self, verbose):
        """Whether fit prints its progress: Lightning's enable_progress_bar
        when given (True: as fit(verbose=True); False: silent), else fit's
        verbose."""
        shown = self._args.get("enable_progress_bar")
        return verbose if shown is None else bool(shown)

    def _config(self, extra=()):
        """A new fcast_config handle of this model with its settings (and
        `extra` pairs, such as fit's val-size)."""
        config = Handle(_lib.lib.fcast_config_free)
        pairs = self._settings() + list(extra)
        try:
            _lib.check(_lib.lib.fcast_config_new(self._kind.encode(), self.h, self.input_size, config.out()))
            for key, value in pairs:
                _lib.check(_lib.lib.fcast_config_set(config, key.encode(), value.encode()))
            _lib.check(_lib.lib.fcast_config_check(config))
        except _lib.FcastError as e:
            raise type(e)(e.status, _argument_words(str(e), [key for key, _ in pairs])) from None
        return config

    def _words(self, message):
        """A message of fcast's in this constructor's words (see _argument_words)."""
        return _argument_words(message, [key for key, _ in self._settings()] +
                               ["input-size", "val-size", "start-padding"])

    def _to_json(self):
        """What NeuralForecast.save writes to remake this model object."""
        return {"class": type(self).__name__, "h": self.h, "input_size": self.input_size, "alias": self.alias,
                "loss": self.loss._to_json(), "args": self._args}

    def __repr__(self):
        return type(self).__name__ if self.alias is None else self.alias


_RELU = {"activation": "ReLU"}
_BEATS_FIXED = dict(_RELU, shared_weights=False)


class NHITS(_Model):
    """N-HiTS (neuralforecast's NHITS)."""
    _arch = ("stack_types", "n_blocks", "mlp_units", "n_pool_kernel_size", "n_freq_downsample",
             "interpolation_mode", "dropout_prob_theta")
    _fixed = dict(_RELU, pooling_mode="MaxPool1d")


class NBEATS(_Model):
    """N-BEATS (neuralforecast's NBEATS): polynomial trend basis of degree n_basis."""
    _arch = ("n_harmonics", "n_basis", "stack_types", "n_blocks", "mlp_units")
    _fixed = dict(_BEATS_FIXED, basis="polynomial", dropout_prob_theta=0.0)
    _no_effect = {"n_polynomials": "deprecated: neuralforecast ignores it too; n_basis sets the degree"}


class NBEATSx(_Model):
    """N-BEATSx (neuralforecast's NBEATSx), with its exogenous basis."""
    _arch = ("n_harmonics", "n_polynomials", "stack_types", "n_blocks", "mlp_units", "dropout_prob_theta")
    _fixed = _BEATS_FIXED


class MLP(_Model):
    """A multilayer perceptron (neuralforecast's MLP)."""
    _arch = ("num_layers", "hidden_size")


class LSTM(_Model):
    """neuralforecast's direct LSTM (recurrent=False, its default). input_size
    -1 (its default) is 3 h, as neuralforecast sets it."""
    _arch = ("encoder_n_layers", "encoder_hidden_size", "decoder_hidden_size", "decoder_layers")
    _fixed = {"encoder_bias": True, "encoder_dropout": 0.0, "decoder_activation": None, "recurrent": False,
              "inference_input_size": None}
    _no_effect = {"h_train": "used only with recurrent=True", "context_size": "deprecated and unused"}

    def __init__(self, h, input_size=-1, **kwargs):
        super().__init__(h, input_size, **kwargs)


class TiDE(_Model):
    """TiDE (neuralforecast's TiDE)."""
    _arch = ("hidden_size", "decoder_output_dim", "temporal_decoder_dim", "dropout", "layernorm",
             "num_encoder_layers", "num_decoder_layers", "temporal_width")


class PatchTST(_Model):
    """PatchTST (neuralforecast's PatchTST)."""
    _arch = ("encoder_layers", "n_heads", "hidden_size", "linear_hidden_size", "dropout", "head_dropout",
             "attn_dropout", "patch_len", "stride", "revin", "revin_affine", "revin_subtract_last", "activation",
             "res_attention", "batch_normalization", "learn_pos_embed")
    _no_effect = {"fc_dropout": "read only by a pretraining head, which neuralforecast's PatchTST never builds"}
