/* fcast tune: hyperparameter search scored by cross-validation, as
 * neuralforecast's Auto models (AutoNHITS, AutoNBEATS, ... on optuna's
 * TPESampler). Each trial samples the flags of a search space file
 * (tune/search_space.h), runs `fcast cv`'s cross-validation with them
 * (the library's, api/api_cv_run.h) and is scored by one metric over every forecast point
 * (tune/trial_score.h); the best trial's flags can be written as a config
 * file for fcast train and trained on all the data. docs/evaluation.md,
 * "Hyperparameter search", says it for users.
 *
 * A trial's flags are text appended to the command line's own (tune's
 * flags removed) and parsed with the same table, so a sampled value is
 * checked exactly as a typed one, and --config works for the fixed part. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "api/api_cv_run.h"
#include "core/error.h"
#include "cv_run.h"
#include "device_choice.h"
#include "io/atomic_file.h"
#include "io/output_path.h"
#include "train/data_budget.h"
#include "train/memory_plan.h"
#include "train/progress.h"
#include "tune/sampler.h"
#include "tune/search_space.h"
#include "tune/trial_log.h"
#include "tune/trial_score.h"

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
                                           "threads", "quiet", "n-windows", "step-size", "refit", NULL};

#define TUNE_MAX_SPECS (FC_TRAIN_MAX_SPECS + 16)
#define OWN_MAX (FC_TUNE_VALUE_MAX + 72)   /* "--flag=value" */

typedef struct {
    cv_flags a;
    const char *space, *sampler, *metric, *log, *best_config;
    size_t trials, metric_season;
    double time_budget;
} tune_flags;

/* One parse of the table: the flags and the table they were parsed with. */
typedef struct {
    tune_flags f;
    arg_spec specs[TUNE_MAX_SPECS];
} tune_parse;

typedef struct {
    double x[FC_TUNE_MAX_PARAMS];
    char text[FC_TUNE_MAX_PARAMS][FC_TUNE_VALUE_MAX];
    const char *status;   /* ok | skipped | diverged */
    char error[512];
    double score, seconds;
    size_t points;
} trial_result;

