/* fcast_train: a training run as `fcast train` runs it, for every caller
 * (the CLI is one): the device, the files it writes checked before any
 * work, conformal scores, the batch chosen within the memory limit, the
 * run refused when its memory plan passes the limit, the model built in an
 * arena of the plan's size, checkpoints and the run log, the model file
 * written (also on a cancel), and what happened kept for
 * fcast_model_train_report. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/api_train_steps.h"
#include "backend/cpu/cpu_backend.h"
#include "core/error.h"
#include "core/memory_stats.h"
#include "train/batch_sweep.h"
#include "train/checkpoint.h"
#include "dist/dist.h"
#include "dist/dist_grads.h"
#include "train/memory_plan.h"
#include "train/run_log.h"
#include "train/model_file.h"
#include "api/output_path.h"

typedef struct {
    const fcast_config *c;
    const fcast_data *d;          /* the caller's, or `opened` */
    const char *path;             /* fcast_train_file's, read after the device is open */
    fcast_data *opened;
    fc_model_config cfg;
    fc_loss_spec loss;
    fc_train_options o;
    fc_api_progress hook;
    fcast_model *m;
    fc_memory_plan plan;
    fc_run_log *log;
    char *log_json;
} train_run;

/* Conformal intervals are for point losses only (a quantile loss predicts its own). */
static fc_status check_intervals(const fcast_config *c, const fc_model_config *cfg, const fc_loss_spec *loss) {
    int quantiles = fc_loss_kind_is_one_quantile(loss->kind) || fc_loss_kind_is_distribution(loss->kind);
    if (c->pi_windows && (cfg->n_outputs > 1 || quantiles))
        return fc_error(FC_ERR_INVALID, "--prediction-intervals conformal is for point losses: a model trained with "
                        "--loss %s predicts its own quantiles", fc_loss_name(*loss));
    return FC_OK;
}

fc_status fcast_config_check(const fcast_config *c) {
    if (!c) return fc_error(FC_ERR_INVALID, "fcast_config_check: the configuration is NULL");
    fc_model_config cfg;
    fc_loss_spec loss;
    FC_TRY(fc_api_words(fc_api_resolve(c, &cfg, &loss)));
    return fc_api_words(check_intervals(c, &cfg, &loss));
}

/* Where checkpoints go: "checkpoint", else beside "out" (for a stop),
 * else nowhere. */
static char *checkpoint_path(const fc_api_run_keys *k) {
    if (k->checkpoint) return strdup(k->checkpoint);
    if (!k->out) return NULL;
    size_t n = strlen(k->out), ext = strlen(".safetensors");
    if (n > ext && !strcmp(k->out + n - ext, ".safetensors")) n -= ext;
    char *p = malloc(n + 32);
    if (p) snprintf(p, n + 32, "%.*s.ckpt.safetensors", (int)n, k->out);
    return p;
}

/* Every file the run writes is checked before any work: a training run is
 * never thrown away because its output cannot be written. */
static fc_status check_outputs(const fc_api_run_keys *k, const char *data, const char *checkpoint) {
    const fc_path_use files[] = {
        {"--data", data, FCAST_PATH_IN, 0, NULL},
        {"--stat-exog-file", k->stat_file, FCAST_PATH_IN, 0, NULL},
        {"--resume", k->resume, FCAST_PATH_IN, 0, NULL},
        {"--out", k->out, FCAST_PATH_OUT, 0, NULL},
        {k->checkpoint ? "--checkpoint" : "the checkpoint beside --out", checkpoint, FCAST_PATH_OUT, 0,
         "--resume"},   /* a resumed run goes on writing its checkpoint */
        {"--log-file", k->log_file, FCAST_PATH_OUT, 0, NULL},
    };
    return fc_paths_check(files, sizeof files / sizeof *files);
}

