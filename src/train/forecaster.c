/* Names of scalers and losses, the losses' parameters (defaults, checks,
 * output names, JSON for model files), and releasing a forecaster. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "kernels/iq_head.h"
#include "train/conformal.h"
#include "train/distribution_forecast.h"
#include "train/forecaster.h"

static const char *const scaler_names[FC_SCALER_KINDS] = {"identity", "standard", "robust", "minmax", "revin"};
static const char *const loss_names[FC_LOSS_KINDS] = {"mae", "mse", "huber", "smape", "mape", "mase", "quantile", "mq",
                                                            "huber-mq", "normal", "studentt", "poisson",
                                                            "negative-binomial", "iq"};

const char *fc_scaler_name(fc_scaler_kind k) { return (unsigned)k < FC_SCALER_KINDS ? scaler_names[k] : "?"; }
const char *fc_loss_kind_name(fc_loss_kind k) { return (unsigned)k < FC_LOSS_KINDS ? loss_names[k] : "?"; }
const char *fc_loss_name(fc_loss_spec s) { return fc_loss_kind_name(s.kind); }

int fc_scaler_parse(const char *s, fc_scaler_kind *out) {
    for (int i = 0; i < FC_SCALER_KINDS; i++)
        if (!strcasecmp(s, scaler_names[i])) { *out = (fc_scaler_kind)i; return 0; }
    return -1;
}

int fc_loss_parse(const char *s, fc_loss_kind *out) {
    for (int i = 0; i < FC_LOSS_KINDS; i++)
        if (!strcasecmp(s, loss_names[i])) { *out = (fc_loss_kind)i; return 0; }
    return -1;
}

/* ---- parameters ---------------------------------------------------------- */

fc_loss_spec fc_loss_default(fc_loss_kind kind) {
    fc_loss_spec s;
    memset(&s, 0, sizeof s);
    s.kind = kind;
    s.n_q = 1;
    s.delta = 1.0f;
    s.season = 1;
    s.q[0] = 0.5f;
    s.n_samples = FC_DISTRIBUTION_SAMPLES;
    s.iq_dim = FC_IQ_EMBEDDING_DIM;
    s.concentration0 = s.concentration1 = 1.0f;
    if (fc_loss_kind_has_quantile_list(kind)) {
        static const long level[] = {80, 90};
        fc_loss_set_levels(&s, level, 2, "level");   /* cannot fail */
    }
    return s;
}

/* A spec given quantiles keeps its kind when it has a quantile list (MQ,
 * HUBER_MQ, a distribution); any other becomes MQ. */
static void set_multi_quantile(fc_loss_spec *s) {
    if (!fc_loss_kind_has_quantile_list(s->kind)) s->kind = FC_LOSS_MQ;
}

/* level_to_outputs: 50 -+ l/2 in double (Python), then torch.Tensor (float)
 * / 100 in float. The median first, the bounds sorted after it. */
fc_status fc_loss_set_levels(fc_loss_spec *s, const long *levels, size_t n, const char *what) {
    if (n == 0 || 1 + 2 * n > FC_MAX_QUANTILES)
        return fc_error(FC_ERR_INVALID, "%s: %zu levels; give 1 to %d", what, n, (FC_MAX_QUANTILES - 1) / 2);
    float q[FC_MAX_QUANTILES];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (levels[i] < 1 || levels[i] > 99)
            return fc_error(FC_ERR_INVALID, "%s: level %ld is not an integer from 1 to 99", what, levels[i]);
        for (size_t j = 0; j < i; j++)
            if (levels[j] == levels[i]) return fc_error(FC_ERR_INVALID, "%s: level %ld given twice", what, levels[i]);
        q[k++] = (float)(50.0 - (double)levels[i] / 2.0) / 100.0f;
        q[k++] = (float)(50.0 + (double)levels[i] / 2.0) / 100.0f;
    }
    for (size_t i = 1; i < k; i++)   /* insertion sort: distinct levels give distinct bounds */
        for (size_t j = i; j > 0 && q[j - 1] > q[j]; j--) { float t = q[j]; q[j] = q[j - 1]; q[j - 1] = t; }
    set_multi_quantile(s);
    s->n_q = (int)(k + 1);
    s->q[0] = 50.0f / 100.0f;
    memcpy(s->q + 1, q, k * sizeof *q);
    s->from_level = 1;
    return FC_OK;
}

