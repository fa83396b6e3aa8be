/* Body of the backend's revin_patch_forward / _backward and
 * revin_denorm_forward / _backward: PatchTST's input, neuralforecast's
 * RevIN (common/_modules.py, eps 1e-5) of each window followed by
 * nn.ReplicationPad1d((0, stride)) and unfold(size=patch_len, step=stride),
 * and RevIN's denormalisation of its output.
 *
 * Statistics of a window x (L), with revin:
 *   m      = sum(x) / L                    (double)
 *   q      = sum((x - m)^2)                (double, two passes)
 *   center = x[L - 1] (subtract_last), else (float)m
 *   stdev  = (float)sqrt(q / L + eps)      (torch.var(unbiased=False): always about the mean)
 * saved in stats (B, 2) as (center, stdev); without revin (0, 1).
 * Patch j, position i, reads the padded window at t = j stride + i, which
 * is x[min(t, L - 1)] (the pad replicates the last value), and is
 *   zhat  = (x - center) / stdev           (double, from the saved floats)
 *   patch = (float)zhat, or (float)(zhat * w + b) with affine = (w, b).
 * Without revin zhat is x itself (center 0, stdev 1: exact), and there is
 * no affine (RevIN's parameters exist only with RevIN).
 * Denormalisation of y (B, n) in place, a = w + eps^2 (double) with
 * affine, else 1:
 *   y = (float)(((y - b) / a) * stdev + center)   (double; no (y - b) / a without affine)
 * Backward:
 *   patch:  daffine[0] += (float)sum(dp * zhat),  daffine[1] += (float)sum(dp)
 *   denorm: dz = (float)(dy * stdev / a);
 *           daffine[0] += (float)sum(-dy (y - center) / a),  daffine[1] += (float)sum(-dy stdev / a)
 * (the stats are detached in neuralforecast: no gradient flows through
 * them, and none to x). torch rounds every step to float (x - mean,
 * / stdev, * w, + b); here each output is rounded once, in double before,
 * so the two agree to an ulp or two, and the stats are torch's own to the
 * rounding of a sum.
 *
 * Order of the sums:
 *   - a window's m and q: layer norm's row sums (kernels/layer_norm.h): 32
 *     lane partials, added in lane order; the GPU runs a warp per window.
 *   - the d affine sums over the flattened index t of (B, P, patch_len)
 *     or (B, n): cut into the pieces of fc_reduce_split_of (bounds that
 *     depend on the count alone); in a piece, lane l (< FC_REVIN_LANES)
 *     adds t = start + l, start + l + FC_REVIN_LANES, ... in increasing
 *     order from 0.0, the lanes are added by the halving tree of
 *     fc_revin_tree, and the pieces' totals in piece order from 0.0. The
 *     GPU runs a block of FC_REVIN_LANES threads per piece and its tree in
 *     shared memory, the CPU the same lane bodies one after the other.
 * Every operation is a correctly rounded IEEE one on both devices (CUDA
 * built with --fmad=false, C with -std=c11), so CPU and GPU give the same
 * bits, for any thread count. */
#ifndef FC_KERNELS_REVIN_PATCH_H
#define FC_KERNELS_REVIN_PATCH_H

#include <math.h>
#include <stddef.h>
#include "core/hd.h"
#include "kernels/layer_norm.h"

/* Lane partials of a piece of the d affine sums: one CUDA block (a power
 * of two, for the halving tree). */
#define FC_REVIN_LANES 256

/* ---- statistics and patches ---- */

/* stats (center, stdev) from the window's double mean m and total of
 * squared deviations q; last = x[L - 1]. */
FC_HD void fc_revin_stats_finish(float *st, double m, double q, float last, size_t L, int subtract_last, float eps) {
    st[0] = subtract_last ? last : (float)m;
    st[1] = (float)sqrt(q / (double)L + (double)eps);
}

/* A window's stats, the 32 lanes one after the other (the CPU's). */
FC_HD void fc_revin_row_stats(float *st, const float *x, size_t L, int revin, int subtract_last, float eps) {
    if (!revin) {
        st[0] = 0.0f, st[1] = 1.0f;
        return;
    }
    double part[FC_LN_LANES];
    for (size_t l = 0; l < FC_LN_LANES; l++) part[l] = fc_layer_norm_lane_sum(x, L, l);
    double m = fc_layer_norm_mean(fc_layer_norm_total(part), L);
    for (size_t l = 0; l < FC_LN_LANES; l++) part[l] = fc_layer_norm_lane_sqdev(x, L, m, l);
    fc_revin_stats_finish(st, m, fc_layer_norm_total(part), x[L - 1], L, subtract_last, eps);
}

/* The index into x of patch j's position i: the pad repeats x[L - 1]. */
FC_HD size_t fc_revin_source(size_t j, size_t i, size_t stride, size_t L) {
    size_t t = j * stride + i;
    return t < L ? t : L - 1;
}