/* The device of key "device", its choice said when verbose. */
static fc_status open_device(train_run *r) {
    char note[768];
    FC_TRY(fc_backend_create(r->c->run.device, r->c->threads, &r->m->be, note, sizeof note));
    if (r->c->run.verbose) fprintf(stderr, "%s\n", note);
    r->m->be->tf32 = r->c->run.tf32;
    return fc_dist_device_join(r->m->be, !r->o.deterministic_reduce);   /* NCCL's buffers before the arena */
}

/* Conformal scores from a cross-validation of their own models, before
 * the run's arena holds the final model (neuralforecast's fit computes
 * them first too). */
static fc_status fit_intervals(train_run *r) {
    const fcast_config *c = r->c;
    if (!c->pi_windows) return FC_OK;
    fc_cv_training t = {r->cfg, r->o, c->scaler, r->loss, c->run.memory_limit, r->m->be};
    if (!(r->m->f.conformal = calloc(1, sizeof *r->m->f.conformal))) return fc_error(FC_ERR_MEMORY, "out of memory");
    if (c->run.verbose)
        fprintf(stderr, "conformal intervals: a cross-validation of %zu windows for the scores\n", c->pi_windows);
    return fc_conformal_fit(&t, r->d->ds, c->pi_windows, c->pi_step, c->pi_method, r->m->f.conformal);
}

/* windows-batch-size auto: the sweep's choice within the limit (or the
 * memory available now, without a limit); a resumed run keeps its own. */
static fc_status sweep_batch(train_run *r) {
    const fc_api_run_keys *k = &r->c->run;
    size_t limit = k->memory_limit ? k->memory_limit : fc_memory_available();
    fc_backend *be = r->m->be;
    if (!k->memory_limit && !be->host_visible) {   /* a GPU: its free memory holds the run's arena */
        size_t free_bytes, total_bytes;
        be->memory_info(be, &free_bytes, &total_bytes);
        limit = free_bytes < limit ? free_bytes : limit;
    }
    if (!limit) return fc_error(FC_ERR_INVALID, "--windows-batch-size auto needs --memory-limit here");
    fc_batch_sweep sweep;
    fc_backend *trial = NULL;   /* its kernels for every candidate shape go with it */
    FC_TRY(fc_backend_create(k->device, be->threads, &trial, NULL, 0));   /* the run's device */
    trial->tf32 = be->tf32;   /* timed in the arithmetic the run will use */
    fc_status st = fc_batch_sweep_run(&r->cfg, r->d->ds, &r->o, r->c->scaler, trial, limit, 3, &sweep);
    fc_backend_destroy(&trial);
    FC_TRY(st);
    char line[1024];
    fc_batch_sweep_describe(&sweep, line, sizeof line);
    if (k->verbose) fprintf(stderr, "%s%s\n", line, k->memory_limit ? "" : " (no --memory-limit: the memory available now)");
    r->o.windows_batch_size = sweep.chosen;
    return FC_OK;
}

/* The rank that times the batch trials: rank 0, or with shards the first
 * rank whose own series have a training window (its trials train on them
 * alone); rank 0 when none has (its trial then says why). */
static fc_status sweeping_rank(const train_run *r, int *sweeper) {
    *sweeper = 0;
    if (r->d->ds->shards < 2) return FC_OK;
    int n = fc_dist_size(), *has = calloc((size_t)n, sizeof *has);
    if (!has) return fc_error(FC_ERR_MEMORY, "out of memory");
    has[fc_dist_rank()] = fc_train_has_windows(r->d->ds, &r->cfg, &r->o);
    fc_status st = fc_dist_merge(has, (size_t)n * sizeof *has, 0);
    for (int k = n - 1; k >= 0; k--) *sweeper = has[k] ? k : *sweeper;
    free(has);
    return st;
}

/* In a job one rank sweeps (a sweep on every rank would time ranks
 * competing for the cores) and its choice is every rank's. */
