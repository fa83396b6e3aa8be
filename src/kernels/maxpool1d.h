/* 1-D max pooling as torch.nn.MaxPool1d(kernel_size=k, stride=k,
 * ceil_mode=True, padding=0), the pooling of N-HiTS: the output has ceil(L/k)
 * points and the last window may be partial (it covers only what remains).
 *
 * Ties and NaN follow torch's CPU kernel (max_pool2d_with_indices): the
 * running max starts at -inf with the window's first index and is replaced
 * when `v > max || isnan(v)`, so the first maximum wins, a NaN propagates,
 * and among NaNs the last one's index is kept. */
#ifndef FC_KERNELS_MAXPOOL1D_H
#define FC_KERNELS_MAXPOOL1D_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "core/hd.h"

FC_HD size_t fc_maxpool1d_out_len(size_t L, size_t k) { return (L + k - 1) / k; }

/* Output point j of one row x (L): writes y and the argmax index into x. */
FC_HD void fc_maxpool1d_point(const float *x, size_t L, size_t k, size_t j, float *y,
                              int32_t *argmax) {
    size_t start = j * k;
    size_t end = start + k < L ? start + k : L;
    float best = -INFINITY;
    size_t best_i = start;
    for (size_t i = start; i < end; i++) {
        float v = x[i];
        if (v > best || isnan(v)) {
            best = v;
            best_i = i;
        }
    }
    *y = best;
    *argmax = (int32_t)best_i;
}

/* One row: y (ceil(L/k)), argmax (ceil(L/k)) from x (L). */
FC_HD void fc_maxpool1d_row_forward(const float *x, size_t L, size_t k, float *y,
                                    int32_t *argmax) {
    size_t n_out = fc_maxpool1d_out_len(L, k);
    for (size_t j = 0; j < n_out; j++) fc_maxpool1d_point(x, L, k, j, &y[j], &argmax[j]);
}

/* One row: dx (L) = dy (ceil(L/k)) scattered to the argmax positions,
 * zero elsewhere (overwrites dx). Windows do not overlap (stride == k), but
 * the scatter adds so the body stays correct if they ever did. */
FC_HD void fc_maxpool1d_row_backward(float *dx, size_t L, const float *dy,
                                     const int32_t *argmax, size_t k) {
    size_t n_out = fc_maxpool1d_out_len(L, k);
    for (size_t i = 0; i < L; i++) dx[i] = 0.0f;
    for (size_t j = 0; j < n_out; j++) dx[argmax[j]] += dy[j];
}

/* dx[i] of one row, as fc_maxpool1d_row_backward leaves it, for a kernel
 * with one thread per input point (the CUDA backend's): zero, plus
 * dy[j] for each window j whose argmax is i. Windows do not overlap
 * (stride k) and forward's argmax of window j lies inside it, so only
 * window i / k can reach i: at most one add, to 0.0f, as in the scatter
 * (0.0f + dy is not always dy's bits: -0.0f becomes +0.0f on both). */
FC_HD float fc_maxpool1d_backward_point(const float *dy, const int32_t *argmax, size_t k, size_t i) {
    size_t j = i / k;
    float acc = 0.0f;
    if ((size_t)argmax[j] == i) acc += dy[j];
    return acc;
}

#endif
