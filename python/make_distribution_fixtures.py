"""tests/fixtures/distribution/: neuralforecast 3.3.0 models trained with
DistributionLoss (Normal, StudentT, Poisson, NegativeBinomial) on the bundled
monthly series, exported for fcast (fcast_export.save_for_fcast), and the
forecasts neuralforecast's predict gives from them with 20000 draws.
tests/python/test_distribution_fixtures.py has fcast predict from the same
weights and holds the two to sampling noise.

Run by developers, in a scratch directory (neuralforecast writes
lightning_logs/), with python/requirements-fixtures.txt installed:
    cd $(mktemp -d) && python /path/to/fcast/python/make_distribution_fixtures.py /path/to/fcast
"""
import logging
import os
import sys
import warnings

import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fcast_export import save_for_fcast  # noqa: E402

# (distribution, steps): NegativeBinomial trains 3 steps, since
# neuralforecast's own training of it on these series fails before step 30
# (torch refuses a probs outside [0, 1)).
CASES = (("Normal", 30), ("StudentT", 30), ("Poisson", 30), ("NegativeBinomial", 3))


def main():
    warnings.filterwarnings("ignore")
    logging.disable(logging.CRITICAL)
    import torch
    from neuralforecast import NeuralForecast
    from neuralforecast.losses.pytorch import DistributionLoss
    from neuralforecast.models import MLP
    root = sys.argv[1]
    out = os.path.join(root, "tests", "fixtures", "distribution")
    os.makedirs(out, exist_ok=True)
    df = pd.read_csv(os.path.join(root, "data", "monthly_classics.csv"), parse_dates=["ds"])
    quiet = dict(logger=False, enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    torch.manual_seed(0)
    for dist, steps in CASES:
        loss = DistributionLoss(dist, level=[80, 90], num_samples=20000)
        model = MLP(h=12, input_size=24, hidden_size=32, num_layers=2, loss=loss, scaler_type="standard",
                    max_steps=steps, random_seed=1, **quiet)
        nf = NeuralForecast(models=[model], freq="MS")
        nf.fit(df)
        name = dist.lower()
        save_for_fcast(nf.models[0], os.path.join(out, f"{name}.safetensors"), freq="MS", ds_kind="date")
        nf.predict().sort_values(["unique_id", "ds"]).to_csv(os.path.join(out, f"{name}.csv"), index=False,
                                                             date_format="%Y-%m-%d", float_format="%.6g")


if __name__ == "__main__":
    main()
