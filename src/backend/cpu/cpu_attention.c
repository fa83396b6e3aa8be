/* PatchTST's encoder entries of the CPU backend: GELU (kernels/gelu.h),
 * an OpenMP loop over elements, and multi-head attention
 * (kernels/attention.h), OpenMP loops over the (sequence, head, row)
 * triples: the forward one loop over query rows; the backward one over
 * query rows (dscores, dq), then one over key rows (dk, dv), which read
 * the columns of dscores every query row has written. Each output element
 * is computed by one body call, whichever thread runs it, so every thread
 * count gives the same bits (and the GPU's, which runs the same bodies). */
#include <omp.h>

#include "backend/cpu/cpu_internal.h"
#include "core/error.h"
#include "kernels/attention.h"
#include "kernels/gelu.h"

/* ---- GELU ---- */

/* A point costs an erfc (and an exp backward), some 20 to 40 ns, as the
 * LSTM cell's: 1024 points pay for an OpenMP region. */
#define FC_CPU_GELU_PAR_MIN ((size_t)1 << 10)

void fc_cpu_gelu_forward(fc_backend *be, float *y, const float *x, size_t n) {
#pragma omp parallel for if (n >= FC_CPU_GELU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t i = 0; i < n; i++) y[i] = fc_gelu_point(x[i]);
}

void fc_cpu_gelu_backward(fc_backend *be, float *dx, const float *dy, const float *x, size_t n) {
#pragma omp parallel for if (n >= FC_CPU_GELU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t i = 0; i < n; i++) dx[i] = fc_gelu_backward_point(dy[i], x[i]);
}

/* ---- attention ---- */

/* Worth an OpenMP region when the rows' products (P (E + 1) each, about
 * a nanosecond apiece) reach the element-wise threshold. */
static int attention_parallel(const fc_attn_shape *s) {
    return s->B * s->H * s->P * s->P * (s->E + 1) >= FC_CPU_PAR_MIN;
}

static fc_attn_shape attention_shape(size_t B, size_t P, size_t H, size_t E, size_t ldq, size_t ldo, float scale,
                                     float p, uint64_t seed, uint64_t offset) {
    FC_ASSERT(p >= 0.0f && p < 1.0f);   /* backend.h (the dropout entry's p); also refuses NaN */
    fc_attn_shape s = {B, P, H, E, ldq, ldo, scale, p, seed, offset};
    return s;
}

void fc_cpu_attention_forward(fc_backend *be, float *out, size_t ldo, float *scores, float *probs, const float *prev,
                              const float *q, const float *k, const float *v, size_t ldq, size_t B, size_t P,
                              size_t H, size_t E, float scale, float p, uint64_t seed, uint64_t offset) {
    fc_attn_fwd a = {attention_shape(B, P, H, E, ldq, ldo, scale, p, seed, offset), out, scores, probs, prev,
                     q, k, v};
    size_t rows = B * H * P;
#pragma omp parallel for if (attention_parallel(&a.s)) num_threads(be->threads) schedule(static)
    for (size_t t = 0; t < rows; t++) fc_attention_forward_row(&a, t);
}

void fc_cpu_attention_backward(fc_backend *be, float *dq, float *dk, float *dv, size_t lddq, float *dscores,
                               const float *probs, const float *q, const float *k, const float *v, size_t ldq,
                               const float *dout, size_t ldo, size_t B, size_t P, size_t H, size_t E, float scale,
                               float p, uint64_t seed, uint64_t offset) {
    FC_ASSERT(dscores != NULL);   /* backend.h: never NULL (zeros when no layer reads the scores) */
    fc_attn_bwd a = {attention_shape(B, P, H, E, ldq, ldo, scale, p, seed, offset), lddq, dq, dk, dv, dscores,
                     probs, q, k, v, dout};
    size_t rows = B * H * P;
    int par = attention_parallel(&a.s);
    /* two regions: the key rows read whole columns of dscores */
#pragma omp parallel for if (par) num_threads(be->threads) schedule(static)
    for (size_t t = 0; t < rows; t++) fc_attention_backward_row(&a, t);
#pragma omp parallel for if (par) num_threads(be->threads) schedule(static)
    for (size_t t = 0; t < rows; t++) fc_attention_backward_col(&a, t);
}
