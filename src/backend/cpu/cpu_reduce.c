/* Reductions of the CPU backend (masked losses, sums of squares), all
 * accumulated in double and deterministic for ANY thread count: the input
 * is cut into blocks whose boundaries depend only on n (fc_reduce_split_of,
 * shared with the CUDA backend), each block is summed
 * in a fixed order by whichever thread gets it, and the block sums are added
 * in block order. No allocation: at most FC_REDUCE_MAX_BLOCKS partials on
 * the stack. */
#include <omp.h>

#include "backend/cpu/cpu_internal.h"
#include "backend/launch_geometry.h"
#include "kernels/loss.h"

/* Four interleaved accumulators hide the latency of the double adds; the
 * order is still fixed by n alone. */
static double block_sum_squares(const float *x, size_t n) {
    double s[4] = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; l++) s[l] += (double)x[i + l] * (double)x[i + l];
    for (; i < n; i++) s[0] += (double)x[i] * (double)x[i];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

void fc_cpu_sum_squares(fc_backend *be, double *out, const float *x, size_t n) {
    double partial[FC_REDUCE_MAX_BLOCKS];
    fc_reduce_split split = fc_reduce_split_of(n);
    size_t len = split.block_len, blocks = split.blocks;
#pragma omp parallel for if (blocks > 1) num_threads(be->threads) schedule(static)
    for (size_t b = 0; b < blocks; b++) {
        size_t start = b * len, count = n - start < len ? n - start : len;
        partial[b] = block_sum_squares(x + start, count);
    }
    double total = 0.0;
    for (size_t b = 0; b < blocks; b++) total += partial[b];
    *out = total;
}

/* Sums of mask * loss and of mask over one block. The weighted point loss
 * is formed in float, as torch's `losses * weights`, then accumulated. */
static void block_masked_loss(const float *yhat, const float *y, const float *mask, size_t n,
                              int kind, double *loss_sum, double *mask_sum) {
    double ls = 0.0, ms = 0.0;
    for (size_t i = 0; i < n; i++) {
        ls += (double)(mask[i] * fc_loss_point(kind, yhat[i], y[i]));
        ms += (double)mask[i];
    }
    *loss_sum = ls;
    *mask_sum = ms;
}

/* loss = sum(mask * l) / sum(mask), 0 when sum(mask) == 0 (neuralforecast's
 * _divide_no_nan); grad = grad_scale * mask * l'(yhat) / sum(mask), 0 then. */
static void masked_loss(fc_backend *be, double *loss, float *grad, float grad_scale,
                        const float *yhat, const float *y, const float *mask, size_t n, int kind) {
    double loss_part[FC_REDUCE_MAX_BLOCKS], mask_part[FC_REDUCE_MAX_BLOCKS];
    fc_reduce_split split = fc_reduce_split_of(n);
    size_t len = split.block_len, blocks = split.blocks;
#pragma omp parallel for if (blocks > 1) num_threads(be->threads) schedule(static)
    for (size_t b = 0; b < blocks; b++) {
        size_t start = b * len, count = n - start < len ? n - start : len;
        block_masked_loss(yhat + start, y + start, mask + start, count, kind, &loss_part[b],
                          &mask_part[b]);
    }
    double loss_sum = 0.0, mask_sum = 0.0;
    for (size_t b = 0; b < blocks; b++) {
        loss_sum += loss_part[b];
        mask_sum += mask_part[b];
    }
    *loss = mask_sum == 0.0 ? 0.0 : loss_sum / mask_sum;
    if (!grad) return;
    float coef = mask_sum == 0.0 ? 0.0f : (float)((double)grad_scale / mask_sum);
#pragma omp parallel for if (n >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t i = 0; i < n; i++)
        grad[i] = coef == 0.0f ? 0.0f : coef * mask[i] * fc_loss_point_grad(kind, yhat[i], y[i]);
}

/* Backend memory is host memory: the loss goes straight into *d_loss. */
void fc_cpu_masked_loss(fc_backend *be, double *d_loss, int first, double divisor, float *grad, float grad_scale,
                        const fc_loss_call *c) {
    double loss;
    masked_loss(be, &loss, grad, grad_scale, c->yhat, c->y, c->mask, c->n, c->spec.kind);
    *d_loss = (first ? 0.0 : *d_loss) + loss / divisor;
}
