/* Staging of windows for the model (see batch.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "kernels/window_load.h"
#include "train/batch.h"

/* The device path hands the sampler's windows to the backend as they are. */
_Static_assert(sizeof(fc_window) == sizeof(fc_window_pos) &&
                   offsetof(fc_window, series) == offsetof(fc_window_pos, series) &&
                   offsetof(fc_window, start) == offsetof(fc_window_pos, start),
               "train/windows.h's fc_window and kernels/window_load.h's fc_window_pos must have one layout");

/* Floats per window of each buffer, in the order fc_batch_init allocates
 * them (one table for the allocation and for the memory plan). */
static void host_widths(size_t L, size_t H, size_t n[10]) {
    size_t w[10] = {L + H, L + H, L, L, L, H, H, H, 1, 1};
    memcpy(n, w, sizeof w);
}

static void device_widths(size_t L, size_t H, size_t n[6]) {
    size_t w[6] = {L, L, H, H, H, H};
    memcpy(n, w, sizeof w);
}

size_t fc_batch_device_bytes(size_t cap, size_t L, size_t H) {
    size_t d[6], floats = 0;
    device_widths(L, H, d);
    for (int i = 0; i < 6; i++) floats += d[i];
    return cap * floats * sizeof(float);
}

size_t fc_batch_bytes(size_t cap, size_t L, size_t H) {
    size_t h[10], d[6], floats = 0;
    host_widths(L, H, h);
    device_widths(L, H, d);
    for (int i = 0; i < 10; i++) floats += h[i];
    for (int i = 0; i < 6; i++) floats += d[i];
    return cap * floats * sizeof(float);
}

/* The four buffers copied to the device each batch come from the backend's
 * staging memory (pinned on a GPU, so the copies run at full speed); the
 * rest is plain host memory. */
static int is_staged(const fc_batch *b, float *const *p) {
    return p == &b->in_y || p == &b->in_mask || p == &b->out_y || p == &b->out_mask;
}

static float *host_buffer(fc_batch *b, float **p, size_t bytes) {
    return is_staged(b, p) ? b->be->host_alloc(b->be, bytes) : fc_malloc(bytes, "batch staging");
}

static void batch_start(fc_batch *b, fc_backend *be, size_t cap, size_t L, size_t H) {
    memset(b, 0, sizeof *b);
    b->be = be;
    b->cap = cap;
    b->L = L;
    b->H = H;
}

static fc_status alloc_host(fc_batch *b) {
    float **host[] = {&b->win_y, &b->win_mask, &b->work, &b->in_y, &b->in_mask, &b->out_y, &b->out_mask,
                      &b->out_raw, &b->shift, &b->scale};
    size_t host_n[10];
    host_widths(b->L, b->H, host_n);
    for (size_t i = 0; i < sizeof host / sizeof *host; i++)
        if (!(*host[i] = host_buffer(b, host[i], b->cap * host_n[i] * sizeof(float)))) return FC_ERR_MEMORY;
    return FC_OK;
}

static fc_status alloc_device(fc_batch *b) {
    float **dev[] = {&b->d_in_y, &b->d_in_mask, &b->d_out_y, &b->d_out_mask, &b->d_forecast, &b->d_grad};
    size_t dev_n[6];
    device_widths(b->L, b->H, dev_n);
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
        if (!(*dev[i] = b->be->alloc(b->be, b->cap * dev_n[i] * sizeof(float)))) return FC_ERR_MEMORY;
    return FC_OK;
}

fc_status fc_batch_init(fc_batch *b, fc_backend *be, size_t cap, size_t L, size_t H) {
    batch_start(b, be, cap, L, H);
    fc_status st = alloc_host(b);
    if (st == FC_OK) st = alloc_device(b);
    if (st != FC_OK) fc_batch_free(b);
    return st;
}

/* Test hook (docs/operations.md): FCAST_TEST_HOST_BATCHES=1 keeps training
 * batches on the host path, so tests can compare the two paths' models. */
static int host_batches_forced(void) {
    const char *v = getenv("FCAST_TEST_HOST_BATCHES");
    return v && *v && strcmp(v, "0") != 0;
}

int fc_batch_device_path(const fc_backend *be, const fc_dataset *ds) {
    int entries = be->data_bytes && be->data_upload && be->data_stage && be->data_gather && be->data_release;
    return entries && !ds->map && !host_batches_forced();
}

/* The dataset as the backend's upload reads it: its own arrays. */
static fc_window_data host_view(const fc_dataset *ds) {
    return (fc_window_data){NULL, ds->y, ds->mask, ds->offsets, ds->n_series, ds->n_rows};
}

size_t fc_batch_data_bytes(const fc_backend *be, const fc_dataset *ds, size_t cap, size_t stages, size_t L,
                           size_t *per_window) {
    *per_window = 0;
    if (!fc_batch_device_path(be, ds)) return 0;
    fc_window_data host = host_view(ds);
    return be->data_bytes(be, &host, cap, stages, fc_window_load_work(L), per_window);
}

