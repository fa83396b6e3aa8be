"""fcast_model_train_report (include/fcast/library.h): what a training
did. The Auto models read its best validation loss, the score of a trial.
Declared here rather than in _lib's table because only the search uses it.
"""
import ctypes
from ctypes import c_char_p, c_double, c_int, c_size_t, c_void_p

from . import _lib

_PHASES = 9   # FCAST_PHASES


class TrainReport(ctypes.Structure):
    """fcast_train_report, field for field (C writes all of it)."""
    _fields_ = [("steps", c_size_t), ("max_steps", c_size_t), ("start_step", c_size_t),
                ("seconds", c_double), ("windows_per_second", c_double),
                ("last_train_loss", c_double), ("best_val_loss", c_double),
                ("best_step", c_size_t), ("early_stopped", c_int), ("skipped_steps", c_size_t),
                ("loss_scale", c_double), ("windows_batch_size", c_size_t),
                ("precision", c_char_p), ("kernel", c_char_p), ("device", c_char_p),
                ("checkpoint", c_char_p), ("model_file", c_char_p),
                ("memory_plan", c_size_t), ("memory_limit", c_size_t), ("arena_used", c_size_t),
                ("arena_size", c_size_t), ("resident_peak", c_size_t),
                ("phase_seconds", c_double * _PHASES)]


_fn = _lib.lib.fcast_model_train_report
_fn.restype, _fn.argtypes = c_int, [c_void_p, ctypes.POINTER(TrainReport)]


def train_report(model):
    """The TrainReport of a trained model's handle."""
    report = TrainReport()
    _lib.check(_fn(model, ctypes.byref(report)))
    return report
