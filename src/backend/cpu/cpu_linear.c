/* The dense layer on CPU.
 *
 * Forward: y = act(x . w^T + b) as ONE oneDNN matmul with the bias and ReLU
 * fused as post-ops. Backward: one pass over dy applies the ReLU mask, sums
 * the bias gradient and (low precision) rounds dy for the products; then two
 * matmuls give the input gradient and accumulate the weight gradient
 * (through a sum post-op). Parameter gradients accumulate (+=).
 *
 * In bf16 the products read 2-byte copies (x_low, w_low, dy_low) through
 * oneDNN's or fcast's bf16 kernels; in fp16, and in bf16 on CPUs where no
 * bf16 kernel runs (fc_cpu_bf16_native), the copies are rounded values held
 * in fp32 (cpu_lowp.c) and the products are fp32 ones. Accumulation, outputs, the
 * bias and its gradient are fp32 in every precision. */
#include "backend/cpu/cpu_internal.h"
#include "core/error.h"
#include "kernels/activation.h"
#include "kernels/lowp.h"

/* Dimensions and precision of a call (its buffers aside). */
static fc_status check_shape(const char *what, const fc_linear_call *c) {
    if (c->B == 0 || c->I == 0 || c->O == 0)
        return fc_error(FC_ERR_INVALID, "%s: every dimension must be positive (B=%zu I=%zu O=%zu)",
                        what, c->B, c->I, c->O);
    if ((unsigned)c->prec >= FC_PREC_COUNT)
        return fc_error(FC_ERR_INVALID, "%s: unknown precision %d", what, (int)c->prec);
    return FC_OK;
}

static fc_status check_call(const char *what, const fc_linear_call *c) {
    FC_TRY(check_shape(what, c));
    if (c->act != FC_ACT_NONE && c->act != FC_ACT_RELU)
        return fc_error(FC_ERR_INVALID, "%s: unknown activation %d", what, (int)c->act);
    if (c->prec != FC_PREC_FP32 && (!c->x_low || !c->w_low))
        return fc_error(FC_ERR_INVALID, "%s: %s needs the low-precision copies x_low and w_low",
                        what, fc_precision_name(c->prec));
    return FC_OK;
}

static fc_mm_key key_of(fc_mm_kind kind, const fc_linear_call *c) {
    int fwd = kind == FC_MM_LINEAR_FORWARD;
    return (fc_mm_key){kind, (int64_t)c->B, (int64_t)c->I, (int64_t)c->O,
                       fwd ? (int)c->act : 0, fwd && c->b != NULL, fc_cpu_prec_is_bf16(c->prec)};
}

/* bf16 on fcast's own kernels (cpu_bf16_gemm.c) where they run. */
static int use_hand_bf16(const fc_linear_call *c) { return c->prec == FC_PREC_BF16 && fc_cpu_bf16_kernel(); }

/* The three products on those kernels, with the layouts of cpu_matmul.c's table. */
static fc_status hand_forward(fc_backend *be, const fc_linear_call *c) {
    fc_bf16_operand x = {c->x_low, c->I, 1}, wt = {c->w_low, 1, c->I};   /* w^T (I,O) */
    fc_bf16_output o = {.c = c->y, .ldc = c->O, .bias = c->b, .relu = c->act == FC_ACT_RELU};
    return fc_cpu_bf16_gemm(be, fc_cpu_bf16_kernel(), &x, &wt, c->B, c->O, c->I, &o);
}

/* dyT: dy^T (O,B) in the padded A layout, written by dy_prepare. */
static fc_status hand_backward(fc_backend *be, const fc_linear_call *c, const void *dy_low, const uint16_t *dyT,
                              float *dx, float *dw) {
    if (dx) {
        fc_bf16_operand g = {dy_low, c->O, 1}, w = {c->w_low, c->I, 1};
        fc_bf16_output o = {.c = dx, .ldc = c->I};
        FC_TRY(fc_cpu_bf16_gemm(be, fc_cpu_bf16_kernel(), &g, &w, c->B, c->I, c->O, &o));
    }
    fc_bf16_operand x = {c->x_low, c->I, 1};
    fc_bf16_output o = {.c = dw, .ldc = c->I, .accumulate = 1};
    return fc_cpu_bf16_gemm_packed(be, fc_cpu_bf16_kernel(), dyT, &x, c->O, c->I, c->B, &o);
}

