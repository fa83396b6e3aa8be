/* Nearest-neighbour interpolation from n_in knots to n_out points, as
 * torch's F.interpolate(x, size=n_out, mode="nearest") on CPU
 * (aten/src/ATen/native/UpSample.h: nearest_idx): the source of output j
 * is floor(j * scale) with scale = (float)n_in / n_out in float, capped at
 * n_in - 1; torch's shortcuts (n_out == n_in: j; n_out == 2 n_in: j >> 1)
 * give the same index. This is the mode neuralforecast's N-HiTS uses for
 * interpolation_mode="nearest" (no align_corners).
 *
 * The backward is the forward's transpose: each dx[i] sums the dy[j]
 * whose source is i, a scatter-add in output order (torch's order). */
#ifndef FC_KERNELS_INTERP_NEAREST_H
#define FC_KERNELS_INTERP_NEAREST_H

#include <math.h>
#include <stddef.h>
#include "core/hd.h"

FC_HD size_t fc_interp_nearest_src(size_t n_in, size_t n_out, size_t j) {
    float scale = (float)n_in / (float)n_out;
    size_t i = (size_t)floorf((float)j * scale);
    return i < n_in - 1 ? i : n_in - 1;
}

/* One row: y (n_out) from x (n_in). */
FC_HD void fc_interp_nearest_row_forward(float *y, const float *x, size_t n_in, size_t n_out) {
    for (size_t j = 0; j < n_out; j++) y[j] = x[fc_interp_nearest_src(n_in, n_out, j)];
}

/* One row: dx (n_in) overwritten with the scatter-add of dy (n_out). */
FC_HD void fc_interp_nearest_row_backward(float *dx, const float *dy, size_t n_in, size_t n_out) {
    for (size_t i = 0; i < n_in; i++) dx[i] = 0.0f;
    for (size_t j = 0; j < n_out; j++) dx[fc_interp_nearest_src(n_in, n_out, j)] += dy[j];
}

/* dx[i] of one row, as fc_interp_nearest_row_backward leaves it, for a
 * kernel with one thread per knot (CUDA's): the sources only grow with j
 * (float multiply and floor are monotone), so the outputs reading knot i
 * are consecutive; a binary search finds the first, and adding them in
 * rising j from 0.0f repeats the scatter's adds exactly. */
FC_HD float fc_interp_nearest_backward_point(const float *dy, size_t n_in, size_t n_out, size_t i) {
    size_t a = 0, b = n_out;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (fc_interp_nearest_src(n_in, n_out, mid) < i) a = mid + 1;
        else b = mid;
    }
    float acc = 0.0f;
    for (size_t j = a; j < n_out && fc_interp_nearest_src(n_in, n_out, j) == i; j++) acc += dy[j];
    return acc;
}

#endif
