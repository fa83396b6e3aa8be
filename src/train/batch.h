/* A batch of windows on its way to the model: gathered from the dataset into
 * host staging, scaled per window (kernels/scaler.h), split into insample
 * and outsample parts and copied to the backend. All buffers are allocated
 * once for `cap` windows; loading a batch allocates nothing.
 *
 * On a backend whose copies run asynchronously (one with marks, backend.h:
 * a GPU) the four buffers copied to it are double-buffered: batch k + 1 is
 * gathered into the other set while the device still works on batch k,
 * waiting only for the copies out of that set two loads ago, not for the
 * device's work. Elsewhere one set, refilled after a sync (a no-op on the
 * CPU).
 *
 * The device path: when the backend can keep the training data
 * (backend.h, data_*) and the dataset is in memory, a training batch
 * uploads the data once and has each micro-batch's windows gathered and
 * scaled by the backend (kernels/window_load.h) straight into the device
 * buffers, with the same bits as the host path; it then keeps no host
 * staging at all. A streamed dataset keeps the host path: its store is
 * larger than memory, and the host path hands its pages back after every
 * batch. Validation and prediction batches use the host path (they need
 * the targets and scales on the host, and run between steps, not in them). */
#ifndef FC_TRAIN_BATCH_H
#define FC_TRAIN_BATCH_H

#include "backend/backend.h"
#include "kernels/scaler.h"
#include "models/model.h"
#include "train/batch_exog.h"
#include "train/windows.h"

typedef struct {
    fc_backend *be;
    size_t cap, L, H;
    size_t Q;                           /* model outputs per horizon point */
    /* host staging */
    float *win_y, *win_mask;            /* (cap, L+H) */
    float *work;                        /* (cap, L) scaler scratch */
    float *in_y, *in_mask;              /* (cap, L) of the set loaded last */
    float *out_y, *out_mask;            /* (cap, H) scaled target and its mask, of the set loaded last */
    float *sets[2][4];                  /* the staging sets: in_y, in_mask, out_y, out_mask */
    void *copied[2];                    /* each set's mark, recorded after its copies (backend.h) */
    int n_sets, set;                    /* sets in use (1 or 2); the set the next load fills */
    float *out_raw;                     /* (cap, H) the target as in the data */
    float *shift, *scale;               /* (cap) */
    /* device copies */
    float *d_in_y, *d_in_mask, *d_out_y, *d_out_mask;
    float *d_forecast, *d_grad;         /* (cap, H, Q) */
    /* a distribution loss's: the target as in the data (cap, H) and each
     * window's shift and scale (cap) on the backend (fc_batch_keep_targets),
     * else NULL */
    float *d_out_raw, *d_shift, *d_scale;
    /* the device path: the backend's handle on the training data, NULL on the host path */
    void *data;
    /* the host path's staged windows (fc_batch_stage): the caller's array */
    const fc_window *staged;
    size_t n_staged;
    /* host seconds of the last load's second pass, the scaling (on a GPU,
     * its launch): the trainer charges the rest of the load to the gather */
    double scale_seconds;
    /* Exogenous inputs (train/batch_exog.h; fc_batch_add_exog), host path
     * only: the model's configuration naming them (NULL: none), the floats
     * per window of futr, hist and stat, their staging sets and the set
     * loaded last, the backend's copies, and gathering scratch (cap, 2L + H). */
    const fc_model_config *exog_cfg;
    const fc_dataset *exog_ds;          /* the dataset exog_cols were found in (once per dataset, not per load) */
    fc_exog_cols exog_cols;
    size_t exog_w[3];
    float *exog_sets[2][3];
    float *exog_host[3];
    float *d_exog[3];
    float *exog_work;
} fc_batch;

/* Exogenous inputs for a model of configuration c (kept by pointer: the
 * model's), on a batch from fc_batch_init (the host path); nothing when c
 * names none. fc_batch_load then gathers them too, with errors naming a
 * column the dataset lacks. */