fc_status fc_cpu_linear_forward(fc_backend *be, const fc_linear_call *c) {
    FC_TRY(check_call("linear_forward", c));
    fc_cpu_impl *impl = fc_cpu_impl_of(be);
    const void *x = c->x, *w = c->w;
    if (c->prec != FC_PREC_FP32) {
        fc_cpu_round_to(be, c->x_low, c->x, c->B * c->I, c->prec);
        if (use_hand_bf16(c)) return hand_forward(be, c);
        x = c->x_low;
        w = c->w_low;
    }
    fc_mm_key key = key_of(FC_MM_LINEAR_FORWARD, c);
    fc_mm_entry *e;
    fc_cpu_use_threads(be);
    FC_TRY(fc_cpu_matmul_get(impl, &key, &e));
    return fc_cpu_matmul_run(impl, e, x, w, c->b, c->y);
}

/* Columns per task of the fused pass: a task owns a (B, 64) strip of dy and
 * walks it row by row (one 256-byte span per row, friendly to the
 * prefetcher); each column is summed in row order in double, so the bias
 * gradient is the same for ANY thread count. */
#define FC_DY_STRIP 64

/* Where the hand-written bf16 path wants dy^T written (rows of ld), or p NULL. */
typedef struct {
    uint16_t *p;
    size_t ld;
} dy_transposed;

/* Rows of the strip handled together, so dy^T is written a full 64-byte
 * line (32 bf16 values along B) at a time. */
#define FC_DY_ROWS 32

/* dy^T (strip columns, rows r0..r0+n) from the rounded rows in lo. */
static void write_transposed(dy_transposed t, const uint16_t *lo, size_t ldlo, size_t o0, size_t width,
                             size_t r0, size_t n) {
    for (size_t j = 0; j < width; j++) {
        uint16_t *dst = t.p + (o0 + j) * t.ld + r0;
        for (size_t rr = 0; rr < n; rr++) dst[rr] = lo[rr * ldlo + j];
    }
}

static void dy_strip(const fc_linear_call *c, float *dy, void *dy_low, dy_transposed t, float *db, size_t o0,
                     size_t width) {
    size_t O = c->O;
    int relu = c->act == FC_ACT_RELU, two_bytes = fc_cpu_prec_is_bf16(c->prec);
    double acc[FC_DY_STRIP] = {0};
    for (size_t r0 = 0; r0 < c->B; r0 += FC_DY_ROWS) {
        size_t n = c->B - r0 < FC_DY_ROWS ? c->B - r0 : FC_DY_ROWS;
        for (size_t r = r0; r < r0 + n; r++) {
            float *g = dy + r * O + o0;
            if (relu) {   /* y is read only here: without an activation it may be NULL */
                const float *y = c->y + r * O + o0;
                for (size_t j = 0; j < width; j++) g[j] = fc_relu_backward(g[j], y[j]);
            }
            for (size_t j = 0; j < width; j++) acc[j] += g[j];
            if (two_bytes) {
                uint16_t *lo = (uint16_t *)dy_low + r * O + o0;
                for (size_t j = 0; j < width; j++) lo[j] = fc_bf16_from_f32(g[j]);
            } else if (c->prec == FC_PREC_BF16) {   /* carried in fp32 */
                float *lo = (float *)dy_low + r * O + o0;
                for (size_t j = 0; j < width; j++) lo[j] = fc_round_bf16(g[j]);
            } else if (c->prec == FC_PREC_FP16) {
                fc_cpu_round_f16_span((float *)dy_low + r * O + o0, g, width);
            }
        }
        if (t.p) write_transposed(t, (const uint16_t *)dy_low + r0 * O + o0, O, o0, width, r0, n);
    }
    if (db)
        for (size_t j = 0; j < width; j++) db[o0 + j] += (float)acc[j];
}

