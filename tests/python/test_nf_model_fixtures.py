"""Models trained by neuralforecast 3.3.0, exported to fcast's model file,
and neuralforecast's forecasts from them (tests/fixtures/nf_models/,
python/make_nf_model_fixtures.py): fcast predict on the same files and
data gives the same forecasts within float rounding.
  - scaler_type='revin' (neuralforecast's TemporalNorm 'revin'): the
    standard scaler's statistics, inverted with RevIN's scale (relu(1) +
    1e-6) as neuralforecast inverts it (the plain standard scaler's
    inverse is off by that 1e-6 of the scale: 1.2e-7 here);
  - IQLoss: the model's output through the loss's head (the cos embedding,
    its two layers and PReLUs, yhat (1 + e), the output layer and PReLU)
    at the default quantile 0.5."""
import os
import subprocess

import pytest

from conftest import FIXTURES, MONTHLY, predict_fixture

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")


@pytest.mark.parametrize("name, column", [("revin_mlp", "MLP"), ("iq_mlp", "MLP_ql0.5")])
def test_forecast_from_neuralforecast_weights(name, column, fcast_bin, tmp_path):
    got, want = predict_fixture(fcast_bin, os.path.join(FIXTURES, "nf_models"), name, tmp_path)
    assert list(got.columns) == list(want.columns) == ["unique_id", "ds", column]
    assert list(got["ds"]) == list(want["ds"])
    rel = np.abs(got[column].to_numpy() - want[column].to_numpy()) / np.abs(want[column].to_numpy())
    assert rel.max() < 1e-8, rel.max()   # measured 0 and 1.3e-9 (the files hold 9 digits); standard for revin: 1.2e-7


def test_revin_trains_as_standard_and_refuses_a_distribution(monthly):
    """fcast's revin trains the standard scaler's model (RevIN's parameters
    get no gradient from a loss on the scaled data) and forecasts through
    RevIN's inverse: the forecasts differ from standard's by about 1e-6 of
    the scale, no more. With a DistributionLoss, whose likelihood trains
    RevIN's bias and weight, it is refused saying so."""
    from fcast import NeuralForecast
    from fcast.losses.pytorch import DistributionLoss
    from fcast.models import MLP

    def forecast(scaler, **kw):
        nf = NeuralForecast(models=[MLP(h=6, input_size=12, hidden_size=16, num_layers=1, max_steps=5,
                                        scaler_type=scaler, **kw)], freq="MS")
        nf.fit(monthly)
        return nf.predict()["MLP"].to_numpy()

    revin, standard = forecast("revin"), forecast("standard")
    rel = np.abs(revin - standard) / np.abs(standard)
    assert 0 < rel.max() < 1e-5
    with pytest.raises(Exception, match="revin with --loss normal|revin.*likelihood"):
        forecast("revin", loss=DistributionLoss("Normal"))


def test_iq_level_from_neuralforecast_weights(fcast_bin, tmp_path):
    """predict(level=[80]) of the IQLoss model: np.quantile over its
    forecasts at neuralforecast's 11 fixed quantiles, as neuralforecast's
    predict computes it; the columns the bounds alone."""
    folder = os.path.join(FIXTURES, "nf_models")
    out = tmp_path / "fc.csv"
    subprocess.run([fcast_bin, "predict", "--model", os.path.join(folder, "iq_mlp.safetensors"), "--data", MONTHLY,
                    "--level", "80", "--out", str(out)], check=True, capture_output=True)
    want = pd.read_csv(os.path.join(folder, "iq_mlp_level80.csv")).sort_values(["unique_id", "ds"])
    got = pd.read_csv(out).sort_values(["unique_id", "ds"])
    assert list(got.columns) == list(want.columns) == ["unique_id", "ds", "MLP-lo-80", "MLP-hi-80"]
    for column in ("MLP-lo-80", "MLP-hi-80"):
        rel = np.abs(got[column].to_numpy() - want[column].to_numpy()) / np.abs(want[column].to_numpy())
        assert rel.max() < 1e-8, (column, rel.max())
