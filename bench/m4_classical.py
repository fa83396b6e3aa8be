"""The classical anchors of docs/evaluation.md's M4 Weekly table:
statsforecast's AutoETS, AutoTheta and AutoARIMA (seasons 1 and 52) and
their means, scored as M4 scores (sMAPE on 0-200, MASE with season 1 from
each series' in-sample naive error), each model timed on its own.

    pip install statsforecast pandas
    taskset -c 1 python3 bench/m4_classical.py TRAIN.csv TEST.csv [models...]

The scorer is checked first: the naive forecast must give M4 Weekly's
sMAPE 9.161 and MASE 2.777. Figures, not a test (minutes per model).
"""
import sys
import time

import numpy as np
import pandas as pd

H = 13


def models():
    from statsforecast.models import AutoARIMA, AutoETS, AutoTheta, Naive
    return {"Naive": Naive(), "AutoETS": AutoETS(season_length=1), "AutoTheta": AutoTheta(season_length=1),
            "AutoARIMA": AutoARIMA(season_length=1), "AutoETS52": AutoETS(season_length=52),
            "AutoTheta52": AutoTheta(season_length=52)}


def score(train, test, forecast):
    d = test.merge(forecast, on=["unique_id", "ds"], validate="one_to_one")
    assert len(d) == len(test) and d.yhat.notna().all(), "a forecast is missing"
    y, f = d.y.to_numpy(float), d.yhat.to_numpy(float)
    den = np.abs(y) + np.abs(f)
    smape = np.mean(np.where(den == 0, 0.0, 200 * np.abs(y - f) / np.where(den == 0, 1, den)))
    scale = train.groupby("unique_id").y.apply(lambda s: np.mean(np.abs(np.diff(s.to_numpy()))))
    mae = d.assign(e=np.abs(y - f)).groupby("unique_id").e.mean()
    return smape, (mae / scale.loc[mae.index]).mean()


def forecast(train, name, model):
    from statsforecast import StatsForecast
    t0 = time.perf_counter()
    fc = StatsForecast(models=[model], freq=1, n_jobs=1).forecast(df=train, h=H)
    seconds = time.perf_counter() - t0
    fc = fc.reset_index() if "unique_id" not in fc.columns else fc
    column = [c for c in fc.columns if c not in ("unique_id", "ds")][0]
    return fc.rename(columns={column: "yhat"})[["unique_id", "ds", "yhat"]], seconds


def main():
    train, test = (pd.read_csv(p).sort_values(["unique_id", "ds"]) for p in sys.argv[1:3])
    chosen = sys.argv[3:] or ["Naive", "AutoETS", "AutoTheta", "AutoARIMA", "AutoETS52", "AutoTheta52"]
    table, fcs = models(), {}
    if "Naive" not in chosen:
        chosen = ["Naive"] + chosen
    for name in chosen:
        fcs[name], seconds = forecast(train, name, table[name])
        s, m = score(train, test, fcs[name])
        if name == "Naive":
            assert (round(s, 3), round(m, 3)) == (9.161, 2.777), f"the scorer is off: naive {s:.4f} {m:.4f}"
        print(f"{name:28s} sMAPE {s:7.3f}  MASE {m:6.3f}  {seconds:7.1f} s", flush=True)
    for members in (["AutoETS", "AutoTheta"], ["AutoETS52", "AutoTheta52", "AutoARIMA"]):
        if all(k in fcs for k in members):
            mean = fcs[members[0]][["unique_id", "ds"]].copy()
            mean["yhat"] = np.mean([fcs[k].yhat.to_numpy() for k in members], axis=0)
            s, m = score(train, test, mean)
            print(f"{'mean of ' + ','.join(members):28s} sMAPE {s:7.3f}  MASE {m:6.3f}")


if __name__ == "__main__":
    main()
