/* The training loop: sample windows, scale, forward, masked loss, backward,
 * Adam with StepLR, validation and early stopping, with neuralforecast's
 * semantics (common/_base_model.py). An optimizer step may gather the
 * gradients of several micro-batches (--grad-accum) and runs through
 * optimizer.c (loss scaling, clipping, Adam). Every buffer is allocated
 * before the first step; the step loop allocates nothing. When to stop
 * and when to write checkpoints is train_stop_policy.c's, a job's books
 * across ranks train_dist.c's (trainer_internal.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "core/memory_stats.h"
#include "dist/dist.h"
#include "dist/dist_watch.h"
#include "train/run_log.h"
#include "train/trainer_internal.h"

/* A training step launches the same work on the same buffers every step:
 * zeroing the gradients, then per micro-batch the gather of its staged
 * windows, forward, loss and backward, then the optimizer step, which
 * decides skip, unscale and clip on the backend (optimizer.h). On a
 * backend with graphs (CUDA) the whole step is captured once, after
 * FC_GRAPH_FROM_STEP eager steps have chosen every algorithm and allocated
 * every buffer, and replayed from then on (graph_pass.h): one launch per
 * step. What changes between steps reaches it through backend memory (the
 * staged windows, the optimizer's scalars); the loss scale, a kernel
 * argument of the loss gradient, keys the graph, which is captured again
 * when the fp16 loss scaler changes it (at a skipped step, and every 2000
 * clean steps). The host path (a streamed dataset: its windows are
 * gathered on the host inside the step) runs plain calls. */
#define FC_GRAPH_FROM_STEP 2

/* Charges the time since the last mark to phase p. */
static void phase_end(trainer *t, fc_phase p) {
    double now = fc_now();
    t->step_times.seconds[p] += now - t->mark;
    t->mark = now;
}

/* Windows one optimizer step trains on: K micro-batches of W. */
static size_t windows_per_step(const fc_train_options *o) { return o->windows_batch_size * o->grad_accum; }

/* StepLR(step_size = max(max_steps // num_lr_decays, 1), gamma = 0.5),
 * stepped after every optimizer step. */
static double learning_rate_at(const trainer *t, size_t step) {
    return fc_train_learning_rate(t->o, step);
}

static void trainer_free(trainer *t) {
    fc_backend *be = t->f->model->be;
    fc_graph_slot_free(&t->step_graph, be);
    fc_dist_grads_free(&t->grads);
    fc_window_sampler_free(&t->sampler);
    fc_batch_free(&t->batch);
    fc_validator_free(&t->validator);
    free(t->windows[0]);
    free(t->windows[1]);
    free(t->points);
    fc_optimizer_free(&t->opt, t->f->model);
    be->release(be, t->best);
    /* back to fp32 products: predictions after training use the master weights */
    fc_model_set_precision(t->f->model, FC_PREC_FP32);
}

