/* fcast_model: training, prediction and model files through the library
 * (fcast.h), on the same code `fcast train` and `fcast predict` run: a
 * forecaster on its own backend (auto: GPU 0 when one is usable, else the
 * CPU), trained by fc_train, saved and read as the CLI's model files. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/error.h"
#include "train/iq_forecast.h"
#include "train/model_file.h"
#include "models/model_kinds.h"
#include "train/exog_bind.h"
#include "train/forecast_columns.h"

/* How the library's messages name the exogenous inputs: by key and
 * function, or, for the CLI, by flag. */
const fc_exog_words *fc_api_exog_words(void) {
    static const fc_exog_words keys = {"futr-exog", "hist-exog", "stat-exog",
                                       "the future values (fcast_predict_future's future)", "fcast_data_set_static"};
    static const fc_exog_words flags = {"--futr-exog", "--hist-exog", "--stat-exog", "--futr-data",
                                        "--stat-exog-file"};
    return fc_api_names_flags() ? &flags : &keys;
}

fcast_model *fc_api_new_model(void) {
    fcast_model *m = calloc(1, sizeof *m);
    if (!m) fc_error(FC_ERR_MEMORY, "fcast_model: out of memory");
    return m;
}

void fcast_model_free(fcast_model *m) {
    if (!m) return;
    fc_forecaster_free(&m->f);
    fc_backend_destroy(&m->be);
    free(m->checkpoint);
    free(m->model_file);
    free(m->run_config);
    free(m);
}

fc_status fc_api_resolve(const fcast_config *c, fc_model_config *cfg, fc_loss_spec *loss) {
    *cfg = c->model;
    if (c->run.stat_file && !cfg->stat_exog.n)   /* a static file alone: all of its columns */
        FC_TRY(fc_exog_static_columns(c->run.stat_file, "--stat-exog", &cfg->stat_exog));   /* fc_api_words' */
    FC_TRY(fc_arch_apply(&c->arch, cfg));
    FC_TRY(fc_loss_from_texts(c->loss_kind, &c->loss_texts, cfg->input_size, loss));
    if (c->train.valid_loss >= 0 && fc_loss_kind_is_multi_quantile(loss->kind))
        return fc_error(FC_ERR_INVALID, "--valid-loss %s with --loss %s: a model of several quantiles is validated "
                        "with its own loss (neuralforecast requires MQLoss or HuberMQLoss as its valid_loss)",
                        fc_loss_kind_name(c->train.valid_loss), fc_loss_name(*loss));
    if (c->train.valid_loss >= 0 && loss->kind == FC_LOSS_IQ)
        return fc_error(FC_ERR_INVALID, "--valid-loss %s with --loss iq: neuralforecast requires IQLoss as its "
                        "valid_loss", fc_loss_kind_name(c->train.valid_loss));
    if (c->scaler == FC_SCALER_REVIN && fc_loss_kind_is_distribution(loss->kind))
        return fc_error(FC_ERR_INVALID, "--scaler revin with --loss %s: RevIN's learned bias and weight train through "
                        "the likelihood's scale decoupling there, which fcast does not have; use --scaler standard "
                        "(revin equals it for the point and quantile losses, whose loss is on the scaled data)",
                        fc_loss_name(*loss));
    cfg->n_outputs = fc_loss_n_outputs(loss);
    fc_loss_head(loss, cfg);
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

void fc_api_name_outputs(fcast_model *m) {
    for (size_t k = 0; k < fc_forecast_width(&m->f) && k < FC_MAX_QUANTILES + 1; k++)
        fc_loss_output_name(&m->f.loss, k, m->output_names[k]);
}

size_t fcast_model_h(const fcast_model *m) { return m && m->f.model ? m->f.model->cfg.h : 0; }
size_t fcast_model_input_size(const fcast_model *m) { return m && m->f.model ? m->f.model->cfg.input_size : 0; }
size_t fcast_model_outputs(const fcast_model *m) { return m && m->f.model ? fc_forecast_width(&m->f) : 0; }
int fcast_config_model_kind(size_t i, fcast_kind_info *out) {
    const fc_model_kind_ops *row = i < FC_MODEL_KIND_COUNT ? fc_model_kind_row((fc_model_kind)i) : NULL;
    if (!row || !out) return 0;
    *out = (fcast_kind_info){row->flag_name, row->name};
    return 1;
}

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
    FC_TRY(fc_exog_check_columns(cfg, history, fc_api_exog_words()));
    if (!cfg->futr_exog.n) return fc_predict(f, history, out);
    if (!future)
        return fc_error(FC_ERR_INVALID, "fcast_predict: the model reads future-known columns ('%s'%s): give their "
                        "values over the horizon with fcast_predict_future", cfg->futr_exog.name[0],
                        cfg->futr_exog.n > 1 ? ", ..." : "");
    fc_dataset *ext = NULL;
    FC_TRY(fc_exog_extend(cfg, history, future, cfg->h, fc_api_exog_words(), &ext));
    fc_status st = fc_predict_before(f, ext, cfg->h, out);
    fc_dataset_free(&ext);
    return st;
}

