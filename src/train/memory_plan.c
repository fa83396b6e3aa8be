/* The memory plan of a training run (see memory_plan.h). Each item calls
 * the size function of the code that allocates it, so the plan and the
 * allocation share one formula. */
#include <stdlib.h>
#include <string.h>

#include "core/byte_size.h"
#include "core/error.h"
#include "core/memory_stats.h"
#include "dist/dist.h"
#include "kernels/optimizer_step.h"
#include "train/batch.h"
#include "train/memory_plan.h"

/* The device path's copy of the training data (backend.h, data_*). */
#define FC_PLAN_DEVICE_DATA_NAME "training data on the device"

static void add_item(fc_memory_plan *p, const char *name, size_t bytes, size_t per_window, int on_backend) {
    FC_ASSERT(p->n < FC_PLAN_MAX_ITEMS);
    if (bytes == 0) return;
    p->items[p->n++] = (fc_plan_item){name, bytes, per_window, on_backend};
    p->total += bytes;
    p->per_window += per_window;
    if (on_backend) p->backend_bytes += bytes;
}

/* Host memory (malloc) and backend memory (the arena). */
static void add(fc_memory_plan *p, const char *name, size_t bytes, size_t per_window) {
    add_item(p, name, bytes, per_window, 0);
}
static void add_backend(fc_memory_plan *p, const char *name, size_t bytes, size_t per_window) {
    add_item(p, name, bytes, per_window, 1);
}

/* A dense layer's workspace, merged into the per-slot maxima. */
static fc_status layer_workspace(fc_backend *be, const fc_linear *l, size_t B,
                                 fc_precision prec, size_t ws[FC_WS_SLOTS]) {
    static const float bias_marker = 0.0f;   /* never read: the forward kernel WITH a bias is the one planned */
    fc_linear_call shape = {.B = B * l->rows, .I = l->in, .O = l->out, .act = l->act, .prec = prec, .b = &bias_marker};
    size_t mine[FC_WS_SLOTS];
    FC_TRY(be->linear_workspace(be, &shape, mine));
    for (int i = 0; i < FC_WS_SLOTS; i++) ws[i] = mine[i] > ws[i] ? mine[i] : ws[i];
    return FC_OK;
}

typedef struct {
    fc_backend *be;
    size_t B;
    fc_precision prec;
    size_t *ws;
} workspace_walk;

static fc_status visit_workspace(const fc_linear *l, size_t index, void *ctx) {
    (void)index;
    const workspace_walk *w = ctx;
    return layer_workspace(w->be, l, w->B, w->prec, w->ws);
}

static fc_status workspace_bytes(fc_backend *be, const fc_model *m, size_t B, fc_precision prec, size_t *out) {
    size_t ws[FC_WS_SLOTS] = {0};
    workspace_walk walk = {be, B, prec, ws};
    FC_TRY(fc_model_for_each_linear(m, visit_workspace, &walk));
    *out = 0;
    for (int i = 0; i < FC_WS_SLOTS; i++) *out += ws[i];
    return FC_OK;
}

/* Parameters and everything sized by them. */
static void plan_parameters(fc_memory_plan *p, const fc_model *m, const fc_train_options *o, const fc_backend *be) {
    size_t t = m->n_trainable * sizeof(float);
    add_backend(p, "parameters", m->n_floats * sizeof(float), 0);
    add_backend(p, "gradients", t, 0);
    add_backend(p, "Adam moments", 2 * t, 0);
    add_backend(p, "optimizer step blocks", sizeof(fc_step_in), 0);   /* train/optimizer.h */
    add_backend(p, "optimizer step report", sizeof(fc_step_out), 0);
    add(p, "optimizer step blocks (host)", sizeof(fc_step_in) + sizeof(fc_step_out), 0);
    if (o->val_size) add_backend(p, "best weights (validation)", m->n_state * sizeof(float), 0);
    add_backend(p, "low-precision weights", fc_model_low_param_bytes(m, o->precision, be), 0);
}

/* Everything that grows with the windows batch W. On the device path
 * (train/batch.h) the training batch has no host staging, and the
 * backend's copy of the data (with its per-window part) is an arena item. */
