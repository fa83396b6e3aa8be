/* The backend interface: a table of functions through which all arithmetic
 * of models and training goes (as ggml's backends). The CPU backend
 * (backend/cpu) uses oneDNN for matrix products and OpenMP loops over the
 * shared kernel bodies (kernels/) for the rest; a CUDA backend fills the same
 * table with cuBLASLt and thin __global__ wrappers of the same bodies.
 *
 * Pointers passed to the table are device pointers of that backend (plain
 * host pointers on CPU). Matrices are row-major; shapes are given on every
 * pointer with the letters B (windows), L (input size), H (horizon),
 * I/O (layer in/out features). Functions that write gradients of parameters
 * accumulate (+=); those that write gradients of activations overwrite. */
#ifndef FC_BACKEND_BACKEND_H
#define FC_BACKEND_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include "fcast/status.h"
#include "kernels/loss.h"

typedef enum { FC_ACT_NONE = 0, FC_ACT_RELU = 1 } fc_activation;

/* The arithmetic of matrix products (--precision). Master weights,
 * gradients, optimizer state, reductions, losses and scalers are fp32 in
 * every precision; bf16 / fp16 apply to the inputs of matrix products,
 * which accumulate in fp32. */
typedef enum { FC_PREC_FP32 = 0, FC_PREC_BF16 = 1, FC_PREC_FP16 = 2, FC_PREC_COUNT = 3 } fc_precision;

const char *fc_precision_name(fc_precision p);            /* "fp32", "bf16", "fp16" */
int fc_precision_parse(const char *s, fc_precision *out); /* 0 on success */

/* One dense layer: y (B,O) = act(x (B,I) . w (O,I)^T + b (O)); b may be NULL.
 * In fp32, x_low and w_low are NULL. In bf16 / fp16 the product reads
 * x_low (B,I), which forward writes as x rounded to the precision and
 * backward reads for the weight gradient, and w_low (O,I), w rounded, which
 * the caller keeps in step with w (the optimizer refreshes it). */
typedef struct {
    size_t B, I, O;
    fc_activation act;
    fc_precision prec;
    const float *x;
    void *x_low;
    const float *w;
    const void *w_low;
    const float *b;
    float *y;
} fc_linear_call;

typedef struct fc_backend fc_backend;

/* Types of the optional quant entries, defined where quant computes them:
 * fc_mc_spec and fc_mc_sums in kernels/quant_paths.h, fc_ind_plan and
 * fc_ind_seg in kernels/indicator_segment.h. */
struct fc_mc_spec;
struct fc_mc_sums;
struct fc_ind_plan;
struct fc_ind_seg;
/* Types of the optional data entries, in kernels/window_load.h. */
struct fc_window_pos;
struct fc_window_data;
struct fc_window_batch;
/* Types of the optimizer step's blocks, in kernels/optimizer_step.h. */
struct fc_step_in;
struct fc_step_out;

#define FC_WS_SLOTS 4   /* workspace buffers a backend may keep for dense layers */

struct fc_backend {
    const char *name;
    void *impl;
    int threads;
    int host_visible;   /* 1: device pointers are host memory (CPU): no staging copies needed */
    /* Memory the backend uses besides its buffers (a GPU's CUDA context and
     * cuBLASLt's state): an allowance the memory plan counts. 0 on the CPU,
     * whose libraries are in the plan's own allowance. */
    size_t context_bytes;
    /* fp32 products may round their inputs to TF32 on tensor cores (--tf32;
     * GPU only, off by default so that fp32 means fp32). Read at each call. */
    int tf32;