static fc_status choose_batch(train_run *r) {
    const fc_api_run_keys *k = &r->c->run;
    if (k->resume) return fc_checkpoint_windows_batch(k->resume, &r->o.windows_batch_size);
    int sweeper;
    FC_TRY(sweeping_rank(r, &sweeper));
    size_t chosen = 0;   /* merged: the sweeper's, zero bits elsewhere */
    if (fc_dist_rank() == sweeper) {
        FC_TRY(sweep_batch(r));   /* a failure there ends the job (fc_api_job_failed) */
        chosen = r->o.windows_batch_size;
    }
    FC_TRY(fc_dist_merge(&chosen, sizeof chosen, 0));
    r->o.windows_batch_size = chosen;
    if (sweeper != 0 && fc_dist_rank() == 0 && k->verbose)   /* the sweeper's own line is not said */
        fprintf(stderr, "--windows-batch-size auto: %zu, timed by rank %d (rank 0's series have no training "
                "window)\n", chosen, sweeper);
    return FC_OK;
}

/* The plan of the run; refused, before anything large is allocated, when
 * it exceeds the limit, naming the biggest consumers and the batch that
 * would fit. */
static fc_status plan_memory(train_run *r) {
    size_t limit = r->c->run.memory_limit, fits = 0;
    fc_model *planned = NULL;
    FC_TRY(fc_model_plan(&r->cfg, &planned));
    fc_status st = fc_memory_plan_train(planned, r->d->ds, &r->o, r->m->be, &r->plan);
    if (st == FC_OK && limit && r->plan.total > limit)
        st = fc_memory_plan_largest_batch(planned, r->d->ds, &r->o, r->m->be, limit, &fits);
    fc_model_free(&planned);
    if (st != FC_OK || !limit || r->plan.total <= limit) return st;
    return fc_memory_plan_refusal(&r->plan, limit, fits);
}

static const char *kernel_note(fc_precision p) {
    if (p == FC_PREC_FP32) return "oneDNN fp32";
    if (p == FC_PREC_FP16) return "fp16 emulated (fp32 products of fp16-rounded inputs)";
    if (fc_backend_cpu_uses_amx()) return "bf16 on fcast's AMX kernels";
    const char *k = fc_backend_cpu_bf16_kernel_name();
    if (!strcmp(k, FC_BF16_KERNEL_CARRIED)) return "bf16 carried in fp32 (fp32 products of bf16-rounded inputs)";
    if (strcmp(k, "oneDNN")) return "bf16 on fcast's AVX512-BF16 kernels";
    return "bf16 on oneDNN";
}

/* The run log, when "log-file" names one (its GPUs sampled). */
static fc_status open_log(train_run *r) {
    if (!r->c->run.log_file || fc_dist_rank() != 0) return FC_OK;
    if (!(r->log_json = fc_api_settings_json(r->c, 1, r->d->path))) return fc_error(FC_ERR_MEMORY, "out of memory");
    FC_TRY(fc_run_log_open(r->c->run.log_file, &r->log));
    fc_run_log_sample_gpus(r->log);
    r->o.log = r->log;
    return FC_OK;
}

static void log_start(train_run *r) {
    size_t start = 0;
    const char *resume = r->c->run.resume;
    if (resume && fc_checkpoint_step(resume, &start) != FC_OK) start = 0;   /* fc_train reports it */
    fc_run_start s = {"train", r->log_json, r->plan.total, r->c->run.memory_limit, r->m->be->threads,
                      fc_precision_name(r->o.precision), r->o.max_steps, start, kernel_note(r->o.precision),
                      r->m->be->name};
    fc_run_log_start(r->log, &s);
}

static void log_summary(train_run *r, fc_status st) {
    const fc_train_summary *s = &r->m->sum;
    size_t used = 0, size = 0;
    if (r->m->be) r->m->be->arena_stats(r->m->be, &used, &size);
    const char *status = st == FC_OK ? (s->early_stopped ? "early_stopped" : "completed")
                       : st == FC_ERR_INTERRUPTED ? "interrupted" : "failed";
    fc_run_end e = {status, s->steps, s->seconds, s->step_seconds, s->windows_per_second, s->last_train_loss,
                    s->best_val_loss, s->best_step, fc_rss_peak(), r->plan.total, r->c->run.memory_limit, used,
                    &s->phases, r->m->model_file, s->checkpoint, st == FC_OK ? NULL : fc_last_error()};
    fc_run_log_summary(r->log, &e);
}

