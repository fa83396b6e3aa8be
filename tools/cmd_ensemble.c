/* fcast ensemble: train the cartesian product of architectures x input
 * size multiples x losses x seeds, each member exactly as `fcast train`
 * would with its flags, into one ensemble file (io/ensemble_file.h) that
 * `fcast predict` combines by the median or the mean. The members are trained one after
 * another on one backend and one loaded dataset. Each goes through the
 * calls `fcast train` makes, in its order (flags resolved by
 * train_flags_resolve, fc_train_check, the memory plan, an arena of the
 * plan's size, fc_model_create, fc_model_init_params from its seed,
 * fc_train), so its tensors are the bits `fcast train` writes for the
 * member's flags; tests/cli_ensemble.sh compares them. Members are not
 * trained several at once: one at a time, each with every thread. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "cli.h"
#include "core/memory_stats.h"
#include "core/error.h"
#include "device_choice.h"
#include "io/ensemble_file.h"
#include "io/output_path.h"
#include "train/memory_plan.h"
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

typedef struct {
    train_flags flags;      /* the member's, as `fcast train` would take them */
    train_setup su;
    fc_memory_plan plan;
    char label[160];
    char *run_config;
} member;

typedef struct {
    char archs[LIST_MAX][ENTRY_MAX], losses[LIST_MAX][ENTRY_MAX];
    size_t n_archs, n_losses, n_sizes, n_seeds;
    size_t sizes[LIST_MAX], multiples[LIST_MAX];   /* input sizes; their multiples of h (0: --input-size) */
    long seeds[LIST_MAX];
    fc_combine combine;
    member *m;
    size_t n;
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
    int rc = split_list("losses", a->t.loss, r->losses, &r->n_losses);
    for (size_t i = 0; !rc && i < r->n_losses; i++) {
        fc_loss_kind k;
        if (fc_loss_parse(r->losses[i], &k))
            return usage("--losses: '%s' is not one of mae, mse, huber, smape, mape, mase", r->losses[i]);
        if (k == FC_LOSS_QUANTILE || k == FC_LOSS_MQ) {
            fc_error(FC_ERR_INVALID, "--losses %s: an ensemble combines point forecasts by their median or mean, and "
                     "the median of quantiles is not a quantile: use point losses (mae, mse, huber, smape, mape, mase)",
                     r->losses[i]);
            return cli_fail("ensemble");
        }
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
    for (size_t i = 0; !rc && i < r->n_sizes; i++) {
        r->multiples[i] = (size_t)x[i];
        r->sizes[i] = (size_t)x[i] * a->t.h;
    }
    return rc;
}

static int has_loss(const ensemble_run *r, fc_loss_kind want) {
    for (size_t i = 0; i < r->n_losses; i++) {
        fc_loss_kind k;
        if (!fc_loss_parse(r->losses[i], &k) && k == want) return 1;
    }
    return 0;
}

/* A loss parameter flag goes to the members of its loss; given with no
 * such member it is refused, as train refuses it for another loss. */
static int check_loss_flags(const ensemble_flags *a, const ensemble_run *r) {
    if (a->t.huber_delta && !has_loss(r, FC_LOSS_HUBER))
        return usage("--huber-delta is a parameter of --loss huber, and --losses %s has no huber", a->t.loss);
    if (a->t.season != ARG_SIZE_UNSET && !has_loss(r, FC_LOSS_MASE))
        return usage("--season is a parameter of --loss mase, and --losses %s has no mase", a->t.loss);
    return 0;
}

/* The run configuration `fcast train` would record for these flags. */
static char *member_run_config(const train_flags *one) {
    train_flags t;
    arg_spec specs[FC_TRAIN_MAX_SPECS];
    train_flags_init(&t, specs, 1);   /* the table points into t */
    t = *one;
    return args_config_json(specs, FC_TRAIN_OPERATIONS_FLAGS);
}

/* Member `i` of the product: its flags, label and setup. */
static int make_member(const ensemble_flags *a, ensemble_run *r, size_t i, size_t arch, size_t size, size_t loss,
                       size_t seed) {
    member *mb = &r->m[i];
    train_flags *one = &mb->flags;
    fc_loss_kind kind = FC_LOSS_MAE;   /* parse_losses has checked every name */
    *one = a->t;
    one->model = r->archs[arch];
    one->input_size = r->sizes[size];
    one->loss = r->losses[loss];
    one->seed = r->seeds[seed];
    fc_loss_parse(one->loss, &kind);
    if (kind != FC_LOSS_MASE) one->season = ARG_SIZE_UNSET;
    if (kind != FC_LOSS_HUBER) one->huber_delta = NULL;
    snprintf(mb->label, sizeof mb->label, "member %zu/%zu (%s, input-size %zu, loss %s, seed %ld)", i + 1, r->n,
             one->model, one->input_size, one->loss, one->seed);
    int rc = train_flags_resolve("ensemble", one, &mb->su);
    if (rc == 1) {
        fc_error_wrap(fc_last_status(), "%s: ", mb->label);
        return cli_fail("ensemble");
    }
    if (rc) return CLI_EXIT_USAGE;
    if (mb->su.auto_batch) return usage("--windows-batch-size auto is for fcast train; give a number");
    if (!(mb->run_config = member_run_config(one))) return cli_fail("ensemble");
    return 0;
}

/* The cartesian product, architecture outermost, seed innermost. */
static int make_members(const ensemble_flags *a, ensemble_run *r) {
    r->n = r->n_archs * r->n_sizes * r->n_losses * r->n_seeds;
    if (r->n > FC_ENSEMBLE_MAX_MEMBERS) {
        fprintf(stderr, "fcast ensemble: %zu members (%zu x %zu x %zu x %zu); at most %d\n", r->n, r->n_archs,
                r->n_sizes, r->n_losses, r->n_seeds, FC_ENSEMBLE_MAX_MEMBERS);
        return CLI_EXIT_USAGE;
    }
    if (!(r->m = calloc(r->n, sizeof *r->m))) return cli_fail("ensemble");
    size_t i = 0;
    for (size_t ar = 0; ar < r->n_archs; ar++)
        for (size_t sz = 0; sz < r->n_sizes; sz++)
            for (size_t lo = 0; lo < r->n_losses; lo++)
                for (size_t se = 0; se < r->n_seeds; se++) {
                    int rc = make_member(a, r, i++, ar, sz, lo, se);
                    if (rc) return rc;
                }
    return 0;
}

static int resolve(const ensemble_flags *a, ensemble_run *r) {
    size_t n_seeds;
    int rc = split_list("model", a->t.model, r->archs, &r->n_archs);
    if (!rc) rc = parse_sizes(a, r);
    if (!rc) rc = parse_losses(a, r);
    if (!rc) rc = split_integers("seeds", a->seeds, 0, r->seeds, &n_seeds);
    r->n_seeds = n_seeds;
    if (!rc && fc_combine_parse(a->combine, &r->combine))
        rc = usage("--combine '%s' is not median or mean", a->combine);
    if (!rc) rc = check_loss_flags(a, r);
    return rc ? rc : make_members(a, r);
}

/* Member i's plan against the limit, with the parameters of the members
 * before it, which wait in host memory for the ensemble file (`kept`). */
static fc_status check_member(member *mb, const fc_dataset *ds, fc_backend *be, size_t kept, size_t *params) {
    const train_setup *su = &mb->su;
    size_t limit = su->memory_limit, fits = 0;
    fc_model *planned = NULL;
    FC_TRY(fc_train_check(ds, &su->cfg, &su->o));
    FC_TRY(fc_model_plan(&su->cfg, &planned));
    *params = planned->n_floats * sizeof(float);
    fc_status st = fc_memory_plan_train(planned, ds, &su->o, be, &mb->plan);
    int over = limit && (kept >= limit || mb->plan.total > limit - kept);
    if (st == FC_OK && over && kept < limit)
        st = fc_memory_plan_largest_batch(planned, ds, &su->o, be, limit - kept, &fits);
    fc_model_free(&planned);
    if (st != FC_OK || !over) return st;
    if (!kept) return fc_memory_plan_refusal(&mb->plan, limit, fits);
    char text[32];
    fc_memory_plan_refusal(&mb->plan, kept < limit ? limit - kept : 0, fits);
    return fc_error_wrap(FC_ERR_MEMORY, "beside the %s of the earlier members' parameters held for the ensemble "
                         "file: ", fc_bytes_text(kept, text, sizeof text));
}

/* Every member's data checks and memory plan, before any is trained: an
 * ensemble is refused at once, not after hours of training. */
static fc_status check_members(ensemble_run *r, const fc_dataset *ds, fc_backend *be) {
    size_t kept = 0;
    for (size_t i = 0; i < r->n; i++) {
        size_t params = 0;
        fc_status st = check_member(&r->m[i], ds, be, kept, &params);
        if (st != FC_OK) return fc_error_wrap(st, "%s: ", r->m[i].label);
        kept += params;
    }
    return FC_OK;
}

/* One member, as cmd_train.c trains a model, then into the writer. */
static fc_status train_member(member *mb, const fc_dataset *ds, fc_backend *be, fc_ensemble_writer *w,
                              fc_train_summary *sum) {
    train_setup *su = &mb->su;
    fc_forecaster f = {.scaler = su->scaler, .loss = su->loss, .run_config_json = mb->run_config};
    fc_status st = be->arena_open(be, fc_memory_plan_arena_bytes(&mb->plan));   /* the model lives in it */
    if (st != FC_OK) return st;
    st = fc_model_create(&su->cfg, be, &f.model);
    if (st == FC_OK) st = fc_model_init_params(f.model, su->o.seed);
    f.ds_kind = ds->ds_kind;
    f.freq = ds->freq;
    if (st == FC_OK) st = fc_train(&f, ds, &su->o, sum);
    if (st == FC_OK) st = fc_ensemble_writer_add(w, &f);   /* copies the parameters */
    fc_forecaster_free(&f);
    be->arena_close(be);
    return st;
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static fc_status train_members(const ensemble_flags *a, ensemble_run *r, const fc_dataset *ds, fc_backend *be) {
    fc_ensemble_writer *w = NULL;
    FC_TRY(fc_ensemble_writer_new(r->combine, r->n, a->t.h, &w));
    fc_status st = FC_OK;
    for (size_t i = 0; st == FC_OK && i < r->n; i++) {
        fc_train_summary sum;
        if (!a->t.quiet) fprintf(stderr, "%s: training\n", r->m[i].label);
        st = train_member(&r->m[i], ds, be, w, &sum);
        if (st != FC_OK) st = fc_error_wrap(st, "%s: ", r->m[i].label);
        else
            fprintf(stderr, "%s: %zu steps in %.2f s, last training loss %.5g%s\n", r->m[i].label, sum.steps,
                    sum.seconds, sum.last_train_loss, sum.early_stopped ? ", stopped early" : "");
    }
    if (st == FC_OK) st = fc_ensemble_writer_write(w, a->t.out);
    fc_ensemble_writer_free(&w);
    return st;
}

static void run_free(ensemble_run *r) {
    for (size_t i = 0; r->m && i < r->n; i++) free(r->m[i].run_config);
    free(r->m);
    r->m = NULL;
}

static int ensemble(const ensemble_flags *a) {
    double start = now_seconds();
    ensemble_run r;
    memset(&r, 0, sizeof r);
    int rc = resolve(a, &r);
    if (rc) {
        run_free(&r);
        return rc;
    }
    fc_backend *be = NULL;
    fc_dataset *ds = NULL;
    const fc_input_path inputs[] = {{"--data", a->t.data}};
    fc_status st = fc_output_check("--out", a->t.out, 0, inputs, 1);   /* before any work */
    /* the device first, as train: a GPU that cannot run fails before data is read */
    if (st == FC_OK) st = device_backend_open(a->t.device, a->t.threads, a->t.quiet, &be);
    if (st == FC_OK) be->tf32 = a->t.tf32;
    if (st == FC_OK) st = train_flags_load_data(&r.m[0].flags, &r.m[0].su, &(fc_data_choice){0}, &ds);
    if (st == FC_OK) st = check_members(&r, ds, be);
    double trained = now_seconds();
    if (st == FC_OK) st = train_members(a, &r, ds, be);
    if (st == FC_OK) {
        double end = now_seconds();
        fprintf(stderr, "ensemble of %zu members (%zu architecture%s x %zu input size%s x %zu loss%s x %zu seed%s), "
                "combined by the %s, written to %s\ntime: %.2f s in all, %.3f s per member\n", r.n, r.n_archs,
                r.n_archs > 1 ? "s" : "", r.n_sizes, r.n_sizes > 1 ? "s" : "", r.n_losses, r.n_losses > 1 ? "es" : "",
                r.n_seeds, r.n_seeds > 1 ? "s" : "", fc_combine_name(r.combine), a->t.out, end - start,
                (end - trained) / (double)r.n);
    }
    rc = st == FC_OK ? CLI_EXIT_OK : cli_fail("ensemble");
    run_free(&r);
    fc_dataset_free(&ds);
    fc_backend_destroy(&be);
    return rc;
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
    model->help = "architectures of the members: nhits, nbeats, mlp, nbeatsx, lstm, tide, separated by commas (nhits,nbeats)";
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

int cmd_ensemble(int argc, char **argv, int first) {
    ensemble_flags a;
    arg_spec specs[FC_TRAIN_MAX_SPECS];
    ensemble_flags_init(&a, specs);
    int rc = args_parse("ensemble", SUMMARY, specs, argc, argv, first);
    if (rc) return args_exit(rc);
    return ensemble(&a);
}
