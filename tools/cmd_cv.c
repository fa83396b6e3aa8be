/* fcast cv: cross-validation as neuralforecast's NeuralForecast.
 * cross_validation, for one or several architectures side by side
 * (--model nhits,nbeats), written as its output CSV, through the library
 * (fcast.h) alone: a configuration per model from train's flags, and
 * fcast_cross_validate_file. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "cv_run.h"
#include "job_progress.h"

static const char *SUMMARY =
    "Cross-validate one or several models (--model nhits,nbeats) over n-windows forecast origins per series,\n"
    "as neuralforecast's cross_validation: writes unique_id, ds, cutoff, <models>, y.";

static int cross_validate(cv_flags *a, const arg_spec *specs) {
    fcast_config *configs[CV_MAX_MODELS];
    size_t n = 0;
    int rc = cv_configs("cv", a, specs, configs, &n);
    if (rc) return rc;
    fcast_cv_report r;
    a->q.out = *train_flags_text(&a->t, "out");
    job_progress p;   /* under mpirun each rank trains a share: the job's progress is no one's to tell */
    job_progress_init(&p, "cv", "training", n * cv_trainings_per_model(&a->q), a->t.quiet || fcast_job_size() > 1);
    p.unit_is_training = 1;
    fc_status st = fcast_cross_validate_file((const fcast_config *const *)configs, n, a->t.data, &a->q,
                                             job_progress_on_step, &p, NULL, &r);
    if (st == FC_OK) job_progress_finish(&p);
    if (st == FC_OK && !a->t.quiet && fcast_job_rank() == 0)   /* under mpirun, the writer says it */
        fprintf(stderr, "%zu forecast origins x %zu steps of %zu model%s written to %s\n", r.origins, r.h, r.models,
                r.models > 1 ? "s" : "", strcmp(a->q.out, "-") ? a->q.out : "standard output");
    rc = st == FC_OK ? CLI_EXIT_OK : cli_fail("cv");
    cv_configs_free(configs, n);
    return rc;
}

int cmd_cv(int argc, char **argv, int first) {
    cv_flags a;
    arg_spec specs[FC_TRAIN_MAX_SPECS];
    cv_flags_init(&a, specs, 1);
    int rc = args_parse("cv", SUMMARY, specs, argc, argv, first);
    if (rc) return args_exit(rc);
    return cross_validate(&a, specs);
}
