"""neuralforecast's probabilistic losses in fcast.losses.pytorch:
DistributionLoss (Normal, StudentT, Poisson, NegativeBinomial) trains
through NeuralForecast under neuralforecast's columns (the sample mean,
then the quantiles of level or quantiles), saves and loads; MQLoss and
HuberMQLoss take quantiles= as well as level=; what fcast does not
implement (other distributions, return_params, distribution_kwargs,
IQLoss) is refused by name with the reason, rather than trained as
something else."""
import subprocess
import warnings

import pytest

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

from conftest import FAST, MONTHLY  # noqa: E402
from fcast import NeuralForecast  # noqa: E402
from fcast.losses.pytorch import DistributionLoss, HuberMQLoss, IQLoss, MQLoss  # noqa: E402
from fcast.models import NHITS  # noqa: E402

SMALL = dict(FAST, max_steps=20)
LEVEL_COLUMNS = ["NHITS", "NHITS-median", "NHITS-lo-90", "NHITS-lo-80", "NHITS-hi-80", "NHITS-hi-90"]

# neuralforecast 3.3.0's output_names, outputsize_multiplier and quantiles
# orders, as its losses/pytorch.py gives them (printed there and written
# down here, for when neuralforecast is not installed)
NF_QUANTILE_NAMES = {(0.1, 0.5, 0.9): ["-lo-80.0", "-median", "-hi-80.0"],
                     (0.05, 0.333, 0.975): ["-lo-90.0", "-lo-33.4", "-hi-95.0"],
                     (0.9, 0.1, 0.5): ["-hi-80.0", "-lo-80.0", "-median"],   # MQLoss keeps the order given
                     (0.25, 0.75): ["-lo-50.0", "-hi-50.0"]}
NF_MULTIPLIER = {"Normal": 2, "StudentT": 3, "Poisson": 1, "NegativeBinomial": 2}


def neuralforecast_names(loss, **kwargs):
    """neuralforecast's <loss>(**kwargs).output_names: from neuralforecast
    when it is installed, else as written down above."""
    try:
        from neuralforecast.losses import pytorch as nf_losses
    except ImportError:
        quantiles = kwargs.get("quantiles")
        if loss == "DistributionLoss":
            names = (["-median", "-lo-90", "-lo-80", "-hi-80", "-hi-90"] if quantiles is None
                     else NF_QUANTILE_NAMES[tuple(sorted(quantiles))])   # DistributionLoss sorts them
            return [""] + names
        return NF_QUANTILE_NAMES[tuple(quantiles)]
    return [str(n) for n in getattr(nf_losses, loss)(**kwargs).output_names]


def fit(loss, monthly, h=6, **kwargs):
    nf = NeuralForecast(models=[NHITS(h=h, input_size=12, loss=loss, **dict(SMALL, **kwargs))], freq="MS")
    nf.fit(monthly)
    return nf


def assert_ordered(fc, model="NHITS", levels=(90, 80)):
    """lo-90 <= lo-80 <= median <= hi-80 <= hi-90 on every row."""
    columns = ([f"{model}-lo-{lv}" for lv in levels] + [f"{model}-median"]
               + [f"{model}-hi-{lv}" for lv in reversed(levels)])
    values = fc[columns].to_numpy()
    assert np.isfinite(values).all()
    assert (np.diff(values, axis=1) >= 0).all(), fc[columns][(np.diff(values, axis=1) < 0).any(axis=1)]


# ---- names and settings --------------------------------------------------

@pytest.mark.parametrize("distribution, c_name", [("Normal", "normal"), ("StudentT", "studentt"),
                                                  ("Poisson", "poisson"), ("NegativeBinomial", "negative-binomial")])
def test_distribution_names_and_settings(distribution, c_name):
    loss = DistributionLoss(distribution, level=[80, 90])
    assert loss.output_names == neuralforecast_names("DistributionLoss", distribution=distribution, level=[80, 90])
    assert loss.output_names == [""] + MQLoss(level=[80, 90]).output_names
    assert loss.outputsize_multiplier == NF_MULTIPLIER[distribution]   # the distribution's parameters
    assert loss.is_distribution_output and not MQLoss().is_distribution_output
    assert loss._settings() == [("loss", c_name), ("level", "80,90"), ("num-samples", "1000")]
    assert dict(DistributionLoss(distribution, quantiles=[0.9, 0.1], num_samples=200)._settings()) == {
        "loss": c_name, "quantiles": "0.1,0.9", "num-samples": "200"}   # sorted, as neuralforecast sorts them
    assert loss == DistributionLoss(distribution) and loss != DistributionLoss(distribution, num_samples=10)


