/* The configurations of a cross-validation side by side (api_cv_run.h):
 * each resolved to its training, and named as neuralforecast names the
 * columns of several models. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_cv_run.h"
#include "core/error.h"

/* Column names as neuralforecast's _get_model_names: the class name, with
 * 1, 2, ... appended to its second, third, ... occurrence; a model's
 * outputs suffixed as its loss names them. */
void fc_api_cv_name_models(fc_api_cv_run *r) {
    fc_api_cv_model *m = r->m;
    size_t n = r->n_models;
    for (size_t i = 0; i < n; i++) {
        const char *base = fc_model_kind_name(m[i].t.cfg.kind);
        size_t before = 0;
        for (size_t j = 0; j < i; j++) before += m[j].t.cfg.kind == m[i].t.cfg.kind;
        if (before) snprintf(m[i].name, sizeof m[i].name, "%s%zu", base, before);
        else snprintf(m[i].name, sizeof m[i].name, "%s", base);
        size_t Q = fc_loss_forecast_width(&m[i].t.loss, m[i].t.cfg.n_outputs);
        for (size_t q = 0; q < FC_MAX_QUANTILES + 1; q++) {
            m[i].suffix_text[q][0] = 0;
            if (Q > 1 && q < Q) fc_loss_output_name(&m[i].t.loss, q, m[i].suffix_text[q]);
            m[i].suffixes[q] = m[i].suffix_text[q];
        }
        if (Q == 1 && fc_loss_kind_is_one_quantile(m[i].t.loss.kind))
            fc_loss_output_name(&m[i].t.loss, 0, m[i].suffix_text[0]);
    }
}

/* A configuration's training, quiet: the run says one line per fit. */
static fc_status resolve(const fcast_config *c, fc_cv_training *t) {
    if (!c) return fc_error(FC_ERR_INVALID, "a configuration of the cross-validation is NULL");
    if (c->run.auto_batch)
        return fc_error(FC_ERR_INVALID, "--windows-batch-size auto is for fcast train; give a number");
    *t = (fc_cv_training){.o = c->train, .scaler = c->scaler, .memory_limit = c->run.memory_limit};
    FC_TRY(fc_api_resolve(c, &t->cfg, &t->loss));
    t->o.verbose = 0;
    return FC_OK;
}

fc_status fc_api_cv_models(const fcast_config *const *configs, size_t n, fc_api_cv_run *r) {
    if (!configs || !n) return fc_error(FC_ERR_INVALID, "a cross-validation needs at least one configuration");
    if (!(r->m = calloc(n, sizeof *r->m))) return fc_error(FC_ERR_MEMORY, "cross-validation: out of memory");
    for (; r->n_models < n; r->n_models++) FC_TRY(resolve(configs[r->n_models], &r->m[r->n_models].t));
    r->parallel = configs[0]->run.parallel;
    fc_api_cv_name_models(r);
    return FC_OK;
}

void fc_api_cv_run_free(fc_api_cv_run *r) {
    for (size_t i = 0; r->m && i < r->n_models; i++) free(r->m[i].values);
    free(r->m);
    free(r->origins);
    memset(r, 0, sizeof *r);
}
