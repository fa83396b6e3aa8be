/* fcast train: fit N-HiTS, N-BEATS or MLP on a long-format CSV and write a
 * model file. Defaults are neuralforecast's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "core/error.h"
#include "data/dataset.h"
#include "io/model_file.h"
#include "core/memory_stats.h"
#include "train/batch_sweep.h"
#include "train/memory_plan.h"
#include "device_choice.h"
#include "train_flags.h"
#include "cv_run.h"
#include "train/forecaster.h"
#include "train/run_log.h"
#include "train/checkpoint.h"
#include "io/output_path.h"
#include "backend/cpu/cpu_backend.h"
#include "stop_signals.h"
#include <math.h>

static const char *SUMMARY =
    "Train a forecasting model on a long-format CSV (unique_id, ds, y) and write it as safetensors.\n"
    "Defaults are neuralforecast's (NHITS, NBEATS, MLP).";

/* Resident memory of the run against its plan and limit. */
static void print_memory(const fc_backend *be, const fc_memory_plan *p, size_t limit, size_t rss_start) {
    char a[32], b[32], c[32], d[32], e[32], g[32];
    size_t peak = fc_rss_peak(), grown = peak > rss_start ? peak - rss_start : 0, used, size;
    be->arena_stats(be, &used, &size);
    fprintf(stderr, "memory: peak resident %s, %s above the start (plan %s", fc_bytes_text(peak, a, sizeof a),
            fc_bytes_text(grown, b, sizeof b), fc_bytes_text(p->total, c, sizeof c));
    if (limit) fprintf(stderr, ", limit %s", fc_bytes_text(limit, d, sizeof d));
    fprintf(stderr, "); arena %s of %s used\n", fc_bytes_text(used, e, sizeof e), fc_bytes_text(size, g, sizeof g));
}

static void print_summary(const fc_train_summary *s, const fc_train_options *o, const char *out) {
    fprintf(stderr, "trained %zu steps in %.1f s (%.0f windows/s, %s)%s", s->steps, s->seconds,
            s->windows_per_second, fc_precision_name(o->precision), s->early_stopped ? ", stopped early" : "");
    if (o->precision == FC_PREC_FP16)
        fprintf(stderr, "; %zu steps skipped by the loss scaler (final scale %g)", s->skipped_steps,
                (double)s->loss_scale);
    if (o->val_size) fprintf(stderr, "; best validation loss %.5f at step %zu", s->best_val_loss, s->best_step);
    fprintf(stderr, "\nmodel written to %s\n", out);
}

/* Refuses, before anything large is allocated, a run whose plan exceeds
 * the limit, naming the biggest consumers and the batch that would fit. */
static fc_status check_memory(const train_setup *su, const fc_dataset *ds, fc_backend *be, fc_memory_plan *p) {
    fc_model *planned = NULL;
    FC_TRY(fc_model_plan(&su->cfg, &planned));
    fc_status st = fc_memory_plan_train(planned, ds, &su->o, be, p);
    size_t fits = 0;
    if (st == FC_OK && su->memory_limit && p->total > su->memory_limit)
        st = fc_memory_plan_largest_batch(planned, ds, &su->o, be, su->memory_limit, &fits);
    fc_model_free(&planned);
    if (st != FC_OK || !su->memory_limit || p->total <= su->memory_limit) return st;
    return fc_memory_plan_refusal(p, su->memory_limit, fits);
}

/* --windows-batch-size auto: the sweep's choice within the limit (or the
 * memory available now, without --memory-limit). */
static fc_status choose_batch(train_setup *su, const fc_dataset *ds, fc_backend *be, const char *device) {
    size_t limit = su->memory_limit ? su->memory_limit : fc_memory_available();
    if (!su->memory_limit && !be->host_visible) {   /* a GPU: its free memory holds the run's arena */
        size_t free_bytes, total_bytes;
        be->memory_info(be, &free_bytes, &total_bytes);
        limit = free_bytes < limit ? free_bytes : limit;
    }
    if (!limit) return fc_error(FC_ERR_INVALID, "--windows-batch-size auto needs --memory-limit here");
    fc_batch_sweep sweep;
    fc_backend *trial = NULL;   /* its kernels for every candidate shape go with it */
    FC_TRY(fc_backend_create(device, be->threads, &trial, NULL, 0));   /* the run's device */
    trial->tf32 = be->tf32;   /* timed in the arithmetic the run will use */
    fc_status st = fc_batch_sweep_run(&su->cfg, ds, &su->o, su->scaler, trial, limit, 3, &sweep);
    fc_backend_destroy(&trial);
    FC_TRY(st);
    char line[1024];
    fc_batch_sweep_describe(&sweep, line, sizeof line);
    fprintf(stderr, "%s%s\n", line, su->memory_limit ? "" : " (no --memory-limit: the memory available now)");
    su->o.windows_batch_size = sweep.chosen;
    return FC_OK;
}