fc_status fc_batch_init_training(fc_batch *b, fc_backend *be, size_t cap, size_t stages, size_t L, size_t H,
                                 const fc_dataset *ds) {
    if (!fc_batch_device_path(be, ds)) return fc_batch_init(b, be, cap, L, H);
    batch_start(b, be, cap, L, H);
    fc_window_data host = host_view(ds);
    fc_status st = alloc_device(b);
    if (st == FC_OK) st = be->data_upload(be, &host, cap, stages, fc_window_load_work(L), &b->data);
    if (st != FC_OK) fc_batch_free(b);
    return st;
}

void fc_batch_free(fc_batch *b) {
    float **host[] = {&b->win_y, &b->win_mask, &b->work, &b->in_y, &b->in_mask, &b->out_y, &b->out_mask,
                      &b->out_raw, &b->shift, &b->scale};
    for (size_t i = 0; i < sizeof host / sizeof *host; i++) {
        if (is_staged(b, host[i])) {
            if (*host[i]) b->be->host_release(b->be, *host[i]);
        } else {
            free(*host[i]);
        }
    }
    if (b->be) {
        float *dev[] = {b->d_in_y, b->d_in_mask, b->d_out_y, b->d_out_mask, b->d_forecast, b->d_grad};
        for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
            if (dev[i]) b->be->release(b->be, dev[i]);
        if (b->data) b->be->data_release(b->be, b->data);
    }
    memset(b, 0, sizeof *b);
}

static void load_one(fc_batch *b, const fc_dataset *ds, const fc_window_spec *spec, const fc_window *w,
                     size_t k, int full, fc_scaler_kind scaler) {
    size_t L = b->L, H = b->H, W = L + H;
    float *y = b->win_y + k * W, *m = b->win_mask + k * W;
    size_t limit = full ? fc_dataset_len(ds, w->series) : fc_train_length(ds, spec, w->series);
    fc_window_gather(ds, w, L, H, limit, y, m);
    memcpy(b->out_raw + k * H, y + L, H * sizeof(float));
    fc_scaler_stats(scaler, y, m, L, b->work + k * L, &b->shift[k], &b->scale[k]);
    fc_scaler_apply(y, W, b->shift[k], b->scale[k]);
    memcpy(b->in_y + k * L, y, L * sizeof(float));
    memcpy(b->in_mask + k * L, m, L * sizeof(float));
    memcpy(b->out_y + k * H, y + L, H * sizeof(float));
    memcpy(b->out_mask + k * H, m + L, H * sizeof(float));
}

/* The device path: the backend gathers and scales staged windows into the
 * device buffers (the targets and scales stay there: training needs them
 * nowhere else). */
static fc_status gather_on_device(fc_batch *b, const fc_window_spec *spec, size_t first, size_t B, int full,
                                  fc_scaler_kind scaler) {
    fc_window_batch out = {b->L, b->H, full ? 0 : spec->val_size, scaler, b->d_in_y, b->d_in_mask, b->d_out_y,
                           b->d_out_mask, NULL, NULL, NULL};
    return b->be->data_gather(b->be, b->data, first, B, &out);
}

fc_status fc_batch_stage(fc_batch *b, const fc_window *w, size_t n) {
    b->staged = w;
    b->n_staged = n;
    return b->data ? b->be->data_stage(b->be, b->data, (const fc_window_pos *)w, n) : FC_OK;
}

fc_status fc_batch_load_staged(fc_batch *b, const fc_dataset *ds, const fc_window_spec *spec, size_t first,
                               size_t B, fc_scaler_kind scaler) {
    FC_ASSERT(first <= b->n_staged && B <= b->n_staged - first);
    if (b->data) return gather_on_device(b, spec, first, B, 0, scaler);
    return fc_batch_load(b, ds, spec, b->staged + first, B, 0, scaler);
}

fc_status fc_batch_load(fc_batch *b, const fc_dataset *ds, const fc_window_spec *spec, const fc_window *w,
                        size_t B, int full, fc_scaler_kind scaler) {
    FC_ASSERT(B <= b->cap);
    if (b->data) {
        FC_TRY(fc_batch_stage(b, w, B));
        return gather_on_device(b, spec, 0, B, full, scaler);
    }
    /* Copies from staging memory may still be reading the last batch (they
     * are asynchronous on a GPU): wait before overwriting it. This waits
     * for the last micro-batch's work, so on this path (streamed data,
     * validation, prediction) gathering does not overlap the device's;
     * double buffering the staging would let it. */
    b->be->sync(b->be);
    #pragma omp parallel for schedule(static) if (B >= 64)
    for (size_t k = 0; k < B; k++) load_one(b, ds, spec, &w[k], k, full, scaler);
    fc_dataset_release_pages(ds);   /* a streamed dataset keeps no more than one batch resident */
    fc_backend *be = b->be;
    be->to_device(be, b->d_in_y, b->in_y, B * b->L * sizeof(float));
    be->to_device(be, b->d_in_mask, b->in_mask, B * b->L * sizeof(float));
    be->to_device(be, b->d_out_y, b->out_y, B * b->H * sizeof(float));
    be->to_device(be, b->d_out_mask, b->out_mask, B * b->H * sizeof(float));
    return FC_OK;
}
