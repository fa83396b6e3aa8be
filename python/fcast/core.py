"""NeuralForecast: neuralforecast's entry point, on libfcast.

fit, predict, save and load take neuralforecast's arguments and return
its frames (columns unique_id, ds, then one per model output, named as
neuralforecast names them). What the C API cannot do yet raises
NotImplementedError saying so, rather than doing something else.
Differences kept on purpose are documented on each method.
"""
import ctypes
import json
import os
import threading
import types

import numpy as np
import pandas as pd

from . import losses, models
from ._data import Handle, Panel, _offset
from ._insample import windows
from ._saved import read_frame, write_frame
from ._lib import FC_ERR_MEMORY, FC_OK, PROGRESS_FN, FcastError, check, error, lib
from ._progress import Progress, cv_trainings

_META = "fcast.json"
_FORMAT = "fcast-neuralforecast-1"
_DATASET, _STATIC = "dataset.npz", "static.npz"   # save_dataset=True's training data


class _Training:
    """One model's fcast_train on a worker thread while the calling thread
    waits: Python runs a Ctrl-C's KeyboardInterrupt on the main thread
    only, and only between bytecodes, so a main thread inside the C call
    would see it when the whole run ends. The worker holds no GIL while in
    C (ctypes releases it), so the waiting costs nothing."""

    def __init__(self, config, panel, name, verbose, cv=None, words=str, progress=None):
        self.cancel = ctypes.c_int(0)   # fcast_train's cancel flag: training stops after the current step
        self.model = Handle(lib.fcast_model_free if cv is None else lib.fcast_cv_free)
        self.failure = None
        self._name, self._verbose, self._cv, self._words = name, verbose, cv, words
        if progress is None:   # fit's lines, or a whole cross-validation's (_progress.py)
            progress = Progress(name) if cv is None else Progress(name, cv_trainings(cv[0], cv[2]), cv[0])
        self._progress = progress
        self._callback = PROGRESS_FN(self._on_step)   # referenced here for as long as C may call it
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._train, args=(config, panel), name=f"fcast fit {name}")
        self._remake = lambda: _Training(config, panel, name, verbose, cv, words)

    def again(self):
        """A fresh training of the same configuration and data (a thread
        runs once): a training side by side that did not fit, rerun alone."""
        return self._remake()

    def _call(self, config, panel):
        """fcast_train, or fcast_cross_validate with cv = (n_windows, step_size, refit)."""
        watch = (self._callback, None, ctypes.byref(self.cancel), self.model.out())
        if self._cv is None:
            return lib.fcast_train(config, panel.handle, *watch)
        return lib.fcast_cross_validate(config, panel.handle, *self._cv, *watch)

    def _train(self, config, panel):
        try:
            status = self._call(config, panel)
            if status != FC_OK and not self.cancel.value:   # cancelled: FC_ERR_INTERRUPTED, the model so far
                self.failure = error(status)   # read here: the message is this thread's
                self.failure.args = (self._words(str(self.failure)),)
        except Exception as e:   # for run() to raise on the calling thread
            self.failure = e
        finally:
            self._done.set()

    def _on_step(self, user, step, max_steps, loss):
        self._progress(step, max_steps, loss, self._verbose)

    def _wait_for_the_step(self):
        """Waits for the worker after a cancel: at most one step. Another
        Ctrl-C (an impatient user, or a terminal that signals twice) does
        not cut the wait short, which would lose the model so far."""
        while True:
            try:
                self._done.wait()
                return
            except KeyboardInterrupt:
                continue

    def run(self):
        """The trained model's handle. On KeyboardInterrupt, sets the cancel
        flag, waits for the step under way, keeps the model trained so far
        in self.model and re-raises.

        It waits on an Event, not Thread.join: CPython 3.11's join,
        interrupted, can mark the running thread stopped (its bpo-45274
        handling releases the thread's own lock), and a later join would
        not wait. The timeout lets an interrupt that comes without a signal
        (_thread.interrupt_main) be noticed too."""
        self._thread.start()
        try:
            while not self._done.wait(0.1):
                pass
        except KeyboardInterrupt:
            self.cancel.value = 1
            self._wait_for_the_step()
            raise
        self._thread.join()
        if self.failure:
            raise self.failure
        return self.model


def _out_of_memory(failure):
    return isinstance(failure, FcastError) and failure.status == FC_ERR_MEMORY


def _run_side_by_side(trainings, workers):
    """Runs the _Training objects of the list `trainings` `workers` at a
    time (each its own thread and fcast backend: the library's member pool
    in Python's threads, ctypes releasing the GIL), in order as workers free
    up. One that ran out of memory beside the others is run again alone
    (in place in the list), as one after another would have run it: side
    by side never fails a fit that fits alone. A Ctrl-C cancels every
    training under way, waits for their steps, keeps what they trained and
    re-raises; the first other failure stops new trainings and is raised
    once those under way have finished."""
    pending, running = list(trainings), []
    try:
        while pending or running:
            while pending and len(running) < workers:
                training = pending.pop(0)
                training._thread.start()   # started, then waited on: an interrupt between never waits for it
                running.append(training)
            running[0]._done.wait(0.05)
            running = [t for t in running if not t._done.is_set()]
            if any(t.failure and not _out_of_memory(t.failure) for t in trainings):
                pending = []   # no new training after a failure; those under way finish
    except KeyboardInterrupt:
        for t in running:
            t.cancel.value = 1
        for t in running:
            t._wait_for_the_step()
        raise
    finally:
        for t in trainings:
            if t._thread.ident is not None:
                t._thread.join()
    if not any(t.failure and not _out_of_memory(t.failure) for t in trainings):
        for i, t in enumerate(trainings):
            if _out_of_memory(t.failure):
                trainings[i] = t.again()
                trainings[i].run()
    for t in trainings:
        if t.failure:
            raise t.failure