/* Where checkpoints go: --checkpoint, else beside --out (for a stop). */
static char *checkpoint_path_for(const train_flags *a) {
    if (a->checkpoint) return strdup(a->checkpoint);
    size_t n = strlen(a->out), ext = strlen(".safetensors");
    if (n > ext && !strcmp(a->out + n - ext, ".safetensors")) n -= ext;
    char *p = malloc(n + 32);
    if (p) snprintf(p, n + 32, "%.*s.ckpt.safetensors", (int)n, a->out);
    return p;
}

/* Every file train writes is checked before any work: a training run is
 * never thrown away because its output cannot be written. */
static fc_status check_outputs(const train_flags *a, const char *checkpoint) {
    fc_input_path inputs[] = {{"--data", a->data}, {"--resume", a->resume}, {"--config", NULL}};
    FC_TRY(fc_output_check("--out", a->out, 0, inputs, 2));
    FC_TRY(fc_output_check("--checkpoint", checkpoint, 0, inputs, 1));   /* it may be the --resume file */
    if (!strcmp(checkpoint, a->out))
        return fc_error(FC_ERR_INVALID, "--checkpoint %s is also --out: choose another path", checkpoint);
    if (a->log_file) {
        fc_input_path all[] = {{"--data", a->data}, {"--resume", a->resume}, {"--out", a->out},
                               {"--checkpoint", checkpoint}};
        FC_TRY(fc_output_check("--log-file", a->log_file, 0, all, 4));
    }
    return FC_OK;
}

/* One argument for a POSIX shell: plain when safe, else in single quotes
 * with each ' written as '\''. */
static void print_shell_word(const char *w) {
    if (*w && !strpbrk(w, " \t\n'\"$`\\*?[]&;|<>(){}#~!=%^")) {
        fprintf(stderr, " %s", w);
        return;
    }
    fputs(" '", stderr);
    for (; *w; w++) fputs(*w == '\'' ? "'\\''" : (char[]){*w, 0}, stderr);
    fputc('\'', stderr);
}

/* The command line that continues a stopped run: this one, with --resume. */
static void print_resume_command(int argc, char **argv, int first, const char *checkpoint) {
    fprintf(stderr, "resume with:\n  fcast train");
    for (int i = first; i < argc; i++) {
        if (!strcmp(argv[i], "--resume")) { i++; continue; }
        if (!strncmp(argv[i], "--resume=", 9)) continue;
        print_shell_word(argv[i]);
    }
    fputs(" --resume", stderr);
    print_shell_word(checkpoint);
    fputc('\n', stderr);
}

/* One line: where the run's time went. */
static void print_phases(const fc_train_summary *s) {
    double total = 0;
    for (int p = 0; p < FC_PHASE_COUNT; p++) total += s->phases.seconds[p];
    if (!(total > 0)) return;
    fprintf(stderr, "time:");
    for (int p = 0; p < FC_PHASE_COUNT; p++)
        fprintf(stderr, " %s %.1f%%", fc_phase_name((fc_phase)p), 100.0 * s->phases.seconds[p] / total);
    fprintf(stderr, " (of %.2f s)\n", total);
}

static const char *kernel_note(fc_precision p) {
    if (p == FC_PREC_FP32) return "oneDNN fp32";
    if (p == FC_PREC_FP16) return "fp16 emulated (fp32 products of fp16-rounded inputs)";
    return fc_backend_cpu_uses_amx() ? "bf16 on fcast's AMX kernels" : "bf16 on oneDNN";
}

/* --prediction-intervals conformal: neuralforecast's PredictionIntervals. */
typedef struct {
    const char *kind, *method;
    size_t windows, step;
} interval_flags;

typedef struct {
    train_setup su;
    fc_forecaster f;
    fc_dataset *ds;
    fc_backend *be;
    fc_memory_plan plan;
    fc_train_summary sum;
    fc_run_log *log;
    char *checkpoint, *run_config, *log_config;
    size_t rss_start;
} train_run;

static void log_start(train_run *r, const train_flags *a) {
    size_t start = 0;
    if (a->resume && fc_checkpoint_step(a->resume, &start) != FC_OK) start = 0;   /* fc_train reports it */
    fc_run_start s = {"train", r->log_config, r->plan.total, r->su.memory_limit, r->be->threads,
                      fc_precision_name(r->su.o.precision), r->su.o.max_steps, start, kernel_note(r->su.o.precision),
                      r->be->name};
    fc_run_log_start(r->log, &s);
}

