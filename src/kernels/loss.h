/* The training losses of neuralforecast's losses.pytorch (MAE, MSE,
 * HuberLoss, SMAPE, MAPE, MASE, QuantileLoss, MQLoss, HuberMQLoss, and
 * DistributionLoss's Normal, StudentT, Poisson and NegativeBinomial
 * through kernels/distribution.h), masked means over
 * the points of a batch: the backend accumulates mask * loss over points in
 * double and divides by sum(mask) (_weighted_mean / _divide_no_nan).
 *
 * Everything per point is here, in FC_HD bodies the CPU and CUDA backends
 * share, in float as torch computes it on float tensors; gradients are
 * torch autograd's derivatives of those expressions, ties included:
 *   - |x| backward is sgn(x), with sgn(0) = 0;
 *   - torch.max(a, b) / torch.maximum backward gives each side half the
 *     gradient when a == b (QuantileLoss and MQLoss at yhat == y: 0.5 - q);
 *   - F.huber_loss backward is +-delta from |x| >= delta on, x inside;
 *   - _divide_no_nan(a, b) has a zero gradient where b == 0. */
#ifndef FC_KERNELS_LOSS_H
#define FC_KERNELS_LOSS_H

#include <math.h>
#include <stddef.h>
#include "core/hd.h"
#include "kernels/distribution.h"

/* Stored in model files by name (fc_loss_name), never by number. */
enum {
    FC_LOSS_MAE = 0,
    FC_LOSS_MSE,
    FC_LOSS_HUBER,
    FC_LOSS_SMAPE,
    FC_LOSS_MAPE,
    FC_LOSS_MASE,
    FC_LOSS_QUANTILE,
    FC_LOSS_MQ,
    FC_LOSS_HUBER_MQ,
    FC_LOSS_NORMAL,              /* DistributionLoss('Normal'), then StudentT, Poisson, */
    FC_LOSS_STUDENTT,            /* NegativeBinomial: in kernels/distribution.h's order */
    FC_LOSS_POISSON,
    FC_LOSS_NBINOMIAL,
    FC_LOSS_IQ,                  /* IQLoss: QuantileLoss at each point's own quantile (q_point) */
    FC_LOSS_KINDS
};

/* Quantiles an MQ loss can have: level 50 plus up to 7 levels as pairs,
 * or any 15 quantiles. */
#define FC_MAX_QUANTILES 15

/* DistributionLoss's num_samples: neuralforecast's default, and fcast's
 * most (a forecast sorts this many draws per point). */
#define FC_DISTRIBUTION_SAMPLES 1000
#define FC_DISTRIBUTION_MAX_SAMPLES 100000

/* A loss and its parameters. Small and plain: a CUDA kernel takes it by
 * value, so a captured graph holds its own copy. */
typedef struct {
    int kind;                    /* FC_LOSS_* */
    int n_q;                     /* outputs per point: MQ's / HUBER_MQ's quantile count, else 1 */
    float delta;                 /* HUBER's and HUBER_MQ's threshold */
    int season;                  /* MASE's seasonality */
    float q[FC_MAX_QUANTILES];   /* QUANTILE: q[0]; MQ, HUBER_MQ: the quantiles in output order */
    int from_level;              /* MQ, HUBER_MQ, distributions: 1 when the quantiles came from levels
                                    (output names "-lo-80", not "-lo-80.0"); no effect on the math */
    int n_samples;               /* distributions: draws per point of a forecast (num_samples) */
    int iq_dim;                  /* IQ: cos_embedding_dim of its head (64); q[0]: the quantile forecast (0.5) */
    float concentration0, concentration1;   /* IQ: the Beta its training quantiles are drawn from (1, 1) */
} fc_loss_spec;

/* One evaluation of a loss over a batch of B windows of h points:
 * n = B * h points, row-major (B, h). yhat holds n_q outputs per point,
 * (B, h, n_q) as neuralforecast's (B, h, Q); the gradient has its shape. */