@pytest.mark.parametrize("quantiles", [(0.1, 0.5, 0.9), (0.05, 0.333, 0.975), (0.9, 0.1, 0.5), (0.25, 0.75)])
def test_quantile_names_are_neuralforecasts(quantiles):
    quantiles = list(quantiles)
    assert MQLoss(quantiles=quantiles).output_names == neuralforecast_names("MQLoss", quantiles=quantiles)
    assert HuberMQLoss(quantiles=quantiles).output_names == neuralforecast_names("HuberMQLoss", quantiles=quantiles)
    assert DistributionLoss("Normal", quantiles=quantiles).output_names == neuralforecast_names(
        "DistributionLoss", distribution="Normal", quantiles=quantiles)
    assert dict(MQLoss(quantiles=quantiles)._settings()) == {"loss": "mq", "quantiles": ",".join(map(str, quantiles))}
    assert MQLoss(quantiles=quantiles).quantiles == quantiles   # in the order given, as the columns


def test_duplicate_quantiles_warn_and_go_once():
    with pytest.warns(UserWarning, match="Duplicate quantiles"):
        loss = MQLoss(quantiles=[0.1, 0.9, 0.1])
    assert loss.output_names == ["-lo-80.0", "-hi-80.0"] and dict(loss._settings())["quantiles"] == "0.1,0.9"


def test_huber_mq_settings_and_names():
    loss = HuberMQLoss(level=[90, 80], delta=0.5)
    assert loss.output_names == MQLoss(level=[90, 80]).output_names   # level_to_outputs, as neuralforecast
    assert loss.outputsize_multiplier == 5
    assert dict(loss._settings()) == {"loss": "huber-mq", "level": "90,80", "huber-delta": "0.5"}
    assert loss == HuberMQLoss(level=[90, 80], delta=0.5) and loss != HuberMQLoss(level=[90, 80])
    with pytest.raises(ValueError, match="delta"):
        HuberMQLoss(delta=0)
    by_quantiles = HuberMQLoss(quantiles=[0.1, 0.5, 0.9], delta=0.5)
    assert dict(by_quantiles._settings()) == {"loss": "huber-mq", "quantiles": "0.1,0.5,0.9", "huber-delta": "0.5"}
    assert by_quantiles.outputsize_multiplier == 3


# ---- refusals ------------------------------------------------------------

@pytest.mark.parametrize("distribution", ["Bernoulli", "Tweedie", "ISQF"])
def test_other_distributions_are_refused_naming_fcasts(distribution):
    with pytest.raises(NotImplementedError, match="Normal, StudentT, Poisson, NegativeBinomial"):
        DistributionLoss(distribution)


def test_unknown_distribution_is_not_available():
    with pytest.raises(ValueError, match="Gamma not available"):
        DistributionLoss("Gamma")


def test_refused_arguments_say_why():
    with pytest.raises(NotImplementedError, match="return_params=True.*not the distribution's parameters"):
        DistributionLoss("Normal", return_params=True)
    with pytest.raises(NotImplementedError, match="df=3.*distribution_kwargs are not supported"):
        DistributionLoss("StudentT", df=3)
    with pytest.raises(NotImplementedError, match="horizon_weight"):
        DistributionLoss("Normal", horizon_weight=np.ones(6))
    with pytest.raises(NotImplementedError, match="horizon_weight"):
        IQLoss(horizon_weight=np.ones(6))


def test_bad_num_samples_and_quantiles_fail_when_the_model_is_made():
    """The C side checks the values when the model is made, in the
    constructor's words."""
    with pytest.raises(Exception, match="num_samples"):
        NHITS(h=6, input_size=12, loss=DistributionLoss("Normal", num_samples=0))
    with pytest.raises(Exception, match="quantile 1.5"):
        NHITS(h=6, input_size=12, loss=MQLoss(quantiles=[0.5, 1.5]))


# ---- training ------------------------------------------------------------

