/* The training losses of neuralforecast's losses.pytorch (MAE, MSE,
 * HuberLoss, SMAPE, MAPE, MASE, QuantileLoss, MQLoss), masked means over
 * the points of a batch: the backend accumulates mask * loss over points in
 * double and divides by sum(mask) (_weighted_mean / _divide_no_nan). */
#ifndef FC_KERNELS_LOSS_H
#define FC_KERNELS_LOSS_H

#include <math.h>
#include <stddef.h>
#include "core/hd.h"

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
    FC_LOSS_KINDS
};

/* Quantiles an MQ loss can have: level 50 plus up to 7 levels as pairs,
 * or any 15 quantiles. */
#define FC_MAX_QUANTILES 15

/* A loss and its parameters. Small and plain: a CUDA kernel takes it by
 * value, so a captured graph holds its own copy. */
typedef struct {
    int kind;                    /* FC_LOSS_* */
    int n_q;                     /* outputs per point: MQ's quantile count, else 1 */
    float delta;                 /* HUBER's threshold */
    int season;                  /* MASE's seasonality */
    float q[FC_MAX_QUANTILES];   /* QUANTILE: q[0]; MQ: the quantiles in output order */
} fc_loss_spec;

/* One evaluation of a loss over a batch of B windows of h points:
 * n = B * h points, row-major (B, h). yhat holds n_q outputs per point,
 * (B, h, n_q) as neuralforecast's (B, h, Q); the gradient has its shape. */
typedef struct {
    fc_loss_spec spec;
    const float *yhat;           /* (n, n_q) */
    const float *y, *mask;       /* (n) */
    const float *insample;       /* (B, L): MASE's scale (the window's seasonal naive MAE); else NULL */
    size_t n, h, L;
} fc_loss_call;

/* Unweighted loss of one point, in float as torch computes it. */
FC_HD float fc_loss_point(int kind, float yhat, float y) {
    float d = yhat - y;
    return kind == FC_LOSS_MSE ? d * d : fabsf(d);
}

/* d loss / d yhat of one point. MAE uses sign(d) with sign(0) = 0, as
 * torch's abs backward (grad * sgn(x)). */
FC_HD float fc_loss_point_grad(int kind, float yhat, float y) {
    float d = yhat - y;
    if (kind == FC_LOSS_MSE) return 2.0f * d;
    return (float)((d > 0.0f) - (d < 0.0f));
}

#endif