    /* ---- memory ---- */
    void *(*alloc)(fc_backend *be, size_t bytes);        /* 64-byte aligned; NULL + error on failure */
    void (*release)(fc_backend *be, void *p);
    void (*to_device)(fc_backend *be, void *dst, const void *src, size_t bytes);
    void (*to_host)(fc_backend *be, void *dst, const void *src, size_t bytes);
    /* Host memory the device copies from and to at full speed (pinned on a
     * GPU; plain aligned memory on the CPU), for staging buffers. Copies
     * from it may run asynchronously: a buffer passed to to_device must not
     * change until the next sync. NULL + error on failure. */
    void *(*host_alloc)(fc_backend *be, size_t bytes);
    void (*host_release)(fc_backend *be, void *p);
    void (*fill)(fc_backend *be, float *x, float value, size_t n);
    void (*sync)(fc_backend *be);
    /* Marks in the backend's queue (optional: NULL where every call is
     * synchronous, as on the CPU): mark_record places *mark (created at its
     * first use, reused after) behind the calls queued so far; mark_wait
     * returns once the backend has passed it; mark_free releases it (NULL:
     * nothing). A staging buffer copied by to_device may be refilled once a
     * mark recorded after the copy has passed: this waits for that copy,
     * not for the work queued since, as sync would. */
    fc_status (*mark_record)(fc_backend *be, void **mark);
    fc_status (*mark_wait)(fc_backend *be, void *mark);
    void (*mark_free)(fc_backend *be, void *mark);
    /* FC_OK, or the first error an entry without a status met (a device
     * fault surfaces in a later copy or sync, which return nothing): check
     * it after copying results to the host and before trusting them. */
    fc_status (*status)(fc_backend *be);
    /* Bytes free and in total of the memory the backend allocates from
     * (host memory available on the CPU; the device's on a GPU). */
    void (*memory_info)(fc_backend *be, size_t *free_bytes, size_t *total_bytes);
    /* A run's arena (docs/memory.md): one block of `bytes`, sized by the
     * memory plan, from which alloc serves every buffer until arena_close.
     * Releasing a buffer inside it gives nothing back (the run frees it
     * whole); an alloc that does not fit fails with FC_ERR_MEMORY instead
     * of going past the plan. arena_close frees the block; every buffer in
     * it must have been released. */
    fc_status (*arena_open)(fc_backend *be, size_t bytes);
    void (*arena_close)(fc_backend *be);
    /* The run the arena was planned for is over but its buffers live on
     * (a trained model a library caller goes on predicting with): later
     * buffers come from the ordinary allocator, so work the plan did not
     * count is not refused; the arena's block goes at arena_close or
     * destroy. */
    void (*arena_seal)(fc_backend *be);
    void (*arena_stats)(const fc_backend *be, size_t *used, size_t *size);
    void (*destroy)(fc_backend *be);

    /* ---- dense ---- */
    /* Bytes per element of a low-precision buffer (x_low, w_low, dy_low) of
     * each precision: 2 where the matrix unit reads 16-bit values (bf16 on
     * CPU; bf16 and fp16 on GPU), 4 where the values are rounded to the
     * format but carried in fp32 (fp16 on CPU: oneDNN 2.6 has no fp16 matmul
     * on CPU). low_bytes[FC_PREC_FP32] is 0: fp32 keeps no copies. */
    size_t low_bytes[FC_PREC_COUNT];
    /* dst (n) = src rounded to prec (bf16 / fp16, nearest-even; see kernels/lowp.h). */
    void (*round_to)(fc_backend *be, void *dst, const float *src, size_t n, fc_precision prec);
    /* Workspace the dense layer (B,I,O) needs besides its operands, in
     * bytes per slot: a backend keeps one buffer per slot, grown to the
     * largest request, so a model's workspace is the per-slot maximum over
     * its layers. May build (and cache) the layer's kernels to ask them;
     * allocates no workspace. */
    fc_status (*linear_workspace)(fc_backend *be, const fc_linear_call *shape, size_t ws[FC_WS_SLOTS]);
    /* y = act(x . w^T + b) (see fc_linear_call); ReLU and bias are fused
     * into the matrix product. In low precision it first writes x_low. */
    fc_status (*linear_forward)(fc_backend *be, const fc_linear_call *c);
    /* Backward of the same call, given dy (B,O) = d loss / d y:
     *   dy is overwritten with d loss / d (x.w^T + b) (ReLU mask), in ONE pass
     *      fused with db (O) += sum over B of dy (skipped when db is NULL) and,
     *      in low precision, with the rounding of dy into dy_low (B,O);
     *   dx (B,I) = dy . w    (overwritten; skipped when dx is NULL)
     *   dw (O,I) += dy^T . x */
    fc_status (*linear_backward)(fc_backend *be, const fc_linear_call *c, float *dy, void *dy_low,
                                 float *dx, float *dw, float *db);
    /* BLAS-style row-major C(M,N) = alpha * op(A) . op(B) + beta * C with
     * leading dimensions; op(X) = X^T when trans_x. */
    fc_status (*gemm)(fc_backend *be, int trans_a, int trans_b, size_t M, size_t N, size_t K,
                      float alpha, const float *A, size_t lda, const float *Bm, size_t ldb,
                      float beta, float *C, size_t ldc);

