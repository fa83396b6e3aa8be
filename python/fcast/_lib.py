"""libfcast.so through ctypes: finding it, declaring its C API, its errors.

Every function of include/fcast.h's library API is declared here with its
argument and result types, so that a wrong call fails in Python rather
than in C. The bindings are written for API version 2 (FCAST_API_VERSION);
a library of another version is refused at import, since a call may have
changed meaning.
"""
import ctypes
import glob
import os
from ctypes import CFUNCTYPE, POINTER, c_char_p, c_double, c_float, c_int, c_int64, c_size_t, c_void_p

API_VERSION = 2

_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    """Where the library may be, in order: $FCAST_LIBRARY, beside the
    package's files (where a wheel installs it), then the source tree's
    build directory (python/fcast -> ../../build), for working from a
    checkout."""
    env = os.environ.get("FCAST_LIBRARY")
    if env:
        return [("$FCAST_LIBRARY", [env])]
    beside = sorted(glob.glob(os.path.join(_HERE, "libfcast.so*")))
    build = os.path.join(_HERE, os.pardir, os.pardir, "build", "libfcast.so")
    return [("beside the package", beside or [os.path.join(_HERE, "libfcast.so")]),
            ("the source tree's build", [os.path.normpath(build)])]


def _load():
    """The first candidate that loads; an ImportError naming every place
    looked at (and why each failed) otherwise."""
    tried = []
    for where, paths in _candidates():
        for path in paths:
            if not os.path.exists(path):
                tried.append(f"{path} ({where}): not found")
                continue
            try:
                return ctypes.CDLL(path)
            except OSError as e:
                tried.append(f"{path} ({where}): {e}")
    raise ImportError("fcast: cannot load libfcast.so; looked at:\n  " + "\n  ".join(tried) +
                      "\nBuild it (cmake --build build --target fcastshared), install the wheel, "
                      "or set FCAST_LIBRARY to its path.")


class FcastColumn(ctypes.Structure):
    """fcast_column: a named column of doubles."""
    _fields_ = [("name", c_char_p), ("values", POINTER(c_double))]


class FcastKindInfo(ctypes.Structure):
    """fcast_kind_info: a model kind's key and neuralforecast class name."""
    _fields_ = [("key", c_char_p), ("name", c_char_p)]


# fcast_progress_fn: (user, step, max_steps, train_loss)
PROGRESS_FN = CFUNCTYPE(None, c_void_p, c_size_t, c_size_t, c_double)