void fc_levels_to_bounds(const double *levels, size_t n, double *q) {
    for (size_t i = 0; i < n; i++) {
        q[n - 1 - i] = (50.0 - levels[i] / 2.0) / 100.0;   /* levels ascending: the lower bounds descend */
        q[n + i] = (50.0 + levels[i] / 2.0) / 100.0;
    }
}

fc_status fc_loss_draw_levels(fc_loss_spec *s, const double *levels, size_t n) {
    if (!fc_loss_kind_is_distribution(s->kind) || n == 0 || 2 * n > FC_MAX_QUANTILES)
        return fc_error(FC_ERR_INVALID, "level: a %s model draws at 1 to %d levels, not %zu",
                        fc_loss_kind_name(s->kind), FC_MAX_QUANTILES / 2, n);
    double q[FC_MAX_QUANTILES];
    fc_levels_to_bounds(levels, n, q);
    FC_TRY(fc_loss_set_quantiles(s, q, 2 * n, "level"));
    s->from_level = 1;
    return FC_OK;
}

static fc_status check_quantile(double q, const char *what) {
    if (!(q > 0.0 && q < 1.0)) return fc_error(FC_ERR_INVALID, "%s: quantile %g is not strictly between 0 and 1", what, q);
    if ((float)q <= 0.0f || (float)q >= 1.0f)
        return fc_error(FC_ERR_INVALID, "%s: quantile %.17g rounds to %g in float", what, q, (double)(float)q);
    return FC_OK;
}

fc_status fc_loss_set_quantiles(fc_loss_spec *s, const double *q, size_t n, const char *what) {
    if (n == 0 || n > FC_MAX_QUANTILES)
        return fc_error(FC_ERR_INVALID, "%s: %zu quantiles; give 1 to %d", what, n, FC_MAX_QUANTILES);
    for (size_t i = 0; i < n; i++) {
        FC_TRY(check_quantile(q[i], what));
        for (size_t j = 0; j < i; j++)
            if ((float)q[j] == (float)q[i]) return fc_error(FC_ERR_INVALID, "%s: quantile %g given twice", what, q[i]);
    }
    set_multi_quantile(s);
    s->n_q = (int)n;
    for (size_t i = 0; i < n; i++) s->q[i] = (float)q[i];
    s->from_level = 0;
    if (!fc_loss_kind_is_distribution(s->kind)) return FC_OK;
    for (size_t i = 1; i < n; i++)   /* DistributionLoss sorts them (MQLoss keeps their order) */
        for (size_t j = i; j > 0 && s->q[j - 1] > s->q[j]; j--) {
            float t = s->q[j];
            s->q[j] = s->q[j - 1];
            s->q[j - 1] = t;
        }
    return FC_OK;
}

static fc_status check_delta(const fc_loss_spec *s, const char *what) {
    if (!(s->delta > 0.0f) || isinf(s->delta))
        return fc_error(FC_ERR_INVALID, "%s: huber delta %g must be a positive number", what, (double)s->delta);
    return FC_OK;
}

/* MQ's and HUBER_MQ's quantiles: 1 to FC_MAX_QUANTILES, distinct, in (0, 1). */
static fc_status check_quantile_list(const fc_loss_spec *s, const char *what) {
    if (s->n_q < 1 || s->n_q > FC_MAX_QUANTILES)
        return fc_error(FC_ERR_INVALID, "%s: %s with %d quantiles", what, fc_loss_kind_name(s->kind), s->n_q);
    for (int i = 0; i < s->n_q; i++) {
        FC_TRY(check_quantile(s->q[i], what));
        for (int j = 0; j < i; j++)
            if (s->q[j] == s->q[i]) return fc_error(FC_ERR_INVALID, "%s: quantile %g given twice", what, (double)s->q[i]);
    }
    return FC_OK;
}

