"""DistributionLoss forecasts from neuralforecast's own weights: models
trained by neuralforecast 3.3.0 with DistributionLoss (Normal, StudentT,
Poisson, NegativeBinomial), exported to fcast's model file, and the
forecasts neuralforecast's predict made from them with 20000 draws
(tests/fixtures/distribution/, python/make_distribution_fixtures.py).
fcast predict on the same file and data must give the same columns, in
the same order, and the same values to sampling noise: the two libraries
draw from different generators (torch's, fcast's Philox), so a quantile
differs by about sqrt(q (1 - q) / 20000) / density, ~0.02 standard
deviations of the point's distribution. The gap is measured in units of
the 80 % interval's width / 2.563 (a Normal's standard deviation); a
count distribution's quantiles may also fall on neighbouring counts (one
count of slack). A wrong decoupling (the scaler's shift and scale, a
softplus floor, the parameters' order) moves the columns by far more."""
import os

import pytest

from conftest import FIXTURES, predict_fixture

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

DISTRIBUTIONS = ("normal", "studentt", "poisson", "negativebinomial")


@pytest.mark.parametrize("name", DISTRIBUTIONS)
def test_forecast_from_neuralforecast_weights(name, fcast_bin, tmp_path):
    got, want = predict_fixture(fcast_bin, os.path.join(FIXTURES, "distribution"), name, tmp_path)
    assert list(got.columns) == list(want.columns)
    assert list(got["ds"]) == list(want["ds"]) and list(got["unique_id"]) == list(want["unique_id"])
    sd = np.maximum((want["MLP-hi-80"] - want["MLP-lo-80"]).to_numpy() / 2.563, 1e-9)
    slack = 1.0 if name in ("poisson", "negativebinomial") else 0.0
    for column in want.columns[2:]:
        gap = np.maximum(np.abs(got[column].to_numpy() - want[column].to_numpy()) - slack, 0) / sd
        assert gap.max() < 0.15, f"{name} {column}: {gap.max():.3f} standard deviations from neuralforecast's"
