/* A search of fcast_tune_* (fcast.h): the request checked and kept, the
 * space read and typed, and what the search found so far read back. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_tune.h"
#include "core/error.h"
#include "api/output_path.h"

/* The request's values, as the flags of fcast tune check them. */
static fc_status check_request(const fcast_tune_request *q, fc_tune_metric *metric, int *random) {
    const char *sampler = q->sampler ? q->sampler : "tpe", *name = q->metric ? q->metric : "mae";
    if (strcmp(sampler, "tpe") && strcmp(sampler, "random"))
        return fc_error(FC_ERR_INVALID, "--sampler '%s' is not one of tpe, random", sampler);
    if (fc_tune_metric_parse(name, metric))
        return fc_error(FC_ERR_INVALID, "--metric '%s' is not one of mae, mse, rmse, smape, mase", name);
    if (q->trials == 0 || !(q->time_budget >= 0) || q->metric_season == 0)
        return fc_error(FC_ERR_INVALID, "--trials and --metric-season must be at least 1, --time-budget at least 0");
    *random = !strcmp(sampler, "random");
    return FC_OK;
}

/* q's strings that the search reads later, copied. */
static fc_status keep_strings(fcast_tune *t) {
    const char **field[] = {&t->q.data, &t->q.space, &t->q.log};
    for (size_t i = 0; i < 3; i++) {
        if (!*field[i]) continue;
        if (!(t->owned[i] = strdup(*field[i]))) return fc_error(FC_ERR_MEMORY, "fcast_tune_open: out of memory");
        *field[i] = t->owned[i];
    }
    t->q.sampler = t->random ? "random" : "tpe";
    t->q.metric = fc_tune_metric_name(t->metric);
    return FC_OK;
}

static fc_status open_search(const fcast_tune_request *q, fcast_tune **out) {
    if (!q || !out) return fc_error(FC_ERR_INVALID, "fcast_tune_open: request and out are needed");
    *out = NULL;
    fcast_tune *t = calloc(1, sizeof *t);
    if (!t) return fc_error(FC_ERR_MEMORY, "fcast_tune_open: out of memory");
    t->q = *q;
    fc_status st = check_request(q, &t->metric, &t->random);
    if (st == FC_OK) st = keep_strings(t);
    if (st != FC_OK) {
        fcast_tune_free(t);
        return st;
    }
    t->max_trials = q->trials != FCAST_TUNE_TRIALS_DEFAULT ? q->trials : q->time_budget > 0 ? 0 : 10;
    *out = t;
    return FC_OK;
}

fc_status fcast_tune_open(const fcast_tune_request *q, fcast_tune **out) { return fc_api_words(open_search(q, out)); }

static fc_status read_space(fcast_tune *t) {
    if (!t || !t->q.space) return fc_error(FC_ERR_INVALID, "fcast_tune_read_space: a search with a space is needed");
    if (t->space.path) return fc_error(FC_ERR_INVALID, "fcast_tune_read_space: the space has been read");
    const fc_path_use files[] = {
        {"--data", t->q.data, FCAST_PATH_IN, 0, NULL},
        {"--space", t->q.space, FCAST_PATH_IN, 0, NULL},
        {"--log", t->q.log, FCAST_PATH_OUT, 0, NULL},
    };
    FC_TRY(fc_paths_check(files, sizeof files / sizeof *files));
    fc_status st = fc_space_load(t->q.space, &t->space);
    if (st == FC_ERR_IO) fc_error_wrap(st, "--space ");   /* config_yaml speaks of a configuration file */
    if (st == FC_OK) fc_tune_history_init(&t->hist, t->space.n);
    else fc_space_free(&t->space);   /* not read: the search has no space */
    return st;
}

fc_status fcast_tune_read_space(fcast_tune *t) { return fc_api_words(read_space(t)); }

size_t fcast_tune_params(const fcast_tune *t) { return t ? t->space.n : 0; }

