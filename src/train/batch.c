/* Staging of windows for the model (see batch.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "kernels/window_load.h"
#include "train/batch.h"
#include "train/batch_exog.h"
#include "core/clock.h"

/* The device path hands the sampler's windows to the backend as they are. */
_Static_assert(sizeof(fc_window) == sizeof(fc_window_pos) &&
                   offsetof(fc_window, series) == offsetof(fc_window_pos, series) &&
                   offsetof(fc_window, start) == offsetof(fc_window_pos, start),
               "train/windows.h's fc_window and kernels/window_load.h's fc_window_pos must have one layout");

/* Floats per window of each buffer (one table for the allocation and for
 * the memory plan): the host's plain buffers (win_y, win_mask, work,
 * out_raw, shift, scale), a staging set (in_y, in_mask, out_y, out_mask:
 * the buffers copied to the backend, from its staging memory, pinned on a
 * GPU so the copies run at full speed), and the backend's buffers. */
static void plain_widths(size_t L, size_t H, size_t n[6]) {
    size_t w[6] = {L + H, L + H, L, H, 1, 1};
    memcpy(n, w, sizeof w);
}

static void set_widths(size_t L, size_t H, size_t n[4]) {
    size_t w[4] = {L, L, H, H};
    memcpy(n, w, sizeof w);
}

/* The forecast and its gradient hold Q outputs per point (the loss's quantiles). */
static void device_widths(size_t L, size_t H, size_t Q, size_t n[6]) {
    size_t w[6] = {L, L, H, H, H * Q, H * Q};
    memcpy(n, w, sizeof w);
}

static size_t sum_of(const size_t *n, int count) {
    size_t total = 0;
    for (int i = 0; i < count; i++) total += n[i];
    return total;
}

size_t fc_batch_device_bytes(size_t cap, size_t L, size_t H, size_t Q) {
    size_t d[6];
    device_widths(L, H, Q, d);
    return cap * sum_of(d, 6) * sizeof(float);
}

size_t fc_batch_extra_set_bytes(size_t cap, size_t L, size_t H) {
    size_t n[4];
    set_widths(L, H, n);
    return cap * sum_of(n, 4) * sizeof(float);
}

size_t fc_batch_bytes(size_t cap, size_t L, size_t H, size_t Q) {
    size_t h[6];
    plain_widths(L, H, h);
    return cap * sum_of(h, 6) * sizeof(float) + fc_batch_extra_set_bytes(cap, L, H) +
           fc_batch_device_bytes(cap, L, H, Q);
}

int fc_batch_staging_sets(const fc_backend *be) { return be->mark_record && be->mark_wait ? 2 : 1; }

size_t fc_batch_host_bytes(const fc_backend *be, size_t cap, size_t L, size_t H) {
    size_t extra = (size_t)(fc_batch_staging_sets(be) - 1) * fc_batch_extra_set_bytes(cap, L, H);
    return fc_batch_bytes(cap, L, H, 1) - fc_batch_device_bytes(cap, L, H, 1) + extra;
}

static void batch_start(fc_batch *b, fc_backend *be, size_t cap, size_t L, size_t H, size_t Q) {
    memset(b, 0, sizeof *b);
    b->be = be;
    b->cap = cap;
    b->L = L;
    b->H = H;
    b->Q = Q;
}

/* Points the four staged buffers at set s. */
static void use_set(fc_batch *b, int s) {
    b->in_y = b->sets[s][0];
    b->in_mask = b->sets[s][1];
    b->out_y = b->sets[s][2];
    b->out_mask = b->sets[s][3];
}

static fc_status alloc_set(fc_batch *b, int s) {
    size_t n[4];
    set_widths(b->L, b->H, n);
    for (int i = 0; i < 4; i++)
        if (!(b->sets[s][i] = b->be->host_alloc(b->be, b->cap * n[i] * sizeof(float)))) return FC_ERR_MEMORY;
    return FC_OK;
}

/* The plain buffers, and one staging set, or two where the backend's
 * copies are asynchronous (batch.h). */
