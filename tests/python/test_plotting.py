"""fcast.plotting.plot_series (utilsforecast's signature, also as
fcast.utils.plot_series): one axes per series up to max_ids, a line for y
and for each model whose x data are the ds, a filled band per level; a
clear ImportError without matplotlib; engines other than matplotlib
refused by name. Frames are built here: no training needed."""
import sys

import pytest

pd = pytest.importorskip("pandas")
np = pytest.importorskip("numpy")

from fcast.plotting import plot_series  # noqa: E402


def frames(n_series=3, n=24, h=6):
    """History of n monthly points and an h-step forecast with 80/95 bands, per series."""
    hist, fc = [], []
    for i in range(n_series):
        ds = pd.date_range("2000-01-01", periods=n + h, freq="MS")
        y = np.arange(n + h, dtype=float) + 10 * i
        hist.append(pd.DataFrame({"unique_id": f"s{i}", "ds": ds[:n], "y": y[:n]}))
        f = pd.DataFrame({"unique_id": f"s{i}", "ds": ds[n:], "NHITS": y[n:], "MLP": y[n:] + 1})
        for m in ("NHITS", "MLP"):
            for lv, w in ((80, 1.0), (95, 2.0)):
                f[f"{m}-lo-{lv}"], f[f"{m}-hi-{lv}"] = f[m] - w, f[m] + w
        fc.append(f)
    return pd.concat(hist, ignore_index=True), pd.concat(fc, ignore_index=True)


def visible_axes(fig):
    return [a for a in fig.axes if a.get_visible()]


def test_lines_and_bands_per_series():
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    df, fc = frames()
    fig = plot_series(df, fc, level=[80, 95])
    axes = visible_axes(fig)
    assert len(axes) == 3
    for a, uid in zip(axes, ["s0", "s1", "s2"]):
        lines = {l.get_label(): l for l in a.get_lines()}
        assert set(lines) == {"y", "NHITS", "MLP"}
        past, future = df[df.unique_id == uid], fc[fc.unique_id == uid]
        assert np.array_equal(pd.to_datetime(lines["y"].get_xdata()).values, past.ds.values)
        assert np.array_equal(pd.to_datetime(lines["NHITS"].get_xdata()).values, future.ds.values)
        assert np.allclose(lines["MLP"].get_ydata(), future.MLP)
        bands = [c for c in a.collections if c.get_label().endswith(("_level_80", "_level_95"))]
        assert sorted(c.get_label() for c in bands) == sorted(
            f"{m}_level_{lv}" for m in ("NHITS", "MLP") for lv in (80, 95))


def test_max_ids_models_and_history_length():
    pytest.importorskip("matplotlib")
    df, fc = frames(n_series=5)
    fig = plot_series(df, fc, max_ids=2, models=["MLP"], max_insample_length=10, plot_random=False)
    axes = visible_axes(fig)
    assert len(axes) == 2
    assert [a.get_title() for a in axes] == ["unique_id=s0", "unique_id=s1"]
    lines = {l.get_label(): l for l in axes[0].get_lines()}
    assert set(lines) == {"y", "MLP"} and len(lines["y"].get_xdata()) == 10
    picked = [a.get_title() for a in visible_axes(plot_series(df, fc, max_ids=3, seed=1))]
    assert picked == [a.get_title() for a in visible_axes(plot_series(df, fc, max_ids=3, seed=1))]


def test_missing_band_and_engine_refused():
    df, fc = frames()
    with pytest.raises(ValueError, match="plotly"):
        plot_series(df, fc, engine="plotly")
    pytest.importorskip("matplotlib")
    with pytest.raises(ValueError, match="NHITS-lo-50"):
        plot_series(df, fc, level=[50])


def test_without_matplotlib_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)   # import matplotlib... raises ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    df, fc = frames()
    with pytest.raises(ImportError, match=r'pip install "fcast\[plot\]"'):
        plot_series(df, fc)


def test_importable_from_utils():
    from fcast.utils import plot_series as from_utils
    assert from_utils is plot_series
