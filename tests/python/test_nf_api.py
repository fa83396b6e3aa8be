"""NeuralForecast's predict_insample, make_future_dataframe,
get_missing_future and save(save_dataset=True)/load/predict() (issue 35).

The truths are independent of the code under test: future frames are
pandas' own date arithmetic; in-sample windows follow neuralforecast
3.3.0's layout (last window ending at each series' end, the first at
(L - h) mod step_size, cutoff = the point before the window, as its frames have it) and each window's
forecast equals predict() on the history cut before it.
"""
import numpy as np
import pytest

pd = pytest.importorskip("pandas")

from conftest import FAST  # noqa: E402

H = 12


@pytest.fixture(scope="module")
def point(monthly):
    from fcast import NeuralForecast
    from fcast.models import NHITS

    nf = NeuralForecast(models=[NHITS(h=H, input_size=24, **FAST)], freq="MS")
    nf.fit(monthly)
    return nf


def test_make_future_dataframe_is_the_next_h_months(point, monthly):
    future = point.make_future_dataframe()
    last = monthly.groupby("unique_id").ds.max()
    expected = pd.DataFrame({"unique_id": np.repeat(last.index, H),
                             "ds": np.concatenate([pd.date_range(d, periods=H + 1, freq="MS")[1:] for d in last])})
    pd.testing.assert_frame_equal(future, expected)


def test_make_future_dataframe_of_another_df_and_horizon(point, monthly):
    other = monthly[monthly.unique_id != "gas"].groupby("unique_id").head(30)
    future = point.make_future_dataframe(other, h=2)
    assert list(future.unique_id.unique()) == sorted(other.unique_id.unique())
    first = other.groupby("unique_id").ds.min()
    assert (future.groupby("unique_id").ds.min() == first + pd.DateOffset(months=30)).all()
    assert len(future) == 2 * other.unique_id.nunique()


def test_get_missing_future_lists_the_absent_rows(point):
    future = point.make_future_dataframe()
    missing = point.get_missing_future(future.drop(index=[0, 5, 30]))
    pd.testing.assert_frame_equal(missing, future.loc[[0, 5, 30]].reset_index(drop=True))
    assert point.get_missing_future(future).empty


def test_save_with_dataset_then_load_predicts_without_df(point, tmp_path):
    from fcast import NeuralForecast

    point.save(tmp_path / "run", save_dataset=True)
    loaded = NeuralForecast.load(tmp_path / "run")
    pd.testing.assert_frame_equal(loaded.predict(), point.predict())
    pd.testing.assert_frame_equal(loaded.make_future_dataframe(), point.make_future_dataframe())


def test_save_without_dataset_needs_df(point, monthly, tmp_path):
    from fcast import NeuralForecast

    point.save(tmp_path / "bare", save_dataset=False)
    loaded = NeuralForecast.load(tmp_path / "bare")
    with pytest.raises(ValueError, match="save_dataset=False"):
        loaded.predict()
    pd.testing.assert_frame_equal(loaded.predict(df=monthly), point.predict())


@pytest.mark.parametrize("step_size", [1, 5])
def test_predict_insample_windows_are_neuralforecasts(point, monthly, step_size):
    frame = point.predict_insample(step_size=step_size)
    assert list(frame.columns) == ["unique_id", "ds", "cutoff", "NHITS", "y"]
    for uid, rows in frame.groupby("unique_id"):
        series = monthly[monthly.unique_id == uid].sort_values("ds").reset_index(drop=True)
        starts = np.arange((len(series) - H) % step_size, len(series) - H + 1, step_size)
        assert list(rows.cutoff.unique()) == list(series.ds[starts] - pd.DateOffset(months=1))
        assert list(rows.ds) == list(series.ds[(starts[:, None] + np.arange(H)).ravel()])
        assert list(rows.y) == list(series.y[(starts[:, None] + np.arange(H)).ravel()])


def test_predict_insample_forecasts_are_predicts_of_the_cut_history(point, monthly):
    frame = point.predict_insample(step_size=1)
    for points in (1, 30, 100):   # a history shorter than input_size, then longer ones
        cut = monthly.sort_values("ds").groupby("unique_id").head(points)
        cut = cut[cut.groupby("unique_id").ds.transform("size") == points]   # series long enough for a window
        expected = point.predict(df=cut)
        got = frame.merge(cut.groupby("unique_id").ds.max().rename("end").reset_index())
        got = got[got.cutoff == got.end]
        np.testing.assert_allclose(got.NHITS.to_numpy(), expected.NHITS.to_numpy(), rtol=1e-5, atol=1e-5)


def test_predict_insample_refuses_levels(point):
    with pytest.raises(NotImplementedError, match="level"):
        point.predict_insample(level=[90])


def test_state_after_cross_validation_does_not_depend_on_row_order():
    """After cross_validation, the models remade for predict and
    predict_insample train on each series less its windows by time: a
    shuffled df gives the same frames (it held out the last rows instead)."""
    from fcast import NeuralForecast
    from fcast.models import MLP
    from fcast.utils import AirPassengersPanel
    df = AirPassengersPanel[["unique_id", "ds", "y"]]

    def after_cv(frame):
        nf = NeuralForecast(models=[MLP(h=12, input_size=24, max_steps=5, num_layers=1, hidden_size=16)], freq="ME")
        nf.cross_validation(frame, n_windows=2, step_size=12)
        return nf.predict_insample(step_size=12), nf.predict()

    for ordered, shuffled in zip(after_cv(df), after_cv(df.sample(frac=1, random_state=1))):
        pd.testing.assert_frame_equal(ordered.reset_index(drop=True), shuffled.reset_index(drop=True))