/* The options of the run: the configuration's, with its operations keys
 * and the caller's progress callback and cancel flag. */
static fc_status set_options(train_run *r, const volatile int *cancel) {
    const fc_api_run_keys *k = &r->c->run;
    fc_api_train_options(r->c, &r->hook, cancel, &r->o);
    if (!(r->m->checkpoint = checkpoint_path(k)) && (k->checkpoint || k->out))
        return fc_error(FC_ERR_MEMORY, "out of memory");
    r->o.checkpoint_path = r->m->checkpoint;
    r->o.checkpoint_every = k->checkpoint_every;
    r->o.checkpoint_at_validation = k->checkpoint != NULL;
    r->o.resume_path = k->resume;
    if (fc_dist_rank() != 0) {   /* in an MPI job rank 0 alone writes and speaks (docs/distributed.md) */
        r->o.checkpoint_path = NULL;
        r->o.verbose = 0;
    }
    if (!(r->m->run_config = fc_api_settings_json(r->c, 0, NULL))) return fc_error(FC_ERR_MEMORY, "out of memory");
    r->m->f.run_config_json = r->m->run_config;
    return FC_OK;
}

/* Whether the ranks of a job each keep a shard of a streamed file: not
 * under --deterministic-reduce (its promise, one process's model file,
 * needs one process's micro-batches) nor with conformal intervals (their
 * cross-validation runs on every series). */
static int shards_data(const train_run *r) {
    return fc_dist_size() > 1 && !r->o.deterministic_reduce && !r->c->pi_windows;
}

/* The data: the caller's, or the file's, read now. */
static fc_status take_data(train_run *r) {
    int ranks = shards_data(r) ? fc_dist_size() : 1;
    if (!r->d) FC_TRY(fc_api_data_open_shard(r->c, r->path, fc_dist_rank(), ranks, &r->opened));
    if (!r->d) r->d = r->opened;
    const fc_dataset *ds = r->d->ds;
    r->m->f.ds_kind = ds->ds_kind;
    r->m->f.freq = ds->freq;
    return fc_api_train_check_data(&r->cfg, ds, &r->o);
}

/* Everything before the first step: a run that cannot write its files or
 * reach its device fails before a large file is read. */
static fc_status prepare(train_run *r) {
    FC_TRY(check_outputs(&r->c->run, r->d ? r->d->path : r->path, r->m->checkpoint));
    FC_TRY(open_device(r));
    FC_TRY(take_data(r));
    FC_TRY(open_log(r));
    FC_TRY(fit_intervals(r));
    if (r->c->run.auto_batch) FC_TRY(choose_batch(r));
    FC_TRY(plan_memory(r));
    return fc_api_train_model_new(&r->cfg, &r->plan, &r->o, r->m->be, &r->m->f.model);   /* in the plan's arena */
}

/* The model so far is written on a cancel too (a checkpoint holds the rest). */
static fc_status write_model(train_run *r, fc_status st) {
    const char *out = fc_dist_rank() == 0 ? r->c->run.out : NULL;
    if (!out || !r->m->f.model || (st != FC_OK && (st != FC_ERR_INTERRUPTED || !r->m->sum.steps))) return st;
    char stop[FC_ERROR_CAP];   /* a stop's message says which checkpoint is good: kept when the model fails */
    snprintf(stop, sizeof stop, "%s", st == FC_OK ? "" : fc_last_error());
    fc_status saved = fc_forecaster_save(&r->m->f, out);
    if (saved == FC_OK && !(r->m->model_file = strdup(out))) saved = fc_error(FC_ERR_MEMORY, "out of memory");
    if (saved != FC_OK) return fc_api_model_not_written(st, saved, stop, &r->o, &r->m->sum);
    return st;
}

_Static_assert(FC_PHASE_COUNT == FCAST_PHASES, "fcast_train_report has a slot per phase");

