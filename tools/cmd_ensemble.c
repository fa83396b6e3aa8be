/* fcast ensemble: train the cartesian product of architectures x input
 * size multiples x losses x seeds, each member exactly as `fcast train`
 * would with its flags, into one ensemble file that `fcast predict`
 * combines by the median or the mean. Here: the lists, each member's
 * flags made into its configuration by train_flags_config (as fcast train
 * makes its own), its name and the description its file keeps, and the
 * lines printed; the training and the file are the library's
 * (fcast.h: fcast_ensemble_train_file: one backend, one reading of the
 * data, every member's plan checked before any trains, then one member at
 * a time with every thread). tests/cli_ensemble.sh compares each member
 * with fcast train's model of its flags. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "args.h"
#include "cli.h"
#include "job_progress.h"
#include "train_flags.h"

static const char *SUMMARY =
    "Train an ensemble: every combination of --model x --input-size-multiples x --losses x --seeds, each member\n"
    "exactly as fcast train would with its flags, into one file; fcast predict combines them by the median\n"
    "(or the mean) per point, as N-BEATS's M4 ensemble (Oreshkin et al. 2019).";

#define LIST_MAX 16      /* entries per list flag */
#define ENTRY_MAX 24     /* characters per entry */

typedef struct {
    train_flags t;   /* train's flags: --model, --loss (as --losses) and --seed (as --seeds) hold lists */
    const char *multiples, *seeds, *combine;
} ensemble_flags;

#define LABEL_MAX 160

typedef struct {
    char archs[LIST_MAX][ENTRY_MAX], losses[LIST_MAX][ENTRY_MAX];
    size_t n_archs, n_losses, n_sizes, n_seeds;
    size_t sizes[LIST_MAX];   /* input sizes */
    long seeds[LIST_MAX];
    fcast_combine combine;
    size_t n;                 /* members, and for each: */
    fcast_config **configs;
    char (*labels)[LABEL_MAX];
    const char **names;       /* into labels */
    char **descriptions;      /* the run configuration `fcast train` would record */
} ensemble_run;

static int usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fcast ensemble: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CLI_EXIT_USAGE;
}

/* text's comma-separated entries into items; 0 or a usage error. */
static int split_list(const char *flag, const char *text, char items[LIST_MAX][ENTRY_MAX], size_t *n) {
    *n = 0;
    for (const char *p = text;; p++) {
        size_t len = strcspn(p, ",");
        if (*n == LIST_MAX) return usage("--%s '%s': more than %d entries", flag, text, LIST_MAX);
        if (!len || len >= ENTRY_MAX) return usage("--%s '%s': an empty or overlong entry", flag, text);
        memcpy(items[*n], p, len);
        items[(*n)++][len] = 0;
        p += len;
        if (!*p) return 0;
    }
}

/* A list of integers of at least `min` into x. */
static int split_integers(const char *flag, const char *text, long min, long *x, size_t *n) {
    char items[LIST_MAX][ENTRY_MAX];
    int rc = split_list(flag, text, items, n);
    for (size_t i = 0; !rc && i < *n; i++) {
        char *end;
        x[i] = strtol(items[i], &end, 10);
        if (end == items[i] || *end || x[i] < min || x[i] > 1000000)
            rc = usage("--%s: '%s' is not an integer from %ld to 1000000", flag, items[i], min);
    }
    return rc;
}

/* The losses: point losses only (the median of quantiles is not a quantile). */
static int parse_losses(const ensemble_flags *a, ensemble_run *r) {
    int rc = split_list("losses", *train_flags_text(&a->t, "loss"), r->losses, &r->n_losses);
    for (size_t i = 0; !rc && i < r->n_losses; i++) {
        int point = fcast_loss_is_point(r->losses[i]);
        if (point < 0) return usage("--losses: '%s' is not one of mae, mse, huber, smape, mape, mase", r->losses[i]);
        if (!point)
            return cli_refuse("ensemble", CLI_EXIT_INVALID, "--losses %s: an ensemble combines point forecasts by "
                              "their median or mean, and the median of quantiles is not a quantile: use point "
                              "losses (mae, mse, huber, smape, mape, mase)", r->losses[i]);
    }
    return rc;
}

