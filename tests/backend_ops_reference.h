/* Plain-C references for test_backend_ops.c: every computing entry of the
 * backend table (backend.h) written again, the slow and obvious way, on host
 * arrays. Products and reductions are summed in double; the dense layer's
 * low-precision inputs are rounded with kernels/lowp.h, which is the
 * DEFINED rounding (test_lowp.c checks it against its own truth), and nothing
 * else of the backend is called. Where torch defines an op's float
 * arithmetic (interpolation weights, max-pooling ties and NaN, the masked
 * point loss), the reference follows torch's definition, written from
 * torch's documentation and code, not from kernels/. Each function that
 * compares with a tolerance also returns the error scale of each element:
 * the sum of |terms| for a sum, so that cancellation does not inflate the
 * relative error. */
#ifndef FC_TESTS_BACKEND_OPS_REFERENCE_H
#define FC_TESTS_BACKEND_OPS_REFERENCE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "backend/backend.h"
#include "core/rng.h"
#include "kernels/lowp.h"

/* ---- 16-bit formats ---- */

/* x rounded to nearest, ties to even, in a binary format with `digits`
 * significant bits, smallest normal 2^emin and largest finite `max`, by
 * frexp / nearbyint / ldexp in double (independent of lowp.h's bit tricks):
 * a normal in [2^(e-1), 2^e) has quantum 2^(e - digits), subnormals the
 * fixed quantum 2^(emin - digits + 1); past max is infinity; signs, zeros,
 * infinities and NaN pass through. */
static inline float ref_round_format(float x, int digits, int emin, double max) {
    if (isnan(x) || isinf(x) || x == 0.0f) return x;
    double a = fabs((double)x);
    int e;
    frexp(a, &e);
    int q = e - digits > emin - digits + 1 ? e - digits : emin - digits + 1;
    double r = ldexp(nearbyint(ldexp(a, -q)), q);
    if (r > max) r = INFINITY;
    return (float)copysign(r, (double)x);
}

/* bf16: fp32's exponent range, 8 significant bits; fp16: IEEE binary16. */
static inline float ref_round(float x, fc_precision p) {
    if (p == FC_PREC_BF16) return ref_round_format(x, 8, -126, 0x1.fep127);
    if (p == FC_PREC_FP16) return ref_round_format(x, 11, -14, 65504.0);
    return x;
}

/* The value of a 16-bit pattern: bf16 is fp32's top half; fp16 decoded by
 * its fields. */
static inline float ref_bf16_value(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline float ref_f16_value(uint16_t h) {
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double s = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 31) return m ? NAN : (float)(s * INFINITY);
    return (float)(s * (e ? ldexp(1024.0 + m, e - 25) : ldexp((double)m, -24)));
}

/* The values held by a low-precision buffer of n elements, `bytes` per
 * element (the backend's low_bytes[p]): 2-byte patterns, or fp32 values. */
static inline void ref_low_values(float *out, const void *buf, size_t n, size_t bytes, fc_precision p) {
    for (size_t i = 0; i < n; i++) {
        if (bytes == 4) {
            memcpy(&out[i], (const char *)buf + 4 * i, 4);
            continue;
        }
        uint16_t h;
        memcpy(&h, (const char *)buf + 2 * i, 2);
        out[i] = p == FC_PREC_BF16 ? ref_bf16_value(h) : ref_f16_value(h);
    }
}

/* The defined rounding of the dense layer's inputs (kernels/lowp.h). */
static inline float ref_rnd(float x, fc_precision p) {
    if (p == FC_PREC_BF16) return fc_round_bf16(x);
    if (p == FC_PREC_FP16) return fc_round_f16(x);
    return x;
}

/* ---- dense layer ---- */

/* y (B,O) = act(rnd(x) . rnd(w)^T + b) in double; scale: |b| + sum |terms|.
 * rnd is the precision's rounding (prec), or none (FC_PREC_FP32). */
static inline void ref_linear_forward(double *y, double *scale, const float *x, const float *w, const float *b,
                                      size_t B, size_t I, size_t O, int relu, fc_precision prec) {
    for (size_t r = 0; r < B; r++)
        for (size_t o = 0; o < O; o++) {
            double s = b ? b[o] : 0.0, a = fabs(s);
            for (size_t i = 0; i < I; i++) {
                double t = (double)ref_rnd(x[r * I + i], prec) * ref_rnd(w[o * I + i], prec);
                s += t, a += fabs(t);
            }
            y[r * O + o] = relu && !(s > 0) ? 0.0 : s;
            scale[r * O + o] = a;
        }
}

/* torch's threshold_backward(dy, y, 0): the gradient is zeroed where y <= 0
 * and passed where y > 0 or y is NaN. */
static inline float ref_relu_mask(float dy, float y) { return isnan(y) || y > 0.0f ? dy : 0.0f; }

/* dx (B,I) = rnd(g) . rnd(w) with g (B,O) the masked dy. */
static inline void ref_linear_dx(double *dx, double *scale, const float *g, const float *w, size_t B, size_t I,
                                 size_t O, fc_precision prec) {
    for (size_t r = 0; r < B; r++)
        for (size_t i = 0; i < I; i++) {
            double s = 0, a = 0;
            for (size_t o = 0; o < O; o++) {
                double t = (double)ref_rnd(g[r * O + o], prec) * ref_rnd(w[o * I + i], prec);
                s += t, a += fabs(t);
            }
            dx[r * I + i] = s, scale[r * I + i] = a;
        }
}

/* dw (O,I) = dw0 + rnd(g)^T . rnd(x). */
static inline void ref_linear_dw(double *dw, double *scale, const float *dw0, const float *g, const float *x,
                                 size_t B, size_t I, size_t O, fc_precision prec) {
    for (size_t o = 0; o < O; o++)
        for (size_t i = 0; i < I; i++) {
            double s = dw0[o * I + i], a = fabs(s);
            for (size_t r = 0; r < B; r++) {
                double t = (double)ref_rnd(g[r * O + o], prec) * ref_rnd(x[r * I + i], prec);
                s += t, a += fabs(t);
            }
            dw[o * I + i] = s, scale[o * I + i] = a;
        }
}

/* db (O) = db0 + column sums of g (fp32 in every precision: no rounding). */
static inline void ref_linear_db(double *db, double *scale, const float *db0, const float *g, size_t B, size_t O) {
    for (size_t o = 0; o < O; o++) {
        double s = db0[o], a = fabs(s);
        for (size_t r = 0; r < B; r++) s += g[r * O + o], a += fabs(g[r * O + o]);
        db[o] = s, scale[o] = a;
    }
}

