/* One training window gathered, scaled and split where the data lives: the
 * bodies of the backends' data_gather and data_scale entries (backend.h),
 * one window per thread on a GPU, an OpenMP loop on the CPU; two passes, so
 * that training can say what each costs (the rows are still in cache for
 * the second). It does what train/batch.c's
 * load_one does on the host (fc_window_gather, fc_scaler_stats,
 * fc_scaler_apply, the split into insample and outsample) with the same
 * float operations in the same order, so a model trained through either
 * path has the same bits (tests/test_window_load.c compares them bit for
 * bit; tests/cli_data_path.sh the model files).
 *
 * The window's L + H points are written straight into the insample (L) and
 * outsample (H) rows: the scaler reads the insample row and the transform
 * runs over both rows, point by point as it runs over the window on the
 * host, so no window-sized scratch is needed. */
#ifndef FC_KERNELS_WINDOW_LOAD_H
#define FC_KERNELS_WINDOW_LOAD_H

#include <stddef.h>
#include <stdint.h>
#include "core/hd.h"
#include "kernels/scaler.h"

/* A window as the sampler draws it: the layout of train/windows.h's
 * fc_window (train/batch.c checks that they agree), restated here because
 * kernels sit below train. */
typedef struct fc_window_pos {
    uint32_t series;
    int64_t start;            /* in the series' own time axis; may be negative */
} fc_window_pos;

/* The training data as the body reads it. Exactly one of y and y64 is set:
 * a GPU keeps the values as float (converted once, at upload: the gather
 * converts each value to float anyway, so the bits are the same), the CPU
 * reads the dataset's own doubles in place. */
typedef struct fc_window_data {
    const float *y;           /* (n_rows) or NULL */
    const double *y64;        /* (n_rows) or NULL */
    const uint8_t *mask;      /* (n_rows) 1 observed, 0 missing */
    const size_t *offsets;    /* (n_series + 1) series i holds rows [offsets[i], offsets[i+1]) */
    size_t n_series, n_rows;
} fc_window_data;

/* Where a batch of windows goes (the backend's pointers) and how. */
typedef struct fc_window_batch {
    size_t L, H;
    /* Points held out at the end of every series: the window sees [0, len -
     * hold_out) of its series (fc_train_length with val_size; 0 for the
     * whole series, as validation and prediction see it). */
    size_t hold_out;
    fc_scaler_kind scaler;
    float *in_y, *in_mask;    /* (n, L) */
    float *out_y, *out_mask;  /* (n, H) scaled target and its mask */
    float *out_raw;           /* (n, H) the target as in the data, or NULL */
    float *shift, *scale;     /* (n) or NULL */
} fc_window_batch;

/* Floats of scaler scratch per window (the robust scaler sorts the
 * insample): the backends keep this much for every window of a call. */
FC_HD size_t fc_window_load_work(size_t L) { return L; }

FC_HD float fc_window_value(const fc_window_data *d, size_t r) {
    return d->y ? d->y[r] : (float)d->y64[r];
}

/* Point t of the window: its value and mask, 0 outside [0, limit) of the
 * series (fc_window_gather's arithmetic). */
FC_HD void fc_window_point(const fc_window_data *d, size_t base, size_t limit, int64_t pos, float *y, float *m) {
    int inside = pos >= 0 && pos < (int64_t)limit;
    size_t r = base + (size_t)(inside ? pos : 0);
    *y = inside ? fc_window_value(d, r) : 0.0f;
    *m = inside && d->mask[r] ? 1.0f : 0.0f;
}

/* n points from row r on, all inside the series: fc_window_point's values
 * without its bounds test. */
FC_HD void fc_window_rows_inside(const fc_window_data *d, size_t r, size_t n, float *y, float *m) {
    if (d->y)
        for (size_t t = 0; t < n; t++) y[t] = d->y[r + t];
    else
        for (size_t t = 0; t < n; t++) y[t] = (float)d->y64[r + t];
    for (size_t t = 0; t < n; t++) m[t] = d->mask[r + t] ? 1.0f : 0.0f;
}

/* The gather: window w's points into row k of b as in the data (and its
 * target into out_raw), unscaled. */
FC_HD void fc_window_load_points(const fc_window_data *d, const fc_window_batch *b, fc_window_pos w, size_t k) {
    size_t L = b->L, H = b->H;
    float *iy = b->in_y + k * L, *im = b->in_mask + k * L, *oy = b->out_y + k * H, *om = b->out_mask + k * H;
    size_t base = d->offsets[w.series], len = d->offsets[w.series + 1] - base;
    size_t limit = len > b->hold_out ? len - b->hold_out : 0;
    if (w.start >= 0 && (size_t)w.start + L + H <= limit) {   /* wholly inside: branch-free loops that vectorise */
        fc_window_rows_inside(d, base + (size_t)w.start, L, iy, im);
        fc_window_rows_inside(d, base + (size_t)w.start + L, H, oy, om);
    } else {
        for (size_t t = 0; t < L; t++) fc_window_point(d, base, limit, w.start + (int64_t)t, &iy[t], &im[t]);
        for (size_t t = 0; t < H; t++) fc_window_point(d, base, limit, w.start + (int64_t)(L + t), &oy[t], &om[t]);
    }
    if (b->out_raw)
        for (size_t t = 0; t < H; t++) b->out_raw[k * H + t] = oy[t];
}

/* The scale: row k's statistics from its insample, then the transform over
 * its insample and outsample; work: fc_window_load_work(L) floats of its own.
 * The identity scaler's transform, (x - 0) / 1, leaves every value's bits
 * as they are, so it is skipped. */
FC_HD void fc_window_scale_row(const fc_window_batch *b, size_t k, float *work) {
    size_t L = b->L, H = b->H;
    float *iy = b->in_y + k * L, *im = b->in_mask + k * L, *oy = b->out_y + k * H;
    float shift, scale;
    fc_scaler_stats(b->scaler, iy, im, L, work, &shift, &scale);
    if (b->scaler != FC_SCALER_IDENTITY) {
        fc_scaler_apply(iy, L, shift, scale);
        fc_scaler_apply(oy, H, shift, scale);
    }
    if (b->shift) b->shift[k] = shift;
    if (b->scale) b->scale[k] = scale;
}

/* Window w into row k of b, gathered and scaled (the two above, one window). */
FC_HD void fc_window_load(const fc_window_data *d, const fc_window_batch *b, fc_window_pos w, size_t k,
                          float *work) {
    fc_window_load_points(d, b, w, k);
    fc_window_scale_row(b, k, work);
}

#endif
