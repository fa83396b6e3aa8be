"""Training progress on stderr, where Lightning's progress bar (tqdm)
writes neuralforecast's: fit's verbose=True or a model's
enable_progress_bar=True. About ten lines per training, each with the
step, the training loss, the rate (steps per second) and the ETA at the
pace so far; in cross-validation also which training of how many it is
and the windows it forecasts, and the ETA of the trainings left. The
lines come from fcast_train's progress callback, which is called whether
or not they are printed: they change no result.
"""
import sys
import time

__all__ = ["Progress", "cv_trainings"]


def cv_trainings(n_windows, refit):
    """The windows of each training of a cross-validation of n_windows
    (refit False or 0: one model for all; True or k: a fresh one every k
    windows, as fcast_cross_validate and neuralforecast train them), as
    (first, last) window indices."""
    every = int(refit) or n_windows
    return [(w, min(w + every, n_windows) - 1) for w in range(0, n_windows, every)]


def duration(seconds):
    """A duration as the CLI's progress writes it: 0.4s, 42s, 1m04s, 2h05m."""
    if seconds < 10:
        return f"{seconds:.1f}s"
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class Progress:
    """The lines of one fcast_train or fcast_cross_validate call.

    trainings: for cross-validation, the (first, last) window of each
    training the call makes (cv_trainings), numbered from `number` of
    `total` trainings over `n_windows` windows (a call that makes some of a
    cross-validation's trainings: an Auto model's refit, searched per
    training); None for fit."""

    def __init__(self, name, trainings=None, n_windows=None, number=0, total=None):
        self.name, self.trainings, self.n_windows = name, trainings, n_windows
        self.number = number
        self.total = total if total is not None else len(trainings or ())
        self._index, self._last, self._done = 0, 0, 0
        self._start = time.monotonic()

    def __call__(self, step, max_steps, loss, shown):
        """One step's report (fcast_progress_fn's): a new training begins
        when the step does not grow (each starts at step 1)."""
        if step <= self._last:
            self._index += 1
        self._last = step
        self._done += 1
        if shown and (step % max(max_steps // 10, 1) == 0 or step == max_steps):
            print(self.line(step, max_steps, loss), file=sys.stderr, flush=True)

    def line(self, step, max_steps, loss):
        elapsed = max(time.monotonic() - self._start, 1e-9)
        rate = self._done / elapsed
        speed = f"{rate:.0f}" if rate >= 100 else f"{rate:.3g}"
        text = f"step {step}/{max_steps}, train loss {loss:.6g}, {speed} steps/s, " \
               f"ETA {duration((max_steps - step) / rate)}"
        if self.trainings is None:
            return f"{self.name}: {text}"
        index = min(self._index, len(self.trainings) - 1)
        first, last = self.trainings[index]
        windows = f"window {first + 1}" if first == last else f"windows {first + 1}-{last + 1}"
        left = len(self.trainings) - index - 1
        if left:   # the trainings after this one in the same call, at max_steps each (early stopping: fewer)
            text += f" (all {duration((max_steps - step + left * max_steps) / rate)})"
        return (f"{self.name}: cross-validation training {self.number + index + 1}/{self.total} "
                f"({windows} of {self.n_windows}): {text}")