/* ---- GEMM ---- */

/* Row-major C (M, ldc) = alpha op(A) op(B) + beta C0 over the first N
 * columns, C0 elsewhere (scale 0: must stay bit for bit); beta == 0 does
 * not read C0 (BLAS). scale: |alpha| sum |terms| + |beta C0|. */
static inline void ref_gemm(double *c, double *scale, int ta, int tb, size_t M, size_t N, size_t K, float alpha,
                            const float *A, size_t lda, const float *Bm, size_t ldb, float beta, const float *C0,
                            size_t ldc) {
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < ldc; j++) {
            size_t at = i * ldc + j;
            if (j >= N) {
                c[at] = C0[at], scale[at] = 0;
                continue;
            }
            double s = 0, a = 0;
            for (size_t k = 0; k < K; k++) {
                double t = (double)(ta ? A[k * lda + i] : A[i * lda + k]) * (tb ? Bm[j * ldb + k] : Bm[k * ldb + j]);
                s += t, a += fabs(t);
            }
            double keep = beta == 0.0f ? 0.0 : (double)beta * C0[at];
            c[at] = alpha * s + keep;
            scale[at] = fabs((double)alpha) * a + fabs(keep);
        }
}

/* ---- pooling ---- */

/* torch.nn.MaxPool1d(k, stride=k, ceil_mode=True) on one row x (L): a
 * window with a NaN gives NaN at its LAST NaN (torch's CPU kernel replaces
 * the running max when `v > max || isnan(v)`), else its maximum at the
 * FIRST index holding it (-inf everywhere: the window's first index). */
static inline void ref_maxpool_row(const float *x, size_t L, size_t k, float *y, int32_t *idx) {
    for (size_t j = 0, s = 0; s < L; j++, s += k) {
        size_t e = s + k < L ? s + k : L, best = s, nan_at = L;
        for (size_t i = s; i < e; i++)
            if (isnan(x[i])) nan_at = i;
        for (size_t i = s + 1; i < e; i++)
            if (x[i] > x[best]) best = i;
        if (nan_at < L) best = nan_at;
        y[j] = x[best], idx[j] = (int32_t)best;
    }
}

/* dx (L) = 0 except dy (n_out) at each window's argmax. */
static inline void ref_maxpool_backward_row(float *dx, size_t L, const float *dy, const int32_t *idx, size_t n_out) {
    for (size_t i = 0; i < L; i++) dx[i] = 0.0f;
    for (size_t j = 0; j < n_out; j++) dx[idx[j]] += dy[j];
}

/* ---- interpolation ---- */

/* torch's F.interpolate(mode="linear", align_corners=False) index
 * arithmetic (aten/src/ATen/native/UpSample.h), in float as torch's
 * opmath: scale = n_in / n_out, src = max(scale (j + 0.5) - 0.5, 0), the
 * left knot floor(src) (at most n_in - 1), the right one the next knot if
 * there is one, weight of the right knot src - left clamped to [0, 1];
 * n_in == n_out copies. */
static inline void ref_interp_tap(size_t n_in, size_t n_out, size_t j, size_t *lo, size_t *hi, float *wlo,
                                  float *whi) {
    if (n_in == n_out) {
        *lo = *hi = j, *wlo = 1.0f, *whi = 0.0f;
        return;
    }
    float src = (float)n_in / (float)n_out * ((float)j + 0.5f) - 0.5f;
    src = src < 0.0f ? 0.0f : src;
    size_t left = (size_t)floorf(src);
    left = left < n_in - 1 ? left : n_in - 1;
    float lambda = src - (float)left;
    lambda = lambda < 0.0f ? 0.0f : lambda > 1.0f ? 1.0f : lambda;
    *lo = left, *hi = left + 1 < n_in ? left + 1 : left;
    *whi = lambda, *wlo = 1.0f - lambda;
}

/* One row forward: y[j] = x[lo] wlo + x[hi] whi in float. */
static inline void ref_interp_row(float *y, const float *x, size_t n_in, size_t n_out) {
    for (size_t j = 0; j < n_out; j++) {
        size_t lo, hi;
        float wlo, whi;
        ref_interp_tap(n_in, n_out, j, &lo, &hi, &wlo, &whi);
        y[j] = x[lo] * wlo + x[hi] * whi;
    }
}

/* One row backward: dx (n_in) = 0, then each dy[j] scattered to its two
 * knots in output order (torch's order), in float. */
static inline void ref_interp_row_backward(float *dx, const float *dy, size_t n_in, size_t n_out) {
    for (size_t i = 0; i < n_in; i++) dx[i] = 0.0f;
    for (size_t j = 0; j < n_out; j++) {
        size_t lo, hi;
        float wlo, whi;
        ref_interp_tap(n_in, n_out, j, &lo, &hi, &wlo, &whi);
        dx[lo] += wlo * dy[j];
        dx[hi] += whi * dy[j];
    }
}

/* torch's nearest_idx (aten/src/ATen/native/UpSample.h), its shortcuts
 * included: n_out == n_in copies, n_out == 2 n_in halves the index, else
 * floor(j * (float)(n_in / n_out)) capped at n_in - 1. 3 knots to 7
 * points read knots 0 0 0 1 1 2 2 (torch.nn.functional.interpolate). */
static inline size_t ref_nearest_src(size_t n_in, size_t n_out, size_t j) {
    if (n_out == n_in) return j;
    if (n_out == 2 * n_in) return j >> 1;
    size_t i = (size_t)floorf((float)j * ((float)n_in / (float)n_out));
    return i < n_in - 1 ? i : n_in - 1;
}

static inline void ref_nearest_row(float *y, const float *x, size_t n_in, size_t n_out) {
    for (size_t j = 0; j < n_out; j++) y[j] = x[ref_nearest_src(n_in, n_out, j)];
}

/* dx = 0, then dy[j] added to its knot in output order. */
static inline void ref_nearest_row_backward(float *dx, const float *dy, size_t n_in, size_t n_out) {
    for (size_t i = 0; i < n_in; i++) dx[i] = 0.0f;
    for (size_t j = 0; j < n_out; j++) dx[ref_nearest_src(n_in, n_out, j)] += dy[j];
}

/* torch's bicubic (upsample_bicubic2d, align_corners=False, A = -0.75)
 * of a (1, n_in) image to (n_out, n_out), row 0: along the row the
 * source is scale (j + 0.5) - 0.5, its floor (at most n_in - 1) and
 * fraction t in [0, 1]; the four knots from floor - 1, clamped to the
 * row, weighted by Keys' kernel at distances t + 1, t, 1 - t, 2 - t; the
 * one input row read four times with the weights of output row 0 of an
 * n_out-tall image. In float, terms added in order, as torch's CPU. */