const char *fcast_tune_param_name(const fcast_tune *t, size_t j) {
    return t && j < t->space.n ? t->space.params[j].name : NULL;
}

size_t fcast_tune_param_line(const fcast_tune *t, size_t j) {
    return t && j < t->space.n ? t->space.params[j].line : 0;
}

/* An on/off key's choices are true and false. */
static int on_off(const fc_param *p) {
    int ok = p->kind == FC_PARAM_CHOICE;
    for (size_t c = 0; ok && c < p->n_choices; c++)
        ok = !strcmp(p->choices[c], "true") || !strcmp(p->choices[c], "false");
    return ok;
}

static fc_status param_type(fcast_tune *t, size_t j, fcast_tune_type type) {
    if (!t || j >= t->space.n) return fc_error(FC_ERR_INVALID, "fcast_tune_param_type: no parameter %zu", j);
    const fc_param *p = &t->space.params[j];
    const char *word = fc_api_names_flags() ? "flag" : "key";
    if (type == FCAST_TUNE_INT && p->kind != FC_PARAM_INT && p->kind != FC_PARAM_CHOICE)
        return fc_error(FC_ERR_INVALID, "%s:%zu: %s: an integer %s: use int(low, high) or choice(...)",
                        t->space.path, p->line, p->name, word);
    if (type == FCAST_TUNE_BOOL && !on_off(p))
        return fc_error(FC_ERR_INVALID, "%s:%zu: %s: an on/off %s: use choice(true, false)", t->space.path, p->line,
                        p->name, word);
    static const fc_value_type types[] = {FC_VALUE_TEXT, FC_VALUE_INT, FC_VALUE_REAL, FC_VALUE_BOOL};
    if ((unsigned)type >= sizeof types / sizeof *types)
        return fc_error(FC_ERR_INVALID, "fcast_tune_param_type: no type %d", (int)type);
    t->types[j] = types[type];
    return FC_OK;
}

fc_status fcast_tune_param_type(fcast_tune *t, size_t j, fcast_tune_type type) {
    return fc_api_words(param_type(t, j, type));
}

fc_status fcast_tune_summary(const fcast_tune *t, fcast_tune_report *out) {
    if (!t || !out) return fc_error(FC_ERR_INVALID, "fcast_tune_summary: search and out are needed");
    *out = (fcast_tune_report){fc_tune_metric_name(t->metric), t->n_trials, t->max_trials, t->budget_spent, 0, 0};
    for (size_t i = 0; i < t->n_trials; i++) {
        const fc_api_tune_trial *r = t->trials[i];
        if (strcmp(r->status, "ok") || (out->has_best && !(r->score < t->trials[out->best]->score))) continue;
        out->has_best = 1;
        out->best = i;
    }
    return FC_OK;
}

fc_status fcast_tune_trial_get(const fcast_tune *t, size_t i, fcast_tune_trial *out) {
    if (!t || !out || i >= t->n_trials)
        return fc_error(FC_ERR_INVALID, "fcast_tune_trial_get: no trial %zu (%zu run)", i, t ? t->n_trials : 0);
    const fc_api_tune_trial *r = t->trials[i];
    *out = (fcast_tune_trial){r->status, r->error, r->score, r->seconds, r->points, r->values};
    return FC_OK;
}

void fcast_tune_free(fcast_tune *t) {
    if (!t) return;
    if (t->log) fc_trial_log_close(t->log, t->q.log);
    for (size_t i = 0; i < t->cap; i++) free(t->trials ? t->trials[i] : NULL);
    free(t->trials);
    fc_tune_history_free(&t->hist);
    fc_space_free(&t->space);
    fcast_config_free(t->first);
    fcast_data_free(t->d);
    fc_backend_destroy(&t->be);
    for (size_t i = 0; i < 3; i++) free(t->owned[i]);
    free(t);
}