typedef struct {
    fc_loss_spec spec;
    const float *yhat;           /* (n, n_q) */
    const float *y, *mask;       /* (n) */
    const float *insample;       /* (B, L): MASE's scale (the window's seasonal naive MAE); else NULL */
    /* Distributions: the target as in the data (n) and each window's
     * scaler shift and scale (B), which the likelihood decouples the raw
     * outputs with (neuralforecast's scale_decouple); else NULL. */
    const float *y_raw, *loc, *scale;
    const float *q_point;        /* IQ: each point's quantile (n), the head's draws; else NULL */
    size_t n, h, L;
} fc_loss_call;

/* MQLoss multiplies its losses by 1 / len(quantiles) where quantiles is
 * self.quantiles[None, None, None, :]: a 4-d tensor whose len() is its
 * first dimension, 1. So neuralforecast 3.3 SUMS the pinball losses of a
 * point's quantiles (it does not average them); we do the same. */
#define FC_MQ_WEIGHT 1.0f

/* The losses with a list of quantiles (levels), one output per quantile:
 * MQLoss and HuberMQLoss. */
FC_HD int fc_loss_kind_is_multi_quantile(int kind) { return kind == FC_LOSS_MQ || kind == FC_LOSS_HUBER_MQ; }

/* DistributionLoss's kinds: a likelihood over a point's raw outputs; the
 * forecast is the mean and quantiles of draws (its quantile list). */
FC_HD int fc_loss_kind_is_distribution(int kind) { return kind >= FC_LOSS_NORMAL && kind <= FC_LOSS_NBINOMIAL; }

/* The losses whose one output is a quantile, not a point forecast:
 * QuantileLoss and IQLoss (named "_ql<q>"). */
FC_HD int fc_loss_kind_is_one_quantile(int kind) { return kind == FC_LOSS_QUANTILE || kind == FC_LOSS_IQ; }

/* The losses that carry a list of quantiles (s->q, s->n_q). */
FC_HD int fc_loss_kind_has_quantile_list(int kind) {
    return fc_loss_kind_is_multi_quantile(kind) || fc_loss_kind_is_distribution(kind);
}

/* Model outputs per point: MQ's quantiles, a distribution's parameters,
 * else 1 (a zeroed spec is MAE, 1). */
FC_HD size_t fc_loss_outputs(const fc_loss_spec *s) {
    if (fc_loss_kind_is_distribution(s->kind)) return (size_t)fc_distribution_params(s->kind - FC_LOSS_NORMAL);
    return fc_loss_kind_is_multi_quantile(s->kind) && s->n_q > 0 ? (size_t)s->n_q : 1;
}

FC_HD float fc_loss_sgn(float x) { return (float)((x > 0.0f) - (x < 0.0f)); }

/* MASE's scale of one window: torch.mean(|x[s:] - x[:-s]|) over
 * x = z * scale + shift (L), the window as the loss sees it: training's
 * scaled insample as it is (shift 0, scale 1: x == z exactly), validation's
 * inverted as _inv_normalization does. The differences in float, their sum
 * in double (torch's cascaded float sum has no portable order; double
 * rounds once, within an ulp or two of it) and rounded to float. NaN when
 * s >= L (the mean of nothing), as torch; the flags refuse such a season.
 * No mask: neuralforecast uses the whole window, padding included. */
FC_HD float fc_loss_mase_scale(const float *z, size_t L, int season, float shift, float scale) {
    size_t s = season > 0 ? (size_t)season : 1;
    if (s >= L) return NAN;
    double sum = 0.0;
    for (size_t t = s; t < L; t++) {
        float a = z[t] * scale + shift, b = z[t - s] * scale + shift;
        sum += (double)fabsf(a - b);
    }
    return (float)(sum / (double)(L - s));
}

/* The scale point i (of window i / h) is measured with: MASE's, else 1. */
FC_HD float fc_loss_scale_at(const fc_loss_call *c, size_t i) {
    if (c->spec.kind != FC_LOSS_MASE) return 1.0f;
    size_t w = c->h ? i / c->h : 0;
    return fc_loss_mase_scale(c->insample + w * c->L, c->L, c->spec.season, 0.0f, 1.0f);
}