/* Input sizes: --input-size-multiples of h, or the one --input-size. */
static int parse_sizes(const ensemble_flags *a, ensemble_run *r) {
    int given = a->t.input_size != ARG_SIZE_UNSET;
    if (given == (a->multiples != NULL))
        return usage("give --input-size-multiples (input sizes as multiples of h: 2,3,4) or --input-size%s",
                     given ? ", not both" : "");
    if (given) {
        r->sizes[0] = a->t.input_size;
        r->n_sizes = 1;
        return 0;
    }
    long x[LIST_MAX];
    int rc = split_integers("input-size-multiples", a->multiples, 1, x, &r->n_sizes);
    for (size_t i = 0; !rc && i < r->n_sizes; i++) r->sizes[i] = (size_t)x[i] * a->t.h;
    return rc;
}

/* 1 when a member has loss `name` (losses are named in any case). */
static int has_loss(const ensemble_run *r, const char *name) {
    for (size_t i = 0; i < r->n_losses; i++)
        if (!strcasecmp(r->losses[i], name)) return 1;
    return 0;
}

/* A loss parameter flag goes to the members of its loss; given with no
 * such member it is refused, as train refuses it for another loss. */
static int check_loss_flags(const ensemble_flags *a, const ensemble_run *r) {
    const char *losses = *train_flags_text(&a->t, "loss");
    if (*train_flags_text(&a->t, "huber-delta") && !has_loss(r, "huber"))
        return usage("--huber-delta is a parameter of --loss huber, and --losses %s has no huber", losses);
    if (*train_flags_count(&a->t, "season") != ARG_SIZE_UNSET && !has_loss(r, "mase"))
        return usage("--season is a parameter of --loss mase, and --losses %s has no mase", losses);
    return 0;
}

static arg_spec *find_spec(arg_spec *specs, const char *name) { return args_find(specs, name, strlen(name)); }

/* Drops a flag from the table (the quantile losses' parameters: an
 * ensemble refuses those losses). */
static void drop_spec(arg_spec *specs, const char *name) {
    arg_spec *s = find_spec(specs, name);
    if (!s) return;
    do s[0] = s[1]; while ((++s)->name);
}

/* train's table (without its operations flags: no checkpoints or resume
 * per member), with --model, --loss and --seed taking lists (--losses,
 * --seeds), --input-size optional, and the ensemble's flags. */
static void ensemble_flags_init(ensemble_flags *a, arg_spec specs[FC_TRAIN_MAX_SPECS]) {
    train_flags_init(&a->t, specs, 0);
    a->t.input_size = ARG_SIZE_UNSET;
    a->multiples = NULL;
    a->seeds = "1";
    a->combine = "median";
    for (const char *const *q = (const char *const[]){"quantile", "level", "quantiles", NULL}; *q; q++)
        drop_spec(specs, *q);   /* first: the pointers below are into the table */
    arg_spec *out = find_spec(specs, "out"), *model = find_spec(specs, "model"), *loss = find_spec(specs, "loss");
    arg_spec *seed = find_spec(specs, "seed"), *size = find_spec(specs, "input-size");
    out->required = 1;
    out->help = "ensemble file to write (.safetensors): every member, for fcast predict";
    static char help[512];
    snprintf(help, sizeof help, "architectures of the members: %s, separated by commas (nhits,nbeats)",
             train_flags_model_kinds(", "));
    model->help = help;
    size->required = 0;
    size->help = "one input window length for every member, instead of --input-size-multiples";
    loss->name = "losses";
    loss->metavar = "LIST";
    loss->help = "point losses of the members, separated by commas: mae, mse, huber, smape, mape, mase (mae; "
                 "N-BEATS's M4 ensemble: smape,mase,mape)";
    *seed = (arg_spec){"seeds", ARG_STR, &a->seeds, "LIST", "random seeds of the members, separated by commas (1)", 0, 0};
    arg_spec extra[] = {
        {"input-size-multiples", ARG_STR, &a->multiples, "LIST", "input sizes as multiples of h, separated by commas "
                                                                 "(N-BEATS's M4 ensemble: 2,3,4,5,6,7)", 0, 0},
        {"combine", ARG_STR, &a->combine, "HOW", "median | mean: how fcast predict combines the members (median)", 0, 0},
    };
    args_append(specs, FC_TRAIN_MAX_SPECS, extra, sizeof extra / sizeof *extra);
}

/* The run configuration `fcast train` would record for these flags. */
static char *member_run_config(const train_flags *one) {
    train_flags t;
    arg_spec specs[FC_TRAIN_MAX_SPECS];
    train_flags_init(&t, specs, 1);   /* the table points into t */
    t = *one;
    return args_config_json(specs, train_flags_operations());
}

/* A member's architecture and scaler, refused as fcast train refuses them
 * (a usage error, before its other flags). */