static fc_status alloc_host(fc_batch *b) {
    float **plain[] = {&b->win_y, &b->win_mask, &b->work, &b->out_raw, &b->shift, &b->scale};
    size_t n[6];
    plain_widths(b->L, b->H, n);
    for (int i = 0; i < 6; i++)
        if (!(*plain[i] = fc_malloc(b->cap * n[i] * sizeof(float), "batch staging"))) return FC_ERR_MEMORY;
    b->n_sets = fc_batch_staging_sets(b->be);
    for (int s = 0; s < b->n_sets; s++) FC_TRY(alloc_set(b, s));
    use_set(b, 0);
    return FC_OK;
}

static fc_status alloc_device(fc_batch *b) {
    float **dev[] = {&b->d_in_y, &b->d_in_mask, &b->d_out_y, &b->d_out_mask, &b->d_forecast, &b->d_grad};
    size_t dev_n[6];
    device_widths(b->L, b->H, b->Q, dev_n);
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
        if (!(*dev[i] = b->be->alloc(b->be, b->cap * dev_n[i] * sizeof(float)))) return FC_ERR_MEMORY;
    return FC_OK;
}

fc_status fc_batch_init(fc_batch *b, fc_backend *be, size_t cap, size_t L, size_t H, size_t Q) {
    batch_start(b, be, cap, L, H, Q);
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
    int entries = be->data_bytes && be->data_upload && be->data_stage && be->data_gather && be->data_scale &&
                  be->data_release;
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
                                 size_t Q, const fc_dataset *ds) {
    if (!fc_batch_device_path(be, ds)) return fc_batch_init(b, be, cap, L, H, Q);
    batch_start(b, be, cap, L, H, Q);
    fc_window_data host = host_view(ds);
    fc_status st = alloc_device(b);
    if (st == FC_OK) st = be->data_upload(be, &host, cap, stages, fc_window_load_work(L), &b->data);
    if (st != FC_OK) fc_batch_free(b);
    return st;
}

void fc_batch_exog_bytes(const fc_model_config *c, size_t cap, int sets, size_t *host, size_t *device) {
    size_t w[3];
    fc_exog_widths(c, w);
    size_t per = (w[0] + w[1] + w[2]) * sizeof(float);
    *device = fc_model_has_exog(c) ? cap * per : 0;
    *host = fc_model_has_exog(c) ? cap * (per * (size_t)sets + (2 * c->input_size + c->h) * sizeof(float)) : 0;
}

fc_status fc_batch_add_exog(fc_batch *b, const fc_model_config *c) {
    if (!fc_model_has_exog(c)) return FC_OK;
    FC_ASSERT(!b->data);   /* the device path gathers y alone */
    b->exog_cfg = c;
    fc_exog_widths(c, b->exog_w);
    if (!(b->exog_work = fc_malloc(b->cap * (2 * b->L + b->H) * sizeof(float), "exogenous staging")))
        return FC_ERR_MEMORY;
    for (int i = 0; i < 3; i++) {
        size_t bytes = b->cap * b->exog_w[i] * sizeof(float);
        if (!bytes) continue;   /* a kind the model does not read */
        for (int s = 0; s < b->n_sets; s++)
            if (!(b->exog_sets[s][i] = b->be->host_alloc(b->be, bytes))) return FC_ERR_MEMORY;
        if (!(b->d_exog[i] = b->be->alloc(b->be, bytes))) return FC_ERR_MEMORY;
    }
    return FC_OK;
}

fc_exog_inputs fc_batch_exog_inputs(const fc_batch *b) {
    fc_exog_inputs x = {NULL, NULL, NULL};
    if (!b->exog_cfg) return x;
    x.futr = b->exog_w[0] ? b->d_exog[0] : NULL;
    x.hist = b->exog_w[1] ? b->d_exog[1] : NULL;
    x.stat = b->exog_w[2] ? b->d_exog[2] : NULL;
    return x;
}

/* The staging sets and their marks (the four pointers are the last set's). */
static void free_sets(fc_batch *b) {
    for (int s = 0; s < 2; s++) {
        for (int i = 0; i < 4; i++)
            if (b->sets[s][i]) b->be->host_release(b->be, b->sets[s][i]);
        for (int i = 0; i < 3; i++)
            if (b->exog_sets[s][i]) b->be->host_release(b->be, b->exog_sets[s][i]);
        if (b->copied[s]) b->be->mark_free(b->be, b->copied[s]);
    }
    b->in_y = b->in_mask = b->out_y = b->out_mask = NULL;
}