fc_status fc_loss_check(const fc_loss_spec *s, size_t L, const char *what) {
    switch (s->kind) {
    case FC_LOSS_HUBER: return check_delta(s, what);
    case FC_LOSS_QUANTILE: return check_quantile(s->q[0], what);
    case FC_LOSS_IQ:
        if (s->iq_dim < 1 || s->iq_dim > FC_IQ_MAX_DIM)
            return fc_error(FC_ERR_INVALID, "%s: iq cos_embedding_dim %d must be from 1 to %d", what, s->iq_dim,
                            FC_IQ_MAX_DIM);
        if (!(s->concentration0 > 0.0f) || !(s->concentration1 > 0.0f) || isinf(s->concentration0) ||
            isinf(s->concentration1))
            return fc_error(FC_ERR_INVALID, "%s: iq concentrations %g, %g must be positive numbers", what,
                            (double)s->concentration0, (double)s->concentration1);
        return check_quantile(s->q[0], what);
    case FC_LOSS_MASE:
        if (s->season < 1 || (size_t)s->season >= L)
            return fc_error(FC_ERR_INVALID, "%s: mase season %d must be at least 1 and below the input size %zu "
                            "(the seasonal naive error of the input window)", what, s->season, L);
        return FC_OK;
    case FC_LOSS_HUBER_MQ:
        FC_TRY(check_delta(s, what));
        return check_quantile_list(s, what);
    case FC_LOSS_MQ: return check_quantile_list(s, what);
    case FC_LOSS_NORMAL:
    case FC_LOSS_STUDENTT:
    case FC_LOSS_POISSON:
    case FC_LOSS_NBINOMIAL:
        if (s->n_samples < 1 || s->n_samples > FC_DISTRIBUTION_MAX_SAMPLES)
            return fc_error(FC_ERR_INVALID, "%s: num_samples %d must be from 1 to %d", what, s->n_samples,
                            FC_DISTRIBUTION_MAX_SAMPLES);
        return check_quantile_list(s, what);
    default:
        if (s->kind < 0 || s->kind >= FC_LOSS_KINDS) return fc_error(FC_ERR_INVALID, "%s: unknown loss %d", what, s->kind);
        return FC_OK;
    }
}

size_t fc_loss_n_outputs(const fc_loss_spec *s) { return fc_loss_outputs(s); }

size_t fc_loss_forecast_width(const fc_loss_spec *s, size_t n_outputs) {
    return fc_loss_kind_is_distribution(s->kind) ? fc_distribution_columns(s) : n_outputs;
}

void fc_loss_head(const fc_loss_spec *s, fc_model_config *cfg) {
    int iq = s->kind == FC_LOSS_IQ;
    cfg->iq_dim = iq ? (size_t)s->iq_dim : 0;
    cfg->iq_concentration0 = iq ? s->concentration0 : 0.0;
    cfg->iq_concentration1 = iq ? s->concentration1 : 0.0;
}

size_t fc_loss_point_output(const fc_loss_spec *s) {
    if (fc_loss_kind_is_distribution(s->kind)) return 0;
    size_t n = fc_loss_outputs(s), best = 0;
    for (size_t q = 1; q < n; q++)
        if (fabsf(s->q[q] - 0.5f) < fabsf(s->q[best] - 0.5f)) best = q;
    return best;
}

size_t fc_forecast_width(const fc_forecaster *f) { return fc_loss_forecast_width(&f->loss, f->model->cfg.n_outputs); }

/* ---- names --------------------------------------------------------------- */

/* The shortest decimal that reads back as the same float: what Python
 * prints for the double the user typed (up to ~7 significant digits). */
static void float_text(float x, char *buf, size_t cap) {
    for (int p = 1; p <= 9; p++) {
        snprintf(buf, cap, "%.*g", p, (double)x);
        if (strtof(buf, NULL) == x) return;
    }
}

/* Python's repr of a double in [0, 100] with at most a few decimals:
 * the fewest decimals (at least one) that read back as x. */
static void python_float_text(double x, char *buf, size_t cap) {
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, cap, "%.*f", p, x);
        if (strtod(buf, NULL) == x) return;
    }
}

/* quantiles_to_outputs' np.round(100 - 200 q, 2): rint(x * 100) / 100. */
static void quantile_level_text(double q, char *buf, size_t cap) {
    double x = 100.0 - 200.0 * q;
    python_float_text(rint(x * 100.0) / 100.0, buf, cap);
}