    /* ---- element-wise and per-row (bodies in kernels/) ---- */
    /* y (B, ceil(L/k)) = max over windows of k, ceil_mode; argmax (B, ceil(L/k)) index into L. */
    void (*maxpool1d_forward)(fc_backend *be, float *y, int32_t *argmax, const float *x,
                              size_t B, size_t L, size_t k);
    /* dx (B,L) = scatter of dy through argmax (overwritten). */
    void (*maxpool1d_backward)(fc_backend *be, float *dx, const float *dy, const int32_t *argmax,
                               size_t B, size_t L, size_t k);
    /* Linear interpolation, align_corners=False (torch F.interpolate, mode="linear").
     * y (B,n_out) row stride ldy; x (B,n_in) row stride ldx. Backward overwrites dx. */
    void (*interp_linear_forward)(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx,
                                  size_t B, size_t n_in, size_t n_out);
    void (*interp_linear_backward)(fc_backend *be, float *dx, size_t ldx, const float *dy, size_t ldy,
                                   size_t B, size_t n_in, size_t n_out);
    /* y (B,L) = x reversed along L (x row stride ldx, y row stride ldy). */
    void (*flip_rows)(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B, size_t L);
    /* y = alpha * x + beta * y over a (B,C) block with row strides (axpby). */
    void (*axpby_rows)(fc_backend *be, float *y, size_t ldy, float alpha, const float *x, size_t ldx,
                       float beta, size_t B, size_t C);
    /* y (B,C) *= m (B,C) element-wise, rows strided. */
    void (*mul_rows)(fc_backend *be, float *y, size_t ldy, const float *m, size_t ldm, size_t B, size_t C);
    /* y (B,C) = x[:, col] broadcast along C (x row stride ldx). */
    void (*broadcast_col)(fc_backend *be, float *y, const float *x, size_t ldx, size_t col, size_t B, size_t C);
    /* x[:, col] += sum over C of dy (B,C) (backward of broadcast_col). */
    void (*sum_rows_into_col)(fc_backend *be, float *x, size_t ldx, size_t col, const float *dy,
                              size_t B, size_t C);
    /* y (B, C, A) = x (B, A, C) with the last two axes swapped (torch's
     * permute(0, 2, 1)); x row stride ldx, y row stride ldy, y must not
     * overlap x. Its backward is the same call with A and C swapped. Moves
     * (B, Q, H) and (B, P, Q) blocks of multi-output models
     * (kernels/transpose.h). */
    void (*transpose_rows)(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B,
                           size_t A, size_t C);
    /* LSTM cell over B rows (torch.nn.LSTM, gates in the order i, f, g, o;
     * kernels/lstm_cell.h): on entry gates (B, 4H), row stride ldg, holds
     * the pre-activations x W_ih^T + b_ih + h_prev W_hh^T + b_hh; on return
     * the activations [sigmoid(i) | sigmoid(f) | tanh(g) | sigmoid(o)]
     * (kept for the backward). sigmoid(x) = 1 / (1 + expf(-x)), tanh = tanhf,
     * in float.
     * c_prev (B, H) row stride ldc, NULL for zeros (the first step);
     * c (B, H) row stride ldc: c = f * c_prev + i * g;
     * h (B, H) row stride ldh: h = o * tanh(c). */
    void (*lstm_cell_forward)(fc_backend *be, float *gates, size_t ldg, const float *c_prev, float *c, size_t ldc,
                              float *h, size_t ldh, size_t B, size_t H);
    /* Its backward: gates (activated, as the forward left them, stride ldg),
     * c_prev (NULL: zeros, as in the forward) and c (stride ldc);
     * dh (B, H) stride ldh: d loss / d h of this step (every path);
     * dc (B, H) stride lddc, never NULL: on entry d loss / d c from the next
     *   step (the caller fills it with zeros before the last step), on return
     *   d loss / d c_prev (in place);
     * dgates (B, 4H) stride lddg: d loss / d pre-activations (overwritten;
     *   may be gates itself, lddg == ldg: each point reads its gates first):
     *   tc = tanh(c); dct = dc + dh * o * (1 - tc^2);
     *   di = dct * g * i * (1 - i); df = dct * c_prev * f * (1 - f);
     *   dg = dct * i * (1 - g^2); do = dh * tc * o * (1 - o);
     *   dc_prev = dct * f. */
    void (*lstm_cell_backward)(fc_backend *be, float *dgates, size_t lddg, const float *gates, size_t ldg,
                               const float *c_prev, const float *c, size_t ldc, const float *dh, size_t ldh,
                               float *dc, size_t lddc, size_t B, size_t H);
    /* Layer norm over rows (torch.nn.LayerNorm(D), elementwise affine,
     * kernels/layer_norm.h): y (B, D) row stride ldy = (x - mean) * rstd *
     * gamma + beta per row of x (B, D) row stride ldx, mean and the biased
     * variance over the row's D values (in double), rstd = 1 / sqrt(var +
     * eps); mean and rstd (B) are saved as floats for the backward, and y is
     * computed from them. gamma, beta (D). y may be x (ldy == ldx). D > 0. */
    void (*layer_norm_forward)(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, const float *gamma,
                               const float *beta, float *mean, float *rstd, size_t B, size_t D, float eps);
    /* Its backward: dx (B, D) stride lddx overwritten (may be dy itself,
     * lddx == lddy) with rstd * (g - mean(g) - xhat * mean(g * xhat)),
     * g = dy * gamma, xhat = (x - mean) * rstd; dgamma (D) += sum over rows
     * of dy * xhat and dbeta (D) += sum over rows of dy, each column's rows
     * added in order (deterministic on every backend: no atomics). x is the
     * forward's input (stride ldx), mean and rstd (B) what it saved. */
    void (*layer_norm_backward)(fc_backend *be, float *dx, size_t lddx, const float *dy, size_t lddy, const float *x,
                                size_t ldx, const float *gamma, const float *mean, const float *rstd, float *dgamma,
                                float *dbeta, size_t B, size_t D);
    /* Inverted dropout (kernels/dropout.h): y (B, C) row stride ldy = x *
     * keep / (1 - p) in float, keep = u >= p with u the uniform
     * (fc_u32_to_unit_float of the first word of fc_rng_block) of seed,
     * stream FC_RNG_STREAM_DROPOUT, index offset + r * C + c for point
     * (r, c) of x (B, C) row stride ldx, as torch's dropout in training;
     * y may be x (ldy == ldx). The mask depends only on (seed, offset, r,
     * c): the backward is the same call on dy. p in [0, 1); p == 0 copies
     * (nothing when y == x). seed and offset are arguments, so a captured
     * graph replays the mask it captured. */
    void (*dropout)(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B, size_t C, float p,
                    uint64_t seed, uint64_t offset);
    /* GELU, exact (torch.nn.GELU(), approximate='none'; kernels/gelu.h):
     * y (n) = x * Phi(x), Phi(x) = (1 + erf(x / sqrt(2))) / 2. y may be x. */
    void (*gelu_forward)(fc_backend *be, float *y, const float *x, size_t n);
    /* Its backward: dx (n) = dy * (Phi(x) + x * phi(x)), phi the standard
     * normal density, x the forward's input; dx may be dy. */
    void (*gelu_backward)(fc_backend *be, float *dx, const float *dy, const float *x, size_t n);
    /* Multi-head scaled dot-product attention of PatchTST
     * (kernels/attention.h), for each of B sequences of P tokens and each of
     * H heads of width E: q, k, v, out are (B P, H E) (token rows, head h in
     * columns [h E, (h + 1) E)), row strides ldq (q, k and v: they may be
     * column blocks of one matrix) and ldo;
     *   scores (B, H, P, P) = q_h k_h^T * scale (+ prev (B, H, P, P) when prev
     *     is not NULL: neuralforecast's res_attention adds the previous
     *     layer's scores); written always (the next layer's prev);
     *   probs (B, H, P, P) = softmax of scores over the last axis (kept for
     *     the backward);
     *   out_h = dropout(probs) v_h, the dropout as the dropout entry above
     *     with p, seed and stream index offset + ((b H + h) P + i) P + j for
     *     probs[b, h, i, j] (p == 0: none).
     * prev may be scores itself (in place); out must not overlap q, k or v
     * (nor, in the backward, dq, dk, dv overlap q, k, v or dout). The scale
     * is a constant (neuralforecast's lsa=False: no gradient). One (sequence, head) is
     * independent of every other, so a fused GPU kernel can run one per
     * block with P x P in shared memory. */
    void (*attention_forward)(fc_backend *be, float *out, size_t ldo, float *scores, float *probs,
                              const float *prev, const float *q, const float *k, const float *v, size_t ldq,
                              size_t B, size_t P, size_t H, size_t E, float scale, float p, uint64_t seed,
                              uint64_t offset);
    /* Its backward, from probs (as the forward left them), q, k, v (stride
     * ldq) and dout (B P, H E) stride ldo: dq, dk, dv (B P, H E) stride lddq
     * overwritten; dscores (B, H, P, P), never NULL: on entry d loss /
     * d scores from the next layer (its prev; zeros when there is none), on
     * return d loss / d scores of this layer (the softmax's backward plus
     * what it held on entry), which is also d loss / d prev. Same dropout
     * arguments as the forward. */
    void (*attention_backward)(fc_backend *be, float *dq, float *dk, float *dv, size_t lddq, float *dscores,
                               const float *probs, const float *q, const float *k, const float *v, size_t ldq,
                               const float *dout, size_t ldo, size_t B, size_t P, size_t H, size_t E, float scale,
                               float p, uint64_t seed, uint64_t offset);
    /* Batch norm over the N rows of x (N, C) (torch.nn.BatchNorm1d(C) on a
     * (batch, C, length) input seen as (N = batch length) rows;
     * kernels/batch_norm.h). training: per column, mean and biased variance
     * over the N rows (double), saved as mean, rstd = 1 / sqrt(var + eps)
     * (C) for the backward, y = (x - mean) * rstd * gamma + beta; then
     * running_mean = (1 - momentum) running_mean + momentum mean and
     * running_var = (1 - momentum) running_var + momentum var N / (N - 1)
     * (unbiased), and *batches += 1 (a float counter; NULL: none). N >= 2.
     * Not training: y = (x - running_mean) / sqrt(running_var + eps) *
     * gamma + beta, mean and rstd untouched. y may be x. */
    void (*batch_norm_forward)(fc_backend *be, float *y, const float *x, size_t N, size_t C, const float *gamma,
                               const float *beta, float *running_mean, float *running_var, float *batches,
                               float *mean, float *rstd, int training, float momentum, float eps);
    /* Its backward in training mode: dx (N, C) overwritten (may be dy) with
     * rstd (g - mean(g) - xhat mean(g xhat)) per column, g = dy gamma,
     * xhat = (x - mean) rstd, means over the N rows; dgamma (C) += sum of
     * dy xhat, dbeta (C) += sum of dy, rows added in a fixed order. */
    void (*batch_norm_backward)(fc_backend *be, float *dx, const float *dy, const float *x, size_t N, size_t C,
                                const float *gamma, const float *mean, const float *rstd, float *dgamma,
                                float *dbeta);
    /* PatchTST's input (kernels/revin_patch.h): neuralforecast's RevIN
     * normalisation of each window of x (B, L) row stride ldx, then its
     * ReplicationPad1d((0, stride)) and unfold into P patches of length
     * patch_len at stride `stride`: patches (B, P, patch_len), patch j =
     * padded[j stride .. j stride + patch_len). With revin: center = x[L-1]
     * (subtract_last) or the mean, stdev = sqrt(biased var + eps) (double
     * sums), saved in stats (B, 2) as floats, z = (x - center) / stdev, then
     * z * affine[0] + affine[1] when affine is not NULL. Without: z = x,
     * stats (center 0, stdev 1). */
    void (*revin_patch_forward)(fc_backend *be, float *patches, float *stats, const float *x, size_t ldx, size_t B,
                                size_t L, size_t patch_len, size_t stride, size_t P, int revin, int subtract_last,
                                const float *affine, float eps);
    /* With affine: the input side's d affine: daffine[0] += sum of dpatches
     * * zhat and daffine[1] += sum of dpatches over (B, P, patch_len), zhat
     * the normalised value before the affine at that point (from x and
     * stats), in a fixed order. */
    void (*revin_patch_backward)(fc_backend *be, float *daffine, const float *dpatches, const float *stats,
                                 const float *x, size_t ldx, size_t B, size_t L, size_t patch_len, size_t stride,
                                 size_t P, const float *affine);
    /* RevIN's denormalisation of y (B, n) in place: y = ((y - affine[1]) /
     * (affine[0] + eps^2) when affine) * stdev + center, per window. */
    void (*revin_denorm_forward)(fc_backend *be, float *y, const float *stats, size_t B, size_t n,
                                 const float *affine, float eps);
    /* Its backward: dz (B, n) = dy * stdev / (affine[0] + eps^2 with affine,
     * else 1), dz may be dy; with affine, from y (the forward's output):
     * daffine[0] += -sum dy (y - center) / (affine[0] + eps^2) and
     * daffine[1] += -sum dy stdev / (affine[0] + eps^2), in a fixed order.
     * (From y, daffine[0] carries the rounding of y - center: about 2^-24
     * |center| / |y - center| relative, 6e-6 measured for a level 100 times
     * the spread; torch's, from the values before the denormalisation, does
     * not. Only models with revin_affine, not neuralforecast's default.) */
    void (*revin_denorm_backward)(fc_backend *be, float *dz, const float *dy, const float *y, const float *stats,
                                  size_t B, size_t n, const float *affine, float *daffine, float eps);

