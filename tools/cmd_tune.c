/* fcast tune: hyperparameter search scored by cross-validation, as
 * neuralforecast's Auto models (AutoNHITS, AutoNBEATS, ... on optuna's
 * TPESampler), through the library (fcast.h) alone: fcast_tune_* samples
 * the space, cross-validates and scores each trial; this file parses the
 * flags, makes each trial's configuration, prints the trials and writes
 * the best one as a config file for fcast train and trains it on all the
 * data. docs/evaluation.md, "Hyperparameter search", says it for users.
 *
 * A trial's flags are text appended to the command line's own (tune's
 * flags removed) and parsed with the same table, so a sampled value is
 * checked exactly as a typed one, and --config works for the fixed part. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "cv_run.h"
#include "job_progress.h"

static const char *SUMMARY =
    "Search hyperparameters (the flags named in --space) by cross-validation, as neuralforecast's Auto models:\n"
    "each trial runs fcast cv with the sampled flags and is scored by --metric over every forecast point.\n"
    "Every other flag is fixed for all trials. --data, --model, --h and --input-size are required, on the\n"
    "command line, in --config or in --space (docs/evaluation.md, \"Hyperparameter search\").";

/* tune's own flags: never passed on to a trial. */
static const char *const TUNE_ONLY[] = {"space", "trials", "time-budget", "sampler", "metric", "metric-season",
                                        "log", "best-config", "out", NULL};

/* Flags a space may not search: where the data comes from and how it is
 * loaded (loaded once for all trials), where the run goes, and the
 * cross-validation itself (the yardstick must be the same for every trial). */
static const char *const NOT_SEARCHED[] = {"data", "freq", "data-store", "store-dir", "memory-limit", "device",
                                           "threads", "parallel", "quiet", "n-windows", "step-size", "refit", NULL};

#define TUNE_MAX_SPECS (FC_TRAIN_MAX_SPECS + 16)

typedef struct {
    cv_flags a;
    fcast_tune_request q;   /* --data and cv's flags copied in after the parse */
    const char *best_config;
} tune_flags;

/* One parse of the table: the flags and the table they were parsed with. */
typedef struct {
    tune_flags f;
    arg_spec specs[TUNE_MAX_SPECS];
} tune_parse;

typedef struct {
    tune_parse base;          /* the command line's */
    char **argv;              /* the command line without tune's flags */
    int argc;
    int searching;            /* the space probed: trials now */
    job_progress job;         /* trials done of all, elapsed and ETA */
    int rc;                   /* the exit code a trial's flags stopped the search with (printed) */
    fcast_tune *t;
} tune_run;

static int listed(const char *name, const char *const *list) {
    for (; *list; list++)
        if (!strcmp(name, *list)) return 1;
    return 0;
}

/* cv's table (train's flags, --train-step-size, cv's own) and tune's.
 * `required`: keep train's required flags (a trial's parse); the command
 * line's parse drops them, since the space may supply them. */
static void tune_table(tune_parse *p, int required) {
    tune_flags *f = &p->f;
    fcast_tune_request *q = &f->q;
    arg_spec *specs = p->specs;
    memset(p, 0, sizeof *p);
    q->sampler = "tpe";
    q->metric = "mae";
    q->trials = FCAST_TUNE_TRIALS_DEFAULT;
    q->metric_season = 1;
    cv_flags_init(&f->a, specs, 0);
    arg_spec extra[] = {
        {"space", ARG_IN, &q->space, "FILE", "search space: YAML, flag: distribution (docs/evaluation.md)", 0, 0},
        {"trials", ARG_SIZE, &q->trials, "N", "trials to run (10; no limit with --time-budget alone)", 0, 0},
        {"time-budget", ARG_DOUBLE, &q->time_budget, "SECONDS", "start no trial after this long (a trial started "
                                                                "finishes; 0 = none)", 0, 0},
        {"sampler", ARG_STR, &q->sampler, "NAME", "tpe | random (tpe: optuna's TPESampler, univariate)", 0, 0},
        {"metric", ARG_STR, &q->metric, "NAME", "score minimised: mae | mse | rmse | smape | mase over all forecast "
                                                "points of the cross-validation (mae)", 0, 0},
        {"metric-season", ARG_SIZE, &q->metric_season, "M", "mase: seasonality of the naive error that scales it (1)",
         0, 0},
        {"log", ARG_OUT, &q->log, "FILE", "append every trial to this JSON Lines file", 0, 0},
        {"best-config", ARG_OUT, &f->best_config, "FILE", "write the best trial's flags as a config file for "
                                                          "fcast train --config", 0, 0},
    };
    args_append(specs, TUNE_MAX_SPECS, extra, sizeof extra / sizeof *extra);
    for (arg_spec *s = specs; s->name; s++) {
        if (!required) s->required = 0;
        if (!strcmp(s->name, "out"))
            s->help = "train the best trial's configuration on all the data into this model file";
        if (!strcmp(s->name, "model")) s->help = "nhits | nbeats | mlp | nbeatsx | lstm | tide (one; several: model: choice(...) in the space)";
    }
}

