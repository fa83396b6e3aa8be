/* fcast_model: training, prediction and model files through the library
 * (fcast.h), on the same code `fcast train` and `fcast predict` run: a
 * forecaster on its own backend (auto: GPU 0 when one is usable, else the
 * CPU), trained by fc_train, saved and read as the CLI's model files. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/error.h"
#include "io/model_file.h"
#include "models/model_kinds.h"
#include "train/exog_bind.h"

/* How the library's messages name the exogenous inputs. */
const fc_exog_words FC_API_EXOG_WORDS = {"futr-exog", "hist-exog", "stat-exog",
                                         "the future values (fcast_predict_future's future)",
                                         "fcast_data_set_static"};

fc_status fc_api_open_backend(int threads, fc_backend **be) {
    char note[256];
    return fc_backend_create(NULL, threads, be, note, sizeof note);
}

static fcast_model *new_model(void) {
    fcast_model *m = calloc(1, sizeof *m);
    if (!m) fc_error(FC_ERR_MEMORY, "fcast_model: out of memory");
    return m;
}

void fcast_model_free(fcast_model *m) {
    if (!m) return;
    fc_forecaster_free(&m->f);
    fc_backend_destroy(&m->be);
    free(m);
}

fc_status fc_api_resolve(const fcast_config *c, fc_model_config *cfg) {
    *cfg = c->model;
    FC_TRY(fc_arch_apply(&c->arch, cfg));
    FC_TRY(fc_loss_check(&c->loss, cfg->input_size, "loss"));
    cfg->n_outputs = fc_loss_n_outputs(&c->loss);
    return fc_model_config_check(cfg);
}

/* fc_train_options' on_step, forwarded to the caller's callback. */
static void on_step(void *user, size_t step, size_t max_steps, double loss) {
    const fc_api_progress *h = user;
    h->fn(h->user, step, max_steps, loss);
}

void fc_api_watch(fc_train_options *o, fc_api_progress *hook, const volatile int *cancel) {
    _Static_assert(sizeof(sig_atomic_t) == sizeof(int), "the cancel flag is the trainer's stop flag");
    o->stop_requested = (const volatile sig_atomic_t *)cancel;
    o->on_step = hook->fn ? on_step : NULL;
    o->on_step_user = hook;
}

fc_status fcast_train(const fcast_config *c, const fcast_data *d, fcast_progress_fn progress, void *user,
                      const volatile int *cancel, fcast_model **out) {
    if (!c || !d || !d->ds || !out) return fc_error(FC_ERR_INVALID, "fcast_train: config, data and out are needed");
    *out = NULL;
    fc_model_config cfg;
    FC_TRY(fc_api_resolve(c, &cfg));
    fc_train_options o = c->train;
    fc_api_progress hook = {progress, user};
    fc_api_watch(&o, &hook, cancel);
    FC_TRY(fc_exog_check_columns(&cfg, d->ds, &FC_API_EXOG_WORDS));
    FC_TRY(fc_train_check(d->ds, &cfg, &o));
    fcast_model *m = new_model();
    if (!m) return FC_ERR_MEMORY;
    m->f = (fc_forecaster){.scaler = c->scaler, .loss = c->loss, .ds_kind = d->ds->ds_kind, .freq = d->ds->freq};
    fc_train_summary sum;
    fc_status st = fc_api_open_backend(c->threads, &m->be);
    if (st == FC_OK) st = fc_model_create(&cfg, m->be, &m->f.model);
    if (st == FC_OK) st = fc_model_init_params(m->f.model, o.seed);
    if (st == FC_OK) st = fc_train(&m->f, d->ds, &o, &sum);
    if (st != FC_OK && st != FC_ERR_INTERRUPTED) {
        fcast_model_free(m);
        return st;
    }
    fc_api_name_outputs(m);
    *out = m;   /* interrupted: the model so far, with the status that says so */
    return st;
}

void fc_api_name_outputs(fcast_model *m) {
    for (size_t k = 0; k < m->f.model->cfg.n_outputs && k < FC_MAX_QUANTILES; k++)
        fc_loss_output_name(&m->f.loss, k, m->output_names[k]);
}