    /* ---- loss and optimizer ---- */
    /* Masked mean loss (kernels/loss.h) over the c->n points of a batch:
     * sum(mask * l) / sum(mask), and 0 (with a zero gradient) when
     * sum(mask) == 0, as neuralforecast's _weighted_mean; when grad is not
     * NULL, d loss / d yhat scaled by `grad_scale` into grad (n, n_q). The
     * loss stays in backend memory, for the caller to read once per step:
     * *d_loss (one double) becomes (first ? 0 : *d_loss) + loss / divisor,
     * the bits of a host's `sum += loss / divisor` from 0. Nothing waits for
     * the device, so a step's micro-batches run without a round trip to the
     * host. fc_backend_loss reads one loss back. */
    void (*masked_loss)(fc_backend *be, double *d_loss, int first, double divisor, float *grad, float grad_scale,
                        const fc_loss_call *c);
    /* One Adam step (PyTorch semantics, no weight decay) over n parameters. */
    void (*adam_step)(fc_backend *be, float *p, const float *g, float *m, float *v, size_t n,
                      float lr, float beta1, float beta2, float eps, int64_t step);
    /* The whole optimizer step without a host decision, so that a GPU can
     * replay a training step as one graph (kernels/optimizer_step.h): when
     * in->need_norm, the sum of squares of g (n) in sum_squares' order;
     * fc_step_decide on it into *out (skip when not finite, else the factor
     * that unscales and clips); and when applied, g scaled in place and
     * Adam on p, m, v with in->adam (fc_step_update). `in` and `out` are
     * backend memory: the caller writes *in before the step runs and reads
     * *out after; out->loss is not touched. */
    void (*optimizer_step)(fc_backend *be, float *p, float *g, float *m, float *v, size_t n,
                           const struct fc_step_in *in, struct fc_step_out *out);
    /* Sum of squares of x (n) into *out (host, double). */
    void (*sum_squares)(fc_backend *be, double *out, const float *x, size_t n);
    /* x (n) *= s. */
    void (*scale)(fc_backend *be, float *x, float s, size_t n);