def _side_by_side(parallel, n):
    """Trainings at once and CPU threads each: parallel's (None: a thread
    each up to the cores, as the library's pool), never more than n."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    workers = max(1, min(n, cores if parallel is None else int(parallel)))
    return workers, max(1, cores // workers)


def _unsupported(what, **given):
    """Refuses arguments the C API has no counterpart for yet, by name."""
    for name, value in given.items():
        if value is not None and value is not False:
            raise NotImplementedError(f"fcast: {what}({name}=...) is not supported yet (the C API has no "
                                      f"counterpart)")


class NeuralForecast:
    """neuralforecast's NeuralForecast: several models of one horizon, fit on
    a long DataFrame (unique_id, ds, y), forecasting the h points after the
    end of every series.

    freq is a pandas alias ("MS", "D", "h", "30min", ...) for datetime ds,
    an integer step for integer ds. local_scaler_type is not supported yet
    (the models' scaler_type is)."""

    def __init__(self, models, freq, local_scaler_type=None, local_static_scaler_type=None, parallel=None):
        """parallel (fcast's): how many of the models train at once in fit
        and cross_validation, each on its share of the CPU threads or its
        own GPU stream, with the weights each gets alone with that share (for
        N-HiTS, N-BEATS and MLP at their widths, the weights of any thread
        count; LSTM's differ in the last bits with the thread count, as
        fcast train's do); None: a thread each, up to the cores; 1: one
        after another with every thread."""
        if not models:
            raise ValueError("fcast: NeuralForecast needs at least one model")
        if any(m.h != models[0].h for m in models):
            raise ValueError("All models should have the same horizon")
        _unsupported("NeuralForecast", local_scaler_type=local_scaler_type,
                     local_static_scaler_type=local_static_scaler_type)
        if parallel is not None and (not isinstance(parallel, int) or isinstance(parallel, bool) or parallel < 1):
            raise ValueError(f"fcast: parallel={parallel!r}: a count of models trained at once, at least 1")
        self.models = list(models)
        self.freq = freq
        self.parallel = parallel
        self.h = models[0].h
        self.id_col, self.time_col, self.target_col = "unique_id", "ds", "y"
        self._trained = [None] * len(self.models)
        self._panel = None
        self._df = None          # the fitted df (its id, ds, target and exogenous columns): for save
        self._static_df = None
        self._test_size = 0      # points of each series the models did not see (cross_validation's windows)
        self._pending = None     # cross_validation's models, remade when first used (_after_cross_validation)

    def _model_names(self):
        """Each model's column name: alias or class name, with 1, 2, ...
        after repeats (NHITS, NHITS1), as neuralforecast's."""
        names, counts = [], {}
        for model in self.models:
            name = repr(model)
            counts[name] = counts.get(name, -1) + 1
            names.append(name + str(counts[name]) if counts[name] else name)
        return names

    def _exog(self, kind):
        """The columns of one exogenous list over every model, each once, in order."""
        names = []
        for model in self.models:
            names += [c for c in getattr(model, kind) if c not in names]
        return names

    def _history(self, df, static_df):
        """df (and static_df) as a panel with the columns the models read."""
        return Panel(df, self.freq, self.id_col, self.time_col, self.target_col,
                     exog=self._exog("futr_exog_list") + [c for c in self._exog("hist_exog_list")
                                                          if c not in self._exog("futr_exog_list")],
                     static_df=static_df, stat=self._exog("stat_exog_list"))

    def fit(self, df=None, static_df=None, val_size=0, val_df=None, use_init_models=False, verbose=False,
            id_col="unique_id", time_col="ds", target_col="y", distributed_config=None, prediction_intervals=None):
        """Trains every model on df (each from its initial weights, as with
        use_init_models=True: fcast does not continue a previous fit).
        val_size points of each series are held out to validate (early
        stopping, best weights). The models' exogenous lists name columns
        of df (futr_exog_list, hist_exog_list) and of static_df
        (stat_exog_list); other columns are ignored.

        Ctrl-C stops the model being trained after its current step and
        re-raises KeyboardInterrupt; the models trained so far are kept,
        the interrupted one with its weights at the stop (predict works
        once every model has weights)."""
        _unsupported("fit", val_df=val_df, distributed_config=distributed_config)
        if df is None and self._panel is None:
            raise ValueError("fcast: pass df: nothing was fitted before")
        if df is not None:
            self.id_col, self.time_col, self.target_col = id_col, time_col, target_col
            self._static_df = static_df
            self._panel = self._history(df, static_df)
            self._df = df[self._dataset_columns()]
        extra = [("val-size", str(int(val_size)))] if val_size else []
        self._trained = [None] * len(self.models)
        self._test_size, self._pending = 0, None
        for model, name in zip(self.models, self._model_names()):
            if hasattr(model, "_search"):   # an Auto model picks its configuration first (fcast/auto.py)
                model._search(self._panel, val_size, name, model._shows_progress(verbose))
        workers, threads = _side_by_side(self.parallel, len(self.models))
        share = [("threads", str(threads))] if workers > 1 else []
        trainings = []
        for model, name in zip(self.models, self._model_names()):
            intervals = prediction_intervals._settings() if prediction_intervals and _point(model) else []
            trainings.append(_Training(model._config(extra + intervals + share), self._panel, name,
                                       model._shows_progress(verbose), words=model._words))
        try:
            if workers == 1:
                for training in trainings:
                    training.run()
            else:
                _run_side_by_side(trainings, workers)
        finally:
            for i, training in enumerate(trainings):
                if training._thread.ident is not None and not training.failure:
                    self._trained[i] = training.model

    def predict(self, df=None, static_df=None, futr_df=None, verbose=False, engine=None, level=None,
                quantiles=None, h=None, **data_kwargs):
        """Forecasts of the h points after the end of every series of the
        fitted df, or of df when given (the models are not refit).

        futr_df holds the future values of the models' futr_exog_list
        columns over the next h points of every series (unique_id, ds and
        those columns); static_df, the static values (those of fit when
        not given). level: models fit with prediction_intervals add their
        conformal intervals (NHITS-lo-90, ..., NHITS-hi-90); models trained
        with MQLoss give their own intervals whatever is asked, as in
        neuralforecast. quantiles instead of level: the same intervals as
        columns NHITS-ql0.1, ..., NHITS-ql0.9 (quantile q < 0.5 is the lower
        bound of level 100 - 200 q, q > 0.5 the upper bound of 200 q - 100,
        0.5 the forecast), as neuralforecast's conformal intervals name
        them. A DistributionLoss model gives, as neuralforecast's, its
        sample mean and the quantiles of level (NHITS, NHITS-lo-80,
        NHITS-hi-80: no median unless asked) or of quantiles (NHITS,
        NHITS_ql0.1, ...), drawn at the asked quantiles as neuralforecast
        draws them (fcast_predict_levels, fcast_predict_quantiles).
        Unlike neuralforecast's, a later predict() without level gives all
        the trained columns again (neuralforecast's then gives the mean and
        median alone)."""
        _unsupported("predict", engine=engine, **data_kwargs)
        if level is not None and quantiles is not None:
            raise ValueError("You can't set both level and quantiles.")
        if h is not None and h != self.h:
            raise NotImplementedError(f"fcast: predict(h={h}): fcast forecasts the models' horizon {self.h}")
        self._train_pending(verbose)
        untrained = [n for n, t in zip(self._model_names(), self._trained) if t is None]
        if untrained:
            raise Exception(f"You must fit the model before predicting (not trained: {', '.join(untrained)}).")
        static_df = self._static_df if static_df is None else static_df
        panel = self._panel if df is None else self._history(df, static_df)
        if panel is None:
            raise ValueError("fcast: pass df: the models were loaded from a directory saved without its dataset "
                             "(save_dataset=False)")
        future = self._future(futr_df)
        frame = panel.future(self.h, self.freq, self.id_col, self.time_col)
        for model, name, trained in zip(self.models, self._model_names(), self._trained):
            if level and _point(model):
                forecasts, suffixes = self._forecast_levels(name, trained, panel, future, level)
            elif quantiles and _point(model):
                forecasts, suffixes = self._forecast_quantiles(name, trained, panel, future, quantiles)
            elif (level or quantiles) and model.loss.is_distribution_output:
                forecasts, suffixes = self._forecast_drawn(trained, panel, future, level, quantiles)
            elif (level or quantiles) and isinstance(model.loss, losses.pytorch.IQLoss):
                forecasts, suffixes = self._forecast_drawn(trained, panel, future, level, quantiles, mean=False)
            else:   # a quantile loss's own outputs, whatever the levels (as neuralforecast)
                forecasts = self._forecast(model, trained, panel, future)
                picks, suffixes = _asked_outputs(model, name, level, quantiles)
                forecasts = forecasts[:, :, picks]
            for k, suffix in enumerate(suffixes):
                frame[name + suffix] = forecasts[:, :, k].ravel()
        return frame

    def predict_insample(self, step_size=1, level=None, quantiles=None):
        """neuralforecast's predict_insample: each model's forecasts of
        windows of h points over the fitted history, every step_size points
        (windows as _insample.py says), each forecast from the points
        before it with the fitted weights. Columns unique_id, ds, cutoff
        (the point before the window), one per model output, y. level and quantiles are refused: fcast's
        intervals are conformal, which neuralforecast refuses in-sample too;
        MQLoss models give their quantile columns."""
        _unsupported("predict_insample", level=level, quantiles=quantiles)
        self._train_pending(False)
        if self._df is None or any(t is None for t in self._trained):
            raise Exception("The models must be fitted first with `fit` or `cross_validation`.")
        df = self._df.sort_values([self.id_col, self.time_col], kind="stable").reset_index(drop=True)
        if self._test_size:   # the windows cross_validation held out, as neuralforecast trims them
            df = self._without_last(df, self._test_size).reset_index(drop=True)
        codes, _ = pd.factorize(df[self.id_col], sort=True)
        position = df.groupby(codes).cumcount().to_numpy()
        first = np.flatnonzero(position == 0)
        pairs = windows(np.diff(np.append(first, len(df))), self.h, step_size)
        rows = (first[pairs[:, 0]] + pairs[:, 1])[:, None] + np.arange(self.h)   # df's row of each point
        frame = pd.DataFrame({self.id_col: df[self.id_col].to_numpy()[rows.ravel()],
                              self.time_col: df[self.time_col].to_numpy()[rows.ravel()],
                              "cutoff": self._step_back(df[self.time_col].iloc[np.repeat(rows[:, 0], self.h)])})
        history, future = self._insample_panels(df, position, first, pairs)
        for model, name, trained in zip(self.models, self._model_names(), self._trained):
            forecasts = self._forecast(model, trained, history, future)
            for k, suffix in enumerate(model.loss.output_names):
                frame[name + suffix] = forecasts[:, :, k].ravel()
        frame[self.target_col] = df[self.target_col].to_numpy()[rows.ravel()]
        return frame

    def _insample_panels(self, df, position, first, pairs):
        """Every window (series, start) of pairs as a series of its own,
        its id the window's index: the history panel holds the points
        before the window, the future panel the window's exogenous values.
        One predict then forecasts all windows (a predict per start would
        repeat the model's setup hundreds of times)."""
        starts = pairs[:, 1]
        window = np.repeat(np.arange(len(pairs)), starts)
        offsets = np.arange(len(window)) - np.repeat(np.cumsum(starts) - starts, starts)
        history = df.iloc[np.repeat(first[pairs[:, 0]], starts) + offsets].assign(**{self.id_col: window})
        at_start = np.flatnonzero(starts == 0)
        if len(at_start):
            nothing = self._unobserved_point(df.iloc[first[pairs[at_start, 0]]]).assign(**{self.id_col: at_start})
            history = pd.concat([history, nothing])
        static = None
        if self._static_df is not None:
            static = self._static_df.set_index(self.id_col).loc[df[self.id_col].to_numpy()[first[pairs[:, 0]]]]
            static = static.reset_index(drop=True).rename_axis(self.id_col).reset_index()
        future = None
        if self._exog("futr_exog_list"):
            points = (first[pairs[:, 0]] + starts)[:, None] + np.arange(self.h)
            future = df.iloc[points.ravel()].assign(**{self.id_col: np.repeat(np.arange(len(pairs)), self.h)})
        return self._history(history, static), self._future(future)

    def _step_back(self, ds):
        """ds one freq step earlier (a window's cutoff: the point before its first)."""
        step = int(self.freq) if pd.api.types.is_integer_dtype(ds.dtype) else _offset(self.freq)
        return (ds - step).to_numpy()

    def _unobserved_point(self, first_rows):
        """A history of one missing point (NaN) before each series' first
        row: the window at a series' start is forecast from nothing
        observed, as neuralforecast forecasts it from zeros with mask 0
        (fcast pads a short history the same way)."""
        rows = first_rows.copy()
        rows[self.time_col] = self._step_back(rows[self.time_col])
        rows[[c for c in rows.columns if c not in (self.id_col, self.time_col)]] = np.nan
        return rows

    def make_future_dataframe(self, df=None, h=None):
        """neuralforecast's: unique_id and ds of the h points (the models'
        horizon when None) after the end of every series of the fitted df,
        or of df when given, at the fitted freq; series in sorted order."""
        if self._panel is None:
            raise Exception("You must fit the model first.")
        ends = self._panel
        if df is not None:
            last = df.groupby(self.id_col, sort=True)[self.time_col].max()
            # Panel.future reads only these three attributes: the series' ends of df, no C panel needed
            ends = types.SimpleNamespace(uids=last.index, last=last.to_numpy(), ds_dtype=df[self.time_col].dtype)
        return Panel.future(ends, self.h if h is None else h, self.freq, self.id_col, self.time_col)

    def get_missing_future(self, futr_df, df=None, h=None):
        """neuralforecast's: the rows of make_future_dataframe(df, h) that
        futr_df lacks (by id and ds): what predict's futr_df must still give."""
        expected = self.make_future_dataframe(df, h=h)
        keys = [self.id_col, self.time_col]
        merged = expected.merge(futr_df[keys].drop_duplicates(), on=keys, how="left", indicator=True)
        return merged.loc[merged["_merge"] == "left_only", keys].reset_index(drop=True)

    def _forecast_levels(self, name, trained, panel, future, level):
        """A point model's forecasts with its conformal intervals at `level`,
        and the columns' suffixes ("", "-lo-90", "-lo-80", "-hi-80", "-hi-90")."""
        if not lib.fcast_model_has_intervals(trained):
            raise Exception(f"{name} was trained without prediction intervals: pass "
                            "prediction_intervals=PredictionIntervals() to fit to forecast with level")
        levels = sorted(set(level))
        array = np.ascontiguousarray(levels, dtype=np.float64)
        out = np.empty((len(panel.fcast_order), self.h, 1 + 2 * len(levels)), dtype=np.float32)
        check(lib.fcast_predict_levels(trained, panel.handle, None if future is None else future.handle,
                                       array.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), len(levels),
                                       out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), out.size))
        suffixes = [""] + [f"-lo-{lv}" for lv in reversed(levels)] + [f"-hi-{lv}" for lv in levels]
        return out[panel.fcast_order], suffixes

    def _forecast_drawn(self, trained, panel, future, level, quantiles, mean=True):
        """A DistributionLoss model's forecast drawn at the asked levels or
        quantiles, as neuralforecast's predict(level=/quantiles=) draws it:
        the sample mean, then the quantiles sorted (utils.level_to_quantiles
        for level), named as its _get_column_name: "-lo-80", "-hi-80" for a
        level, "_ql0.1" for a quantile. The C library draws them from the
        samples of its trained quantiles (fcast_predict_levels,
        fcast_predict_quantiles). An IQLoss model (mean False) gives the
        quantiles alone, as neuralforecast's predict of one."""
        handle = None if future is None else future.handle
        if level:
            asked = sorted(set(level))
            suffixes = [""] + [f"-lo-{int(round(lv))}" for lv in reversed(asked)] + \
                       [f"-hi-{int(round(lv))}" for lv in asked]
            call, width = lib.fcast_predict_levels, 1 + 2 * len(asked)
        else:
            asked = sorted(set(quantiles))
            suffixes, call, width = [""] + [f"_ql{q}" for q in asked], lib.fcast_predict_quantiles, 1 + len(asked)
        if not mean:
            suffixes, width = suffixes[1:], width - 1
        array = np.ascontiguousarray(asked, dtype=np.float64)
        out = np.empty((len(panel.fcast_order), self.h, width), dtype=np.float32)
        check(call(trained, panel.handle, handle, array.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), len(asked),
                   out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), out.size))
        return out[panel.fcast_order], suffixes

    def _forecast_quantiles(self, name, trained, panel, future, quantiles):
        """The conformal intervals as quantile columns: each quantile q is a
        bound of level |100 - 200 q| (the median, the forecast itself)."""
        qs = sorted(set(quantiles))
        if any(not 0 < q < 1 for q in qs):
            raise ValueError(f"fcast: quantiles {quantiles}: each must be in (0, 1)")
        levels = sorted({abs(100 - 200 * q) for q in qs if q != 0.5})
        if levels:
            out, _ = self._forecast_levels(name, trained, panel, future, levels)
        else:
            out = self._forecast_levels(name, trained, panel, future, [50])[0][:, :, :1]
        n = len(levels)
        column = {0.5: 0}   # point, then lo from the widest level, then hi from the narrowest
        for q in qs:
            if q != 0.5:
                k = levels.index(abs(100 - 200 * q))
                column[q] = n - k if q < 0.5 else 1 + n + k
        picks = [0] + [column[q] for q in qs]
        return out[:, :, picks], [""] + [f"-ql{q}" for q in qs]

    def _future(self, futr_df):
        """futr_df as a panel of the future-known columns (None when no model reads any)."""
        names = self._exog("futr_exog_list")
        if not names:
            return None
        if futr_df is None:
            raise ValueError(f"Models require the following future exogenous features: {names}. "
                             "Please provide them through the `futr_df` argument.")
        return Panel(futr_df, self.freq, self.id_col, self.time_col, None, exog=names)

    def _forecast(self, model, trained, panel, future=None):
        """One model's forecasts, (series, h, outputs) float32, series in
        the panel's (neuralforecast's) order."""
        outputs = lib.fcast_model_outputs(trained)
        if outputs != len(model.loss.output_names):
            raise ValueError(f"fcast: {model!r} forecasts {outputs} values per point but its loss "
                             f"{model.loss!r} names {len(model.loss.output_names)}")
        out = np.empty((len(panel.fcast_order), self.h, outputs), dtype=np.float32)
        check(lib.fcast_predict_future(trained, panel.handle, None if future is None else future.handle,
                                       out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), out.size))
        return out[panel.fcast_order]

    def cross_validation(self, df=None, static_df=None, n_windows=1, step_size=1, val_size=0, test_size=None,
                         use_init_models=False, use_fitted=False, verbose=False, refit=False, id_col="unique_id",
                         time_col="ds", target_col="y", prediction_intervals=None, level=None, quantiles=None,
                         h=None, **data_kwargs):
        """neuralforecast's cross_validation: forecasts of n_windows origins
        per series, step_size points apart, the last window ending at each
        series' end (or test_size points forecast: n_windows from it).
        Without refit, each model is trained once with those points held
        out; refit=True trains a fresh model per window, refit=k every k
        windows. An Auto model searches before training, as neuralforecast's
        BaseAuto.fit: once on the series less the windows' points without
        refit, at every refit's cutoff with it. The frame has
        neuralforecast's columns: unique_id, ds, cutoff, one per model
        output, y. verbose=True (or a model's enable_progress_bar=True)
        prints each training's progress on stderr: which training, its
        windows, the rate and ETA.

        fcast trains every model from its initial weights (as
        use_init_models=True); use_fitted, prediction intervals and another
        horizon are not supported yet. Ctrl-C stops the run and re-raises
        KeyboardInterrupt."""
        _unsupported("cross_validation", use_fitted=use_fitted, prediction_intervals=prediction_intervals,
                     quantiles=quantiles, **data_kwargs)
        if h is not None and h != self.h:
            raise NotImplementedError(f"fcast: cross_validation(h={h}): fcast forecasts the models' horizon {self.h}")
        if refit is not True and not refit:
            refit = False   # 0 (and None) as neuralforecast's `if not refit`: trained once
        if level is not None and any(_point(m) for m in self.models):
            raise NotImplementedError("fcast: cross_validation(level=...) for models without MQLoss or "
                                      "DistributionLoss needs conformal intervals, not in the C API yet")
        if level is not None and refit is not False:
            for model, name in zip(self.models, self._model_names()):
                _asked_outputs(model, name, level, None)   # a level the model cannot give: refused before training
        n_windows = self._cv_windows(n_windows, step_size, test_size)
        if df is None:
            if self._panel is None:
                raise ValueError("fcast: pass df: nothing was fitted before")
            panel, static_df = self._panel, self._static_df
        else:
            self.id_col, self.time_col, self.target_col = id_col, time_col, target_col
            panel = self._history(df, static_df)
        data = df if df is not None else self._df
        if refit is False:
            self._search_before_windows(data, static_df, n_windows, step_size, val_size, verbose)
        extra = [("val-size", str(int(val_size)))] if val_size else []
        cv = (n_windows, step_size, 0 if refit is False else 1 if refit is True else int(refit))
        frame = None
        results = self._cv_side_by_side(panel, cv, extra, verbose, refit)
        for i, (model, name) in enumerate(zip(self.models, self._model_names())):
            if i not in results:   # an Auto model searched at every refit's cutoff
                own = self._cv_auto_refit(model, name, data, static_df, panel, cv, val_size, extra, verbose, level)
                frame = self._cv_join(frame, own, name)
                continue
            # level reaches the models only with refit, as neuralforecast's predict of each window
            frame = self._cv_frame(model, name, results[i], panel, frame, None if refit is False else level)
        frame[self.target_col] = frame.pop(self.target_col)   # y last, as neuralforecast's
        self._after_cross_validation(df if df is not None else self._df, static_df, n_windows, step_size, refit,
                                     val_size)
        return frame

    def _cv_side_by_side(self, panel, cv, extra, verbose, refit):
        """The cross-validations of the models that are not searched at
        every refit (an Auto model with refit is: _cv_auto_refit), side by
        side as fit trains its models (parallel), by model index."""
        plain = [(i, model, name) for i, (model, name) in enumerate(zip(self.models, self._model_names()))
                 if refit is False or not hasattr(model, "_search")]
        workers, threads = _side_by_side(self.parallel, len(plain))
        share = [("threads", str(threads))] if workers > 1 else []
        trainings = {i: _Training(model._config(extra + share), panel, name, model._shows_progress(verbose), cv=cv,
                                  words=model._words) for i, model, name in plain}
        if workers == 1:
            return {i: t.run() for i, t in trainings.items()}
        order = list(trainings.values())
        _run_side_by_side(order, workers)   # (a training rerun alone replaces its place in order)
        return {i: t.model for i, t in zip(trainings, order)}

    def _after_cross_validation(self, df, static_df, n_windows, step_size, refit, val_size):
        """The state neuralforecast leaves after cross_validation: fitted.
        Without refit, the models trained once on df less its windows'
        points, with df as the data (predict forecasts after df's end,
        predict_insample leaves the windows out, save saves df); with
        refit, as fit on the data of the last training. fcast's
        cross-validation keeps no model, so those trainings are remade
        (same data, same seeds: the same weights) when first needed, by
        predict, predict_insample or save, not at every cross_validation."""
        held = self.h + (n_windows - 1) * step_size
        if refit is not False:
            every = 1 if refit is True else int(refit)
            held -= (n_windows - 1) // every * every * step_size
            df = self._without_last(df, held)
        self._static_df = static_df
        self._df = df[self._dataset_columns()]
        self._panel = self._history(df, static_df)
        self._test_size = held if refit is False else 0
        seen = df if refit is not False else self._without_last(df, held)
        self._trained = [None] * len(self.models)
        self._pending = (self._history(seen, static_df), val_size)

    def _without_last(self, df, n):
        """df less the last n points of each series, by time (df's rows may
        come in any order, as fit takes them)."""
        df = df.sort_values([self.id_col, self.time_col], kind="stable")
        return df[df.groupby(self.id_col).cumcount(ascending=False).to_numpy() >= n]

    def _train_pending(self, verbose):
        """Trains the models cross_validation left to be remade (above)."""
        if self._pending is None:
            return
        panel, val_size = self._pending
        extra = [("val-size", str(int(val_size)))] if val_size else []
        for i, (model, name) in enumerate(zip(self.models, self._model_names())):
            training = _Training(model._config(extra), panel, name, model._shows_progress(verbose),
                                 words=model._words)
            training.run()
            self._trained[i] = training.model
        self._pending = None

    def _search_before_windows(self, df, static_df, n_windows, step_size, val_size, verbose):
        """Without refit, Auto models search on each series without its
        cross-validation points, as neuralforecast's BaseAuto.fit with
        test_size holds them out; the best configuration is then
        cross-validated. (With refit, _cv_auto_refit searches per training.)"""
        autos = [(m, n) for m, n in zip(self.models, self._model_names()) if hasattr(m, "_search")]
        if not autos:
            return
        test = self.h + (n_windows - 1) * step_size
        before = self._without_last(df, test)
        panel = self._history(before, static_df)
        for model, name in autos:
            model._search(panel, val_size, name, model._shows_progress(verbose))

    def _cv_auto_refit(self, model, name, df, static_df, panel, cv, val_size, extra, verbose, level):
        """An Auto model's cross-validation with refit, as neuralforecast's
        (its cross_validation calls fit, so BaseAuto.fit, on the points up
        to each refit's cutoff): for each training (every refit windows),
        the search on each series up to the cutoff of the training's first
        window, then the best configuration trained there forecasts the
        training's windows. That is fcast_cross_validate of those windows
        alone, trained once, on the series less the points after the last
        of them: the model the C refit trains at that cutoff, forecasting
        the same windows from the same histories. The rows come in the
        other models' order (series, cutoff, ds)."""
        n_windows, step_size, every = cv
        trainings = cv_trainings(n_windows, every)
        frames = []
        for number, (first, last) in enumerate(trainings):
            seen = self._without_last(df, self.h + (n_windows - 1 - first) * step_size)
            model._search(self._history(seen, static_df), val_size, name, model._shows_progress(verbose))
            part = self._history(self._without_last(df, (n_windows - 1 - last) * step_size), static_df)
            progress = Progress(name, [(first, last)], n_windows, number, len(trainings))
            result = _Training(model._config(extra), part, name, model._shows_progress(verbose),
                               cv=(last - first + 1, step_size, 0), words=model._words, progress=progress).run()
            frames.append(self._cv_frame(model, name, result, part, None, level))
        frame = pd.concat(frames, ignore_index=True)
        series = pd.Index(panel.uids).get_indexer(frame[self.id_col])
        return frame.iloc[np.argsort(series, kind="stable")].reset_index(drop=True)   # each series' trainings in order

    def _cv_join(self, frame, own, name):
        """own (one model's rows, _cv_auto_refit's) into frame: the first
        model's make it; the others' rows must be the same (series, ds,
        cutoff) and add their columns."""
        if frame is None:
            return own
        keys = [self.id_col, self.time_col, "cutoff"]
        if len(frame) != len(own) or not frame[keys].reset_index(drop=True).equals(own[keys]):
            raise ValueError(f"fcast: {name} cross-validated other rows than the first model "
                             f"({len(own)} and {len(frame)})")
        for column in own.columns:
            if column not in keys and column != self.target_col:
                frame[column] = own[column].to_numpy()
        return frame

    def _cv_windows(self, n_windows, step_size, test_size):
        """n_windows, from test_size when that is given instead (neuralforecast's rule)."""
        if n_windows is None and test_size is None:
            raise Exception("you must define `n_windows` or `test_size`.")
        if test_size is None:
            return n_windows
        if n_windows is not None and n_windows != 1:
            raise Exception("you must define `n_windows` or `test_size` but not both")
        if (test_size - self.h) % step_size:
            raise Exception("`test_size - h` must be divisible by `step_size`")
        return (test_size - self.h) // step_size + 1

    def _cv_frame(self, model, name, result, panel, frame, level=None):
        """The rows of one model's cross-validation, in neuralforecast's
        order (series by id, then cutoff, then ds); the first model's make
        the frame, the others add their columns (a DistributionLoss model's
        of `level` when given: _asked_outputs)."""
        rows, outputs = lib.fcast_cv_rows(result), lib.fcast_cv_outputs(result)
        series, ds, cutoff = (np.empty(rows, dtype=np.int64) for _ in range(3))
        y = np.empty(rows, dtype=np.float64)
        forecast = np.empty((rows, outputs), dtype=np.float32)
        pointer = lambda a, t: a.ctypes.data_as(ctypes.POINTER(t))
        check(lib.fcast_cv_read(result, pointer(series, ctypes.c_int64), pointer(ds, ctypes.c_int64),
                                pointer(cutoff, ctypes.c_int64), pointer(y, ctypes.c_double),
                                pointer(forecast, ctypes.c_float), rows))
        nf_series = np.argsort(panel.fcast_order)[series]   # fcast's series index -> neuralforecast's
        order = np.argsort(nf_series, kind="stable")
        if frame is None:
            frame = pd.DataFrame({self.id_col: panel.uids.take(nf_series[order]),
                                  self.time_col: panel.ds_values(ds[order]),
                                  "cutoff": panel.ds_values(cutoff[order]),
                                  self.target_col: y[order]})
        elif len(frame) != rows:
            raise ValueError(f"fcast: {name} cross-validated {rows} rows, the first model {len(frame)}")
        if outputs != len(model.loss.output_names):
            raise ValueError(f"fcast: {model!r} forecasts {outputs} values per point but its loss names "
                             f"{len(model.loss.output_names)}")
        picks, suffixes = _asked_outputs(model, name, level, None)
        for k, suffix in zip(picks, suffixes):
            frame[name + suffix] = forecast[order, k]
        return frame

    def _dataset_columns(self):
        """The columns of df the models read, as fit keeps them."""
        exog = self._exog("futr_exog_list") + self._exog("hist_exog_list")
        return [self.id_col, self.time_col, self.target_col] + list(dict.fromkeys(exog))

    def save(self, path, model_index=None, save_dataset=True, overwrite=False):
        """Writes each model's fcast model file (<name>_<count>.safetensors,
        the file `fcast predict --model` reads) and fcast.json (freq, column
        names, each model's class and arguments) into the directory path.
        save_dataset=True also writes the fitted df's columns the models
        read (dataset.npz, and static.npz for static_df), so that the loaded
        object forecasts without df, as neuralforecast's dataset.pkl does
        (numpy's format rather than a pickle: loading runs no code)."""
        path = os.fspath(path)
        if os.path.isdir(path) and os.listdir(path) and not overwrite:
            raise Exception("Directory is not empty. Set `overwrite=True` to overwrite files.")
        self._train_pending(False)
        if any(t is None for t in self._trained):
            raise Exception("You must fit the models before saving them.")
        os.makedirs(path, exist_ok=True)
        entries, counts = [], {}
        for i, model in enumerate(self.models):
            if model_index is not None and i not in model_index:
                continue
            counts[repr(model)] = counts.get(repr(model), -1) + 1
            file = f"{model!r}_{counts[repr(model)]}.safetensors"
            check(lib.fcast_model_save(self._trained[i], os.path.join(path, file).encode()))
            entries.append(dict(model._to_json(), file=file))
        meta = {"format": _FORMAT, "freq": self.freq, "id_col": self.id_col, "time_col": self.time_col,
                "target_col": self.target_col, "models": entries}
        with open(os.path.join(path, _META), "w") as f:
            json.dump(meta, f, indent=1, default=lambda value: value.item())   # numpy scalars
        if save_dataset and self._df is not None:
            write_frame(os.path.join(path, _DATASET), self._df)
            if self._static_df is not None:
                write_frame(os.path.join(path, _STATIC), self._static_df)

    @staticmethod
    def load(path, verbose=False, **kwargs):
        """A NeuralForecast from a directory `save` wrote: its models remade
        from fcast.json and their weights from the model files, and the
        training data when save wrote it (save_dataset=True): predict then
        forecasts without df; otherwise it needs df."""
        path = os.fspath(path)
        with open(os.path.join(path, _META)) as f:
            meta = json.load(f)
        if meta.get("format") != _FORMAT:
            raise ValueError(f"fcast: {path}/{_META} is not a directory NeuralForecast.save wrote")
        entries = sorted(meta["models"], key=lambda entry: entry["file"])   # neuralforecast's order: by file name
        nf = NeuralForecast([_remake(entry) for entry in entries], meta["freq"])
        nf.id_col, nf.time_col, nf.target_col = meta["id_col"], meta["time_col"], meta["target_col"]
        for i, entry in enumerate(entries):
            nf._trained[i] = Handle(lib.fcast_model_free)
            check(lib.fcast_model_load(os.path.join(path, entry["file"]).encode(), nf._trained[i].out()))
        if os.path.exists(os.path.join(path, _DATASET)):
            static = os.path.join(path, _STATIC)
            nf._static_df = read_frame(static) if os.path.exists(static) else None
            nf._df = read_frame(os.path.join(path, _DATASET))
            nf._panel = nf._history(nf._df, nf._static_df)
        return nf


