"""neuralforecast's own tutorial code, run on fcast with only its imports
changed: each script below is written for neuralforecast (its Quick Start
and its exogenous-variables tutorial, with fewer steps so the suite stays
fast) and is run after `neuralforecast` -> `fcast` in its text, nothing
else. What it computes is then checked: neuralforecast's frames, and
forecasts that beat a naive forecast on the held-out year.

They take about 30 s on 2 cores (the models at neuralforecast's default
sizes): the pip-installed package's run (tests/cli_pip_install.sh) leaves
them to the source tree's (tests/cli_python.sh)."""
import pytest

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

QUICK_START = """
import pandas as pd
from neuralforecast import NeuralForecast
from neuralforecast.models import LSTM, NHITS
from neuralforecast.utils import AirPassengersDF

Y_df = AirPassengersDF
Y_train_df = Y_df[Y_df.ds <= '1959-12-31']  # 132 train
Y_test_df = Y_df[Y_df.ds > '1959-12-31']    # 12 test

horizon = 12
models = [LSTM(input_size=2 * horizon, h=horizon, max_steps=50, scaler_type='standard',
               encoder_hidden_size=64, decoder_hidden_size=64),
          NHITS(h=horizon, input_size=2 * horizon, max_steps=50, n_freq_downsample=[2, 1, 1])]
nf = NeuralForecast(models=models, freq='ME')
nf.fit(df=Y_train_df)
Y_hat_df = nf.predict()
cv_df = nf.cross_validation(Y_df, n_windows=2, step_size=12)
"""

EXOGENOUS = """
import pandas as pd
from neuralforecast import NeuralForecast
from neuralforecast.models import NBEATSx, NHITS
from neuralforecast.utils import AirPassengersPanel, AirPassengersStatic

Y_train_df = AirPassengersPanel[AirPassengersPanel.ds < AirPassengersPanel['ds'].values[-12]]  # 132 train
Y_test_df = AirPassengersPanel[AirPassengersPanel.ds >= AirPassengersPanel['ds'].values[-12]].reset_index(drop=True)

models = [NHITS(h=12, input_size=24, futr_exog_list=['trend', 'y_[lag12]'], stat_exog_list=['airline1'],
                scaler_type='robust', max_steps=50),
          NBEATSx(h=12, input_size=24, futr_exog_list=['trend', 'y_[lag12]'], stat_exog_list=['airline1'],
                  scaler_type='robust', max_steps=50)]
nf = NeuralForecast(models=models, freq='ME')
nf.fit(df=Y_train_df, static_df=AirPassengersStatic)
Y_hat_df = nf.predict(futr_df=Y_test_df)
"""


def run_on_fcast(script):
    """The script's variables after running it with fcast's imports."""
    text = script.replace("neuralforecast", "fcast")
    assert text.count("fcast") == script.count("neuralforecast") > 0
    scope = {}
    exec(compile(text, "<neuralforecast script>", "exec"), scope)
    return scope


def mae(a, b):
    return float(np.mean(np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))))


def test_quick_start():
    s = run_on_fcast(QUICK_START)
    fc, test = s["Y_hat_df"], s["Y_test_df"]
    assert list(fc.columns) == ["unique_id", "ds", "LSTM", "NHITS"]
    assert (fc["ds"].to_numpy() == test["ds"].to_numpy()).all()   # month ends, as neuralforecast's
    last_year = s["Y_train_df"]["y"].to_numpy()[-12:]
    flat = np.full(12, last_year[-1])
    assert mae(fc["NHITS"], test["y"]) < mae(last_year, test["y"])   # beats the seasonal naive
    assert mae(fc["LSTM"], test["y"]) < mae(flat, test["y"])         # beats the naive (50 steps are few for it)
    cv = s["cv_df"]
    assert list(cv.columns) == ["unique_id", "ds", "cutoff", "LSTM", "NHITS", "y"]
    assert len(cv) == 24 and list(cv["cutoff"].dt.strftime("%Y-%m-%d").unique()) == ["1958-12-31", "1959-12-31"]


def test_exogenous_tutorial():
    s = run_on_fcast(EXOGENOUS)
    fc, test = s["Y_hat_df"], s["Y_test_df"]
    assert list(fc.columns) == ["unique_id", "ds", "NHITS", "NBEATSx"]
    pd.testing.assert_frame_equal(fc[["unique_id", "ds"]], test[["unique_id", "ds"]], check_dtype=False)
    train = s["Y_train_df"]
    naive = np.concatenate([train[train.unique_id == u]["y"].to_numpy()[-12:] for u in ("Airline1", "Airline2")])
    for model in ("NHITS", "NBEATSx"):
        assert mae(fc[model], test["y"]) < mae(naive, test["y"]), model