static inline float ref_keys(float d) {   /* Keys' cubic convolution, A = -0.75, 0 <= d < 2 */
    const float A = -0.75f;
    return d <= 1.0f ? ((A + 2.0f) * d - (A + 3.0f)) * d * d + 1.0f : ((A * d - 5.0f * A) * d + 8.0f * A) * d - 4.0f * A;
}

static inline void ref_cubic_tap(size_t n_in, size_t n_out, size_t j, size_t knot[4], float w[4]) {
    float src = (float)n_in / (float)n_out * ((float)j + 0.5f) - 0.5f;
    long long f = (long long)floorf(src);
    f = f < (long long)n_in - 1 ? f : (long long)n_in - 1;
    float t = src - (float)f;
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    float d[4] = {t + 1.0f, t, 1.0f - t, 1.0f - t + 1.0f};
    for (int k = 0; k < 4; k++) {
        long long i = f - 1 + k;
        knot[k] = i < 0 ? 0 : i >= (long long)n_in ? n_in - 1 : (size_t)i;
        w[k] = ref_keys(d[k]);
    }
}

static inline float ref_cubic_rows(float v, size_t n_out) {   /* the pass down the single input row */
    size_t knot[4];
    float w[4];
    ref_cubic_tap(1, n_out, 0, knot, w);
    return ((v * w[0] + v * w[1]) + v * w[2]) + v * w[3];
}

static inline void ref_cubic_row(float *y, const float *x, size_t n_in, size_t n_out) {
    for (size_t j = 0; j < n_out; j++) {
        size_t knot[4];
        float w[4];
        ref_cubic_tap(n_in, n_out, j, knot, w);
        y[j] = ref_cubic_rows(((x[knot[0]] * w[0] + x[knot[1]] * w[1]) + x[knot[2]] * w[2]) + x[knot[3]] * w[3], n_out);
    }
}

/* dx = 0, then each dy[j] through the row pass, scattered to its four
 * knots in output order. */
static inline void ref_cubic_row_backward(float *dx, const float *dy, size_t n_in, size_t n_out) {
    for (size_t i = 0; i < n_in; i++) dx[i] = 0.0f;
    for (size_t j = 0; j < n_out; j++) {
        size_t knot[4];
        float w[4];
        ref_cubic_tap(n_in, n_out, j, knot, w);
        float d = ref_cubic_rows(dy[j], n_out);
        for (int k = 0; k < 4; k++) dx[knot[k]] += w[k] * d;
    }
}

/* ---- losses and reductions ---- */

/* The reductions' references sum in long double (x86's 64-bit significand):
 * a plain double sum of 10^6 terms errs by ~1e-12 itself, as much as the
 * backend is allowed. */

/* neuralforecast's masked mean: sum(mask * l) / sum(mask), 0 when no point
 * is observed (_divide_no_nan). The weighted point loss is a float product,
 * as torch's `losses * weights` on float tensors; sums are in double.
 * grad (may be NULL) = grad_scale * mask * l'(yhat) / sum(mask) in double,
 * with l' = sign(d) (torch's abs backward, sign(0) = 0) or 2 d. */
static inline double ref_masked_loss(double *grad, float grad_scale, const float *yhat, const float *y,
                                     const float *mask, size_t n, int mse) {
    long double loss = 0, msum = 0;
    for (size_t i = 0; i < n; i++) {
        float d = yhat[i] - y[i];
        float l = mse ? d * d : fabsf(d);
        loss += (double)(mask[i] * l);
        msum += mask[i];
    }
    for (size_t i = 0; grad && i < n; i++) {
        float d = yhat[i] - y[i];
        double dl = mse ? 2.0 * d : (double)((d > 0) - (d < 0));
        grad[i] = msum == 0 ? 0.0 : (double)grad_scale * mask[i] * dl / (double)msum;
    }
    return msum == 0 ? 0.0 : (double)(loss / msum);
}

static inline double ref_sum_squares(const float *x, size_t n) {
    long double s = 0;
    for (size_t i = 0; i < n; i++) s += (long double)x[i] * x[i];
    return (double)s;
}

/* ---- LSTM cell ---- */

/* torch.nn.LSTM's cell (its documentation's equations, gates in the order
 * i, f, g, o) on one row, in double from the float inputs:
 *   i = sigmoid(pre_i), f = sigmoid(pre_f), g = tanh(pre_g), o = sigmoid(pre_o),
 *   c = f c_prev + i g, h = o tanh(c); c_prev NULL is zeros.
 * act (4H) the activations, c and h (H). Error scales, for a float body's
 * handful of roundings and its expf / tanhf (each a few ulp of its value):
 * |act|; |f c_prev| + |i g| for c (the sum's terms); for h
 * |o| (|tanh c| + scale of c), as tanh passes c's absolute error (slope <= 1).
 * Every scale is at least 2^-100, so where the exact result is 0 (a
 * saturated gate, a zero c_prev) a zero of either sign passes. */
static inline double ref_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static inline double ref_lstm_scale(double s) { return s > 0x1p-100 ? s : 0x1p-100; }

static inline void ref_lstm_cell_row(double *act, double *act_scale, double *c, double *c_scale, double *h,
                                     double *h_scale, const float *pre, const float *c_prev, size_t H) {
    for (size_t j = 0; j < H; j++) {
        double i = ref_sigmoid(pre[j]), f = ref_sigmoid(pre[H + j]), g = tanh((double)pre[2 * H + j]);
        double o = ref_sigmoid(pre[3 * H + j]), cp = c_prev ? c_prev[j] : 0.0;
        act[j] = i, act[H + j] = f, act[2 * H + j] = g, act[3 * H + j] = o;
        for (size_t k = 0; k < 4; k++) act_scale[k * H + j] = ref_lstm_scale(fabs(act[k * H + j]));
        c[j] = f * cp + i * g;
        double cs = fabs(f * cp) + fabs(i * g), tc = tanh(c[j]);
        c_scale[j] = ref_lstm_scale(cs);
        h[j] = o * tc;
        h_scale[j] = ref_lstm_scale(fabs(o) * (fabs(tc) + cs));
    }
}

