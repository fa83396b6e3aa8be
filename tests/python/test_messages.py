"""Messages a Python caller reads name what the caller gave: the DataFrame
and its own row labels, never the C function the package called nor a
position in arrays it never saw (issue 35)."""
import pytest

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

from fcast import NeuralForecast  # noqa: E402
from fcast.models import NHITS  # noqa: E402


def _frame():
    return pd.DataFrame({"unique_id": ["a"] * 30 + ["b"] * 30,
                         "ds": list(pd.date_range("2020-01-01", periods=30, freq="D")) * 2,
                         "y": np.arange(60.0)})


def _fit(df):
    NeuralForecast(models=[NHITS(h=7, input_size=14, max_steps=1)], freq="D").fit(df)


def test_infinite_value_names_the_row_label_of_a_shuffled_frame():
    df = _frame().sample(frac=1, random_state=3)
    label = df.index[10]
    df.loc[label, "y"] = np.inf
    with pytest.raises(ValueError) as e:
        _fit(df)
    text = str(e.value)
    assert text.startswith(f"the DataFrame, row {label} ("), text
    assert "fcast_data_from" not in text and "position" not in text


def test_duplicate_names_both_rows_by_label():
    df = _frame()
    df.index = [f"r{i}" for i in range(len(df))]
    df.loc["r5", "ds"] = df.loc["r4", "ds"]
    with pytest.raises(ValueError) as e:
        _fit(df)
    assert "the DataFrame, row 'r5': column 'ds'" in str(e.value)
    assert "already at row 'r4'" in str(e.value)


def test_later_messages_name_the_dataframe():
    with pytest.raises(ValueError) as e:
        _fit(_frame().groupby("unique_id").head(5))
    assert str(e.value).startswith("the DataFrame: the longest series has 5 training points"), str(e.value)
