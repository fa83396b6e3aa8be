"""Lightning's Trainer arguments (neuralforecast passes a model's extra
keyword arguments to pl.Trainer) as fcast's training keys: the device
(accelerator, devices, strategy) and the precision. Each value is either
mapped or refused by name with the reason; none is dropped, since a
script that asks for a GPU must not train on the CPU unnoticed.
"""
import numbers

__all__ = ["TRAINER", "REFUSED", "trainer_settings"]

# The Trainer arguments mapped here (models.py keeps them among a model's
# arguments, so NeuralForecast.save remakes the same model)
TRAINER = ("accelerator", "devices", "strategy", "precision", "enable_progress_bar")

# Lightning's accelerators, as fcast's devices (docs/gpu.md)
_ACCELERATOR = {None: "auto", "auto": "auto", "gpu": "cuda", "cuda": "cuda", "cpu": "cpu"}

# Lightning's precision settings fcast runs the same way (mixed: products in
# the low precision, master weights in fp32; "16" and "bf16" are Lightning's
# older names of the mixed ones)
_PRECISION = {32: "fp32", "32": "fp32", "32-true": "fp32", "bf16": "bf16", "bf16-mixed": "bf16",
              16: "fp16", "16": "fp16", "16-mixed": "fp16"}

_DATA_PARALLEL = ("fcast trains on one device per process; for data-parallel training run "
                  "`mpirun -n N fcast train ...` (docs/distributed.md)")

# Trainer arguments that would change the answers and that fcast does not
# implement, with the reason; max_epochs as neuralforecast 3.3.0 refuses it
# (neuralforecast/common/_base_model.py, BaseModel.__init__: `if "max_epochs"
# in trainer_kwargs.keys(): raise Exception(...)`)
REFUSED = {"max_epochs": "max_epochs is deprecated, use max_steps instead (neuralforecast 3.3.0 refuses it too)",
           "min_steps": "fcast stops at max_steps or early stopping", "min_epochs": "use max_steps",
           "max_time": "fcast stops at max_steps or early stopping, not on a clock",
           "callbacks": "fcast runs no Lightning callbacks (early stopping: early_stop_patience_steps)",
           "val_check_interval": "use val_check_steps", "check_val_every_n_epoch": "use val_check_steps",
           "limit_train_batches": "fcast trains max_steps steps", "limit_val_batches": "fcast validates every window",
           "overfit_batches": "not implemented", "fast_dev_run": "not implemented",
           "num_nodes": _DATA_PARALLEL, "sync_batchnorm": "no batch norm across devices",
           "plugins": "no Lightning plugins"}


def _device_list(devices):
    """Lightning's devices as (count, index): count -1 for all; index None
    when only a count is given. Strings as Lightning reads them ("auto",
    "2", "0,1")."""
    if devices is None or devices == "auto":
        return 1, None
    if isinstance(devices, str):
        parts = [p for p in devices.split(",") if p.strip()]
        devices = [int(p) for p in parts] if "," in devices else int(devices)
    if isinstance(devices, numbers.Integral) and not isinstance(devices, bool):
        if devices == 0 or devices < -1:
            raise ValueError(f"fcast: devices={devices!r}: a count of at least 1, -1 (all), or a list of indices")
        return int(devices), None
    if isinstance(devices, (list, tuple)) and devices and all(isinstance(d, numbers.Integral) for d in devices):
        return len(devices), int(devices[0])
    raise ValueError(f"fcast: devices={devices!r}: a count, -1, 'auto' or a list of GPU indices such as [0]")


def _device(accelerator, devices):
    """fcast's device for Lightning's accelerator and devices. devices=-1
    (all; neuralforecast's default when a GPU is present) is the one GPU
    fcast picks; more than one device is refused (one process trains on
    one device)."""
    if accelerator not in _ACCELERATOR:
        raise NotImplementedError(f"fcast: accelerator={accelerator!r}: fcast runs on 'cpu' or 'gpu'/'cuda' "
                                  "(or 'auto': a usable GPU, else the CPU)")
    device = _ACCELERATOR[accelerator]
    count, index = _device_list(devices)
    if count > 1:
        raise NotImplementedError(f"fcast: devices={devices!r}: {_DATA_PARALLEL}")
    if index is None or device == "cpu":
        return device
    return f"cuda:{index}"   # an index names a GPU, as in Lightning's devices=[N]


def _precision(value):
    if value not in _PRECISION:
        raise NotImplementedError(f"fcast: precision={value!r}: fcast runs 32 ('32', '32-true'), "
                                  "'bf16-mixed' ('bf16') and '16-mixed' (16, '16'); the '-true' low "
                                  "precisions (weights in 16 bits) and 64 are not implemented")
    return _PRECISION[value]


def _strategy(value):
    if value not in (None, "auto", "single_device"):
        raise NotImplementedError(f"fcast: strategy={value!r}: {_DATA_PARALLEL}")


def trainer_settings(args):
    """(key, text) pairs of fcast_config_set for the Trainer arguments in
    args (a model's arguments): the device always (a given accelerator or
    devices is honoured, or fails as `fcast train --device` does), the
    precision when given."""
    _strategy(args.get("strategy"))
    pairs = []
    if "accelerator" in args or "devices" in args:
        pairs.append(("device", _device(args.get("accelerator"), args.get("devices"))))
    if "precision" in args:
        pairs.append(("precision", _precision(args["precision"])))
    return pairs
