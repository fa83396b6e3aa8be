/* The flags of `fcast train` and `fcast plan` (see train_flags.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_choice.h"
#include "train/memory_plan.h"
#include "core/error.h"
#include "train_flags.h"
#include "models/model_kinds.h"

void train_flags_init(train_flags *a, arg_spec specs[FC_TRAIN_MAX_SPECS], int out_required) {
    /* max_steps and lr unset: the model's defaults (model_kinds.c) */
    *a = (train_flags){.loss = "mae", .max_steps = ARG_SIZE_UNSET, .batch_size = 32,
                       .val_check = 100, .step_size = 1, .num_lr_decays = -2, .patience = -1, .seed = 1,
                       .lr = NAN, .precision = "fp32", .grad_accum = 1, .device = "auto",
                       .cuda_graph = "on", .season = ARG_SIZE_UNSET};
    fc_arch_defaults(&a->arch);
    arg_spec table[] = {
        {"data", ARG_STR, &a->data, "FILE", "training data: long CSV with unique_id, ds, y", 1, 0},
        {"model", ARG_STR, &a->model, "NAME", "nhits | nbeats | mlp | nbeatsx | lstm | tide", 1, 0},
        {"h", ARG_SIZE, &a->h, "H", "forecast horizon", 1, 0},
        {"input-size", ARG_SIZE, &a->input_size, "L", "input window length", 1, 0},
        {"out", ARG_STR, &a->out, "FILE", "model file to write (.safetensors)", out_required, 0},
        {"max-steps", ARG_SIZE, &a->max_steps, "N", "training steps (the model's: 1000, PatchTST 5000)", 0, 0},
        {"batch-size", ARG_SIZE, &a->batch_size, "N", "series per step (32)", 0, 0},
        {"windows-batch-size", ARG_STR, &a->wbs, "N|auto", "windows per step (the model's: 1024, LSTM 128; auto: the fastest that fits the memory limit)", 0, 0},
        {"lr", ARG_DOUBLE, &a->lr, "X", "Adam learning rate (the model's: 1e-3, PatchTST 1e-4)", 0, 0},
        {"num-lr-decays", ARG_INT, &a->num_lr_decays, "N", "halvings of the learning rate over max-steps (3; MLP: -1 = none)", 0, 0},
        {"scaler", ARG_STR, &a->scaler, "NAME", "per-window scaler: identity|standard|robust|minmax (the model's: identity, LSTM robust)", 0, 0},
        {"loss", ARG_STR, &a->loss, "NAME", "training loss: mae | mse | huber | smape | mape | mase | quantile | mq "
                                            "(mae; docs/training.md \"Losses\")", 0, 0},
        {"huber-delta", ARG_STR, &a->huber_delta, "X", "huber: threshold between the squared and absolute parts (1.0)", 0, 0},
        {"quantile", ARG_STR, &a->quantile, "Q", "quantile: the quantile in (0, 1) (0.5)", 0, 0},
        {"season", ARG_SIZE, &a->season, "M", "mase: seasonality of the naive error that scales it, below --input-size (1)", 0, 0},
        {"level", ARG_STR, &a->level, "LIST", "mq: prediction-interval levels, integers in 1..99 (80,90)", 0, 0},
        {"quantiles", ARG_STR, &a->quantiles, "LIST", "mq: quantiles in (0, 1) instead of --level, e.g. 0.1,0.5,0.9", 0, 0},
        {"val-size", ARG_SIZE, &a->val_size, "N", "points held out at the end of each series for validation (0)", 0, 0},
        {"val-check-steps", ARG_SIZE, &a->val_check, "N", "steps between validations (100)", 0, 0},
        {"early-stop-patience", ARG_INT, &a->patience, "K", "stop after K validations without improvement (-1 = off)", 0, 0},
        {"step-size", ARG_SIZE, &a->step_size, "N", "distance between training windows (1)", 0, 0},
        {"seed", ARG_INT, &a->seed, "S", "random seed (1)", 0, 0},
        {"threads", ARG_SIZE, &a->threads, "N", "CPU threads (0 = all cores)", 0, 0},
        {"device", ARG_STR, &a->device, "DEV", DEVICE_FLAG_HELP, 0, 0},
        {"freq", ARG_STR, &a->freq, "F", "frequency: 1, D, W, h, 30min, MS, QS, YS, ... (inferred)", 0, 0},
        {"quiet", ARG_FLAG, &a->quiet, NULL, "no progress output", 0, 0},
        {"precision", ARG_STR, &a->precision, "P", "matrix products in fp32 | bf16 | fp16 (fp32; fp16 uses loss scaling)", 0, 0},
        {"tf32", ARG_FLAG, &a->tf32, NULL, "on a GPU, fp32 matrix products round their inputs to TF32 on tensor cores "
                                             "(faster; off by default so fp32 means fp32; no effect on the CPU)", 0, 0},
        {"cuda-graph", ARG_STR, &a->cuda_graph, "on|off", "on a GPU, replay each step's forward and backward as CUDA "
                                                         "graphs (on; off for debugging)", 0, 0},
        {"grad-accum", ARG_SIZE, &a->grad_accum, "K", "micro-batches per optimizer step; effective batch K x windows-batch-size (1)", 0, 0},
        {"clip-grad-norm", ARG_DOUBLE, &a->clip, "X", "clip the global gradient norm to X (0 = off)", 0, 0},
        {"memory-limit", ARG_STR, &a->memory_limit, "SIZE", "refuse runs whose memory plan exceeds SIZE (512MiB, 12GB, ...)", 0, 0},
        {"data-store", ARG_STR, &a->data_store, "MODE", "auto | memory | stream: load the data whole or stream it into a mapped "
                                                         "store file (auto: stream when loading whole would take over half of the memory limit)", 0, 0},
        {"store-dir", ARG_STR, &a->store_dir, "DIR", "where a streamed data store goes ($TMPDIR, else /var/tmp)", 0, 0},
    };
    arg_spec operations[] = {
        {"checkpoint", ARG_STR, &a->checkpoint, "FILE", "write checkpoints here, every --checkpoint-every steps and at "
                                                        "validation checks (default on a stop: OUT.ckpt.safetensors)", 0, 0},
        {"checkpoint-every", ARG_SIZE, &a->checkpoint_every, "N", "steps between checkpoints (0 = only at validation "
                                                                  "checks and on a stop)", 0, 0},
        {"resume", ARG_STR, &a->resume, "FILE", "continue the run saved in this checkpoint (same options and data)", 0, 0},
        {"log-file", ARG_STR, &a->log_file, "FILE", "append the run log here (JSON Lines; see fcast report)", 0, 0},
        {"profile", ARG_FLAG, &a->profile, NULL, "every step's phase timings in the run log", 0, 0},
    };
    size_t n = sizeof table / sizeof *table, n_ops = out_required ? sizeof operations / sizeof *operations : 0;
    memset(specs, 0, FC_TRAIN_MAX_SPECS * sizeof *specs);
    memcpy(specs, table, sizeof table);
    memcpy(specs + n, operations, n_ops * sizeof *operations);
    exog_flags_specs(&a->exog, specs + n + n_ops);
    n += EXOG_FLAG_COUNT;
    fc_arch_specs(&a->arch, specs + n + n_ops, FC_TRAIN_MAX_SPECS - n - n_ops);
}

