/* Body of the backend's transpose_rows: each row of a batch holds an (A, C)
 * matrix, row-major, and becomes its (C, A) transpose: torch's
 * x.permute(0, 2, 1) of a (B, A, C) tensor, made contiguous. Models use it
 * to move between neuralforecast's quantile-major (B, Q, H) intermediates
 * (interpolated knots, basis products) and the (B, H, Q) forecast. Only
 * moves floats, so every backend gives the same bits; its backward is the
 * same op with A and C swapped. */
#ifndef FC_KERNELS_TRANSPOSE_H
#define FC_KERNELS_TRANSPOSE_H

#include <stddef.h>
#include "core/hd.h"

/* Element t (0 <= t < A * C) of one output row y (C, A), t = c * A + a,
 * read from the input row x (A, C). */
FC_HD void fc_transpose_point(float *y, const float *x, size_t A, size_t C, size_t t) {
    size_t c = t / A, a = t % A;
    y[t] = x[a * C + c];
}

/* One row: y (C, A) = x (A, C)^T, written in y's order. */
FC_HD void fc_transpose_row(float *y, const float *x, size_t A, size_t C) {
    for (size_t t = 0; t < A * C; t++) fc_transpose_point(y, x, A, C, t);
}

#endif