static fc_status trainer_init(trainer *t) {
    fc_model *m = t->f->model;
    fc_backend *be = m->be;
    const fc_train_options *o = t->o;
    size_t W = o->windows_batch_size, per_step = windows_per_step(o);
    t->spec = trainer_window_spec(&m->cfg, o);
    /* the sampler draws the whole effective batch, of every rank of a job
     * (dist/dist.h): a rank trains on its slice, micro-batches are slices of that */
    size_t ranks = (size_t)t->ranks;
    if (ranks > 1) FC_TRY(fc_dist_grads_init(&t->grads, be, m->n_trainable, o->deterministic_reduce));
    FC_TRY(fc_window_sampler_init(&t->sampler, t->ds, &t->spec, o->batch_size, per_step * ranks, o->seed));
    if (o->drop_last) FC_TRY(fc_window_sampler_drop_last(&t->sampler, o->batch_size));
    if (t->sharded) FC_TRY(trainer_join_shards(t));
    fc_window_sampler_position(&t->sampler, &t->drawn_epoch, &t->drawn_cursor);
    /* on the device path (batch.h) the data is uploaded here, once */
    if (fc_model_has_exog(&m->cfg)) {   /* exogenous inputs take the host path (batch.h) */
        FC_TRY(fc_batch_init(&t->batch, be, W, m->cfg.input_size, m->cfg.h, m->cfg.n_outputs));
        FC_TRY(fc_batch_add_exog(&t->batch, &m->cfg));
    } else {
        FC_TRY(fc_batch_init_training(&t->batch, be, W, o->grad_accum, m->cfg.input_size, m->cfg.h,
                                      m->cfg.n_outputs, t->ds));
    }
    /* a distribution's likelihood reads the unscaled target, shift and scale */
    if (fc_loss_kind_is_distribution(t->f->loss.kind)) FC_TRY(fc_batch_keep_targets(&t->batch));
    /* graphs need a step without host work in it: the device path's */
    /* a graph replays its kernels' arguments: a dropout seed would repeat every step */
    /* nor host code between its kernels: a GPU job's rank-order gradient sum */
    fc_graph_slot_init(&t->step_graph, be, o->no_graphs || !t->batch.data || fc_model_has_dropout(&m->cfg) ||
                                           fc_dist_grads_on_host(&t->grads));
    FC_TRY(fc_model_set_precision(m, o->precision));
    FC_TRY(fc_model_reserve(m, W, 1));
    FC_TRY(fc_optimizer_init(&t->opt, m, o->precision == FC_PREC_FP16, o->clip_grad_norm));
    FC_TRY(fc_optimizer_use(&t->opt, o->optimizer, fc_train_weight_decay(o)));
    t->windows[0] = fc_malloc(per_step * ranks * sizeof(fc_window), "window indices");
    t->windows[1] = fc_malloc(per_step * ranks * sizeof(fc_window), "window indices");
    /* the weights and the state training changes (BatchNorm's running statistics) */
    t->best = o->val_size ? be->alloc(be, m->n_state * sizeof(float)) : NULL;
    if (!t->windows[0] || !t->windows[1] || (o->val_size && !t->best)) return FC_ERR_MEMORY;
    if (t->best) be->fill(be, t->best, 0.0f, m->n_state);   /* checkpointed before any improvement */
    if (!o->val_size) return FC_OK;
    FC_TRY(fc_validator_init(&t->validator, t->f, t->ds, &t->spec));
    t->validator.forward_graph.off |= o->no_graphs;   /* --cuda-graph off covers validation too */
    t->validator.rank = t->rank, t->validator.ranks = t->ranks;   /* each rank validates its chunks */
    t->validator.valid_loss = o->valid_loss;
    return FC_OK;
}

/* The load's time since the mark, split between its gather and its scale
 * as the batch measured them. */
static void split_load_time(trainer *t) {
    double now = fc_now(), scale = t->batch.scale_seconds, total = now - t->mark;
    if (scale > total) scale = total;
    t->step_times.seconds[FC_PHASE_GATHER] += total - scale;
    t->step_times.seconds[FC_PHASE_SCALE] += scale;
    t->mark = now;
}

/* Gather, forward, loss and backward of micro-batch k (staged windows
 * [first, first + B)); gradients accumulate. The loss gradient carries the
 * loss scale and the micro-batch's share (trainer_micro_batch_share); the loss
 * itself is summed (each times its share) in backend memory, read with the
 * optimizer's report once the step is done, so no micro-batch waits for
 * the host. */