/* ReLU mask, bias gradient and rounding of dy in one pass. */
static void dy_prepare(fc_backend *be, const fc_linear_call *c, float *dy, void *dy_low, dy_transposed t,
                       float *db) {
    size_t strips = (c->O + FC_DY_STRIP - 1) / FC_DY_STRIP;
    if (c->act != FC_ACT_RELU && !db && c->prec == FC_PREC_FP32) return;
#pragma omp parallel for if (c->B * c->O >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t s = 0; s < strips; s++) {
        size_t o0 = s * FC_DY_STRIP;
        dy_strip(c, dy, dy_low, t, db, o0, c->O - o0 < FC_DY_STRIP ? c->O - o0 : FC_DY_STRIP);
    }
}

fc_status fc_cpu_linear_backward(fc_backend *be, const fc_linear_call *c, float *dy, void *dy_low,
                                 float *dx, float *dw, float *db) {
    FC_TRY(check_call("linear_backward", c));
    if (c->prec != FC_PREC_FP32 && !dy_low)
        return fc_error(FC_ERR_INVALID, "linear_backward: %s needs the dy_low buffer",
                        fc_precision_name(c->prec));
    fc_cpu_impl *impl = fc_cpu_impl_of(be);
    dy_transposed t = {NULL, 0};
    if (use_hand_bf16(c)) FC_TRY(fc_cpu_bf16_transposed_block(be, c->O, c->B, &t.p, &t.ld));
    dy_prepare(be, c, dy, dy_low, t, db);
    if (t.p) {
        fc_cpu_bf16_pad_block(t.p, c->O, c->B);
        return hand_backward(be, c, dy_low, t.p, dx, dw);
    }
    int low = c->prec != FC_PREC_FP32;
    const void *g = low ? dy_low : dy, *x = low ? c->x_low : c->x, *w = low ? c->w_low : c->w;
    fc_mm_entry *e;
    fc_cpu_use_threads(be);
    if (dx) {
        fc_mm_key key = key_of(FC_MM_LINEAR_GRAD_INPUT, c);
        FC_TRY(fc_cpu_matmul_get(impl, &key, &e));
        FC_TRY(fc_cpu_matmul_run(impl, e, g, w, NULL, dx));
    }
    fc_mm_key key = key_of(FC_MM_LINEAR_GRAD_WEIGHT, c);
    FC_TRY(fc_cpu_matmul_get(impl, &key, &e));
    return fc_cpu_matmul_run(impl, e, g, x, NULL, dw);
}

/* What the layer's products will ask for: the hand-written kernels' blocks, or the largest
 * scratchpad of its three oneDNN primitives (built and cached here). */
fc_status fc_cpu_linear_workspace(fc_backend *be, const fc_linear_call *c, size_t ws[FC_WS_SLOTS]) {
    FC_TRY(check_shape("linear_workspace", c));
    for (int i = 0; i < FC_WS_SLOTS; i++) ws[i] = 0;
    if (use_hand_bf16(c)) {
        fc_cpu_bf16_workspace(c->B, c->I, c->O, ws + 1);
        return FC_OK;
    }
    fc_mm_kind kinds[3] = {FC_MM_LINEAR_FORWARD, FC_MM_LINEAR_GRAD_INPUT, FC_MM_LINEAR_GRAD_WEIGHT};
    fc_cpu_use_threads(be);   /* oneDNN sizes what it builds (kernels, scratchpad) for the thread count */
    for (int k = 0; k < 3; k++) {
        fc_mm_key key = key_of(kinds[k], c);
        fc_mm_entry *e;
        FC_TRY(fc_cpu_matmul_get(fc_cpu_impl_of(be), &key, &e));
        if (e->scratch_bytes > ws[0]) ws[0] = e->scratch_bytes;
    }
    return FC_OK;
}
