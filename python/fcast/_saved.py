"""A DataFrame to and from an .npz file, for NeuralForecast.save(save_dataset=True).

numpy's own format, not a pickle: loading a saved directory runs no code
from it (np.load with allow_pickle=False refuses object arrays), and it
needs nothing beyond numpy. Columns are kept with their dtypes (datetime64,
integers, floats, strings as numpy unicode); the column order is the
file's "columns" entry.
"""
import numpy as np
import pandas as pd

_ORDER = "__columns__"


def _array(series):
    """A column as a numpy array numpy can store without pickling: text
    (object dtype) as unicode."""
    values = series.to_numpy()
    if values.dtype == object:
        values = values.astype(str)
    return values


def write_frame(path, df):
    """Writes df's columns to path (.npz)."""
    arrays = {f"c{i}": _array(df[name]) for i, name in enumerate(df.columns)}
    np.savez(path, **arrays, **{_ORDER: np.array([str(c) for c in df.columns])})


def read_frame(path):
    """The DataFrame write_frame wrote to path."""
    with np.load(path, allow_pickle=False) as saved:
        names = list(saved[_ORDER])
        return pd.DataFrame({name: saved[f"c{i}"] for i, name in enumerate(names)})