/* The cell's backward on one row, by the chain rule through the equations
 * above, in double from float inputs: gates (4H) the activations i, f, g, o;
 * c_prev (NULL: zeros), c, dh (d loss / d h) and dc (d loss / d c from the
 * next step), all (H). dgates (4H): d loss / d pre-activations; dc_prev (H).
 *   dct = dc + dh o (1 - tanh(c)^2)
 *   d pre_i = dct g i (1 - i), d pre_f = dct c_prev f (1 - f),
 *   d pre_g = dct i (1 - g^2), d pre_o = dh tanh(c) o (1 - o), dc_prev = dct f.
 * Scales: 1 - t^2 computed in float from t = tanhf(c) (or g) loses t^2's
 * error in absolute terms, so its scale is 1 + t^2; dct's is
 * |dc| + |dh o| (1 + tanh(c)^2), times the factors' sizes for the rest
 * (at least 2^-100, as above: d pre_f with c_prev zero is a zero of either
 * sign). */
static inline void ref_lstm_cell_backward_row(double *dgates, double *dg_scale, double *dc_prev, double *dcp_scale,
                                              const float *gates, const float *c_prev, const float *c,
                                              const float *dh, const float *dc, size_t H) {
    for (size_t j = 0; j < H; j++) {
        double i = gates[j], f = gates[H + j], g = gates[2 * H + j], o = gates[3 * H + j];
        double cp = c_prev ? c_prev[j] : 0.0, t = tanh((double)c[j]);
        double dct = dc[j] + (double)dh[j] * o * (1.0 - t * t);
        double sct = fabs(dc[j]) + fabs((double)dh[j] * o) * (1.0 + t * t);
        dgates[j] = dct * g * i * (1.0 - i);
        dg_scale[j] = ref_lstm_scale(sct * fabs(g * i * (1.0 - i)));
        dgates[H + j] = dct * cp * f * (1.0 - f);
        dg_scale[H + j] = ref_lstm_scale(sct * fabs(cp * f * (1.0 - f)));
        dgates[2 * H + j] = dct * i * (1.0 - g * g);
        dg_scale[2 * H + j] = ref_lstm_scale(sct * fabs(i) * (1.0 + g * g));
        dgates[3 * H + j] = (double)dh[j] * t * o * (1.0 - o);
        dg_scale[3 * H + j] = ref_lstm_scale(fabs((double)dh[j] * t * o * (1.0 - o)));
        dc_prev[j] = dct * f;
        dcp_scale[j] = ref_lstm_scale(sct * fabs(f));
    }
}

/* ---- layer norm ---- */

/* torch.nn.LayerNorm(D) (its documentation's formula, biased variance) on
 * one row, in long double from the float inputs: y (D) and the row's mean
 * and rstd = 1 / sqrt(var + eps). Error scales of a backend that rounds
 * mean and rstd to float once each and y once (kernels/layer_norm.h): the
 * mean of |x| for the mean; rstd for rstd; for y,
 * |gamma| rstd (|mean| + |x - mean|) + |beta|: x - mean carries mean's
 * rounding (2^-24 |mean|) into xhat, and the product and the sum round
 * once. At least 2^-100, so that an exact zero passes with either sign. */
static inline double ref_ln_scale(double s) { return s > 0x1p-100 ? s : 0x1p-100; }

static inline void ref_layer_norm_row(double *y, double *y_scale, double *mean, double *mean_scale, double *rstd,
                                      const float *x, const float *gamma, const float *beta, size_t D, float eps) {
    long double s = 0, a = 0, q = 0;
    for (size_t j = 0; j < D; j++) s += x[j], a += fabsl((long double)x[j]);
    long double m = s / D;
    for (size_t j = 0; j < D; j++) q += ((long double)x[j] - m) * ((long double)x[j] - m);
    long double r = 1.0L / sqrtl(q / D + (long double)eps);
    *mean = (double)m;
    *mean_scale = ref_ln_scale((double)(a / D));
    *rstd = (double)r;
    for (size_t j = 0; j < D; j++) {
        long double d = (long double)x[j] - m;
        y[j] = (double)(d * r * gamma[j] + beta[j]);
        y_scale[j] = ref_ln_scale((double)(fabsl(gamma[j] * r) * (fabsl(m) + fabsl(d)) + fabsl((long double)beta[j])));
    }
}

/* The backward of one row by the chain rule through the formula above,
 * with the saved mean and rstd taken as exact (they are the backward's
 * inputs), in long double: g = dy gamma, xhat = (x - mean) rstd,
 *   dx = rstd (g - mean(g) - xhat mean(g xhat)).
 * Scale: rstd (|g| + |mean(g)| + |xhat mean(g xhat)|), the sum's terms,
 * so that cancellation does not inflate the relative error. */
static inline void ref_layer_norm_backward_row(double *dx, double *dx_scale, const float *dy, const float *x,
                                               const float *gamma, float mean, float rstd, size_t D) {
    long double sg = 0, sgx = 0;
    for (size_t j = 0; j < D; j++) {
        long double g = (long double)dy[j] * gamma[j], xh = ((long double)x[j] - mean) * rstd;
        sg += g, sgx += g * xh;
    }
    long double mg = sg / D, mgx = sgx / D;
    for (size_t j = 0; j < D; j++) {
        long double g = (long double)dy[j] * gamma[j], xh = ((long double)x[j] - mean) * rstd;
        dx[j] = (double)(rstd * (g - mg - xh * mgx));
        dx_scale[j] = ref_ln_scale((double)(rstd * (fabsl(g) + fabsl(mg) + fabsl(xh * mgx))));
    }
}

/* dgamma (D) = dgamma0 + sum over rows of dy xhat, dbeta (D) = dbeta0 +
 * sum of dy (dy row stride lddy, x row stride ldx; mean, rstd (B)).
 * Scales: |dgamma0| + sum |dy xhat| and |dbeta0| + sum |dy|. */
static inline void ref_layer_norm_params(double *dgamma, double *dg_scale, double *dbeta, double *db_scale,
                                         const float *dgamma0, const float *dbeta0, const float *dy, size_t lddy,
                                         const float *x, size_t ldx, const float *mean, const float *rstd, size_t B,
                                         size_t D) {
    for (size_t c = 0; c < D; c++) {
        long double sg = 0, ag = 0, sb = 0, ab = 0;
        for (size_t r = 0; r < B; r++) {
            long double d = dy[r * lddy + c], t = d * (((long double)x[r * ldx + c] - mean[r]) * rstd[r]);
            sg += t, ag += fabsl(t), sb += d, ab += fabsl(d);
        }
        dgamma[c] = (double)(dgamma0[c] + sg);
        dg_scale[c] = ref_ln_scale((double)(fabsl((long double)dgamma0[c]) + ag));
        dbeta[c] = (double)(dbeta0[c] + sb);
        db_scale[c] = ref_ln_scale((double)(fabsl((long double)dbeta0[c]) + ab));
    }
}