    /* ---- graphs (optional: NULL where the backend has none, as on CPU) ---- */
    /* Records the calls made on this backend between capture_begin and
     * capture_end into *graph instead of running them (CUDA graphs), so a
     * sequence of launches repeated every step costs one launch. The calls
     * recorded must not read results on the host nor allocate. On failure
     * (a call that cannot be recorded) capture_end returns the error with
     * *graph NULL and the backend as before the capture: nothing ran, so
     * the caller runs the calls again itself. graph_launch replays a graph
     * on the same buffers; graph_free releases it. */
    fc_status (*capture_begin)(fc_backend *be);
    fc_status (*capture_end)(fc_backend *be, void **graph);
    fc_status (*graph_launch)(fc_backend *be, void *graph);
    void (*graph_free)(fc_backend *be, void *graph);

    /* ---- the GPUs of a job (optional: NULL on the CPU, whose ranks reduce over MPI) ---- */
    /* The ranks of a data-parallel job on GPUs average their gradients
     * with NCCL (dist/dist_grads.c, docs/distributed.md). The CUDA
     * library loads NCCL at the first group_id or group_join, so a run on
     * one GPU needs none. group_id writes a new group's id (*len bytes, at
     * most FC_GROUP_ID_MAX) on the rank that makes it; every rank then
     * joins with that id, sent to it over MPI, as `rank` of `ranks` (a
     * collective: it returns when all have joined). group_mean replaces x
     * (n floats on the device) with its mean over the group, queued on the
     * backend's queue behind the kernels that wrote x (and captured into a
     * step's graph with them). The group ends with the backend. */
    fc_status (*group_id)(fc_backend *be, void *id, size_t cap, size_t *len);
    fc_status (*group_join)(fc_backend *be, const void *id, size_t len, int rank, int ranks);
    fc_status (*group_mean)(fc_backend *be, float *x, size_t n);