_OUT = POINTER(c_void_p)
_SIGNATURES = {
    "fc_last_error": (c_char_p, []),
    "fc_last_status": (c_int, []),
    "fc_status_name": (c_char_p, [c_int]),
    "fc_version": (c_char_p, []),
    "fcast_api_version": (c_int, []),
    "fcast_data_from_arrays": (c_int, [c_size_t, POINTER(c_char_p), POINTER(c_int64), POINTER(c_double),
                                       POINTER(c_int64), c_int, c_char_p, _OUT]),
    "fcast_data_from_columns": (c_int, [c_size_t, POINTER(c_char_p), POINTER(c_int64), POINTER(c_double),
                                        POINTER(c_int64), c_int, c_char_p, POINTER(FcastColumn), c_size_t, _OUT]),
    "fcast_data_set_static": (c_int, [c_void_p, c_size_t, POINTER(c_char_p), POINTER(FcastColumn), c_size_t]),
    "fcast_data_read_csv": (c_int, [c_char_p, _OUT]),
    "fcast_data_n_series": (c_size_t, [c_void_p]),
    "fcast_data_id": (c_char_p, [c_void_p, c_size_t]),
    "fcast_data_free": (None, [c_void_p]),
    "fcast_config_new": (c_int, [c_char_p, c_size_t, c_size_t, _OUT]),
    "fcast_config_set": (c_int, [c_void_p, c_char_p, c_char_p]),
    "fcast_config_check": (c_int, [c_void_p]),
    "fcast_config_free": (None, [c_void_p]),
    "fcast_config_model_kind": (c_int, [c_size_t, POINTER(FcastKindInfo)]),
    "fcast_train": (c_int, [c_void_p, c_void_p, PROGRESS_FN, c_void_p, POINTER(c_int), _OUT]),
    "fcast_predict": (c_int, [c_void_p, c_void_p, POINTER(c_float), c_size_t]),
    "fcast_predict_future": (c_int, [c_void_p, c_void_p, c_void_p, POINTER(c_float), c_size_t]),
    "fcast_predict_levels": (c_int, [c_void_p, c_void_p, c_void_p, POINTER(c_double), c_size_t, POINTER(c_float),
                                     c_size_t]),
    "fcast_predict_quantiles": (c_int, [c_void_p, c_void_p, c_void_p, POINTER(c_double), c_size_t, POINTER(c_float),
                                        c_size_t]),
    "fcast_model_has_intervals": (c_int, [c_void_p]),
    "fcast_model_h": (c_size_t, [c_void_p]),
    "fcast_model_input_size": (c_size_t, [c_void_p]),
    "fcast_model_kind": (c_char_p, [c_void_p]),
    "fcast_model_output_name": (c_char_p, [c_void_p, c_size_t]),
    "fcast_model_exog": (c_char_p, [c_void_p, c_int, c_size_t]),
    "fcast_cross_validate": (c_int, [c_void_p, c_void_p, c_size_t, c_size_t, c_size_t, PROGRESS_FN, c_void_p,
                                     POINTER(c_int), _OUT]),
    "fcast_cv_rows": (c_size_t, [c_void_p]),
    "fcast_cv_outputs": (c_size_t, [c_void_p]),
    "fcast_cv_read": (c_int, [c_void_p, POINTER(c_int64), POINTER(c_int64), POINTER(c_int64), POINTER(c_double),
                              POINTER(c_float), c_size_t]),
    "fcast_cv_free": (None, [c_void_p]),
    "fcast_model_outputs": (c_size_t, [c_void_p]),
    "fcast_model_save": (c_int, [c_void_p, c_char_p]),
    "fcast_model_load": (c_int, [c_char_p, _OUT]),
    "fcast_model_free": (None, [c_void_p]),
    # trading analytics (fcast.ta, fcast.quant); a pointer to one of the API's
    # structs (fcast_option_arrays, fcast_mc_option, ...) is a void * here:
    # fcast.quant defines the ctypes Structures and passes them by reference
    "fcast_indicator_outputs": (c_int, [c_char_p, POINTER(c_size_t)]),
    "fcast_indicator_lookback": (c_int, [c_char_p, POINTER(c_size_t)]),
    "fcast_indicator": (c_int, [c_char_p, POINTER(c_double), c_size_t, POINTER(POINTER(c_double)), c_size_t]),
    "fcast_indicator_grouped": (c_int, [c_char_p, c_size_t, POINTER(c_int64), POINTER(c_double),
                                        POINTER(POINTER(c_double)), c_size_t]),
    "fcast_indicator_inputs": (c_int, [c_char_p, c_size_t, POINTER(c_int64), POINTER(POINTER(c_double)), c_size_t,
                                       POINTER(POINTER(c_double)), c_size_t]),
    "fcast_ta_functions_json": (c_char_p, []),
    "fcast_ta_count": (c_size_t, []),
    "fcast_ta_set_unstable_period": (c_int, [c_char_p, c_size_t]),
    "fcast_ta_unstable_period": (c_int, [c_char_p, POINTER(c_size_t)]),
    "fcast_bs_european": (c_int, [c_void_p] + 6 * [POINTER(c_double)]),
    "fcast_asian_geometric": (c_int, [c_void_p, POINTER(c_double), c_size_t, POINTER(c_double)]),
    "fcast_mc_price": (c_int, [c_void_p, c_void_p]),
    "fcast_risk_summary": (c_int, [POINTER(c_double), c_size_t, c_void_p]),
    "fcast_var_historical": (c_int, [POINTER(c_double), c_size_t, c_double, POINTER(c_double), POINTER(c_double)]),
    "fcast_var_normal": (c_int, [POINTER(c_double), c_size_t, c_double, POINTER(c_double), POINTER(c_double)]),
    "fcast_portfolio_moments": (c_int, [POINTER(c_double), c_size_t, c_size_t, POINTER(c_double),
                                        POINTER(c_double)]),
    "fcast_portfolio_min_variance": (c_int, [POINTER(c_double), c_size_t, c_size_t, POINTER(c_double)]),
    "fcast_portfolio_target_return": (c_int, [POINTER(c_double), c_size_t, c_size_t, c_double, POINTER(c_double)]),
}