static void plan_windows(fc_memory_plan *p, const fc_model *m, const fc_dataset *ds, const fc_train_options *o,
                         const fc_backend *be) {
    size_t W = o->windows_batch_size, L = m->cfg.input_size, H = m->cfg.h;
    /* activations per window, and their fixed region once (per-batch statistics) */
    size_t act = m->act_floats * sizeof(float), fixed = m->fixed_floats * sizeof(float);
    size_t scr = fc_model_scratch_floats(m, 1) * sizeof(float);
    size_t low = fc_model_low_act_bytes(m, 1, o->precision, be);
    size_t dev = fc_batch_device_bytes(1, L, H, m->cfg.n_outputs), host = fc_batch_host_bytes(be, 1, L, H);
    if (o->loss_targets) dev += fc_batch_target_bytes(1, H);
    /* this step's windows and the next step's, drawn ahead (trainer.c), for every rank of a job */
    size_t ranks = o->alone ? 1 : (size_t)fc_dist_size();
    size_t idx = 2 * o->grad_accum * ranks * sizeof(fc_window), data_per_window;
    size_t data = fc_batch_data_bytes(be, ds, W, o->grad_accum, L, &data_per_window);
    size_t xhost, xdev;
    fc_batch_exog_bytes(&m->cfg, 1, fc_batch_staging_sets(be), &xhost, &xdev);
    if (xdev) {                     /* exogenous inputs keep the host path (trainer.c) */
        data = data_per_window = 0;
        host += xhost;
        dev += xdev;
    } else if (fc_batch_device_path(be, ds)) {
        host = 0;
    }
    add_backend(p, "activations", act * W + fixed, act);
    add_backend(p, "backward scratch", scr * W, scr);
    add_backend(p, "low-precision activations", low * W, low);
    add_backend(p, "batch buffers", dev * W, dev);
    add_backend(p, FC_PLAN_DEVICE_DATA_NAME, data, data_per_window);
    add(p, "batch staging (host)", host * W, host);
    add(p, "window indices", idx * W, idx);
}

static size_t longest_series(const fc_dataset *ds) {
    size_t longest = 0;
    for (size_t i = 0; i < ds->n_series; i++)
        longest = fc_dataset_len(ds, i) > longest ? fc_dataset_len(ds, i) : longest;
    return longest;
}

/* The sampler and the validation runner, sized by the data. */
static fc_status plan_data(fc_memory_plan *p, const fc_model *m, const fc_dataset *ds, const fc_train_options *o,
                           const fc_backend *be) {
    size_t L = m->cfg.input_size;
    fc_window_spec spec = {L, m->cfg.h, o->step_size, o->val_size, o->min_in_frac, o->min_out_frac, o->test_size,
                           o->start_padding && L ? L - 1 : 0};   /* the trainer's (trainer_window_spec) */
    size_t T_max;
    FC_TRY(fc_windows_check(ds, &spec, &T_max));
    size_t grid = fc_window_grid(&spec, T_max);
    add(p, "window sampler", fc_window_sampler_bytes(ds, o->batch_size, grid), 0);
    size_t listed = o->batch_size < ds->n_series ? o->batch_size : ds->n_series, val_cap = 0;
    if (o->val_size) {
        size_t n = fc_validation_windows(ds, &spec, NULL);
        size_t cap = val_cap = fc_inference_chunk(o->windows_batch_size, n ? n : 1);   /* the model has room for W */
        size_t xhost, xdev;
        fc_batch_exog_bytes(&m->cfg, cap, fc_batch_staging_sets(be), &xhost, &xdev);
        size_t dev = fc_batch_device_bytes(cap, spec.L, spec.H, m->cfg.n_outputs) + xdev;
        add_backend(p, "validation batch buffers", dev, 0);
        add(p, "validation (host)", fc_batch_host_bytes(be, cap, spec.L, spec.H) + xhost +
                                        cap * spec.H * m->cfg.n_outputs * sizeof(float) +
                                        n * sizeof(fc_window), 0);
    }
    add(p, "dataset", fc_dataset_bytes(ds), 0);
    size_t W = o->windows_batch_size, longest = longest_series(ds), window = spec.L + spec.H;
    size_t step = fc_window_touch_bytes(ds, listed, longest, W, window);
    size_t val = fc_window_touch_bytes(ds, 0, longest, val_cap, window);
    add(p, FC_PLAN_STREAMED_NAME, step > val ? step : val, 0);
    return FC_OK;
}

fc_status fc_memory_plan_train(const fc_model *m, const fc_dataset *ds, const fc_train_options *o,
                               fc_backend *be, fc_memory_plan *p) {
    memset(p, 0, sizeof *p);
    p->windows_batch = o->windows_batch_size;
    plan_parameters(p, m, o, be);
    plan_windows(p, m, ds, o, be);
    size_t ws;
    FC_TRY(workspace_bytes(be, m, o->windows_batch_size, o->precision, &ws));
    add(p, "matrix-product workspace", ws, 0);
    add(p, FC_PLAN_ALLOWANCE_NAME, FC_PLAN_ALLOWANCE, 0);
    if (be->context_bytes) add(p, FC_PLAN_CONTEXT_NAME, be->context_bytes, 0);
    return plan_data(p, m, ds, o, be);
}

