/* Body of the backend's attention_forward and attention_backward: the
 * multi-head scaled dot-product attention of neuralforecast's PatchTST
 * (_ScaledDotProductAttention with res_attention), for B sequences of P
 * tokens and H heads of width E. Layouts as backend.h: q, k, v, out, dout,
 * dq, dk, dv are (B P, H E) token rows with their row strides, head h in
 * columns [h E, (h + 1) E); scores, probs, dscores are (B, H, P, P)
 * packed. Head bh = b H + h, query row i, key row j:
 *
 * Forward, one query row (bh, i) at a time (fc_attention_forward_row):
 *   scores[i, j] = (float)(scale * sum_e q[i, e] k[j, e]  (+ prev[i, j]))
 *   m            = max_j scores[i, j]
 *   probs[i, j]  = (float)(exp(scores[i, j] - m) / sum_j' exp(scores[i, j'] - m))
 *   w[i, j]      = dropout(probs[i, j]): fc_dropout_point at stream index
 *                  offset + (bh P + i) P + j (p == 0: probs itself)
 *   out[i, e]    = (float)(sum_j w[i, j] v[j, e])
 * Backward, first one query row (bh, i) at a time (fc_attention_backward_row):
 *   dw[i, j]     = sum_e dout[i, e] v[j, e]
 *   dp[i, j]     = dw[i, j] keep / (1 - p)     (p == 0: dw; dropped: 0)
 *   r[i]         = sum_j dp[i, j] probs[i, j]
 *   dscores[i, j] = (float)(probs[i, j] (dp[i, j] - r[i]) + dscores[i, j])   (in place)
 *   dq[i, e]     = (float)(scale * sum_j dscores[i, j] k[j, e])
 * then one key row (bh, j) at a time (fc_attention_backward_col), once
 * every row of the head has its dscores:
 *   dk[j, e]     = (float)(scale * sum_i dscores[i, j] q[i, e])
 *   dv[j, e]     = (float)(sum_i w[i, j] dout[i, e])
 * Every sum is in double, its terms added in increasing index order from
 * 0.0, and rounded to float once. The products of two floats in the dot
 * products and weighted sums are exact in double (24 + 24 significant bits
 * <= 53); the rest (the scale, prev's addition, exp, the softmax's sum and
 * division, dp's division and the softmax backward) are IEEE double
 * operations. dw is recomputed in the second pass over j rather than kept:
 * the bodies need no scratch beyond FC_ATTN_CHUNK doubles on the stack.
 *
 * Why double: a float dot product over E, or a float sum over P keys,
 * carries ~sqrt(n) 2^-24 of its terms in rounding and would depend on the
 * order a device picks; in double the sums are exact to far below the one
 * rounding to float, so every output is within a rounding or two of the
 * exact value of the same float inputs. torch rounds more often (float
 * matmuls, the scale and prev as separate steps, float exp): results agree
 * with torch to float precision, not bit for bit.
 *
 * exp is fc_attn_exp below, written with IEEE operations only (rint, a
 * polynomial, an exact ldexp), not libm's or CUDA's exp, which differ in
 * their last bits: with it, the CPU and the GPU (the CUDA library is built
 * with --fmad=false; the C build with -std=c11, which keeps GCC from
 * contracting) do the same operations on the same values in the same
 * order, and give the same bits, for any thread count: each output element
 * is computed by one call of a body, whichever thread runs it.
 *
 * Scores below m - 104 get exp 0: e^-104 < 2^-150, so their probability is
 * below half the smallest float subnormal (the sum is at least 1, from the
 * maximum) and rounds to 0 anyway, and the sum does not move. A NaN score,
 * or a +inf one (inf - inf), makes the row's probabilities NaN, as torch's
 * softmax. */
#ifndef FC_KERNELS_ATTENTION_H
#define FC_KERNELS_ATTENTION_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "core/hd.h"
#include "kernels/dropout.h"

/* Columns of a weighted sum accumulated at once (doubles on the stack).
 * The order of each column's sum does not depend on it. */
#define FC_ATTN_CHUNK 32

/* The sizes and scalars of one call. ldq strides q, k, v (forward) and
 * dq, dk, dv in the backward's own struct; ldo strides out and dout. */
typedef struct {
    size_t B, P, H, E;
    size_t ldq, ldo;
    float scale, p;
    uint64_t seed, offset;
} fc_attn_shape;

typedef struct {
    fc_attn_shape s;
    float *out, *scores, *probs;
    const float *prev;   /* NULL: none; may be scores (each element is read before it is written) */
    const float *q, *k, *v;
} fc_attn_fwd;

typedef struct {
    fc_attn_shape s;
    size_t lddq;
    float *dq, *dk, *dv;
    float *dscores;      /* in: d loss / d scores from the next layer; out: this layer's */
    const float *probs, *q, *k, *v, *dout;
} fc_attn_bwd;

