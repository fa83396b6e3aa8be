"""fcast.ta against TA-Lib: the values of the ta-lib package
(tests/fixtures/quant/indicators_*.csv, python/make_quant_fixtures.py)
through TA-Lib's own calls, ta-lib's signatures and defaults, pandas in
and out as ta-lib's wrapper does, inputs read without a copy, errors, and
TA-Lib functions fcast lacks."""
import ctypes
import inspect
import os

import pytest

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

import fcast  # noqa: E402
import fcast.ta as ta  # noqa: E402
from fcast import _lib  # noqa: E402

from conftest import FIXTURES  # noqa: E402

QUANT = os.path.join(FIXTURES, "quant")
RTOL, ATOL = 1e-9, 1e-12   # tests/test_indicators.c's


def read_fixture(name):
    """unique_id, ds, y and TA-Lib's columns; values read back exactly."""
    return pd.read_csv(os.path.join(QUANT, name), comment="#", float_precision="round_trip")


def three(prefix, names):
    return [f"{prefix}_{n}" for n in names]


BANDS, MACD = ("upper", "middle", "lower"), ("macd", "signal", "hist")

# column(s) of the fixture -> the TA-Lib call a user writes
DEFAULTS = {
    ("sma",): lambda x: ta.SMA(x),
    ("ema",): lambda x: ta.EMA(x),
    ("wma",): lambda x: ta.WMA(x),
    ("rsi",): lambda x: ta.RSI(x),
    ("mom",): lambda x: ta.MOM(x),
    ("roc",): lambda x: ta.ROC(x),
    ("stddev",): lambda x: ta.STDDEV(x),
    tuple(three("bbands", BANDS)): lambda x: ta.BBANDS(x),       # TA-Lib 0.8.1's default period, 20
    tuple(three("macd", MACD)): lambda x: ta.MACD(x),
}
PARAMS = {
    ("sma_5",): lambda x: ta.SMA(x, 5),
    ("sma_20",): lambda x: ta.SMA(x, timeperiod=20),
    ("sma_1",): lambda x: ta.SMA(x, 1),
    ("ema_10",): lambda x: ta.EMA(x, 10),
    ("ema_20",): lambda x: ta.EMA(x, timeperiod=20),
    ("ema_1",): lambda x: ta.EMA(x, 1),
    ("wma_10",): lambda x: ta.WMA(x, 10),
    ("wma_1",): lambda x: ta.WMA(x, 1),
    ("rsi_7",): lambda x: ta.RSI(x, 7),
    ("rsi_2",): lambda x: ta.RSI(x, timeperiod=2),
    ("mom_3",): lambda x: ta.MOM(x, 3),
    ("roc_5",): lambda x: ta.ROC(x, 5),
    ("stddev_10_2",): lambda x: ta.STDDEV(x, timeperiod=10, nbdev=2),
    ("stddev_20",): lambda x: ta.STDDEV(x, 20),
    tuple(three("bbands_10_1.5", BANDS)): lambda x: ta.BBANDS(x, 10, 1.5, 1.5),
    tuple(three("bbands_20_2", BANDS)): lambda x: ta.BBANDS(x, timeperiod=20),
    tuple(three("bbands_20_2_1", BANDS)): lambda x: ta.BBANDS(x, 20, nbdevup=2.0, nbdevdn=1.0),
    tuple(three("macd_5_13_4", MACD)): lambda x: ta.MACD(x, 5, 13, 4),
    tuple(three("macd_12_26_9", MACD)): lambda x: ta.MACD(x, fastperiod=12, slowperiod=26, signalperiod=9),
    tuple(three("macd_26_12_9", MACD)): lambda x: ta.MACD(x, 26, 12, 9),
}
WITH_NANS = {**DEFAULTS, **{k: v for k, v in PARAMS.items() if k[0] in ("rsi_7", "sma_20", "stddev_20",
                                                                          "bbands_20_2_upper")}}
FILES = {"indicators_eu.csv": DEFAULTS, "indicators_params.csv": PARAMS, "indicators_flat.csv": DEFAULTS,
         "indicators_nan.csv": WITH_NANS}


def compare(got, want, rsi_after_nan_ok=False):
    """(values compared, bit-identical, RSI NaN-for-0); asserts the rest within tolerance."""
    got, want = np.asarray(got), np.asarray(want)
    forgiven = (want == 0.0) & np.isnan(got) if rsi_after_nan_ok else np.zeros(len(got), bool)
    np.testing.assert_allclose(got[~forgiven], want[~forgiven], rtol=RTOL, atol=ATOL, equal_nan=True)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    return len(got), int(same.sum()), int(forgiven.sum())


