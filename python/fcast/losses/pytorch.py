"""Training losses, as neuralforecast.losses.pytorch names them.

Each class is the neuralforecast loss of the same name and arguments; it
tells the C side which `loss` (and its parameters) to train with, and
names the forecast columns as neuralforecast's `output_names` do. The
module sits at fcast/losses/pytorch.py so that `from
neuralforecast.losses.pytorch import MQLoss` becomes `from
fcast.losses.pytorch import MQLoss`; the classes are also importable from
`fcast.losses`.

The multi-quantile losses pass their levels or quantiles (and HuberMQLoss
its delta); HuberLoss, QuantileLoss and MASE pass theirs (huber-delta,
quantile, season). DistributionLoss passes its distribution as the loss
(Normal -> normal, StudentT -> studentt, Poisson -> poisson,
NegativeBinomial -> negative-binomial), its level or quantiles and
num_samples (num-samples): the network outputs the distribution's
parameters, trained by negative log-likelihood, and the forecast columns
are the mean of num_samples draws and their quantiles, named as
neuralforecast's. The draws are fcast's own (a Philox stream per point and
draw), so the sampled quantiles differ from torch's by sampling noise.
horizon_weight is not supported by fcast; neither are DistributionLoss's
other distributions (Bernoulli, Tweedie, ISQF), return_params and
distribution_kwargs: they raise NotImplementedError. IQLoss trains the C
side's iq loss (the loss's head after the model).
"""
import numbers
import warnings

import numpy as np

__all__ = ["MAE", "MSE", "MAPE", "SMAPE", "HuberLoss", "QuantileLoss", "MASE", "MQLoss", "HuberMQLoss",
           "DistributionLoss", "IQLoss"]


class _Loss:
    """A loss: its C name, the parameters it was made with (for equality,
    repr and saving) and its output names."""

    _c_name = None
    output_names = [""]
    is_distribution_output = False   # neuralforecast's attribute: True for DistributionLoss

    def __init__(self, horizon_weight=None, **params):
        if horizon_weight is not None:
            raise NotImplementedError(f"fcast: {type(self).__name__}(horizon_weight=...) is not supported")
        self._params = params

    @property
    def outputsize_multiplier(self):
        return len(self.output_names)

    def _settings(self):
        """(key, value) pairs for fcast_config_set, in the order to set them."""
        return [("loss", self._c_name)]

    def _to_json(self):
        return {"class": type(self).__name__, "params": self._params}

    def __eq__(self, other):
        return type(self) is type(other) and self._params == other._params

    def __hash__(self):
        return hash((type(self).__name__, repr(sorted(self._params.items()))))

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self._params.items())})"


class MAE(_Loss):
    """Mean absolute error (neuralforecast's MAE)."""
    _c_name = "mae"


class MSE(_Loss):
    """Mean squared error (neuralforecast's MSE)."""
    _c_name = "mse"


class MAPE(_Loss):
    """Mean absolute percentage error (neuralforecast's MAPE)."""
    _c_name = "mape"


class SMAPE(_Loss):
    """Symmetric MAPE, 0 to 2 as neuralforecast's SMAPE."""
    _c_name = "smape"


class HuberLoss(_Loss):
    """Huber loss with threshold delta (the C API's huber-delta)."""
    _c_name = "huber"

    def __init__(self, delta=1.0, horizon_weight=None):
        super().__init__(horizon_weight, delta=delta)

    def _settings(self):
        return super()._settings() + [("huber-delta", repr(float(self._params["delta"])))]


class QuantileLoss(_Loss):
    """Pinball loss of quantile q (the C API's quantile); its column is
    <model>_ql<q>, as neuralforecast names it."""
    _c_name = "quantile"

    def __init__(self, q, horizon_weight=None):
        super().__init__(horizon_weight, q=q)
        self.output_names = [f"_ql{q}"]

    def _settings(self):
        return super()._settings() + [("quantile", repr(float(self._params["q"])))]


class MASE(_Loss):
    """Mean absolute scaled error with the naive error of season
    `seasonality` (the C API's season)."""
    _c_name = "mase"

    def __init__(self, seasonality, horizon_weight=None):
        super().__init__(horizon_weight, seasonality=seasonality)

    def _settings(self):
        return super()._settings() + [("season", str(int(self._params["seasonality"])))]


def _unique(values, what):
    """values without repeats, first occurrences kept, warning as
    neuralforecast's level_to_outputs and quantiles_to_outputs do."""
    unique = list(dict.fromkeys(values))
    if len(unique) < len(values):
        warnings.warn(f"Duplicate {what} detected. Using unique {what}: {unique}")
    return unique


def level_to_outputs(level):
    """neuralforecast's quantile order and column suffixes for `level`: the
    median, then the bounds from the lowest quantile up (its own function,
    without torch)."""
    qs = sum([[50 - lv / 2, 50 + lv / 2] for lv in level], [])
    names = sum([[f"-lo-{lv}", f"-hi-{lv}"] for lv in level], [])
    order = np.argsort(qs)
    return ["-median"] + [names[i] for i in order]


