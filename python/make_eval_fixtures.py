"""Fixtures for `fcast eval --cv` (tests/cli_eval.sh): a small
cross-validation frame with intervals and quantiles, its history, and the
scores utilsforecast.losses gives for it.

Run from any directory but the repository (it writes only into
tests/fixtures/eval/ next to this script):

    cd "$(mktemp -d)" && /tmp/nf/bin/python /path/to/fcast/python/make_eval_fixtures.py

Made with utilsforecast 0.2.17, pandas 3.1.1, numpy 2.4.6 (printed on each
run and written in expected.csv's first line). The forecasts are made-up
numbers, not a model's: the point is the arithmetic of the scores.

Files:
  history.csv   unique_id, ds, y: 3 daily series of 30 points
  cv.csv        unique_id, ds, cutoff, y, NHITS (+ -median, -lo/-hi-80/95),
                NBEATS (point only), MLP_ql0.9 (one quantile, no point):
                2 cutoffs x 3 steps per series, one y = 0 (MAPE leaves it out)
  expected.csv  metric,model,cutoff,unique_id,value: fcast eval's long CSV
                layout. Each metric per (unique_id, cutoff) window from
                utilsforecast.losses, then means over all windows (cutoff and
                unique_id empty), per cutoff, and per unique_id. fcast's
                sMAPE_200 is utilsforecast's smape x 200, MAPE_pct its mape x
                100. Naive and SeasonalNaive(7) forecasts are built here from
                history.csv up to each cutoff and scored like the models.
"""
import os
import sys

import numpy as np
import pandas as pd
import utilsforecast
from utilsforecast import losses as L

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "eval")
SEASON = 7
H = 3
CUTOFFS = ["2000-01-24", "2000-01-27"]
LEVELS = [80, 95]


def history():
    rng = np.random.default_rng(13)
    days = pd.date_range("2000-01-01", periods=30, freq="D")
    frames = []
    for k, uid in enumerate(["A", "B", "C"]):
        t = np.arange(30)
        y = 10 * (k + 1) + 3 * np.sin(2 * np.pi * t / SEASON) + 0.1 * t + rng.normal(0, 1, 30)
        frames.append(pd.DataFrame({"unique_id": uid, "ds": days, "y": np.round(y, 3)}))
    df = pd.concat(frames, ignore_index=True)
    df.loc[(df.unique_id == "B") & (df.ds == "2000-01-29"), "y"] = 0.0   # a zero actual for MAPE
    return df


def cv_frame(hist):
    rng = np.random.default_rng(7)
    rows = []
    for uid, g in hist.groupby("unique_id"):
        for c in CUTOFFS:
            future = g[(g.ds > c) & (g.ds <= pd.Timestamp(c) + pd.Timedelta(days=H))]
            for _, r in future.iterrows():
                mid = round(r.y + rng.normal(0, 1.5), 3)
                w80, w95 = round(abs(rng.normal(2, 0.5)), 3), round(abs(rng.normal(3.5, 0.5)), 3)
                rows.append({"unique_id": uid, "ds": r.ds, "cutoff": pd.Timestamp(c),
                             "NHITS": round(mid + rng.normal(0, 0.3), 3), "NHITS-median": mid,
                             "NHITS-lo-95": round(mid - w95, 3), "NHITS-lo-80": round(mid - w80, 3),
                             "NHITS-hi-80": round(mid + w80, 3), "NHITS-hi-95": round(mid + w95, 3),
                             "NBEATS": round(r.y + rng.normal(0, 2), 3),
                             "MLP_ql0.9": round(r.y + rng.normal(1, 1), 3), "y": r.y})
    return pd.DataFrame(rows)