@pytest.mark.parametrize("distribution", ["Normal", "StudentT", "Poisson", "NegativeBinomial"])
def test_each_distribution_trains_under_neuralforecasts_columns(monthly, distribution):
    fc = fit(DistributionLoss(distribution, level=[80, 90]), monthly).predict()
    assert list(fc.columns) == ["unique_id", "ds"] + LEVEL_COLUMNS
    assert len(fc) == 4 * 6
    assert_ordered(fc)
    assert np.isfinite(fc["NHITS"]).all()
    if distribution in ("Poisson", "NegativeBinomial"):   # counts: every draw, so every column, is >= 0
        assert (fc[LEVEL_COLUMNS].to_numpy() >= 0).all()
    if distribution == "Normal":   # symmetric: mean and median of 1000 draws within sampling noise
        width = (fc["NHITS-hi-90"] - fc["NHITS-lo-90"]).to_numpy()
        assert (np.abs(fc["NHITS"] - fc["NHITS-median"]).to_numpy() <= 0.1 * width).all()


@pytest.mark.parametrize("loss, flags", [
    ("DistributionLoss('Normal', level=[80, 90], num_samples=200)",
     ["--loss", "normal", "--level", "80,90", "--num-samples", "200"]),
    ("DistributionLoss('NegativeBinomial', quantiles=[0.9, 0.1, 0.5])",
     ["--loss", "negative-binomial", "--quantiles", "0.1,0.5,0.9"]),
    ("MQLoss(quantiles=[0.1, 0.5, 0.9])", ["--loss", "mq", "--quantiles", "0.1,0.5,0.9"]),
    ("HuberMQLoss(quantiles=[0.25, 0.75], delta=0.5)",
     ["--loss", "huber-mq", "--quantiles", "0.25,0.75", "--huber-delta", "0.5"]),
])
def test_trains_as_the_cli(monthly, cli, fcast_bin, tmp_path, loss, flags):
    """Each loss gives the CLI's model with the matching flags: the same
    columns (neuralforecast's names) and the same forecasts."""
    from fcast.losses import pytorch as losses

    ours = fit(eval(loss, vars(losses)), monthly, h=12).predict()
    out = tmp_path / "loss.safetensors"
    subprocess.run([fcast_bin, "train", "--model", "nhits", "--h", "12", "--input-size", "12", "--max-steps", "20",
                    "--windows-batch-size", "128", "--mlp-units", "64:64,64:64,64:64", "--freq", "MS",
                    "--data", MONTHLY, "--out", str(out), "--device", "cpu"] + flags,
                   check=True, capture_output=True)
    theirs = cli(out, monthly)
    assert list(ours.columns) == list(theirs.columns)
    assert list(ours.columns)[2:] == ["NHITS" + n for n in eval(loss, vars(losses)).output_names]
    np.testing.assert_allclose(ours.iloc[:, 2:].to_numpy(), theirs.iloc[:, 2:].to_numpy(), rtol=1e-5, atol=1e-4)


def test_mq_quantiles_columns(monthly):
    fc = fit(MQLoss(quantiles=[0.1, 0.5, 0.9]), monthly).predict()
    assert list(fc.columns) == ["unique_id", "ds"] + ["NHITS" + n for n in
                                                      neuralforecast_names("MQLoss", quantiles=[0.1, 0.5, 0.9])]
    assert fc.iloc[:, 2:].notna().all().all()


@pytest.fixture(scope="module")
def normal(monthly):
    return fit(DistributionLoss("Normal", level=[80, 90]), monthly)


def test_predict_level_draws_the_asked_quantiles(normal):
    """predict(level=...) and predict(quantiles=...) give neuralforecast's
    columns for a distribution model (the mean, then the asked quantiles
    sorted, no median unless asked), drawn at them as neuralforecast's
    predict draws them: from the same samples as the trained quantiles
    (fcast keys the draws by the window), so shared quantiles are equal and
    new ones (95 %) nest outside."""
    full = normal.predict()
    fc = normal.predict(level=[80])
    assert list(fc.columns) == ["unique_id", "ds", "NHITS", "NHITS-lo-80", "NHITS-hi-80"]
    pd.testing.assert_frame_equal(fc, full[fc.columns])
    fc = normal.predict(quantiles=[0.9, 0.05])
    assert list(fc.columns) == ["unique_id", "ds", "NHITS", "NHITS_ql0.05", "NHITS_ql0.9"]
    np.testing.assert_array_equal(fc["NHITS_ql0.05"], full["NHITS-lo-90"])
    wide = normal.predict(level=[95, 80])
    assert list(wide.columns) == ["unique_id", "ds", "NHITS", "NHITS-lo-95", "NHITS-lo-80", "NHITS-hi-80",
                                  "NHITS-hi-95"]
    np.testing.assert_array_equal(wide["NHITS-lo-80"], full["NHITS-lo-80"])
    assert (wide["NHITS-lo-95"] <= wide["NHITS-lo-80"]).all() and (wide["NHITS-hi-95"] >= wide["NHITS-hi-80"]).all()
    pd.testing.assert_frame_equal(normal.predict(), full)   # every trained column again


