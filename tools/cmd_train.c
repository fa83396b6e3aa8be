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
#include "model_options.h"
#include "train/forecaster.h"

typedef struct {
    const char *data, *model, *out, *scaler, *loss, *freq, *precision;
    size_t h, input_size, max_steps, batch_size, wbs, val_size, val_check, step_size, threads, grad_accum;
    long num_lr_decays, patience, seed;
    double lr, clip;
    int quiet;
    fc_arch_options arch;
} train_args;

static const char *SUMMARY =
    "Train a forecasting model on a long-format CSV (unique_id, ds, y) and write it as safetensors.\n"
    "Defaults are neuralforecast's (NHITS, NBEATS, MLP).";

static fc_status build_options(const train_args *a, fc_train_options *o, fc_model_kind kind) {
    fc_train_options_default(o);
    o->max_steps = a->max_steps;
    o->batch_size = a->batch_size;
    o->windows_batch_size = a->wbs;
    o->learning_rate = a->lr;
    o->num_lr_decays = a->num_lr_decays != -2 ? a->num_lr_decays : kind == FC_MODEL_MLP ? -1 : 3;
    o->val_size = a->val_size;
    o->val_check_steps = a->val_check;
    o->early_stop_patience = a->patience;
    o->step_size = a->step_size;
    if (a->seed < 0) return fc_error(FC_ERR_INVALID, "--seed must be >= 0");
    o->seed = (uint64_t)a->seed;
    o->verbose = a->quiet ? 0 : 1;
    if (fc_precision_parse(a->precision, &o->precision))
        return fc_error(FC_ERR_INVALID, "--precision '%s' is not one of fp32, bf16, fp16", a->precision);
    o->grad_accum = a->grad_accum;
    o->clip_grad_norm = a->clip;
    return FC_OK;
}

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

static void print_summary(const fc_train_summary *s, const fc_train_options *o, const char *out) {
    fprintf(stderr, "trained %zu steps in %.1f s (%.0f windows/s, %s)%s", s->steps, s->seconds,
            s->windows_per_second, fc_precision_name(o->precision), s->early_stopped ? ", stopped early" : "");
    if (o->precision == FC_PREC_FP16)
        fprintf(stderr, "; %zu steps skipped by the loss scaler (final scale %g)", s->skipped_steps,
                (double)s->loss_scale);
    if (o->val_size) fprintf(stderr, "; best validation loss %.5f at step %zu", s->best_val_loss, s->best_step);
    fprintf(stderr, "\nmodel written to %s\n", out);
}

static int train(const train_args *a) {
    fc_model_kind kind;
    if (fc_model_kind_parse(a->model, &kind)) {
        fprintf(stderr, "fcast train: --model '%s' is not one of nhits, nbeats, mlp\n", a->model);
        return 2;
    }
    fc_forecaster f = {0};
    if (fc_scaler_parse(a->scaler, &f.scaler) || fc_loss_parse(a->loss, &f.loss)) {
        fprintf(stderr, "fcast train: --scaler must be identity|standard|robust|minmax and --loss mae|mse\n");
        return 2;
    }
    fc_model_config cfg;
    fc_model_config_default(&cfg, kind, a->h, a->input_size);
    if (fc_arch_apply(&a->arch, &cfg) != FC_OK) return cli_fail("train");
    fc_train_options o;
    if (build_options(a, &o, kind) != FC_OK) return cli_fail("train");
    fc_load_options lo = {.freq = a->freq, .drop_exog = 1};
    fc_dataset *ds = NULL;
    fc_backend *be = NULL;
    fc_train_summary sum;
    fc_status st = check_output_dir(a->out);
    if (st == FC_OK) st = fc_dataset_load_csv(a->data, &lo, &ds);
    if (st == FC_OK) st = fc_train_check(ds, &cfg, &o);
    if (st == FC_OK) st = fc_backend_cpu_create((int)(a->threads > 100000 ? 100000 : a->threads), &be);
    if (st == FC_OK) st = fc_model_create(&cfg, be, &f.model);
    if (st == FC_OK) st = fc_model_init_params(f.model, o.seed);
    if (st == FC_OK) {
        f.ds_kind = ds->ds_kind;
        f.freq = ds->freq;
        st = fc_train(&f, ds, &o, &sum);
    }
    if (st == FC_OK) st = fc_forecaster_save(&f, a->out);
    if (st == FC_OK) print_summary(&sum, &o, a->out);
    int rc = st == FC_OK ? 0 : cli_fail("train");
    fc_forecaster_free(&f);
    fc_backend_destroy(&be);
    fc_dataset_free(&ds);
    return rc;
}

