/* fcast_config: a model and how to train it, set by the names of `fcast
 * train`'s flags (fcast.h). The architecture options are the library's own
 * table (models/arch_options.h), shared with the CLI; the training options
 * below are the subset of train's flags a library caller sets (the
 * operations flags, files and devices, belong to the CLI). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/error.h"
#include "models/model_kinds.h"
#include "train/loss_text.h"

fc_status fcast_config_new(const char *model, size_t h, size_t input_size, fcast_config **out) {
    if (!out) return fc_error(FC_ERR_INVALID, "fcast_config_new: out must not be NULL");
    *out = NULL;
    fc_model_kind kind;
    int flags = fc_api_names_flags();   /* the CLI's words: --model, --h, --input-size */
    if (!model || fc_model_kind_parse(model, &kind)) {
        char kinds[128];
        fc_model_kind_list(kinds, sizeof kinds);
        return fc_error(FC_ERR_INVALID, "%s '%s' is not one of %s (any case)",
                        flags ? "--model" : "fcast_config_new: model", model ? model : "(null)", kinds);
    }
    if (h < 1 || input_size < 1 || h > FC_MAX_DIM || input_size > FC_MAX_DIM)
        return fc_error(FC_ERR_INVALID, "%s (%zu) and %s (%zu) must be 1 to %zu", flags ? "--h" : "fcast_config_new: h",
                        h, flags ? "--input-size" : "input_size", input_size, FC_MAX_DIM);
    fcast_config *c = calloc(1, sizeof *c);
    if (!c) return fc_error(FC_ERR_MEMORY, "fcast_config_new: out of memory");
    const fc_model_kind_ops *row = fc_model_kind_row(kind);
    fc_model_config_default(&c->model, kind, h, input_size);
    fc_arch_defaults(&c->arch);
    fc_train_options_default(&c->train);
    c->train.verbose = 0;
    c->train.windows_batch_size = row->windows_batch_size;   /* neuralforecast's per-model defaults */
    c->train.learning_rate = row->learning_rate;
    c->train.max_steps = row->max_steps;
    c->train.num_lr_decays = row->num_lr_decays;
    fc_scaler_parse(row->scaler_type, &c->scaler);
    c->loss_kind = FC_LOSS_MAE;
    if (!(c->model_name = fc_api_keep(c, model))) {
        fcast_config_free(c);
        return fc_error(FC_ERR_MEMORY, "fcast_config_new: out of memory");
    }
    *out = c;
    return FC_OK;
}

const char *fc_api_keep(fcast_config *c, const char *value) {
    if (c->n_texts == FCAST_CONFIG_MAX_TEXTS) return NULL;
    char *copy = malloc(strlen(value) + 1);
    if (copy) strcpy(copy, value), c->texts[c->n_texts++] = copy;
    return copy;
}

fc_status fc_api_parse_count(const char *key, const char *v, size_t lo, size_t *out) {
    char *end = NULL;
    unsigned long long x = v[0] >= '0' && v[0] <= '9' ? strtoull(v, &end, 10) : 0;
    if (!end || *end || x < lo || x > ((size_t)1 << 40))
        return fc_error(FC_ERR_INVALID, "%s '%s': expected an integer of at least %zu", key, v, lo);
    *out = (size_t)x;
    return FC_OK;
}

static fc_status parse_number(const char *key, const char *v, double *out) {
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !isfinite(x)) return fc_error(FC_ERR_INVALID, "%s '%s': expected a finite number", key, v);
    *out = x;
    return FC_OK;
}

static fc_status parse_long(const char *key, const char *v, long *out) {
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v || *end) return fc_error(FC_ERR_INVALID, "%s '%s': expected an integer", key, v);
    *out = x;
    return FC_OK;
}

typedef fc_status (*setter)(fcast_config *c, const char *key, const char *v);

/* The numeric training options: where each lives in fc_train_options,
 * its kind, and the least count it takes. */
typedef enum { COUNT, NUMBER, SIGNED } number_kind;