static int check_choices(const char *arch, const train_flags *one) {
    fcast_config *probe = NULL;
    const char *scaler = NULL;
    int rc = 0;
    if (fcast_config_new(arch, 1, 1, &probe) != FC_OK) rc = CLI_EXIT_USAGE;
    else if ((scaler = *train_flags_text(one, "scaler")) && fcast_config_set(probe, "scaler", scaler) != FC_OK) rc = CLI_EXIT_USAGE;
    fcast_config_free(probe);
    return rc ? cli_refuse("ensemble", rc, "%s", fc_last_error()) : 0;
}

/* The member's configuration: its flags as fcast train takes them, read
 * by train_flags_config from the command line's table (its flags seen
 * there), pointing into a copy holding the member's values; refusals name
 * the member. */
static int member_config(const arg_spec *given, const train_flags *one, const char *label, fcast_config **out) {
    static const char *const renamed[] = {"losses", "loss", NULL};
    ensemble_flags b;
    arg_spec specs[FC_TRAIN_MAX_SPECS];
    ensemble_flags_init(&b, specs);   /* the same table, pointing into b */
    b.t = *one;
    for (size_t k = 0; specs[k].name; k++) specs[k].seen = given[k].seen;
    for (const char *const *no = (const char *const[]){"out", "input-size-multiples", "combine", NULL}; *no; no++)
        find_spec(specs, *no)->seen = 0;   /* the ensemble's, not the member's */
    find_spec(specs, "losses")->seen = 1;
    if (*train_flags_count(one, "season") == ARG_SIZE_UNSET) find_spec(specs, "season")->seen = 0;
    if (!*train_flags_text(one, "huber-delta")) find_spec(specs, "huber-delta")->seen = 0;
    *find_spec(specs, "seeds") = (arg_spec){"seed", ARG_INT, train_flags_integer(&b.t, "seed"), "S", NULL, 0, 1};
    char command[LABEL_MAX + 16];
    snprintf(command, sizeof command, "ensemble: %s", label);
    return train_flags_config(command, &b.t, specs, renamed, out);
}

/* Member `i` of the product: its flags, name, configuration and description. */
static int make_member(const ensemble_flags *a, const arg_spec *given, ensemble_run *r, size_t i, size_t arch,
                       size_t size, size_t loss, size_t seed) {
    train_flags one = a->t;
    one.model = r->archs[arch];
    one.input_size = r->sizes[size];
    const char *one_loss = *train_flags_text(&one, "loss") = r->losses[loss];
    long one_seed = *train_flags_integer(&one, "seed") = r->seeds[seed];
    if (strcasecmp(one_loss, "mase")) *train_flags_count(&one, "season") = ARG_SIZE_UNSET;
    if (strcasecmp(one_loss, "huber")) *train_flags_text(&one, "huber-delta") = NULL;
    snprintf(r->labels[i], LABEL_MAX, "member %zu/%zu (%s, input-size %zu, loss %s, seed %ld)", i + 1, r->n,
             one.model, one.input_size, one_loss, one_seed);
    r->names[i] = r->labels[i];
    int rc = check_choices(one.model, &one);
    if (!rc) rc = member_config(given, &one, r->labels[i], &r->configs[i]);
    if (rc) return rc;
    const char *wbs = *train_flags_text(&one, "windows-batch-size");
    if (wbs && !strcmp(wbs, "auto")) return usage("--windows-batch-size auto is for fcast train; give a number");
    if (!(r->descriptions[i] = member_run_config(&one)))
        return cli_refuse("ensemble", CLI_EXIT_MEMORY, "out of memory");
    return 0;
}

static int allocate_members(ensemble_run *r) {
    r->configs = calloc(r->n, sizeof *r->configs);
    r->labels = calloc(r->n, sizeof *r->labels);
    r->names = calloc(r->n, sizeof *r->names);
    r->descriptions = calloc(r->n, sizeof *r->descriptions);
    if (r->configs && r->labels && r->names && r->descriptions) return 0;
    return cli_refuse("ensemble", CLI_EXIT_MEMORY, "out of memory");
}

/* The cartesian product, architecture outermost, seed innermost. */
static int make_members(const ensemble_flags *a, const arg_spec *given, ensemble_run *r) {
    r->n = r->n_archs * r->n_sizes * r->n_losses * r->n_seeds;
    if (r->n > FCAST_ENSEMBLE_MAX_MEMBERS)
        return usage("%zu members (%zu x %zu x %zu x %zu); at most %d", r->n, r->n_archs, r->n_sizes, r->n_losses,
                     r->n_seeds, FCAST_ENSEMBLE_MAX_MEMBERS);
    int rc = allocate_members(r);
    size_t i = 0;
    for (size_t ar = 0; !rc && ar < r->n_archs; ar++)
        for (size_t sz = 0; !rc && sz < r->n_sizes; sz++)
            for (size_t lo = 0; !rc && lo < r->n_losses; lo++)
                for (size_t se = 0; !rc && se < r->n_seeds; se++) rc = make_member(a, given, r, i++, ar, sz, lo, se);
    return rc;
}