void fc_batch_free(fc_batch *b) {
    if (b->be) free_sets(b);
    float *plain[] = {b->win_y, b->win_mask, b->work, b->out_raw, b->shift, b->scale};
    for (int i = 0; i < 6; i++) free(plain[i]);
    if (b->be) {
        float *dev[] = {b->d_in_y, b->d_in_mask, b->d_out_y, b->d_out_mask, b->d_forecast, b->d_grad,
                        b->d_out_raw, b->d_shift, b->d_scale};
        for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
            if (dev[i]) b->be->release(b->be, dev[i]);
        if (b->data) b->be->data_release(b->be, b->data);
        for (int i = 0; i < 3; i++)
            if (b->d_exog[i]) b->be->release(b->be, b->d_exog[i]);
    }
    free(b->exog_work);
    memset(b, 0, sizeof *b);
}

static float *row_of(float *p, size_t k, size_t width) { return p ? p + k * width : NULL; }

/* Window k's exogenous inputs into the staging set in use. */
static void load_exog(fc_batch *b, const fc_dataset *ds, const fc_exog_cols *cols, const fc_window *w, size_t k,
                      size_t limit, fc_scaler_kind scaler) {
    size_t L = b->L, H = b->H;
    fc_exog_gather(ds, cols, w, L, H, limit, b->in_mask + k * L, scaler, b->exog_work + k * (2 * L + H),
                   row_of(b->exog_host[0], k, b->exog_w[0]), row_of(b->exog_host[1], k, b->exog_w[1]),
                   row_of(b->exog_host[2], k, b->exog_w[2]));
}

static size_t window_limit(const fc_dataset *ds, const fc_window_spec *spec, const fc_window *w, int full) {
    return full ? fc_dataset_len(ds, w->series) : fc_train_length(ds, spec, w->series);
}

/* The host path's gather: window k's points and its target as in the data. */
static void gather_one(fc_batch *b, const fc_dataset *ds, const fc_window_spec *spec, const fc_window *w, size_t k,
                       int full) {
    size_t L = b->L, H = b->H, W = L + H;
    float *y = b->win_y + k * W, *m = b->win_mask + k * W;
    fc_window_gather(ds, w, L, H, window_limit(ds, spec, w, full), y, m);
    memcpy(b->out_raw + k * H, y + L, H * sizeof(float));
}

/* The host path's scale: window k scaled and split into the staging set,
 * with its exogenous inputs (scaled by the same window's statistics). */
static void scale_one(fc_batch *b, const fc_dataset *ds, const fc_window_spec *spec, const fc_window *w,
                      size_t k, int full, fc_scaler_kind scaler, const fc_exog_cols *cols) {
    size_t L = b->L, H = b->H, W = L + H;
    float *y = b->win_y + k * W, *m = b->win_mask + k * W;
    fc_scaler_stats(scaler, y, m, L, b->work + k * L, &b->shift[k], &b->scale[k]);
    fc_scaler_apply(y, W, b->shift[k], b->scale[k]);
    memcpy(b->in_y + k * L, y, L * sizeof(float));
    memcpy(b->in_mask + k * L, m, L * sizeof(float));
    memcpy(b->out_y + k * H, y + L, H * sizeof(float));
    memcpy(b->out_mask + k * H, m + L, H * sizeof(float));
    if (cols) load_exog(b, ds, cols, w, k, window_limit(ds, spec, w, full), scaler);
}

/* The device path: the backend gathers and scales staged windows into the
 * device buffers (the targets and scales stay there: training needs them
 * nowhere else). */
static fc_status gather_on_device(fc_batch *b, const fc_window_spec *spec, size_t first, size_t B, int full,
                                  fc_scaler_kind scaler) {
    size_t hold_out = full ? 0 : spec->val_size + spec->test_size;
    fc_window_batch out = {b->L, b->H, hold_out, scaler, b->d_in_y, b->d_in_mask, b->d_out_y, b->d_out_mask,
                           b->d_out_raw, b->d_shift, b->d_scale};
    FC_TRY(b->be->data_gather(b->be, b->data, first, B, &out));
    double t0 = fc_now();
    fc_status st = b->be->data_scale(b->be, b->data, B, &out);
    b->scale_seconds = fc_now() - t0;
    return st;
}