static fc_status fcast_predict_future_body(const fcast_model *m, const fcast_data *history,
                                           const fcast_data *future, float *out, size_t capacity) {
    if (!m || !m->f.model || !history || !history->ds || !out || (future && !future->ds))
        return fc_error(FC_ERR_INVALID, "fcast_predict: model, data and out are needed");
    const fc_model_config *cfg = &m->f.model->cfg;
    size_t width = fc_forecast_width(&m->f), need = history->ds->n_series * cfg->h * width;
    if (capacity < need)
        return fc_error(FC_ERR_INVALID, "fcast_predict: out holds %zu floats; %zu series x h %zu x %zu outputs "
                        "need %zu", capacity, history->ds->n_series, cfg->h, width, need);
    return forecast(m, history->ds, future ? future->ds : NULL, out);
}

int fcast_model_has_intervals(const fcast_model *m) { return m && m->f.conformal != NULL; }

/* levels into sorted, checked as `fcast predict --level` checks its list. */
static fc_status sorted_levels(const double *levels, size_t n, double *sorted) {
    if (!levels || n > FC_MAX_LEVELS)
        return fc_error(FC_ERR_INVALID, "fcast_predict_levels: 1 to %d levels are needed", FC_MAX_LEVELS);
    for (size_t i = 0; i < n; i++) {
        if (!(levels[i] > 0 && levels[i] < 100))
            return fc_error(FC_ERR_INVALID, "fcast_predict_levels: levels[%zu] = %g is not in (0, 100)", i, levels[i]);
        for (size_t j = 0; j < i; j++)
            if (levels[j] == levels[i])
                return fc_error(FC_ERR_INVALID, "fcast_predict_levels: level %g is given twice", levels[i]);
        sorted[i] = levels[i];
    }
    fc_levels_sort(sorted, n);
    return FC_OK;
}

static fc_status predict_iq_quantiles(const fcast_model *m, const fcast_data *history, const fcast_data *future,
                                      const double *q, size_t n, float *out, size_t capacity);

/* A distribution model's forecast at the levels' quantiles: the mean, then
 * the bounds (fc_loss_draw_levels), in the conformal intervals' layout. */
static fc_status predict_drawn_levels(const fcast_model *m, const fcast_data *history, const fcast_data *future,
                                      const double *sorted, size_t n_levels, float *out, size_t capacity) {
    fcast_model drawn = *m;   /* the forecaster by value: its loss's quantiles are this call's */
    FC_TRY(fc_loss_draw_levels(&drawn.f.loss, sorted, n_levels));
    return fcast_predict_future(&drawn, history, future, out, capacity);
}