@pytest.mark.parametrize("file", sorted(FILES))
def test_values_are_talibs(file):
    df = read_fixture(file)
    calls = FILES[file]
    compared = bits = forgiven = 0
    for _, s in df.groupby("unique_id", sort=False):
        x = s["y"].to_numpy()
        for columns, call in calls.items():
            out = call(x)
            outs = out if isinstance(out, tuple) else (out,)
            assert len(outs) == len(columns)
            for got, col in zip(outs, columns):
                n, b, f = compare(got, s[col], rsi_after_nan_ok=file == "indicators_nan.csv" and "rsi" in col)
                compared, bits, forgiven = compared + n, bits + b, forgiven + f
    untested = set(df.columns) - {"unique_id", "ds", "y"} - {c for cols in calls for c in cols}
    assert untested <= {"zscore", "zscore_5", "zscore_20"}   # fcast's own indicator: not TA-Lib's
    assert bits > 0.9 * compared
    assert forgiven == 0   # the drop-in runs TA-Lib's RSI, whose values after a NaN are 0


def test_the_comparison_can_fail():
    s = read_fixture("indicators_eu.csv").query("unique_id == 'DAX'")
    with pytest.raises(AssertionError):
        compare(ta.SMA(s["y"].to_numpy(), 29), s["sma"])
    with pytest.raises(AssertionError):
        compare(ta.BBANDS(s["y"].to_numpy(), 5)[0], s["bbands_upper"])   # TA-Lib's default before 0.8.1


# ta-lib's signatures (talib/_func.pxi) with the defaults TA-Lib 0.8.1 gives
# them (talib.abstract; tests/fixtures/quant/indicators_lookback.csv): BBANDS'
# period is 20 since 0.8.1 (TA-Lib's changelog, #133), 5 before
TALIB_SIGNATURES = {
    "SMA": [("real", None), ("timeperiod", 30)],
    "EMA": [("real", None), ("timeperiod", 30)],
    "WMA": [("real", None), ("timeperiod", 30)],
    "BBANDS": [("real", None), ("timeperiod", 20), ("nbdevup", 2.0), ("nbdevdn", 2.0), ("matype", 0)],
    "RSI": [("real", None), ("timeperiod", 14)],
    "MACD": [("real", None), ("fastperiod", 12), ("slowperiod", 26), ("signalperiod", 9)],
    "MOM": [("real", None), ("timeperiod", 10)],
    "ROC": [("real", None), ("timeperiod", 10)],
    "STDDEV": [("real", None), ("timeperiod", 5), ("nbdev", 1.0)],
}


@pytest.mark.parametrize("name", sorted(TALIB_SIGNATURES))
def test_signatures_are_talibs(name):
    params = inspect.signature(getattr(ta, name)).parameters.values()
    got = [(p.name, None if p.default is inspect.Parameter.empty else p.default) for p in params]
    assert got == TALIB_SIGNATURES[name]
    assert name in ta.__all__


def dax(n=None):
    return read_fixture("indicators_params.csv")["y"].to_numpy()[:n]


def lookbacks():
    """TA-Lib's lookback and resolved parameters of each spec (talib.abstract)."""
    return pd.read_csv(os.path.join(QUANT, "indicators_lookback.csv"), comment="#").set_index("spec")


def test_bbands_defaults_are_talibs():
    x = dax(300)
    upper, middle, lower = ta.BBANDS(x)
    for got, want in zip((upper, middle, lower), ta.BBANDS(x, 20, 2.0, 2.0)):
        np.testing.assert_array_equal(got, want)
    talib = lookbacks().loc["bbands"]   # what TA-Lib reports for BBANDS' defaults
    assert (talib.p1, talib.p2, talib.p3, talib.lookback) == (20, 2.0, 2.0, 19)
    assert np.isnan(upper[:19]).all() and not np.isnan(upper[19:]).any()
    np.testing.assert_allclose(middle, ta.SMA(x, 20), rtol=1e-15, equal_nan=True)
    np.testing.assert_allclose(upper - middle, 2.0 * ta.STDDEV(x, 20), rtol=1e-12, atol=1e-9, equal_nan=True)


