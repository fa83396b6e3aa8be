/* The flags of `fcast train` and `fcast plan` (see train_flags.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_choice.h"
#include "train/memory_plan.h"
#include "core/error.h"
#include "train_flags.h"

void train_flags_init(train_flags *a, arg_spec specs[FC_TRAIN_MAX_SPECS], int out_required) {
    *a = (train_flags){.scaler = "identity", .loss = "mae", .max_steps = 1000, .batch_size = 32, .wbs = "1024",
                       .val_check = 100, .step_size = 1, .num_lr_decays = -2, .patience = -1, .seed = 1,
                       .lr = 1e-3, .precision = "fp32", .grad_accum = 1, .device = "auto",
                       .cuda_graph = "on"};
    fc_arch_defaults(&a->arch);
    arg_spec table[] = {
        {"data", ARG_STR, &a->data, "FILE", "training data: long CSV with unique_id, ds, y", 1, 0},
        {"model", ARG_STR, &a->model, "NAME", "nhits | nbeats | mlp", 1, 0},
        {"h", ARG_SIZE, &a->h, "H", "forecast horizon", 1, 0},
        {"input-size", ARG_SIZE, &a->input_size, "L", "input window length", 1, 0},
        {"out", ARG_STR, &a->out, "FILE", "model file to write (.safetensors)", out_required, 0},
        {"max-steps", ARG_SIZE, &a->max_steps, "N", "training steps (1000)", 0, 0},
        {"batch-size", ARG_SIZE, &a->batch_size, "N", "series per step (32)", 0, 0},
        {"windows-batch-size", ARG_STR, &a->wbs, "N|auto", "windows per step (1024; auto: the fastest that fits the memory limit)", 0, 0},
        {"lr", ARG_DOUBLE, &a->lr, "X", "Adam learning rate (1e-3)", 0, 0},
        {"num-lr-decays", ARG_INT, &a->num_lr_decays, "N", "halvings of the learning rate over max-steps (3; MLP: -1 = none)", 0, 0},
        {"scaler", ARG_STR, &a->scaler, "NAME", "per-window scaler: identity|standard|robust|minmax (identity)", 0, 0},
        {"loss", ARG_STR, &a->loss, "NAME", "mae | mse (mae)", 0, 0},
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
    fc_arch_specs(&a->arch, specs + n + n_ops, FC_TRAIN_MAX_SPECS - n - n_ops);
}

const char *const FC_TRAIN_OPERATIONS_FLAGS[] = {"out", "quiet", "memory-limit", "data-store", "store-dir", "device",
                                                 "checkpoint", "checkpoint-every", "resume", "log-file", "profile",
                                                 NULL};

static fc_status build_options(const train_flags *a, fc_train_options *o, fc_model_kind kind) {
    fc_train_options_default(o);
    o->max_steps = a->max_steps;
    o->batch_size = a->batch_size;
    char *end;
    if (strcmp(a->wbs, "auto") == 0) {
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

int train_flags_resolve(const char *command, const train_flags *a, train_setup *s) {
    memset(s, 0, sizeof *s);
    if (fc_model_kind_parse(a->model, &s->kind)) {
        fprintf(stderr, "fcast %s: --model '%s' is not one of nhits, nbeats, mlp\n", command, a->model);
        return 2;
    }
    if (fc_scaler_parse(a->scaler, &s->scaler) || fc_loss_parse(a->loss, &s->loss)) {
        fprintf(stderr, "fcast %s: --scaler must be identity|standard|robust|minmax and --loss mae|mse\n", command);
        return 2;
    }
    if (fc_memory_limit_parse(a->memory_limit, &s->memory_limit) != FC_OK) return 1;
    if (fc_data_store_parse(a->data_store, &s->data_store) != FC_OK) return 1;
    s->auto_batch = strcmp(a->wbs, "auto") == 0;
    fc_model_config_default(&s->cfg, s->kind, a->h, a->input_size);
    if (fc_arch_apply(&a->arch, &s->cfg) != FC_OK) return 1;
    return build_options(a, &s->o, s->kind) == FC_OK ? 0 : 1;
}

fc_status train_flags_load_data(const train_flags *a, const train_setup *s, fc_data_choice *c, fc_dataset **out) {
    fc_load_options lo = {.freq = a->freq, .drop_exog = 1, .store_dir = a->store_dir};
    FC_TRY(fc_data_choose(a->data, &lo, s->data_store, s->memory_limit, c));
    fc_data_choice_print(c, &lo, s->memory_limit, stderr);
    return fc_dataset_open(a->data, &lo, out);
}