def _point(model):
    """Whether the model forecasts one value per point (conformal intervals
    apply), not its own quantiles."""
    return len(model.loss.output_names) == 1 and not isinstance(model.loss, (losses.QuantileLoss, losses.IQLoss))


def _asked_outputs(model, name, level, quantiles):
    """The outputs of a model with its own quantiles to put in predict's
    frame, and their column suffixes: all of them, named as the loss names
    them, but for a DistributionLoss model asked for level or quantiles.
    neuralforecast's predict then draws the asked quantiles (level's as
    utils.level_to_quantiles sorts them, or the sorted quantiles) and names
    the columns as its _get_column_name: the mean "", then -lo-80, -median,
    -hi-80 (level) or _ql0.1 (quantiles). fcast's model draws the quantiles
    it was trained for, so the asked ones are picked from those, and any
    other is refused."""
    loss = model.loss
    if not (level or quantiles) or not loss.is_distribution_output:
        return list(range(len(loss.output_names))), list(loss.output_names)
    if level:
        asked = sorted({q for lv in set(level) for q in ((50 - lv / 2) / 100, (50 + lv / 2) / 100)})
    else:
        asked = sorted(set(quantiles))
    trained = list(loss.quantiles)   # outputs 1, 2, ... (output 0 is the mean)
    picks, suffixes, missing = [0], [""], []
    for q in asked:
        k = next((k for k, t in enumerate(trained) if abs(t - q) < 1e-9), None)
        if k is None:
            missing.append(q)
            continue
        picks.append(1 + k)
        if not level:
            suffixes.append(f"_ql{q}")
        elif q < 0.5:
            suffixes.append(f"-lo-{int(round(100 - 200 * q))}")
        elif q > 0.5:
            suffixes.append(f"-hi-{int(round(100 - 200 * (1 - q)))}")
        else:
            suffixes.append("-median")
    if missing:
        asking = f"level={list(level)}" if level else f"quantiles={list(quantiles)}"
        raise NotImplementedError(f"fcast: {name} with {loss!r}, asked for {asking}: fcast forecasts the quantiles "
                                  f"the model was trained to draw ({', '.join(f'{t:g}' for t in trained)}), and "
                                  f"{', '.join(f'{q:g}' for q in missing)} are not among them (the C API draws no "
                                  "other quantiles from a trained model): train with DistributionLoss(level=...) or "
                                  "quantiles=... that include them")
    return picks, suffixes


def _remake(entry):
    """A model object from its fcast.json entry."""
    loss = getattr(losses, entry["loss"]["class"])(**entry["loss"]["params"])
    cls = getattr(models, entry["class"])
    return cls(entry["h"], entry["input_size"], loss=loss, alias=entry["alias"], **entry["args"])