@pytest.mark.parametrize("name,spec", [("SMA", "sma"), ("EMA", "ema"), ("WMA", "wma"), ("RSI", "rsi"), ("MOM", "mom"),
                                       ("ROC", "roc"), ("STDDEV", "stddev"), ("MACD", "macd")])
def test_default_lookbacks_are_talibs(name, spec):
    """Leading NaNs of each function at its defaults = TA-Lib's lookback."""
    out = getattr(ta, name)(dax(300))
    first = out[0] if isinstance(out, tuple) else out
    assert int(np.isnan(first).sum()) == lookbacks().loc[spec, "lookback"]


def test_matype_takes_talibs_moving_averages():
    x = dax(100)
    np.testing.assert_array_equal(ta.BBANDS(x, 20, matype=ta.MA_Type.EMA)[1], ta.EMA(x, 20))
    np.testing.assert_array_equal(ta.BBANDS(x, 20, matype=1)[1], ta.EMA(x, 20))

    class MAType:   # talib.MA_Type.SMA is an enum member of value 0
        value = 0

    np.testing.assert_array_equal(ta.BBANDS(x, 20, matype=MAType())[0], ta.BBANDS(x, 20)[0])


def test_pandas_series_in_and_out():
    x = dax(200)
    s = pd.Series(x, index=pd.date_range("2020-01-01", periods=200, freq="B"), name="close")
    out = ta.RSI(s, 7)
    assert isinstance(out, pd.Series) and out.index.equals(s.index) and out.name is None   # ta-lib's wrapper
    np.testing.assert_array_equal(out.to_numpy(), ta.RSI(x, 7))
    bands = ta.BBANDS(s, 20)
    assert isinstance(bands, tuple) and len(bands) == 3
    assert all(isinstance(b, pd.Series) and b.index.equals(s.index) for b in bands)
    macd = ta.MACD(s.astype(np.float32))   # converted, as ta-lib's wrapper converts
    np.testing.assert_allclose(macd[2].to_numpy(), ta.MACD(x.astype(np.float32).astype(np.float64))[2],
                               rtol=1e-15, equal_nan=True)
    nullable = pd.Series([1.0, 2.0, None, 4.0, 5.0], dtype="Float64")
    assert np.isnan(ta.SMA(nullable, 2).to_numpy()[2:4]).all()   # pd.NA is NaN


def x_address_passed(monkeypatch, call):
    """The address of the input buffer that call() gives to
    fcast_indicator_inputs: a spy replaces the function on the library
    object (looked up at each call) and records where the first input
    points, then calls the real function."""
    seen = []
    real = _lib.lib.fcast_indicator_inputs

    def spy(spec, rows, indptr, ins, n_in, outs, n_out):
        seen.append(ctypes.cast(ins[0], ctypes.c_void_p).value)
        return real(spec, rows, indptr, ins, n_in, outs, n_out)

    monkeypatch.setattr(_lib.lib, "fcast_indicator_inputs", spy)
    out = call()
    monkeypatch.undo()
    assert len(seen) == 1
    return seen[0], out


def test_float64_input_is_read_without_a_copy(monkeypatch):
    x = dax(500)
    address, out = x_address_passed(monkeypatch, lambda: ta.EMA(x, 10))
    assert address == x.ctypes.data
    s = pd.Series(x.copy())
    address, _ = x_address_passed(monkeypatch, lambda: ta.EMA(s, 10))
    assert address == s.to_numpy().ctypes.data   # the Series' own storage
    # controls: inputs that need converting are copied, to the same values
    strided = np.repeat(x, 2)[::2]
    address, got = x_address_passed(monkeypatch, lambda: ta.EMA(strided, 10))
    assert address != strided.ctypes.data and not np.shares_memory(got, strided)
    np.testing.assert_array_equal(got, out)
    as_int = np.round(x).astype(np.int64)
    address, got = x_address_passed(monkeypatch, lambda: ta.EMA(as_int, 10))
    assert address != as_int.ctypes.data
    np.testing.assert_array_equal(got, ta.EMA(np.round(x), 10))


def test_outputs_are_new_float64_arrays():
    x = dax(100)
    before = x.copy()
    for out in (ta.SMA(x, 10),) + ta.MACD(x, 5, 13, 4):
        assert out.dtype == np.float64 and out.shape == x.shape and out.flags.writeable
        assert not np.shares_memory(out, x)
    np.testing.assert_array_equal(x, before)   # the input is only read


