"""tests/fixtures/revin/: a neuralforecast 3.3.0 MLP trained with
scaler_type='revin' on the bundled monthly series (MAE: RevIN's bias and
weight keep their initial 0 and 1, as the loss is on the scaled data),
exported for fcast (fcast_export.save_for_fcast, which checks that), and
neuralforecast's forecast from it. tests/python/test_revin_fixture.py has
fcast predict from the same weights (measured within 2.3e-9 relative).

Run by developers, in a scratch directory (neuralforecast writes
lightning_logs/), with python/requirements-fixtures.txt installed:
    cd $(mktemp -d) && python /path/to/fcast/python/make_revin_fixture.py /path/to/fcast
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
    from neuralforecast.models import MLP
    root = sys.argv[1]
    out = os.path.join(root, "tests", "fixtures", "revin")
    os.makedirs(out, exist_ok=True)
    df = pd.read_csv(os.path.join(root, "data", "monthly_classics.csv"), parse_dates=["ds"])
    quiet = dict(logger=False, enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    model = MLP(h=12, input_size=24, hidden_size=32, num_layers=2, scaler_type="revin", max_steps=30, random_seed=1,
                **quiet)
    nf = NeuralForecast(models=[model], freq="MS")
    nf.fit(df)
    save_for_fcast(nf.models[0], os.path.join(out, "mlp.safetensors"), freq="MS", ds_kind="date")
    nf.predict().sort_values(["unique_id", "ds"]).to_csv(os.path.join(out, "mlp.csv"), index=False,
                                                         date_format="%Y-%m-%d", float_format="%.9g")


if __name__ == "__main__":
    main()
