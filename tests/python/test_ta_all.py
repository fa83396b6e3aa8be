"""fcast.ta as a drop-in for ta-lib, function by function: every TA-Lib
function called as a ta-lib script calls it (inputs positionally,
parameters by keyword) gives the ta-lib package's outputs on every case of
its fixture (tests/fixtures/talib/out, made by python/make_ta_fixtures.py
on real prices): the same types (float64, or int32 with 0 in the lookback),
the same values (bit for bit where test_ta_fixtures finds them so, else
within 1e-12 relative); its signature is ta-lib's; abstract.Function gives
the same from a DataFrame. Where the ta-lib package is installed, a few
calls are compared with it live as well."""
import csv
import inspect
import json
import os

import pytest

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

import fcast.ta as ta  # noqa: E402
from fcast.ta import abstract  # noqa: E402

from conftest import FIXTURES  # noqa: E402

TALIB = os.path.join(FIXTURES, "talib")
UNIT_INPUT = {"ACOS", "ASIN", "ATAN", "COS", "COSH", "EXP", "SIN", "SINH", "TAN", "TANH"}

with open(os.path.join(TALIB, "functions.json")) as f:
    INVENTORY = {d["name"]: d for d in json.load(f)["functions"]}
with open(os.path.join(TALIB, "integer_outputs.json")) as f:
    INTEGER_OUTPUTS = json.load(f)


def bars():
    frame = pd.read_csv(os.path.join(TALIB, "input.csv"), float_precision="round_trip")
    return {uid: g.reset_index(drop=True) for uid, g in frame.groupby("series")}


BARS = bars()


def columns(name):
    """The columns the function reads, in ta-lib's argument order."""
    cols = []
    for value in INVENTORY[name]["inputs"].values():
        cols.extend([value] if isinstance(value, str) else value)
    return ["unit" if (name in UNIT_INPUT and c == "close") else c for c in cols]


def cases(name):
    with open(os.path.join(TALIB, "out", f"{name}.csv")) as f:
        for row in csv.reader(f):
            case, uid, length, ptext, output = row[:5]
            params = {}
            for tok in ptext.split():
                k, v = tok.split("=")
                params[k] = float(v) if "." in v or "e" in v else int(v)
            yield case, uid, int(length), params, output, np.array([float(v) for v in row[5:]])


def inputs(name, case, uid, length):
    arrays = [BARS[uid][c].to_numpy()[:length].copy() for c in columns(name)]
    if case == "nan":
        for a in arrays:
            a[:3] = np.nan
            a[150] = np.nan
    return arrays


def check_output(name, got, want, integer):
    if integer:
        assert got.dtype == np.int32, name
        expect = np.where(np.isnan(want), 0, want).astype(np.int32)
        np.testing.assert_array_equal(got, expect, err_msg=name)
        return
    assert got.dtype == np.float64
    assert np.array_equal(np.isnan(got), np.isnan(want)), name
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=1e-12, atol=0, err_msg=name)


def by_case(name):
    grouped = {}
    for case, uid, length, params, output, values in cases(name):
        grouped.setdefault((case, uid, length, tuple(params.items())), {})[output] = values
    return grouped


@pytest.mark.parametrize("name", sorted(INVENTORY))
def test_every_function_gives_talibs_values(name):
    if name not in ta.__all__:
        pytest.skip(f"{name} is not in fcast yet")
    fn = getattr(ta, name)
    outputs = INVENTORY[name]["outputs"]
    ints = set(INTEGER_OUTPUTS.get(name, []))
    for (case, uid, length, params), want in by_case(name).items():
        if case == "unstable":   # the fixture's talib.set_unstable_period(NAME, 25)
            ta.set_unstable_period(name, 25)
        try:
            got = fn(*inputs(name, case, uid, length), **dict(params))
        finally:
            ta.set_unstable_period("ALL", 0)
        got = list(got) if isinstance(got, tuple) else [got]
        assert len(got) == len(outputs), name
        for o, g in zip(outputs, got):
            check_output(f"{name} {case} {uid} {o}", g, want[o], o in ints)