/* ---- dropout ---- */

/* The drop decision of point `index` as backend.h defines it: the first
 * word of the Philox block of (seed, FC_RNG_STREAM_DROPOUT, index), its top
 * 24 bits as a uniform in [0, 1), kept when >= p (the generator itself is
 * checked against Random123's known answers in test_dropout.c). */
static inline int ref_dropout_keep(uint64_t seed, uint64_t index, float p) {
    fc_philox_out r = fc_philox4x32((uint32_t)index, (uint32_t)(index >> 32), FC_RNG_STREAM_DROPOUT, 0u,
                                    (uint32_t)seed, (uint32_t)(seed >> 32));
    return (float)(r.v[0] >> 8) / 16777216.0f >= p;
}

/* torch's inverted dropout of one float: x * mask / (1 - p) in float. */
static inline float ref_dropout_value(float x, int keep, float p) { return x * (keep ? 1.0f : 0.0f) / (1.0f - p); }

/* ---- GELU ---- */

/* torch.nn.GELU() (approximate='none': its documentation's x Phi(x)) in
 * long double, Phi(x) = erfc(-x / sqrt 2) / 2 (the same function as
 * (1 + erf(x / sqrt 2)) / 2, without its cancellation for negative x), and
 * its derivative Phi(x) + x phi(x). Scales: |y|, and |dy| (Phi + |x phi|)
 * for the backward (the sum cancels near x = -0.75); at least the smallest
 * normal float 2^-126 (below it floats are multiples of 2^-149, so one
 * rounding errs 2^-150, 2^-24 of 2^-126); 0 (bit for bit) where the result
 * is not finite: gelu(+inf) = +inf, gelu(-inf) = -inf * 0 = NaN as torch's,
 * the backward's inf * phi(inf) = NaN. */
static inline long double ref_Phi(long double x) { return 0.5L * erfcl(-x * 0.70710678118654752440084436L); }
static inline long double ref_phi(long double x) { return expl(-0.5L * x * x) * 0.39894228040143267793994606L; }

static inline double ref_gelu_scale(long double want, long double size) {
    if (!isfinite(want)) return 0;
    return size > 0x1p-126L ? (double)size : 0x1p-126;
}

static inline void ref_gelu(double *y, double *scale, float x) {
    long double w = (long double)x * ref_Phi(x);
    *y = (double)w;
    *scale = ref_gelu_scale(w, fabsl(w));
}

static inline void ref_gelu_backward(double *dx, double *scale, float dy, float x) {
    long double P = ref_Phi(x), xphi = (long double)x * ref_phi(x), w = dy * (P + xphi);
    *dx = (double)w;
    *scale = ref_gelu_scale(w, fabsl((long double)dy) * (P + fabsl(xphi)));
}

/* ---- attention ---- */

/* neuralforecast's _ScaledDotProductAttention (models/patchtst.py, with
 * res_attention), per sequence b and head h, in long double from the float
 * inputs: scores = q_h k_h^T * scale (+ prev), probs = softmax(scores, -1),
 * out_h = dropout(probs) v_h, the dropout torch's inverted one with the
 * mask backend.h defines at index offset + ((b H + h) P + i) P + j.
 * q, k, v (B P, ldq) with head h in columns [h E, (h + 1) E); out (B P, ldo). */
typedef struct {
    size_t B, P, H, E, ldq, ldo;
    float scale, p;
    uint64_t seed, offset;
} ref_attn;

static inline size_t ref_attn_tok(const ref_attn *a, size_t bh, size_t i, size_t ld) {
    return ((bh / a->H) * a->P + i) * ld + (bh % a->H) * a->E;
}

static inline int ref_attn_keep(const ref_attn *a, size_t t) {
    return a->p == 0.0f || ref_dropout_keep(a->seed, a->offset + t, a->p);
}

static inline double ref_attn_scale(long double s) { return s > 0x1p-100L ? (double)s : 0x1p-100; }

/* Query row i of head bh: scores and probs (P) at t0 = (bh P + i) P.
 * Scales: a score's terms, |scale| sum |q k| + |prev|; a probability's
 * p (1 + 2 max_j |s|), since a float score errs by up to 2^-24 |s|, which
 * moves p by p (ds_j - sum p ds), 2 max|s| 2^-24 p, besides p's own
 * rounding. Returns max_j |s|. */
static inline long double ref_attention_row(double *scores, double *s_scale, double *probs, double *p_scale,
                                            const ref_attn *a, const float *q, const float *k, const float *prev,
                                            size_t bh, size_t i) {
    size_t P = a->P, t0 = (bh * P + i) * P;
    const float *qi = q + ref_attn_tok(a, bh, i, a->ldq);
    long double s[P ? P : 1], m = -INFINITY, smax = 0, sum = 0;
    for (size_t j = 0; j < P; j++) {
        const float *kj = k + ref_attn_tok(a, bh, j, a->ldq);
        long double d = 0, abs_d = 0;
        for (size_t e = 0; e < a->E; e++) d += (long double)qi[e] * kj[e], abs_d += fabsl((long double)qi[e] * kj[e]);
        long double pv = prev ? prev[t0 + j] : 0;
        s[j] = d * a->scale + pv;
        scores[t0 + j] = (double)s[j];
        s_scale[t0 + j] = ref_attn_scale(abs_d * fabsl((long double)a->scale) + fabsl(pv));
        m = s[j] > m ? s[j] : m;
        smax = fabsl(s[j]) > smax ? fabsl(s[j]) : smax;
    }
    for (size_t j = 0; j < P; j++) sum += expl(s[j] - m);
    for (size_t j = 0; j < P; j++) {
        long double pr = expl(s[j] - m) / sum;
        probs[t0 + j] = (double)pr;
        p_scale[t0 + j] = ref_attn_scale(pr * (1 + 2 * smax));
    }
    return smax;
}

/* out row i of head bh = sum_j w_j v_j, w_j = probs_j keep / (1 - p) (the
 * float 1 - p torch divides by). Scale: sum_j |w_j v_j| (1 + 2 max|s|):
 * each weight errs as its probability plus the dropout's division (2^-24
 * w), and the sum rounds once. */