def test_cross_validation(monthly):
    nf = NeuralForecast(models=[NHITS(h=6, input_size=12, loss=DistributionLoss("Poisson", level=[80]), **SMALL)],
                        freq="MS")
    cv = nf.cross_validation(monthly, n_windows=2, step_size=6)
    assert list(cv.columns) == ["unique_id", "ds", "cutoff", "NHITS", "NHITS-median", "NHITS-lo-80", "NHITS-hi-80",
                                "y"]
    assert len(cv) == 4 * 2 * 6
    assert_ordered(cv, levels=(80,))
    assert (cv[["NHITS", "NHITS-lo-80"]].to_numpy() >= 0).all()
    # refit: level reaches each window's predict, as neuralforecast's
    cv = nf.cross_validation(monthly, n_windows=2, step_size=6, refit=True, level=[80])
    assert list(cv.columns) == ["unique_id", "ds", "cutoff", "NHITS", "NHITS-lo-80", "NHITS-hi-80", "y"]


def test_save_and_load_give_the_same_forecasts(monthly, tmp_path):
    loss = DistributionLoss("StudentT", quantiles=[0.75, 0.25, 0.5], num_samples=300)
    nf = fit(loss, monthly)
    fc = nf.predict()
    assert list(fc.columns) == ["unique_id", "ds", "NHITS", "NHITS-lo-50.0", "NHITS-median", "NHITS-hi-50.0"]
    nf.save(str(tmp_path / "m"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # remade without warnings
        back = NeuralForecast.load(str(tmp_path / "m"))
    assert back.models[0].loss == loss
    pd.testing.assert_frame_equal(back.predict(), fc)
    pd.testing.assert_frame_equal(back.predict(df=monthly), fc)


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


def test_mq_quantiles_save_and_load(monthly, tmp_path):
    nf = fit(HuberMQLoss(quantiles=[0.9, 0.1], delta=0.5), monthly)
    fc = nf.predict()
    assert list(fc.columns) == ["unique_id", "ds", "NHITS-hi-80.0", "NHITS-lo-80.0"]
    nf.save(str(tmp_path / "m"))
    back = NeuralForecast.load(str(tmp_path / "m"))
    assert back.models[0].loss == HuberMQLoss(quantiles=[0.9, 0.1], delta=0.5)
    pd.testing.assert_frame_equal(back.predict(), fc)


def test_cross_validation_refuses_a_level_it_cannot_give_before_training(monthly):
    nf = NeuralForecast(models=[NHITS(h=6, input_size=12, loss=DistributionLoss("Normal", level=[80]), **SMALL)],
                        freq="MS")
    with pytest.raises(NotImplementedError, match="0.05, 0.95 are not among them"):
        nf.cross_validation(monthly, n_windows=2, step_size=6, refit=True, level=[90])


def test_iq_loss_trains_forecasts_and_reloads(monthly, tmp_path):
    """IQLoss: neuralforecast's columns (NHITS_ql0.5; with level the bounds
    alone, with quantiles NHITS_ql<q>), the CLI's model with the matching
    flags, quantile columns ordered, a save/load round trip."""
    from fcast.losses.pytorch import IQLoss
    loss = IQLoss(cos_embedding_dim=8, concentration0=2.0)
    assert loss.output_names == ["_ql0.5"] and loss.outputsize_multiplier == 1
    nf = fit(loss, monthly)
    fc = nf.predict()
    assert list(fc.columns) == ["unique_id", "ds", "NHITS_ql0.5"]
    lv = nf.predict(level=[80, 50])
    assert list(lv.columns) == ["unique_id", "ds", "NHITS-lo-80", "NHITS-lo-50", "NHITS-hi-50", "NHITS-hi-80"]
    assert (lv["NHITS-lo-80"] <= lv["NHITS-lo-50"]).all() and (lv["NHITS-hi-50"] <= lv["NHITS-hi-80"]).all()
    q = nf.predict(quantiles=[0.9, 0.1])
    assert list(q.columns) == ["unique_id", "ds", "NHITS_ql0.1", "NHITS_ql0.9"]
    np.testing.assert_array_equal(q["NHITS_ql0.1"], lv["NHITS-lo-80"])
    nf.save(str(tmp_path / "m"))
    back = NeuralForecast.load(str(tmp_path / "m"))
    assert back.models[0].loss == loss
    pd.testing.assert_frame_equal(back.predict(), fc)