@pytest.mark.parametrize("name", sorted(INVENTORY))
def test_every_signature_is_talibs(name):
    if name not in ta.__all__:
        pytest.skip(f"{name} is not in fcast yet")
    params = list(inspect.signature(getattr(ta, name)).parameters.values())
    n_in = len(columns(name))
    want_inputs = []
    for key, value in INVENTORY[name]["inputs"].items():
        if isinstance(value, str):
            want_inputs.append({"price": "real", "price0": "real0", "price1": "real1"}.get(key, key))
        else:
            want_inputs.extend(value)
    assert [p.name for p in params[:n_in]] == want_inputs
    assert [(p.name, p.default) for p in params[n_in:]] == list(INVENTORY[name]["parameters"].items())


def test_unstable_periods_are_talibs_or_refused():
    x = BARS["GOOG"]["close"].to_numpy()[:300]
    base = ta.RSI(x, 14)
    ta.set_unstable_period("RSI", 10)
    try:
        assert ta.get_unstable_period("RSI") == 10 and ta.get_unstable_period("EMA") == 0
        moved = ta.RSI(x, 14)
        assert np.isnan(moved[:24]).all() and np.array_equal(moved[24:], base[24:])
        with pytest.raises(ValueError, match="MACD: an unstable period is set"):
            ta.MACD(x)   # TA-Lib would feed EMA's periods into it: refused, not computed otherwise
        np.testing.assert_array_equal(ta.SMA(x, 5), ta.SMA(x, 5))   # untouched functions still run
    finally:
        ta.set_unstable_period("ALL", 0)
    assert ta.get_unstable_period("RSI") == 0
    np.testing.assert_array_equal(ta.MACD(x)[0], ta.MACD(x)[0])
    with pytest.raises(ValueError, match="SMA has none"):
        ta.set_unstable_period("SMA", 3)


def test_abstract_function_reads_a_dataframe():
    frame = BARS["GOOG"][["open", "high", "low", "close", "volume"]].iloc[:300]
    atr = abstract.Function("ATR")
    assert atr.info["input_names"] == {"prices": ["high", "low", "close"]}
    assert atr.lookback == 14 and atr.output_names == ["real"]
    got = atr(frame, timeperiod=10)
    assert isinstance(got, pd.Series) and got.index.equals(frame.index)
    np.testing.assert_array_equal(got.to_numpy(), ta.ATR(frame.high, frame.low, frame.close, 10).to_numpy())
    stoch = abstract.STOCH(frame)
    assert isinstance(stoch, pd.DataFrame) and list(stoch.columns) == ["slowk", "slowd"]
    arrays = abstract.Function("stoch")({c: frame[c].to_numpy() for c in frame})
    assert isinstance(arrays, list) and len(arrays) == 2
    np.testing.assert_array_equal(arrays[0], stoch["slowk"].to_numpy())
    sma = abstract.Function("SMA", timeperiod=5)
    sma.input_names = {"price": "open"}
    np.testing.assert_array_equal(sma(frame).to_numpy(), ta.SMA(frame.open.to_numpy(), 5))


def test_groups_and_functions_are_talibs():
    assert set(ta.get_functions()) <= set(INVENTORY)
    for group, names in ta.get_function_groups().items():
        assert all(INVENTORY[n]["group"] == group for n in names)
    assert ta.MA_Type.T3 == 8 and ta.MA_Type.RMA == 13


def test_against_the_talib_package_where_installed():
    talib = pytest.importorskip("talib")
    frame = BARS["EURUSD"]
    h, lo, c, v = (frame[k].to_numpy() for k in ("high", "low", "close", "volume"))
    for name, args in (("ADX", (h, lo, c)), ("OBV", (c, v)), ("SAR", (h, lo)), ("HT_SINE", (c,))):
        if name not in ta.__all__:
            continue
        mine, theirs = getattr(ta, name)(*args), getattr(talib, name)(*args)
        mine = mine if isinstance(mine, tuple) else (mine,)
        theirs = theirs if isinstance(theirs, tuple) else (theirs,)
        for a, b in zip(mine, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-12, equal_nan=True)