/* ---- arithmetic ---- */

/* e^x for x <= 0 (x = score - max) with IEEE operations only, so that
 * every device gives the same bits: x = k ln2 + r, k = rint(x / ln2),
 * |r| <= ln2 / 2, with ln2 split in two (fdlibm's ln2_hi has 21 trailing
 * zero bits, so k ln2_hi is exact for |k| < 2^21); e^r by its Taylor
 * series to r^13 (the next term is below 5e-18 of e^r), Horner; times 2^k
 * by ldexp, exact for the normal results here. Within ~2 ulp of double.
 * x < -104 gives 0 (see above); NaN gives NaN. */
FC_HD double fc_attn_exp(double x) {
    if (x != x) return x;
    if (x < -104.0) return 0.0;
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    double k = rint(x * 1.4426950408889634);
    double r = (x - k * ln2_hi) - k * ln2_lo;
    double e = 1.6059043836821613e-10;   /* 1/13! */
    e = e * r + 2.08767569878681e-09;    /* 1/12! */
    e = e * r + 2.505210838544172e-08;
    e = e * r + 2.755731922398589e-07;
    e = e * r + 2.7557319223985893e-06;
    e = e * r + 2.48015873015873e-05;
    e = e * r + 0.0001984126984126984;
    e = e * r + 0.001388888888888889;
    e = e * r + 0.008333333333333333;
    e = e * r + 0.041666666666666664;
    e = e * r + 0.16666666666666666;
    e = e * r + 0.5;
    e = e * r + 1.0;
    e = e * r + 1.0;
    return ldexp(e, (int)k);
}

/* sum_e a[e] b[e] in double, e = 0, 1, ..., E-1 (each product exact). */
FC_HD double fc_attn_dot(const float *a, const float *b, size_t E) {
    double s = 0.0;
    for (size_t e = 0; e < E; e++) s += (double)a[e] * (double)b[e];
    return s;
}

/* The forward's weight of a probability: its dropout at stream index
 * `index` (the dropout entry's float value), or itself when p == 0. */
FC_HD float fc_attn_weight(float prob, float p, uint64_t seed, uint64_t index) {
    return p == 0.0f ? prob : fc_dropout_point(prob, p, seed, index);
}

/* d loss / d prob from d loss / d weight: the dropout's factor keep / (1 - p),
 * 1 - p the float the forward divided by. */
FC_HD double fc_attn_dprob(double dw, float p, uint64_t seed, uint64_t index) {
    if (p == 0.0f) return dw;
    return fc_dropout_keep(seed, index, p) ? dw / (double)(1.0f - p) : 0.0;
}

/* y[e] = (float)(alpha * sum_t w_t x_t[e]) for e < E, t = 0..T-1 in order,
 * w_t = fc_attn_weight(w[t wstep], p, seed, index + t istep) (p == 0: no
 * dropout), x_t = x + t ldx. In chunks of FC_ATTN_CHUNK columns, so a
 * dropout mask is drawn once per chunk, not per column. alpha = 1 leaves
 * the sum as it is (a product by 1 is exact). */
FC_HD void fc_attn_mix_row(float *y, const float *w, size_t wstep, const float *x, size_t ldx, size_t T, size_t E,
                           double alpha, float p, uint64_t seed, uint64_t index, uint64_t istep) {
    for (size_t e0 = 0; e0 < E; e0 += FC_ATTN_CHUNK) {
        size_t n = E - e0 < FC_ATTN_CHUNK ? E - e0 : FC_ATTN_CHUNK;
        double acc[FC_ATTN_CHUNK];
        for (size_t c = 0; c < n; c++) acc[c] = 0.0;
        for (size_t t = 0; t < T; t++) {
            double wt = (double)fc_attn_weight(w[t * wstep], p, seed, index + t * istep);
            const float *xt = x + t * ldx + e0;
            for (size_t c = 0; c < n; c++) acc[c] += wt * (double)xt[c];
        }
        for (size_t c = 0; c < n; c++) y[e0 + c] = (float)(alpha * acc[c]);
    }
}

/* ---- where a row lives ---- */

/* Query (or key) row t = bh P + i of a call: its head bh, its token row
 * b P + i in the (B P, H E) matrices, and its column offset h E there. */
typedef struct {
    size_t bh, i, token, col;
} fc_attn_row;

FC_HD fc_attn_row fc_attn_row_of(const fc_attn_shape *s, size_t t) {
    fc_attn_row r;
    r.bh = t / s->P;
    r.i = t % s->P;
    r.token = (r.bh / s->H) * s->P + r.i;
    r.col = (r.bh % s->H) * s->E;
    return r;
}

/* The first token row of row r's sequence: head rows j are this + j. */
FC_HD size_t fc_attn_first_token(const fc_attn_row *r) { return r->token - r->i; }

