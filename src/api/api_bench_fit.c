/* fcast_bench_fit: a whole fit on a panel file, as a user runs one
 * (`fcast bench fit`). Per precision: the file read as `fcast train` reads
 * it, the configuration trained with the last h points of every series
 * held out (cross-validation's single origin: train/cross_validation.h),
 * those points forecast and scored (MAE), each part timed on the wall
 * clock; the neuralforecast side in api_bench_nf.c. Figures, not pass or
 * fail: compare the ratios taken in the same run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/api_bench.h"
#include "backend/cpu/cpu_backend.h"
#include "core/error.h"
#include "train/cross_validation.h"
#include "core/clock.h"

void fcast_bench_fit_defaults(fcast_bench_fit_request *r) {
    *r = (fcast_bench_fit_request){.data = "data/monthly_classics.csv", .python = "python3",
                                   .nf_script = "python/bench_nf_fit_holdout.py"};
}

/* The fit callback's context: the training, and what it reports. */
typedef struct {
    fc_cv_training *t;
    fc_train_summary sum;
    double train_seconds;
} fit_ctx;

static fc_status fit(void *ctx, const fc_dataset *ds, size_t test_size, fc_forecaster *f) {
    fit_ctx *x = ctx;
    double t0 = fc_now();
    fc_status st = fc_cv_fit(x->t, ds, test_size, f, &x->sum);
    x->train_seconds = fc_now() - t0;
    return st;
}

/* MAE of output 0 over the held-out points that were observed. */
static double held_out_mae(const fc_dataset *ds, const fc_cv_origin *o, size_t n, const float *fc, size_t h,
                           size_t width, size_t *points) {
    double sum = 0;
    *points = 0;
    for (size_t k = 0; k < n; k++) {
        size_t at = ds->offsets[o[k].series] + (size_t)o[k].cutoff + 1;
        size_t outputs = width / h;
        for (size_t t = 0; t < h; t++) {
            if (!ds->mask[at + t]) continue;
            sum += fabs((double)fc[k * width + t * outputs] - ds->y[at + t]);
            (*points)++;
        }
    }
    return *points ? sum / (double)*points : NAN;
}

/* One precision: train with the tail held out, forecast it, score it. */
static fc_status run_precision(fc_cv_training *t, const fc_dataset *ds, fc_precision prec, fcast_bench_fit_report *rep,
                               fcast_bench_fit_run *row) {
    fc_cv_spec cv = {t->cfg.h, 1, t->cfg.h, 0};
    fc_cv_origin *origins = fc_malloc(ds->n_series * sizeof *origins, "bench fit origins");
    if (!origins) return FC_ERR_MEMORY;
    size_t n = fc_cv_origins(ds, &cv, origins), width = 0;
    float *fc = NULL;
    fit_ctx x = {.t = t};
    t->o.precision = prec;
    double t0 = fc_now();
    fc_status st = n ? fc_cross_validate(ds, &cv, origins, n, fit, &x, &fc, &width)
                     : fc_error(FC_ERR_INVALID, "no series is longer than h = %zu, the points held out", t->cfg.h);
    double total = fc_now() - t0;
    if (st == FC_OK) {
        row->train_seconds = x.train_seconds;
        row->predict_seconds = total - x.train_seconds;
        row->windows_per_second = (double)(x.sum.steps * t->o.windows_batch_size * t->o.grad_accum) / x.train_seconds;
        row->mae = held_out_mae(ds, origins, n, fc, t->cfg.h, width, &rep->held_out);
        for (int p = 0; p < FC_PHASE_COUNT; p++) row->phase_seconds[p] = x.sum.phases.seconds[p];
        rep->steps = x.sum.steps;
    }
    free(fc);
    free(origins);
    return st;
}