def _declare(library):
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(library, name)
        fn.restype, fn.argtypes = restype, argtypes
    return library


lib = _declare(_load())

if lib.fcast_api_version() != API_VERSION:
    raise ImportError(f"fcast: libfcast {lib.fc_version().decode()} ({lib._name}) has API version "
                      f"{lib.fcast_api_version()}; these bindings are written for version {API_VERSION}")

# fc_status, in the order of the C enum
STATUS_NAMES = ("FC_OK", "FC_ERR_IO", "FC_ERR_PARSE", "FC_ERR_INVALID", "FC_ERR_MEMORY", "FC_ERR_FORMAT",
                "FC_ERR_BACKEND", "FC_ERR_INTERRUPTED")
FC_OK, FC_ERR_IO, FC_ERR_PARSE, FC_ERR_INVALID, FC_ERR_MEMORY, FC_ERR_FORMAT, FC_ERR_BACKEND, FC_ERR_INTERRUPTED = range(8)
# fcast_ds_kind
FCAST_DS_INDEX, FCAST_DS_DATE, FCAST_DS_DATETIME = range(3)
# fcast_exog_kind
FCAST_EXOG_FUTURE, FCAST_EXOG_HISTORIC, FCAST_EXOG_STATIC = range(3)


class FcastError(Exception):
    """A failed libfcast call: `status` (the fc_status value), `status_name`
    ("FC_ERR_INVALID") and, as its text, the library's message, which names
    the argument, key, file, series or position at fault. Subclasses also
    derive from the built-in exception a Python caller would catch for
    that kind."""

    def __init__(self, status, message):
        self.status = status
        self.status_name = STATUS_NAMES[status] if 0 <= status < len(STATUS_NAMES) else f"fc_status {status}"
        super().__init__(message)


class FcastIOError(FcastError, OSError):
    """A file could not be opened, read or written (FC_ERR_IO)."""


class FcastValueError(FcastError, ValueError):
    """Unusable input: malformed (FC_ERR_PARSE), out of range or of the wrong
    shape (FC_ERR_INVALID), or a corrupt or incompatible file (FC_ERR_FORMAT)."""


class FcastMemoryError(FcastError, MemoryError):
    """An allocation failed or a memory budget was exceeded (FC_ERR_MEMORY)."""


class FcastBackendError(FcastError, RuntimeError):
    """The compute backend reported a failure (FC_ERR_BACKEND)."""


_CLASSES = {FC_ERR_IO: FcastIOError, FC_ERR_PARSE: FcastValueError, FC_ERR_INVALID: FcastValueError,
            FC_ERR_FORMAT: FcastValueError, FC_ERR_MEMORY: FcastMemoryError, FC_ERR_BACKEND: FcastBackendError}


# The C API's names for what a Python caller gave as a DataFrame: a message
# about the data built from it (a series too short, a position) names the
# DataFrame, not the C function the package called.
_PYTHON_WORDS = (("fcast_data_from_arrays", "the DataFrame"), ("fcast_data_from_columns", "the DataFrame"))


def error(status):
    """The exception for `status`, with this thread's fc_last_error(): call
    it on the thread that made the failing call (the message is per thread)."""
    message = lib.fc_last_error().decode(errors="replace")
    for c_name, python_name in _PYTHON_WORDS:
        message = message.replace(c_name, python_name)
    return _CLASSES.get(status, FcastError)(status, message)


def check(status):
    """Raises the exception for a failed call's status; returns on FC_OK."""
    if status != FC_OK:
        raise error(status)


def model_kinds():
    """The library's model kinds, {neuralforecast class name: fcast_config_new
    key}, in fcast's order ({"NHITS": "nhits", ...})."""
    kinds, info, i = {}, FcastKindInfo(), 0
    while lib.fcast_config_model_kind(i, ctypes.byref(info)):
        kinds[info.name.decode()] = info.key.decode()
        i += 1
    return kinds


def version():
    """The library's version, which is the package's: they are built together."""
    return lib.fc_version().decode()
