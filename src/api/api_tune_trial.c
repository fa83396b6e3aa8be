/* One trial of a search (api_tune.h): its values sampled, its
 * configuration from the caller, the library's cross-validation of it
 * (api_cv_run.h, the one fcast_cross_validate_file runs) and its score
 * over every forecast point (tune/trial_score.h), logged. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/api_cv_run.h"
#include "api/api_tune.h"
#include "core/error.h"
#include "core/clock.h"

/* The trial refused: the current message, in the caller's words, says why. */
static void skip(fc_api_tune_trial *r, fc_status st) {
    fc_api_words(st);
    r->status = "skipped";
    snprintf(r->error, sizeof r->error, "%s", fc_last_error());
}

static fc_status sample(const fcast_tune *t, size_t i, fc_api_tune_trial *r) {
    if (t->random) fc_tune_sample_random(&t->space, t->seed, i, r->x);
    else FC_TRY(fc_tune_sample_tpe(&t->space, &t->hist, t->seed, i, r->x));
    for (size_t j = 0; j < t->space.n; j++) {
        r->x[j] = fc_param_snap(&t->space.params[j], r->x[j]);
        fc_param_text(&t->space.params[j], r->x[j], r->text[j]);
    }
    return FC_OK;
}

/* The score of the forecasts of cr's one model. */
static void score(const fcast_tune *t, const fc_api_cv_run *cr, fc_api_tune_trial *r) {
    const fc_api_cv_model *m = &cr->m[0];
    size_t width = fc_loss_forecast_width(&m->t.loss, m->t.cfg.n_outputs);
    fc_score_spec spec = {t->metric, t->q.metric_season, m->t.cfg.h, width,
                          fc_tune_point_output(&m->t.loss)};
    fc_status st = fc_tune_score(t->d->ds, cr->origins, cr->n_origins, m->values, &spec, &r->score, &r->points);
    if (st != FC_OK) skip(r, st);
    else r->status = isfinite(r->score) ? "ok" : "diverged";
}

/* The cross-validation of c on be and its score; over the memory limit,
 * or refused as invalid (too short a series), the trial is skipped.
 * hook NULL: no step reports (trials side by side: their steps would mix),
 * and the trial's trainings one at a time on be (the batch is the pool). */
static fc_status evaluate(const fcast_tune *t, const fcast_config *c, fc_backend *be, const fc_api_progress *hook,
                          fc_api_tune_trial *r, const volatile int *cancel) {
    const fcast_cv_request *w = &t->q.cv;
    fc_api_cv_run cr = {.spec = {0, w->n_windows, w->step_size, w->refit}, .hook = hook ? *hook : (fc_api_progress){0}};
    fc_status st = fc_api_cv_models(&c, 1, &cr);
    if (!hook) cr.parallel = 1;
    if (st == FC_OK) st = fc_api_cv_forecast(&cr, t->d->ds, be, cancel);
    if (st == FC_OK) score(t, &cr, r);
    else if (st == FC_ERR_MEMORY || st == FC_ERR_INVALID) skip(r, st);
    fc_api_cv_run_free(&cr);
    if (st == FC_ERR_MEMORY || st == FC_ERR_INVALID) st = FC_OK;
    if (st == FC_OK) fc_error_clear();
    return st;
}

static fc_status log_trial(const fcast_tune *t, size_t i) {
    const fc_api_tune_trial *r = t->trials[i];
    const char *names[FC_TUNE_MAX_PARAMS];
    for (size_t j = 0; j < t->space.n; j++) names[j] = t->space.params[j].name;
    fc_trial_record rec = {i, r->status, fc_tune_metric_name(t->metric), r->error[0] ? r->error : NULL, r->score,
                           r->seconds, r->points, t->space.n, names, r->values, t->types};
    return fc_trial_log_trial(t->log, t->q.log, &rec);
}

fc_status fc_api_tune_prepare_trial(fcast_tune *t, const fcast_tune_callbacks *cb, size_t i, fcast_config **c) {
    fc_api_tune_trial *r = t->trials[i];
    memset(r, 0, sizeof *r);
    r->score = NAN;
    *c = NULL;
    for (size_t j = 0; j < t->space.n; j++) r->values[j] = r->text[j];
    FC_TRY(sample(t, i, r));
    r->started = fc_now();
    fc_status st = fc_api_tune_config(t, cb, r->text, c);
    if (st == FC_ERR_INVALID) {
        skip(r, st);
        fcast_config_free(*c);
        *c = NULL;
    } else if (st != FC_OK) {
        return st;
    }
    fc_error_clear();
    return FC_OK;
}

fc_status fc_api_tune_evaluate_trial(const fcast_tune *t, const fcast_tune_callbacks *cb, size_t i,
                                     const fcast_config *c, fc_backend *be, int alone, const volatile int *cancel) {
    fc_api_tune_trial *r = t->trials[i];
    fc_api_progress hook = {cb->progress, cb->user};
    fc_status st = c ? evaluate(t, c, be, alone ? &hook : NULL, r, cancel) : FC_OK;   /* no c: skipped */
    if (st != FC_OK && st != FC_ERR_INVALID) return st;
    fc_error_clear();
    r->seconds = fc_now() - r->started;
    return FC_OK;
}

fc_status fc_api_tune_record_trial(fcast_tune *t, const fcast_tune_callbacks *cb, size_t i) {
    fc_api_tune_trial *r = t->trials[i];
    t->n_trials++;
    FC_TRY(fc_tune_history_add(&t->hist, r->x, r->score, !strcmp(r->status, "ok")));
    if (t->log) FC_TRY(log_trial(t, i));
    if (cb->trial) cb->trial(cb->user, t, i);
    return FC_OK;
}