static const struct {
    const char *key;
    number_kind kind;
    size_t offset, least;
} NUMBERS[] = {
    {"max-steps", COUNT, offsetof(fc_train_options, max_steps), 1},
    {"batch-size", COUNT, offsetof(fc_train_options, batch_size), 1},
    {"windows-batch-size", COUNT, offsetof(fc_train_options, windows_batch_size), 1},
    {"val-size", COUNT, offsetof(fc_train_options, val_size), 0},
    {"val-check-steps", COUNT, offsetof(fc_train_options, val_check_steps), 1},
    {"step-size", COUNT, offsetof(fc_train_options, step_size), 1},
    {"grad-accum", COUNT, offsetof(fc_train_options, grad_accum), 1},
    {"lr", NUMBER, offsetof(fc_train_options, learning_rate), 0},
    {"clip-grad-norm", NUMBER, offsetof(fc_train_options, clip_grad_norm), 0},
    {"weight-decay", NUMBER, offsetof(fc_train_options, weight_decay), 0},
    {"num-lr-decays", SIGNED, offsetof(fc_train_options, num_lr_decays), 0},
    {"early-stop-patience", SIGNED, offsetof(fc_train_options, early_stop_patience), 0},
    {"lr-step-size", COUNT, offsetof(fc_train_options, lr_step_size), 1},
    {"lr-t-max", COUNT, offsetof(fc_train_options, lr_t_max), 1},
    {"lr-gamma", NUMBER, offsetof(fc_train_options, lr_gamma), 0},
    {"lr-eta-min", NUMBER, offsetof(fc_train_options, lr_eta_min), 0},
};

/* Option i of NUMBERS from its text; numbers must be >= 0 (lr, clipping). */
static fc_status set_number(fcast_config *c, size_t i, const char *v) {
    char *at = (char *)&c->train + NUMBERS[i].offset;
    const char *key = NUMBERS[i].key;
    if (NUMBERS[i].kind == COUNT) return fc_api_parse_count(key, v, NUMBERS[i].least, (size_t *)(void *)at);
    if (NUMBERS[i].kind == SIGNED) return parse_long(key, v, (long *)(void *)at);
    double x = 0.0;
    FC_TRY(parse_number(key, v, &x));
    if (x < 0) return fc_error(FC_ERR_INVALID, "%s '%s': must be >= 0", key, v);
    *(double *)(void *)at = x;
    return FC_OK;
}

static fc_status set_seed(fcast_config *c, const char *k, const char *v) {
    size_t seed = 0;
    FC_TRY(fc_api_parse_count(k, v, 0, &seed));
    c->train.seed = seed;
    return FC_OK;
}
static fc_status set_threads(fcast_config *c, const char *k, const char *v) {
    size_t n = 0;
    FC_TRY(fc_api_parse_count(k, v, 0, &n));
    c->threads = (int)n;
    return FC_OK;
}
static fc_status set_scaler(fcast_config *c, const char *k, const char *v) {
    if (fc_scaler_parse(v, &c->scaler))
        return fc_error(FC_ERR_INVALID, "%s '%s': expected identity, standard, robust, minmax or revin", k, v);
    return FC_OK;
}
/* neuralforecast's valid_loss: a point loss without parameters (HuberLoss at its default delta). */
static fc_status set_valid_loss(fcast_config *c, const char *k, const char *v) {
    fc_loss_kind kind;
    if (fc_loss_parse(v, &kind) ||
        !(kind == FC_LOSS_MAE || kind == FC_LOSS_MSE || kind == FC_LOSS_SMAPE || kind == FC_LOSS_MAPE ||
          kind == FC_LOSS_HUBER))
        return fc_error(FC_ERR_INVALID, "%s '%s': expected a point loss without parameters: mae, mse, smape, mape or "
                        "huber (delta 1)", k, v);
    c->train.valid_loss = (int)kind;
    return FC_OK;
}
static fc_status set_precision(fcast_config *c, const char *k, const char *v) {
    if (fc_precision_parse(v, &c->train.precision))
        return fc_error(FC_ERR_INVALID, "%s '%s': expected fp32, bf16 or fp16", k, v);
    return FC_OK;
}
static fc_status set_lr_scheduler(fcast_config *c, const char *k, const char *v) {
    static const char *const names[] = {"step", "cosine", "exponential"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(v, names[i])) { c->train.lr_scheduler = i; return FC_OK; }
    return fc_error(FC_ERR_INVALID, "%s '%s': expected step, cosine or exponential (torch's StepLR, "
                    "CosineAnnealingLR, ExponentialLR)", k, v);
}
static fc_status set_optimizer(fcast_config *c, const char *k, const char *v) {
    if (!strcmp(v, "adam")) c->train.optimizer = FC_OPTIMIZER_ADAM;
    else if (!strcmp(v, "adamw")) c->train.optimizer = FC_OPTIMIZER_ADAMW;
    else return fc_error(FC_ERR_INVALID, "%s '%s': expected adam or adamw", k, v);
    return FC_OK;
}
static fc_status set_loss(fcast_config *c, const char *k, const char *v) {
    if (fc_loss_parse(v, &c->loss_kind))
        return fc_error(FC_ERR_INVALID, "%s '%s' is not one of mae, mse, huber, smape, mape, mase, quantile, mq, "
                        "huber-mq, normal, studentt, poisson, negative-binomial, iq", k, v);
    c->train.loss_targets = fc_loss_kind_is_distribution(c->loss_kind);
    return FC_OK;
}