const char *const FC_TRAIN_OPERATIONS_FLAGS[] = {"out", "quiet", "memory-limit", "data-store", "store-dir", "device",
                                                 "checkpoint", "checkpoint-every", "resume", "log-file", "profile",
                                                 NULL};

static fc_status build_options(const train_flags *a, fc_train_options *o, fc_model_kind kind) {
    fc_train_options_default(o);
    const fc_model_kind_ops *row = fc_model_kind_row(kind);
    o->max_steps = a->max_steps != ARG_SIZE_UNSET ? a->max_steps : row->max_steps;
    o->batch_size = a->batch_size;
    char *end;
    if (!a->wbs) {                       /* neuralforecast's default for the model */
        o->windows_batch_size = fc_model_kind_row(kind)->windows_batch_size;
    } else if (strcmp(a->wbs, "auto") == 0) {
        o->windows_batch_size = 1024;   /* replaced by the sweep's choice */
    } else {
        unsigned long long w = strtoull(a->wbs, &end, 10);
        if (end == a->wbs || *end || a->wbs[0] == '-' || w == 0 || w > ((size_t)1 << 20))
            return fc_error(FC_ERR_INVALID, "--windows-batch-size '%s' is not a number from 1 to %zu or auto",
                            a->wbs, (size_t)1 << 20);
        o->windows_batch_size = (size_t)w;
    }
    if (strcmp(a->cuda_graph, "on") && strcmp(a->cuda_graph, "off"))
        return fc_error(FC_ERR_INVALID, "--cuda-graph '%s': expected on or off", a->cuda_graph);
    o->no_graphs = !strcmp(a->cuda_graph, "off");
    o->learning_rate = isnan(a->lr) ? row->learning_rate : a->lr;
    o->num_lr_decays = a->num_lr_decays != -2 ? a->num_lr_decays : fc_model_kind_num_lr_decays(kind);
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

/* A number in text, all of it: 0 on success. */
static int parse_number(const char *t, double *out) {
    char *end;
    *out = strtod(t, &end);
    return end == t || *end || !isfinite(*out) ? -1 : 0;
}

/* A comma-separated list of numbers (integers when `integers`) into x. */
static fc_status parse_list(const char *flag, const char *text, int integers, double *x, size_t *n) {
    char item[64];
    *n = 0;
    for (const char *p = text;; p++) {
        size_t len = strcspn(p, ",");
        double v;
        if (*n == FC_MAX_QUANTILES)
            return fc_error(FC_ERR_INVALID, "--%s '%s': more than %d values", flag, text, FC_MAX_QUANTILES);
        if (len == 0 || len >= sizeof item) return fc_error(FC_ERR_INVALID, "--%s '%s': an empty or overlong entry", flag, text);
        memcpy(item, p, len);
        item[len] = 0;
        if (parse_number(item, &v) || (integers && v != (double)(long)v))
            return fc_error(FC_ERR_INVALID, "--%s '%s': '%s' is not %s", flag, text, item, integers ? "an integer" : "a number");
        x[(*n)++] = v;
        p += len;
        if (!*p) return FC_OK;
    }
}

/* MQ's quantiles from --quantiles or --level (neuralforecast's MQLoss takes
 * the quantiles when both are given; here both is a mistake). */
static fc_status mq_from_flags(const train_flags *a, fc_loss_spec *s) {
    double x[FC_MAX_QUANTILES];
    size_t n;
    if (a->level && a->quantiles)
        return fc_error(FC_ERR_INVALID, "--level and --quantiles both given: mq takes one of them");
    if (a->quantiles) {
        FC_TRY(parse_list("quantiles", a->quantiles, 0, x, &n));
        return fc_loss_set_quantiles(s, x, n, "--quantiles");
    }
    if (!a->level) return FC_OK;   /* the default level 80, 90 */
    long lv[FC_MAX_QUANTILES];
    FC_TRY(parse_list("level", a->level, 1, x, &n));
    for (size_t i = 0; i < n; i++) lv[i] = (long)x[i];
    return fc_loss_set_levels(s, lv, n, "--level");
}

/* A parameter flag given to a loss that has no such parameter. */
static fc_status refuse_flag(const char *flag, const char *owner, const char *loss) {
    return fc_error(FC_ERR_INVALID, "--%s is a parameter of --loss %s, not of --loss %s", flag, owner, loss);
}

/* The loss's parameters from their flags, checked against input size L. */
static fc_status loss_from_flags(const train_flags *a, fc_loss_spec *s, size_t L) {
    const char *name = fc_loss_kind_name(s->kind);
    double v;
    if (a->huber_delta && s->kind != FC_LOSS_HUBER) return refuse_flag("huber-delta", "huber", name);
    if (a->quantile && s->kind != FC_LOSS_QUANTILE) return refuse_flag("quantile", "quantile", name);
    if (a->season != ARG_SIZE_UNSET && s->kind != FC_LOSS_MASE) return refuse_flag("season", "mase", name);
    if (a->level && s->kind != FC_LOSS_MQ) return refuse_flag("level", "mq", name);
    if (a->quantiles && s->kind != FC_LOSS_MQ) return refuse_flag("quantiles", "mq", name);
    if (a->huber_delta) {
        if (parse_number(a->huber_delta, &v) || !(v > 0))
            return fc_error(FC_ERR_INVALID, "--huber-delta '%s' is not a positive number", a->huber_delta);
        s->delta = (float)v;
    }
    if (a->quantile) {
        if (parse_number(a->quantile, &v) || !(v > 0 && v < 1))
            return fc_error(FC_ERR_INVALID, "--quantile '%s' is not a number strictly between 0 and 1", a->quantile);
        s->q[0] = (float)v;
    }
    if (a->season != ARG_SIZE_UNSET) {
        if (a->season < 1 || a->season >= L)
            return fc_error(FC_ERR_INVALID, "--season %zu must be at least 1 and below --input-size %zu", a->season, L);
        s->season = (int)a->season;
    }
    if (s->kind == FC_LOSS_MQ) FC_TRY(mq_from_flags(a, s));
    char what[32];
    snprintf(what, sizeof what, "--loss %s", name);
    return fc_loss_check(s, L, what);
}

int train_flags_resolve(const char *command, const train_flags *a, train_setup *s) {
    memset(s, 0, sizeof *s);
    if (fc_model_kind_parse(a->model, &s->kind)) {
        char kinds[128];
        fc_model_kind_list(kinds, sizeof kinds);
        fprintf(stderr, "fcast %s: --model '%s' is not one of %s (any case)\n", command, a->model, kinds);
        return 2;
    }
    fc_loss_kind loss;
    const char *scaler = a->scaler ? a->scaler : fc_model_kind_row(s->kind)->scaler_type;   /* the model's default */
    if (fc_scaler_parse(scaler, &s->scaler)) {
        fprintf(stderr, "fcast %s: --scaler '%s' is not one of identity, standard, robust, minmax\n", command, scaler);
        return 2;
    }
    if (fc_loss_parse(a->loss, &loss)) {
        fprintf(stderr, "fcast %s: --loss '%s' is not one of mae, mse, huber, smape, mape, mase, quantile, mq\n",
                command, a->loss);
        return 2;
    }
    if (fc_memory_limit_parse(a->memory_limit, &s->memory_limit) != FC_OK) return 1;
    if (fc_data_store_parse(a->data_store, &s->data_store) != FC_OK) return 1;
    s->auto_batch = a->wbs && strcmp(a->wbs, "auto") == 0;
    fc_model_config_default(&s->cfg, s->kind, a->h, a->input_size);
    if (exog_flags_apply(&a->exog, &s->cfg) != FC_OK) return 1;
    if (fc_arch_apply(&a->arch, &s->cfg) != FC_OK) return 1;   /* checks the whole configuration */
    /* The loss decides the model's outputs per point, before the model is planned. */
    s->loss = fc_loss_default(loss);
    if (loss_from_flags(a, &s->loss, a->input_size) != FC_OK) return 1;
    s->cfg.n_outputs = fc_loss_n_outputs(&s->loss);
    return build_options(a, &s->o, s->kind) == FC_OK ? 0 : 1;
}

fc_status train_flags_load_data(const train_flags *a, const train_setup *s, fc_data_choice *c, fc_dataset **out) {
    fc_load_options lo = {.freq = a->freq, .drop_exog = !exog_flags_keep_columns(&s->cfg), .store_dir = a->store_dir};
    FC_TRY(fc_data_choose(a->data, &lo, s->data_store, s->memory_limit, c));
    fc_data_choice_print(c, &lo, s->memory_limit, stderr);
    FC_TRY(fc_dataset_open(a->data, &lo, out));
    fc_status st = exog_flags_bind(&a->exog, &s->cfg, a->data, *out);
    if (st != FC_OK) fc_dataset_free(out);
    return st;
}