static fc_status micro_batch(trainer *t, size_t k, size_t first, size_t B) {
    fc_model *m = t->f->model;
    fc_batch *b = &t->batch;
    /* Host path: gathered and scaled here, then copied. Device path: the
     * backend gathers and scales the staged windows (asynchronously on a
     * GPU: the time shows in later phases). */
    FC_TRY(fc_batch_load_staged(b, t->ds, &t->spec, first, B, t->f->scaler));
    split_load_time(t);
    m->exog = fc_batch_exog_inputs(b);
    fc_philox_out r = fc_rng_block(t->o->seed, FC_RNG_STREAM_DROPOUT, trainer_dropout_slice(t, k));
    m->dropout_seed = (uint64_t)r.v[0] | (uint64_t)r.v[1] << 32;
    m->training = 1;
    FC_TRY(fc_model_forward(m, b->d_forecast, b->d_in_y, b->d_in_mask, B));
    phase_end(t, FC_PHASE_FORWARD);
    /* The loss reads (W, h, Q) forecasts: Q must be the model's outputs per point. */
    fc_loss_spec spec = t->f->loss;
    if (!fc_loss_kind_is_distribution(spec.kind)) spec.n_q = (int)fc_loss_n_outputs(&spec);
    if (fc_loss_n_outputs(&spec) != m->cfg.n_outputs)
        return fc_error(FC_ERR_INVALID, "loss '%s' has %zu outputs per point, the model %zu", fc_loss_name(spec),
                        fc_loss_n_outputs(&spec), m->cfg.n_outputs);
    fc_loss_call loss = {.spec = spec, .yhat = b->d_forecast, .y = b->d_out_y,
                         .mask = b->d_out_mask, .insample = b->d_in_y, .y_raw = b->d_out_raw, .loc = b->d_shift,
                         .scale = b->d_scale, .q_point = spec.kind == FC_LOSS_IQ ? fc_iq_head_taus(m) : NULL,
                         .n = B * m->cfg.h, .h = m->cfg.h, .L = m->cfg.input_size};
    /* equal micro-batches keep K itself as the divisor: the bits of runs before shards */
    double share = trainer_micro_batch_share(t, k);
    double divisor = !t->sharded ? (double)t->o->grad_accum : share > 0 ? 1.0 / share : 1.0;   /* 0 points: loss 0 */
    float grad_scale = t->sharded ? fc_optimizer_loss_scale(&t->opt) * (float)share : t->grad_scale;
    m->be->masked_loss(m->be, fc_optimizer_loss_slot(&t->opt), k == 0, divisor, b->d_grad, grad_scale, &loss);
    phase_end(t, FC_PHASE_LOSS);
    FC_TRY(fc_model_backward(m, b->d_grad, B));
    phase_end(t, FC_PHASE_BACKWARD);
    return FC_OK;
}

/* Everything a step launches on the backend, in order: what a graph
 * captures. It reads nothing from the host that changes between steps
 * except the loss-gradient scale, the graph's key. */
static fc_status step_body(void *ctx) {
    trainer *t = ctx;
    fc_model *m = t->f->model;
    size_t W = t->o->windows_batch_size, n = t->staged;
    m->be->fill(m->be, m->grads, 0.0f, m->n_trainable);
    for (size_t k = 0; k < t->micro_batches; k++) FC_TRY(micro_batch(t, k, k * W, k * W + W <= n ? W : n - k * W));
    /* the ranks' mean gradient (alone: nothing), so every rank takes the same Adam step */
    if (t->ranks > 1) FC_TRY(fc_dist_grads_mean(&t->grads, m->grads));
    fc_optimizer_launch(&t->opt, m);
    return FC_OK;
}

/* This step's windows: drawn ahead during the last step, or now. The
 * sampler's sequence is the same either way (each draw is a function of
 * the seed, the step and the sampler's place); what a checkpoint saves is
 * its place after this step's draws, before any drawn ahead. */
static fc_window *step_windows(trainer *t, size_t step) {
    if (t->have_next) {
        t->current = !t->current;
        t->have_next = 0;
    } else {
        t->n_windows[t->current] = fc_window_sampler_next(&t->sampler, step, t->windows[t->current]);
    }
    fc_window_sampler_position(&t->sampler, &t->drawn_epoch, &t->drawn_cursor);
    return t->windows[t->current];
}

/* This step's windows of this rank, staged: its slice of the job's draws
 * (K micro-batches of W), or a shard's own draws in as many micro-batches
 * of at most W as they fill (none when its series drew none). */
static fc_status stage_windows(trainer *t, size_t step) {
    size_t K = t->o->grad_accum, W = t->o->windows_batch_size;
    fc_window *w = step_windows(t, step);
    if (!t->sharded) {
        t->staged = K * W, t->micro_batches = K;
        return fc_batch_stage(&t->batch, w + (size_t)t->rank * K * W, K * W);
    }
    t->staged = t->n_windows[t->current], t->micro_batches = (t->staged + W - 1) / W;
    FC_TRY(trainer_count_points(t, w, t->staged));
    return fc_batch_stage(&t->batch, w, t->staged);
}

/* The next step's windows, drawn while the device runs this step (the
 * host's draws then cost a GPU nothing; on the CPU the order changes
 * nothing). Not after the last step. */
static void draw_ahead(trainer *t, size_t step) {
    if (step + 1 >= t->o->max_steps) return;
    t->n_windows[!t->current] = fc_window_sampler_next(&t->sampler, step + 1, t->windows[!t->current]);
    t->have_next = 1;
}

