/* Inference over many windows in chunks: validation loss and forecasts.
 * Forecasts are inverse-transformed per window (shift, scale of its own
 * insample) before any loss or output, as neuralforecast's
 * _inv_normalization. */
#include <math.h>
#include <string.h>

#include "core/error.h"
#include "dist/dist.h"
#include "train/batch.h"
#include "train/distribution_forecast.h"
#include "train/forecaster.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#define FC_INFER_CHUNK 1024

size_t fc_inference_chunk(size_t capacity, size_t n) {
    size_t cap = capacity ? capacity : FC_INFER_CHUNK;
    if (cap > FC_INFER_CHUNK) cap = FC_INFER_CHUNK;
    return n < cap ? n : cap;
}

static void runner_free(fc_runner *r) {
    if (r->batch.be) fc_graph_slot_free(&r->forward_graph, r->batch.be);
    fc_batch_free(&r->batch);
    free(r->forecast);
    free(r->draws);
    free(r->windows);
    free(r->partials);
    memset(r, 0, sizeof *r);
}

/* Inference batches take the host path (batch.h), also where training
 * keeps its data on the device: the losses and the inverse transform need
 * each window's target, shift and scale on the host, and validation runs
 * every val_check_steps steps, not in every step. */
static fc_status runner_init(fc_runner *r, fc_forecaster *f, size_t n) {
    fc_model *m = f->model;
    memset(r, 0, sizeof *r);
    r->cap = fc_inference_chunk(m->capacity, n ? n : 1);
    fc_status st = fc_batch_init(&r->batch, m->be, r->cap, m->cfg.input_size, m->cfg.h, m->cfg.n_outputs);
    if (st == FC_OK) st = fc_batch_add_exog(&r->batch, &m->cfg);
    size_t width = m->cfg.h * m->cfg.n_outputs;
    if (st == FC_OK && !(r->forecast = fc_malloc(r->cap * width * sizeof(float), "forecasts"))) st = FC_ERR_MEMORY;
    if (st == FC_OK && fc_loss_kind_is_distribution(f->loss.kind)) {   /* each thread's draws of a point */
#ifdef _OPENMP
        r->draw_threads = omp_get_max_threads();
#else
        r->draw_threads = 1;
#endif
        size_t n_draws = (size_t)r->draw_threads * (size_t)f->loss.n_samples;
        if (!(r->draws = fc_malloc(n_draws * sizeof(float), "forecast draws"))) st = FC_ERR_MEMORY;
    }
    if (st == FC_OK) st = fc_model_reserve(m, r->cap, 0);
    if (st == FC_OK) fc_graph_slot_init(&r->forward_graph, m->be, 0);
    if (st != FC_OK) runner_free(r);
    return st;
}

typedef struct {
    fc_model *m;
    fc_batch *b;
    size_t B;
} chunk_pass;

static fc_status chunk_forward(void *ctx) {
    chunk_pass *p = ctx;
    p->m->exog = fc_batch_exog_inputs(p->b);
    p->m->training = 0;   /* no dropout outside training steps */
    return fc_model_forward(p->m, p->b->d_forecast, p->b->d_in_y, p->b->d_in_mask, p->B);
}

/* A full chunk's forward is the same launches on the same buffers every
 * time: replayed as a graph from the second one on (the first chooses the
 * kernels). A last, partial chunk runs as plain calls. */
static fc_status forward_chunk(fc_runner *r, fc_model *m, size_t B) {
    chunk_pass p = {m, &r->batch, B};
    if (B != r->cap) return chunk_forward(&p);
    fc_status st = fc_graph_run(&r->forward_graph, m->be, r->full_chunks >= 1, chunk_forward, &p);
    r->full_chunks++;
    return st;
}

/* Runs the windows through the model in chunks; after each chunk calls
 * emit(ctx, first window, count, batch, forecasts) with the forecasts
 * (count, H, Q) on the original scale (compare them with b->out_raw).
 * Every output of a point is inverted with its window's shift and scale,
 * as neuralforecast's _inv_normalization does for each quantile; a
 * distribution's raw outputs are left as they are (its likelihood and
 * draws decouple them with the shift and scale themselves).
 * Allocates nothing. */
typedef void (*chunk_fn)(void *ctx, size_t first, size_t n, const fc_batch *b, const float *forecast);

static fc_status run_windows(fc_runner *r, fc_forecaster *f, const fc_dataset *ds, const fc_window_spec *spec,
                             const fc_window *w, size_t n, chunk_fn emit, void *ctx) {
    fc_model *m = f->model;
    size_t HQ = m->cfg.h * m->cfg.n_outputs;
    fc_batch *b = &r->batch;
    for (size_t k = 0; k < n; k += r->cap) {
        size_t B = n - k < r->cap ? n - k : r->cap;
        FC_TRY(fc_batch_load(b, ds, spec, w + k, B, 1, f->scaler));
        FC_TRY(forward_chunk(r, m, B));
        m->be->to_host(m->be, r->forecast, b->d_forecast, B * HQ * sizeof(float));
        FC_TRY(m->be->status(m->be));   /* a device fault: the copy holds no forecasts */
        if (!fc_loss_kind_is_distribution(f->loss.kind))
            for (size_t i = 0; i < B; i++)
                fc_scaler_invert(r->forecast + i * HQ, HQ, b->shift[i], fc_scaler_inverse_scale(f->scaler, b->scale[i]));
        emit(ctx, k, B, b, r->forecast);
    }
    return FC_OK;
}