/* ---- forward ---- */

/* scores row (P) of query qi against the head's keys k (rows ldq apart);
 * prev_row NULL or the row to add (read before scores[j] is written). */
FC_HD void fc_attn_scores_row(float *scores, const float *prev_row, const float *qi, const float *k, size_t ldq,
                              size_t P, size_t E, float scale) {
    for (size_t j = 0; j < P; j++) {
        double s = (double)scale * fc_attn_dot(qi, k + j * ldq, E);
        if (prev_row) s += (double)prev_row[j];
        scores[j] = (float)s;
    }
}

/* probs (P) = softmax of scores (P), P > 0. */
FC_HD void fc_attn_softmax_row(float *probs, const float *scores, size_t P) {
    float m = scores[0];
    for (size_t j = 1; j < P; j++)
        if (scores[j] > m) m = scores[j];
    double sum = 0.0;
    for (size_t j = 0; j < P; j++) sum += fc_attn_exp((double)scores[j] - (double)m);
    for (size_t j = 0; j < P; j++) probs[j] = (float)(fc_attn_exp((double)scores[j] - (double)m) / sum);
}

/* Query row t = bh P + i: scores, probs and out of that row. */
FC_HD void fc_attention_forward_row(const fc_attn_fwd *a, size_t t) {
    const fc_attn_shape *s = &a->s;
    fc_attn_row r = fc_attn_row_of(s, t);
    size_t P = s->P, first = fc_attn_first_token(&r);
    float *scores = a->scores + t * P, *probs = a->probs + t * P;
    const float *k = a->k + first * s->ldq + r.col, *v = a->v + first * s->ldq + r.col;
    fc_attn_scores_row(scores, a->prev ? a->prev + t * P : NULL, a->q + r.token * s->ldq + r.col, k, s->ldq, P,
                       s->E, s->scale);
    fc_attn_softmax_row(probs, scores, P);
    fc_attn_mix_row(a->out + r.token * s->ldo + r.col, probs, 1, v, s->ldq, P, s->E, 1.0, s->p, s->seed,
                    s->offset + t * P, 1);
}

/* ---- backward ---- */

/* d loss / d probs[i, j] of query row t (i) and key j: dout_i . v_j through the dropout. */
FC_HD double fc_attn_dp(const fc_attn_bwd *a, const float *douti, const float *v, size_t t, size_t j) {
    const fc_attn_shape *s = &a->s;
    double dw = fc_attn_dot(douti, v + j * s->ldq, s->E);
    return fc_attn_dprob(dw, s->p, s->seed, s->offset + t * s->P + j);
}

/* Query row t = bh P + i: dscores row (in place) and dq row. */
FC_HD void fc_attention_backward_row(const fc_attn_bwd *a, size_t t) {
    const fc_attn_shape *s = &a->s;
    fc_attn_row r = fc_attn_row_of(s, t);
    size_t P = s->P, first = fc_attn_first_token(&r);
    const float *probs = a->probs + t * P, *douti = a->dout + r.token * s->ldo + r.col;
    const float *k = a->k + first * s->ldq + r.col, *v = a->v + first * s->ldq + r.col;
    float *ds = a->dscores + t * P;
    double rowdot = 0.0;
    for (size_t j = 0; j < P; j++) rowdot += fc_attn_dp(a, douti, v, t, j) * (double)probs[j];
    for (size_t j = 0; j < P; j++)
        ds[j] = (float)((double)probs[j] * (fc_attn_dp(a, douti, v, t, j) - rowdot) + (double)ds[j]);
    fc_attn_mix_row(a->dq + r.token * a->lddq + r.col, ds, 1, k, s->ldq, P, s->E, (double)s->scale, 0.0f, 0, 0, 0);
}

/* Key row t = bh P + j, once every query row of head bh has run
 * fc_attention_backward_row: dk and dv of that row (column j of the
 * head's dscores and probs). */
FC_HD void fc_attention_backward_col(const fc_attn_bwd *a, size_t t) {
    const fc_attn_shape *s = &a->s;
    fc_attn_row r = fc_attn_row_of(s, t);
    size_t P = s->P, first = fc_attn_first_token(&r), head = r.bh * P * P;
    const float *q = a->q + first * s->ldq + r.col, *dout = a->dout + first * s->ldo + r.col;
    size_t out_row = r.token * a->lddq + r.col;
    fc_attn_mix_row(a->dk + out_row, a->dscores + head + r.i, P, q, s->ldq, P, s->E, (double)s->scale, 0.0f, 0, 0, 0);
    fc_attn_mix_row(a->dv + out_row, a->probs + head + r.i, P, dout, s->ldo, P, s->E, 1.0, s->p, s->seed,
                    s->offset + head + r.i, P);
}

#endif
