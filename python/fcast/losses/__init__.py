"""Training losses: fcast.losses.pytorch, neuralforecast.losses.pytorch's
counterpart, whose classes are also importable from here."""
from .pytorch import (MAE, MAPE, MASE, MSE, SMAPE, DistributionLoss, HuberLoss, HuberMQLoss, IQLoss, MQLoss,
                      QuantileLoss)

__all__ = ["MAE", "MSE", "MAPE", "SMAPE", "HuberLoss", "QuantileLoss", "MASE", "MQLoss", "HuberMQLoss",
           "DistributionLoss", "IQLoss"]