static void log_summary(train_run *r, fc_status st, const char *out) {
    const fc_train_summary *s = &r->sum;
    size_t used = 0, size = 0;
    if (r->be) r->be->arena_stats(r->be, &used, &size);
    const char *status = st == FC_OK ? (s->early_stopped ? "early_stopped" : "completed")
                       : st == FC_ERR_INTERRUPTED ? "interrupted" : "failed";
    fc_run_end e = {status, s->steps, s->seconds, s->step_seconds, s->windows_per_second, s->last_train_loss,
                    s->best_val_loss, s->best_step, fc_rss_peak(), r->plan.total, r->su.memory_limit, used,
                    &s->phases, out, s->checkpoint, st == FC_OK ? NULL : fc_last_error()};
    fc_run_log_summary(r->log, &e);
}

/* The flags of the intervals, checked before any work. */
static fc_status check_intervals(const interval_flags *pi, const train_setup *su, fc_conformal_method *method) {
    if (!pi->kind) return FC_OK;
    if (strcmp(pi->kind, "conformal"))
        return fc_error(FC_ERR_INVALID, "--prediction-intervals '%s': the one method is conformal", pi->kind);
    if (fc_conformal_method_parse(pi->method, method))
        return fc_error(FC_ERR_INVALID, "--pi-method '%s' is not conformal_distribution or conformal_error", pi->method);
    if (pi->windows < 2 || pi->windows > 4096)
        return fc_error(FC_ERR_INVALID, "--pi-windows %zu: conformal intervals need 2 to 4096 windows", pi->windows);
    if (pi->step < 1) return fc_error(FC_ERR_INVALID, "--pi-step-size must be at least 1");
    if (su->cfg.n_outputs > 1 || su->loss.kind == FC_LOSS_QUANTILE)
        return fc_error(FC_ERR_INVALID, "--prediction-intervals conformal is for point losses: a model trained with "
                        "--loss %s predicts its own quantiles", fc_loss_name(su->loss));
    return FC_OK;
}

/* Conformal scores from a cross-validation of their own models, before the
 * run's arena holds the final model (neuralforecast's fit computes them
 * first too). */
static fc_status fit_intervals(train_run *r, const interval_flags *pi, int quiet) {
    fc_conformal_method method;
    FC_TRY(check_intervals(pi, &r->su, &method));
    if (!pi->kind) return FC_OK;
    if (!(r->f.conformal = calloc(1, sizeof *r->f.conformal))) return fc_error(FC_ERR_MEMORY, "out of memory");
    return cv_conformal_scores(&r->su, r->ds, r->be, pi->windows, pi->step, method, quiet, r->f.conformal);
}

/* Loading, planning and building: everything before the first step
 * (the backend is already made). */
static fc_status prepare(train_run *r, const train_flags *a, const interval_flags *pi) {
    FC_TRY(train_flags_load_data(a, &r->su, &(fc_data_choice){0}, &r->ds));
    FC_TRY(fc_train_check(r->ds, &r->su.cfg, &r->su.o));
    FC_TRY(fit_intervals(r, pi, a->quiet));
    if (r->su.auto_batch && a->resume)   /* the batch the run chose: sweeping again could choose another */
        FC_TRY(fc_checkpoint_windows_batch(a->resume, &r->su.o.windows_batch_size));
    else if (r->su.auto_batch)
        FC_TRY(choose_batch(&r->su, r->ds, r->be, a->device));
    FC_TRY(check_memory(&r->su, r->ds, r->be, &r->plan));
    FC_TRY(r->be->arena_open(r->be, fc_memory_plan_arena_bytes(&r->plan)));   /* the model lives in it */
    FC_TRY(fc_model_create(&r->su.cfg, r->be, &r->f.model));
    FC_TRY(fc_model_init_params(r->f.model, r->su.o.seed));
    r->f.ds_kind = r->ds->ds_kind;
    r->f.freq = r->ds->freq;
    return FC_OK;
}

/* The operations options: checkpoints, resume, signals, run log. */
static fc_status set_operations(train_run *r, const train_flags *a, const arg_spec *specs) {
    fc_train_options *o = &r->su.o;
    r->checkpoint = checkpoint_path_for(a);
    r->run_config = args_config_json(specs, FC_TRAIN_OPERATIONS_FLAGS);
    r->log_config = args_config_json(specs, NULL);
    if (!r->checkpoint || !r->run_config || !r->log_config) return fc_error(FC_ERR_MEMORY, "out of memory");
    FC_TRY(check_outputs(a, r->checkpoint));
    o->checkpoint_path = r->checkpoint;
    o->checkpoint_every = a->checkpoint_every;
    o->checkpoint_at_validation = a->checkpoint != NULL;
    o->resume_path = a->resume;
    o->profile = a->profile;
    o->stop_requested = stop_signals_install();
    r->f.run_config_json = r->run_config;
    if (a->log_file) FC_TRY(fc_run_log_open(a->log_file, &r->log));
    if (r->log) fc_run_log_sample_gpus(r->log);
    o->log = r->log;
    return FC_OK;
}