def test_short_empty_and_list_inputs():
    x = dax(40)
    assert np.isnan(ta.SMA(x[:10], 30)).all() and len(ta.SMA(x[:10], 30)) == 10
    assert np.isnan(ta.RSI(x[:14], 14)).all()
    assert ta.RSI(x[:15], 14)[14] == ta.RSI(x, 14)[14]   # one value at n = lookback + 1, the series' own
    assert ta.SMA(np.array([]), 5).shape == (0,)
    np.testing.assert_array_equal(ta.MOM(list(x), 3), ta.MOM(x, 3))
    lead = np.concatenate([[np.nan] * 3, x])
    np.testing.assert_array_equal(ta.WMA(lead, 5)[3:], ta.WMA(x, 5))   # leading NaNs skipped, as ta-lib


def test_bad_arguments_are_value_errors_naming_them():
    x = dax(100)
    with pytest.raises(ValueError) as info:
        ta.SMA(x, 0)
    assert isinstance(info.value, fcast.FcastValueError) and info.value.status_name == "FC_ERR_INVALID"
    assert str(info.value) == "SMA(timeperiod=0): fcast_indicator_inputs: spec 'sma:0': SMA: timeperiod must be in [1, 100000], got 0"
    with pytest.raises(fcast.FcastValueError, match=r"RSI\(timeperiod=1\): .*timeperiod must be in \[2, 100000\], got 1"):
        ta.RSI(x, 1)
    with pytest.raises(ValueError, match="timeperiod must be in \\[1, 100000\\], got 100001"):
        ta.EMA(x, 100001)
    with pytest.raises(ValueError, match=r"MACD\(fastperiod=1, .*fastperiod must be in \[2, 100000\], got 1"):
        ta.MACD(x, 1)
    with pytest.raises(ValueError, match=r"nbdevup must be in \[-3e37, 3e37\], got inf"):
        ta.BBANDS(x, 20, float("inf"))
    with pytest.raises(TypeError, match="timeperiod must be an integer"):
        ta.SMA(x, 2.5)
    with pytest.raises(ValueError, match="one- or two-dimensional"):
        ta.SMA(x.reshape(2, 5, 10), 5)
    with pytest.raises(ValueError, match="the inputs must have the same length"):
        ta.ATR(x, x, x[:50])
    with pytest.raises(TypeError, match="missing a required argument: 'close'"):
        ta.ATR(x, x)


def test_names_talib_lacks_are_absent():
    with pytest.raises(AttributeError, match="has no attribute 'NOT_A_FUNCTION'"):
        ta.NOT_A_FUNCTION
    with pytest.raises(ImportError):
        from fcast.ta import atr  # noqa: F401   (TA-Lib's names are upper case)
    assert set(TALIB_SIGNATURES) <= set(ta.__all__)


def test_two_dimensional_inputs_compute_every_row():
    x = dax(600).reshape(3, 200)
    got = ta.ATR(x + 1, x - 1, x, 5)
    assert got.shape == x.shape
    for r in range(3):
        np.testing.assert_array_equal(got[r], ta.ATR(x[r] + 1, x[r] - 1, x[r], 5))
    bands = ta.BBANDS(x, 10)
    assert len(bands) == 3 and all(b.shape == x.shape for b in bands)
    np.testing.assert_array_equal(bands[0][1], ta.BBANDS(x[1], 10)[0])


def test_signatures_match_talib_inventory():
    """Every function fcast.ta has takes TA-Lib's parameters with TA-Lib's
    defaults, by tests/fixtures/talib/functions.json (TA-Lib 0.8.2's own
    listing, python/make_talib_inventory.py): the drop-in's signatures
    checked against the package without importing it."""
    import inspect
    import json
    import os

    from conftest import FIXTURES
    import fcast.ta as fta

    with open(os.path.join(FIXTURES, "talib", "functions.json")) as f:
        inventory = {d["name"]: d for d in json.load(f)["functions"]}
    assert len(inventory) == 201
    for name in fta.get_functions():
        params = list(inspect.signature(getattr(fta, name)).parameters.values())
        theirs = inventory[name]["parameters"]
        n_inputs = sum(1 if isinstance(v, str) else len(v) for v in inventory[name]["inputs"].values())
        assert [p.name for p in params[n_inputs:]] == list(theirs), name
        for p in params[n_inputs:]:
            assert p.default == theirs[p.name], (name, p.name, p.default, theirs[p.name])