static uint64_t key_of(float x) {
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}

/* One optimizer step on a freshly sampled batch of grad_accum micro-batches;
 * the training loss is their mean (each micro-batch's loss divided by K, as
 * torch's accumulation recipe). The windows are drawn on the host, also
 * where the data lives on the device: the draws are a sequential partial
 * Fisher-Yates over the valid windows of the step's series, and drawn one
 * step ahead they overlap the device's work; the device path then sends
 * only the indices, 16 bytes a window. */
static fc_status train_step(trainer *t, size_t step, double *loss, fc_step_report *r) {
    fc_model *m = t->f->model;
    t->grad_scale = fc_optimizer_loss_scale(&t->opt) / (float)t->o->grad_accum;
    t->step = step;
    t->mark = fc_now();
    FC_TRY(stage_windows(t, step));
    fc_optimizer_prepare(&t->opt, m, (float)learning_rate_at(t, step));
    phase_end(t, FC_PHASE_SAMPLE);
    int warm = step - t->first_step >= FC_GRAPH_FROM_STEP;   /* eager steps in this process first */
    FC_TRY(fc_graph_run_keyed(&t->step_graph, m->be, warm, key_of(t->grad_scale), step_body, t));
    phase_end(t, FC_PHASE_OPTIMIZER);   /* its launch, the last of step_body */
    draw_ahead(t, step);
    phase_end(t, FC_PHASE_SAMPLE);
    int gpus = t->ranks > 1 && !m->be->host_visible;   /* NCCL's all-reduce is waited for here, on the host */
    if (gpus) fc_dist_watch_enter("GPUs' gradient all-reduce");
    fc_status st = fc_optimizer_finish(&t->opt, m, loss, r);   /* waits for the step */
    if (gpus) fc_dist_watch_leave();
    if (!t->micro_batches) *loss = 0.0;   /* a shard whose series drew no window: no loss was written */
    if (st == FC_OK && t->ranks > 1) st = fc_dist_mean_double(loss);            /* the loss of every rank's windows */
    phase_end(t, FC_PHASE_OPTIMIZER);
    return st;
}

/* What the training loss is measured in: the scaled data, unless the
 * scaler is the identity. Validation losses are always in original units. */
static const char *train_loss_unit(const trainer *t) {
    return t->f->scaler == FC_SCALER_IDENTITY ? "original" : "scaled";
}

/* The log line of a step, and the summary's running figures. */
static void report_step(trainer *t, const fc_step_report *r, fc_train_summary *s, fc_progress *p, double elapsed) {
    const fc_loss_scaler *sc = &t->opt.scaler;
    s->skipped_steps = sc->skipped;
    s->loss_scale = sc->enabled ? sc->scale : 0.0f;
    s->last_grad_norm = r->grad_norm;
    if (r->skipped) fc_progress_skip(p, s->steps, sc->scale);
    size_t done = s->steps - s->start_step;
    fc_step_status st = {s->steps, t->loop.last_train_loss, learning_rate_at(t, s->steps - 1),
                         (double)(done * windows_per_step(t->o)) / elapsed, s->loss_scale, s->skipped_steps,
                         r->grad_norm};
    fc_progress_step(p, &st);
    if (t->o->log) fc_run_log_step(t->o->log, &st, train_loss_unit(t), fc_rss_current(), 0);
    if (t->o->on_step) t->o->on_step(t->o->on_step_user, s->steps, t->o->max_steps, t->loop.last_train_loss);
}

static void add_times(fc_phase_times *sum, const fc_phase_times *step) {
    for (int p = 0; p < FC_PHASE_COUNT; p++) sum->seconds[p] += step->seconds[p];
}