void fc_loss_output_name(const fc_loss_spec *s, size_t j, char buf[FC_LOSS_NAME_MAX]) {
    char num[32];
    buf[0] = 0;
    if (s->kind == FC_LOSS_QUANTILE || s->kind == FC_LOSS_IQ) {   /* IQ: its forecast quantile, 0.5 unless asked */
        float_text(s->q[0], num, sizeof num);
        snprintf(buf, FC_LOSS_NAME_MAX, "_ql%s", num);
        return;
    }
    if (fc_loss_kind_is_distribution(s->kind)) {   /* the sample mean "", then the quantiles */
        if (j == 0) return;
        j--;
    }
    if (!fc_loss_kind_has_quantile_list(s->kind) || j >= (size_t)s->n_q) return;
    float q = s->q[j];
    if (q == 0.5f) { snprintf(buf, FC_LOSS_NAME_MAX, "-median"); return; }
    const char *side = q < 0.5f ? "lo" : "hi";
    if (s->from_level) {   /* the level back from its bound: an integer */
        double l = q < 0.5f ? 100.0 - 200.0 * (double)q : 200.0 * (double)q - 100.0;
        snprintf(buf, FC_LOSS_NAME_MAX, "-%s-%ld", side, lrint(l));
        return;
    }
    float_text(q, num, sizeof num);   /* the double the user typed */
    double qd = strtod(num, NULL);
    quantile_level_text(q < 0.5f ? qd : 1.0 - qd, num, sizeof num);
    snprintf(buf, FC_LOSS_NAME_MAX, "-%s-%s", side, num);
}

/* ---- JSON ---------------------------------------------------------------- */

static fc_status append(char *buf, size_t cap, size_t *len, const char *text) {
    size_t n = strlen(text);
    if (*len + n + 1 > cap) return fc_error(FC_ERR_INVALID, "loss parameters do not fit in %zu bytes", cap);
    memcpy(buf + *len, text, n + 1);
    *len += n;
    return FC_OK;
}

/* MQ's list: levels (the upper bounds, ascending) or the quantiles;
 * HUBER_MQ's delta before it, a distribution's num_samples after it. */
static fc_status mq_json(const fc_loss_spec *s, char *buf, size_t cap, size_t *len) {
    char num[32], delta[64];
    FC_TRY(append(buf, cap, len, "{"));
    if (s->kind == FC_LOSS_HUBER_MQ) {
        float_text(s->delta, num, sizeof num);
        snprintf(delta, sizeof delta, "\"delta\":%s,", num);
        FC_TRY(append(buf, cap, len, delta));
    }
    FC_TRY(append(buf, cap, len, s->from_level ? "\"level\":[" : "\"quantiles\":["));
    int first = 1;
    for (int i = 0; i < s->n_q; i++) {
        if (s->from_level && !(s->q[i] > 0.5f)) continue;
        if (s->from_level) snprintf(num, sizeof num, "%ld", lrint(200.0 * (double)s->q[i] - 100.0));
        else float_text(s->q[i], num, sizeof num);
        if (!first) FC_TRY(append(buf, cap, len, ","));
        FC_TRY(append(buf, cap, len, num));
        first = 0;
    }
    if (!fc_loss_kind_is_distribution(s->kind)) return append(buf, cap, len, "]}");
    snprintf(num, sizeof num, "],\"num_samples\":%d}", s->n_samples);
    return append(buf, cap, len, num);
}

fc_status fc_loss_params_json(const fc_loss_spec *s, char *buf, size_t cap) {
    char one[160], num[32];
    size_t len = 0;
    if (cap) buf[0] = 0;
    switch (s->kind) {
    case FC_LOSS_HUBER: float_text(s->delta, num, sizeof num); snprintf(one, sizeof one, "{\"delta\":%s}", num); break;
    case FC_LOSS_QUANTILE: float_text(s->q[0], num, sizeof num); snprintf(one, sizeof one, "{\"q\":%s}", num); break;
    case FC_LOSS_MASE: snprintf(one, sizeof one, "{\"seasonality\":%d}", s->season); break;
    case FC_LOSS_IQ: {
        char c0[32], c1[32];
        float_text(s->concentration0, c0, sizeof c0);
        float_text(s->concentration1, c1, sizeof c1);
        snprintf(one, sizeof one, "{\"cos_embedding_dim\":%d,\"concentration0\":%s,\"concentration1\":%s}",
                 s->iq_dim, c0, c1);
        break;
    }
    case FC_LOSS_MQ:
    case FC_LOSS_HUBER_MQ:
    case FC_LOSS_NORMAL:
    case FC_LOSS_STUDENTT:
    case FC_LOSS_POISSON:
    case FC_LOSS_NBINOMIAL: return mq_json(s, buf, cap, &len);
    default: snprintf(one, sizeof one, "{}"); break;
    }
    return append(buf, cap, &len, one);
}

