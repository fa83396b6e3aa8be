"""DataFrames to fcast panels, and forecasts back to neuralforecast's frame.

A long DataFrame (id, ds, y, exogenous columns) becomes an fcast_data
handle through fcast_data_from_columns in the grouped layout: the rows of each series
contiguous, `indptr` their offsets. The y column goes to C without a copy
when it is float64 and contiguous and the rows are already grouped (the C
side copies it into its own panel, so nothing here keeps it alive past
the call); otherwise numpy makes the one copy needed. Points need not be
sorted within a series: the C side sorts them and fills gaps on the
frequency grid, as it does for a file.
"""
import ctypes
import re
import warnings

import numpy as np
import pandas as pd

from ._lib import FC_OK, FCAST_DS_DATE, FCAST_DS_DATETIME, FCAST_DS_INDEX, FcastColumn, check, error, lib

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


# pandas renamed its end-of-period and sub-daily aliases in 2.2 ("M" ->
# "ME", "H" -> "h"); either spelling is accepted here, for any pandas
_ALIASES = {"ME": "M", "QE": "Q", "YE": "A", "BME": "BM", "h": "H", "min": "T", "s": "S",
            "M": "ME", "Q": "QE", "A": "YE", "Y": "YE", "BM": "BME", "H": "h", "T": "min", "S": "s"}


def _split_alias(freq):
    """"30min" -> ("30", "min"); "W-SUN" -> ("", "W-SUN")."""
    text = str(freq)
    digits = text[:len(text) - len(text.lstrip("0123456789"))]
    return digits, text[len(digits):]


def _grid_alias(freq):
    """freq as fcast's C side names its grid: pandas' anchored weeks
    ("W-SUN", "W-MON", ...) are 7-day steps whatever the day, fcast's "W"
    (the dates stay the caller's; the future ones follow the anchor, as
    pandas computes them)."""
    digits, unit = _split_alias(freq)
    return digits + "W" if unit.startswith("W-") and unit[2:] in _WEEKDAYS else str(freq)


_WEEKDAYS = ("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")


def _offset(freq):
    """freq as a pandas offset, in this pandas' spelling."""
    try:
        return pd.tseries.frequencies.to_offset(freq)
    except ValueError:
        digits, unit = _split_alias(freq)
        if unit not in _ALIASES:
            raise
        return pd.tseries.frequencies.to_offset(digits + _ALIASES[unit])


def _column_array(columns):
    """fcast_column structs of {name: float64 array} and their count (the
    arrays are the caller's to keep alive for the call)."""
    array = (FcastColumn * max(len(columns), 1))(*[FcastColumn(name.encode(), _pointer(values, ctypes.c_double))
                                                   for name, values in columns.items()])
    return array, len(columns)


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


