/* Element and row bodies of the small strided-block operations of the
 * backend (flip, axpby, multiply, broadcast, row sums): models use them to
 * cut, reverse and recombine (B, C) blocks of the activation buffer. */
#ifndef FC_KERNELS_ROWS_H
#define FC_KERNELS_ROWS_H

#include <stddef.h>
#include "core/hd.h"

/* y = alpha * x + beta * y, with BLAS's convention that beta == 0 does not
 * read y (so an uninitialised or NaN-filled y is simply overwritten). */
FC_HD float fc_axpby(float alpha, float x, float beta, float y) {
    return beta == 0.0f ? alpha * x : alpha * x + beta * y;
}

/* y (L) = x (L) reversed. Swaps pairs, so it also works in place (y == x). */
FC_HD void fc_flip_row(float *y, const float *x, size_t L) {
    for (size_t i = 0, j = L; i < j--; i++) {
        float a = x[i], b = x[j];
        y[i] = b;
        y[j] = a;
    }
}

FC_HD void fc_axpby_row(float *y, float alpha, const float *x, float beta, size_t C) {
    for (size_t c = 0; c < C; c++) y[c] = fc_axpby(alpha, x[c], beta, y[c]);
}

FC_HD void fc_mul_row(float *y, const float *m, size_t C) {
    for (size_t c = 0; c < C; c++) y[c] *= m[c];
}

FC_HD void fc_fill_row(float *y, float value, size_t C) {
    for (size_t c = 0; c < C; c++) y[c] = value;
}

/* Sum of a row in a fixed left-to-right order, accumulated in double so
 * the result does not depend on C's rounding history. */
FC_HD float fc_sum_row(const float *x, size_t C) {
    double s = 0.0;
    for (size_t c = 0; c < C; c++) s += x[c];
    return (float)s;
}

#endif