/* ---- The command line without tune's flags, and a trial's argv ---- */

/* argv[first..) without tune's own flags (and their values); the command
 * line has been parsed, so every item is a flag known to the table. */
static int strip_tune_flags(tune_run *r, int argc, char **argv, int first) {
    if (!(r->argv = calloc((size_t)argc + 1, sizeof *r->argv))) return CLI_EXIT_MEMORY;
    for (int i = first; i < argc; i++) {
        const char *name = argv[i] + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        arg_spec *s = args_find(r->base.specs, name, len);
        int takes_value = !eq && (s ? s->kind != ARG_FLAG : !strcmp(name, "config"));
        int drop = s && listed(s->name, TUNE_ONLY);
        if (!drop) r->argv[r->argc++] = argv[i];
        if (takes_value && i + 1 < argc) {
            i++;
            if (!drop) r->argv[r->argc++] = argv[i];
        }
    }
    return 0;
}

typedef struct {
    char **argv;
    int argc;
    char **own;   /* the trial's "--flag=value" items */
    size_t n_own;
} trial_args;

static void trial_args_free(trial_args *t) {
    for (size_t j = 0; t->own && j < t->n_own; j++) free(t->own[j]);
    free(t->argv);
    free(t->own);
    memset(t, 0, sizeof *t);
}

static int is_on_off(const tune_run *r, const char *name) {
    arg_spec *s = args_find((arg_spec *)r->base.specs, name, strlen(name));
    return s && s->kind == ARG_FLAG;
}

/* The command line's flags, then the trial's ("--flag=value"; an on/off
 * flag alone when true, absent when false). */
static int trial_args_make(const tune_run *r, const char *const *keys, const char *const *values, size_t n,
                           trial_args *t) {
    t->argv = calloc((size_t)r->argc + n + 1, sizeof *t->argv);
    t->own = calloc(n ? n : 1, sizeof *t->own);
    if (!t->argv || !t->own) { trial_args_free(t); return CLI_EXIT_MEMORY; }
    for (int i = 0; i < r->argc; i++) t->argv[t->argc++] = r->argv[i];
    for (size_t j = 0; j < n; j++) {
        int flag = is_on_off(r, keys[j]);
        if (flag && strcmp(values[j], "true")) continue;
        size_t len = strlen(keys[j]) + strlen(values[j]) + 4;
        if (!(t->own[t->n_own] = malloc(len))) { trial_args_free(t); return CLI_EXIT_MEMORY; }
        if (flag) snprintf(t->own[t->n_own], len, "--%s", keys[j]);
        else snprintf(t->own[t->n_own], len, "--%s=%s", keys[j], values[j]);
        t->argv[t->argc++] = t->own[t->n_own++];
    }
    return 0;
}

/* Parses a trial's flags into *p (whose strings point into *t). */
static int parse_trial(const tune_run *r, const char *const *keys, const char *const *values, size_t n,
                       trial_args *t, tune_parse *p) {
    int rc = trial_args_make(r, keys, values, n, t);
    if (rc) return rc;
    tune_table(p, 1);
    rc = args_parse("tune", SUMMARY, p->specs, t->argc, t->argv, 0);
    return rc == 1 ? CLI_EXIT_USAGE : rc;   /* 1 would be --help: not in a trial */
}

/* ---- A trial's configuration (fcast_tune_config_fn) ---- */

/* The flags that are train's, as the configuration sees them: cv's own cut
 * off, and --out (tune's final model) left out. */