def level_to_quantiles(level):
    """The quantiles of level_to_outputs' columns, in their order: 0.5, then
    the bounds from the lowest up."""
    return [0.5] + sorted(q for lv in level for q in ((50 - lv / 2) / 100, (50 + lv / 2) / 100))


def quantiles_to_outputs(quantiles):
    """neuralforecast's column suffixes for `quantiles`, in the order given
    (its quantiles_to_outputs, without torch): q < 0.5 is -lo-<100 - 200 q>,
    q > 0.5 -hi-<200 q - 100>, both rounded to 2 decimals as numpy prints
    them (-lo-80.0, -lo-33.4), 0.5 -median."""
    names = []
    for q in quantiles:
        if q < 0.5:
            names.append(f"-lo-{np.round(100 - 200 * q, 2)}")
        elif q > 0.5:
            names.append(f"-hi-{np.round(100 - 200 * (1 - q), 2)}")
        else:
            names.append("-median")
    return names


def _quantile_text(quantiles):
    """quantiles as the C API's `quantiles` key reads them."""
    return ",".join(repr(float(q)) if isinstance(q, numbers.Real) else str(q) for q in quantiles)


class _QuantileOutputs(_Loss):
    """A loss whose columns are quantiles of `level` (the median and every
    level's bounds, ordered as neuralforecast's level_to_outputs) or, when
    given, of `quantiles` (neuralforecast's quantiles_to_outputs names;
    level is then ignored, as neuralforecast ignores it). Sets level,
    quantiles (the outputs' quantiles, in the columns' order) and
    output_names."""

    _sort_quantiles = False   # DistributionLoss sorts them, MQLoss and HuberMQLoss keep them as given

    def __init__(self, level, quantiles, horizon_weight, **params):
        level = _unique(list(level), "levels")
        if quantiles is None:
            super().__init__(horizon_weight, level=level, **params)
            self.quantiles = level_to_quantiles(level)
            self.output_names = level_to_outputs(level)
        else:
            quantiles = sorted(quantiles) if self._sort_quantiles else list(quantiles)
            quantiles = _unique(quantiles, "quantiles")
            super().__init__(horizon_weight, level=level, quantiles=quantiles, **params)
            self.quantiles = quantiles
            self.output_names = quantiles_to_outputs(quantiles)
        self.level = level

    def _quantile_settings(self):
        """The level or quantiles pair of the C API."""
        if "quantiles" in self._params:
            return [("quantiles", _quantile_text(self._params["quantiles"]))]
        return [("level", ",".join(_level_text(lv) for lv in self.level))]


class _MultiQuantileLoss(_QuantileOutputs):
    """A loss with one output per quantile (MQLoss, HuberMQLoss): fcast
    returns the median and every level's bounds, or the quantiles given, in
    the order given, named and ordered as neuralforecast's columns."""

    def _settings(self):
        return super()._settings() + self._quantile_settings()


class MQLoss(_MultiQuantileLoss):
    """Multi-quantile loss over the quantiles of `level`, or `quantiles`
    (neuralforecast's MQLoss): the sum over the quantiles of their pinball
    losses. The C API's level or quantiles."""
    _c_name = "mq"

    def __init__(self, level=[80, 90], quantiles=None, horizon_weight=None):  # noqa: B006 (neuralforecast's default)
        super().__init__(level, quantiles, horizon_weight)


class HuberMQLoss(_MultiQuantileLoss):
    """Huberized multi-quantile loss (neuralforecast's HuberMQLoss): the sum
    over the quantiles of huber(q max(y - yhat, 0)) + huber((1 - q)
    max(yhat - y, 0)), each against 0 with threshold delta. The C API's
    level or quantiles, and huber-delta."""
    _c_name = "huber-mq"

    def __init__(self, level=[80, 90], quantiles=None, delta=1.0, horizon_weight=None):  # noqa: B006
        if not delta > 0:
            raise ValueError(f"fcast: HuberMQLoss(delta={delta!r}): delta must be a positive number")
        super().__init__(level, quantiles, horizon_weight, delta=delta)
        self.delta = delta

    def _settings(self):
        return super()._settings() + [("huber-delta", repr(float(self.delta)))]


# neuralforecast's distributions fcast trains: {name: (the C API's loss, neuralforecast's param_names)}
_DISTRIBUTIONS = {"Normal": ("normal", ["-loc", "-scale"]),
                  "StudentT": ("studentt", ["-df", "-loc", "-scale"]),
                  "Poisson": ("poisson", ["-loc"]),
                  "NegativeBinomial": ("negative-binomial", ["-total_count", "-logits"])}
# neuralforecast 3.3.0's others, refused
_NF_ONLY_DISTRIBUTIONS = ("Bernoulli", "Tweedie", "ISQF")


