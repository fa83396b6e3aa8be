/* --windows-batch-size auto: the largest windows batch whose memory plan
 * fits the limit, then a short measured sweep over powers of two up to it
 * (a few training steps each, on a throwaway model) that keeps the smallest
 * batch within 3% of the fastest in windows/s. Unlike probing for out-of-memory errors (Lightning's
 * scale_batch_size), nothing is ever tried that the plan says won't fit. */
#ifndef FC_TRAIN_BATCH_SWEEP_H
#define FC_TRAIN_BATCH_SWEEP_H

#include "train/forecaster.h"

#define FC_SWEEP_MAX 12
#define FC_SWEEP_WITHIN 0.97   /* "as fast": at least this share of the fastest */

typedef struct {
    size_t largest;                 /* the largest batch that fits */
    size_t chosen;
    int n;
    size_t batch[FC_SWEEP_MAX];     /* candidates measured, ascending */
    double windows_per_s[FC_SWEEP_MAX];
} fc_batch_sweep;

/* Measures candidates for model configuration cfg and options o (their
 * windows_batch_size is ignored) under limit bytes on be; `steps` timed
 * steps per candidate after one untimed. FC_ERR_MEMORY (with the plan's
 * explanation) when not even one window fits. */
fc_status fc_batch_sweep_run(const fc_model_config *cfg, const fc_dataset *ds, const fc_train_options *o,
                             fc_scaler_kind scaler, fc_backend *be, size_t limit, size_t steps, fc_batch_sweep *out);

/* One line: the choice and why. */
void fc_batch_sweep_describe(const fc_batch_sweep *s, char *buf, size_t cap);

#endif
