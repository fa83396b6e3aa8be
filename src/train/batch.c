/* Staging of windows for the model (see batch.h). */
#include <string.h>

#include "core/error.h"
#include "train/batch.h"

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

fc_status fc_batch_init(fc_batch *b, fc_backend *be, size_t cap, size_t L, size_t H) {
    memset(b, 0, sizeof *b);
    b->be = be;
    b->cap = cap;
    b->L = L;
    b->H = H;
    float **host[] = {&b->win_y, &b->win_mask, &b->work, &b->in_y, &b->in_mask, &b->out_y, &b->out_mask,
                      &b->out_raw, &b->shift, &b->scale};
    size_t host_n[10];
    host_widths(L, H, host_n);
    for (size_t i = 0; i < sizeof host / sizeof *host; i++)
        if (!(*host[i] = host_buffer(b, host[i], cap * host_n[i] * sizeof(float)))) goto fail;
    float **dev[] = {&b->d_in_y, &b->d_in_mask, &b->d_out_y, &b->d_out_mask, &b->d_forecast, &b->d_grad};
    size_t dev_n[6];
    device_widths(L, H, dev_n);
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
        if (!(*dev[i] = be->alloc(be, cap * dev_n[i] * sizeof(float)))) goto fail;
    return FC_OK;
fail:
    fc_batch_free(b);
    return FC_ERR_MEMORY;
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
        for (size_t i = 0; i < sizeof dev / sizeof *dev; i++) b->be->release(b->be, dev[i]);
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

void fc_batch_load(fc_batch *b, const fc_dataset *ds, const fc_window_spec *spec, const fc_window *w,
                   size_t B, int full, fc_scaler_kind scaler) {
    FC_ASSERT(B <= b->cap);
    /* Copies from staging memory may still be reading the last batch (they
     * are asynchronous on a GPU): wait before overwriting it. In training
     * the loss of the last batch was already read, so this waits for
     * nothing; double buffering would need the loss kept on the device. */
    b->be->sync(b->be);
    #pragma omp parallel for schedule(static) if (B >= 64)
    for (size_t k = 0; k < B; k++) load_one(b, ds, spec, &w[k], k, full, scaler);
    fc_dataset_release_pages(ds);   /* a streamed dataset keeps no more than one batch resident */
    fc_backend *be = b->be;
    be->to_device(be, b->d_in_y, b->in_y, B * b->L * sizeof(float));
    be->to_device(be, b->d_in_mask, b->in_mask, B * b->L * sizeof(float));
    be->to_device(be, b->d_out_y, b->out_y, B * b->H * sizeof(float));
    be->to_device(be, b->d_out_mask, b->out_mask, B * b->H * sizeof(float));
}
