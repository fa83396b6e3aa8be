/* Inference over many windows in chunks: validation loss and forecasts.
 * Forecasts are inverse-transformed per window (shift, scale of its own
 * insample) before any loss or output, as neuralforecast's
 * _inv_normalization. */
#include <math.h>
#include <string.h>

#include "core/error.h"
#include "train/batch.h"
#include "train/forecaster.h"

#define FC_INFER_CHUNK 1024

/* Runs the windows through the model in chunks; after each chunk calls
 * emit(ctx, first window, count, batch, forecasts) with the forecasts and
 * b->out_y on the original scale. Chunks never exceed the room the model
 * already has, so validation during training does not move its buffers. */
typedef void (*chunk_fn)(void *ctx, size_t first, size_t n, const fc_batch *b, const float *forecast);

static fc_status run_windows(fc_forecaster *f, const fc_dataset *ds, const fc_window_spec *spec,
                             const fc_window *w, size_t n, chunk_fn emit, void *ctx) {
    fc_model *m = f->model;
    size_t H = m->cfg.h, cap = m->capacity ? m->capacity : FC_INFER_CHUNK;
    if (cap > FC_INFER_CHUNK) cap = FC_INFER_CHUNK;
    if (n < cap) cap = n;
    if (cap == 0) return FC_OK;
    fc_batch b;
    FC_TRY(fc_batch_init(&b, m->be, cap, m->cfg.input_size, H));
    float *fc = fc_malloc(cap * H * sizeof(float), "forecasts");
    fc_status st = fc ? fc_model_reserve(m, cap, 0) : FC_ERR_MEMORY;
    for (size_t k = 0; st == FC_OK && k < n; k += cap) {
        size_t B = n - k < cap ? n - k : cap;
        fc_batch_load(&b, ds, spec, w + k, B, 1, f->scaler);
        st = fc_model_forward(m, b.d_forecast, b.d_in_y, b.d_in_mask, B);
        if (st != FC_OK) break;
        m->be->to_host(m->be, fc, b.d_forecast, B * H * sizeof(float));
        for (size_t i = 0; i < B; i++) {
            fc_scaler_invert(fc + i * H, H, b.shift[i], b.scale[i]);
            fc_scaler_invert(b.out_y + i * H, H, b.shift[i], b.scale[i]);   /* the original target */
        }
        emit(ctx, k, B, &b, fc);
    }
    free(fc);
    fc_batch_free(&b);
    return st;
}

typedef struct { double sum, weight; fc_loss_kind loss; } loss_acc;

static void accumulate_loss(void *ctx, size_t first, size_t n, const fc_batch *b, const float *fc) {
    loss_acc *a = ctx;
    (void)first;
    for (size_t i = 0; i < n * b->H; i++) {
        if (!(b->out_mask[i] > 0.0f)) continue;
        double e = (double)fc[i] - (double)b->out_y[i];
        a->sum += a->loss == FC_LOSS_MSE ? e * e : fabs(e);
        a->weight += 1.0;
    }
}

fc_status fc_validate(fc_forecaster *f, const fc_dataset *ds, const fc_window_spec *spec, double *loss) {
    size_t n = fc_validation_windows(ds, spec, NULL);
    fc_window *w = fc_malloc(n * sizeof *w, "validation windows");
    if (!w) return FC_ERR_MEMORY;
    fc_validation_windows(ds, spec, w);
    loss_acc a = {0.0, 0.0, f->loss};
    fc_status st = run_windows(f, ds, spec, w, n, accumulate_loss, &a);
    free(w);
    *loss = a.weight > 0 ? a.sum / a.weight : 0.0;
    return st;
}

static void copy_forecasts(void *ctx, size_t first, size_t n, const fc_batch *b, const float *fc) {
    float *out = ctx;
    memcpy(out + first * b->H, fc, n * b->H * sizeof(float));
}

fc_status fc_predict(fc_forecaster *f, const fc_dataset *ds, float *out) {
    size_t N = ds->n_series, L = f->model->cfg.input_size, H = f->model->cfg.h;
    fc_window *w = fc_malloc(N * sizeof *w, "forecast windows");
    if (!w) return FC_ERR_MEMORY;
    for (size_t i = 0; i < N; i++) w[i] = (fc_window){(uint32_t)i, (int64_t)fc_dataset_len(ds, i) - (int64_t)L};
    fc_window_spec spec = {L, H, 1, 0, 0.0, 0.0};
    fc_status st = run_windows(f, ds, &spec, w, N, copy_forecasts, out);
    free(w);
    return st;
}
