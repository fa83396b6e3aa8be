/* Linear interpolation from n_in knots to n_out points, exactly as torch's
 * F.interpolate(x, size=n_out, mode="linear", align_corners=False) on CPU
 * (aten/src/ATen/native/UpSample.h: area_pixel_compute_scale,
 * area_pixel_compute_source_index, guard_index_and_lambda,
 * compute_source_index_and_lambda). All index arithmetic is in float, as
 * torch's opmath_type<float>, so the weights match torch bit for bit:
 *   scale = (float)n_in / n_out
 *   src   = max(scale * (j + 0.5f) - 0.5f, 0)
 *   i0    = min(floor(src), n_in - 1),  i1 = i0 + (i0 < n_in - 1)
 *   w1    = clamp(src - i0, 0, 1),      w0 = 1 - w1
 * with torch's shortcut n_in == n_out: i0 = i1 = j, w0 = 1, w1 = 0. */
#ifndef FC_KERNELS_INTERP_LINEAR_H
#define FC_KERNELS_INTERP_LINEAR_H

#include <math.h>
#include <stddef.h>
#include "core/hd.h"

typedef struct {
    size_t i0, i1;  /* knots read by one output point */
    float w0, w1;   /* their weights */
} fc_interp_tap;

FC_HD fc_interp_tap fc_interp_linear_tap(size_t n_in, size_t n_out, size_t j) {
    fc_interp_tap t;
    if (n_in == n_out) {
        t.i0 = t.i1 = j;
        t.w0 = 1.0f;
        t.w1 = 0.0f;
        return t;
    }
    float scale = (float)n_in / (float)n_out;
    float src = scale * ((float)j + 0.5f) - 0.5f;
    if (src < 0.0f) src = 0.0f;
    size_t i0 = (size_t)floorf(src);
    if (i0 > n_in - 1) i0 = n_in - 1;
    float w1 = src - (float)i0;
    w1 = w1 < 0.0f ? 0.0f : (w1 > 1.0f ? 1.0f : w1);
    t.i0 = i0;
    t.i1 = i0 + (i0 < n_in - 1 ? 1 : 0);
    t.w1 = w1;
    t.w0 = 1.0f - w1;
    return t;
}

/* Output point j of one row. */
FC_HD float fc_interp_linear_point(const float *x, size_t n_in, size_t n_out, size_t j) {
    fc_interp_tap t = fc_interp_linear_tap(n_in, n_out, j);
    return x[t.i0] * t.w0 + x[t.i1] * t.w1;
}

/* One row: y (n_out) from x (n_in). */
FC_HD void fc_interp_linear_row_forward(float *y, const float *x, size_t n_in, size_t n_out) {
    for (size_t j = 0; j < n_out; j++) y[j] = fc_interp_linear_point(x, n_in, n_out, j);
}

/* One row: dx (n_in) = transpose of the forward applied to dy (n_out);
 * overwrites dx, then scatters in output order (torch's order). */
FC_HD void fc_interp_linear_row_backward(float *dx, const float *dy, size_t n_in, size_t n_out) {
    for (size_t i = 0; i < n_in; i++) dx[i] = 0.0f;
    for (size_t j = 0; j < n_out; j++) {
        fc_interp_tap t = fc_interp_linear_tap(n_in, n_out, j);
        dx[t.i0] += t.w0 * dy[j];
        dx[t.i1] += t.w1 * dy[j];
    }
}

/* The first output point whose tap starts at knot `lo` or later (n_out if
 * none). Taps only move right as j grows (every step of
 * fc_interp_linear_tap is monotone: float rounding, a positive scale,
 * max, floor, min), so a binary search over the exact taps finds it. */
FC_HD size_t fc_interp_linear_first_tap(size_t lo, size_t n_in, size_t n_out) {
    size_t a = 0, b = n_out;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (fc_interp_linear_tap(n_in, n_out, mid).i0 < lo) a = mid + 1;
        else b = mid;
    }
    return a;
}

/* dx[i] of one row, as fc_interp_linear_row_backward leaves it, for a
 * kernel with one thread per knot (the CUDA backend's): the
 * scatter adds w0 * dy[j] to dx[i0] then w1 * dy[j] to dx[i1], j rising,
 * from 0.0f. Only taps starting at knot i - 1 (through i1) or i reach
 * knot i, and they are consecutive in j: visiting them in order with the
 * i0 add before the i1 add repeats the scatter's adds to dx[i] exactly. */
FC_HD float fc_interp_linear_backward_point(const float *dy, size_t n_in, size_t n_out, size_t i) {
    float acc = 0.0f;
    for (size_t j = fc_interp_linear_first_tap(i ? i - 1 : 0, n_in, n_out); j < n_out; j++) {
        fc_interp_tap t = fc_interp_linear_tap(n_in, n_out, j);
        if (t.i0 > i) break;
        if (t.i0 == i) acc += t.w0 * dy[j];
        if (t.i1 == i) acc += t.w1 * dy[j];
    }
    return acc;
}

#endif