    /* ---- training data on the device (optional: NULL where a backend has none) ---- */
    /* The training data kept by the backend, so that a step's windows are
     * gathered and scaled there (kernels/window_load.h) and the host only
     * draws them. data_upload copies the data of `host` (host pointers: the
     * dataset's doubles in y64, its mask and offsets) once, with room for
     * gathers of up to `cap` windows, `stages` * cap staged windows (a
     * step's micro-batches), and `work` floats of scaler scratch per window
     * of cap, and returns a handle in *data; everything it keeps on the
     * device comes from alloc (the run's arena). data_bytes is what it
     * would take, for the memory plan, *per_window of it per window of cap.
     *
     * A step is staged once and gathered per micro-batch, so that the
     * gathers can be replayed in a graph: data_stage copies windows w[0..n)
     * (a host array, n <= stages * cap; reusable once it returns) into the
     * backend's staged list, queued in order with the backend's other calls
     * (asynchronously on a GPU), and must be called outside a capture.
     * data_gather loads staged windows [first, first + n) (n <= cap) into
     * out's rows 0..n-1, unscaled, window k by fc_window_load_points; it
     * reads the staged list when it runs, so a replayed gather loads what
     * was staged last. data_scale then scales those n rows in place, row k
     * by fc_window_scale_row (with the handle's scratch): the two together
     * are fc_window_load.
     * data_release frees the handle and its buffers (NULL: nothing). */
    size_t (*data_bytes)(const fc_backend *be, const struct fc_window_data *host, size_t cap, size_t stages,
                         size_t work, size_t *per_window);
    fc_status (*data_upload)(fc_backend *be, const struct fc_window_data *host, size_t cap, size_t stages,
                             size_t work, void **data);
    fc_status (*data_stage)(fc_backend *be, void *data, const struct fc_window_pos *w, size_t n);
    fc_status (*data_gather)(fc_backend *be, void *data, size_t first, size_t n, const struct fc_window_batch *out);
    fc_status (*data_scale)(fc_backend *be, void *data, size_t n, const struct fc_window_batch *out);
    void (*data_release)(fc_backend *be, void *data);