/* One number field of the parameters, required. */
static fc_status number_field(json_t *o, const char *key, const char *where, double *out) {
    json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        return fc_error(FC_ERR_FORMAT, "%s: loss_params field '%s' is missing or not a number", where, key);
    *out = json_number_value(v);
    return FC_OK;
}

/* One integer field from 1 to most, required. */
static fc_status integer_field(json_t *o, const char *key, json_int_t most, const char *where, int *out) {
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > most)
        return fc_error(FC_ERR_FORMAT, "%s: loss_params field '%s' is missing or not an integer from 1 to %lld", where,
                        key, (long long)most);
    *out = (int)json_integer_value(v);
    return FC_OK;
}

static fc_status mq_fields(json_t *o, fc_loss_spec *s, const char *where) {
    json_t *level = json_object_get(o, "level"), *quantiles = json_object_get(o, "quantiles");
    json_t *list = quantiles ? quantiles : level;
    const char *key = quantiles ? "quantiles" : "level";
    char what[512];
    snprintf(what, sizeof what, "%s: loss_params field '%s'", where, key);
    if ((level && quantiles) || !json_is_array(list) || json_array_size(list) > FC_MAX_QUANTILES)
        return fc_error(FC_ERR_FORMAT, "%s: loss_params needs one list, 'level' or 'quantiles', of at most %d numbers",
                        where, FC_MAX_QUANTILES);
    long lv[FC_MAX_QUANTILES];
    double qv[FC_MAX_QUANTILES];
    size_t n = json_array_size(list);
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(list, i);
        if (quantiles ? !json_is_number(v) : !json_is_integer(v))
            return fc_error(FC_ERR_FORMAT, "%s: entry %zu is not %s", what, i, quantiles ? "a number" : "an integer");
        qv[i] = json_number_value(v);
        lv[i] = quantiles ? 0 : (long)json_integer_value(v);
    }
    fc_status st = quantiles ? fc_loss_set_quantiles(s, qv, n, what) : fc_loss_set_levels(s, lv, n, what);
    return st == FC_OK ? FC_OK : FC_ERR_FORMAT;
}

/* Whether loss_params field `key` is a parameter of `kind`. */
static int field_belongs(const char *key, int kind) {
    if (!strcmp(key, "delta")) return kind == FC_LOSS_HUBER || kind == FC_LOSS_HUBER_MQ;
    if (!strcmp(key, "q")) return kind == FC_LOSS_QUANTILE;
    if (!strcmp(key, "seasonality")) return kind == FC_LOSS_MASE;
    if (!strcmp(key, "level") || !strcmp(key, "quantiles")) return fc_loss_kind_has_quantile_list(kind);
    if (!strcmp(key, "num_samples")) return fc_loss_kind_is_distribution(kind);
    if (!strcmp(key, "cos_embedding_dim") || !strcmp(key, "concentration0") || !strcmp(key, "concentration1"))
        return kind == FC_LOSS_IQ;
    return 0;
}

