/* Point-wise losses of the masked mean losses (neuralforecast's MAE and MSE
 * with _weighted_mean / _divide_no_nan): the backend accumulates
 * mask * loss over points in double and divides by sum(mask). */
#ifndef FC_KERNELS_LOSS_H
#define FC_KERNELS_LOSS_H

#include <math.h>
#include "core/hd.h"

enum { FC_LOSS_MAE = 0, FC_LOSS_MSE = 1 };

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