    /* ---- quant (optional) ---- */
    /* NULL where a backend has none: the CPU leaves them NULL and src/quant
     * runs its own OpenMP loops on the host. Every pointer here is a host
     * pointer; the backend stages what it needs on its device and returns
     * once the results are in host memory. */
    /* Monte Carlo (quant/mc_options.c): chunk_sums (n_chunks = ceil(n_draws /
     * chunk_draws)), chunk c = the sums of the samples of draws
     * [c * chunk_draws, min((c + 1) * chunk_draws, n_draws)), each draw by
     * fc_mc_draw(spec, seed, draw) and added in draw order by fc_mc_sums_add,
     * as on the CPU. spec's arrays are host pointers. */
    fc_status (*mc_chunk_sums)(fc_backend *be, const struct fc_mc_spec *spec, uint64_t seed, uint64_t n_draws,
                               uint32_t chunk_draws, struct fc_mc_sums *chunk_sums);
    /* Indicators (quant/indicators.c): for every plan j and segment i,
     * fc_ind_segment_run(&plans[j], x + seg[i].begin, seg[i].len, out) with
     * out[k] = outs[j][k] + seg[i].begin; the rows of [row0, row0 + n_rows)
     * outside every segment get NaN in every output, and rows outside that
     * span are not touched. Rows are absolute: x and each outs[j][k] hold at
     * least row0 + n_rows values, and every segment lies in the span. */
    fc_status (*indicator_segments)(fc_backend *be, const struct fc_ind_plan *plans, size_t n_specs,
                                    const double *x, size_t row0, size_t n_rows, const struct fc_ind_seg *seg,
                                    size_t n_seg, double *const *const *outs);
};

/* The CPU backend with `threads` OpenMP threads (0: all cores). */
fc_status fc_backend_cpu_create(int threads, fc_backend **out);

