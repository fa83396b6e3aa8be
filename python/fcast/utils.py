"""neuralforecast.utils' example data, so that its tutorials run on fcast
by their imports alone: AirPassengers (Box & Jenkins' monthly airline
passengers, 1949-1960, the same numbers as data/monthly_classics.csv),
AirPassengersDF (one series, unique_id 1.0, month-end ds),
AirPassengersPanel (two series, Airline1 and Airline2 = Airline1 + 300,
with a `trend` column and the seasonal-naive `y_[lag12]`, as future
exogenous columns) and AirPassengersStatic (a dummy per airline), built
as neuralforecast builds them; PredictionIntervals, fit's conformal
intervals; and plot_series (fcast.plotting).
"""
import numpy as np
import pandas as pd

from .plotting import plot_series   # utilsforecast's, as neuralforecast's tutorials import it

__all__ = ["AirPassengers", "AirPassengersDF", "AirPassengersPanel", "AirPassengersStatic", "PredictionIntervals",
           "plot_series"]


class PredictionIntervals:
    """neuralforecast's PredictionIntervals: conformal intervals from a
    cross-validation of n_windows origins step_size apart, computed when
    fit is given one (fit(prediction_intervals=PredictionIntervals())) and
    used by predict(level=[...])."""

    def __init__(self, n_windows=2, method="conformal_distribution", step_size=1):
        if n_windows < 2:
            raise ValueError("You need at least two windows to compute conformal intervals")
        allowed_methods = ["conformal_error", "conformal_distribution"]
        if method not in allowed_methods:
            raise ValueError(f"method must be one of {allowed_methods}")
        if step_size < 1:
            raise ValueError("step_size must be at least 1")
        self.n_windows, self.method, self.step_size = n_windows, method, step_size

    def _settings(self):
        """fcast_config_set's keys for these intervals."""
        return [("prediction-intervals", "conformal"), ("pi-windows", str(self.n_windows)),
                ("pi-step-size", str(self.step_size)), ("pi-method", self.method)]

    def __repr__(self):
        return f"PredictionIntervals(n_windows={self.n_windows}, method='{self.method}')"


AirPassengers = np.array([
    112.0, 118.0, 132.0, 129.0, 121.0, 135.0, 148.0, 148.0, 136.0, 119.0, 104.0, 118.0,
    115.0, 126.0, 141.0, 135.0, 125.0, 149.0, 170.0, 170.0, 158.0, 133.0, 114.0, 140.0,
    145.0, 150.0, 178.0, 163.0, 172.0, 178.0, 199.0, 199.0, 184.0, 162.0, 146.0, 166.0,
    171.0, 180.0, 193.0, 181.0, 183.0, 218.0, 230.0, 242.0, 209.0, 191.0, 172.0, 194.0,
    196.0, 196.0, 236.0, 235.0, 229.0, 243.0, 264.0, 272.0, 237.0, 211.0, 180.0, 201.0,
    204.0, 188.0, 235.0, 227.0, 234.0, 264.0, 302.0, 293.0, 259.0, 229.0, 203.0, 229.0,
    242.0, 233.0, 267.0, 269.0, 270.0, 315.0, 364.0, 347.0, 312.0, 274.0, 237.0, 278.0,
    284.0, 277.0, 317.0, 313.0, 318.0, 374.0, 413.0, 405.0, 355.0, 306.0, 271.0, 306.0,
    315.0, 301.0, 356.0, 348.0, 355.0, 422.0, 465.0, 467.0, 404.0, 347.0, 305.0, 336.0,
    340.0, 318.0, 362.0, 348.0, 363.0, 435.0, 491.0, 505.0, 404.0, 359.0, 310.0, 337.0,
    360.0, 342.0, 406.0, 396.0, 420.0, 472.0, 548.0, 559.0, 463.0, 407.0, 362.0, 405.0,
    417.0, 391.0, 419.0, 461.0, 472.0, 535.0, 622.0, 606.0, 508.0, 461.0, 390.0, 432.0,
], dtype=np.float32)

_MONTH_ENDS = pd.date_range(start="1949-01-01", periods=len(AirPassengers), freq=pd.offsets.MonthEnd())

AirPassengersDF = pd.DataFrame({"unique_id": np.ones(len(AirPassengers)), "ds": _MONTH_ENDS, "y": AirPassengers})

AirPassengersPanel = pd.DataFrame({
    "unique_id": np.concatenate([["Airline1"] * len(AirPassengers), ["Airline2"] * len(AirPassengers)]),
    "ds": np.tile(_MONTH_ENDS.to_numpy(), 2),
    "y": np.concatenate([AirPassengers, AirPassengers + 300]),
})
AirPassengersPanel["trend"] = range(len(AirPassengersPanel))
AirPassengersPanel["y_[lag12]"] = (AirPassengersPanel.groupby("unique_id")["y"].shift(periods=12)
                                   .reset_index(drop=True).fillna(AirPassengersPanel["y"]))

AirPassengersStatic = pd.DataFrame({"unique_id": np.array(["Airline1", "Airline2"]), "airline1": [0, 1],
                                    "airline2": [1, 0]})
