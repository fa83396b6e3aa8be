/* An IQLoss model's forecast at asked quantiles, as neuralforecast 3.3.0's
 * NeuralForecast.predict makes it ("IQLoss does not give monotonically
 * increasing quantiles, so we apply a hack"): the model's forecasts at 11
 * fixed quantiles (FC_IQ_GRID), then per point np.quantile (linear) of
 * those 11 values at each asked quantile. */
#ifndef FC_TRAIN_IQ_FORECAST_H
#define FC_TRAIN_IQ_FORECAST_H

#include <stddef.h>

#define FC_IQ_GRID_N 11
extern const float FC_IQ_GRID[FC_IQ_GRID_N];

/* grid (FC_IQ_GRID_N, n): the forecasts at the grid's quantiles; out
 * (n, n_q): np.quantile of each point's 11 values at q (each in (0, 1)). */
void fc_iq_quantiles_of(const float *grid, size_t n, const double *q, size_t n_q, float *out);

#endif