static inline void ref_attention_out_row(double *out, double *o_scale, const ref_attn *a, const double *probs,
                                         const float *v, size_t bh, size_t i, long double smax) {
    size_t P = a->P, t0 = (bh * P + i) * P, o = ref_attn_tok(a, bh, i, a->ldo);
    for (size_t e = 0; e < a->E; e++) {
        long double sum = 0, abs_sum = 0;
        for (size_t j = 0; j < P; j++) {
            long double w = ref_attn_keep(a, t0 + j) ? (long double)probs[t0 + j] / (1.0f - a->p) : 0;
            long double t = w * v[ref_attn_tok(a, bh, j, a->ldq) + e];
            sum += t, abs_sum += fabsl(t);
        }
        out[o + e] = (double)sum;
        o_scale[o + e] = ref_attn_scale(abs_sum * (1 + 2 * smax));
    }
}

/* The forward: scores, probs (B, H, P, P) and out (B P, ldo; columns past
 * H E untouched), each with its error scale. prev NULL: none. */
static inline void ref_attention_forward(double *scores, double *s_scale, double *probs, double *p_scale, double *out,
                                         double *o_scale, const ref_attn *a, const float *q, const float *k,
                                         const float *v, const float *prev) {
    for (size_t bh = 0; bh < a->B * a->H; bh++)
        for (size_t i = 0; i < a->P; i++) {
            long double smax = ref_attention_row(scores, s_scale, probs, p_scale, a, q, k, prev, bh, i);
            ref_attention_out_row(out, o_scale, a, probs, v, bh, i, smax);
        }
}

/* The backward by the chain rule through the forward above, from the float
 * probs as saved (exact inputs), per head:
 *   dp_ij = (dout_i . v_j) keep / (1 - p),  r_i = sum_j dp_ij probs_ij,
 *   ds_ij = probs_ij (dp_ij - r_i) + ds_in_ij      (d loss / d scores),
 *   dq_i = scale sum_j ds_ij k_j,  dk_j = scale sum_i ds_ij q_i,
 *   dv_j = sum_i w_ij dout_i, w_ij the float dropout of probs_ij.
 * Scales: for ds, probs_ij (A_ij + sum_j' probs_ij' A_ij') + |ds_in_ij|,
 * A_ij = sum_e |dout_ie v_je| keep / (1 - p) (the terms of the softmax
 * backward, which cancel); for dq and dk, |scale| sum |ds scale_ij k| (a
 * float ds errs by 2^-24 of its scale, and the sum rounds once); for dv
 * sum |w dout|. ds (B, H, P, P) is written with ds_scale; dq, dk, dv with
 * their scales at (B P, lddq), columns past H E untouched. */
static inline void ref_attention_ds_row(double *ds, double *ds_scale, const ref_attn *a, const float *probs,
                                        const float *v, const float *dout, const float *ds_in, size_t bh, size_t i) {
    size_t P = a->P, t0 = (bh * P + i) * P;
    const float *douti = dout + ref_attn_tok(a, bh, i, a->ldo);
    long double dp[P ? P : 1], A[P ? P : 1], r = 0, rA = 0;
    for (size_t j = 0; j < P; j++) {
        const float *vj = v + ref_attn_tok(a, bh, j, a->ldq);
        long double d = 0, abs_d = 0, f = ref_attn_keep(a, t0 + j) ? 1.0L / (1.0f - a->p) : 0;
        for (size_t e = 0; e < a->E; e++) d += (long double)douti[e] * vj[e], abs_d += fabsl((long double)douti[e] * vj[e]);
        dp[j] = d * f, A[j] = abs_d * f;
        r += dp[j] * probs[t0 + j], rA += A[j] * probs[t0 + j];
    }
    for (size_t j = 0; j < P; j++) {
        ds[t0 + j] = (double)(probs[t0 + j] * (dp[j] - r) + ds_in[t0 + j]);
        ds_scale[t0 + j] = ref_attn_scale(probs[t0 + j] * (A[j] + rA) + fabsl((long double)ds_in[t0 + j]));
    }
}

/* y (at row stride lddq) = alpha sum_t w_t x_t for one row, with w_t at
 * w[t wstep] and x_t the head's token row t (stride ldx); wscale[t wstep]
 * the weights' error scales (NULL: exact weights). */
static inline void ref_attention_mix(double *y, double *y_scale, const ref_attn *a, const double *w,
                                     const double *wscale, size_t wstep, const float *x, size_t ldx, size_t bh,
                                     long double alpha) {
    for (size_t e = 0; e < a->E; e++) {
        long double sum = 0, abs_sum = 0;
        for (size_t t = 0; t < a->P; t++) {
            long double xv = x[ref_attn_tok(a, bh, t, ldx) + e];
            sum += w[t * wstep] * xv;
            abs_sum += (wscale ? wscale[t * wstep] : fabsl((long double)w[t * wstep])) * fabsl(xv);
        }
        y[e] = (double)(alpha * sum);
        y_scale[e] = ref_attn_scale(fabsl(alpha) * abs_sum);
    }
}

static inline void ref_attention_backward(double *dq, double *dq_scale, double *dk, double *dk_scale, double *dv,
                                          double *dv_scale, size_t lddq, double *ds, double *ds_scale,
                                          const ref_attn *a, const float *probs, const float *q, const float *k,
                                          const float *v, const float *dout, const float *ds_in) {
    size_t P = a->P;
    double w[P ? P : 1];
    for (size_t bh = 0; bh < a->B * a->H; bh++) {
        size_t head = bh * P * P;
        for (size_t i = 0; i < P; i++) ref_attention_ds_row(ds, ds_scale, a, probs, v, dout, ds_in, bh, i);
        for (size_t i = 0; i < P; i++) {
            size_t at = ref_attn_tok(a, bh, i, lddq);
            ref_attention_mix(dq + at, dq_scale + at, a, ds + head + i * P, ds_scale + head + i * P, 1, k, a->ldq, bh,
                              a->scale);
            ref_attention_mix(dk + at, dk_scale + at, a, ds + head + i, ds_scale + head + i, P, q, a->ldq, bh,
                              a->scale);
            for (size_t t = 0; t < P; t++) {   /* column i of the weights */
                size_t pt = head + t * P + i;
                w[t] = a->p == 0.0f ? probs[pt]
                                    : ref_dropout_value(probs[pt], ref_dropout_keep(a->seed, a->offset + pt, a->p),
                                                        a->p);
            }
            ref_attention_mix(dv + at, dv_scale + at, a, w, NULL, 1, dout, a->ldo, bh, 1);
        }
    }
}

/* ---- batch norm ---- */

/* torch.nn.BatchNorm1d(C) in training (its documentation's formulas) over
 * the N rows of x (N, C), in long double from the float inputs: y (N, C),
 * the saved mean and rstd = 1 / sqrt(biased var + eps), and the running
 * statistics after the step, (1 - momentum) r + momentum (mean, unbiased
 * var N / (N - 1)). Error scales of a backend that rounds each output once
 * from accurate sums (kernels/batch_norm.h): y and the mean as layer
 * norm's (ref_layer_norm_row); rstd itself; a running statistic the size
 * of its two terms. */
