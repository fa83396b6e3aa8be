"""fcast: neuralforecast's interface on fcast's C engine.

A neuralforecast script switches by its imports alone:

    from fcast import NeuralForecast            # from neuralforecast import NeuralForecast
    from fcast.models import NHITS              # from neuralforecast.models import NHITS
    from fcast.losses.pytorch import MQLoss     # from neuralforecast.losses.pytorch import MQLoss

    nf = NeuralForecast(models=[NHITS(h=12, input_size=24, max_steps=500)], freq="MS")
    nf.fit(df)                                  # df: unique_id, ds, y
    forecasts = nf.predict()                    # unique_id, ds, NHITS

The package binds libfcast.so's C API (include/fcast.h) with ctypes, not a
compiled extension module, because:

* the wheel then carries one shared library and pure Python, the same for
  every Python version (no build per Python ABI, nothing to compile at
  install);
* ctypes releases the GIL during every foreign call, so training runs in
  C while other Python threads (and the Ctrl-C handling of fit) go on;
* numpy arrays pass to C as pointers to their own buffers
  (`array.ctypes.data_as`), so the data is not copied on the way in.

TA-Lib's indicators, by TA-Lib's names and arguments, are fcast.ta
(`import fcast.ta as ta`, was `import talib as ta`); option prices, risk
measures and portfolio weights are fcast.quant (docs/python.md).

Where the library is looked for, and the exceptions its errors become,
are in fcast._lib; what each model argument does in fcast.models.
"""
from . import _lib
from ._lib import FcastBackendError, FcastError, FcastIOError, FcastMemoryError, FcastValueError
from .core import NeuralForecast
from . import quant, ta  # cheap: a few milliseconds of ctypes declarations

__version__ = _lib.version()

__all__ = ["NeuralForecast", "FcastError", "FcastIOError", "FcastValueError", "FcastMemoryError",
           "FcastBackendError"]