static void train_part(const tune_parse *p, arg_spec out[FC_TRAIN_MAX_SPECS]) {
    memcpy(out, p->specs, FC_TRAIN_MAX_SPECS * sizeof *out);
    memset(out + p->f.a.n_train_specs, 0, sizeof *out);
    for (arg_spec *s = out; s->name; s++)
        if (!strcmp(s->name, "out")) s->seen = 0;
}

/* A parsed trial's configuration. 0, or the exit code that stops the
 * search (printed); a configuration the flags' combination refuses is
 * FC_ERR_INVALID in *st, its reason in fc_last_error(). */
static int make_config(tune_parse *p, int searching, fcast_config **out, fc_status *st) {
    static const char *const renamed[] = {"train-step-size", "step-size", NULL};
    train_flags *t = &p->f.a.t;
    arg_spec train[FC_TRAIN_MAX_SPECS];
    if (strchr(t->model, ','))
        return cli_refuse("tune", CLI_EXIT_USAGE, "--model '%s': a search tunes one model; to search over several, "
                          "put model: choice(...) in the space", t->model);
    const char *wbs = *train_flags_text(t, "windows-batch-size");
    if (searching && wbs && !strcmp(wbs, "auto"))   /* a trial's matter: the space is fine */
        return cli_refuse("tune", CLI_EXIT_USAGE, "--windows-batch-size auto is for fcast train; give a number");
    train_part(p, train);
    int rc = train_flags_config(NULL, t, train, renamed, out);
    /* A name that is not one of a flag's choices, or a refusal that left no
     * reason for the trial's line, stops the search: said by a printing call. */
    if (rc == CLI_EXIT_USAGE || (rc && fc_last_status() == FC_OK))
        return train_flags_config("tune", t, train, renamed, out);
    *st = rc ? FC_ERR_INVALID : FC_OK;
    return 0;
}

static fc_status trial_config(void *user, const char *const *keys, const char *const *values, size_t n,
                              fcast_config **out) {
    tune_run *r = user;
    trial_args ta = {0};
    tune_parse *p = malloc(sizeof *p);
    fc_status st = FC_OK;
    int rc = p ? parse_trial(r, keys, values, n, &ta, p) : CLI_EXIT_MEMORY;
    if (!rc) rc = make_config(p, r->searching, out, &st);
    trial_args_free(&ta);
    free(p);
    if (!rc) return st;
    r->rc = rc;
    return rc == CLI_EXIT_MEMORY ? FC_ERR_MEMORY : FC_ERR_PARSE;
}

/* ---- The space against the flag table ---- */

static int space_error(const tune_run *r, size_t j, const char *what) {
    fprintf(stderr, "fcast tune: %s:%zu: %s: %s\n", r->base.f.q.space, fcast_tune_param_line(r->t, j),
            fcast_tune_param_name(r->t, j), what);
    return CLI_EXIT_USAGE;
}

static fcast_tune_type value_type(arg_kind k) {
    return k == ARG_SIZE || k == ARG_INT ? FCAST_TUNE_INT : k == ARG_DOUBLE ? FCAST_TUNE_REAL
         : k == ARG_FLAG ? FCAST_TUNE_BOOL : FCAST_TUNE_TEXT;
}

/* Each key: a flag of the table, searchable, not also on the command line,
 * and a distribution its kind can take. */
static int check_keys(tune_run *r) {
    for (size_t j = 0; j < fcast_tune_params(r->t); j++) {
        const char *name = fcast_tune_param_name(r->t, j);
        arg_spec *s = args_find(r->base.specs, name, strlen(name));
        if (!s) return space_error(r, j, "not a flag of fcast tune's trials (see fcast tune --help)");
        if (listed(s->name, TUNE_ONLY) || listed(s->name, NOT_SEARCHED))
            return space_error(r, j, "this flag cannot be searched (it is fixed for every trial)");
        if (s->seen & ARG_FROM_ARGV) return space_error(r, j, "also given on the command line: give it in one place");
        if (fcast_tune_param_type(r->t, j, value_type(s->kind)) != FC_OK)
            return cli_refuse("tune", CLI_EXIT_USAGE, "%s", fc_last_error());
    }
    return 0;
}

/* ---- The trials ---- */