fc_status fc_memory_plan_predict(const fc_model *m, const fc_dataset *ds, fc_backend *be, fc_memory_plan *p) {
    size_t N = ds->n_series, L = m->cfg.input_size, H = m->cfg.h;
    size_t cap = fc_inference_chunk(0, N ? N : 1);   /* a loaded model has no room reserved yet */
    memset(p, 0, sizeof *p);
    p->windows_batch = cap;
    add_backend(p, "parameters", m->n_floats * sizeof(float), 0);
    add_backend(p, "activations", fc_model_act_floats(m, cap) * sizeof(float), 0);
    size_t Q = m->cfg.n_outputs;
    size_t xhost, xdev;
    fc_batch_exog_bytes(&m->cfg, cap, fc_batch_staging_sets(be), &xhost, &xdev);
    size_t dev = fc_batch_device_bytes(cap, L, H, Q) + xdev;
    add_backend(p, "batch buffers", dev, 0);
    add(p, "batch staging (host)", fc_batch_host_bytes(be, cap, L, H) + xhost + cap * H * Q * sizeof(float), 0);
    add(p, "forecasts and windows", N * H * Q * sizeof(float) + N * sizeof(fc_window), 0);
    size_t ws;
    FC_TRY(workspace_bytes(be, m, cap, FC_PREC_FP32, &ws));
    add(p, "matrix-product workspace", ws, 0);
    add(p, FC_PLAN_ALLOWANCE_NAME, FC_PLAN_ALLOWANCE, 0);
    if (be->context_bytes) add(p, FC_PLAN_CONTEXT_NAME, be->context_bytes, 0);
    add(p, "dataset", fc_dataset_bytes(ds), 0);
    add(p, FC_PLAN_STREAMED_NAME, fc_window_touch_bytes(ds, FC_RELEASE_SERIES, L, cap, L + H), 0);
    return FC_OK;
}

fc_status fc_memory_plan_train_config(const fc_model_config *cfg, const fc_dataset *ds, const fc_train_options *o,
                                      fc_backend *be, fc_memory_plan *p) {
    fc_model *planned = NULL;
    FC_TRY(fc_model_plan(cfg, &planned));
    fc_status st = fc_memory_plan_train(planned, ds, o, be, p);
    fc_model_free(&planned);
    return st;
}

size_t fc_memory_plan_shared(const fc_memory_plan *p) {
    size_t shared = 0;
    for (int i = 0; i < p->n; i++)
        if (!p->items[i].on_backend &&
            (!strcmp(p->items[i].name, "dataset") || !strcmp(p->items[i].name, FC_PLAN_ALLOWANCE_NAME)))
            shared += p->items[i].bytes;
    return shared;
}

fc_status fc_memory_plan_largest_batch(const fc_model *m, const fc_dataset *ds, const fc_train_options *o,
                                       fc_backend *be, size_t limit, size_t *out) {
    fc_train_options t = *o;
    fc_memory_plan p;
    *out = 0;
    FC_TRY(fc_memory_plan_train(m, ds, &t, be, &p));
    size_t fixed = p.total - p.per_window * p.windows_batch;
    if (limit <= fixed || p.per_window == 0) return FC_OK;
    size_t cand = (limit - fixed) / p.per_window;
    cand = cand > ((size_t)1 << 20) ? (size_t)1 << 20 : cand;
    /* the workspace is not linear in W: check the candidate, shrink until it fits */
    for (int tries = 0; cand > 0 && tries < 16; tries++) {
        t.windows_batch_size = cand;
        FC_TRY(fc_memory_plan_train(m, ds, &t, be, &p));
        if (p.total <= limit) {
            *out = cand;
            return FC_OK;
        }
        size_t shrunk = (size_t)((double)cand * (double)limit / (double)p.total * 0.99);
        cand = shrunk < cand ? shrunk : cand - 1;
    }
    return FC_OK;
}

static int by_size_desc(const void *a, const void *b) {
    size_t x = ((const fc_plan_item *)a)->bytes, y = ((const fc_plan_item *)b)->bytes;
    return x < y ? 1 : x > y ? -1 : 0;
}

fc_status fc_memory_plan_refusal(const fc_memory_plan *p, size_t limit, size_t largest_batch) {
    fc_plan_item top[FC_PLAN_MAX_ITEMS];
    char need[32], lim[32], sz[3][32], fit[96];
    memcpy(top, p->items, (size_t)p->n * sizeof *top);
    qsort(top, (size_t)p->n, sizeof *top, by_size_desc);
    for (int i = 0; i < 3; i++) fc_bytes_text(i < p->n ? top[i].bytes : 0, sz[i], sizeof sz[i]);
    if (largest_batch == FC_PLAN_NO_BATCH_ADVICE)
        snprintf(fit, sizeof fit, "raise the limit");
    else if (largest_batch)
        snprintf(fit, sizeof fit, "the largest --windows-batch-size that fits is %zu", largest_batch);
    else
        snprintf(fit, sizeof fit, "not even one window fits: raise the limit or shrink the model");
    return fc_error(FC_ERR_MEMORY,
                    "--memory-limit %s: this run needs %s with --windows-batch-size %zu; the biggest parts are "
                    "%s %s, %s %s, %s %s; %s (fcast plan prints the whole plan)",
                    fc_bytes_text(limit, lim, sizeof lim), fc_bytes_text(p->total, need, sizeof need),
                    p->windows_batch, p->n > 0 ? top[0].name : "", sz[0], p->n > 1 ? top[1].name : "", sz[1],
                    p->n > 2 ? top[2].name : "", sz[2], fit);
}

fc_status fc_memory_limit_parse(const char *text, size_t *out) {
    *out = 0;
    if (!text) return FC_OK;
    if (fc_parse_byte_size(text, out) || *out == 0)
        return fc_error(FC_ERR_INVALID, "--memory-limit '%s' is not a size such as 512MiB, 12GB or 1073741824", text);
    return FC_OK;
}