/* QuantileLoss's max(q * d, (q - 1) * d) with d = y - yhat: q - 1 is a
 * Python float (double) before torch casts it to float. *dd: d loss / d d. */
FC_HD float fc_loss_pinball(float q, float d, float *dd) {
    float qm1 = (float)((double)q - 1.0);
    float a = q * d, b = qm1 * d;
    *dd = a > b ? q : a < b ? qm1 : 0.5f * q + 0.5f * qm1;
    return a >= b || a != a ? a : b;   /* torch.max propagates NaN */
}

/* MQLoss's term of quantile q at e = yhat - y:
 * q * max(-e, 0) + (1 - q) * max(e, 0), 1 - q in float (a float tensor).
 * *de: d term / d e, half slopes at e == 0 (maximum's tie rule). */
FC_HD float fc_loss_mq_term(float q, float e, float *de) {
    float sq = fmaxf(-e, 0.0f), s1 = fmaxf(e, 0.0f), q1 = 1.0f - q;
    float dsq = -e > 0.0f ? -1.0f : -e == 0.0f ? -0.5f : 0.0f;
    float ds1 = e > 0.0f ? 1.0f : e == 0.0f ? 0.5f : 0.0f;
    *de = FC_MQ_WEIGHT * (q * dsq + q1 * ds1);
    if (e != e) return e;
    return FC_MQ_WEIGHT * (q * sq + q1 * s1);
}

/* F.huber_loss(x, 0, delta) of x: 0.5 x^2 below delta, delta (|x| -
 * delta / 2) from it; *dx its backward, +-delta from |x| >= delta on. */
FC_HD float fc_loss_huber(float x, float delta, float *dx) {
    float a = fabsf(x);
    *dx = x >= delta ? delta : x <= -delta ? -delta : x;
    return a < delta ? 0.5f * a * a : delta * (a - delta * 0.5f);
}

/* HuberMQLoss's term of quantile q at e = yhat - y:
 * huber(q * max(-e, 0)) + huber((1 - q) * max(e, 0)), both against 0,
 * 1 - q in float. *de: d term / d e; at e == 0 both huber slopes are 0,
 * so maximum's half-slope tie gives 0. */
FC_HD float fc_loss_huber_mq_term(float q, float delta, float e, float *de) {
    float q1 = 1.0f - q, hq, h1;
    float lq = fc_loss_huber(q * fmaxf(-e, 0.0f), delta, &hq);
    float l1 = fc_loss_huber(q1 * fmaxf(e, 0.0f), delta, &h1);
    *de = FC_MQ_WEIGHT * (e < 0.0f ? -q * hq : e > 0.0f ? q1 * h1 : 0.0f);
    if (e != e) return e;
    return FC_MQ_WEIGHT * (lq + l1);
}

/* Loss of output j of one point and, into *g, its d / d yhat; `scale` is
 * the point's fc_loss_scale_at. */
FC_HD float fc_loss_output(const fc_loss_spec *s, int j, float yhat, float y, float scale, float *g) {
    float d = yhat - y, a = fabsf(d);
    switch (s->kind) {
    case FC_LOSS_MSE:
        *g = 2.0f * d;
        return d * d;
    case FC_LOSS_HUBER:     /* F.huber_loss(y, yhat) */
        return fc_loss_huber(d, s->delta, g);
    case FC_LOSS_SMAPE: {   /* 2 * |y - yhat| / (|y| + |yhat|), both parts of the ratio move with yhat */
        float b = fabsf(y) + fabsf(yhat);
        if (b == 0.0f) { *g = 0.0f; return 0.0f; }
        float r = a / b;
        *g = 2.0f * (fc_loss_sgn(d) / b - (r / b) * fc_loss_sgn(yhat));
        return 2.0f * r;
    }
    case FC_LOSS_MAPE: {    /* |y - yhat| * _divide_no_nan(1, |y|) */
        float inv = fabsf(y) == 0.0f ? 0.0f : 1.0f / fabsf(y);
        *g = fc_loss_sgn(d) * inv;
        return a * inv;
    }
    case FC_LOSS_MASE:      /* _divide_no_nan(|y - yhat|, scale) */
        if (scale == 0.0f) { *g = 0.0f; return 0.0f; }
        *g = fc_loss_sgn(d) / scale;
        return a / scale;
    case FC_LOSS_QUANTILE: {
        float dd, l = fc_loss_pinball(s->q[0], -d, &dd);
        *g = -dd;
        return l;
    }
    case FC_LOSS_MQ:
        return fc_loss_mq_term(s->q[j], d, g);
    case FC_LOSS_HUBER_MQ:
        return fc_loss_huber_mq_term(s->q[j], s->delta, d, g);
    default:                /* MAE */
        *g = fc_loss_sgn(d);
        return a;
    }
}