static fc_status run_steps(trainer *t, fc_train_summary *s) {
    const fc_train_options *o = t->o;
    fc_loop_state *l = &t->loop;
    fc_progress p;
    int stop = 0;
    fc_progress_init(&p, o->verbose, o->max_steps, l->step, train_loss_unit(t));
    t->first_step = l->step;
    double t0 = fc_now(), in_validation = 0.0;
    for (size_t step = l->step; step < o->max_steps && !stop; step++) {
        fc_step_report r;
        memset(&t->step_times, 0, sizeof t->step_times);
        FC_TRY(train_step(t, step, &l->last_train_loss, &r));
        l->step = s->steps = step + 1;
        l->skips_in_a_row = r.skipped ? l->skips_in_a_row + 1 : 0;
        FC_TRY(trainer_check_step(t, s->steps, r.skipped));
        report_step(t, &r, s, &p, fc_now() - t0 - in_validation);
        int validated = o->val_size && l->step % fc_train_val_check_steps(o) == 0;
        if (validated) {
            double v0 = fc_now();
            FC_TRY(trainer_validation_check(t, &p, &stop));
            t->step_times.seconds[FC_PHASE_VALIDATION] = fc_now() - v0;
            in_validation += fc_now() - v0;
        }
        /* The last step needs no checkpoint: the model file follows at once. */
        int last = l->step == o->max_steps || stop, interrupted = trainer_stop_requested(t) && !last;
        if (interrupted) {
            add_times(&s->phases, &t->step_times);
            fc_progress_done(&p);
            return trainer_stop_with_checkpoint(t, s);
        }
        if (!last && trainer_checkpoint_due(o, l->step, validated)) FC_TRY(trainer_periodic_checkpoint(t, s));
        add_times(&s->phases, &t->step_times);
        if (o->log && o->profile) fc_run_log_profile(o->log, l->step, &t->step_times);
    }
    fc_progress_done(&p);
    s->early_stopped = stop;
    s->step_seconds = fc_now() - t0 - in_validation;
    /* every rank's windows: the job's rate (dist/dist.h) */
    size_t job_windows = windows_per_step(o) * (size_t)t->ranks;
    s->windows_per_second = (double)((s->steps - s->start_step) * job_windows) / s->step_seconds;
    return FC_OK;
}

/* Continues from o->resume_path: model, optimizer, sampler and loop state. */
static fc_status resume(trainer *t, fc_train_summary *s) {
    fc_checkpoint_ref ref = trainer_checkpoint_ref(t);
    FC_TRY(fc_checkpoint_read(&ref, t->o->resume_path));
    fc_window_sampler_seek(&t->sampler, t->loop.sampler_epoch, t->loop.sampler_cursor);
    t->have_next = 0;
    fc_window_sampler_position(&t->sampler, &t->drawn_epoch, &t->drawn_cursor);
    s->start_step = s->steps = t->loop.step;
    if (t->o->log) fc_run_log_resume(t->o->log, t->loop.step, t->o->resume_path);
    return FC_OK;
}

fc_status fc_train(fc_forecaster *f, const fc_dataset *ds, const fc_train_options *o, fc_train_summary *s) {
    double start = fc_now();
    memset(s, 0, sizeof *s);
    s->best_val_loss = NAN;
    s->last_grad_norm = NAN;
    FC_TRY(trainer_check_options(o, &f->model->cfg));
    fc_dataset own;   /* alone, a shard trains on its own series (a rank's timing trials) */
    if (o->alone && ds->shards > 1) own = fc_dataset_own_view(ds), ds = &own;
    trainer t = {.f = f, .ds = ds, .o = o, .loop = {.best_val_loss = NAN}, .rank = o->alone ? 0 : fc_dist_rank(),
                 .ranks = o->alone ? 1 : fc_dist_size(), .sharded = ds->shards > 1};
    fc_status st = trainer_init(&t);
    if (st == FC_OK && o->resume_path) st = resume(&t, s);
    if (st == FC_OK) st = run_steps(&t, s);
    fc_model *m = f->model;
    s->last_train_loss = t.loop.last_train_loss;
    s->best_val_loss = t.loop.best_val_loss;
    s->best_step = t.loop.best_step;
    /* keep the best validated weights (also when stopped: --out gets the best so far) */
    if ((st == FC_OK || st == FC_ERR_INTERRUPTED) && t.best && !isnan(s->best_val_loss))
        m->be->axpby_rows(m->be, m->params, m->n_state, 1.0f, t.best, m->n_state, 0.0f, 1, m->n_state);
    f->steps_trained = s->steps;
    f->seed = o->seed;
    m->be->sync(m->be);   /* the last step's kernels, then whether any failed */
    if (st == FC_OK) st = m->be->status(m->be);
    trainer_free(&t);
    s->seconds = fc_now() - start;
    return st;
}