fc_status fc_batch_add_exog(fc_batch *b, const fc_model_config *c);
/* The backend's copies of the last batch's exogenous inputs, for the model. */
fc_exog_inputs fc_batch_exog_inputs(const fc_batch *b);
/* Bytes fc_batch_add_exog allocates for cap windows: on the host with
 * `sets` staging sets, and on the backend. */
void fc_batch_exog_bytes(const fc_model_config *c, size_t cap, int sets, size_t *host, size_t *device);

/* Q: model outputs per horizon point (fc_model_config.n_outputs). */
fc_status fc_batch_init(fc_batch *b, fc_backend *be, size_t cap, size_t L, size_t H, size_t Q);
void fc_batch_free(fc_batch *b);
/* Bytes fc_batch_init allocates for cap windows (host and device), with
 * one staging set. */
size_t fc_batch_bytes(size_t cap, size_t L, size_t H, size_t Q);
/* Staging sets on backend be (2 where it has marks), and the bytes of one
 * more set beyond the first, for the memory plan. */
int fc_batch_staging_sets(const fc_backend *be);
size_t fc_batch_extra_set_bytes(size_t cap, size_t L, size_t H);
/* The host part of fc_batch_init's allocation on backend be (its sets). */
size_t fc_batch_host_bytes(const fc_backend *be, size_t cap, size_t L, size_t H);
/* The part of it allocated on the backend. */
size_t fc_batch_device_bytes(size_t cap, size_t L, size_t H, size_t Q);

/* 1 when training batches on backend be over ds take the device path:
 * the backend has the data entries, the dataset is on the heap (not a
 * streamed store), and FCAST_TEST_HOST_BATCHES (docs/operations.md) does
 * not force the host path. The memory plan and the trainer both ask it. */
int fc_batch_device_path(const fc_backend *be, const fc_dataset *ds);
/* The backend bytes the device path's copy of ds takes for batches of cap
 * windows of input size L, `stages` batches staged at once (0 when the
 * path is off); *per_window: its share per window of cap. */
size_t fc_batch_data_bytes(const fc_backend *be, const fc_dataset *ds, size_t cap, size_t stages, size_t L,
                           size_t *per_window);

/* A training batch: fc_batch_init, or on the device path (above) the
 * device buffers and the backend's copy of ds, without host staging, with
 * room to stage `stages` batches of cap windows at once (a step's
 * micro-batches). */
fc_status fc_batch_init_training(fc_batch *b, fc_backend *be, size_t cap, size_t stages, size_t L, size_t H,
                                 size_t Q, const fc_dataset *ds);

/* A training step's windows, staged once (n <= stages * cap): on the
 * device path they are copied to the backend (backend.h, data_stage), so
 * the loads below launch the same work every step and can be replayed as
 * a graph; on the host path the batch keeps the pointer, and w must stay
 * as it is until the step's loads are done. */
fc_status fc_batch_stage(fc_batch *b, const fc_window *w, size_t n);
/* Loads staged windows [first, first + B) as fc_batch_load does (training
 * windows, B <= cap). */
fc_status fc_batch_load_staged(fc_batch *b, const fc_dataset *ds, const fc_window_spec *spec, size_t first,
                               size_t B, fc_scaler_kind scaler);

/* Keeps each load's unscaled target, shift and scale on the backend too
 * (d_out_raw, d_shift, d_scale), for a loss that reads them (a
 * distribution's likelihood); fc_batch_target_bytes is their size. */
fc_status fc_batch_keep_targets(fc_batch *b);
size_t fc_batch_target_bytes(size_t cap, size_t H);

/* Gathers, scales and uploads B windows (on the device path: has the
 * backend gather and scale them; only the device buffers are written).
 * `full` selects each series' whole length as the visible range
 * (validation, prediction) instead of its training part. */
fc_status fc_batch_load(fc_batch *b, const fc_dataset *ds, const fc_window_spec *spec, const fc_window *w,
                        size_t B, int full, fc_scaler_kind scaler);

#endif