typedef struct {
    double *y, *y_scale;                 /* (N, C) */
    double *mean, *mean_scale, *rstd;    /* (C) */
    double *rm, *rm_scale, *rv, *rv_scale;
} ref_bn_out;

static inline void ref_batch_norm_train(const ref_bn_out *o, const float *x, size_t N, size_t C, const float *gamma,
                                        const float *beta, const float *rm0, const float *rv0, float momentum,
                                        float eps) {
    long double mo = momentum;
    for (size_t c = 0; c < C; c++) {
        long double s = 0, a = 0, q = 0;
        for (size_t r = 0; r < N; r++) s += x[r * C + c], a += fabsl((long double)x[r * C + c]);
        long double m = s / N;
        for (size_t r = 0; r < N; r++) q += ((long double)x[r * C + c] - m) * ((long double)x[r * C + c] - m);
        long double rs = 1.0L / sqrtl(q / N + (long double)eps), vu = q / (N - 1);
        o->mean[c] = (double)m, o->mean_scale[c] = ref_ln_scale((double)(a / N)), o->rstd[c] = (double)rs;
        o->rm[c] = (double)((1 - mo) * rm0[c] + mo * m);
        o->rm_scale[c] = ref_ln_scale((double)((1 - mo) * fabsl((long double)rm0[c]) + mo * fabsl(m)));
        o->rv[c] = (double)((1 - mo) * rv0[c] + mo * vu);
        o->rv_scale[c] = ref_ln_scale((double)((1 - mo) * fabsl((long double)rv0[c]) + mo * vu));
        for (size_t r = 0; r < N; r++) {
            long double d = (long double)x[r * C + c] - m;
            o->y[r * C + c] = (double)(d * rs * gamma[c] + beta[c]);
            o->y_scale[r * C + c] =
                ref_ln_scale((double)(fabsl(gamma[c] * rs) * (fabsl(m) + fabsl(d)) + fabsl((long double)beta[c])));
        }
    }
}

/* Eval: y = (x - running_mean) / sqrt(running_var + eps) * gamma + beta,
 * one rounding: scale |gamma| |x - rm| / sqrt(rv + eps) + |beta|. */
static inline void ref_batch_norm_eval(double *y, double *y_scale, const float *x, size_t N, size_t C,
                                       const float *gamma, const float *beta, const float *rm, const float *rv,
                                       float eps) {
    for (size_t r = 0; r < N; r++)
        for (size_t c = 0; c < C; c++) {
            long double d = ((long double)x[r * C + c] - rm[c]) / sqrtl((long double)rv[c] + eps);
            y[r * C + c] = (double)(d * gamma[c] + beta[c]);
            y_scale[r * C + c] = ref_ln_scale((double)(fabsl(d * gamma[c]) + fabsl((long double)beta[c])));
        }
}

/* The backward by the chain rule per column, with the saved mean and rstd
 * taken as exact (the backward's inputs), in long double: g = dy gamma,
 * xhat = (x - mean) rstd, dx = rstd (g - mean(g) - xhat mean(g xhat)),
 * means over the N rows; dgamma = dgamma0 + sum dy xhat, dbeta = dbeta0 +
 * sum dy. Scales as layer norm's (the sums' terms). */
static inline void ref_batch_norm_backward(double *dx, double *dx_scale, double *dgamma, double *dg_scale,
                                           double *dbeta, double *db_scale, const float *dy, const float *x,
                                           size_t N, size_t C, const float *gamma, const float *mean,
                                           const float *rstd, const float *dgamma0, const float *dbeta0) {
    for (size_t c = 0; c < C; c++) {
        long double sg = 0, sgx = 0, sb = 0, ab = 0, t = 0, at = 0;
        for (size_t r = 0; r < N; r++) {
            long double d = dy[r * C + c], xh = ((long double)x[r * C + c] - mean[c]) * rstd[c];
            sg += d * gamma[c], sgx += d * gamma[c] * xh, sb += d, ab += fabsl(d), t += d * xh, at += fabsl(d * xh);
        }
        long double mg = sg / N, mgx = sgx / N;
        for (size_t r = 0; r < N; r++) {
            long double g = (long double)dy[r * C + c] * gamma[c], xh = ((long double)x[r * C + c] - mean[c]) * rstd[c];
            dx[r * C + c] = (double)(rstd[c] * (g - mg - xh * mgx));
            dx_scale[r * C + c] = ref_ln_scale((double)(rstd[c] * (fabsl(g) + fabsl(mg) + fabsl(xh * mgx))));
        }
        dgamma[c] = (double)(dgamma0[c] + t), dg_scale[c] = ref_ln_scale((double)(fabsl((long double)dgamma0[c]) + at));
        dbeta[c] = (double)(dbeta0[c] + sb), db_scale[c] = ref_ln_scale((double)(fabsl((long double)dbeta0[c]) + ab));
    }
}

/* ---- RevIN and patches ---- */

/* neuralforecast's RevIN (common/_modules.py) of each window of x (B, L)
 * row stride ldx, then PatchTST's ReplicationPad1d((0, stride)) and
 * unfold(patch_len, stride) into P patches, in long double: stats (B, 2)
 * (center = x[L - 1] with subtract_last, else the mean; stdev = sqrt(biased
 * var + eps); (0, 1) without revin) and patches (B, P, patch_len), patch j
 * position i from padded[j stride + i] = x[min(j stride + i, L - 1)],
 * (x - center) / stdev, then * w + b with affine (w, b). Scales: 0 (bit for
 * bit) where the value is exact (x[L - 1] as the center, (0, 1), patches
 * without revin: x itself); the mean of |x| for a mean; stdev itself; a
 * patch value |w| (|center| + |x - center|) / stdev + |b|, the float
 * center's and stdev's roundings carried through (x - center) / stdev. */
typedef struct {
    size_t B, L, ldx, patch_len, stride, P;
    int revin, subtract_last;
    const float *affine;   /* (w, b) or NULL */
    float eps;
} ref_revin;

static inline size_t ref_revin_source(const ref_revin *r, size_t q) {
    size_t t = q / r->patch_len * r->stride + q % r->patch_len;   /* in the padded window */
    return t < r->L ? t : r->L - 1;
}