FC_HD double fc_revin_zhat(float x, const float *st) { return ((double)x - (double)st[0]) / (double)st[1]; }

/* One patch value from its source x; affine (w, b) or NULL. */
FC_HD float fc_revin_norm_point(float x, const float *st, const float *affine) {
    double z = fc_revin_zhat(x, st);
    return affine ? (float)(z * (double)affine[0] + (double)affine[1]) : (float)z;
}

/* Element k of a window's patches (P, patch_len) (the GPU's thread). */
FC_HD float fc_revin_patch_point(const float *x, size_t L, size_t patch_len, size_t stride, size_t k,
                                 const float *st, const float *affine) {
    return fc_revin_norm_point(x[fc_revin_source(k / patch_len, k % patch_len, stride, L)], st, affine);
}

/* A window's patches (P, patch_len), in order (the CPU's). */
FC_HD void fc_revin_patch_row(float *out, const float *x, size_t L, size_t patch_len, size_t stride, size_t P,
                              const float *st, const float *affine) {
    for (size_t j = 0; j < P; j++)
        for (size_t i = 0; i < patch_len; i++)
            out[j * patch_len + i] = fc_revin_norm_point(x[fc_revin_source(j, i, stride, L)], st, affine);
}

/* ---- denormalisation ---- */

/* a = w + eps^2 with affine, else 1. */
FC_HD double fc_revin_denorm_div(const float *affine, float eps) {
    return affine ? (double)affine[0] + (double)eps * (double)eps : 1.0;
}

FC_HD float fc_revin_denorm_point(float y, const float *st, const float *affine, double a) {
    double z = affine ? ((double)y - (double)affine[1]) / a : (double)y;
    return (float)(z * (double)st[1] + (double)st[0]);
}

FC_HD float fc_revin_denorm_dz(float dy, const float *st, double a) {
    return (float)((double)dy * (double)st[1] / a);
}

/* ---- d affine: fixed-order sums ---- */

/* The halving tree over FC_REVIN_LANES partials, in place: partial l +=
 * partial l + h for h = FC_REVIN_LANES / 2, ..., 1; returns the total. */
FC_HD double fc_revin_tree(double *p) {
    for (size_t h = FC_REVIN_LANES / 2; h > 0; h /= 2)
        for (size_t l = 0; l < h; l++) p[l] += p[l + h];
    return p[0];
}

/* The shape of the patches of revin_patch_backward. */
typedef struct {
    size_t L, patch_len, stride, P;
} fc_revin_shape;

/* Lane `lane`'s partials of the input side's sums over the piece [start,
 * start + count) of the flattened (B, P, patch_len) index:
 * s0 = sum dp zhat, s1 = sum dp. */
FC_HD void fc_revin_patch_lane_sums(const float *dp, const float *x, size_t ldx, const float *stats,
                                    fc_revin_shape s, size_t start, size_t count, size_t lane, double *s0,
                                    double *s1) {
    size_t per = s.P * s.patch_len;
    double a = 0.0, b = 0.0;
    for (size_t t = start + lane; t < start + count; t += FC_REVIN_LANES) {
        size_t w = t / per, k = t % per;
        float xv = x[w * ldx + fc_revin_source(k / s.patch_len, k % s.patch_len, s.stride, s.L)];
        a += (double)dp[t] * fc_revin_zhat(xv, stats + 2 * w);
        b += (double)dp[t];
    }
    *s0 = a;
    *s1 = b;
}

/* Lane `lane` of the output side over the piece [start, start + count) of
 * the flattened (B, n) index, with affine (a from fc_revin_denorm_div):
 * s0 = sum -dy (y - center) / a, s1 = sum -dy stdev / a, and dz written.
 * dz may be dy: each point is read before the lane writes it. */
FC_HD void fc_revin_denorm_lane(float *dz, const float *dy, const float *y, const float *stats, size_t n, double a,
                                size_t start, size_t count, size_t lane, double *s0, double *s1) {
    double p = 0.0, q = 0.0;
    for (size_t t = start + lane; t < start + count; t += FC_REVIN_LANES) {
        const float *st = stats + 2 * (t / n);
        double g = (double)dy[t];
        p += -g * ((double)y[t] - (double)st[0]) / a;
        q += -g * (double)st[1] / a;
        dz[t] = fc_revin_denorm_dz(dy[t], st, a);
    }
    *s0 = p;
    *s1 = q;
}

/* The pieces' totals in piece order, rounded to float once, accumulated. */
FC_HD void fc_revin_param_finish(float *daffine, const double *piece0, const double *piece1, size_t pieces) {
    double s0 = 0.0, s1 = 0.0;
    for (size_t b = 0; b < pieces; b++) s0 += piece0[b];
    for (size_t b = 0; b < pieces; b++) s1 += piece1[b];
    daffine[0] += (float)s0;
    daffine[1] += (float)s1;
}

#endif