/* A loss parameter (huber-delta, quantile, season, level, quantiles, num-samples): its
 * text, read with the loss when the configuration is resolved, so keys
 * may come in any order (train/loss_text.h). */
static fc_status set_loss_param(fcast_config *c, const char *k, const char *v) {
    fc_loss_texts *t = &c->loss_texts;
    const char **slot = !strcmp(k, "huber-delta") ? &t->huber_delta : !strcmp(k, "quantile") ? &t->quantile
                      : !strcmp(k, "season") ? &t->season : !strcmp(k, "level") ? &t->level
                      : !strcmp(k, "num-samples") ? &t->num_samples
                      : !strcmp(k, "cos-embedding-dim") ? &t->cos_embedding_dim
                      : !strcmp(k, "concentration0") ? &t->concentration0
                      : !strcmp(k, "concentration1") ? &t->concentration1 : &t->quantiles;
    if (!(*slot = fc_api_keep(c, v))) return fc_error(FC_ERR_MEMORY, "fcast_config_set: too many settings");
    return FC_OK;   /* checked with the loss, by fcast_config_check and fcast_train */
}

/* The exogenous columns a model reads, "a,b" (neuralforecast's futr_exog_list, ...). */
static fc_status set_exog(fcast_config *c, const char *k, const char *v) {
    fc_exog_list *l = !strcmp(k, "futr-exog") ? &c->model.futr_exog
                    : !strcmp(k, "hist-exog") ? &c->model.hist_exog : &c->model.stat_exog;
    FC_TRY(fc_exog_list_parse(v, k, l));
    return fc_model_kind_check_exog(fc_model_kind_row(c->model.kind), &c->model);   /* a kind that takes none */
}

/* Conformal intervals: "prediction-intervals" = "conformal" (2 windows,
 * step 1, conformal_distribution: neuralforecast's PredictionIntervals()),
 * then "pi-windows", "pi-step-size" and "pi-method" to change those. */
static fc_status set_intervals(fcast_config *c, const char *k, const char *v) {
    if (!strcmp(k, "prediction-intervals")) {
        if (strcmp(v, "conformal")) return fc_error(FC_ERR_INVALID, "%s '%s': the one method is conformal", k, v);
        c->pi_windows = 2, c->pi_step = 1;
        return FC_OK;
    }
    if (!c->pi_windows) return fc_error(FC_ERR_INVALID, "%s: set prediction-intervals to conformal first", k);
    if (!strcmp(k, "pi-method")) {
        if (fc_conformal_method_parse(v, &c->pi_method))
            return fc_error(FC_ERR_INVALID, "%s '%s': expected conformal_distribution or conformal_error", k, v);
        return FC_OK;
    }
    if (!strcmp(k, "pi-windows")) {
        size_t n = 0;
        if (fc_api_parse_count(k, v, 2, &n) != FC_OK || n > 4096)
            return fc_error(FC_ERR_INVALID, "%s '%s': conformal intervals need 2 to 4096 windows", k, v);
        c->pi_windows = n;
        return FC_OK;
    }
    return fc_api_parse_count(k, v, 1, &c->pi_step);
}

static const struct {
    const char *key;
    setter set;
} TRAINING[] = {
    {"prediction-intervals", set_intervals}, {"pi-windows", set_intervals}, {"pi-step-size", set_intervals},
    {"pi-method", set_intervals},
    {"seed", set_seed}, {"threads", set_threads}, {"scaler", set_scaler}, {"loss", set_loss},
    {"level", set_loss_param}, {"quantiles", set_loss_param}, {"huber-delta", set_loss_param},
    {"quantile", set_loss_param}, {"season", set_loss_param}, {"num-samples", set_loss_param},
    {"cos-embedding-dim", set_loss_param}, {"concentration0", set_loss_param}, {"concentration1", set_loss_param},
    {"precision", set_precision}, {"valid-loss", set_valid_loss},
    {"optimizer", set_optimizer}, {"lr-scheduler", set_lr_scheduler},
    {"futr-exog", set_exog}, {"hist-exog", set_exog}, {"stat-exog", set_exog},
};

