/* fcast cv: cross-validation as neuralforecast's NeuralForecast.
 * cross_validation, for one or several architectures side by side
 * (--model nhits,nbeats), written as its output CSV (io/cv_csv.h). */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "core/error.h"
#include "cv_run.h"
#include "device_choice.h"
#include "io/cv_csv.h"
#include "io/output_path.h"

static const char *SUMMARY =
    "Cross-validate one or several models (--model nhits,nbeats) over n-windows forecast origins per series,\n"
    "as neuralforecast's cross_validation: writes unique_id, ds, cutoff, <models>, y.";

static fc_status write_output(const cv_flags *a, const cv_result *r, const fc_dataset *ds) {
    fc_cv_columns cols[CV_MAX_MODELS];
    for (size_t i = 0; i < r->n_models; i++)
        cols[i] = (fc_cv_columns){r->m[i].name, r->m[i].su.cfg.n_outputs, r->m[i].suffixes, r->m[i].values};
    return fc_cv_write_csv(a->t.out, ds, r->origins, r->n_origins, r->m[0].su.cfg.h, cols, r->n_models);
}

static int cross_validate(const cv_flags *a) {
    cv_result r;
    memset(&r, 0, sizeof r);
    int rc = cv_resolve_models("cv", a, &r);
    if (rc) return rc;
    fc_backend *be = NULL;
    fc_dataset *ds = NULL;
    const fc_input_path inputs[] = {{"--data", a->t.data}};
    fc_status st = fc_output_check("--out", a->t.out, 1, inputs, 1);   /* before any work */
    if (st == FC_OK) st = device_backend_open(a->t.device, a->t.threads, a->t.quiet, &be);
    if (st == FC_OK) be->tf32 = a->t.tf32;   /* as fcast train: each fit is train's */
    if (st == FC_OK) st = train_flags_load_data(&a->t, &r.m[0].su, &(fc_data_choice){0}, &ds);
    if (st == FC_OK) st = cv_run(a, ds, be, &r);
    if (st == FC_OK) st = write_output(a, &r, ds);
    if (st == FC_OK && !a->t.quiet)
        fprintf(stderr, "%zu forecast origins x %zu steps of %zu model%s written to %s\n", r.n_origins,
                r.m[0].su.cfg.h, r.n_models, r.n_models > 1 ? "s" : "",
                strcmp(a->t.out, "-") ? a->t.out : "standard output");
    rc = st == FC_OK ? CLI_EXIT_OK : cli_fail("cv");
    cv_result_free(&r);
    fc_dataset_free(&ds);
    fc_backend_destroy(&be);
    return rc;
}

int cmd_cv(int argc, char **argv, int first) {
    cv_flags a;
    arg_spec specs[FC_TRAIN_MAX_SPECS];
    cv_flags_init(&a, specs, 1);
    int rc = args_parse("cv", SUMMARY, specs, argc, argv, first);
    if (rc) return args_exit(rc);
    return cross_validate(&a);
}
