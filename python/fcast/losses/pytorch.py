"""Training losses, as neuralforecast.losses.pytorch names them.

Each class is the neuralforecast loss of the same name and arguments; it
tells the C side which `loss` (and `level`) to train with, and names the
forecast columns as neuralforecast's `output_names` do. The module sits
at fcast/losses/pytorch.py so that `from neuralforecast.losses.pytorch
import MQLoss` becomes `from fcast.losses.pytorch import MQLoss`; the
classes are also importable from `fcast.losses`.

The multi-quantile losses pass their levels (and HuberMQLoss its delta);
HuberLoss, QuantileLoss and MASE pass theirs (huber-delta, quantile,
season). horizon_weight is not supported by fcast.
DistributionLoss and IQLoss raise NotImplementedError.
"""
import warnings

import numpy as np

__all__ = ["MAE", "MSE", "MAPE", "SMAPE", "HuberLoss", "QuantileLoss", "MASE", "MQLoss", "HuberMQLoss",
           "DistributionLoss", "IQLoss"]


class _Loss:
    """A loss: its C name, the parameters it was made with (for equality,
    repr and saving) and its output names."""

    _c_name = None
    output_names = [""]

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


def level_to_outputs(level):
    """neuralforecast's quantile order and column suffixes for `level`: the
    median, then the bounds from the lowest quantile up (its own function,
    without torch)."""
    qs = sum([[50 - lv / 2, 50 + lv / 2] for lv in level], [])
    names = sum([[f"-lo-{lv}", f"-hi-{lv}"] for lv in level], [])
    order = np.argsort(qs)
    return ["-median"] + [names[i] for i in order]


class _MultiQuantileLoss(_Loss):
    """A loss with one output per quantile of `level` (MQLoss, HuberMQLoss):
    fcast returns the median and every level's bounds, named and ordered as
    neuralforecast's columns. `quantiles=` is not in the C API yet."""

    def __init__(self, level, quantiles, horizon_weight, **params):
        if quantiles is not None:
            raise NotImplementedError(f"fcast: {type(self).__name__}(quantiles=...) is not in the C API yet; "
                                      "use level=[...]")
        unique = list(dict.fromkeys(level))
        if len(unique) < len(level):
            warnings.warn(f"Duplicate levels detected. Using unique levels: {unique}")
        super().__init__(horizon_weight, level=unique, **params)
        self.level = unique
        self.output_names = level_to_outputs(unique)

    def _settings(self):
        return super()._settings() + [("level", ",".join(_level_text(lv) for lv in self.level))]


class MQLoss(_MultiQuantileLoss):
    """Multi-quantile loss over the quantiles of `level` (neuralforecast's
    MQLoss): the sum over the quantiles of their pinball losses."""
    _c_name = "mq"

    def __init__(self, level=[80, 90], quantiles=None, horizon_weight=None):  # noqa: B006 (neuralforecast's default)
        super().__init__(level, quantiles, horizon_weight)


class HuberMQLoss(_MultiQuantileLoss):
    """Huberized multi-quantile loss (neuralforecast's HuberMQLoss): the sum
    over the quantiles of huber(q max(y - yhat, 0)) + huber((1 - q)
    max(yhat - y, 0)), each against 0 with threshold delta."""
    _c_name = "huber-mq"

    def __init__(self, level=[80, 90], quantiles=None, delta=1.0, horizon_weight=None):  # noqa: B006
        if not delta > 0:
            raise ValueError(f"fcast: HuberMQLoss(delta={delta!r}): delta must be a positive number")
        super().__init__(level, quantiles, horizon_weight, delta=delta)
        self.delta = delta

    def _settings(self):
        return super()._settings() + [("huber-delta", repr(float(self.delta)))]


class DistributionLoss(_Loss):
    """neuralforecast's DistributionLoss (a network that outputs a
    distribution's parameters, trained by negative log-likelihood) is not in
    fcast yet: refused rather than trained as another loss."""

    def __init__(self, distribution, level=[80, 90], quantiles=None, num_samples=1000,  # noqa: B006
                 return_params=False, horizon_weight=None, **distribution_kwargs):
        raise NotImplementedError(f"fcast: DistributionLoss(distribution={distribution!r}) is not implemented yet "
                                  "(no distribution head in the C library); use MQLoss or HuberMQLoss for intervals")


class IQLoss(_Loss):
    """neuralforecast's IQLoss (implicit quantile loss: the quantile is an
    input of the network) is not in fcast: refused."""

    def __init__(self, cos_embedding_dim=64, concentration0=1.0, concentration1=1.0, horizon_weight=None):
        raise NotImplementedError("fcast: IQLoss (implicit quantiles, a quantile input to the network) is not "
                                  "implemented; use MQLoss or HuberMQLoss with the quantiles you need")


def _level_text(level):
    """A level as the C side reads it: an integer (80.0 is 80); anything
    else goes as typed, for the C side to refuse by name."""
    return str(int(level)) if float(level).is_integer() else str(level)
