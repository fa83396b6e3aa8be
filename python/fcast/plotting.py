"""utilsforecast.plotting.plot_series on fcast: the history, forecasts and
interval bands of a few series, drawn with matplotlib (the package's
optional extra: pip install "fcast[plot]"), so that a neuralforecast
script's `plot_series(df, forecasts_df, level=[80, 95])` runs on fcast by
its imports. One axes per series, two per row, as utilsforecast lays them
out; the figure is returned."""
import numpy as np
import pandas as pd

__all__ = ["plot_series"]


def _pyplot():
    """matplotlib's pyplot, or an ImportError that says how to get it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError('fcast: plot_series draws with matplotlib, which is not installed: '
                          'pip install "fcast[plot]" (or pip install matplotlib)') from e
    return plt


def _ids(df, forecasts_df, ids, plot_random, max_ids, id_col, seed):
    """The series to draw: ids as given, else up to max_ids of them, at
    random (seeded) or the first ones."""
    if ids is not None:
        return list(ids)
    frame = df if df is not None else forecasts_df
    every = list(pd.unique(frame[id_col]))
    if len(every) <= max_ids:
        return every
    if plot_random:
        picked = np.random.default_rng(seed).choice(len(every), size=max_ids, replace=False)
        return [every[i] for i in sorted(picked)]
    return every[:max_ids]


def _models(forecasts_df, models, id_col, time_col, target_col):
    """The forecast columns: models as given, else every column but the
    keys, the cutoff, y and the interval bounds."""
    if forecasts_df is None:
        return []
    if models is not None:
        return list(models)
    skip = {id_col, time_col, target_col, "cutoff"}
    return [c for c in forecasts_df.columns if c not in skip and "-lo-" not in c and "-hi-" not in c]


def _axes(plt, n, ax):
    """One axes per series: the caller's (ax), or a new figure's grid of
    two columns, as utilsforecast's."""
    if ax is not None:
        axes = np.atleast_1d(ax).ravel()
        if len(axes) < n:
            raise ValueError(f"fcast: plot_series: {n} series to draw but {len(axes)} axes given in ax")
        return axes[0].get_figure(), axes
    cols = 1 if n == 1 else 2
    rows = (n + cols - 1) // cols
    fig, grid = plt.subplots(rows, cols, figsize=(16, 3.5 * rows), squeeze=False)
    axes = grid.ravel()
    for extra in axes[n:]:
        extra.set_visible(False)
    return fig, axes


def _draw_forecasts(ax, fc, models, level, color_of, time_col, target_col, plot_anomalies):
    """Each model's line and, per level, its band between -lo- and -hi-."""
    for m in models:
        ax.plot(fc[time_col], fc[m], label=m, color=color_of(m))
        for lv in sorted(level or [], reverse=True):
            lo, hi = f"{m}-lo-{lv}", f"{m}-hi-{lv}"
            if lo not in fc or hi not in fc:
                raise ValueError(f"fcast: plot_series: level {lv} needs the columns {lo} and {hi} in forecasts_df")
            ax.fill_between(fc[time_col], fc[lo], fc[hi], alpha=0.25 + 0.5 * (1 - lv / 100), color=color_of(m),
                            label=f"{m}_level_{lv}")
            if plot_anomalies and target_col in fc:
                out = (fc[target_col] < fc[lo]) | (fc[target_col] > fc[hi])
                ax.scatter(fc[time_col][out], fc[target_col][out], color="red", marker="o", zorder=3,
                           label=f"{m}_level_{lv}_anomalies")


def plot_series(df=None, forecasts_df=None, ids=None, plot_random=True, max_ids=8, models=None, level=None,
                max_insample_length=None, plot_anomalies=False, engine="matplotlib", palette=None,
                id_col="unique_id", time_col="ds", target_col="y", seed=0, resampler_kwargs=None, ax=None):
    """Draws each series of ids (up to max_ids, at random by seed when
    plot_random) on its own axes: the history of df (its last
    max_insample_length points), and every model of forecasts_df (models,
    or all its forecast columns) with a band per level from its
    <model>-lo-<level> and <model>-hi-<level> columns; the points of y
    outside a band marked when plot_anomalies. Returns the figure.
    engine: 'matplotlib' only (fcast draws with nothing else); palette: a
    matplotlib colormap's name; resampler_kwargs: plotly-resampler's, not
    used."""
    if engine != "matplotlib":
        raise ValueError(f"fcast: plot_series(engine={engine!r}): fcast draws with 'matplotlib' only")
    if df is None and forecasts_df is None:
        raise ValueError("fcast: plot_series needs df, forecasts_df or both")
    if plot_anomalies and not level:
        raise ValueError("fcast: plot_series(plot_anomalies=True) needs level: the bands that define an anomaly")
    plt = _pyplot()
    chosen = _ids(df, forecasts_df, ids, plot_random, max_ids, id_col, seed)
    names = _models(forecasts_df, models, id_col, time_col, target_col)
    colors = plt.get_cmap(palette or "tab10")
    color_of = lambda m: colors((names.index(m) + 1) % 10 if m in names else 0)
    fig, axes = _axes(plt, len(chosen), ax)
    for uid, a in zip(chosen, axes):
        if df is not None:
            past = df[df[id_col] == uid]
            if max_insample_length is not None:
                past = past.tail(max_insample_length)
            a.plot(past[time_col], past[target_col], label=target_col, color=colors(0))
        if forecasts_df is not None:
            fc = forecasts_df[forecasts_df[id_col] == uid]
            _draw_forecasts(a, fc, names, level, color_of, time_col, target_col, plot_anomalies)
        a.set_title(f"{id_col}={uid}", fontsize=10)
        a.grid(alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 0.97))
    return fig