static fc_status check_request(const fcast_config *c, const fcast_bench_fit_request *r) {
    if (!c || !r || !r->data || !r->python || !r->nf_script)
        return fc_error(FC_ERR_INVALID, "fcast_bench_fit: a configuration, and a request with data, python and "
                        "nf_script (fcast_bench_fit_defaults), are needed");
    if (c->run.auto_batch)
        return fc_error(FC_ERR_INVALID, "--windows-batch-size auto: give a number, so that both sides train the "
                        "same windows per step");
    /* both go into a shell command line between single quotes */
    if (strchr(r->python, '\'') || strchr(r->nf_script, '\'') || strchr(r->data, '\''))
        return fc_error(FC_ERR_INVALID, "--python, --nf-script and --data must not contain a single quote");
    return FC_OK;
}

static void describe(const fcast_config *c, const fc_cv_training *t, const fc_dataset *ds, fcast_bench_fit_report *rep) {
    snprintf(rep->device, sizeof rep->device, "%s", strcmp(t->be->name, "cuda") ? "cpu" : "cuda");
    rep->threads = t->be->threads;
    snprintf(rep->model, sizeof rep->model, "%s", c->model_name ? c->model_name : "?");
    snprintf(rep->freq, sizeof rep->freq, "%s", ds->freq.name);
    rep->n_series = ds->n_series;
    rep->n_points = ds->n_rows;
    rep->h = t->cfg.h;
    rep->input_size = t->cfg.input_size;
    rep->windows_batch_size = t->o.windows_batch_size;
}

static fc_status bench_fit(const fcast_config *c, const fcast_bench_fit_request *r, fcast_bench_fit_report *out,
                           fc_cv_training *t, fcast_data **data) {
    fc_precision precs[FCAST_BENCH_MAX_RUNS];
    size_t n = 0;
    FC_TRY(check_request(c, r));
    if (r->precisions) FC_TRY(fc_bench_parse_precisions(r->precisions, precs, &n));
    *t = (fc_cv_training){.o = c->train, .scaler = c->scaler, .memory_limit = c->run.memory_limit};
    FC_TRY(fc_api_resolve(c, &t->cfg, &t->loss));
    t->o.verbose = 0;
    FC_TRY(fc_api_backend_open(c->run.device, c->threads > 0 ? (size_t)c->threads : 0, r->verbose, &t->be));
    int gpu = !strcmp(t->be->name, "cuda");
    if (!r->precisions) FC_TRY(fc_bench_parse_precisions(gpu ? "fp32,bf16,fp16" : "fp32,bf16", precs, &n));
    for (size_t i = 0; i < n; i++) {
        fcast_bench_fit_run *row = &out->runs[i];
        row->precision = fc_precision_name(precs[i]);
        row->kernel = fc_bench_kernel_name(gpu, fc_backend_cpu_uses_amx(), precs[i]);
        out->n_runs = i + 1;
        if (r->verbose) fprintf(stderr, "%s: reading %s, training, forecasting the last h points\n", row->precision, r->data);
        double t0 = fc_now();   /* read for every run: each is a whole fit */
        fcast_data_free(*data);
        *data = NULL;
        FC_TRY(fc_api_data_open(c, r->data, data));
        row->load_seconds = fc_now() - t0;
        describe(c, t, (*data)->ds, out);
        FC_TRY(run_precision(t, (*data)->ds, precs[i], out, row));
        if (r->vs_neuralforecast) fc_bench_nf_fit(c, r, out, row);
    }
    return FC_OK;
}

fc_status fcast_bench_fit(const fcast_config *c, const fcast_bench_fit_request *r, fcast_bench_fit_report *out) {
    if (!out) return fc_error(FC_ERR_INVALID, "fcast_bench_fit: out is needed");
    memset(out, 0, sizeof *out);
    fc_cv_training t = {0};
    fcast_data *data = NULL;
    fc_status st = bench_fit(c, r, out, &t, &data);
    fcast_data_free(data);
    fc_backend_destroy(&t.be);
    return fc_api_words(st);
}
