/* fcast_cross_validate_file: `fcast cv` as one call (fcast.h): the CSV
 * checked before any work, the device and the file as the first
 * configuration says, every configuration cross-validated on the panel
 * (api_cv_run.h), and neuralforecast's cross_validation CSV written.
 * Under mpirun the ranks share the trainings and rank 0 writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_cv_run.h"
#include "core/error.h"
#include "dist/dist.h"
#include "dist/dist_grads.h"
#include "train/cv_csv.h"
#include "api/output_path.h"

static fc_status write_csv(const char *out, const fc_api_cv_run *r, const fc_dataset *ds) {
    fc_cv_columns *cols = fc_malloc(r->n_models * sizeof *cols, "cross-validation columns");
    if (!cols) return FC_ERR_MEMORY;
    for (size_t i = 0; i < r->n_models; i++)
        cols[i] = (fc_cv_columns){r->m[i].name, fc_loss_forecast_width(&r->m[i].t.loss, r->m[i].t.cfg.n_outputs),
                                  r->m[i].suffixes, r->m[i].values};
    fc_status st = fc_cv_write_csv(out, ds, r->origins, r->n_origins, r->spec.h, cols, r->n_models);
    free(cols);
    return st;
}

typedef struct {
    const fcast_config *const *configs;
    size_t n_configs;
    const char *path;
    const fcast_cv_request *q;
    fc_api_cv_run r;
    fc_backend *be;
    fcast_data *d;
} cv_file_run;

/* The run's operations keys are the first configuration's. */
static fc_status run(cv_file_run *x, const volatile int *cancel) {
    const fc_path_use files[] = {
        {"--data", x->path, FCAST_PATH_IN, 0, NULL},
        {"--stat-exog-file", x->configs[0]->run.stat_file, FCAST_PATH_IN, 0, NULL},
        {"--out", x->q->out, FCAST_PATH_OUT_STDOUT, 0, NULL},
    };
    FC_TRY(fc_dist_start());   /* started by mpirun: join its job */
    int writes = fc_dist_rank() == 0;
    FC_TRY(fc_api_cv_models(x->configs, x->n_configs, &x->r));
    if (writes) FC_TRY(fc_paths_check(files, sizeof files / sizeof *files));   /* before any work */
    const fcast_config *c = x->configs[0];
    x->r.verbose = c->run.verbose;
    FC_TRY(fc_api_backend_open(c->run.device, (size_t)c->threads, c->run.verbose && writes, &x->be));
    FC_TRY(fc_dist_device_join(x->be, 0));   /* in a job, one kind of device for every rank's trainings */
    x->be->tf32 = c->run.tf32;   /* as fcast train: each fit is train's */
    FC_TRY(fc_api_data_open(c, x->path, &x->d));
    x->r.spec = (fc_cv_spec){0, x->q->n_windows, x->q->step_size, x->q->refit};
    FC_TRY(fc_api_cv_forecast(&x->r, x->d->ds, x->be, cancel));
    return writes ? write_csv(x->q->out, &x->r, x->d->ds) : FC_OK;
}

static fc_status cross_validate_file(const fcast_config *const *configs, size_t n_configs, const char *data_path,
                                     const fcast_cv_request *q, fcast_progress_fn progress, void *user,
                                     const volatile int *cancel, fcast_cv_report *report) {
    if (report) memset(report, 0, sizeof *report);
    if (!configs || !n_configs || !data_path || !q || !q->out)
        return fc_error(FC_ERR_INVALID, "fcast_cross_validate_file: configs, data_path and the request's out are needed");
    cv_file_run x = {configs, n_configs, data_path, q, {.hook = {progress, user}}, NULL, NULL};
    fc_status st = fc_api_job_failed(run(&x, cancel), 1);
    if (st == FC_OK && report)
        *report = (fcast_cv_report){x.r.n_origins, x.r.spec.h, x.r.n_models, x.r.fits};
    fc_api_cv_run_free(&x.r);
    fcast_data_free(x.d);
    fc_backend_destroy(&x.be);
    return st;
}

fc_status fcast_cross_validate_file(const fcast_config *const *configs, size_t n_configs, const char *data_path,
                                    const fcast_cv_request *request, fcast_progress_fn progress, void *user,
                                    const volatile int *cancel, fcast_cv_report *report) {
    return fc_api_words(cross_validate_file(configs, n_configs, data_path, request, progress, user, cancel, report));
}