class DistributionLoss(_QuantileOutputs):
    """neuralforecast's DistributionLoss: the network outputs the
    parameters of `distribution` (outputsize_multiplier of them: Normal's
    loc and scale, StudentT's df, loc and scale, Poisson's rate,
    NegativeBinomial's total_count and logits, each as neuralforecast maps
    and scales them), trained by their negative log-likelihood.

    The forecast columns are the mean of num_samples draws from the
    forecast distribution (suffix ""), then the draws' quantiles of `level`
    (-median, -lo-90, ..., -hi-90, as neuralforecast's) or of `quantiles`
    (sorted, as neuralforecast sorts them: -lo-80.0, -median, -hi-80.0).
    The C API's loss (normal, studentt, poisson, negative-binomial), level
    or quantiles and num-samples. fcast draws with its own Philox stream,
    so the sampled quantiles differ from torch's by sampling noise (about
    sqrt(q (1 - q) / num_samples) / density).

    Refused (NotImplementedError): Bernoulli, Tweedie and ISQF;
    return_params=True (fcast forecasts the mean and quantiles, not the
    parameters); distribution_kwargs; horizon_weight."""

    _sort_quantiles = True
    is_distribution_output = True

    def __init__(self, distribution, level=[80, 90], quantiles=None, num_samples=1000,  # noqa: B006
                 return_params=False, horizon_weight=None, **distribution_kwargs):
        have = ", ".join(_DISTRIBUTIONS)
        if distribution in _NF_ONLY_DISTRIBUTIONS:
            raise NotImplementedError(f"fcast: DistributionLoss(distribution={distribution!r}) is not implemented: "
                                      f"fcast trains {have}")
        if distribution not in _DISTRIBUTIONS:
            raise ValueError(f"fcast: DistributionLoss(distribution={distribution!r}): {distribution} not available "
                             f"(neuralforecast's are {have}, {', '.join(_NF_ONLY_DISTRIBUTIONS)}; fcast trains {have})")
        if return_params:
            raise NotImplementedError(f"fcast: DistributionLoss({distribution!r}, return_params=True) is not "
                                      "supported: fcast forecasts the sample mean and quantiles, not the "
                                      "distribution's parameters (the C API returns no parameter columns)")
        if distribution_kwargs:
            raise NotImplementedError(f"fcast: DistributionLoss({distribution!r}, "
                                      f"{', '.join(f'{k}={v!r}' for k, v in distribution_kwargs.items())}): "
                                      "distribution_kwargs are not supported: fcast makes the distribution from "
                                      "the network's outputs alone")
        if horizon_weight is not None:
            raise NotImplementedError("fcast: DistributionLoss(horizon_weight=...) is not supported")
        super().__init__(level, quantiles, None, distribution=distribution, num_samples=num_samples)
        self._params = {"distribution": distribution, **self._params}   # distribution first, as in the call
        self._c_name, self.param_names = _DISTRIBUTIONS[distribution]
        self.distribution, self.num_samples, self.return_params = distribution, num_samples, False
        self.distribution_kwargs = {}
        self.output_names = [""] + self.output_names

    @property
    def outputsize_multiplier(self):
        """The network's outputs per point: the distribution's parameters."""
        return len(self.param_names)

    def _settings(self):
        samples = self.num_samples
        samples = str(int(samples)) if isinstance(samples, numbers.Integral) else str(samples)
        return super()._settings() + self._quantile_settings() + [("num-samples", samples)]


class IQLoss(_Loss):
    """neuralforecast's IQLoss (implicit quantiles): the model's output goes
    through the loss's head with a quantile as input (a cosine embedding of
    it, two layers, PReLUs), trained by QuantileLoss at quantiles drawn per
    point from Beta(concentration1, concentration0); the C API's loss "iq"
    with cos-embedding-dim and the concentrations. Its forecast is the
    median, column "_ql0.5" as neuralforecast names it; predict(level=,
    quantiles=) as neuralforecast's (np.quantile of the forecasts at 11
    fixed quantiles). fcast draws the training quantiles from its own
    Philox stream, not torch's."""
    _c_name = "iq"
    output_names = ["_ql0.5"]

    def __init__(self, cos_embedding_dim=64, concentration0=1.0, concentration1=1.0, horizon_weight=None):
        super().__init__(horizon_weight, cos_embedding_dim=cos_embedding_dim, concentration0=concentration0,
                         concentration1=concentration1)
        self.cos_embedding_dim, self.concentration0, self.concentration1 = \
            cos_embedding_dim, concentration0, concentration1
        self.q = 0.5

    def _settings(self):
        return super()._settings() + [("cos-embedding-dim", str(int(self.cos_embedding_dim))),
                                      ("concentration0", repr(float(self.concentration0))),
                                      ("concentration1", repr(float(self.concentration1)))]


def _level_text(level):
    """A level as the C side reads it: an integer (80.0 is 80); anything
    else goes as typed, for the C side to refuse by name."""
    return str(int(level)) if float(level).is_integer() else str(level)