/* Sum over the outputs of point i of mask * loss, each product in float as
 * torch's `losses * weights`, added in double; 0 at an unobserved point
 * (_weighted_mean's where(weights != 0, ...), so a NaN there is dropped). */
/* IQLoss at point i: QuantileLoss with the point's quantile. */
FC_HD fc_loss_spec fc_loss_iq_point(const fc_loss_call *c, size_t i) {
    fc_loss_spec s = c->spec;
    s.kind = FC_LOSS_QUANTILE;
    s.q[0] = c->q_point[i];
    return s;
}

FC_HD double fc_loss_point_weighted(const fc_loss_call *c, size_t i, float scale) {
    float m = c->mask[i];
    if (m == 0.0f) return 0.0;
    size_t Q = fc_loss_outputs(&c->spec);
    if (c->spec.kind == FC_LOSS_IQ) {
        fc_loss_spec s = fc_loss_iq_point(c, i);
        float g;
        return (double)(m * fc_loss_output(&s, 0, c->yhat[i], c->y[i], scale, &g));
    }
    if (fc_loss_kind_is_distribution(c->spec.kind)) {   /* one likelihood over the point's Q outputs */
        float g[FC_DISTRIBUTION_MAX_PARAMS];
        size_t w = c->h ? i / c->h : 0;
        return (double)(m * fc_distribution_nll(c->spec.kind - FC_LOSS_NORMAL, c->yhat + i * Q, c->loc[w],
                                                c->scale[w], c->y_raw[i], g));
    }
    double sum = 0.0;
    for (size_t j = 0; j < Q; j++) {
        float g;
        sum += (double)(m * fc_loss_output(&c->spec, (int)j, c->yhat[i * Q + j], c->y[i], scale, &g));
    }
    return sum;
}

/* grad (n, Q) of point i: coef * mask * d loss / d yhat, coef =
 * grad_scale / sum(mask) (0 when nothing is observed). An unobserved
 * point's is a zero (signed as coef * 0 * g always was), also where its
 * derivative is not finite (the where() of _weighted_mean). */
FC_HD void fc_loss_point_grad(float *grad, const fc_loss_call *c, size_t i, float scale, float coef) {
    size_t Q = fc_loss_outputs(&c->spec);
    float m = c->mask[i], gd[FC_DISTRIBUTION_MAX_PARAMS];
    if (fc_loss_kind_is_distribution(c->spec.kind)) {
        size_t w = c->h ? i / c->h : 0;
        fc_distribution_nll(c->spec.kind - FC_LOSS_NORMAL, c->yhat + i * Q, c->loc[w], c->scale[w], c->y_raw[i], gd);
    }
    for (size_t j = 0; j < Q; j++) {
        float g;
        if (fc_loss_kind_is_distribution(c->spec.kind)) {
            g = gd[j];
        } else if (c->spec.kind == FC_LOSS_IQ) {
            fc_loss_spec s = fc_loss_iq_point(c, i);
            fc_loss_output(&s, 0, c->yhat[i], c->y[i], scale, &g);
        } else {
            fc_loss_output(&c->spec, (int)j, c->yhat[i * Q + j], c->y[i], scale, &g);
        }
        if (m == 0.0f && !isfinite(g)) g = 0.0f;
        grad[i * Q + j] = coef == 0.0f ? 0.0f : coef * m * g;
    }
}

#endif
