"""tests/fixtures/nf_models/: models trained by neuralforecast 3.3.0 on the
bundled monthly series, exported for fcast (fcast_export.save_for_fcast),
with neuralforecast's forecast from each; tests/python/test_nf_model_fixtures.py
has fcast predict from the same weights:
  - revin_mlp: an MLP with scaler_type='revin' (MAE: RevIN's bias and weight
    keep their initial 0 and 1, as the loss is on the scaled data; the
    export checks that); measured within 2.3e-9 relative;
  - iq_mlp: an MLP trained with IQLoss(cos_embedding_dim=16,
    concentration0=2), forecast at its default quantile 0.5 (the head's
    forward, no sampling; measured within 1.9e-9 relative), and with
    level=[80] (iq_mlp_level80.csv: np.quantile over 11 quantiles' forecasts).

Run by developers, in a scratch directory (neuralforecast writes
lightning_logs/), with python/requirements-fixtures.txt installed:
    cd $(mktemp -d) && python /path/to/fcast/python/make_nf_model_fixtures.py /path/to/fcast
"""
import logging
import os
import sys
import warnings

import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fcast_export import save_for_fcast  # noqa: E402


def main():
    warnings.filterwarnings("ignore")
    logging.disable(logging.CRITICAL)
    from neuralforecast import NeuralForecast
    from neuralforecast.losses.pytorch import IQLoss
    from neuralforecast.models import MLP
    root = sys.argv[1]
    out = os.path.join(root, "tests", "fixtures", "nf_models")
    os.makedirs(out, exist_ok=True)
    df = pd.read_csv(os.path.join(root, "data", "monthly_classics.csv"), parse_dates=["ds"])
    quiet = dict(logger=False, enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    small = dict(h=12, input_size=24, hidden_size=32, num_layers=2, max_steps=30, random_seed=1, **quiet)
    cases = {"revin_mlp": MLP(scaler_type="revin", **small),
             "iq_mlp": MLP(scaler_type="standard", loss=IQLoss(cos_embedding_dim=16, concentration0=2.0), **small)}
    for name, model in cases.items():
        nf = NeuralForecast(models=[model], freq="MS")
        nf.fit(df)
        save_for_fcast(nf.models[0], os.path.join(out, f"{name}.safetensors"), freq="MS", ds_kind="date")
        nf.predict().sort_values(["unique_id", "ds"]).to_csv(os.path.join(out, f"{name}.csv"), index=False,
                                                             date_format="%Y-%m-%d", float_format="%.9g")
        if name == "iq_mlp":
            nf.predict(level=[80]).sort_values(["unique_id", "ds"]).to_csv(
                os.path.join(out, f"{name}_level80.csv"), index=False, date_format="%Y-%m-%d", float_format="%.9g")


if __name__ == "__main__":
    main()