/* An architecture key: its value kept, applied at training. */
static fc_status set_arch(fcast_config *c, const char *key, const char *value, int *known) {
    size_t n;
    const fc_arch_option *arch = fc_arch_option_table(&n);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(key, arch[i].name)) continue;
        const char *kept = fc_api_keep(c, value);
        *known = 1;
        if (!kept) return fc_error(FC_ERR_MEMORY, "fcast_config_set: too many settings");
        return fc_arch_set(&c->arch, key, kept);
    }
    return FC_OK;
}

/* The keys fcast_config_set knows are the table's (api_train_keys.c) and
 * the architecture's: any other is refused here, with the lists. */
static fc_status unknown_key(const char *key) {
    char kept[1024], run[512];
    fc_api_train_key_list(kept, sizeof kept, 0);
    fc_api_train_key_list(run, sizeof run, 1);
    return fc_error(FC_ERR_INVALID, "fcast_config_set: unknown key '%s' (the training keys are %s; the operations "
                    "keys %s; the architecture keys are train's, docs/training.md)", key, kept, run);
}

static fc_status set_known_key(fcast_config *c, const char *key, const char *value) {
    int arch = 0;
    fc_status st = set_arch(c, key, value, &arch);
    if (arch) return st;
    if (!fc_api_train_key(key)) return unknown_key(key);
    if (!fc_api_set_run_key(c, key, value, &st)) return st;
    c->run.auto_batch = c->run.auto_batch && strcmp(key, "windows-batch-size");   /* a number replaces auto */
    for (size_t i = 0; i < sizeof NUMBERS / sizeof *NUMBERS; i++)
        if (!strcmp(key, NUMBERS[i].key)) return set_number(c, i, value);
    for (size_t i = 0; i < sizeof TRAINING / sizeof *TRAINING; i++)
        if (!strcmp(key, TRAINING[i].key)) return TRAINING[i].set(c, key, value);
    return fc_error(FC_ERR_INVALID, "fcast_config_set: key '%s' is in the table of keys (api_train_keys.c) "
                    "without a setter: a bug", key);
}

/* Records key = value among the settings (a key set again keeps its place). */
static fc_status record(fcast_config *c, const char *key, const char *value) {
    size_t i = 0;
    while (i < c->n_settings && strcmp(c->settings[i].key, key)) i++;
    const char *k = i < c->n_settings ? c->settings[i].key : fc_api_keep(c, key), *v = fc_api_keep(c, value);
    if (!k || !v || i == FCAST_CONFIG_MAX_TEXTS) return fc_error(FC_ERR_MEMORY, "fcast_config_set: too many settings");
    c->settings[i] = (fc_api_setting){k, v};
    c->n_settings += i == c->n_settings;
    return FC_OK;
}

static fc_status fcast_config_set_body(fcast_config *c, const char *key, const char *value) {
    if (!c || !key || !value) return fc_error(FC_ERR_INVALID, "fcast_config_set: config, key and value are needed");
    FC_TRY(set_known_key(c, key, value));
    return record(c, key, value);
}

void fcast_config_free(fcast_config *c) {
    if (!c) return;
    for (size_t i = 0; i < c->n_texts; i++) free(c->texts[i]);
    free(c);
}

/* The setters' messages start with the key ("max-steps '0': ..."): under
 * FCAST_NAMES_FLAGS it becomes the flag. */
static fc_status key_as_flag(fc_status st, const char *key) {
    const char *msg = fc_last_error();
    size_t n = strlen(key);
    if (st == FC_OK || !fc_api_names_flags() || strncmp(msg, key, n) || (msg[n] != ' ' && msg[n] != ':'))
        return st;
    char copy[FC_ERROR_CAP];
    snprintf(copy, sizeof copy, "%s", msg);
    return fc_error(st, "--%s", copy);
}

fc_status fcast_config_set(fcast_config *c, const char *key, const char *value) {
    return key_as_flag(fc_api_words(fcast_config_set_body(c, key, value)), key ? key : "");
}

int fcast_config_arch_key(size_t i, fcast_key_info *out) {
    size_t n;
    const fc_arch_option *table = fc_arch_option_table(&n);
    if (i >= n || !out) return 0;
    *out = (fcast_key_info){table[i].name, table[i].meta, table[i].help, table[i].is_size};
    return 1;
}