static void fill_report(train_run *r) {
    fcast_model *m = r->m;
    const fc_train_summary *s = &m->sum;
    fcast_train_report *p = &m->report;
    fc_api_train_report(s, &r->o, m->be, p);
    p->kernel = kernel_note(r->o.precision);
    p->checkpoint = s->checkpoint ? m->checkpoint : NULL;
    p->model_file = m->model_file;
    p->memory_plan = r->plan.total;
    p->memory_limit = r->c->run.memory_limit;
    if (m->be) m->be->arena_stats(m->be, &p->arena_used, &p->arena_size);
    p->resident_peak = fc_rss_peak();
    for (int i = 0; i < FC_PHASE_COUNT; i++) p->phase_seconds[i] = s->phases.seconds[i];
}

static fc_status run(train_run *r, const volatile int *cancel) {
    FC_TRY(fc_api_resolve(r->c, &r->cfg, &r->loss));
    FC_TRY(check_intervals(r->c, &r->cfg, &r->loss));
    FC_TRY(set_options(r, cancel));
    r->m->f = (fc_forecaster){.scaler = r->c->scaler, .loss = r->loss, .run_config_json = r->m->run_config};
    fc_status st = prepare(r);
    if (st == FC_OK && r->log) log_start(r);
    if (st == FC_OK) st = fc_train(&r->m->f, r->d->ds, &r->o, &r->m->sum);
    if (r->m->be) r->m->be->arena_seal(r->m->be);   /* the caller may predict beyond the training's plan */
    st = write_model(r, st);
    if (r->log) log_summary(r, st);
    if (st == FC_OK) return fc_run_log_close(&r->log);   /* a log that lost lines fails the run */
    char why[FC_ERROR_CAP];   /* the run's own failure is the one to report */
    snprintf(why, sizeof why, "%s", fc_last_error());
    fc_run_log_close(&r->log);
    return fc_error(st, "%s", why);
}

static fc_status fcast_train_body(const fcast_config *c, const fcast_data *d, const char *path,
                                  fcast_progress_fn progress, void *user, const volatile int *cancel,
                                  fcast_model **out) {
    if (!c || (!path && (!d || !d->ds)) || !out)
        return fc_error(FC_ERR_INVALID, "fcast_train: config, data and out are needed");
    *out = NULL;
    FC_TRY(fc_dist_start());   /* started by mpirun: join its job */
    train_run r = {.c = c, .d = d, .path = path, .hook = {progress, user}};
    if (!(r.m = fc_api_new_model())) return FC_ERR_MEMORY;
    fc_status st = run(&r, cancel);
    st = fc_api_job_failed(st, 0);   /* a stop is agreed by every rank after one step: not a failure */
    free(r.log_json);
    fcast_data_free(r.opened);
    fill_report(&r);
    if (st != FC_OK && (st != FC_ERR_INTERRUPTED || !r.m->f.model)) {
        fcast_model_free(r.m);   /* stopped while calibrating: no model yet */
        return st;
    }
    fc_api_name_outputs(r.m);
    *out = r.m;   /* interrupted: the model so far, with the status that says so */
    return st;
}

fc_status fcast_train(const fcast_config *c, const fcast_data *d, fcast_progress_fn progress, void *user,
                      const volatile int *cancel, fcast_model **out) {
    return fc_api_words(fcast_train_body(c, d, NULL, progress, user, cancel, out));
}

fc_status fcast_train_file(const fcast_config *c, const char *path, fcast_progress_fn progress, void *user,
                           const volatile int *cancel, fcast_model **out) {
    return fc_api_words(fcast_train_body(c, NULL, path, progress, user, cancel, out));
}

fc_status fcast_model_train_report(const fcast_model *m, fcast_train_report *out) {
    if (!m || !out) return fc_error(FC_ERR_INVALID, "fcast_model_train_report: model and out are needed");
    *out = m->report;
    return FC_OK;
}

const char *fcast_phase_name(size_t p) { return p < FC_PHASE_COUNT ? fc_phase_name((fc_phase)p) : NULL; }