/* The fields of kind s->kind, each checked as a flag would be. */
static fc_status params_fields(json_t *o, fc_loss_spec *s, const char *where) {
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        if (!field_belongs(key, s->kind))
            return fc_error(FC_ERR_FORMAT, "%s: loss_params field '%s' does not belong to loss '%s'", where, key,
                            fc_loss_kind_name(s->kind));
    }
    double x = 0.0;
    switch (s->kind) {
    case FC_LOSS_HUBER: FC_TRY(number_field(o, "delta", where, &x)); s->delta = (float)x; break;
    case FC_LOSS_QUANTILE: FC_TRY(number_field(o, "q", where, &x)); s->q[0] = (float)x; break;
    case FC_LOSS_MASE: FC_TRY(integer_field(o, "seasonality", 1 << 20, where, &s->season)); break;
    case FC_LOSS_HUBER_MQ:
        FC_TRY(number_field(o, "delta", where, &x));
        s->delta = (float)x;
        FC_TRY(mq_fields(o, s, where));
        break;   /* the delta checked below */
    case FC_LOSS_MQ: return mq_fields(o, s, where);
    case FC_LOSS_IQ: {
        FC_TRY(integer_field(o, "cos_embedding_dim", FC_IQ_MAX_DIM, where, &s->iq_dim));
        FC_TRY(number_field(o, "concentration0", where, &x));
        s->concentration0 = (float)x;
        FC_TRY(number_field(o, "concentration1", where, &x));
        s->concentration1 = (float)x;
        break;
    }
    case FC_LOSS_NORMAL:
    case FC_LOSS_STUDENTT:
    case FC_LOSS_POISSON:
    case FC_LOSS_NBINOMIAL:
        FC_TRY(integer_field(o, "num_samples", FC_DISTRIBUTION_MAX_SAMPLES, where, &s->n_samples));
        FC_TRY(mq_fields(o, s, where));
        break;
    default: break;
    }
    char what[512];
    snprintf(what, sizeof what, "%s: loss_params", where);
    return fc_loss_check(s, (size_t)-1, what) == FC_OK ? FC_OK : FC_ERR_FORMAT;
}

fc_status fc_loss_params_parse(const char *json, fc_loss_spec *s, const char *where) {
    json_error_t err;
    json_t *o = json_loads(json, 0, &err);
    *s = fc_loss_default(s->kind);
    fc_status st = json_is_object(o) ? params_fields(o, s, where)
                                     : fc_error(FC_ERR_FORMAT, "%s: loss_params is not a JSON object (%s)", where, err.text);
    json_decref(o);
    return st;
}

double fc_train_learning_rate(const fc_train_options *o, size_t step) {
    double base = o->learning_rate, gamma = o->lr_gamma >= 0 ? o->lr_gamma : 0.5;
    if (o->lr_scheduler == FC_LR_EXPONENTIAL) return base * pow(o->lr_gamma >= 0 ? o->lr_gamma : 1.0, (double)step);
    if (o->lr_scheduler == FC_LR_COSINE) {
        double t_max = (double)(o->lr_t_max ? o->lr_t_max : o->max_steps);
        return o->lr_eta_min + (base - o->lr_eta_min) * (1.0 + cos(M_PI * (double)step / t_max)) / 2.0;
    }
    size_t every = o->lr_step_size;
    if (!every) every = o->num_lr_decays > 0 ? o->max_steps / (size_t)o->num_lr_decays : (size_t)1 << 62;
    if (every < 1) every = 1;
    return base * pow(gamma, (double)(step / every));
}

size_t fc_train_val_check_steps(const fc_train_options *o) {
    return o->max_steps && o->val_check_steps > o->max_steps ? o->max_steps : o->val_check_steps;
}

void fc_train_options_default(fc_train_options *o) {
    memset(o, 0, sizeof *o);
    o->max_steps = 1000;
    o->batch_size = 32;
    o->windows_batch_size = 1024;
    o->learning_rate = 1e-3;
    o->num_lr_decays = 3;
    o->val_check_steps = 100;
    o->valid_loss = -1;
    o->lr_gamma = -1.0;
    o->early_stop_patience = -1;
    o->step_size = 1;
    o->seed = 1;
    o->verbose = 1;
    o->precision = FC_PREC_FP32;
    o->grad_accum = 1;
    o->weight_decay = -1;   /* the optimizer's default */
}

double fc_train_weight_decay(const fc_train_options *o) {
    if (o->weight_decay >= 0) return o->weight_decay;
    return o->optimizer == FC_OPTIMIZER_ADAMW ? 0.01 : 0.0;   /* torch.optim.AdamW's and Adam's defaults */
}

void fc_forecaster_free(fc_forecaster *f) {
    fc_model_free(&f->model);
    if (f->conformal) fc_conformal_free(f->conformal);
    free(f->conformal);
    f->conformal = NULL;
}