def add_baselines(cv, hist):
    """Naive: the last value up to the cutoff. SeasonalNaive(m): the value one
    season (of m steps) before the step, within the history up to the cutoff."""
    naive, snaive = [], []
    for _, r in cv.iterrows():
        g = hist[(hist.unique_id == r.unique_id) & (hist.ds <= r.cutoff)].y.to_numpy()
        k = (r.ds - r.cutoff).days
        naive.append(g[-1])
        snaive.append(g[len(g) - 1 + k - SEASON * ((k + SEASON - 1) // SEASON)])
    cv["Naive"] = naive
    cv[f"SeasonalNaive({SEASON})"] = snaive
    return cv


def window_scores(cv, hist):
    """Long frame: unique_id, cutoff, metric, model, value per window."""
    point = ["NHITS", "NBEATS", "Naive", f"SeasonalNaive({SEASON})"]
    out = []

    def melt(res, metric, scale=1.0):
        res = res.melt(id_vars=["unique_id", "cutoff"], var_name="model", value_name="value")
        res["value"] *= scale
        res["metric"] = metric
        out.append(res)

    melt(L.mae(cv, point), "MAE")
    melt(L.mse(cv, point), "MSE")
    melt(L.rmse(cv, point), "RMSE")
    melt(L.smape(cv, point), "sMAPE_200", 200.0)
    melt(L.mape(cv, point), "MAPE_pct", 100.0)
    melt(L.mase(cv, point, SEASON, hist), "MASE")
    nhits_q = {0.025: "NHITS-lo-95", 0.1: "NHITS-lo-80", 0.5: "NHITS-median", 0.9: "NHITS-hi-80",
               0.975: "NHITS-hi-95"}
    qs = np.array(sorted(nhits_q))
    crps = L.scaled_crps(cv, {"NHITS": [nhits_q[q] for q in qs]}, qs)
    crps = crps.merge(L.scaled_crps(cv, {"MLP": ["MLP_ql0.9"]}, np.array([0.9])), on=["unique_id", "cutoff"])
    melt(crps, "scaled_CRPS")
    for q, col in nhits_q.items():
        melt(L.quantile_loss(cv, {"NHITS": col}, q), f"QL_{q:g}")
    melt(L.quantile_loss(cv, {"MLP": "MLP_ql0.9"}, 0.9), "QL_0.9")
    for lv in LEVELS:
        melt(L.coverage(cv, ["NHITS"], lv), f"coverage_{lv}")
    return pd.concat(out, ignore_index=True)


def aggregate(w):
    """Means over windows (NaN left out), as fcast eval: overall, per cutoff, per series."""
    keys = ["metric", "model"]
    overall = w.groupby(keys, sort=False).value.mean().reset_index().assign(cutoff="", unique_id="")
    by_cut = w.groupby(keys + ["cutoff"], sort=False).value.mean().reset_index().assign(unique_id="")
    by_cut["cutoff"] = by_cut.cutoff.dt.strftime("%Y-%m-%d")
    by_id = w.groupby(keys + ["unique_id"], sort=False).value.mean().reset_index().assign(cutoff="")
    cols = ["metric", "model", "cutoff", "unique_id", "value"]
    return pd.concat([overall[cols], by_cut[cols], by_id[cols]], ignore_index=True).dropna()


def main():
    if os.path.abspath(os.getcwd()).startswith(os.path.abspath(os.path.join(OUT, "..", "..", ".."))):
        sys.exit("run from a temporary directory, not inside the repository")
    versions = f"utilsforecast {utilsforecast.__version__}, pandas {pd.__version__}, numpy {np.__version__}"
    print(versions)
    hist = history()
    cv = cv_frame(hist)
    os.makedirs(OUT, exist_ok=True)
    hist.to_csv(os.path.join(OUT, "history.csv"), index=False, date_format="%Y-%m-%d")
    cv[["unique_id", "ds", "cutoff", "NHITS", "NHITS-median", "NHITS-lo-95", "NHITS-lo-80", "NHITS-hi-80",
        "NHITS-hi-95", "NBEATS", "MLP_ql0.9", "y"]].to_csv(os.path.join(OUT, "cv.csv"), index=False,
                                                           date_format="%Y-%m-%d")
    expected = aggregate(window_scores(add_baselines(cv.copy(), hist), hist))
    with open(os.path.join(OUT, "expected.csv"), "w") as f:
        f.write(f"# {versions}; season {SEASON}; python/make_eval_fixtures.py\n")
        expected.to_csv(f, index=False, float_format="%.17g")
    print(f"{len(expected)} expected values in {OUT}")


if __name__ == "__main__":
    main()
