/* A batch of windows on its way to the model: gathered from the dataset into
 * host staging, scaled per window (kernels/scaler.h), split into insample
 * and outsample parts and copied to the backend. All buffers are allocated
 * once for `cap` windows; loading a batch allocates nothing. */
#ifndef FC_TRAIN_BATCH_H
#define FC_TRAIN_BATCH_H

#include "backend/backend.h"
#include "kernels/scaler.h"
#include "train/windows.h"

typedef struct {
    fc_backend *be;
    size_t cap, L, H;
    /* host staging */
    float *win_y, *win_mask;            /* (cap, L+H) */
    float *work;                        /* (cap, L) scaler scratch */
    float *in_y, *in_mask;              /* (cap, L) */
    float *out_y, *out_mask;            /* (cap, H) scaled target and its mask */
    float *out_raw;                     /* (cap, H) the target as in the data */
    float *shift, *scale;               /* (cap) */
    /* device copies */
    float *d_in_y, *d_in_mask, *d_out_y, *d_out_mask;
    float *d_forecast, *d_grad;         /* (cap, H) */
} fc_batch;

fc_status fc_batch_init(fc_batch *b, fc_backend *be, size_t cap, size_t L, size_t H);
void fc_batch_free(fc_batch *b);
/* Bytes fc_batch_init allocates for cap windows (host and device). */
size_t fc_batch_bytes(size_t cap, size_t L, size_t H);
/* The part of it allocated on the backend. */
size_t fc_batch_device_bytes(size_t cap, size_t L, size_t H);

/* Gathers, scales and uploads B windows. `full` selects each series' whole
 * length as the visible range (validation, prediction) instead of its
 * training part. */
void fc_batch_load(fc_batch *b, const fc_dataset *ds, const fc_window_spec *spec, const fc_window *w,
                   size_t B, int full, fc_scaler_kind scaler);

#endif
