/* The training loop: sample windows, scale, forward, masked loss, backward,
 * Adam with StepLR, validation and early stopping, with neuralforecast's
 * semantics (common/_base_model.py). An optimizer step may gather the
 * gradients of several micro-batches (--grad-accum) and runs through
 * optimizer.c (loss scaling, clipping, Adam). Every buffer is allocated
 * before the first step; the step loop allocates nothing. */
#include <math.h>
#include <string.h>

#include "core/error.h"
#include "train/batch.h"
#include "train/forecaster.h"
#include "train/optimizer.h"
#include "train/progress.h"

/* Windows per step beyond this are a typo: refused before any sizing. */
#define FC_MAX_WINDOWS_BATCH ((size_t)1 << 20)
#define FC_MAX_GRAD_ACCUM 4096
/* fp16: this many skipped steps in a row means the forward pass itself
 * overflows (the loss scale is down to 2^-14), which no scale can fix. */
#define FC_MAX_CONSECUTIVE_SKIPS 30
#define FC_FP16_ADVICE "values exceed fp16's range (65504); scale the data (--scaler standard) or use --precision bf16"

typedef struct {
    fc_forecaster *f;
    const fc_dataset *ds;
    const fc_train_options *o;
    fc_window_spec spec;
    fc_window_sampler sampler;
    fc_batch batch;
    fc_window *windows;        /* grad_accum * windows_batch_size per optimizer step */
    fc_optimizer opt;
    float *best;
    fc_runner validator;
    size_t lr_decay_steps;
} trainer;

/* Windows one optimizer step trains on: K micro-batches of W. */
static size_t windows_per_step(const fc_train_options *o) { return o->windows_batch_size * o->grad_accum; }

static fc_window_spec spec_of(const fc_model_config *c, const fc_train_options *o) {
    return (fc_window_spec){c->input_size, c->h, o->step_size, o->val_size, o->min_in_frac, o->min_out_frac};
}

/* StepLR(step_size = max(max_steps // num_lr_decays, 1), gamma = 0.5),
 * stepped after every optimizer step. */
static double learning_rate_at(const trainer *t, size_t step) {
    return t->o->learning_rate * pow(0.5, (double)(step / t->lr_decay_steps));
}

static fc_status check_options(const fc_train_options *o, const fc_model_config *c) {
    if (o->max_steps < 1) return fc_error(FC_ERR_INVALID, "--max-steps must be >= 1");
    if (o->batch_size < 1) return fc_error(FC_ERR_INVALID, "--batch-size must be >= 1");
    if (o->windows_batch_size < 1) return fc_error(FC_ERR_INVALID, "--windows-batch-size must be >= 1");
    if (!(o->learning_rate > 0) || !isfinite(o->learning_rate))
        return fc_error(FC_ERR_INVALID, "--lr must be a finite number > 0");
    if (o->windows_batch_size > FC_MAX_WINDOWS_BATCH || o->batch_size > FC_MAX_WINDOWS_BATCH)
        return fc_error(FC_ERR_INVALID, "--windows-batch-size and --batch-size must be at most %zu", FC_MAX_WINDOWS_BATCH);
    if (o->val_size && o->val_size < c->h)
        return fc_error(FC_ERR_INVALID, "--val-size %zu is shorter than the horizon h = %zu", o->val_size, c->h);
    if (o->early_stop_patience > 0 && !o->val_size)
        return fc_error(FC_ERR_INVALID, "--early-stop-patience needs a validation set (--val-size)");
    if (o->val_size && o->val_check_steps < 1) return fc_error(FC_ERR_INVALID, "--val-check-steps must be >= 1");
    if (o->min_in_frac < 0 || o->min_in_frac > 1 || o->min_out_frac < 0 || o->min_out_frac > 1)
        return fc_error(FC_ERR_INVALID, "availability thresholds must be between 0 and 1");
    if (o->grad_accum < 1 || o->grad_accum > FC_MAX_GRAD_ACCUM)
        return fc_error(FC_ERR_INVALID, "--grad-accum must be between 1 and %d", FC_MAX_GRAD_ACCUM);
    if (o->windows_batch_size * o->grad_accum > FC_MAX_WINDOWS_BATCH)
        return fc_error(FC_ERR_INVALID, "--grad-accum %zu x --windows-batch-size %zu is more than %zu windows "
                        "per step", o->grad_accum, o->windows_batch_size, FC_MAX_WINDOWS_BATCH);
    if (!(o->clip_grad_norm >= 0) || !isfinite(o->clip_grad_norm))
        return fc_error(FC_ERR_INVALID, "--clip-grad-norm must be a finite number >= 0 (0: off)");
    if ((unsigned)o->precision >= FC_PREC_COUNT)
        return fc_error(FC_ERR_INVALID, "unknown precision %d", (int)o->precision);
    return FC_OK;
}