static inline void ref_revin_patch(double *patches, double *p_scale, double *stats, double *s_scale,
                                   const ref_revin *r, const float *x) {
    size_t per = r->P * r->patch_len;
    for (size_t b = 0; b < r->B; b++) {
        const float *xr = x + b * r->ldx;
        long double s = 0, a = 0, q = 0, center = 0, stdev = 1;
        for (size_t t = 0; t < r->L; t++) s += xr[t], a += fabsl((long double)xr[t]);
        long double m = s / r->L;
        for (size_t t = 0; t < r->L; t++) q += ((long double)xr[t] - m) * ((long double)xr[t] - m);
        if (r->revin) center = r->subtract_last ? xr[r->L - 1] : m, stdev = sqrtl(q / r->L + (long double)r->eps);
        stats[2 * b] = (double)center, stats[2 * b + 1] = (double)stdev;
        s_scale[2 * b] = r->revin && !r->subtract_last ? ref_ln_scale((double)(a / r->L)) : 0;
        s_scale[2 * b + 1] = r->revin ? (double)stdev : 0;
        long double w = r->affine ? r->affine[0] : 1, bias = r->affine ? r->affine[1] : 0;
        for (size_t k = 0; k < per; k++) {
            long double v = xr[ref_revin_source(r, k)], z = (v - center) / stdev * w + bias;
            patches[b * per + k] = (double)z;
            p_scale[b * per + k] =
                r->revin ? ref_ln_scale((double)(fabsl(w) * (fabsl(center) + fabsl(v - center)) / stdev + fabsl(bias)))
                         : 0;
        }
    }
}

/* The input side's d affine: daffine0 + (sum dp zhat, sum dp) over (B, P,
 * patch_len), zhat = (x - center) / stdev from the float stats (the
 * call's inputs). Scales |daffine0| + the sums of |terms|. */
static inline void ref_revin_patch_backward(double *daffine, double *scale, const float *daffine0,
                                            const float *dpatches, const float *stats, const ref_revin *r,
                                            const float *x) {
    size_t per = r->P * r->patch_len;
    long double s0 = 0, a0 = 0, s1 = 0, a1 = 0;
    for (size_t b = 0; b < r->B; b++)
        for (size_t k = 0; k < per; k++) {
            long double dp = dpatches[b * per + k];
            long double z = ((long double)x[b * r->ldx + ref_revin_source(r, k)] - stats[2 * b]) / stats[2 * b + 1];
            s0 += dp * z, a0 += fabsl(dp * z), s1 += dp, a1 += fabsl(dp);
        }
    daffine[0] = (double)(daffine0[0] + s0), scale[0] = ref_ln_scale((double)(fabsl((long double)daffine0[0]) + a0));
    daffine[1] = (double)(daffine0[1] + s1), scale[1] = ref_ln_scale((double)(fabsl((long double)daffine0[1]) + a1));
}

/* RevIN's denormalisation of z (B, n): ((z - b) / (w + eps^2) with affine)
 * * stdev + center, from the float stats; one rounding: scale the size of
 * the two terms. */
static inline void ref_revin_denorm(double *y, double *scale, const float *z, const float *stats, size_t B, size_t n,
                                    const float *affine, float eps) {
    long double a = affine ? (long double)affine[0] + (long double)eps * eps : 1;
    for (size_t b = 0; b < B; b++)
        for (size_t k = 0; k < n; k++) {
            long double v = z[b * n + k];
            if (affine) v = (v - affine[1]) / a;
            long double t = v * stats[2 * b + 1];
            y[b * n + k] = (double)(t + stats[2 * b]);
            scale[b * n + k] = ref_ln_scale((double)(fabsl(t) + fabsl((long double)stats[2 * b])));
        }
}

/* Its backward by the chain rule, from y (the forward's output): dz = dy
 * stdev / a (scale |dz|: one rounding); with affine, daffine = daffine0 +
 * (-sum dy (y - center) / a, -sum dy stdev / a), a = w + eps^2; scales
 * |daffine0| + the sums of |terms|. */
static inline void ref_revin_denorm_backward(double *dz, double *dz_scale, double *daffine, double *da_scale,
                                             const float *daffine0, const float *dy, const float *y,
                                             const float *stats, size_t B, size_t n, const float *affine,
                                             float eps) {
    long double a = affine ? (long double)affine[0] + (long double)eps * eps : 1, s0 = 0, a0 = 0, s1 = 0, a1 = 0;
    for (size_t b = 0; b < B; b++)
        for (size_t k = 0; k < n; k++) {
            long double d = dy[b * n + k], t0 = -d * ((long double)y[b * n + k] - stats[2 * b]) / a;
            long double t1 = -d * stats[2 * b + 1] / a;
            dz[b * n + k] = (double)(d * stats[2 * b + 1] / a);
            dz_scale[b * n + k] = ref_ln_scale(fabs(dz[b * n + k]));
            s0 += t0, a0 += fabsl(t0), s1 += t1, a1 += fabsl(t1);
        }
    if (!affine) return;
    daffine[0] = (double)(daffine0[0] + s0), da_scale[0] = ref_ln_scale((double)(fabsl((long double)daffine0[0]) + a0));
    daffine[1] = (double)(daffine0[1] + s1), da_scale[1] = ref_ln_scale((double)(fabsl((long double)daffine0[1]) + a1));
}

/* ---- Adam ---- */

/* One step t (from 1) of Adam as torch.optim.Adam and AdamW define it (no
 * amsgrad), in double with the user's hyper-parameters and weight decay
 * wd: decoupled (AdamW) p *= 1 - lr wd first, else (Adam) g += wd p; then
 *   m = b1 m + (1 - b1) g,  v = b2 v + (1 - b2) g^2,
 *   p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
 * moved (n) accumulates |each update|, the error scale of p. */
static inline void ref_adam_step(double *p, double *m, double *v, double *moved, const float *g, size_t n,
                                 double lr, double b1, double b2, double eps, double wd, int decoupled,
                                 int64_t t) {
    double bc1 = 1.0 - pow(b1, (double)t), bc2 = 1.0 - pow(b2, (double)t);
    for (size_t i = 0; i < n; i++) {
        double gi = decoupled ? g[i] : g[i] + wd * p[i];
        if (decoupled) {
            moved[i] += fabs(lr * wd * p[i]);
            p[i] *= 1.0 - lr * wd;
        }
        m[i] = b1 * m[i] + (1.0 - b1) * gi;
        v[i] = b2 * v[i] + (1.0 - b2) * gi * gi;
        double step = lr / bc1 * m[i] / (sqrt(v[i]) / sqrt(bc2) + eps);
        p[i] -= step;
        moved[i] += fabs(step);
    }
}

#endif
