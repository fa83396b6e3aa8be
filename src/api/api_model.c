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

/* The backend a library call computes on. */
static fc_status open_backend(int threads, fc_backend **be) {
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

/* The model configuration c describes: its architecture options applied
 * and checked, its outputs those of its loss. */
static fc_status resolve(const fcast_config *c, fc_model_config *cfg) {
    *cfg = c->model;
    FC_TRY(fc_arch_apply(&c->arch, cfg));
    FC_TRY(fc_loss_check(&c->loss, cfg->input_size, "loss"));
    cfg->n_outputs = fc_loss_n_outputs(&c->loss);
    return fc_model_config_check(cfg);
}

/* fc_train_options' on_step, forwarded to the caller's callback. */
typedef struct {
    fcast_progress_fn fn;
    void *user;
} progress_hook;

static void on_step(void *user, size_t step, size_t max_steps, double loss) {
    const progress_hook *h = user;
    h->fn(h->user, step, max_steps, loss);
}

fc_status fcast_train(const fcast_config *c, const fcast_data *d, fcast_progress_fn progress, void *user,
                      const volatile int *cancel, fcast_model **out) {
    if (!c || !d || !d->ds || !out) return fc_error(FC_ERR_INVALID, "fcast_train: config, data and out are needed");
    *out = NULL;
    fc_model_config cfg;
    FC_TRY(resolve(c, &cfg));
    fc_train_options o = c->train;
    progress_hook hook = {progress, user};
    _Static_assert(sizeof(sig_atomic_t) == sizeof(int), "the cancel flag is the trainer's stop flag");
    o.stop_requested = (const volatile sig_atomic_t *)cancel;
    o.on_step = progress ? on_step : NULL;
    o.on_step_user = &hook;
    FC_TRY(fc_train_check(d->ds, &cfg, &o));
    fcast_model *m = new_model();
    if (!m) return FC_ERR_MEMORY;
    m->f = (fc_forecaster){.scaler = c->scaler, .loss = c->loss, .ds_kind = d->ds->ds_kind, .freq = d->ds->freq};
    fc_train_summary sum;
    fc_status st = open_backend(c->threads, &m->be);
    if (st == FC_OK) st = fc_model_create(&cfg, m->be, &m->f.model);
    if (st == FC_OK) st = fc_model_init_params(m->f.model, o.seed);
    if (st == FC_OK) st = fc_train(&m->f, d->ds, &o, &sum);
    if (st != FC_OK && st != FC_ERR_INTERRUPTED) {
        fcast_model_free(m);
        return st;
    }
    *out = m;   /* interrupted: the model so far, with the status that says so */
    return st;
}

size_t fcast_model_h(const fcast_model *m) { return m && m->f.model ? m->f.model->cfg.h : 0; }
size_t fcast_model_outputs(const fcast_model *m) { return m && m->f.model ? m->f.model->cfg.n_outputs : 0; }

fc_status fcast_predict(const fcast_model *m, const fcast_data *d, float *out, size_t capacity) {
    if (!m || !m->f.model || !d || !d->ds || !out)
        return fc_error(FC_ERR_INVALID, "fcast_predict: model, data and out are needed");
    const fc_model_config *cfg = &m->f.model->cfg;
    if (fc_model_has_exog(cfg))
        return fc_error(FC_ERR_INVALID, "fcast_predict: the model reads exogenous inputs, which the library does not "
                        "pass yet (fcast predict --futr-data does)");
    size_t need = d->ds->n_series * cfg->h * cfg->n_outputs;
    if (capacity < need)
        return fc_error(FC_ERR_INVALID, "fcast_predict: out holds %zu floats; %zu series x h %zu x %zu outputs "
                        "need %zu", capacity, d->ds->n_series, cfg->h, cfg->n_outputs, need);
    /* prediction reserves room in the model: the handle is const to the caller, not to the backend */
    return fc_predict((fc_forecaster *)&m->f, d->ds, out);
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
    fc_status st = open_backend(0, &m->be);
    if (st == FC_OK) st = fc_forecaster_load(path, m->be, &m->f);
    if (st != FC_OK) {
        fcast_model_free(m);
        return st;
    }
    *out = m;
    return FC_OK;
}