static int resolve(const ensemble_flags *a, const arg_spec *given, ensemble_run *r) {
    size_t n_seeds = 0;
    int rc = split_list("model", a->t.model, r->archs, &r->n_archs);
    if (!rc) rc = parse_sizes(a, r);
    if (!rc) rc = parse_losses(a, r);
    if (!rc) rc = split_integers("seeds", a->seeds, 0, r->seeds, &n_seeds);
    r->n_seeds = n_seeds;
    if (!rc && fcast_combine_parse(a->combine, &r->combine) != FC_OK)
        rc = usage("--combine '%s' is not median or mean", a->combine);
    if (!rc) rc = check_loss_flags(a, r);
    return rc ? rc : make_members(a, given, r);
}

static void run_free(ensemble_run *r) {
    for (size_t i = 0; i < r->n; i++) {
        if (r->configs) fcast_config_free(r->configs[i]);
        if (r->descriptions) free(r->descriptions[i]);
    }
    free(r->configs);
    free(r->labels);
    free(r->names);
    free(r->descriptions);
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct {
    const ensemble_run *r;
    int quiet;
    double trained;   /* when the first member started */
    job_progress job; /* the members done of all, elapsed and ETA */
} progress;

/* A line as each member starts (unless --quiet) and ends, and the job's
 * progress after it. */
static void on_member(void *user, size_t i, const fcast_train_report *done) {
    progress *p = user;
    const char *label = p->r->labels[i];
    if (!done) {
        if (!i) p->trained = now_seconds();
        if (!p->quiet) fprintf(stderr, "%s: training\n", label);
        return;
    }
    fprintf(stderr, "%s: %zu steps in %.2f s, last training loss %.5g%s\n", label, done->steps, done->seconds,
            done->last_train_loss, done->early_stopped ? ", stopped early" : "");
    /* windows per step: one micro-batch's (with --grad-accum K the job's rate reads K times low) */
    job_progress_add_windows(&p->job, (double)(done->steps - done->start_step) * (double)done->windows_batch_size);
    job_progress_unit_done(&p->job);
}

static void print_summary(const ensemble_run *r, const char *out, double start, double trained) {
    double end = now_seconds();
    fprintf(stderr, "ensemble of %zu members (%zu architecture%s x %zu input size%s x %zu loss%s x %zu seed%s), "
            "combined by the %s, written to %s\ntime: %.2f s in all, %.3f s per member\n", r->n, r->n_archs,
            r->n_archs > 1 ? "s" : "", r->n_sizes, r->n_sizes > 1 ? "s" : "", r->n_losses, r->n_losses > 1 ? "es" : "",
            r->n_seeds, r->n_seeds > 1 ? "s" : "", fcast_combine_name(r->combine), out, end - start,
            (end - trained) / (double)r->n);
}

static int ensemble(const ensemble_flags *a, const arg_spec *given) {
    double start = now_seconds();
    ensemble_run r;
    memset(&r, 0, sizeof r);
    int rc = resolve(a, given, &r);
    const char *out = *train_flags_text(&a->t, "out");
    if (!rc) {
        fcast_ensemble_request req = {(const fcast_config *const *)r.configs, r.n, r.names,
                                      (const char *const *)r.descriptions, r.combine, out};
        progress p = {&r, a->t.quiet, start, {0}};
        job_progress_init(&p.job, "ensemble", "member", r.n, a->t.quiet);
        if (p.job.mode) p.job.mode = 1;   /* lines between members: each member's training draws its own bar */
        fc_status st = fcast_ensemble_train_file(&req, a->t.data, on_member, &p, NULL);
        if (st == FC_OK) {
            job_progress_finish(&p.job);
            print_summary(&r, out, start, p.trained);
        }
        rc = st == FC_OK ? CLI_EXIT_OK : cli_fail("ensemble");
    }
    run_free(&r);
    return rc;
}

int cmd_ensemble(int argc, char **argv, int first) {
    ensemble_flags a;
    arg_spec specs[FC_TRAIN_MAX_SPECS];
    ensemble_flags_init(&a, specs);
    int rc = args_parse("ensemble", SUMMARY, specs, argc, argv, first);
    if (rc) return args_exit(rc);
    return ensemble(&a, specs);
}