typedef struct {
    tune_parse base;          /* the command line's */
    char **argv;              /* the command line without tune's flags */
    int argc;
    fc_search_space space;
    arg_kind kinds[FC_TUNE_MAX_PARAMS];
    fc_tune_metric metric;
    uint64_t seed;
    size_t max_trials;        /* 0: no limit */
    fc_tune_history hist;
    trial_result *trials;
    size_t n_trials;
    fc_dataset *ds;
    fc_backend *be;
    FILE *log;
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
    arg_spec *specs = p->specs;
    memset(p, 0, sizeof *p);
    f->sampler = "tpe";
    f->metric = "mae";
    f->trials = ARG_SIZE_UNSET;
    f->metric_season = 1;
    cv_flags_init(&f->a, specs, 0);
    arg_spec extra[] = {
        {"space", ARG_STR, &f->space, "FILE", "search space: YAML, flag: distribution (docs/evaluation.md)", 0, 0},
        {"trials", ARG_SIZE, &f->trials, "N", "trials to run (10; no limit with --time-budget alone)", 0, 0},
        {"time-budget", ARG_DOUBLE, &f->time_budget, "SECONDS", "start no trial after this long (a trial started "
                                                                "finishes; 0 = none)", 0, 0},
        {"sampler", ARG_STR, &f->sampler, "NAME", "tpe | random (tpe: optuna's TPESampler, univariate)", 0, 0},
        {"metric", ARG_STR, &f->metric, "NAME", "score minimised: mae | mse | rmse | smape | mase over all forecast "
                                                "points of the cross-validation (mae)", 0, 0},
        {"metric-season", ARG_SIZE, &f->metric_season, "M", "mase: seasonality of the naive error that scales it (1)",
         0, 0},
        {"log", ARG_STR, &f->log, "FILE", "append every trial to this JSON Lines file", 0, 0},
        {"best-config", ARG_STR, &f->best_config, "FILE", "write the best trial's flags as a config file for "
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
    char (*own)[OWN_MAX];
} trial_args;

static void trial_args_free(trial_args *t) {
    free(t->argv);
    free(t->own);
    memset(t, 0, sizeof *t);
}

/* The command line's flags, then the trial's ("--flag=value"; a boolean
 * flag alone when true, absent when false). */
static int trial_args_make(const tune_run *r, char text[][FC_TUNE_VALUE_MAX], trial_args *t) {
    size_t n = r->space.n;
    t->argc = 0;
    t->argv = calloc((size_t)r->argc + n + 1, sizeof *t->argv);
    t->own = calloc(n ? n : 1, sizeof *t->own);
    if (!t->argv || !t->own) { trial_args_free(t); return CLI_EXIT_MEMORY; }
    for (int i = 0; i < r->argc; i++) t->argv[t->argc++] = r->argv[i];
    for (size_t j = 0; j < n; j++) {
        const char *name = r->space.params[j].name;
        if (r->kinds[j] == ARG_FLAG && strcmp(text[j], "true")) continue;
        if (r->kinds[j] == ARG_FLAG) snprintf(t->own[j], OWN_MAX, "--%s", name);
        else snprintf(t->own[j], OWN_MAX, "--%s=%s", name, text[j]);
        t->argv[t->argc++] = t->own[j];
    }
    return 0;
}

/* Parses a trial's flags into *p (whose strings point into *t). */
static int parse_trial(const tune_run *r, char text[][FC_TUNE_VALUE_MAX], trial_args *t, tune_parse *p) {
    int rc = trial_args_make(r, text, t);
    if (rc) return rc;
    tune_table(p, 1);
    rc = args_parse("tune", SUMMARY, p->specs, t->argc, t->argv, 0);
    return rc == 1 ? CLI_EXIT_USAGE : rc;   /* 1 would be --help: not in a trial */
}

/* ---- The space against the flag table ---- */

static int space_error(const fc_search_space *s, const fc_param *p, const char *what) {
    fprintf(stderr, "fcast tune: %s:%zu: %s: %s\n", s->path, p->line, p->name, what);
    return CLI_EXIT_USAGE;
}

/* Each key: a flag of the table, searchable, not also on the command line,
 * and a distribution its kind can take. */
static int check_keys(tune_run *r) {
    for (size_t j = 0; j < r->space.n; j++) {
        const fc_param *p = &r->space.params[j];
        arg_spec *s = args_find(r->base.specs, p->name, strlen(p->name));
        if (!s) return space_error(&r->space, p, "not a flag of fcast tune's trials (see fcast tune --help)");
        if (listed(s->name, TUNE_ONLY) || listed(s->name, NOT_SEARCHED))
            return space_error(&r->space, p, "this flag cannot be searched (it is fixed for every trial)");
        if (s->seen & ARG_FROM_ARGV)
            return space_error(&r->space, p, "also given on the command line: give it in one place");
        if ((s->kind == ARG_SIZE || s->kind == ARG_INT) && p->kind != FC_PARAM_INT && p->kind != FC_PARAM_CHOICE)
            return space_error(&r->space, p, "an integer flag: use int(low, high) or choice(...)");
        if (s->kind == ARG_FLAG) {
            int ok = p->kind == FC_PARAM_CHOICE;
            for (size_t c = 0; ok && c < p->n_choices; c++)
                ok = !strcmp(p->choices[c], "true") || !strcmp(p->choices[c], "false");
            if (!ok) return space_error(&r->space, p, "an on/off flag: use choice(true, false)");
        }
        r->kinds[j] = s->kind;
    }
    return 0;
}

/* The texts a parameter can take at its ends: every choice, or both bounds. */
static size_t candidates(const fc_param *p, char out[][FC_TUNE_VALUE_MAX]) {
    if (p->kind == FC_PARAM_CHOICE) {
        for (size_t c = 0; c < p->n_choices; c++) snprintf(out[c], FC_TUNE_VALUE_MAX, "%s", p->choices[c]);
        return p->n_choices;
    }
    fc_param_text(p, p->low, out[0]);
    fc_param_text(p, p->high, out[1]);
    return 2;
}

/* One probe: the flags parse, and the names resolve (model, scaler, loss).
 * A combination the resolve finds invalid is a trial's matter, not the space's. */
static int probe(const tune_run *r, char text[][FC_TUNE_VALUE_MAX]) {
    trial_args t = {0};
    tune_parse *p = malloc(sizeof *p);
    int rc = p ? parse_trial(r, text, &t, p) : CLI_EXIT_MEMORY;
    if (!rc && strchr(p->f.a.t.model, ',')) {
        fprintf(stderr, "fcast tune: --model '%s': a search tunes one model; to search over several, put "
                "model: choice(...) in the space\n", p->f.a.t.model);
        rc = CLI_EXIT_USAGE;
    }
    train_setup su;
    if (!rc && train_flags_resolve("tune", &p->f.a.t, &su) == 2) rc = CLI_EXIT_USAGE;
    fc_error_clear();
    trial_args_free(&t);
    free(p);
    return rc;
}

/* Every value a parameter can take at its ends goes through the flag
 * table before any training: a misspelt choice fails now, naming its line. */
static int probe_space(const tune_run *r) {
    char text[FC_TUNE_MAX_PARAMS][FC_TUNE_VALUE_MAX], cand[FC_TUNE_MAX_CHOICES][FC_TUNE_VALUE_MAX];
    for (size_t j = 0; j < r->space.n; j++) {
        candidates(&r->space.params[j], cand);
        memcpy(text[j], cand[0], sizeof text[j]);
    }
    int rc = probe(r, text);
    if (rc) {
        fprintf(stderr, "fcast tune: (the flags of the command line with the first value of each parameter of %s)\n",
                r->space.path);
        return rc;
    }
    for (size_t j = 0; j < r->space.n; j++) {
        char keep[FC_TUNE_VALUE_MAX], what[FC_TUNE_VALUE_MAX + 64];
        memcpy(keep, text[j], sizeof keep);
        size_t n = candidates(&r->space.params[j], cand);
        for (size_t c = 0; c < n; c++) {
            memcpy(text[j], cand[c], sizeof text[j]);
            if ((rc = probe(r, text))) {
                snprintf(what, sizeof what, "the value '%s' is refused (above)", cand[c]);
                return space_error(&r->space, &r->space.params[j], what);
            }
        }
        memcpy(text[j], keep, sizeof keep);
    }
    return 0;
}

/* ---- Trials ---- */

static fc_value_type value_type(arg_kind k) {
    return k == ARG_SIZE || k == ARG_INT ? FC_VALUE_INT : k == ARG_DOUBLE ? FC_VALUE_REAL
         : k == ARG_FLAG ? FC_VALUE_BOOL : FC_VALUE_TEXT;
}

static void print_params(FILE *f, const tune_run *r, const trial_result *t) {
    for (size_t j = 0; j < r->space.n; j++) fprintf(f, " %s=%s", r->space.params[j].name, t->text[j]);
}

static fc_status log_trial(tune_run *r, size_t i) {
    const trial_result *t = &r->trials[i];
    const char *names[FC_TUNE_MAX_PARAMS], *texts[FC_TUNE_MAX_PARAMS];
    fc_value_type types[FC_TUNE_MAX_PARAMS];
    for (size_t j = 0; j < r->space.n; j++) {
        names[j] = r->space.params[j].name;
        texts[j] = t->text[j];
        types[j] = value_type(r->kinds[j]);
    }
    fc_trial_record rec = {i, t->status, fc_tune_metric_name(r->metric), t->error[0] ? t->error : NULL,
                           t->score, t->seconds, t->points, r->space.n, names, texts, types};
    return fc_trial_log_trial(r->log, r->base.f.log, &rec);
}

static void skip(trial_result *t, const char *why) {
    t->status = "skipped";
    snprintf(t->error, sizeof t->error, "%s", why);
}

/* The trial's model as the library's cross-validation runs it. 0, or the
 * exit code (printed). */
static int cv_model(const train_setup *su, fc_api_cv_run *cr) {
    if (su->auto_batch)
        return cli_refuse("tune", CLI_EXIT_USAGE, "--windows-batch-size auto is for fcast train; give a number");
    if (!(cr->m = calloc(1, sizeof *cr->m))) return cli_refuse("tune", CLI_EXIT_MEMORY, "out of memory");
    cr->n_models = 1;
    cr->m[0].t = (fc_cv_training){su->cfg, su->o, su->scaler, su->loss, su->memory_limit, NULL};
    cr->m[0].t.o.verbose = 0;
    fc_api_cv_name_models(cr);
    return 0;
}

/* The cross-validation of a parsed trial and its score. 0, or the exit
 * code that stops the search (the reason printed). */
static int evaluate(tune_run *r, tune_parse *p, trial_result *t) {
    cv_flags *a = &p->f.a;
    train_setup su;
    a->t.quiet = 1;   /* tune prints a line per trial */
    int rc = train_flags_resolve("tune", &a->t, &su);
    if (rc == 2) return CLI_EXIT_USAGE;
    if (rc) { skip(t, fc_last_error()); return 0; }
    fc_api_cv_run cr = {.spec = {0, a->q.n_windows, a->q.step_size, a->q.refit}};
    if ((rc = cv_model(&su, &cr))) { fc_api_cv_run_free(&cr); return rc; }
    fc_status st = fc_api_cv_forecast(&cr, r->ds, r->be, NULL);
    if (st == FC_ERR_MEMORY || st == FC_ERR_INVALID) skip(t, fc_last_error());
    else if (st != FC_OK) rc = cli_fail("tune");
    if (st == FC_OK) {
        const fc_api_cv_model *m = &cr.m[0];
        fc_score_spec spec = {r->metric, r->base.f.metric_season, m->t.cfg.h, m->t.cfg.n_outputs,
                              fc_tune_point_output(&m->t.loss)};
        st = fc_tune_score(r->ds, cr.origins, cr.n_origins, m->values, &spec, &t->score, &t->points);
        if (st != FC_OK) skip(t, fc_last_error());
        else if (!isfinite(t->score)) t->status = "diverged";
        else t->status = "ok";
    }
    fc_error_clear();
    fc_api_cv_run_free(&cr);
    return rc;
}

static void print_trial(const tune_run *r, size_t i) {
    const trial_result *t = &r->trials[i];
    fprintf(stderr, "tune: trial %zu", i);
    if (r->max_trials) fprintf(stderr, " of %zu", r->max_trials);
    if (!strcmp(t->status, "ok")) fprintf(stderr, ": %s %.6g", fc_tune_metric_name(r->metric), t->score);
    else fprintf(stderr, ": %s%s%s", t->status, t->error[0] ? ": " : "", t->error);
    fprintf(stderr, " (%.2f s):", t->seconds);
    print_params(stderr, r, t);
    fputc('\n', stderr);
}

static int sample(tune_run *r, size_t i, trial_result *t) {
    if (!strcmp(r->base.f.sampler, "random")) fc_tune_sample_random(&r->space, r->seed, i, t->x);
    else if (fc_tune_sample_tpe(&r->space, &r->hist, r->seed, i, t->x) != FC_OK) return cli_fail("tune");
    for (size_t j = 0; j < r->space.n; j++) {
        t->x[j] = fc_param_snap(&r->space.params[j], t->x[j]);
        fc_param_text(&r->space.params[j], t->x[j], t->text[j]);
    }
    return 0;
}

/* Trial i: sample, parse, cross-validate, score, log. */
static int run_trial(tune_run *r, size_t i) {
    trial_result *t = &r->trials[i];
    memset(t, 0, sizeof *t);
    t->score = NAN;
    int rc = sample(r, i, t);
    if (rc) return rc;
    double t0 = fc_now();
    trial_args ta = {0};
    tune_parse *p = malloc(sizeof *p);
    rc = p ? parse_trial(r, t->text, &ta, p) : CLI_EXIT_MEMORY;
    if (!rc) rc = evaluate(r, p, t);
    trial_args_free(&ta);
    free(p);
    if (rc) return rc;
    t->seconds = fc_now() - t0;
    r->n_trials++;
    if (fc_tune_history_add(&r->hist, t->x, t->score, !strcmp(t->status, "ok")) != FC_OK) return cli_fail("tune");
    if (r->log && log_trial(r, i) != FC_OK) return cli_fail("tune");
    if (!r->base.f.a.t.quiet) print_trial(r, i);
    return 0;
}

/* ---- The end: summary, best config, final model ---- */

static long best_trial(const tune_run *r) {
    long best = -1;
    for (size_t i = 0; i < r->n_trials; i++)
        if (!strcmp(r->trials[i].status, "ok") && (best < 0 || r->trials[i].score < r->trials[best].score))
            best = (long)i;
    return best;
}

/* The widest of a parameter's name and its values, for the table. */
static int column_width(const tune_run *r, size_t j) {
    size_t w = strlen(r->space.params[j].name);
    for (size_t i = 0; i < r->n_trials; i++)
        if (strlen(r->trials[i].text[j]) > w) w = strlen(r->trials[i].text[j]);
    return (int)(w < 40 ? w : 40);
}

static void print_summary(const tune_run *r, long best) {
    int width[FC_TUNE_MAX_PARAMS];
    fprintf(stderr, "\n  trial  status    %-12s %8s", fc_tune_metric_name(r->metric), "seconds");
    for (size_t j = 0; j < r->space.n; j++) {
        width[j] = column_width(r, j);
        fprintf(stderr, "  %-*s", width[j], r->space.params[j].name);
    }
    fputc('\n', stderr);
    for (size_t i = 0; i < r->n_trials; i++) {
        const trial_result *t = &r->trials[i];
        fprintf(stderr, "%s %5zu  %-9s %-12.6g %8.2f", (long)i == best ? "*" : " ", i, t->status, t->score,
                t->seconds);
        for (size_t j = 0; j < r->space.n; j++) fprintf(stderr, "  %-*s", width[j], t->text[j]);
        fputc('\n', stderr);
    }
    if (best >= 0) {
        fprintf(stderr, "best: trial %ld, %s %.6g:", best, fc_tune_metric_name(r->metric), r->trials[best].score);
        print_params(stderr, r, &r->trials[best]);
        fputc('\n', stderr);
    }
}

/* train's table holding a parsed trial's values (cv's --train-step-size is
 * train's --step-size; cv's own flags have no place in it). */
static void to_train_table(tune_parse *p, train_flags *t, arg_spec specs[FC_TRAIN_MAX_SPECS]) {
    train_flags_init(t, specs, 0);
    for (arg_spec *s = specs; s->name; s++) {
        const char *name = strcmp(s->name, "step-size") ? s->name : "train-step-size";
        arg_spec *from = args_find(p->specs, name, strlen(name));
        if (!from || !strcmp(s->name, "out")) continue;
        size_t size = s->kind == ARG_STR ? sizeof(const char *) : s->kind == ARG_INT ? sizeof(long)
                    : s->kind == ARG_SIZE ? sizeof(size_t) : s->kind == ARG_DOUBLE ? sizeof(double) : sizeof(int);
        memcpy(s->dest, from->dest, size);
        s->seen = from->seen;
    }
}

typedef struct {
    const arg_spec *specs;
    long trial;
    double score;
    const char *metric;
} config_body;

static fc_status write_config(FILE *f, void *vctx) {
    const config_body *c = vctx;
    fprintf(f, "# fcast tune: best trial %ld (%s %.9g); fcast train --config FILE --out MODEL trains it\n",
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
        if (s->kind == ARG_STR && !*(const char *const *)s->dest) continue;
        if (s->kind == ARG_SIZE && *(const size_t *)s->dest == ARG_SIZE_UNSET) continue;
        if (s->kind == ARG_DOUBLE && isnan(*(const double *)s->dest)) continue;   /* not given */
        if (s->kind == ARG_FLAG && !*(const int *)s->dest) continue;
        if (s->kind == ARG_STR) v = *(const char *const *)s->dest;
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
static int finish(tune_run *r, long best) {
    const tune_flags *f = &r->base.f;
    trial_args ta = {0};
    tune_parse *p = malloc(sizeof *p);
    train_flags t;
    arg_spec specs[FC_TRAIN_MAX_SPECS];
    int rc = p ? parse_trial(r, r->trials[best].text, &ta, p) : CLI_EXIT_MEMORY;
    if (!rc) to_train_table(p, &t, specs);
    if (!rc && f->best_config) {
        config_body body = {specs, best, r->trials[best].score, fc_tune_metric_name(r->metric)};
        if (fc_write_file_atomic(f->best_config, write_config, &body) != FC_OK) rc = cli_fail("tune");
        else if (!f->a.t.quiet) fprintf(stderr, "best configuration written to %s\n", f->best_config);
    }
    if (!rc && f->a.t.out) {
        char **argv = NULL;
        int argc = 0;
        if (!f->a.t.quiet) fprintf(stderr, "training the best configuration on all the data\n");
        rc = train_argv(specs, f->a.t.out, &argv, &argc);
        if (!rc) rc = cmd_train(argc, argv, 2);
        for (int i = 0; argv && i < argc; i++) free(argv[i]);
        free(argv);
    }
    trial_args_free(&ta);
    free(p);
    return rc;
}

/* ---- The search ---- */

static int check_flags(tune_run *r) {
    const tune_flags *f = &r->base.f;
    if (!f->space) {
        fprintf(stderr, "fcast tune: --space is required (see fcast tune --help)\n");
        return CLI_EXIT_USAGE;
    }
    if (strcmp(f->sampler, "tpe") && strcmp(f->sampler, "random")) {
        fprintf(stderr, "fcast tune: --sampler '%s' is not one of tpe, random\n", f->sampler);
        return CLI_EXIT_USAGE;
    }
    if (fc_tune_metric_parse(f->metric, &r->metric)) {
        fprintf(stderr, "fcast tune: --metric '%s' is not one of mae, mse, rmse, smape, mase\n", f->metric);
        return CLI_EXIT_USAGE;
    }
    if (f->trials == 0 || !(f->time_budget >= 0) || f->metric_season == 0) {
        fprintf(stderr, "fcast tune: --trials and --metric-season must be at least 1, --time-budget at least 0\n");
        return CLI_EXIT_USAGE;
    }
    if (f->a.t.seed < 0) { fprintf(stderr, "fcast tune: --seed must be >= 0\n"); return CLI_EXIT_USAGE; }
    r->seed = (uint64_t)f->a.t.seed;
    r->max_trials = f->trials != ARG_SIZE_UNSET ? f->trials : f->time_budget > 0 ? 0 : 10;
    fc_input_path in[] = {{"--data", f->a.t.data}, {"--space", f->space}};
    fc_status st = fc_output_check("--out", f->a.t.out, 0, in, 2);
    if (st == FC_OK) st = fc_output_check("--best-config", f->best_config, 0, in, 2);
    if (st == FC_OK) st = fc_output_check("--log", f->log, 0, in, 2);
    return st == FC_OK ? 0 : cli_fail("tune");
}

/* The data and the device, once for all trials (neither can be searched). */
static fc_status open_inputs(tune_run *r) {
    const train_flags *t = &r->base.f.a.t;
    train_setup su;
    memset(&su, 0, sizeof su);
    FC_TRY(fc_memory_limit_parse(t->memory_limit, &su.memory_limit));
    FC_TRY(fc_data_store_parse(t->data_store, &su.data_store));
    FC_TRY(device_backend_open(t->device, t->threads, t->quiet, &r->be));
    r->be->tf32 = t->tf32;   /* as fcast train, so a trial's fits are train's */
    FC_TRY(train_flags_load_data(t, &su, &(fc_data_choice){0}, &r->ds));
    if (r->base.f.log) {
        FC_TRY(fc_trial_log_open(r->base.f.log, &r->log));
        fc_search_record s = {r->space.path, r->base.f.sampler, r->base.f.metric, t->model, r->seed,
                              r->max_trials, r->base.f.time_budget};
        FC_TRY(fc_trial_log_search(r->log, r->base.f.log, &s));
    }
    return FC_OK;
}

static int search(tune_run *r) {
    double start = fc_now(), budget = r->base.f.time_budget;
    size_t cap = r->max_trials ? r->max_trials : 64;
    if (!(r->trials = malloc(cap * sizeof *r->trials))) return CLI_EXIT_MEMORY;
    for (size_t i = 0; !r->max_trials || i < r->max_trials; i++) {
        if (budget > 0 && fc_now() - start >= budget) {
            if (!r->base.f.a.t.quiet) fprintf(stderr, "tune: time budget of %g s spent after %zu trials\n", budget, i);
            break;
        }
        if (i == cap) {
            trial_result *more = realloc(r->trials, 2 * cap * sizeof *more);
            if (!more) return CLI_EXIT_MEMORY;
            r->trials = more;
            cap *= 2;
        }
        int rc = run_trial(r, i);
        if (rc) return rc;
    }
    return 0;
}

static int tune(tune_run *r) {
    int rc = check_flags(r);
    if (rc) return rc;
    fc_status st = fc_space_load(r->base.f.space, &r->space);
    if (st == FC_ERR_IO) fc_error_wrap(st, "--space ");   /* config_yaml speaks of a configuration file */
    if (st != FC_OK) return cli_fail("tune");
    if ((rc = check_keys(r)) || (rc = probe_space(r))) return rc;
    fc_tune_history_init(&r->hist, r->space.n);
    if (open_inputs(r) != FC_OK) return cli_fail("tune");
    rc = search(r);
    if (r->log && fc_trial_log_close(r->log, r->base.f.log) != FC_OK && !rc) rc = cli_fail("tune");
    r->log = NULL;
    if (rc) return rc;
    long best = best_trial(r);
    print_summary(r, best);
    if (best < 0) {
        fprintf(stderr, "fcast tune: no trial finished with a score: nothing to choose from\n");
        return CLI_EXIT_INVALID;
    }
    return finish(r, best);
}

int cmd_tune(int argc, char **argv, int first) {
    tune_run *r = calloc(1, sizeof *r);
    if (!r) { fprintf(stderr, "fcast tune: out of memory\n"); return CLI_EXIT_MEMORY; }
    tune_table(&r->base, 0);
    int rc = args_parse("tune", SUMMARY, r->base.specs, argc, argv, first);
    if (rc) rc = args_exit(rc);
    else if (!(rc = strip_tune_flags(r, argc, argv, first))) rc = tune(r);
    if (r->log) fc_trial_log_close(r->log, r->base.f.log);
    fc_space_free(&r->space);
    fc_tune_history_free(&r->hist);
    free(r->trials);
    free(r->argv);
    fc_dataset_free(&r->ds);
    fc_backend_destroy(&r->be);
    free(r);
    return rc;
}
