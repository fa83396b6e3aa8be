# %% [markdown]
# # Forecasts and intervals with fcast, as in a notebook
#
# The cells below run as they are in Jupyter (each `# %%` is a cell; VS Code
# and jupytext open the file as a notebook) or as a script:
# `python3 examples/notebook.py` writes the figure to forecast.png.
# They need pandas and matplotlib, and fcast installed with its plotting
# extra (`pip install ".[plot]"`, which brings matplotlib) or built (`make`,
# then `PYTHONPATH=python`, with `pip install matplotlib`).

# %%
import matplotlib

matplotlib.use("Agg")   # no window when run as a script; remove in a notebook
import matplotlib.pyplot as plt
import pandas as pd

from fcast import NeuralForecast
from fcast.models import NHITS
from fcast.utils import PredictionIntervals

# %% Monthly series (AirPassengers, nottem, ...): the last year is held out
df = pd.read_csv("data/monthly_classics.csv", parse_dates=["ds"])
test = df.groupby("unique_id").tail(12)
train = df.drop(test.index)

# %% N-HiTS, with conformal intervals calibrated on 4 windows of the training data
nf = NeuralForecast(models=[NHITS(h=12, input_size=36, max_steps=500, scaler_type="robust")], freq="MS")
nf.fit(train, prediction_intervals=PredictionIntervals(n_windows=4, step_size=12))
forecasts = nf.predict(level=[80, 95])
forecasts.head()

# %% Accuracy on the held-out year
scored = forecasts.merge(test, on=["unique_id", "ds"])
mae = (scored["NHITS"] - scored["y"]).abs().groupby(scored["unique_id"]).mean()
covered = ((scored["y"] >= scored["NHITS-lo-80"]) & (scored["y"] <= scored["NHITS-hi-80"])).mean()
print(mae.round(2).to_string(), f"\n80% interval coverage: {covered:.0%}")

# %% History, forecast and intervals of two series
fig, axes = plt.subplots(1, 2, figsize=(11, 3.6))
for ax, uid in zip(axes, ["AirPassengers", "nottem"]):
    past, fc, actual = (frame[frame.unique_id == uid] for frame in (train, forecasts, test))
    past = past.tail(48)
    ax.plot(past.ds, past.y, color="black", lw=1, label="history")
    ax.plot(actual.ds, actual.y, color="black", lw=1, ls="--", label="held out")
    ax.fill_between(fc.ds, fc["NHITS-lo-95"], fc["NHITS-hi-95"], color="tab:blue", alpha=0.15, label="95%")
    ax.fill_between(fc.ds, fc["NHITS-lo-80"], fc["NHITS-hi-80"], color="tab:blue", alpha=0.3, label="80%")
    ax.plot(fc.ds, fc["NHITS"], color="tab:blue", lw=1.5, label="NHITS")
    ax.set_title(uid)
axes[0].legend(loc="upper left", fontsize=8)
fig.tight_layout()
fig.savefig("forecast.png", dpi=110)
