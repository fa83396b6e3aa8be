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
#include "train_flags.h"
#include "train/forecaster.h"

static const char *SUMMARY =
    "Train a forecasting model on a long-format CSV (unique_id, ds, y) and write it as safetensors.\n"
    "Defaults are neuralforecast's (NHITS, NBEATS, MLP).";

/* Fails before training, not after, when the model cannot be written. */
static fc_status check_output_dir(const char *path) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
    if (access(dir, W_OK) != 0)
        return fc_error(FC_ERR_IO, "--out %s: cannot write into directory %s: %s", path, dir, strerror(errno));
    return FC_OK;
}

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
static fc_status choose_batch(train_setup *su, const fc_dataset *ds, fc_backend *be) {
    size_t limit = su->memory_limit ? su->memory_limit : fc_memory_available();
    if (!limit) return fc_error(FC_ERR_INVALID, "--windows-batch-size auto needs --memory-limit here");
    fc_batch_sweep sweep;
    fc_backend *trial = NULL;   /* its kernels for every candidate shape go with it */
    FC_TRY(fc_backend_cpu_create(be->threads, &trial));
    fc_status st = fc_batch_sweep_run(&su->cfg, ds, &su->o, su->scaler, trial, limit, 3, &sweep);
    fc_backend_destroy(&trial);
    FC_TRY(st);
    char line[1024];
    fc_batch_sweep_describe(&sweep, line, sizeof line);
    fprintf(stderr, "%s%s\n", line, su->memory_limit ? "" : " (no --memory-limit: the memory available now)");
    su->o.windows_batch_size = sweep.chosen;
    return FC_OK;
}

static int train(const train_flags *a) {
    train_setup su;
    int rc = train_flags_resolve("train", a, &su);
    if (rc) return rc == 2 ? 2 : cli_fail("train");
    fc_forecaster f = {.scaler = su.scaler, .loss = su.loss};
    fc_data_choice choice;
    fc_dataset *ds = NULL;
    fc_backend *be = NULL;
    fc_train_summary sum;
    fc_memory_plan plan;
    size_t rss_start = fc_rss_current();
    fc_status st = check_output_dir(a->out);
    if (st == FC_OK) st = train_flags_load_data(a, &su, &choice, &ds);
    if (st == FC_OK) st = fc_train_check(ds, &su.cfg, &su.o);
    if (st == FC_OK) st = fc_backend_cpu_create((int)(a->threads > 100000 ? 100000 : a->threads), &be);
    if (st == FC_OK && su.auto_batch) st = choose_batch(&su, ds, be);
    if (st == FC_OK) st = check_memory(&su, ds, be, &plan);
    if (st == FC_OK) st = be->arena_open(be, fc_memory_plan_arena_bytes(&plan));   /* the model lives in it */
    if (st == FC_OK) st = fc_model_create(&su.cfg, be, &f.model);
    if (st == FC_OK) st = fc_model_init_params(f.model, su.o.seed);
    if (st == FC_OK) {
        f.ds_kind = ds->ds_kind;
        f.freq = ds->freq;
        st = fc_train(&f, ds, &su.o, &sum);
    }
    if (st == FC_OK) st = fc_forecaster_save(&f, a->out);
    if (st == FC_OK) print_summary(&sum, &su.o, a->out);
    if (st == FC_OK) print_memory(be, &plan, su.memory_limit, rss_start);
    rc = st == FC_OK ? 0 : cli_fail("train");
    fc_forecaster_free(&f);
    fc_backend_destroy(&be);
    fc_dataset_free(&ds);
    return rc;
}

int cmd_train(int argc, char **argv, int first) {
    train_flags a;
    arg_spec specs[FC_TRAIN_MAX_SPECS];
    train_flags_init(&a, specs, 1);
    int rc = args_parse("train", SUMMARY, specs, argc, argv, first);
    if (rc) return rc == 1 ? 0 : 2;
    return train(&a);
}
