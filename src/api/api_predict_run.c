/* fcast_predict_files: a forecast over files as `fcast predict` runs it,
 * for every caller (the CLI is one): the values and the output checked
 * before any work, the device, the models side by side, the history read
 * as the memory limit allows, the exogenous inputs, the memory plans, the
 * future ds, the warnings about the inputs, and the forecast CSV. Under
 * mpirun every rank forecasts its part of the series and rank 0 alone
 * speaks and writes (docs/distributed.md). */
#include <stdlib.h>
#include <string.h>

#include "api/api_predict.h"
#include "api/api_predict_exog.h"
#include "core/error.h"
#include "data/freq.h"
#include "dist/dist.h"
#include "dist/dist_grads.h"
#include "eval/evaluate.h"
#include "api/output_path.h"
#include "train/memory_plan.h"

typedef struct {
    const fcast_predict_request *q;
    size_t limit;                 /* memory_limit, in bytes; 0: none */
    fc_data_store mode;
    fc_backend *be;
    fc_predict_run *run;
    fc_dataset *ds, *ext;         /* the history; with the future values appended */
} predict_call;

/* The values of the request's texts, and the output, checked before any
 * work: a forecast that cannot be written fails in a second. */
static fc_status check_request(predict_call *c) {
    const fcast_predict_request *q = c->q;
    FC_TRY(fc_memory_limit_parse(q->memory_limit, &c->limit));
    FC_TRY(fc_data_store_parse(q->data_store, &c->mode));
    const fc_path_use files[] = {
        {"--model", q->model, FCAST_PATH_IN, 1, NULL},   /* several models: a comma-separated list */
        {"--data", q->data, FCAST_PATH_IN, 0, NULL},
        {"--futr-data", q->futr_data, FCAST_PATH_IN, 0, NULL},
        {"--stat-exog-file", q->stat_exog_file, FCAST_PATH_IN, 0, NULL},
        {"--out", q->out, FCAST_PATH_OUT_STDOUT, 0, NULL},
    };
    if (fc_dist_rank() == 0) FC_TRY(fc_paths_check(files, sizeof files / sizeof *files));   /* the writer's */
    if (q->level) FC_TRY(fc_levels_parse(q->level, "--level", c->run->levels, &c->run->n_levels));
    return FC_OK;
}

/* The exogenous lists every model reads, merged. */
static void exog_union(const fc_predict_run *r, fc_model_config *u) {
    memset(u, 0, sizeof *u);
    for (size_t i = 0; i < r->n_models; i++) fc_predict_exog_union_add(u, &r->m[i].f.model->cfg);
}

/* The history on the first model's time axis, with the columns the models
 * read (lo: as fc_data_choose chose to hold it), and their exogenous
 * inputs prepared on it. */
static fc_status read_history(predict_call *c, fc_load_options *lo) {
    const fcast_predict_request *q = c->q;
    const fc_forecaster *f = &c->run->m[0].f;
    fc_model_config u;
    exog_union(c->run, &u);
    lo->drop_exog = !fc_predict_exog_keeps_columns(&u);
    FC_TRY(fc_load_history(f, q->data, lo, &c->ds));
    fc_predict_exog_files files = {q->data, q->stat_exog_file, q->futr_data};
    return fc_predict_exog_prepare(&files, &u, f->model->cfg.h, c->ds, &c->ext);
}

/* Refuses a forecast whose memory plan passes the limit (data whose
 * loading alone would is refused before loading, by fc_data_choose). */
static fc_status check_plans(const predict_call *c) {
    for (size_t i = 0; i < c->run->n_models; i++) {
        fc_memory_plan p;
        FC_TRY(fc_memory_plan_predict(c->run->m[i].f.model, c->ds, c->be, &p));   /* a plan that fails, fails */
        if (c->limit && p.total > c->limit) return fc_memory_plan_refusal(&p, c->limit, FC_PLAN_NO_BATCH_ADVICE);
    }
    return FC_OK;
}

static fc_status run(predict_call *c) {
    const fcast_predict_request *q = c->q;
    FC_TRY(fc_dist_start());   /* started by mpirun: join its job */
    int speaks = fc_dist_rank() == 0;
    FC_TRY(check_request(c));
    c->run->members = q->members;
    FC_TRY(fc_api_backend_open(q->device, q->threads, speaks, &c->be));
    FC_TRY(fc_dist_device_join(c->be, 0));   /* in a job, one kind of device for every rank's part */
    fc_load_options lo = {.drop_exog = 1, .store_dir = q->store_dir};
    fc_data_choice choice;
    FC_TRY(fc_data_choose(q->data, &lo, c->mode, c->limit, &choice));
    if (speaks) fc_data_choice_print(&choice, &lo, c->limit, stderr);
    FC_TRY(fc_predict_load_models(c->run, q->model, c->be));
    FC_TRY(read_history(c, &lo));
    FC_TRY(check_plans(c));
    const fc_forecaster *f = &c->run->m[0].f;
    FC_TRY(fc_freq_check_future(c->ds, &f->freq, f->model->cfg.h));   /* every future ds writable */
    if (speaks) fc_predict_warn_inputs(c->run, c->ds);
    FC_TRY(fc_predict_forecast_all(c->run, c->ds, c->ext));
    return speaks ? fc_predict_write(c->run, q->out, c->ds) : FC_OK;
}

static fc_status predict_files(const fcast_predict_request *q, fcast_predict_summary *summary) {
    if (!q || !q->model || !q->data || !q->out)
        return fc_error(FC_ERR_INVALID, "fcast_predict_files: the request, its model, data and out are needed");
    predict_call c = {.q = q, .run = calloc(1, sizeof *c.run)};
    fc_status st = fc_api_job_failed(c.run ? run(&c) : fc_error(FC_ERR_MEMORY, "out of memory"), 1);
    if (st == FC_OK && summary)
        *summary = (fcast_predict_summary){c.ds->n_series, c.run->m[0].f.model->cfg.h, c.run->n_files};
    fc_predict_run_free(c.run);
    fc_dataset_free(&c.ds);
    fc_dataset_free(&c.ext);
    fc_backend_destroy(&c.be);
    return st;
}

fc_status fcast_predict_files(const fcast_predict_request *r, fcast_predict_summary *summary) {
    return fc_api_words(predict_files(r, summary));
}