static void trainer_free(trainer *t) {
    fc_backend *be = t->f->model->be;
    fc_window_sampler_free(&t->sampler);
    fc_batch_free(&t->batch);
    fc_validator_free(&t->validator);
    free(t->windows);
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
    t->spec = spec_of(&m->cfg, o);
    t->lr_decay_steps = o->num_lr_decays > 0 ? o->max_steps / (size_t)o->num_lr_decays : (size_t)1 << 62;
    if (t->lr_decay_steps < 1) t->lr_decay_steps = 1;
    /* the sampler draws the whole effective batch; micro-batches are slices of it */
    FC_TRY(fc_window_sampler_init(&t->sampler, t->ds, &t->spec, o->batch_size, per_step, o->seed));
    FC_TRY(fc_batch_init(&t->batch, be, W, m->cfg.input_size, m->cfg.h));
    FC_TRY(fc_model_set_precision(m, o->precision));
    FC_TRY(fc_model_reserve(m, W, 1));
    FC_TRY(fc_optimizer_init(&t->opt, m, o->precision == FC_PREC_FP16, o->clip_grad_norm));
    t->windows = fc_malloc(per_step * sizeof(fc_window), "window indices");
    t->best = o->val_size ? be->alloc(be, m->n_trainable * sizeof(float)) : NULL;
    if (!t->windows || (o->val_size && !t->best)) return FC_ERR_MEMORY;
    return o->val_size ? fc_validator_init(&t->validator, t->f, t->ds, &t->spec) : FC_OK;
}

/* Forward, loss and backward of one micro-batch; gradients accumulate. The
 * loss gradient carries the loss scale and the 1/K of accumulation. */
static fc_status micro_batch(trainer *t, const fc_window *windows, float grad_scale, double *loss) {
    fc_model *m = t->f->model;
    fc_batch *b = &t->batch;
    size_t W = t->o->windows_batch_size;
    fc_batch_load(b, t->ds, &t->spec, windows, W, 0, t->f->scaler);
    FC_TRY(fc_model_forward(m, b->d_forecast, b->d_in_y, b->d_in_mask, W));
    m->be->masked_loss(m->be, loss, b->d_grad, grad_scale, b->d_forecast, b->d_out_y, b->d_out_mask,
                       W * m->cfg.h, (int)t->f->loss);
    return fc_model_backward(m, b->d_grad, W);
}

/* One optimizer step on a freshly sampled batch of grad_accum micro-batches;
 * the training loss is their mean (each micro-batch's loss divided by K, as
 * torch's accumulation recipe). */
static fc_status train_step(trainer *t, size_t step, double *loss, fc_step_report *r) {
    fc_model *m = t->f->model;
    size_t K = t->o->grad_accum, W = t->o->windows_batch_size;
    float grad_scale = fc_optimizer_loss_scale(&t->opt) / (float)K;
    fc_window_sampler_next(&t->sampler, step, t->windows);
    m->be->fill(m->be, m->grads, 0.0f, m->n_trainable);
    *loss = 0.0;
    for (size_t k = 0; k < K; k++) {
        double micro;
        FC_TRY(micro_batch(t, t->windows + k * W, grad_scale, &micro));
        *loss += micro / (double)K;
    }
    return fc_optimizer_step(&t->opt, m, (float)learning_rate_at(t, step), r);
}

/* Validation with early-stopping bookkeeping; sets *stop when patience ran out. */
static fc_status validation_check(trainer *t, size_t step, fc_train_summary *s, long *bad_checks,
                                  fc_progress *p, int *stop) {
    fc_model *m = t->f->model;
    double v;
    FC_TRY(fc_validator_run(&t->validator, t->f, t->ds, &t->spec, &v));
    /* A non-finite loss never counts as an improvement (Lightning's check_finite). */
    int improved = isfinite(v) && (isnan(s->best_val_loss) || v < s->best_val_loss);
    if (improved) {
        s->best_val_loss = v;
        s->best_step = step;
        *bad_checks = 0;
        m->be->axpby_rows(m->be, t->best, m->n_trainable, 1.0f, m->params, m->n_trainable, 0.0f, 1, m->n_trainable);
    } else {
        (*bad_checks)++;
    }
    fc_progress_validation(p, step, v, improved);
    *stop = t->o->early_stop_patience > 0 && *bad_checks >= t->o->early_stop_patience;
    return FC_OK;
}