static void print_params(FILE *f, const tune_run *r, const fcast_tune_trial *t) {
    for (size_t j = 0; j < fcast_tune_params(r->t); j++)
        fprintf(f, " %s=%s", fcast_tune_param_name(r->t, j), t->values[j]);
}

static void print_trial(void *user, const fcast_tune *search, size_t i) {
    tune_run *r = user;
    fcast_tune_report rep;
    fcast_tune_trial t;
    if (r->base.f.a.t.quiet || fcast_tune_summary(search, &rep) != FC_OK || fcast_tune_trial_get(search, i, &t) != FC_OK)
        return;
    job_progress_break(&r->job);
    fprintf(stderr, "tune: trial %zu", i);
    if (rep.max_trials) fprintf(stderr, " of %zu", rep.max_trials);
    if (!strcmp(t.status, "ok")) fprintf(stderr, ": %s %.6g", rep.metric, t.score);
    else fprintf(stderr, ": %s%s%s", t.status, t.error[0] ? ": " : "", t.error);
    fprintf(stderr, " (%.2f s):", t.seconds);
    print_params(stderr, r, &t);
    fputc('\n', stderr);
    job_progress_unit_done(&r->job);
}

/* A step of a trial's training, for the search's progress. */
static void on_step(void *user, size_t step, size_t max_steps, double train_loss) {
    tune_run *r = user;
    job_progress_on_step(&r->job, step, max_steps, train_loss);
}

/* The search's progress: trials done of --trials (10 by default, none
 * with a time budget alone: the budget paces it), each trial's share by
 * its cross-validation's trainings. */
static void start_progress(tune_run *r) {
    const tune_flags *f = &r->base.f;
    size_t trials = f->q.trials != FCAST_TUNE_TRIALS_DEFAULT ? f->q.trials : f->q.time_budget > 0 ? 0 : 10;
    job_progress_init(&r->job, "tune", "trial", trials, f->a.t.quiet);
    r->job.budget = f->q.time_budget;
    r->job.trainings_per_unit = cv_trainings_per_model(&f->a.q);
}

/* ---- The end: summary, best config, final model ---- */

/* The widest of a parameter's name and its values, for the table. */
static int column_width(const tune_run *r, const fcast_tune_report *rep, size_t j) {
    size_t w = strlen(fcast_tune_param_name(r->t, j));
    fcast_tune_trial t;
    for (size_t i = 0; i < rep->trials; i++)
        if (fcast_tune_trial_get(r->t, i, &t) == FC_OK && strlen(t.values[j]) > w) w = strlen(t.values[j]);
    return (int)(w < 40 ? w : 40);
}

static void print_summary(const tune_run *r, const fcast_tune_report *rep) {
    size_t n = fcast_tune_params(r->t);
    int *width = calloc(n ? n : 1, sizeof *width);
    fcast_tune_trial t;
    if (!width) return;
    fprintf(stderr, "\n  trial  status    %-12s %8s", rep->metric, "seconds");
    for (size_t j = 0; j < n; j++) {
        width[j] = column_width(r, rep, j);
        fprintf(stderr, "  %-*s", width[j], fcast_tune_param_name(r->t, j));
    }
    fputc('\n', stderr);
    for (size_t i = 0; i < rep->trials && fcast_tune_trial_get(r->t, i, &t) == FC_OK; i++) {
        fprintf(stderr, "%s %5zu  %-9s %-12.6g %8.2f", rep->has_best && i == rep->best ? "*" : " ", i, t.status,
                t.score, t.seconds);
        for (size_t j = 0; j < n; j++) fprintf(stderr, "  %-*s", width[j], t.values[j]);
        fputc('\n', stderr);
    }
    if (rep->has_best && fcast_tune_trial_get(r->t, rep->best, &t) == FC_OK) {
        fprintf(stderr, "best: trial %zu, %s %.6g:", rep->best, rep->metric, t.score);
        print_params(stderr, r, &t);
        fputc('\n', stderr);
    }
    free(width);
}

/* train's table holding a parsed trial's values (cv's --train-step-size is
 * train's --step-size; cv's own flags have no place in it). */