static void print_outcome(const train_run *r, fc_status st, int saved, const train_flags *a, int argc, char **argv,
                          int first) {
    if (st == FC_OK) {
        print_summary(&r->sum, &r->su.o, a->out);
        print_phases(&r->sum);
        print_memory(r->be, &r->plan, r->su.memory_limit, r->rss_start);
    } else if (st == FC_ERR_INTERRUPTED) {
        fprintf(stderr, "stopped after step %zu of %zu (%s); %s so far %s %s\n", r->sum.steps, r->su.o.max_steps,
                strsignal(stop_signals_received()), isnan(r->sum.best_val_loss) ? "the model" : "the best model",
                saved ? "written to" : "could not be written to", a->out);
        if (r->sum.checkpoint) print_resume_command(argc, argv, first, r->sum.checkpoint);
    }
}

static int train(const train_flags *a, const interval_flags *pi, const arg_spec *specs, int argc, char **argv,
                 int first) {
    train_run r = {.rss_start = fc_rss_current()};
    int rc = train_flags_resolve("train", a, &r.su);
    if (rc) return rc == 2 ? CLI_EXIT_USAGE : cli_fail("train");
    fc_conformal_method method;
    if (check_intervals(pi, &r.su, &method) != FC_OK) return cli_fail("train");
    r.f = (fc_forecaster){.scaler = r.su.scaler, .loss = r.su.loss};
    /* the device first: a GPU that cannot run fails before data is read or a log opened */
    fc_status st = device_backend_open(a->device, a->threads, a->quiet, &r.be);
    if (st == FC_OK) r.be->tf32 = a->tf32;
    if (st == FC_OK) st = set_operations(&r, a, specs);
    if (st == FC_OK) st = prepare(&r, a, pi);
    if (st == FC_OK && r.log) log_start(&r, a);
    if (st == FC_OK) st = fc_train(&r.f, r.ds, &r.su.o, &r.sum);
    /* stopped by a signal: the model so far is written too (the checkpoint holds the rest) */
    fc_status saved = st == FC_OK || (st == FC_ERR_INTERRUPTED && r.sum.steps > 0)
                    ? fc_forecaster_save(&r.f, a->out) : FC_ERR_INVALID;
    if (st == FC_OK) st = saved;
    if (r.log) log_summary(&r, st, saved == FC_OK ? a->out : NULL);
    print_outcome(&r, st, saved == FC_OK, a, argc, argv, first);
    rc = st == FC_OK ? CLI_EXIT_OK : cli_fail("train");
    if (fc_run_log_close(&r.log) != FC_OK && rc == CLI_EXIT_OK) rc = cli_fail("train");
    free(r.checkpoint);
    free(r.run_config);
    free(r.log_config);
    fc_forecaster_free(&r.f);
    fc_backend_destroy(&r.be);
    fc_dataset_free(&r.ds);
    return rc;
}

/* train's table and the intervals' flags. */
static void train_specs(train_flags *a, interval_flags *pi, arg_spec specs[FC_TRAIN_MAX_SPECS]) {
    train_flags_init(a, specs, 1);
    *pi = (interval_flags){NULL, "conformal_distribution", 2, 1};
    arg_spec extra[] = {
        {"prediction-intervals", ARG_STR, &pi->kind, "conformal", "fit conformal intervals from a cross-validation "
                                                                  "(predict --level then writes them; off)", 0, 0},
        {"pi-windows", ARG_SIZE, &pi->windows, "N", "cross-validation windows of the conformal scores (2)", 0, 0},
        {"pi-method", ARG_STR, &pi->method, "M", "conformal_distribution | conformal_error (conformal_distribution)", 0, 0},
        {"pi-step-size", ARG_SIZE, &pi->step, "N", "points between those windows (1)", 0, 0},
    };
    args_append(specs, FC_TRAIN_MAX_SPECS, extra, sizeof extra / sizeof *extra);
}

int cmd_train(int argc, char **argv, int first) {
    train_flags a;
    interval_flags pi;
    arg_spec specs[FC_TRAIN_MAX_SPECS];
    train_specs(&a, &pi, specs);
    int rc = args_parse("train", SUMMARY, specs, argc, argv, first);
    if (rc) return args_exit(rc);
    return train(&a, &pi, specs, argc, argv, first);
}
