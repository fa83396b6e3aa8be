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

/* ---- Adam ---- */

/* One step t (from 1) of Adam as torch.optim.Adam defines it (no weight
 * decay, no amsgrad), in double with the user's hyper-parameters:
 *   m = b1 m + (1 - b1) g,  v = b2 v + (1 - b2) g^2,
 *   p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
 * moved (n) accumulates |each update|, the error scale of p. */
static inline void ref_adam_step(double *p, double *m, double *v, double *moved, const float *g, size_t n,
                                 double lr, double b1, double b2, double eps, int64_t t) {
    double bc1 = 1.0 - pow(b1, (double)t), bc2 = 1.0 - pow(b2, (double)t);
    for (size_t i = 0; i < n; i++) {
        m[i] = b1 * m[i] + (1.0 - b1) * g[i];
        v[i] = b2 * v[i] + (1.0 - b2) * (double)g[i] * g[i];
        double step = lr / bc1 * m[i] / (sqrt(v[i]) / sqrt(bc2) + eps);
        p[i] -= step;
        moved[i] += fabs(step);
    }
}

#endif