/* The backend a device name asks for (--device): "auto" (or NULL), "cpu",
 * "cuda" or "cuda:N". cuda loads the CUDA backend library at run time
 * (backend_loader.c), so a machine without the CUDA runtime or driver runs
 * the CPU backend unchanged. "auto" tries a GPU and falls back to the CPU.
 * auto and cuda take GPU 0, or in an MPI job the GPU of the rank's local
 * rank modulo the GPUs it sees (core/local_rank.h: one rank per GPU;
 * the library's device argument is then -1 - local rank). On success, note
 * (note_cap bytes; may be NULL) holds one line for the log saying which
 * device runs and, for an auto fallback, why: "device: cpu (no GPU:
 * ...)". Errors: FC_ERR_INVALID for a name outside those forms;
 * FC_ERR_BACKEND when cuda was asked for and cannot run, the message
 * naming the check that failed. threads: CPU threads (0: all cores). */
fc_status fc_backend_create(const char *device, int threads, fc_backend **out, char *note, size_t note_cap);

/* A function fc_backend_destroy calls with every backend before it goes,
 * set by the layer that keeps state about backends (dist/: a GPU group's
 * backend), which the backend layer cannot include. One at a time. */
typedef void (*fc_backend_destroy_hook)(const fc_backend *be);
void fc_backend_set_destroy_hook(fc_backend_destroy_hook hook);

/* The device names fc_backend_create accepts, for messages and --help. */
#define FC_DEVICE_FORMS "auto | cpu | cuda | cuda:N"
typedef enum { FC_DEVICE_AUTO = 0, FC_DEVICE_CPU = 1, FC_DEVICE_CUDA = 2 } fc_device_kind;

/* Parses a device name (NULL: auto); *index is the GPU for cuda (0 for
 * "cuda"), else -1. FC_ERR_INVALID naming the accepted forms otherwise. */
fc_status fc_device_parse(const char *name, fc_device_kind *kind, int *index);

/* The contract of the CUDA backend library (libfcast-cuda.so, built
 * separately by nvcc). It is looked up, in order, at $FCAST_CUDA_BACKEND (a
 * path: an explicit choice wins, and tests use it), next to the running
 * binary, in ../lib beside it (an install), then on the library path. It
 * exports one C function, FC_CUDA_ENTRY_NAME, of type fc_cuda_entry:
 *
 *   fc_status fc_backend_cuda_create(int abi, int device, fc_error_fn report,
 *                                    fc_backend **out, char *why, size_t why_cap);
 *
 * abi is FC_BACKEND_ABI (the layout of struct fc_backend the caller was
 * built with); a library built against another layout must refuse it.
 * report is the caller's fc_error: the library has no error state of its
 * own, and every error it meets later (a failed launch, an allocation
 * beyond the arena) goes through report into the caller's message. On
 * success *out is a filled table whose destroy releases everything. On
 * failure it returns FC_ERR_BACKEND (FC_ERR_MEMORY when the device is out of
 * memory) with *out NULL and one line in why naming the check that failed:
 * no driver, no device, compute capability too old, out of memory. The
 * library is never unloaded: backends it made may live until the process
 * ends. */
#define FC_BACKEND_ABI 15
#define FC_CUDA_LIBRARY_NAME "libfcast-cuda.so"
#define FC_GROUP_ID_MAX 128   /* NCCL_UNIQUE_ID_BYTES */
#define FC_CUDA_ENTRY_NAME "fc_backend_cuda_create"
typedef fc_status (*fc_error_fn)(fc_status code, const char *fmt, ...);
typedef fc_status (*fc_cuda_entry)(int abi, int device, fc_error_fn report, fc_backend **out, char *why,
                                   size_t why_cap);

/* One masked loss read back to the host (*loss; NAN on a backend failure):
 * masked_loss into a backend double, then copied. For tests and one-off
 * evaluations; the trainer sums a step's losses on the backend.
 * fc_backend_masked_loss is the point loss `kind` (MAE, MSE) of n points. */
fc_status fc_backend_loss(fc_backend *be, double *loss, float *grad, float grad_scale, const fc_loss_call *c);
fc_status fc_backend_masked_loss(fc_backend *be, double *loss, float *grad, float grad_scale, const float *yhat,
                                 const float *y, const float *mask, size_t n, int kind);

/* Releases a backend created by any *_create; sets *be to NULL. */
void fc_backend_destroy(fc_backend **be);

#endif