int cmd_train(int argc, char **argv, int first) {
    train_args a = {.scaler = "identity", .loss = "mae", .max_steps = 1000, .batch_size = 32, .wbs = 1024,
                    .val_check = 100, .step_size = 1, .num_lr_decays = -2, .patience = -1, .seed = 1, .lr = 1e-3,
                    .precision = "fp32", .grad_accum = 1};
    fc_arch_defaults(&a.arch);
    arg_spec specs[48] = {
        {"data", ARG_STR, &a.data, "FILE", "training data: long CSV with unique_id, ds, y", 1, 0},
        {"model", ARG_STR, &a.model, "NAME", "nhits | nbeats | mlp", 1, 0},
        {"h", ARG_SIZE, &a.h, "H", "forecast horizon", 1, 0},
        {"input-size", ARG_SIZE, &a.input_size, "L", "input window length", 1, 0},
        {"out", ARG_STR, &a.out, "FILE", "model file to write (.safetensors)", 1, 0},
        {"max-steps", ARG_SIZE, &a.max_steps, "N", "training steps (1000)", 0, 0},
        {"batch-size", ARG_SIZE, &a.batch_size, "N", "series per step (32)", 0, 0},
        {"windows-batch-size", ARG_SIZE, &a.wbs, "N", "windows per step (1024)", 0, 0},
        {"lr", ARG_DOUBLE, &a.lr, "X", "Adam learning rate (1e-3)", 0, 0},
        {"num-lr-decays", ARG_INT, &a.num_lr_decays, "N", "halvings of the learning rate over max-steps (3; MLP: -1 = none)", 0, 0},
        {"scaler", ARG_STR, &a.scaler, "NAME", "per-window scaler: identity|standard|robust|minmax (identity)", 0, 0},
        {"loss", ARG_STR, &a.loss, "NAME", "mae | mse (mae)", 0, 0},
        {"val-size", ARG_SIZE, &a.val_size, "N", "points held out at the end of each series for validation (0)", 0, 0},
        {"val-check-steps", ARG_SIZE, &a.val_check, "N", "steps between validations (100)", 0, 0},
        {"early-stop-patience", ARG_INT, &a.patience, "K", "stop after K validations without improvement (-1 = off)", 0, 0},
        {"step-size", ARG_SIZE, &a.step_size, "N", "distance between training windows (1)", 0, 0},
        {"seed", ARG_INT, &a.seed, "S", "random seed (1)", 0, 0},
        {"threads", ARG_SIZE, &a.threads, "N", "CPU threads (0 = all cores)", 0, 0},
        {"freq", ARG_STR, &a.freq, "F", "frequency: 1, D, W, h, 30min, MS, QS, YS, ... (inferred)", 0, 0},
        {"quiet", ARG_FLAG, &a.quiet, NULL, "no progress output", 0, 0},
        {"precision", ARG_STR, &a.precision, "P", "matrix products in fp32 | bf16 | fp16 (fp32; fp16 uses loss scaling)", 0, 0},
        {"grad-accum", ARG_SIZE, &a.grad_accum, "K", "micro-batches per optimizer step; effective batch K x windows-batch-size (1)", 0, 0},
        {"clip-grad-norm", ARG_DOUBLE, &a.clip, "X", "clip the global gradient norm to X (0 = off)", 0, 0},
    };
    fc_arch_specs(&a.arch, specs + 23, 48 - 23);
    int rc = args_parse("train", SUMMARY, specs, argc, argv, first);
    if (rc) return rc == 1 ? 0 : 2;
    return train(&a);
}