size_t fc_batch_target_bytes(size_t cap, size_t H) { return cap * (H + 2) * sizeof(float); }

fc_status fc_batch_keep_targets(fc_batch *b) {
    if (b->d_out_raw) return FC_OK;
    b->d_out_raw = b->be->alloc(b->be, b->cap * b->H * sizeof(float));
    b->d_shift = b->be->alloc(b->be, b->cap * sizeof(float));
    b->d_scale = b->be->alloc(b->be, b->cap * sizeof(float));
    return b->d_out_raw && b->d_shift && b->d_scale ? FC_OK : FC_ERR_MEMORY;
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

/* The next set, once the device no longer reads it: its copies from two
 * loads ago have passed (double buffering), or, with one set, everything
 * has (a sync: the copies of the last load may still be reading it). */
static fc_status claim_set(fc_batch *b) {
    if (b->n_sets == 2) {
        if (b->copied[b->set]) FC_TRY(b->be->mark_wait(b->be, b->copied[b->set]));
    } else {
        b->be->sync(b->be);
    }
    use_set(b, b->set);
    for (int i = 0; i < 3; i++) b->exog_host[i] = b->exog_sets[b->set][i];
    return FC_OK;
}

static void copy_exog(fc_batch *b, size_t B) {
    for (int i = 0; i < 3; i++)
        if (b->exog_w[i]) b->be->to_device(b->be, b->d_exog[i], b->exog_host[i], B * b->exog_w[i] * sizeof(float));
}

fc_status fc_batch_load(fc_batch *b, const fc_dataset *ds, const fc_window_spec *spec, const fc_window *w,
                        size_t B, int full, fc_scaler_kind scaler) {
    FC_ASSERT(B <= b->cap);
    if (b->data) {
        FC_TRY(fc_batch_stage(b, w, B));
        return gather_on_device(b, spec, 0, B, full, scaler);
    }
    if (b->exog_cfg && b->exog_ds != ds) {
        FC_TRY(fc_exog_resolve(b->exog_cfg, ds, &b->exog_cols));
        b->exog_ds = ds;
    }
    const fc_exog_cols *use = b->exog_cfg ? &b->exog_cols : NULL;
    FC_TRY(claim_set(b));
    /* two passes, so the two costs can be told apart; the second finds the windows in cache */
    #pragma omp parallel for schedule(static) if (B >= 64)
    for (size_t k = 0; k < B; k++) gather_one(b, ds, spec, &w[k], k, full);
    double t0 = fc_now();
    #pragma omp parallel for schedule(static) if (B >= 64)
    for (size_t k = 0; k < B; k++) scale_one(b, ds, spec, &w[k], k, full, scaler, use);
    b->scale_seconds = fc_now() - t0;
    fc_dataset_release_pages(ds);   /* a streamed dataset keeps no more than one batch resident */
    fc_backend *be = b->be;
    be->to_device(be, b->d_in_y, b->in_y, B * b->L * sizeof(float));
    be->to_device(be, b->d_in_mask, b->in_mask, B * b->L * sizeof(float));
    be->to_device(be, b->d_out_y, b->out_y, B * b->H * sizeof(float));
    be->to_device(be, b->d_out_mask, b->out_mask, B * b->H * sizeof(float));
    if (b->d_out_raw) {   /* from the plain buffers: a pageable copy completes before it returns (backend.h) */
        be->to_device(be, b->d_out_raw, b->out_raw, B * b->H * sizeof(float));
        be->to_device(be, b->d_shift, b->shift, B * sizeof(float));
        be->to_device(be, b->d_scale, b->scale, B * sizeof(float));
    }
    if (use) copy_exog(b, B);
    if (b->n_sets == 2) FC_TRY(be->mark_record(be, &b->copied[b->set]));
    b->set = (b->set + 1) % b->n_sets;
    return FC_OK;
}