static void to_train_table(tune_parse *p, train_flags *t, arg_spec specs[FC_TRAIN_MAX_SPECS]) {
    train_flags_init(t, specs, 0);
    arg_spec *many = args_find(specs, "parallel", strlen("parallel"));   /* the search's, not a training's */
    if (many) do many[0] = many[1]; while ((++many)->name);
    for (arg_spec *s = specs; s->name; s++) {
        const char *name = strcmp(s->name, "step-size") ? s->name : "train-step-size";
        arg_spec *from = args_find(p->specs, name, strlen(name));
        if (!from || !strcmp(s->name, "out")) continue;
        size_t size = arg_is_text(s->kind) ? sizeof(const char *) : s->kind == ARG_INT ? sizeof(long)
                    : s->kind == ARG_SIZE ? sizeof(size_t) : s->kind == ARG_DOUBLE ? sizeof(double) : sizeof(int);
        memcpy(s->dest, from->dest, size);
        s->seen = from->seen;
    }
}

typedef struct {
    const arg_spec *specs;
    size_t trial;
    double score;
    const char *metric;
} config_body;

static fc_status write_config(FILE *f, void *vctx) {
    const config_body *c = vctx;
    fprintf(f, "# fcast tune: best trial %zu (%s %.9g); fcast train --config FILE --out MODEL trains it\n",
            c->trial, c->metric, c->score);
    args_print_config(f, "train", c->specs);
    return FC_OK;
}

/* "--flag=value" for every flag with a value: the same run as the table. */
static int train_argv(const arg_spec *specs, const char *out, char ***argv_out, int *argc_out) {
    size_t n = 0;
    while (specs[n].name) n++;
    char **argv = calloc(n + 5, sizeof *argv);
    if (!argv) return CLI_EXIT_MEMORY;
    int argc = 0;
    argv[argc++] = strdup("fcast");
    argv[argc++] = strdup("train");
    for (const arg_spec *s = specs; s->name; s++) {
        char num[64] = "";   /* a number's text; a string flag's value is used as it is (any length) */
        const char *v = num;
        if (!args_has_value(s)) continue;   /* not given: the model's or train's default */
        if (s->kind == ARG_FLAG && !*(const int *)s->dest) continue;
        if (arg_is_text(s->kind)) v = *(const char *const *)s->dest;
        else if (s->kind == ARG_INT) snprintf(num, sizeof num, "%ld", *(const long *)s->dest);
        else if (s->kind == ARG_SIZE) snprintf(num, sizeof num, "%zu", *(const size_t *)s->dest);
        else if (s->kind == ARG_DOUBLE) snprintf(num, sizeof num, "%.17g", *(const double *)s->dest);
        size_t len = strlen(s->name) + strlen(v) + 4;
        if (!(argv[argc] = malloc(len))) break;
        if (s->kind == ARG_FLAG) snprintf(argv[argc++], len, "--%s", s->name);
        else snprintf(argv[argc++], len, "--%s=%s", s->name, v);
    }
    argv[argc++] = strdup("--out");
    argv[argc++] = strdup(out);
    *argv_out = argv;
    *argc_out = argc;
    for (int i = 0; i < argc; i++)
        if (!argv[i]) return CLI_EXIT_MEMORY;
    return 0;
}


/* --best-config and --out from the best trial's flags. */
static int finish(tune_run *r, const fcast_tune_report *rep) {
    const tune_flags *f = &r->base.f;
    fcast_tune_trial best;
    trial_args ta = {0};
    tune_parse *p = malloc(sizeof *p);
    train_flags t;
    arg_spec specs[FC_TRAIN_MAX_SPECS];
    const char **keys = calloc(fcast_tune_params(r->t) + 1, sizeof *keys);
    int rc = p && keys ? 0 : CLI_EXIT_MEMORY;
    for (size_t j = 0; keys && j < fcast_tune_params(r->t); j++) keys[j] = fcast_tune_param_name(r->t, j);
    if (!rc && fcast_tune_trial_get(r->t, rep->best, &best) != FC_OK) rc = cli_fail("tune");
    if (!rc) rc = parse_trial(r, keys, best.values, fcast_tune_params(r->t), &ta, p);
    if (!rc) to_train_table(p, &t, specs);
    if (!rc && f->best_config) {
        config_body body = {specs, rep->best, best.score, rep->metric};
        if (fcast_write_file(f->best_config, write_config, &body) != FC_OK) rc = cli_fail("tune");
        else if (!f->a.t.quiet) fprintf(stderr, "best configuration written to %s\n", f->best_config);
    }
    const char *out = *train_flags_text(&f->a.t, "out");
    if (!rc && out) {
        char **argv = NULL;
        int argc = 0;
        if (!f->a.t.quiet) fprintf(stderr, "training the best configuration on all the data\n");
        rc = train_argv(specs, out, &argv, &argc);
        if (!rc) rc = cmd_train(argc, argv, 2);
        for (int i = 0; argv && i < argc; i++) free(argv[i]);
        free(argv);
    }
    trial_args_free(&ta);
    free(keys);
    free(p);
    return rc;
}

