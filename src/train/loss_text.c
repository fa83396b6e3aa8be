/* Loss parameters from their texts (see loss_text.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "kernels/iq_head.h"
#include "train/loss_text.h"

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

/* MQ's, HUBER_MQ's or a distribution's quantiles from --quantiles or --level (neuralforecast's MQLoss takes
 * the quantiles when both are given; here both is a mistake). */
static fc_status mq_from_texts(const fc_loss_texts *a, fc_loss_spec *s) {
    double x[FC_MAX_QUANTILES];
    size_t n;
    if (a->level && a->quantiles)
        return fc_error(FC_ERR_INVALID, "--level and --quantiles both given: %s takes one of them",
                        fc_loss_kind_name(s->kind));
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

fc_status fc_loss_from_texts(fc_loss_kind kind, const fc_loss_texts *a, size_t L, fc_loss_spec *s) {
    *s = fc_loss_default(kind);
    const char *name = fc_loss_kind_name(s->kind);
    double v;
    int multi = fc_loss_kind_has_quantile_list(s->kind), dist = fc_loss_kind_is_distribution(s->kind);
    if (a->huber_delta && s->kind != FC_LOSS_HUBER && s->kind != FC_LOSS_HUBER_MQ)
        return refuse_flag("huber-delta", "huber or huber-mq", name);
    if (a->quantile && s->kind != FC_LOSS_QUANTILE) return refuse_flag("quantile", "quantile", name);
    if (a->season && s->kind != FC_LOSS_MASE) return refuse_flag("season", "mase", name);
    if (a->level && !multi) return refuse_flag("level", "mq, huber-mq or a distribution", name);
    if (a->quantiles && !multi) return refuse_flag("quantiles", "mq, huber-mq or a distribution", name);
    if (a->num_samples && !dist) return refuse_flag("num-samples", "normal, studentt, poisson or negative-binomial", name);
    if ((a->cos_embedding_dim || a->concentration0 || a->concentration1) && s->kind != FC_LOSS_IQ)
        return refuse_flag(a->cos_embedding_dim ? "cos-embedding-dim" : a->concentration0 ? "concentration0"
                                                                                          : "concentration1",
                           "iq", name);
    if (a->cos_embedding_dim) {
        if (parse_number(a->cos_embedding_dim, &v) || v != (double)(long)v || v < 1 || v > FC_IQ_MAX_DIM)
            return fc_error(FC_ERR_INVALID, "--cos-embedding-dim '%s' is not an integer from 1 to %d",
                            a->cos_embedding_dim, FC_IQ_MAX_DIM);
        s->iq_dim = (int)v;
    }
    const char *conc[2] = {a->concentration0, a->concentration1};
    float *slot[2] = {&s->concentration0, &s->concentration1};
    for (int k = 0; k < 2; k++) {
        if (!conc[k]) continue;
        if (parse_number(conc[k], &v) || !(v > 0))
            return fc_error(FC_ERR_INVALID, "--concentration%d '%s' is not a positive number", k, conc[k]);
        *slot[k] = (float)v;
    }
    if (a->num_samples) {
        if (parse_number(a->num_samples, &v) || v != (double)(long)v || v < 1 || v > FC_DISTRIBUTION_MAX_SAMPLES)
            return fc_error(FC_ERR_INVALID, "--num-samples '%s' is not an integer from 1 to %d", a->num_samples,
                            FC_DISTRIBUTION_MAX_SAMPLES);
        s->n_samples = (int)v;
    }
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
    if (a->season) {
        if (parse_number(a->season, &v) || v != (double)(long)v || v < 1 || v >= (double)L)
            return fc_error(FC_ERR_INVALID, "--season %s must be at least 1 and below --input-size %zu",
                            a->season, L);
        s->season = (int)v;
    }
    if (multi) FC_TRY(mq_from_texts(a, s));
    char what[32];
    snprintf(what, sizeof what, "--loss %s", name);
    return fc_loss_check(s, L, what);
}