/* The loss of one chunk: into partials[2 (chunk0 + first / cap) ...]. */
typedef struct {
    double *partials;
    size_t chunk0, cap;
    fc_loss_spec loss;           /* what validation scores */
    int trained;                 /* the training loss's kind: how the forecasts read (a distribution's raw outputs) */
    fc_scaler_kind scaler;
} loss_acc;

/* The validation loss on the original scale (neuralforecast's
 * _compute_valid_loss): forecasts (n, H, Q) already inverted, the raw
 * targets, and for MASE the window's insample inverted with its shift and
 * scale. Summed as _weighted_mean over all points of all chunks: mask *
 * loss per output in float, added in double, over the sum of the masks;
 * unobserved points add nothing. */
static void accumulate_loss(void *ctx, size_t first, size_t n, const fc_batch *b, const float *fc) {
    loss_acc *a = ctx;
    const fc_loss_spec *s = &a->loss;
    size_t Q = b->Q, outputs = fc_loss_outputs(s);   /* equal: the model's outputs are the loss's */
    double *sum = a->partials + 2 * (a->chunk0 + first / a->cap), *weight = sum + 1;
    for (size_t w = 0; w < n; w++) {
        float scale = s->kind != FC_LOSS_MASE ? 1.0f
                    : fc_loss_mase_scale(b->in_y + w * b->L, b->L, s->season, b->shift[w],
                                         fc_scaler_inverse_scale(a->scaler, b->scale[w]));
        for (size_t t = w * b->H; t < (w + 1) * b->H; t++) {
            float m = b->out_mask[t], g, gd[FC_DISTRIBUTION_MAX_PARAMS];
            if (m == 0.0f) continue;
            if (fc_loss_kind_is_distribution(a->trained) && !fc_loss_kind_is_distribution(s->kind))
                /* a point valid_loss of a distribution: on its mean (neuralforecast's distr.mean) */
                *sum += (double)(m * fc_loss_output(s, 0, fc_distribution_mean(a->trained - FC_LOSS_NORMAL, fc + t * Q,
                                                                               b->shift[w], b->scale[w]),
                                                    b->out_raw[t], scale, &g));
            else if (fc_loss_kind_is_distribution(s->kind))   /* the likelihood of the point's Q raw outputs */
                *sum += (double)(m * fc_distribution_nll(s->kind - FC_LOSS_NORMAL, fc + t * Q, b->shift[w],
                                                         b->scale[w], b->out_raw[t], gd));
            else for (size_t j = 0; j < outputs; j++)
                *sum += (double)(m * fc_loss_output(s, (int)j, fc[t * Q + j], b->out_raw[t], scale, &g));
            *weight += (double)m;
        }
    }
}

fc_status fc_validator_init(fc_runner *r, fc_forecaster *f, const fc_dataset *ds, const fc_window_spec *spec) {
    size_t n = fc_validation_windows(ds, spec, NULL);
    FC_TRY(runner_init(r, f, n));
    r->ranks = 1;
    r->valid_loss = -1;
    r->windows = fc_malloc((n ? n : 1) * sizeof *r->windows, "validation windows");
    size_t chunks = (n + r->cap - 1) / r->cap, slots = chunks > ds->shards ? chunks : ds->shards;
    r->partials = fc_malloc(2 * (slots ? slots : 1) * sizeof *r->partials, "validation sums");
    if (!r->windows || !r->partials) { runner_free(r); return FC_ERR_MEMORY; }
    r->n_windows = fc_validation_windows(ds, spec, r->windows);
    return FC_OK;
}

/* The first `n` (sum, weight) pairs of partials added in order. */
static void add_pairs(const double *partials, size_t n, double *sum, double *weight) {
    *sum = *weight = 0.0;
    for (size_t c = 0; c < n; c++) *sum += partials[2 * c], *weight += partials[2 * c + 1];
}

/* The windows' loss sum and weight: this rank's chunks (all, alone), each
 * summed apart; the ranks' sums merged (dist/dist.h); then added in chunk
 * order, as one process adds them. A shard validates all its own windows
 * and the ranks' totals are summed in rank order. */
