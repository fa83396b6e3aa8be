/* The flags of `fcast train` and `fcast plan` (see train_flags.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_choice.h"
#include "cli.h"
#include "train_flags.h"

void train_flags_init(train_flags *a, arg_spec specs[FC_TRAIN_MAX_SPECS], int out_required) {
    /* max_steps and lr unset: the model's defaults (model_kinds.c) */
    *a = (train_flags){.loss = "mae", .max_steps = ARG_SIZE_UNSET, .batch_size = 32,
                       .val_check = 100, .step_size = 1, .num_lr_decays = -2, .patience = -1, .seed = 1,
                       .lr = NAN, .precision = "fp32", .grad_accum = 1, .device = "auto",
                       .cuda_graph = "on", .season = ARG_SIZE_UNSET};
    arch_flags_init(&a->arch);
    arg_spec table[] = {
        {"data", ARG_IN, &a->data, "FILE", "training data: long CSV with unique_id, ds, y", 1, 0},
        {"model", ARG_STR, &a->model, "NAME", "nhits | nbeats | mlp | nbeatsx | lstm | tide", 1, 0},
        {"h", ARG_SIZE, &a->h, "H", "forecast horizon", 1, 0},
        {"input-size", ARG_SIZE, &a->input_size, "L", "input window length", 1, 0},
        {"out", ARG_OUT, &a->out, "FILE", "model file to write (.safetensors)", out_required, 0},
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
        {"checkpoint", ARG_OUT, &a->checkpoint, "FILE", "write checkpoints here, every --checkpoint-every steps and at "
                                                        "validation checks (default on a stop: OUT.ckpt.safetensors)", 0, 0},
        {"checkpoint-every", ARG_SIZE, &a->checkpoint_every, "N", "steps between checkpoints (0 = only at validation "
                                                                  "checks and on a stop)", 0, 0},
        {"resume", ARG_IN, &a->resume, "FILE", "continue the run saved in this checkpoint (same options and data)", 0, 0},
        {"log-file", ARG_OUT, &a->log_file, "FILE", "append the run log here (JSON Lines; see fcast report)", 0, 0},
        {"profile", ARG_FLAG, &a->profile, NULL, "every step's phase timings in the run log", 0, 0},
        {"deterministic-reduce", ARG_FLAG, &a->deterministic_reduce, NULL,
         "under mpirun, sum the ranks' gradients in rank order: N ranks of W windows train the model one process "
         "trains with --grad-accum N (N a power of 2; docs/distributed.md)", 0, 0},
    };
    size_t n = sizeof table / sizeof *table, n_ops = out_required ? sizeof operations / sizeof *operations : 0;
    memset(specs, 0, FC_TRAIN_MAX_SPECS * sizeof *specs);
    memcpy(specs, table, sizeof table);
    memcpy(specs + n, operations, n_ops * sizeof *operations);
    exog_flags_specs(&a->exog, specs + n + n_ops);
    n += EXOG_FLAG_COUNT;
    if (arch_flags_specs(&a->arch, specs + n + n_ops, FC_TRAIN_MAX_SPECS - n - n_ops)) abort();   /* a table too small: a bug */
}

const char *const FC_TRAIN_OPERATIONS_FLAGS[] = {"out", "quiet", "memory-limit", "data-store", "store-dir", "device",
                                                 "checkpoint", "checkpoint-every", "resume", "log-file", "profile",
                                                 "deterministic-reduce", NULL};

/* A parsed flag's value as text, as fcast_config_set takes it. */
static const char *flag_text(const arg_spec *s, char *buf, size_t cap) {
    switch (s->kind) {
    case ARG_STR: case ARG_IN: case ARG_IN_LIST: case ARG_OUT: return *(const char *const *)s->dest;
    case ARG_INT: snprintf(buf, cap, "%ld", *(const long *)s->dest); break;
    case ARG_SIZE: snprintf(buf, cap, "%zu", *(const size_t *)s->dest); break;
    case ARG_DOUBLE: snprintf(buf, cap, "%.17g", *(const double *)s->dest); break;
    case ARG_FLAG: return *(const int *)s->dest ? "on" : "off";
    }
    return buf;
}

/* Flags that make the configuration (fcast_config_new) or are not keys. */
static int not_a_key(const char *name) {
    static const char *const names[] = {"data", "model", "h", "input-size", "quiet", NULL};
    for (const char *const *n = names; *n; n++)
        if (!strcmp(*n, name)) return 1;
    return 0;
}

static const char *key_of(const char *name, const char *const *renamed) {
    for (; renamed && renamed[0]; renamed += 2)
        if (!strcmp(renamed[0], name)) return renamed[1];
    return name;
}

/* The exit code for a refused setting: a usage error when the value is not
 * one of the flag's choices. */
static int refused(const char *command, const char *key) {
    int choices = !strcmp(key, "model") || !strcmp(key, "scaler") || !strcmp(key, "loss");
    if (command) fprintf(stderr, "fcast %s: %s\n", command, fc_last_error());
    return choices ? 2 : cli_exit_code(fc_last_status());
}

int train_flags_config(const char *command, const train_flags *a, const arg_spec *specs,
                       const char *const *renamed, fcast_config **out) {
    *out = NULL;
    if (a->exog.stat && !a->exog.stat_file) {
        if (command)
            fprintf(stderr, "fcast %s: --stat-exog names columns of the static file: give it with --stat-exog-file\n",
                    command);
        return 4;
    }
    fcast_config *c = NULL;
    if (fcast_config_new(a->model, 1, 1, &c) != FC_OK) return refused(command, "model");   /* the name alone */
    fcast_config_free(c);
    if (fcast_config_new(a->model, a->h, a->input_size, &c) != FC_OK) return refused(command, "h");
    int rc = fcast_config_set(c, "verbose", a->quiet ? "off" : "on") == FC_OK ? 0 : refused(command, "verbose");
    int intervals = 0;
    for (const arg_spec *s = specs; s->name; s++) intervals |= !strcmp(s->name, "prediction-intervals") && s->seen;
    for (const arg_spec *s = specs; !rc && s->name; s++) {
        char buf[64];
        const char *key = key_of(s->name, renamed);
        if (!s->seen || not_a_key(s->name)) continue;
        if (!intervals && !strncmp(key, "pi-", 3)) continue;   /* --print-config writes them without intervals */
        if (!strcmp(key, "num-lr-decays") && a->num_lr_decays == -2) continue;   /* -2: the model's (written too) */
        if (fcast_config_set(c, key, flag_text(s, buf, sizeof buf)) != FC_OK) rc = refused(command, key);
    }
    if (!rc && fcast_config_check(c) != FC_OK) rc = refused(command, "");
    if (rc) fcast_config_free(c);
    else *out = c;
    return rc;
}
