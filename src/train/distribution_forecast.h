/* The forecast of a DistributionLoss model, as neuralforecast's predict
 * makes it: each point's num_samples draws from the distribution of its
 * raw outputs (kernels/distribution_sample.h), their mean as the point
 * forecast ("NHITS") and their torch.quantile (linear interpolation) at
 * the loss's quantiles ("NHITS-median", "NHITS-lo-90", ...). */
#ifndef FC_TRAIN_DISTRIBUTION_FORECAST_H
#define FC_TRAIN_DISTRIBUTION_FORECAST_H

#include <stddef.h>
#include <stdint.h>
#include "kernels/loss.h"

/* Forecast columns per point: the mean, then the n_q quantiles. */
size_t fc_distribution_columns(const fc_loss_spec *s);

/* A window's key for its draws: a 64-bit FNV-1a hash of the model's input
 * (its L scaled values and their mask, bit for bit), so that a window's
 * draws depend on what the model sees alone, not on where the window sits
 * in a chunk, a split or a served batch (whose series are renumbered and
 * cut to their tails). */
uint64_t fc_distribution_window_key(const float *in_y, const float *in_mask, size_t L);

/* A window's forecast into out (H, fc_distribution_columns) from raw
 * (H, params) with its scaler's shift and scale; draws: scratch of
 * s->n_samples floats. */
void fc_distribution_forecast_window(const fc_loss_spec *s, uint64_t seed, uint64_t window, const float *raw,
                                     size_t H, float shift, float scale, float *draws, float *out);

/* torch.quantile(x, q) of n sorted values, its 'linear' interpolation. */
float fc_sorted_quantile(const float *sorted, size_t n, float q);

#endif