def _id_bytes(uids, where):
    """The ids as the C side's NUL-terminated strings: an id holding a NUL
    would reach it cut short (and "a\0b" match "a"), so it is refused."""
    ids = [str(u).encode() for u in uids]
    for u, text in zip(uids, ids):
        if b"\0" in text:
            raise ValueError(f"fcast: {where} holds the id {u!r}, which contains a NUL character; "
                             "fcast's ids are C strings and cannot hold one")
    return ids


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
    as byte strings, neuralforecast by value: 10 after 9).

    exog names the extra columns to pass (the exogenous columns the models
    read; others stay behind, as neuralforecast ignores them); target_col
    None makes a panel of future values (futr_df: no target). static_df
    and stat (its columns to pass) attach static values."""

    def __init__(self, df, freq, id_col="unique_id", time_col="ds", target_col="y", exog=(), static_df=None,
                 stat=()):
        needed = [id_col, time_col] + ([target_col] if target_col else []) + list(exog)
        missing = [c for c in needed if c not in df.columns]
        if missing:
            raise KeyError(f"fcast: the DataFrame has no column {missing} (it has {list(df.columns)})")
        if not len(df):
            raise ValueError("fcast: the DataFrame is empty")
        codes, self.uids = pd.factorize(df[id_col], sort=True)
        if (codes < 0).any():
            raise ValueError(f"fcast: column '{id_col}' has missing ids")
        columns = {name: _float64(df[name]) for name in ([target_col] if target_col else []) + list(exog)}
        ds, kind = _ds_seconds(df[time_col])
        order, starts = _groups(codes)
        self._order, self._index = order, df.index
        if order is not None:
            columns = {name: values[order] for name, values in columns.items()}
            ds, codes = ds[order], codes[order]
        self.ds_dtype = df[time_col].dtype
        y = columns.pop(target_col) if target_col else None
        self.handle = self._build(codes[starts], starts, y, ds, kind, freq, columns, id_col)
        self.last = self._last(ds, kind, codes[starts], starts)
        self.fcast_order = self._fcast_order()
        if stat:
            self._attach_static(static_df, id_col, stat)

    def _build(self, run_codes, starts, y, ds, kind, freq, columns, id_col):
        ids = _id_bytes(self.uids, f"column '{id_col}'")
        if len(set(ids)) < len(ids):
            raise ValueError("fcast: two unique_id values have the same text (fcast ids are strings)")
        id_array = (ctypes.c_char_p * len(starts))(*[ids[c] for c in run_codes])
        indptr = np.append(starts, len(ds)).astype(np.int64)
        handle = Handle(lib.fcast_data_free)
        status = lib.fcast_data_from_columns(len(starts), id_array, _pointer(indptr, ctypes.c_int64),
                                             None if y is None else _pointer(y, ctypes.c_double),
                                             _pointer(ds, ctypes.c_int64), kind, _grid_alias(freq).encode(),
                                             *_column_array(columns), handle.out())
        if status != FC_OK:
            failure = error(status)
            raise type(failure)(failure.status, self._df_rows(str(failure))) from None
        return handle

    def _df_rows(self, message):
        """A message about positions of the arrays given to C ("the
        DataFrame, position 5", "already at position 4") in the DataFrame's
        own row labels: the arrays are its rows grouped by series."""
        def label(match):
            p = int(match.group(2))
            row = p if self._order is None else int(self._order[p])
            return f"{match.group(1)}row {self._index[row]!r}" if 0 <= p < len(self._index) else match.group(0)
        return re.sub(r"(the DataFrame, |already at )position (\d+)", label, message)

    def _attach_static(self, static_df, id_col, stat):
        """static_df's columns `stat`, one row per series (neuralforecast's static_df)."""
        if static_df is None:
            raise ValueError(f"fcast: the models read static exogenous columns {list(stat)}: pass static_df")
        missing = [c for c in [id_col] + list(stat) if c not in static_df.columns]
        if missing:
            raise KeyError(f"fcast: static_df has no column {missing} (it has {list(static_df.columns)})")
        ids = (ctypes.c_char_p * len(static_df))(*_id_bytes(static_df[id_col], f"static_df's column '{id_col}'"))
        columns = {name: _float64(static_df[name]) for name in stat}
        check(lib.fcast_data_set_static(self.handle, len(static_df), ids, *_column_array(columns)))

    def ds_values(self, ds):
        """int64 ds of this panel's kind (seconds or steps) in its ds dtype."""
        if pd.api.types.is_integer_dtype(self.ds_dtype):
            return ds.astype(self.ds_dtype)
        return pd.Series(ds.astype("datetime64[s]"), dtype=self.ds_dtype).to_numpy()

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
            offset = _offset(freq)
            with warnings.catch_warnings():   # offsets pandas does not vectorise (as utilsforecast does)
                warnings.simplefilter("ignore", pd.errors.PerformanceWarning)
                start = pd.DatetimeIndex(self.last) + offset
                ds = np.stack([(start + i * offset).to_numpy() for i in range(h)], axis=1).ravel()
        return pd.DataFrame({id_col: ids, time_col: pd.Series(ds, dtype=self.ds_dtype)})
