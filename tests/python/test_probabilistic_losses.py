"""neuralforecast's probabilistic losses in fcast.losses.pytorch: HuberMQLoss
trains and forecasts its quantiles under MQLoss's column names and saves
its delta; DistributionLoss and IQLoss, not in the C library, are refused
by name rather than trained as something else."""
import pytest

pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

from conftest import FAST  # noqa: E402
from fcast import NeuralForecast  # noqa: E402
from fcast.losses.pytorch import DistributionLoss, HuberMQLoss, IQLoss, MQLoss  # noqa: E402
from fcast.models import NHITS  # noqa: E402


def test_huber_mq_settings_and_names():
    loss = HuberMQLoss(level=[90, 80], delta=0.5)
    assert loss.output_names == MQLoss(level=[90, 80]).output_names   # level_to_outputs, as neuralforecast
    assert loss.outputsize_multiplier == 5
    assert dict(loss._settings()) == {"loss": "huber-mq", "level": "90,80", "huber-delta": "0.5"}
    assert loss == HuberMQLoss(level=[90, 80], delta=0.5) and loss != HuberMQLoss(level=[90, 80])
    with pytest.raises(ValueError, match="delta"):
        HuberMQLoss(delta=0)
    with pytest.raises(NotImplementedError, match="quantiles"):
        HuberMQLoss(quantiles=[0.1, 0.5, 0.9])


def test_huber_mq_trains_saves_and_loads(monthly, tmp_path):
    nf = NeuralForecast(models=[NHITS(h=6, input_size=12, loss=HuberMQLoss(level=[80], delta=0.5), **FAST)],
                        freq="MS")
    nf.fit(monthly)
    fc = nf.predict()
    assert list(fc.columns) == ["unique_id", "ds", "NHITS-median", "NHITS-lo-80", "NHITS-hi-80"]
    assert fc.drop(columns=["unique_id", "ds"]).notna().all().all()
    nf.save(str(tmp_path / "m"))
    back = NeuralForecast.load(str(tmp_path / "m"))
    assert back.models[0].loss == HuberMQLoss(level=[80], delta=0.5)
    pd.testing.assert_frame_equal(back.predict(df=monthly), fc)


def test_distribution_and_implicit_quantile_losses_are_refused():
    with pytest.raises(NotImplementedError, match="DistributionLoss\\(distribution='Normal'\\)"):
        DistributionLoss(distribution="Normal", level=[80, 90])
    with pytest.raises(NotImplementedError, match="IQLoss"):
        IQLoss()
