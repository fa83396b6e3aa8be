/* PatchTST's encoder entries of the CUDA backend: thin __global__ wrappers
 * over the bodies the CPU backend loops over (kernels/gelu.h,
 * kernels/attention.h). GELU runs one thread per element. Attention runs
 * one thread per (sequence, head, row): the forward one launch over query
 * rows; the backward one launch over query rows (dscores in place, dq) and
 * then, on the same stream, so after it, one over key rows (dk, dv), which
 * read the columns of dscores the first wrote. A thread runs the same body
 * call the CPU runs for that row, so attention gives the CPU's bits (its
 * exp is kernels/attention.h's, not CUDA's); GELU calls CUDA's erfc and
 * exp, so it agrees with the CPU to a rounding, not bit for bit.
 *
 * Threads of a warp take consecutive rows of one head, so they read the
 * same key and value rows at once (broadcast loads). Every kernel loops
 * with a grid stride (fc_launch_1d); nothing is launched for an empty call. */
#include "backend/cuda/cuda_internal.h"
#include "kernels/attention.h"
#include "kernels/gelu.h"

/* ---- GELU ---- */

static __global__ void gelu_forward_kernel(float *y, const float *x, size_t n) {
    for (size_t i = fc_first_index(); i < n; i += fc_grid_stride()) y[i] = fc_gelu_point(x[i]);
}

static __global__ void gelu_backward_kernel(float *dx, const float *dy, const float *x, size_t n) {
    for (size_t i = fc_first_index(); i < n; i += fc_grid_stride()) dx[i] = fc_gelu_backward_point(dy[i], x[i]);
}

void fc_cuda_gelu_forward(fc_backend *be, float *y, const float *x, size_t n) {
    fc_launch l = fc_cuda_grid(n);
    if (!l.grid) return;
    gelu_forward_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(y, x, n);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("gelu_forward_kernel"));
}

void fc_cuda_gelu_backward(fc_backend *be, float *dx, const float *dy, const float *x, size_t n) {
    fc_launch l = fc_cuda_grid(n);
    if (!l.grid) return;
    gelu_backward_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(dx, dy, x, n);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("gelu_backward_kernel"));
}

/* ---- attention: a thread per row t = (b H + h) P + i ---- */

static __global__ void attention_forward_kernel(fc_attn_fwd a, size_t rows) {
    for (size_t t = fc_first_index(); t < rows; t += fc_grid_stride()) fc_attention_forward_row(&a, t);
}

static __global__ void attention_backward_row_kernel(fc_attn_bwd a, size_t rows) {
    for (size_t t = fc_first_index(); t < rows; t += fc_grid_stride()) fc_attention_backward_row(&a, t);
}

static __global__ void attention_backward_col_kernel(fc_attn_bwd a, size_t rows) {
    for (size_t t = fc_first_index(); t < rows; t += fc_grid_stride()) fc_attention_backward_col(&a, t);
}

static fc_attn_shape attention_shape(size_t B, size_t P, size_t H, size_t E, size_t ldq, size_t ldo, float scale,
                                     float p, uint64_t seed, uint64_t offset) {
    FC_ASSERT(p >= 0.0f && p < 1.0f);   /* backend.h (the dropout entry's p); also refuses NaN */
    fc_attn_shape s = {B, P, H, E, ldq, ldo, scale, p, seed, offset};
    return s;
}

void fc_cuda_attention_forward(fc_backend *be, float *out, size_t ldo, float *scores, float *probs,
                               const float *prev, const float *q, const float *k, const float *v, size_t ldq,
                               size_t B, size_t P, size_t H, size_t E, float scale, float p, uint64_t seed,
                               uint64_t offset) {
    fc_attn_fwd a = {attention_shape(B, P, H, E, ldq, ldo, scale, p, seed, offset), out, scores, probs, prev,
                     q, k, v};
    size_t rows = B * H * P;
    fc_launch l = fc_cuda_grid(rows);
    if (!l.grid) return;
    attention_forward_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(a, rows);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("attention_forward_kernel"));
}

void fc_cuda_attention_backward(fc_backend *be, float *dq, float *dk, float *dv, size_t lddq, float *dscores,
                                const float *probs, const float *q, const float *k, const float *v, size_t ldq,
                                const float *dout, size_t ldo, size_t B, size_t P, size_t H, size_t E,
                                float scale, float p, uint64_t seed, uint64_t offset) {
    FC_ASSERT(dscores != NULL);   /* backend.h: never NULL (zeros when no layer reads the scores) */
    fc_attn_bwd a = {attention_shape(B, P, H, E, ldq, ldo, scale, p, seed, offset), lddq, dq, dk, dv, dscores,
                     probs, q, k, v, dout};
    size_t rows = B * H * P;
    fc_launch l = fc_cuda_grid(rows);
    if (!l.grid) return;
    attention_backward_row_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(a, rows);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("attention_backward_row_kernel"));
    attention_backward_col_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(a, rows);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("attention_backward_col_kernel"));
}