size_t fcast_model_h(const fcast_model *m) { return m && m->f.model ? m->f.model->cfg.h : 0; }
size_t fcast_model_input_size(const fcast_model *m) { return m && m->f.model ? m->f.model->cfg.input_size : 0; }
size_t fcast_model_outputs(const fcast_model *m) { return m && m->f.model ? m->f.model->cfg.n_outputs : 0; }
const char *fcast_model_kind(const fcast_model *m) {
    return m && m->f.model ? fc_model_kind_name(m->f.model->cfg.kind) : NULL;
}

const char *fcast_model_output_name(const fcast_model *m, size_t k) {
    return k < fcast_model_outputs(m) ? m->output_names[k] : NULL;
}

const char *fcast_model_exog(const fcast_model *m, fcast_exog_kind kind, size_t i) {
    if (!m || !m->f.model) return NULL;
    const fc_model_config *c = &m->f.model->cfg;
    const fc_exog_list *l = kind == FCAST_EXOG_FUTURE ? &c->futr_exog
                          : kind == FCAST_EXOG_HISTORIC ? &c->hist_exog
                          : kind == FCAST_EXOG_STATIC ? &c->stat_exog : NULL;
    return l && i < (size_t)l->n ? l->name[i] : NULL;
}

/* Forecasts from history, extended by the future values when the model
 * reads future-known columns. The handle is const to the caller, not to
 * the backend: prediction reserves room in the model. */
static fc_status forecast(const fcast_model *m, fc_dataset *history, const fc_dataset *future, float *out) {
    fc_forecaster *f = (fc_forecaster *)&m->f;
    const fc_model_config *cfg = &f->model->cfg;
    FC_TRY(fc_exog_check_columns(cfg, history, &FC_API_EXOG_WORDS));
    if (!cfg->futr_exog.n) return fc_predict(f, history, out);
    if (!future)
        return fc_error(FC_ERR_INVALID, "fcast_predict: the model reads future-known columns ('%s'%s): give their "
                        "values over the horizon with fcast_predict_future", cfg->futr_exog.name[0],
                        cfg->futr_exog.n > 1 ? ", ..." : "");
    fc_dataset *ext = NULL;
    FC_TRY(fc_exog_extend(cfg, history, future, cfg->h, &FC_API_EXOG_WORDS, &ext));
    fc_status st = fc_predict_before(f, ext, cfg->h, out);
    fc_dataset_free(&ext);
    return st;
}

fc_status fcast_predict_future(const fcast_model *m, const fcast_data *history, const fcast_data *future, float *out,
                               size_t capacity) {
    if (!m || !m->f.model || !history || !history->ds || !out || (future && !future->ds))
        return fc_error(FC_ERR_INVALID, "fcast_predict: model, data and out are needed");
    const fc_model_config *cfg = &m->f.model->cfg;
    size_t need = history->ds->n_series * cfg->h * cfg->n_outputs;
    if (capacity < need)
        return fc_error(FC_ERR_INVALID, "fcast_predict: out holds %zu floats; %zu series x h %zu x %zu outputs "
                        "need %zu", capacity, history->ds->n_series, cfg->h, cfg->n_outputs, need);
    return forecast(m, history->ds, future ? future->ds : NULL, out);
}

fc_status fcast_predict(const fcast_model *m, const fcast_data *d, float *out, size_t capacity) {
    return fcast_predict_future(m, d, NULL, out, capacity);
}

fc_status fcast_model_save(const fcast_model *m, const char *path) {
    if (!m || !m->f.model || !path) return fc_error(FC_ERR_INVALID, "fcast_model_save: model and path are needed");
    return fc_forecaster_save(&m->f, path);
}

fc_status fcast_model_load(const char *path, fcast_model **out) {
    if (!path || !out) return fc_error(FC_ERR_INVALID, "fcast_model_load: path and out are needed");
    *out = NULL;
    fcast_model *m = new_model();
    if (!m) return FC_ERR_MEMORY;
    fc_status st = fc_api_open_backend(0, &m->be);
    if (st == FC_OK) st = fc_forecaster_load(path, m->be, &m->f);
    if (st == FC_OK) fc_api_name_outputs(m);
    if (st != FC_OK) {
        fcast_model_free(m);
        return st;
    }
    *out = m;
    return FC_OK;
}