/* ---- The search ---- */

/* The request's values (a usage error, as the parser's), then the files
 * the search writes, before any work. */
static int check_flags(tune_run *r) {
    tune_flags *f = &r->base.f;
    if (!f->q.space) {
        fprintf(stderr, "fcast tune: --space is required (see fcast tune --help)\n");
        return CLI_EXIT_USAGE;
    }
    f->q.data = f->a.t.data;
    f->q.cv = f->a.q;
    if (fcast_tune_open(&f->q, &r->t) != FC_OK)
        return fc_last_status() == FC_ERR_INVALID ? cli_refuse("tune", CLI_EXIT_USAGE, "%s", fc_last_error())
                                                  : cli_fail("tune");
    if (*train_flags_integer(&f->a.t, "seed") < 0) { fprintf(stderr, "fcast tune: --seed must be >= 0\n"); return CLI_EXIT_USAGE; }
    const fcast_path_use files[] = {
        {"--data", f->a.t.data, FCAST_PATH_IN, 0, NULL},
        {"--space", f->q.space, FCAST_PATH_IN, 0, NULL},
        {"--log", f->q.log, FCAST_PATH_OUT, 0, NULL},
        {"--out", *train_flags_text(&f->a.t, "out"), FCAST_PATH_OUT, 0, NULL},
        {"--best-config", f->best_config, FCAST_PATH_OUT, 0, NULL},
    };
    return fcast_paths_check(files, sizeof files / sizeof *files) == FC_OK ? 0 : cli_fail("tune");
}

/* A failure of the library's: the reason, unless a trial's flags stopped
 * it (printed then, with what the library adds when probing). */
static int search_failed(const tune_run *r, int probing) {
    if (!r->rc) return cli_fail("tune");
    if (probing) fprintf(stderr, "fcast tune: %s\n", fc_last_error());
    return r->rc;
}

static int tune(tune_run *r) {
    int rc = check_flags(r);
    if (rc) return rc;
    if (fcast_tune_read_space(r->t) != FC_OK) return cli_fail("tune");
    if ((rc = check_keys(r))) return rc;
    fcast_tune_callbacks cb = {trial_config, print_trial, on_step, r};
    if (fcast_tune_probe(r->t, &cb) != FC_OK) return search_failed(r, 1);
    r->searching = 1;
    start_progress(r);
    if (fcast_tune_run(r->t, &cb, NULL) != FC_OK) return search_failed(r, 0);
    job_progress_finish(&r->job);
    fcast_tune_report rep;
    if (fcast_tune_summary(r->t, &rep) != FC_OK) return cli_fail("tune");
    if (rep.budget_spent && !r->base.f.a.t.quiet)
        fprintf(stderr, "tune: time budget of %g s spent after %zu trials\n", r->base.f.q.time_budget, rep.trials);
    print_summary(r, &rep);
    if (!rep.has_best) {
        fprintf(stderr, "fcast tune: no trial finished with a score: nothing to choose from\n");
        return CLI_EXIT_INVALID;
    }
    return finish(r, &rep);
}

int cmd_tune(int argc, char **argv, int first) {
    tune_run *r = calloc(1, sizeof *r);
    if (!r) { fprintf(stderr, "fcast tune: out of memory\n"); return CLI_EXIT_MEMORY; }
    tune_table(&r->base, 0);
    int rc = args_parse("tune", SUMMARY, r->base.specs, argc, argv, first);
    if (rc) rc = args_exit(rc);
    else if (!(rc = strip_tune_flags(r, argc, argv, first))) rc = tune(r);
    fcast_tune_free(r->t);
    free(r->argv);
    free(r);
    return rc;
}
