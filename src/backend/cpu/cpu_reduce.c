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

/* Sums of mask * loss and of mask over the points [start, start + n).
 * MASE's window scale is measured once per window the block touches
 * (points of a window are consecutive). */
static void block_masked_loss(const fc_loss_call *c, size_t start, size_t n, double *loss_sum, double *mask_sum) {
    double ls = 0.0, ms = 0.0;
    size_t h = c->h ? c->h : 1, window = (size_t)-1;
    float scale = 1.0f;
    for (size_t i = start; i < start + n; i++) {
        if (c->spec.kind == FC_LOSS_MASE && i / h != window) {
            window = i / h;
            scale = fc_loss_scale_at(c, i);
        }
        ls += fc_loss_point_weighted(c, i, scale);
        ms += (double)c->mask[i];
    }
    *loss_sum = ls;
    *mask_sum = ms;
}

/* The gradient window by window (one MASE scale each); every element is
 * its own expression, so the split does not change a bit. */
static void masked_loss_grad(fc_backend *be, float *grad, float coef, const fc_loss_call *c) {
    size_t n = c->n, h = c->h ? c->h : (n ? n : 1), windows = (n + h - 1) / h;
    size_t work = n * fc_loss_outputs(&c->spec);
#pragma omp parallel for if (work >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t w = 0; w < windows; w++) {
        size_t first = w * h, last = n - first < h ? n : first + h;
        float scale = fc_loss_scale_at(c, first);
        for (size_t i = first; i < last; i++) fc_loss_point_grad(grad, c, i, scale, coef);
    }
}

/* loss = sum(mask * l) / sum(mask), 0 when sum(mask) == 0 (neuralforecast's
 * _divide_no_nan); grad = grad_scale * mask * l'(yhat) / sum(mask), 0 then. */
static void masked_loss(fc_backend *be, double *loss, float *grad, float grad_scale, const fc_loss_call *c) {
    double loss_part[FC_REDUCE_MAX_BLOCKS], mask_part[FC_REDUCE_MAX_BLOCKS];
    size_t n = c->n;
    fc_reduce_split split = fc_reduce_split_of(n);
    size_t len = split.block_len, blocks = split.blocks;
#pragma omp parallel for if (blocks > 1) num_threads(be->threads) schedule(static)
    for (size_t b = 0; b < blocks; b++) {
        size_t start = b * len, count = n - start < len ? n - start : len;
        block_masked_loss(c, start, count, &loss_part[b], &mask_part[b]);
    }
    double loss_sum = 0.0, mask_sum = 0.0;
    for (size_t b = 0; b < blocks; b++) {
        loss_sum += loss_part[b];
        mask_sum += mask_part[b];
    }
    *loss = mask_sum == 0.0 ? 0.0 : loss_sum / mask_sum;
    if (!grad) return;
    float coef = mask_sum == 0.0 ? 0.0f : (float)((double)grad_scale / mask_sum);
    masked_loss_grad(be, grad, coef, c);
}

/* Backend memory is host memory: the loss goes straight into *d_loss. */
void fc_cpu_masked_loss(fc_backend *be, double *d_loss, int first, double divisor, float *grad, float grad_scale,
                        const fc_loss_call *c) {
    double loss;
    masked_loss(be, &loss, grad, grad_scale, c);
    *d_loss = (first ? 0.0 : *d_loss) + loss / divisor;
}