/* The log line of a step, and the summary's running figures. */
static void report_step(trainer *t, size_t step, const fc_step_report *r, fc_train_summary *s,
                        fc_progress *p, double elapsed) {
    const fc_loss_scaler *sc = &t->opt.scaler;
    s->skipped_steps = sc->skipped;
    s->loss_scale = sc->enabled ? sc->scale : 0.0f;
    s->last_grad_norm = r->grad_norm;
    if (r->skipped) fc_progress_skip(p, s->steps, sc->scale);
    fc_step_status st = {s->steps, s->last_train_loss, learning_rate_at(t, step),
                         (double)(s->steps * windows_per_step(t->o)) / elapsed,
                         s->loss_scale, s->skipped_steps, r->grad_norm};
    fc_progress_step(p, &st);
}

static fc_status run_steps(trainer *t, fc_train_summary *s) {
    const fc_train_options *o = t->o;
    fc_progress p;
    long bad_checks = 0, skips_in_a_row = 0;
    int stop = 0;
    fc_progress_init(&p, o->verbose, o->max_steps);
    double t0 = fc_now(), in_validation = 0.0;
    for (size_t step = 0; step < o->max_steps && !stop; step++) {
        fc_step_report r;
        FC_TRY(train_step(t, step, &s->last_train_loss, &r));
        s->steps = step + 1;
        if (!isfinite(s->last_train_loss) && o->precision == FC_PREC_FP16)
            return fc_error(FC_ERR_INVALID, "fp16: the forward pass overflowed at step %zu (loss %g): "
                            FC_FP16_ADVICE, s->steps, s->last_train_loss);
        if (!isfinite(s->last_train_loss))
            return fc_error(FC_ERR_INVALID, "training diverged at step %zu: the loss is %g; lower --lr (%g) "
                            "or scale the data (--scaler standard)", s->steps, s->last_train_loss, o->learning_rate);
        report_step(t, step, &r, s, &p, fc_now() - t0 - in_validation);
        skips_in_a_row = r.skipped ? skips_in_a_row + 1 : 0;
        if (skips_in_a_row >= FC_MAX_CONSECUTIVE_SKIPS)
            return fc_error(FC_ERR_INVALID, "fp16: %ld steps in a row had inf/NaN gradients (loss scale now %g): "
                            FC_FP16_ADVICE, skips_in_a_row, (double)t->opt.scaler.scale);
        if (o->val_size && s->steps % o->val_check_steps == 0) {
            double v0 = fc_now();
            FC_TRY(validation_check(t, s->steps, s, &bad_checks, &p, &stop));
            in_validation += fc_now() - v0;
        }
    }
    fc_progress_done(&p);
    s->early_stopped = stop;
    s->step_seconds = fc_now() - t0 - in_validation;
    s->windows_per_second = (double)(s->steps * windows_per_step(o)) / s->step_seconds;
    return FC_OK;
}

fc_status fc_train_check(const fc_dataset *ds, const fc_model_config *c, const fc_train_options *o) {
    FC_TRY(check_options(o, c));
    fc_window_spec spec = spec_of(c, o);
    size_t longest;
    return fc_windows_check(ds, &spec, &longest);
}

fc_status fc_train(fc_forecaster *f, const fc_dataset *ds, const fc_train_options *o, fc_train_summary *s) {
    double start = fc_now();
    memset(s, 0, sizeof *s);
    s->best_val_loss = NAN;
    s->last_grad_norm = NAN;
    FC_TRY(check_options(o, &f->model->cfg));
    trainer t = {.f = f, .ds = ds, .o = o};
    fc_status st = trainer_init(&t);
    if (st == FC_OK) st = run_steps(&t, s);
    fc_model *m = f->model;
    if (st == FC_OK && t.best && !isnan(s->best_val_loss))   /* keep the best validated weights */
        m->be->axpby_rows(m->be, m->params, m->n_trainable, 1.0f, t.best, m->n_trainable, 0.0f, 1, m->n_trainable);
    f->steps_trained = s->steps;
    f->seed = o->seed;
    trainer_free(&t);
    s->seconds = fc_now() - start;
    return st;
}
