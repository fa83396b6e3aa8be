"""The windows of NeuralForecast.predict_insample, as neuralforecast 3.3.0 draws them.

Each series of length L gets windows of h points every step_size points,
the last one ending at the series' end and the first one starting at
(L - h) mod step_size (neuralforecast trims that many points from the
front so that the windows tile the rest). A window is forecast from the
points before it, as predict would from a history cut there; its cutoff
is the ds one freq step before its first point (neuralforecast 3.3.0's
frames, checked with its venv).
"""
import numpy as np


def window_starts(length, h, step_size):
    """Positions in a series of `length` points where its windows start."""
    if length < h:
        raise ValueError("`sizes` should be greater or equal to `h`.")
    return np.arange((length - h) % step_size, length - h + 1, step_size)


def windows(lengths, h, step_size):
    """(series index, start) of every window, series by series, starts ascending."""
    if int(step_size) != step_size or step_size < 1:
        raise ValueError(f"fcast: predict_insample(step_size={step_size}): a positive integer")
    pairs = [(i, c) for i, n in enumerate(lengths) for c in window_starts(int(n), h, int(step_size))]
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)