static fc_status fcast_predict_levels_body(const fcast_model *m, const fcast_data *history,
                                           const fcast_data *future, const double *levels, size_t n_levels,
                                           float *out, size_t capacity) {
    if (!n_levels) return fcast_predict_future(m, history, future, out, capacity);
    double sorted[FC_MAX_LEVELS];
    FC_TRY(sorted_levels(levels, n_levels, sorted));
    if (fc_loss_kind_is_distribution(m->f.loss.kind)) return predict_drawn_levels(m, history, future, sorted, n_levels,
                                                                                  out, capacity);
    if (m->f.loss.kind == FC_LOSS_IQ) {   /* the levels' bounds, sorted (utils.level_to_quantiles) */
        double q[2 * FC_MAX_LEVELS];
        fc_levels_to_bounds(sorted, n_levels, q);
        if (!history || !history->ds || !out) return fc_error(FC_ERR_INVALID, "fcast_predict: data and out are needed");
        return predict_iq_quantiles(m, history, future, q, 2 * n_levels, out, capacity);
    }
    if (!fcast_model_has_intervals(m))
        return fc_error(FC_ERR_INVALID, "fcast_predict_levels: the model has no conformal intervals (train it with "
                        "prediction-intervals = conformal)");
    if (!history || !history->ds || !out) return fc_error(FC_ERR_INVALID, "fcast_predict: data and out are needed");
    size_t N = history->ds->n_series, h = m->f.model->cfg.h, need = N * h * (1 + 2 * n_levels);
    if (capacity < need)
        return fc_error(FC_ERR_INVALID, "fcast_predict_levels: out holds %zu floats; %zu series x h %zu x %zu "
                        "columns need %zu", capacity, N, h, 1 + 2 * n_levels, need);
    fc_column_set cols;
    FC_TRY(fc_columns_of(&m->f, "model", sorted, n_levels, &cols));
    float *point = malloc(N * h * sizeof *point);
    if (!point) return fc_error(FC_ERR_MEMORY, "fcast_predict_levels: out of memory");
    fc_status st = forecast(m, history->ds, future ? future->ds : NULL, point);
    if (st == FC_OK) st = fc_columns_fill(&m->f, &cols, history->ds, point, sorted, n_levels, out);
    free(point);
    return st;
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
    fcast_model *m = fc_api_new_model();
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

fc_status fcast_predict_future(const fcast_model *m, const fcast_data *history, const fcast_data *future, float *out,
                               size_t capacity) {
    return fc_api_words(fcast_predict_future_body(m, history, future, out, capacity));
}

/* An IQLoss model at quantiles q (sorted, distinct): its forecasts at the
 * 11 quantiles of neuralforecast's grid, then np.quantile of them per
 * point (train/iq_forecast.h); out (n_series, h, n). */
static fc_status predict_iq_quantiles(const fcast_model *m, const fcast_data *history, const fcast_data *future,
                                      const double *q, size_t n, float *out, size_t capacity) {
    size_t points = history->ds->n_series * m->f.model->cfg.h;
    if (capacity < points * n)
        return fc_error(FC_ERR_INVALID, "fcast_predict_quantiles: out holds %zu floats; %zu points x %zu quantiles "
                        "need %zu", capacity, points, n, points * n);
    float *grid = malloc((points ? points : 1) * FC_IQ_GRID_N * sizeof *grid);
    if (!grid) return fc_error(FC_ERR_MEMORY, "fcast_predict_quantiles: out of memory");
    fc_model *model = m->f.model;
    fc_status st = FC_OK;
    for (size_t k = 0; st == FC_OK && k < FC_IQ_GRID_N; k++) {
        model->iq.quantile = FC_IQ_GRID[k];
        st = fcast_predict_future(m, history, future, grid + k * points, points);
    }
    model->iq.quantile = 0.5f;
    if (st == FC_OK) fc_iq_quantiles_of(grid, points, q, n, out);
    free(grid);
    return st;
}

static int by_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantiles in (0, 1), distinct, at most FC_MAX_QUANTILES, drawn sorted. */
static fc_status fcast_predict_quantiles_body(const fcast_model *m, const fcast_data *history,
                                              const fcast_data *future, const double *q, size_t n, float *out,
                                              size_t capacity) {
    if (!m || !m->f.model || !q)
        return fc_error(FC_ERR_INVALID, "fcast_predict_quantiles: model and quantiles are needed");
    if (m->f.loss.kind == FC_LOSS_IQ) {
        fc_loss_spec check = m->f.loss;
        FC_TRY(fc_loss_set_quantiles(&check, q, n, "fcast_predict_quantiles"));   /* each in (0, 1), distinct */
        double sorted[FC_MAX_QUANTILES];
        memcpy(sorted, q, n * sizeof *q);
        qsort(sorted, n, sizeof *sorted, by_double);
        if (!history || !history->ds || !out) return fc_error(FC_ERR_INVALID, "fcast_predict: data and out are needed");
        return predict_iq_quantiles(m, history, future, sorted, n, out, capacity);
    }
    if (!fc_loss_kind_is_distribution(m->f.loss.kind))
        return fc_error(FC_ERR_INVALID, "fcast_predict_quantiles: the model's loss %s forecasts no quantiles on "
                        "request: they come from a distribution loss (normal, studentt, poisson, "
                        "negative-binomial) or iq", fc_loss_name(m->f.loss));
    fcast_model drawn = *m;   /* the forecaster by value: its loss's quantiles are this call's */
    FC_TRY(fc_loss_set_quantiles(&drawn.f.loss, q, n, "fcast_predict_quantiles"));
    return fcast_predict_future(&drawn, history, future, out, capacity);
}

fc_status fcast_predict_quantiles(const fcast_model *m, const fcast_data *history, const fcast_data *future,
                                  const double *q, size_t n, float *out, size_t capacity) {
    return fc_api_words(fcast_predict_quantiles_body(m, history, future, q, n, out, capacity));
}

fc_status fcast_predict_levels(const fcast_model *m, const fcast_data *history, const fcast_data *future,
                               const double *levels, size_t n_levels, float *out, size_t capacity) {
    return fc_api_words(fcast_predict_levels_body(m, history, future, levels, n_levels, out, capacity));
}
