/* Cross-validation runs from train's flags (see cv_run.h). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cv_run.h"

/* train's flags as the configuration sees them: cv's own flags cut off
 * and --out (the CSV, not a model file) left out. */
static void train_part(const cv_flags *a, const arg_spec *specs, arg_spec out[FC_TRAIN_MAX_SPECS]) {
    memcpy(out, specs, FC_TRAIN_MAX_SPECS * sizeof *out);
    memset(out + a->n_train_specs, 0, sizeof *out);
    for (arg_spec *s = out; s->name; s++)
        if (!strcmp(s->name, "out")) s->seen = 0;
}

size_t cv_trainings_per_model(const fcast_cv_request *q) {
    size_t every = q->refit ? q->refit : q->n_windows;
    return every ? (q->n_windows + every - 1) / every : 0;
}

void cv_configs_free(fcast_config *c[CV_MAX_MODELS], size_t n) {
    for (size_t i = 0; i < n; i++) fcast_config_free(c[i]);
}

/* --model a,b,c: each made with the same flags. */
int cv_configs(const char *command, const cv_flags *a, const arg_spec *specs, fcast_config *out[CV_MAX_MODELS],
               size_t *n) {
    static const char *const renamed[] = {"train-step-size", "step-size", NULL};
    arg_spec train[FC_TRAIN_MAX_SPECS];
    char list[256];
    *n = 0;
    if (strlen(a->t.model) >= sizeof list)
        return cli_refuse(command, CLI_EXIT_USAGE, "--model '%s' is too long", a->t.model);
    strcpy(list, a->t.model);
    train_part(a, specs, train);
    int rc = 0;
    for (char *save = NULL, *name = strtok_r(list, ",", &save); !rc && name; name = strtok_r(NULL, ",", &save)) {
        if (*n == CV_MAX_MODELS) {
            rc = cli_refuse(command, CLI_EXIT_USAGE, "at most %d models in one run", CV_MAX_MODELS);
            break;
        }
        train_flags one = a->t;
        one.model = name;
        if ((rc = train_flags_config(command, &one, train, renamed, &out[*n]))) break;
        (*n)++;
        const char *wbs = *train_flags_text(&a->t, "windows-batch-size");
        if (wbs && !strcmp(wbs, "auto"))   /* the library refuses it too; for the CLI, a usage error */
            rc = cli_refuse(command, CLI_EXIT_USAGE, "--windows-batch-size auto is for fcast train; give a number");
    }
    if (!rc && !*n)
        rc = cli_refuse(command, CLI_EXIT_USAGE, "--model needs at least one of nhits, nbeats, mlp, nbeatsx, lstm, tide");
    if (rc) {
        cv_configs_free(out, *n);
        *n = 0;
    }
    return rc;
}

/* train's table, with --out required (the CSV), --model taking a list,
 * the training windows' step renamed (--step-size is the cutoffs' step,
 * as neuralforecast's cross_validation(step_size=...)), and cv's flags. */
void cv_flags_init(cv_flags *a, arg_spec specs[FC_TRAIN_MAX_SPECS], int required_out) {
    a->q = (fcast_cv_request){.n_windows = 1, .step_size = 1, .refit = 0};
    train_flags_init(&a->t, specs, 0);
    for (a->n_train_specs = 0; specs[a->n_train_specs].name;) a->n_train_specs++;
    arg_spec *out = args_find(specs, "out", 3), *model = args_find(specs, "model", 5);
    arg_spec *step = args_find(specs, "step-size", 9);
    out->required = required_out;
    out->help = "cross-validation CSV to write (unique_id, ds, cutoff, <models>, y); - for standard output";
    static char help[512];
    snprintf(help, sizeof help, "%s, or several separated by commas (nhits,nbeats): columns side by side",
             train_flags_model_kinds(" | "));
    model->help = help;
    step->name = "train-step-size";
    step->help = "distance between training windows (1)";
    arg_spec extra[] = {
        {"n-windows", ARG_SIZE, &a->q.n_windows, "N", "forecast origins per series (1)", 0, 0},
        {"step-size", ARG_SIZE, &a->q.step_size, "N", "points between consecutive origins (1)", 0, 0},
        {"refit", ARG_SIZE, &a->q.refit, "K", "0: train once on all but the last h + step-size x (n-windows - 1) points; "
                                              "K: train a fresh model every K windows on the data up to its cutoff (0)", 0, 0},
    };
    args_append(specs, FC_TRAIN_MAX_SPECS, extra, sizeof extra / sizeof *extra);
}
