/* The training and operations keys of fcast_config_set (fcast.h,
 * fcast_config_train_key): one table, in `fcast train --help`'s order,
 * from which the CLI makes its flags and the library its list of keys
 * (api_config.c refuses a key not here; api_run_keys.c leaves the run's
 * keys out of model files). The help texts are the CLI's. */
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "fcast.h"
#include "models/model_kinds.h"

#define KEPT FCAST_KEY_KEPT
#define RUN FCAST_KEY_RUN
#define TRAIN_RUN FCAST_KEY_TRAIN_RUN
#define INTERVALS FCAST_KEY_INTERVALS
#define COUNT FCAST_KEY_COUNT
#define INTEGER FCAST_KEY_INTEGER
#define NUMBER FCAST_KEY_NUMBER
#define TEXT FCAST_KEY_TEXT
#define SWITCH FCAST_KEY_SWITCH
#define FILE_IN FCAST_KEY_FILE_IN
#define FILE_OUT FCAST_KEY_FILE_OUT

/* key, metavar, help, default, neuralforecast's argument, kind, role */
static const fcast_train_key_info KEYS[] = {
    {"out", "FILE", "model file to write (.safetensors)", NULL, NULL, FILE_OUT, RUN},
    {"max-steps", "N", "training steps (the model's: 1000, PatchTST 5000)", NULL, "max_steps", COUNT, KEPT},
    {"batch-size", "N", "series per step (32)", "32", "batch_size", COUNT, KEPT},
    {"windows-batch-size", "N|auto", "windows per step (the model's: 1024, LSTM 128; auto: the fastest that fits "
     "the memory limit)", NULL, "windows_batch_size", TEXT, KEPT},
    {"lr", "X", "Adam learning rate (the model's: 1e-3, PatchTST 1e-4)", NULL, "learning_rate", NUMBER, KEPT},
    {"optimizer", "NAME", "adam | adamw: torch.optim.Adam, or AdamW with decoupled weight decay (adam)", "adam",
     NULL, TEXT, KEPT},
    {"weight-decay", "X", "the optimizer's weight_decay: adam adds X p to the gradient, adamw decays p by "
     "lr X per step (adam 0, adamw 0.01, torch's defaults)", NULL, NULL, NUMBER, KEPT},
    {"lr-scheduler", "NAME", "step | cosine | exponential: torch's StepLR (num-lr-decays, or lr-step-size and "
     "lr-gamma), CosineAnnealingLR (lr-t-max, max-steps by default; lr-eta-min), ExponentialLR (lr-gamma), stepped "
     "every step (step)", "step", NULL, TEXT, KEPT},
    {"lr-step-size", "N", "step: steps between decays (max-steps / num-lr-decays)", NULL, NULL, COUNT, KEPT},
    {"lr-gamma", "X", "step, exponential: the decay factor (step 0.5, exponential 1)", NULL, NULL, NUMBER, KEPT},
    {"lr-t-max", "N", "cosine: steps of the half cosine (max-steps)", NULL, NULL, COUNT, KEPT},
    {"lr-eta-min", "X", "cosine: the least learning rate (0)", NULL, NULL, NUMBER, KEPT},
    {"num-lr-decays", "N", "halvings of the learning rate over max-steps, -1 = none (the model's: 3; MLP, LSTM, "
     "TiDE, PatchTST -1)", NULL,
     "num_lr_decays", INTEGER, KEPT},
    {"scaler", "NAME", "per-window scaler: identity|standard|robust|minmax|revin (the model's: identity, LSTM robust)",
     NULL, "scaler_type", TEXT, KEPT},
    {"loss", "NAME", "training loss: mae | mse | huber | smape | mape | mase | quantile | mq | huber-mq, or a "
     "DistributionLoss: normal | studentt | poisson | negative-binomial, or IQLoss: iq (mae; docs/training.md "
     "\"Losses\")", "mae",
     NULL, TEXT, KEPT},
    {"huber-delta", "X", "huber, huber-mq: threshold between the squared and absolute parts (1.0)", NULL, NULL, TEXT, KEPT},
    {"quantile", "Q", "quantile: the quantile in (0, 1) (0.5)", NULL, NULL, TEXT, KEPT},
    {"season", "M", "mase: seasonality of the naive error that scales it, below --input-size (1)", NULL, NULL,
     COUNT, KEPT},
    {"level", "LIST", "mq, huber-mq, distributions: prediction-interval levels, integers in 1..99 (80,90)", NULL, NULL,
     TEXT, KEPT},
    {"quantiles", "LIST", "mq, huber-mq, distributions: quantiles in (0, 1) instead of --level, e.g. 0.1,0.5,0.9",
     NULL, NULL, TEXT, KEPT},
    {"num-samples", "N", "distributions: draws per point whose mean and quantiles are the forecast (1000)", NULL,
     NULL, TEXT, KEPT},
    {"cos-embedding-dim", "D", "iq: width of the quantile's cosine embedding in its head (64)", NULL, NULL, TEXT, KEPT},
    {"concentration0", "X", "iq: concentration0 of the Beta its training quantiles are drawn from (1.0)", NULL, NULL,
     TEXT, KEPT},
    {"concentration1", "X", "iq: concentration1 of that Beta (1.0; 1 and 1: uniform)", NULL, NULL, TEXT, KEPT},
    {"val-size", "N", "points held out at the end of each series for validation (0)", "0", NULL, COUNT, KEPT},
    {"valid-loss", "NAME", "validate with this point loss instead of the training loss: mae | mse | smape | mape | "
     "huber (delta 1); a distribution's is scored on its mean (the training loss)", NULL, NULL, TEXT, KEPT},
    {"val-check-steps", "N", "steps between validations (100)", "100", "val_check_steps", COUNT, KEPT},
    {"early-stop-patience", "K", "stop after K validations without improvement (-1 = off)", "-1",
     "early_stop_patience_steps", INTEGER, KEPT},
    {"step-size", "N", "distance between training windows (1)", "1", "step_size", COUNT, KEPT},
    {"drop-last", NULL, "skip each epoch's last batch of series when it has fewer than --batch-size (off)", NULL,
     "drop_last_loader", SWITCH, KEPT},
    {"start-padding", NULL, "pad input-size - 1 zeros before every series, so windows start before it and series "
     "shorter than the input train (off)", NULL, "start_padding_enabled", SWITCH, KEPT},
    {"seed", "S", "random seed (1)", "1", "random_seed", INTEGER, KEPT},
    {"threads", "N", "CPU threads (0 = all cores)", "0", NULL, COUNT, KEPT},
    {"device", "DEV", FCAST_DEVICE_FORMS ": where the work runs (auto: GPU 0 when one is usable, else the CPU)",
     "auto", NULL, TEXT, RUN},
    {"freq", "F", "frequency: 1, D, W, h, 30min, MS, QS, YS, ... (inferred)", NULL, NULL, TEXT, KEPT},
    {"verbose", NULL, "the device, the progress and the choices made, on stderr (the CLI's --quiet: off)", NULL,
     NULL, SWITCH, RUN},
    {"precision", "P", "matrix products in fp32 | bf16 | fp16 (fp32; fp16 uses loss scaling)", "fp32", "precision",
     TEXT, KEPT},
    {"tf32", NULL, "on a GPU, fp32 matrix products round their inputs to TF32 on tensor cores "
     "(faster; off by default so fp32 means fp32; no effect on the CPU)", NULL, NULL, SWITCH, KEPT},
    {"cuda-graph", "on|off", "on a GPU, replay each step's forward and backward as CUDA graphs (on; off for "
     "debugging)", "on", NULL, TEXT, KEPT},
    {"grad-accum", "K", "micro-batches per optimizer step; effective batch K x windows-batch-size (1)", "1",
     "accumulate_grad_batches", COUNT, KEPT},
    {"clip-grad-norm", "X", "clip the global gradient norm to X (0 = off)", "0", "gradient_clip_val", NUMBER, KEPT},
    {"memory-limit", "SIZE", "refuse runs whose memory plan exceeds SIZE (512MiB, 12GB, ...)", NULL, NULL, TEXT,
     RUN},
    {"parallel", "N", "trainings side by side in a run of several (ensemble members, cv windows, tune trials): "
     "N at once, each on its share of the threads or its own GPU stream, with the answers of one at a time "
     "(0 = auto: a thread each on the CPU, 8 on a GPU, as many as --memory-limit holds; 1 = one at a time)", "0",
     NULL, COUNT, RUN},
    {"data-store", "MODE", "auto | memory | stream: load the data whole or stream it into a mapped store file "
     "(auto: stream when loading whole would take over half of the memory limit)", NULL, NULL, TEXT, RUN},
    {"store-dir", "DIR", "where a streamed data store goes ($TMPDIR, else /var/tmp)", NULL, NULL, TEXT, RUN},
    {"checkpoint", "FILE", "write checkpoints here, every --checkpoint-every steps and at validation checks "
     "(default on a stop: OUT.ckpt.safetensors)", NULL, NULL, FILE_OUT, TRAIN_RUN},
    {"checkpoint-every", "N", "steps between checkpoints (0 = only at validation checks and on a stop)", "0", NULL,
     COUNT, TRAIN_RUN},
    {"resume", "FILE", "continue the run saved in this checkpoint (same options and data)", NULL, NULL, FILE_IN,
     TRAIN_RUN},
    {"log-file", "FILE", "append the run log here (JSON Lines; see fcast report)", NULL, NULL, FILE_OUT, TRAIN_RUN},
    {"profile", NULL, "every step's phase timings in the run log", NULL, NULL, SWITCH, TRAIN_RUN},
    {"deterministic-reduce", NULL, "under mpirun, sum the ranks' gradients in rank order: N ranks of W windows "
     "train the model one process trains with --grad-accum N (N a power of 2; docs/distributed.md)", NULL, NULL,
     SWITCH, TRAIN_RUN},
    {"futr-exog", "LIST", "columns known in the future too (calendar, planned prices): read over the input window "
     "and the horizon; predict needs their future values (--futr-data)", NULL, "futr_exog_list", TEXT, KEPT},
    {"hist-exog", "LIST", "columns known only up to the forecast origin (past prices, measured weather): read over "
     "the input window", NULL, "hist_exog_list", TEXT, KEPT},
    {"stat-exog-file", "FILE", "static values: CSV of unique_id and one numeric column per variable, a row per "
     "series", NULL, NULL, FILE_IN, KEPT},
    {"stat-exog", "LIST", "the static file's columns to use (all of them)", NULL, "stat_exog_list", TEXT, KEPT},
    {"prediction-intervals", "conformal", "fit conformal intervals from a cross-validation (predict --level then "
     "writes them; off)", NULL, NULL, TEXT, INTERVALS},
    {"pi-windows", "N", "cross-validation windows of the conformal scores (2)", "2", NULL, COUNT, INTERVALS},
    {"pi-method", "M", "conformal_distribution | conformal_error (conformal_distribution)", "conformal_distribution",
     NULL, TEXT, INTERVALS},
    {"pi-step-size", "N", "points between those windows (1)", "1", NULL, COUNT, INTERVALS},
};
enum { N_KEYS = sizeof KEYS / sizeof *KEYS };

int fcast_config_train_key(size_t i, fcast_train_key_info *out) {
    if (i >= N_KEYS || !out) return 0;
    *out = KEYS[i];
    return 1;
}

const fcast_train_key_info *fc_api_train_key(const char *key) {
    for (size_t i = 0; i < N_KEYS; i++)
        if (!strcmp(KEYS[i].key, key)) return &KEYS[i];
    return NULL;
}

void fc_api_train_key_list(char *buf, size_t size, int run) {
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_KEYS && n < size; i++) {
        if ((KEYS[i].role == RUN || KEYS[i].role == TRAIN_RUN) != run) continue;
        int w = snprintf(buf + n, size - n, "%s%s", n ? ", " : "", KEYS[i].key);
        if (w < 0) return;
        n += (size_t)w;
    }
}