static fc_status validation_sums(fc_runner *r, fc_forecaster *f, const fc_dataset *ds, const fc_window_spec *spec,
                                 double sums[2]) {
    size_t chunks = (r->n_windows + r->cap - 1) / r->cap, lo = 0, hi = r->n_windows;
    int split = ds->shards < 2 && r->ranks > 1;
    memset(r->partials, 0, 2 * chunks * sizeof *r->partials);
    if (split) fc_dist_part(r->n_windows, r->cap, r->rank, r->ranks, &lo, &hi);
    loss_acc a = {r->partials, lo / r->cap, r->cap, f->loss, f->loss.kind, f->scaler};
    if (r->valid_loss >= 0) a.loss = fc_loss_default(r->valid_loss);   /* neuralforecast's valid_loss */
    if (a.loss.kind == FC_LOSS_IQ) {   /* validated at the quantile it forecasts (neuralforecast's draws new ones) */
        a.loss.kind = FC_LOSS_QUANTILE;
        a.loss.q[0] = f->model->iq.quantile;
    }
    FC_TRY(run_windows(r, f, ds, spec, r->windows + lo, hi - lo, accumulate_loss, &a));
    if (split) FC_TRY(fc_dist_merge(r->partials, 2 * chunks * sizeof *r->partials, 1));
    add_pairs(r->partials, chunks, &sums[0], &sums[1]);
    return ds->shards > 1 ? fc_dist_sum_ordered(sums, 2, r->partials, 1) : FC_OK;
}

fc_status fc_validator_run(fc_runner *r, fc_forecaster *f, const fc_dataset *ds, const fc_window_spec *spec,
                           double *loss) {
    double sums[2];
    FC_TRY(validation_sums(r, f, ds, spec, sums));
    *loss = sums[1] > 0 ? sums[0] / sums[1] : 0.0;
    return FC_OK;
}

void fc_validator_free(fc_runner *r) { runner_free(r); }

fc_status fc_validate(fc_forecaster *f, const fc_dataset *ds, const fc_window_spec *spec, double *loss) {
    fc_runner r;
    fc_status st = fc_validator_init(&r, f, ds, spec);
    if (st == FC_OK) st = fc_validator_run(&r, f, ds, spec, loss);
    runner_free(&r);
    return st;
}

typedef struct {
    float *out;
    const fc_forecaster *f;
    const fc_runner *r;
} forecast_copy;

/* A distribution's forecast columns of the chunk's windows, from their
 * raw outputs, each thread drawing into its own scratch; each window's
 * draws keyed by its input (distribution_forecast.h). */
static void distribution_columns(const forecast_copy *c, size_t first, size_t n, const fc_batch *b, const float *fc) {
    const fc_loss_spec *s = &c->f->loss;
    size_t HP = b->H * b->Q, HC = b->H * fc_distribution_columns(s);
    #pragma omp parallel for schedule(dynamic, 4) num_threads(c->r->draw_threads) if (n > 1)
    for (size_t i = 0; i < n; i++) {
#ifdef _OPENMP
        float *draws = c->r->draws + (size_t)omp_get_thread_num() * (size_t)s->n_samples;
#else
        float *draws = c->r->draws;
#endif
        uint64_t key = fc_distribution_window_key(b->in_y + i * b->L, b->in_mask + i * b->L, b->L);
        fc_distribution_forecast_window(s, c->f->seed, key, fc + i * HP, b->H, b->shift[i], b->scale[i], draws,
                                        c->out + (first + i) * HC);
    }
}

static void copy_forecasts(void *ctx, size_t first, size_t n, const fc_batch *b, const float *fc) {
    const forecast_copy *c = ctx;
    if (fc_loss_kind_is_distribution(c->f->loss.kind)) { distribution_columns(c, first, n, b, fc); return; }
    size_t HQ = b->H * b->Q;
    memcpy(c->out + first * HQ, fc, n * HQ * sizeof(float));
}

fc_status fc_predict_windows(fc_forecaster *f, const fc_dataset *ds, const fc_window *w, size_t n, float *out) {
    size_t L = f->model->cfg.input_size, H = f->model->cfg.h;
    fc_runner r;
    FC_TRY(runner_init(&r, f, n));
    fc_window_spec spec = {L, H, 1, 0, 0.0, 0.0, 0, 0};
    forecast_copy c = {out, f, &r};
    fc_status st = run_windows(&r, f, ds, &spec, w, n, copy_forecasts, &c);
    runner_free(&r);
    return st;
}

fc_status fc_predict(fc_forecaster *f, const fc_dataset *ds, float *out) { return fc_predict_before(f, ds, 0, out); }

fc_status fc_predict_before(fc_forecaster *f, const fc_dataset *ds, size_t tail, float *out) {
    return fc_predict_part(f, ds, tail, 0, ds->n_series, out);
}

size_t fc_predict_chunk(const fc_forecaster *f, size_t n) { return fc_inference_chunk(f->model->capacity, n); }

fc_status fc_predict_part(fc_forecaster *f, const fc_dataset *ds, size_t tail, size_t lo, size_t hi, float *out) {
    size_t n = hi - lo, L = f->model->cfg.input_size, HQ = f->model->cfg.h * fc_forecast_width(f);
    if (!n) return FC_OK;
    fc_window *w = fc_malloc(n * sizeof *w, "forecast windows");
    if (!w) return FC_ERR_MEMORY;
    for (size_t i = 0; i < n; i++)
        w[i] = (fc_window){(uint32_t)(lo + i), (int64_t)fc_dataset_len(ds, lo + i) - (int64_t)(tail + L)};
    fc_status st = fc_predict_windows(f, ds, w, n, out + lo * HQ);
    free(w);
    return st;
}
