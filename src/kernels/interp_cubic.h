/* Cubic interpolation from n_in knots to n_out points, as neuralforecast's
 * N-HiTS does it for interpolation_mode="cubic": the knots viewed as a
 * (1, n_in) image, F.interpolate(mode="bicubic", size=n_out) to an
 * (n_out, n_out) image (align_corners=False), and its first row kept.
 *
 * Along the row, torch's cubic convolution (aten/src/ATen/native/
 * UpSample.h: area_pixel_compute_source_index with cubic=true,
 * guard_index_and_lambda, get_cubic_upsample_coefficients, A = -0.75),
 * in float:
 *   src = scale (j + 0.5) - 0.5   (not clamped at 0, unlike linear)
 *   i0  = min(floor(src), n_in - 1),  t = clamp(src - i0, 0, 1)
 *   knots i0 - 1 .. i0 + 2, each clamped into [0, n_in - 1], weighted
 *   w0 = c2(t + 1), w1 = c1(t), w2 = c1(1 - t), w3 = c2(2 - t)
 *   c1(x) = ((A + 2) x - (A + 3)) x x + 1,  c2(x) = ((A x - 5A) x + 8A) x - 4A
 * Across the single input row, the output's first row reads that row four
 * times (clamped) with the column weights of row 0 of an n_out-tall
 * image: their sum, 1 up to rounding, multiplies each point as torch's
 * second pass does (inner w0 + inner w1 + inner w2 + inner w3).
 *
 * The backward is the transpose, a scatter-add in output order. */
#ifndef FC_KERNELS_INTERP_CUBIC_H
#define FC_KERNELS_INTERP_CUBIC_H

#include <math.h>
#include <stddef.h>
#include "core/hd.h"

#define FC_CUBIC_A (-0.75f)

typedef struct {
    long long i0;   /* floor of the source position, -1 .. n_in - 1 */
    float w[4];     /* weights of knots i0 - 1 .. i0 + 2 (clamped) */
} fc_cubic_tap;

FC_HD float fc_cubic_c1(float x) { return ((FC_CUBIC_A + 2.0f) * x - (FC_CUBIC_A + 3.0f)) * x * x + 1.0f; }
FC_HD float fc_cubic_c2(float x) {
    return ((FC_CUBIC_A * x - 5.0f * FC_CUBIC_A) * x + 8.0f * FC_CUBIC_A) * x - 4.0f * FC_CUBIC_A;
}

FC_HD fc_cubic_tap fc_interp_cubic_tap(size_t n_in, size_t n_out, size_t j) {
    float scale = (float)n_in / (float)n_out;
    float src = scale * ((float)j + 0.5f) - 0.5f;
    long long i0 = (long long)floorf(src);
    if (i0 > (long long)n_in - 1) i0 = (long long)n_in - 1;
    float t = src - (float)i0;
    t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
    fc_cubic_tap c;
    c.i0 = i0;
    c.w[0] = fc_cubic_c2(t + 1.0f);
    c.w[1] = fc_cubic_c1(t);
    c.w[2] = fc_cubic_c1(1.0f - t);
    c.w[3] = fc_cubic_c2(1.0f - t + 1.0f);
    return c;
}

/* Knot k (0..3) of a tap, clamped into the row. */
FC_HD size_t fc_cubic_knot(const fc_cubic_tap *c, int k, size_t n_in) {
    long long i = c->i0 - 1 + k;
    return i < 0 ? 0 : (i > (long long)n_in - 1 ? n_in - 1 : (size_t)i);
}

/* The row pass's factor for output row 0 of an n_out-tall image from one
 * input row: its four weights applied to the same value, as torch sums them. */
FC_HD float fc_cubic_row_pass(float inner, size_t n_out) {
    fc_cubic_tap r = fc_interp_cubic_tap(1, n_out, 0);
    float out = inner * r.w[0];
    for (int k = 1; k < 4; k++) out += inner * r.w[k];
    return out;
}

FC_HD float fc_interp_cubic_point(const float *x, size_t n_in, size_t n_out, size_t j) {
    fc_cubic_tap c = fc_interp_cubic_tap(n_in, n_out, j);
    float inner = x[fc_cubic_knot(&c, 0, n_in)] * c.w[0];
    for (int k = 1; k < 4; k++) inner += x[fc_cubic_knot(&c, k, n_in)] * c.w[k];
    return fc_cubic_row_pass(inner, n_out);
}

FC_HD void fc_interp_cubic_row_forward(float *y, const float *x, size_t n_in, size_t n_out) {
    for (size_t j = 0; j < n_out; j++) y[j] = fc_interp_cubic_point(x, n_in, n_out, j);
}

/* dx (n_in) overwritten: d inner = the row pass applied to dy[j] (it is
 * linear), scattered to the four knots in output order, k rising. */
FC_HD void fc_interp_cubic_row_backward(float *dx, const float *dy, size_t n_in, size_t n_out) {
    for (size_t i = 0; i < n_in; i++) dx[i] = 0.0f;
    for (size_t j = 0; j < n_out; j++) {
        fc_cubic_tap c = fc_interp_cubic_tap(n_in, n_out, j);
        float d = fc_cubic_row_pass(dy[j], n_out);
        for (int k = 0; k < 4; k++) dx[fc_cubic_knot(&c, k, n_in)] += c.w[k] * d;
    }
}

/* dx[i] as fc_interp_cubic_row_backward leaves it, for one thread per knot
 * (CUDA's): taps reaching knot i have i0 in [i - 2, i + 1], or any i0
 * below for knot 0 and above for the last knot (clamping); i0 only grows
 * with j, so a binary search finds the first and the adds run in the
 * scatter's order (j rising, k rising). */
FC_HD float fc_interp_cubic_backward_point(const float *dy, size_t n_in, size_t n_out, size_t i) {
    long long lo = i == 0 ? -2 : (long long)i - 2, hi = i == n_in - 1 ? (long long)n_in : (long long)i + 1;
    size_t a = 0, b = n_out;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (fc_interp_cubic_tap(n_in, n_out, mid).i0 < lo) a = mid + 1;
        else b = mid;
    }
    float acc = 0.0f;
    for (size_t j = a; j < n_out; j++) {
        fc_cubic_tap c = fc_interp_cubic_tap(n_in, n_out, j);
        if (c.i0 > hi) break;
        float d = fc_cubic_row_pass(dy[j], n_out);
        for (int k = 0; k < 4; k++)
            if (fc_cubic_knot(&c, k, n_in) == i) acc += c.w[k] * d;
    }
    return acc;
}

#endif
