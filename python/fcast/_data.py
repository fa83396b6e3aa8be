"""DataFrames to fcast panels, and forecasts back to neuralforecast's frame.

A long DataFrame (id, ds, y) becomes an fcast_data handle through
fcast_data_from_arrays in the grouped layout: the rows of each series
contiguous, `indptr` their offsets. The y column goes to C without a copy
when it is float64 and contiguous and the rows are already grouped (the C
side copies it into its own panel, so nothing here keeps it alive past
the call); otherwise numpy makes the one copy needed. Points need not be
sorted within a series: the C side sorts them and fills gaps on the
frequency grid, as it does for a file.
"""
import ctypes
import warnings

import numpy as np
import pandas as pd

from ._lib import FCAST_DS_DATE, FCAST_DS_DATETIME, FCAST_DS_INDEX, check, lib

_SECONDS_PER_DAY = 86400


class Handle:
    """An owned C handle, freed by its _free function when dropped; ctypes
    passes it as the pointer (`_as_parameter_`)."""

    def __init__(self, free):
        self._as_parameter_ = ctypes.c_void_p()
        self._free = free

    def out(self):
        """The address to pass as a call's `out` argument."""
        return ctypes.byref(self._as_parameter_)

    def __del__(self):
        if self._as_parameter_:
            self._free(self._as_parameter_)
            self._as_parameter_ = ctypes.c_void_p()


def _pointer(array, ctype):
    return array.ctypes.data_as(ctypes.POINTER(ctype))


def _float64(series):
    """The column as a contiguous float64 array: its own buffer when it is
    one already (no copy), else converted with missing values as NaN."""
    y = series.to_numpy()
    if y.dtype != np.float64:
        y = series.to_numpy(dtype=np.float64, na_value=np.nan)
    return np.ascontiguousarray(y)


def _ds_seconds(series):
    """ds as int64 and its fcast_ds_kind: integers as they are, datetimes as
    seconds since 1970 (DATE when every one is a midnight)."""
    if pd.api.types.is_integer_dtype(series.dtype):
        return series.to_numpy(dtype=np.int64), FCAST_DS_INDEX
    if isinstance(series.dtype, pd.DatetimeTZDtype):
        raise ValueError(f"fcast: column '{series.name}' has a time zone ({series.dtype.tz}); "
                         "fcast takes naive datetimes: convert with .dt.tz_localize(None)")
    if not pd.api.types.is_datetime64_dtype(series.dtype):
        raise ValueError(f"fcast: column '{series.name}' is {series.dtype}; it must be datetime64 "
                         "(pd.to_datetime) or integer, as for neuralforecast")
    values = series.to_numpy()
    if np.isnat(values).any():
        raise ValueError(f"fcast: column '{series.name}' has missing dates (NaT)")
    seconds = values.astype("datetime64[s]")
    if (seconds != values).any():
        raise ValueError(f"fcast: column '{series.name}' has times finer than a second, which fcast does not keep")
    seconds = seconds.astype(np.int64)
    return seconds, FCAST_DS_DATE if not (seconds % _SECONDS_PER_DAY).any() else FCAST_DS_DATETIME


def _groups(codes):
    """Row order that makes each series' rows contiguous (None: they are
    already), and the start of each run of rows in that order."""
    change = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    if len(change) + 1 == codes.max() + 1:
        return None, np.concatenate([[0], change])
    order = np.argsort(codes, kind="stable")
    return order, np.concatenate([[0], np.flatnonzero(np.diff(codes[order])) + 1])


class Panel:
    """A DataFrame's series as an fcast_data handle, with what a forecast
    frame needs: the series' ids in neuralforecast's (sorted) order, each
    one's last ds, and where each sits in fcast's order (fcast sorts ids
    as byte strings, neuralforecast by value: 10 after 9)."""

    def __init__(self, df, freq, id_col="unique_id", time_col="ds", target_col="y"):
        missing = [c for c in (id_col, time_col, target_col) if c not in df.columns]
        if missing:
            raise KeyError(f"fcast: the DataFrame has no column {missing} (it has {list(df.columns)})")
        if not len(df):
            raise ValueError("fcast: the DataFrame is empty")
        codes, self.uids = pd.factorize(df[id_col], sort=True)
        if (codes < 0).any():
            raise ValueError(f"fcast: column '{id_col}' has missing ids")
        y = _float64(df[target_col])
        ds, kind = _ds_seconds(df[time_col])
        order, starts = _groups(codes)
        if order is not None:
            y, ds, codes = y[order], ds[order], codes[order]
        self.ds_dtype = df[time_col].dtype
        self.handle = self._build(codes[starts], starts, y, ds, kind, freq)
        self.last = self._last(ds, kind, codes[starts], starts)
        self.fcast_order = self._fcast_order()

    def _build(self, run_codes, starts, y, ds, kind, freq):
        ids = [str(u).encode() for u in self.uids]
        if len(set(ids)) < len(ids):
            raise ValueError("fcast: two unique_id values have the same text (fcast ids are strings)")
        id_array = (ctypes.c_char_p * len(starts))(*[ids[c] for c in run_codes])
        indptr = np.append(starts, len(y)).astype(np.int64)
        handle = Handle(lib.fcast_data_free)
        check(lib.fcast_data_from_arrays(len(starts), id_array, _pointer(indptr, ctypes.c_int64),
                                         _pointer(y, ctypes.c_double), _pointer(ds, ctypes.c_int64), kind,
                                         str(freq).encode(), handle.out()))
        return handle

    def _last(self, ds, kind, run_codes, starts):
        """Each series' last ds, in the order of self.uids, in ds's dtype."""
        last = np.empty(len(self.uids), dtype=np.int64)
        last[run_codes] = np.maximum.reduceat(ds, starts)
        return last if kind == FCAST_DS_INDEX else last.astype("datetime64[s]").astype(self.ds_dtype)

    def _fcast_order(self):
        """For each series of self.uids, its index in fcast's order."""
        n = lib.fcast_data_n_series(self.handle)
        position = {str(u): i for i, u in enumerate(self.uids)}
        fcast_ids = [lib.fcast_data_id(self.handle, i).decode() for i in range(n)]
        index = np.empty(n, dtype=np.intp)
        index[[position[s] for s in fcast_ids]] = np.arange(n)
        return index

    def future(self, h, freq, id_col, time_col):
        """The id and ds columns of the h points after every series' end, as
        neuralforecast's make_future_dataframe: start = last + freq, then
        start + i * freq."""
        ids = self.uids.take(np.repeat(np.arange(len(self.uids)), h))
        if pd.api.types.is_integer_dtype(self.ds_dtype):
            ds = (self.last[:, None] + int(freq) * np.arange(1, h + 1)).ravel()
        else:
            offset = pd.tseries.frequencies.to_offset(freq)
            with warnings.catch_warnings():   # offsets pandas does not vectorise (as utilsforecast does)
                warnings.simplefilter("ignore", pd.errors.PerformanceWarning)
                start = pd.DatetimeIndex(self.last) + offset
                ds = np.stack([(start + i * offset).to_numpy() for i in range(h)], axis=1).ravel()
        return pd.DataFrame({id_col: ids, time_col: pd.Series(ds, dtype=self.ds_dtype)})
