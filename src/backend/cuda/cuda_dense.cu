/* The dense layers of the CUDA backend on cuBLASLt (contracts in backend.h;
 * semantics as cpu/cpu_linear.c, which the CPU tests pin down).
 *
 * Layout: the transpose trick of cuda_dense_plan.h. Row-major operands are
 * read as their column-major transposes, so each product is one
 * cublasLtMatmul on the caller's buffers, with no copy and no row-order
 * layout.
 *
 * Forward: y = act(x . w^T + b) as ONE matmul, bias and ReLU fused with the
 * RELU_BIAS / BIAS / RELU epilogues. Not RELU_AUX_BIAS: its bit-mask
 * would need a buffer per layer call kept from forward to backward, and
 * the table has no place for one (the workspace slots are shared by all
 * layers and the next layer overwrites them). It is not needed either:
 * y = relu(z) is > 0 exactly where z > 0, so y is the mask. The backward
 * reads it from y, as the CPU backend and torch's threshold_backward do.
 *
 * Backward: ONE kernel pass over dy applies that mask, writes dy back,
 * rounds it into dy_low (bf16 / fp16) and sums its columns per chunk of
 * rows (a tiny second kernel adds the chunks into db, in chunk order).
 * Then two matmuls give dx = dy . w and dw += dy^T . x (beta = 1). The
 * cuBLASLt epilogues cannot do that pass under this contract:
 *  - DRELU / DRELU_BGRAD read the aux bit-mask (see above). They also mask
 *    the OUTPUT of their product, which for the dx product is the previous
 *    layer's gradient. The contract wants dx unmasked, and each layer owns
 *    its own mask.
 *  - BGRADB on the dw product sums its B operand, which in bf16 / fp16 is
 *    the ROUNDED dy_low, while the contract (and the CPU) sums the fp32
 *    gradient. It also WRITES the bias gradient where db must accumulate
 *    (+=, gradient accumulation over micro-batches), which would cost a
 *    scratch vector and another kernel to add it.
 * The pass must read and write dy anyway (mask and rounding), so the column
 * sums ride along for free. Only in fp32 without ReLU does it read dy just
 * for db, which costs B*O floats of reading next to two products.
 *
 * Determinism (the same seed on the same GPU gives a byte-identical model):
 * cuBLAS guarantees bit-wise identical results run to run for one toolkit
 * version, GPU architecture and SM count, on one stream, and names
 * cublasLtMatmul with a user-owned workspace as the way to keep it
 * (cuBLAS guide, "Results Reproducibility",
 * https://docs.nvidia.com/cuda/cublas/#results-reproducibility). Every
 * product here runs on impl->stream with our own workspace. The algorithm
 * of each shape is chosen once by the heuristic and cached, so it never
 * changes within a run. Split-K is limited with
 * CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK to the schemes that keep
 * partial sums in the workspace and add them in a separate fixed-order
 * step (COMPUTE_TYPE, OUTPUT_TYPE), or to no split at all (NONE, value 0,
 * which any mask admits). cublasLt.h (CUDA 13.1, cublasLtReductionScheme_t)
 * describes INPLACE as adding the partials into D itself, ordered by
 * counters in the workspace. That order comes from a run-time protocol and
 * not from the kernel's structure, so INPLACE is excluded. If a GPU ever
 * shows run-to-run differences, the strictest setting is a mask of
 * CUBLASLT_REDUCTION_SCHEME_NONE alone (no split-K). No documented scheme
 * uses floating-point atomics. Our own reduction (db) adds in a fixed
 * order, in double.
 *
 * Workspace: one cuBLASLt workspace in slot FC_LT_WS_SLOT, of
 * fc_lt_workspace_bytes(cc) (32 MiB on Hopper, 4 MiB before). It is
 * allocated ONCE at init with cudaMalloc, outside any run's arena, and
 * freed with the backend. The reasons: it lives as long as the backend,
 * across runs, while arena_close requires every arena buffer to be
 * released; memory_plan.c counts the workspace as its own item, not in the
 * arena; and allocating at init means the step loop never allocates (nor
 * does a CUDA graph capture meet a cudaMalloc). linear_workspace reports
 * its size so the plan counts it. Slot FC_DY_PARTIALS_SLOT holds the
 * backward's per-chunk column sums (a few hundred KB), allocated at the
 * first backward of the largest layer, before any capture. */
#include <cublasLt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_internal.h"
#include "kernels/activation.h"
#include "kernels/lowp.h"
#include "kernels/rows.h"

extern "C" {
#include "backend/cuda_dense_plan.h"
}

#define FC_LT_WS_SLOT 0      /* impl->ws slot of the cuBLASLt workspace */
#define FC_LT_CACHE 256      /* cached products: a model has a few dozen; past that, round-robin reuse */

/* Split-K only with a separate, fixed-order reduction (see the top). */
#define FC_LT_DETERMINISTIC_SCHEMES \
    ((uint32_t)CUBLASLT_REDUCTION_SCHEME_MASK & ~(uint32_t)CUBLASLT_REDUCTION_SCHEME_INPLACE)

/* One cached product: its descriptors and the algorithm the heuristic chose. */
typedef struct {
    fc_lt_problem key;
    cublasLtMatmulDesc_t desc;        /* NULL: slot empty */
    cublasLtMatrixLayout_t a, b, c;   /* c describes both C and D (in place for dw) */
    cublasLtMatmulAlgo_t algo;
} lt_entry;

struct fc_cuda_dense {
    cublasLtHandle_t lt;
    lt_entry entries[FC_LT_CACHE];
    int n;        /* slots filled so far */
    int victim;   /* next slot reused once all are filled */
};

/* The buffers of one product: cuBLASLt's A and B, C = D, the bias. */
typedef struct {
    const void *a, *b;
    float *d;
    const float *bias;
    float alpha, beta;
} lt_operands;

/* ---- errors ---- */

/* A cuBLASLt status, or an error naming the call and the product (p may be NULL). */
static fc_status lt_check(cublasStatus_t st, const char *call, const fc_lt_problem *p) {
    if (st == CUBLAS_STATUS_SUCCESS) return FC_OK;
    char what[320] = "cuBLASLt handle";
    if (p) fc_lt_describe(p, what, sizeof what);
    return fc_error(st == CUBLAS_STATUS_ALLOC_FAILED ? FC_ERR_MEMORY : FC_ERR_BACKEND,
                    "cuBLASLt: %s failed: %s (%s) for the %s", call, cublasLtGetStatusString(st),
                    cublasLtGetStatusName(st), what);
}

/* ---- descriptors and algorithm choice ---- */

static int has_bias(int64_t epilogue) { return epilogue == FC_LT_EPI_BIAS || epilogue == FC_LT_EPI_RELU_BIAS; }

static cudaDataType_t input_type(int64_t prec) {
    return prec == FC_PREC_BF16 ? CUDA_R_16BF : prec == FC_PREC_FP16 ? CUDA_R_16F : CUDA_R_32F;
}

static cublasLtEpilogue_t lt_epilogue(int64_t e) {
    switch (e) {
    case FC_LT_EPI_BIAS: return CUBLASLT_EPILOGUE_BIAS;
    case FC_LT_EPI_RELU: return CUBLASLT_EPILOGUE_RELU;
    case FC_LT_EPI_RELU_BIAS: return CUBLASLT_EPILOGUE_RELU_BIAS;
    default: return CUBLASLT_EPILOGUE_DEFAULT;
    }
}

/* Destroys e's descriptors (all of them, whatever fails) and empties the slot. */
static fc_status entry_release(lt_entry *e) {
    const fc_lt_problem *p = &e->key;
    cublasStatus_t st[4] = {CUBLAS_STATUS_SUCCESS, CUBLAS_STATUS_SUCCESS, CUBLAS_STATUS_SUCCESS,
                            CUBLAS_STATUS_SUCCESS};
    if (e->a) st[0] = cublasLtMatrixLayoutDestroy(e->a);
    if (e->b) st[1] = cublasLtMatrixLayoutDestroy(e->b);
    if (e->c) st[2] = cublasLtMatrixLayoutDestroy(e->c);
    if (e->desc) st[3] = cublasLtMatmulDescDestroy(e->desc);
    fc_status out = FC_OK;
    for (int i = 0; i < 4 && out == FC_OK; i++)
        out = lt_check(st[i], i < 3 ? "cublasLtMatrixLayoutDestroy" : "cublasLtMatmulDescDestroy", p);
    memset(e, 0, sizeof *e);
    return out;
}

static fc_status set_bias_pointer(lt_entry *e, const float *bias) {
    return lt_check(cublasLtMatmulDescSetAttribute(e->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias),
                    "cublasLtMatmulDescSetAttribute(BIAS_POINTER)", &e->key);
}

/* Compute type, transposes and epilogue; C and D are fp32, A and B the precision's type. */
static fc_status entry_describe(lt_entry *e) {
    const fc_lt_problem *p = &e->key;
    cublasComputeType_t compute = p->tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    int32_t ta = p->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, tb = p->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    uint32_t epi = (uint32_t)lt_epilogue(p->epilogue);
    uint64_t ar, ac, br, bc;
    fc_lt_shape_a(p, &ar, &ac);
    fc_lt_shape_b(p, &br, &bc);
    FC_TRY(lt_check(cublasLtMatmulDescCreate(&e->desc, compute, CUDA_R_32F), "cublasLtMatmulDescCreate", p));
    FC_TRY(lt_check(cublasLtMatmulDescSetAttribute(e->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta),
                    "cublasLtMatmulDescSetAttribute(TRANSA)", p));
    FC_TRY(lt_check(cublasLtMatmulDescSetAttribute(e->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb),
                    "cublasLtMatmulDescSetAttribute(TRANSB)", p));
    FC_TRY(lt_check(cublasLtMatmulDescSetAttribute(e->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi),
                    "cublasLtMatmulDescSetAttribute(EPILOGUE)", p));
    cudaDataType_t in = input_type(p->prec);
    FC_TRY(lt_check(cublasLtMatrixLayoutCreate(&e->a, in, ar, ac, p->lda), "cublasLtMatrixLayoutCreate(A)", p));
    FC_TRY(lt_check(cublasLtMatrixLayoutCreate(&e->b, in, br, bc, p->ldb), "cublasLtMatrixLayoutCreate(B)", p));
    return lt_check(cublasLtMatrixLayoutCreate(&e->c, CUDA_R_32F, (uint64_t)p->m, (uint64_t)p->n, p->ldc),
                    "cublasLtMatrixLayoutCreate(C/D)", p);
}

/* The heuristic may pick only algorithms that fit our workspace, reduce in
 * a fixed order, and accept operands aligned to p->align bytes. */
static fc_status preference_set(cublasLtMatmulPreference_t pref, const fc_cuda_impl *impl, const fc_lt_problem *p) {
    uint64_t ws = impl->ws_bytes[FC_LT_WS_SLOT];
    uint32_t schemes = FC_LT_DETERMINISTIC_SCHEMES, align = (uint32_t)p->align;
    const struct {
        cublasLtMatmulPreferenceAttributes_t attr;
        const void *value;
        size_t size;
        const char *name;
    } set[] = {
        {CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws, "MAX_WORKSPACE_BYTES"},
        {CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &schemes, sizeof schemes, "REDUCTION_SCHEME_MASK"},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align, sizeof align, "MIN_ALIGNMENT_A_BYTES"},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align, sizeof align, "MIN_ALIGNMENT_B_BYTES"},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align, sizeof align, "MIN_ALIGNMENT_C_BYTES"},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align, sizeof align, "MIN_ALIGNMENT_D_BYTES"},
    };
    for (size_t i = 0; i < sizeof set / sizeof *set; i++)
        FC_TRY(lt_check(cublasLtMatmulPreferenceSetAttribute(pref, set[i].attr, set[i].value, set[i].size),
                        set[i].name, p));
    return FC_OK;
}

/* A bias address aligned to exactly `align` bytes (a power of two up to
 * FC_LT_MAX_ALIGN), inside the 256-aligned workspace. The heuristic reads
 * the bias pointer's alignment from the descriptor, so the choice is made
 * with this stand-in: an entry then suits every call of its key, whatever
 * the first caller's bias happened to be aligned to. Never dereferenced. */
static const float *bias_stand_in(const fc_cuda_impl *impl, int64_t align) {
    return (const float *)((const char *)impl->ws[FC_LT_WS_SLOT] + (align < FC_LT_MAX_ALIGN ? align : 0));
}

/* The heuristic's best algorithm for e. */
static fc_status entry_choose(fc_cuda_impl *impl, lt_entry *e) {
    const fc_lt_problem *p = &e->key;
    if (has_bias(p->epilogue)) FC_TRY(set_bias_pointer(e, bias_stand_in(impl, p->align)));
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t r;
    int found = 0;
    memset(&r, 0, sizeof r);
    fc_status st = lt_check(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate", p);
    if (st == FC_OK) st = preference_set(pref, impl, p);
    if (st == FC_OK)
        st = lt_check(cublasLtMatmulAlgoGetHeuristic(impl->dense->lt, e->desc, e->a, e->b, e->c, e->c, pref, 1, &r,
                                                     &found),
                      "cublasLtMatmulAlgoGetHeuristic", p);
    if (pref) {
        cublasStatus_t gone = cublasLtMatmulPreferenceDestroy(pref);
        if (st == FC_OK) st = lt_check(gone, "cublasLtMatmulPreferenceDestroy", p);   /* else keep the first error */
    }
    FC_TRY(st);
    if (found < 1 || r.state != CUBLAS_STATUS_SUCCESS) {
        char what[320];
        fc_lt_describe(p, what, sizeof what);
        return fc_error(FC_ERR_BACKEND, "cuBLASLt has no algorithm for the %s within %zu bytes of workspace and "
                        "with a deterministic reduction", what, impl->ws_bytes[FC_LT_WS_SLOT]);
    }
    e->algo = r.algo;
    return FC_OK;
}

/* The cached entry of p, built on first use. A failed build leaves its slot empty. */
static fc_status lt_get(fc_cuda_impl *impl, const fc_lt_problem *p, lt_entry **out) {
    fc_cuda_dense *d = impl->dense;
    for (int i = 0; i < d->n; i++) {
        if (d->entries[i].desc && fc_lt_same(&d->entries[i].key, p)) {
            *out = &d->entries[i];
            return FC_OK;
        }
    }
    int full = d->n == FC_LT_CACHE;
    lt_entry *e = &d->entries[full ? d->victim : d->n];
    FC_TRY(entry_release(e));
    e->key = *p;
    fc_status st = entry_describe(e);
    if (st == FC_OK) st = entry_choose(impl, e);
    if (st != FC_OK) {
        (void)entry_release(e);   /* the first error is the one to report */
        return st;
    }
    if (full)
        d->victim = (d->victim + 1) % FC_LT_CACHE;
    else
        d->n++;
    *out = e;
    return FC_OK;
}

/* ---- running a product ---- */

/* The alignment every operand of this call has: part of the cache key, so
 * an algorithm is only ever run on addresses it was chosen for. Buffers
 * sit at the same arena offsets run after run (and the arena's base is
 * aligned past FC_LT_MAX_ALIGN), so the choice is the same too. */
static int64_t operands_alignment(const fc_lt_problem *p, const lt_operands *o) {
    int64_t al = fc_lt_alignment(o->a), bl = fc_lt_alignment(o->b), dl = fc_lt_alignment(o->d);
    int64_t m = al < bl ? al : bl;
    m = dl < m ? dl : m;
    if (has_bias(p->epilogue)) {
        int64_t bias = fc_lt_alignment(o->bias);
        m = bias < m ? bias : m;
    }
    return m;
}

static fc_status lt_run(fc_backend *be, fc_lt_problem p, const lt_operands *o) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    lt_entry *e;
    p.align = operands_alignment(&p, o);
    FC_TRY(lt_get(impl, &p, &e));
    if (has_bias(p.epilogue)) FC_TRY(set_bias_pointer(e, o->bias));
    return lt_check(cublasLtMatmul(impl->dense->lt, e->desc, &o->alpha, o->a, e->a, o->b, e->b, &o->beta, o->d, e->c,
                                   o->d, e->c, &e->algo, impl->ws[FC_LT_WS_SLOT], impl->ws_bytes[FC_LT_WS_SLOT],
                                   impl->stream),
                    "cublasLtMatmul", &p);
}

/* ---- kernels ---- */

static __global__ void round_kernel(uint16_t *dst, const float *src, size_t n, int bf16) {
    for (size_t i = fc_first_index(); i < n; i += fc_grid_stride())
        dst[i] = bf16 ? fc_bf16_from_f32(src[i]) : fc_f16_from_f32(src[i]);
}

/* The backward pass over dy. Block (x, y) owns strips of FC_DY_COLS
 * columns (a warp reads 128 contiguous bytes of a row) of the rows of chunk
 * y (fc_dy_split_of). Its FC_DY_ROWS row lanes each sum every FC_DY_ROWS-th
 * row of the chunk in double, lane 0 adds the lanes in lane order into the
 * chunk's partial, and db_add_kernel adds the chunks in chunk order. Every
 * order depends on B alone, so db is the same bits every run. */
#define FC_DY_COLS 32
#define FC_DY_ROWS 16
#define FC_DY_PARTIALS_SLOT 1   /* impl->ws slot of the chunks' column sums */

static __global__ void dy_prepare_kernel(float *dy, const float *y, uint16_t *low, int bf16, double *partials,
                                         size_t B, size_t O, size_t chunk_rows) {
    __shared__ double lane_sum[FC_DY_ROWS][FC_DY_COLS];
    size_t strips = (O + FC_DY_COLS - 1) / FC_DY_COLS;
    size_t r0 = blockIdx.y * chunk_rows, r1 = r0 + chunk_rows < B ? r0 + chunk_rows : B;
    for (size_t s = blockIdx.x; s < strips; s += gridDim.x) {   /* uniform per block: safe around __syncthreads */
        size_t j = s * FC_DY_COLS + threadIdx.x;
        double acc = 0.0;
        for (size_t r = r0 + threadIdx.y; j < O && r < r1; r += FC_DY_ROWS) {
            size_t at = r * O + j;
            float g = dy[at];
            if (y) dy[at] = g = fc_relu_backward(g, y[at]);
            if (low) low[at] = bf16 ? fc_bf16_from_f32(g) : fc_f16_from_f32(g);
            acc += (double)g;
        }
        lane_sum[threadIdx.y][threadIdx.x] = acc;
        __syncthreads();
        if (partials && threadIdx.y == 0 && j < O) {
            double sum = 0.0;
            for (int q = 0; q < FC_DY_ROWS; q++) sum += lane_sum[q][threadIdx.x];
            partials[blockIdx.y * O + j] = sum;
        }
        __syncthreads();   /* lane_sum is reused by the next strip */
    }
}

/* db[j] += the chunks' sums of column j, in chunk order. */
static __global__ void db_add_kernel(float *db, const double *partials, size_t chunks, size_t O) {
    for (size_t j = fc_first_index(); j < O; j += fc_grid_stride()) {
        double sum = 0.0;
        for (size_t c = 0; c < chunks; c++) sum += partials[c * O + j];
        db[j] += (float)sum;
    }
}

/* C (M,N) = beta * C, rows of ldc: gemm with K == 0 (no product to run). */
static __global__ void scale_block_kernel(float *C, size_t ldc, size_t M, size_t N, float beta) {
    size_t n = M * N;
    for (size_t i = fc_first_index(); i < n; i += fc_grid_stride()) {
        float *c = C + (i / N) * ldc + i % N;
        *c = fc_axpby(0.0f, 0.0f, beta, *c);
    }
}

static fc_status round_into(fc_backend *be, void *dst, const float *src, size_t n, fc_precision prec) {
    if (prec != FC_PREC_BF16 && prec != FC_PREC_FP16)
        return fc_error(FC_ERR_INVALID, "round_to: precision %d is not bf16 or fp16", (int)prec);
    fc_launch l = fc_cuda_grid(n);
    if (l.grid == 0) return FC_OK;
    round_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>((uint16_t *)dst, src, n,
                                                                        prec == FC_PREC_BF16);
    return FC_CUDA_LAUNCHED("round_kernel");
}

/* Room for the chunks' column sums of a B x O layer. Grown on the first
 * backward of the largest layer, which the warm-up steps run before any
 * graph capture (an allocation cannot be captured); never shrunk. */
static fc_status partials_room(fc_cuda_impl *impl, size_t bytes) {
    if (impl->ws_bytes[FC_DY_PARTIALS_SLOT] >= bytes) return FC_OK;
    if (impl->ws[FC_DY_PARTIALS_SLOT]) FC_TRY(FC_CUDA(cudaFree(impl->ws[FC_DY_PARTIALS_SLOT])));
    impl->ws[FC_DY_PARTIALS_SLOT] = NULL;
    impl->ws_bytes[FC_DY_PARTIALS_SLOT] = 0;
    fc_status st = FC_CUDA(cudaMalloc(&impl->ws[FC_DY_PARTIALS_SLOT], bytes));
    if (st != FC_OK) {
        cudaGetLastError();   /* not sticky */
        impl->ws[FC_DY_PARTIALS_SLOT] = NULL;
        return st;
    }
    impl->ws_bytes[FC_DY_PARTIALS_SLOT] = bytes;
    return FC_OK;
}

/* Mask, rounding and bias gradient in one pass over dy (then the chunks'
 * sums into db); nothing to do without any of them. */
static fc_status dy_prepare(fc_backend *be, const fc_linear_call *c, float *dy, void *dy_low, float *db) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    int relu = c->act == FC_ACT_RELU, low = c->prec != FC_PREC_FP32;
    if (!relu && !db && !low) return FC_OK;
    fc_dy_split split = fc_dy_split_of(c->B);
    if (db) FC_TRY(partials_room(impl, fc_dy_partials_bytes(c->B, c->O)));
    double *partials = db ? (double *)impl->ws[FC_DY_PARTIALS_SLOT] : NULL;
    fc_launch strips = fc_launch_1d(c->O, FC_DY_COLS, FC_LAUNCH_MAX_GRID);
    dim3 grid(strips.grid, (unsigned)split.chunks), block(FC_DY_COLS, FC_DY_ROWS);
    dy_prepare_kernel<<<grid, block, 0, fc_cuda_stream(be)>>>(dy, relu ? c->y : NULL,
                                                              low ? (uint16_t *)dy_low : NULL,
                                                              c->prec == FC_PREC_BF16, partials, c->B, c->O,
                                                              split.rows);
    FC_TRY(FC_CUDA_LAUNCHED("dy_prepare_kernel"));
    if (!db) return FC_OK;
    fc_launch l = fc_cuda_grid(c->O);
    db_add_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(db, partials, split.chunks, c->O);
    return FC_CUDA_LAUNCHED("db_add_kernel");
}

/* ---- checks (as the CPU backend's) ---- */

static fc_status check_shape(const char *what, const fc_linear_call *c) {
    if (c->B == 0 || c->I == 0 || c->O == 0)
        return fc_error(FC_ERR_INVALID, "%s: every dimension must be positive (B=%zu I=%zu O=%zu)", what, c->B, c->I,
                        c->O);
    if ((unsigned)c->prec >= FC_PREC_COUNT)
        return fc_error(FC_ERR_INVALID, "%s: unknown precision %d", what, (int)c->prec);
    if (c->act != FC_ACT_NONE && c->act != FC_ACT_RELU)
        return fc_error(FC_ERR_INVALID, "%s: unknown activation %d", what, (int)c->act);
    return FC_OK;
}

static fc_status check_call(const char *what, const fc_linear_call *c) {
    FC_TRY(check_shape(what, c));
    if (c->prec != FC_PREC_FP32 && (!c->x_low || !c->w_low))
        return fc_error(FC_ERR_INVALID, "%s: %s needs the low-precision copies x_low and w_low", what,
                        c->prec == FC_PREC_BF16 ? "bf16" : "fp16");
    return FC_OK;
}

static fc_status check_backward(const fc_linear_call *c, const float *dy, const void *dy_low, const float *dw) {
    if (!dy || !dw) return fc_error(FC_ERR_INVALID, "linear_backward: dy and dw are required");
    if (c->prec != FC_PREC_FP32 && !dy_low)
        return fc_error(FC_ERR_INVALID, "linear_backward: %s needs the dy_low buffer",
                        c->prec == FC_PREC_BF16 ? "bf16" : "fp16");
    if (c->act == FC_ACT_RELU && !c->y)
        return fc_error(FC_ERR_INVALID, "linear_backward: ReLU needs the forward output y for its mask");
    return FC_OK;
}

/* Row-major op(A) is M x K, op(B) K x N: a leading dimension covers its stored width. */
static fc_status gemm_check(int trans_a, int trans_b, size_t M, size_t N, size_t K, size_t lda, size_t ldb,
                            size_t ldc) {
    size_t a_width = trans_a ? M : K, b_width = trans_b ? K : N;
    if (lda < (a_width ? a_width : 1))
        return fc_error(FC_ERR_INVALID, "gemm: lda = %zu is smaller than A's stored width %zu", lda, a_width);
    if (ldb < (b_width ? b_width : 1))
        return fc_error(FC_ERR_INVALID, "gemm: ldb = %zu is smaller than B's stored width %zu", ldb, b_width);
    if (ldc < (N ? N : 1)) return fc_error(FC_ERR_INVALID, "gemm: ldc = %zu is smaller than N = %zu", ldc, N);
    return FC_OK;
}

/* ---- the table's entries ---- */

static fc_lt_problem layer_problem(const fc_backend *be, fc_lt_kind kind, const fc_linear_call *c) {
    fc_lt_problem p = fc_lt_linear_problem(kind, c->B, c->I, c->O);
    p.prec = c->prec;
    p.tf32 = c->prec == FC_PREC_FP32 && be->tf32;   /* TF32 is an fp32 option only */
    if (kind == FC_LT_LINEAR_FORWARD) p.epilogue = fc_lt_forward_epilogue(c->act, c->b != NULL);
    return p;
}

void fc_cuda_round_to(fc_backend *be, void *dst, const float *src, size_t n, fc_precision prec) {
    fc_cuda_note_failure(be, round_into(be, dst, src, n, prec));
}

fc_status fc_cuda_linear_forward(fc_backend *be, const fc_linear_call *c) {
    FC_TRY(fc_cuda_failure(be));
    FC_TRY(check_call("linear_forward", c));
    int low = c->prec != FC_PREC_FP32;
    if (low) FC_TRY(round_into(be, c->x_low, c->x, c->B * c->I, c->prec));   /* same stream: done before the product */
    lt_operands o = {low ? c->w_low : c->w, low ? c->x_low : c->x, c->y, c->b, 1.0f, 0.0f};
    return lt_run(be, layer_problem(be, FC_LT_LINEAR_FORWARD, c), &o);
}

fc_status fc_cuda_linear_backward(fc_backend *be, const fc_linear_call *c, float *dy, void *dy_low, float *dx,
                                  float *dw, float *db) {
    FC_TRY(fc_cuda_failure(be));
    FC_TRY(check_call("linear_backward", c));
    FC_TRY(check_backward(c, dy, dy_low, dw));
    FC_TRY(dy_prepare(be, c, dy, dy_low, db));
    int low = c->prec != FC_PREC_FP32;
    const void *g = low ? dy_low : dy, *x = low ? c->x_low : c->x, *w = low ? c->w_low : c->w;
    if (dx) {
        lt_operands o = {w, g, dx, NULL, 1.0f, 0.0f};   /* dx = dy . w, overwritten */
        FC_TRY(lt_run(be, layer_problem(be, FC_LT_LINEAR_GRAD_INPUT, c), &o));
    }
    lt_operands o = {x, g, dw, NULL, 1.0f, 1.0f};       /* dw += dy^T . x: beta 1 */
    return lt_run(be, layer_problem(be, FC_LT_LINEAR_GRAD_WEIGHT, c), &o);
}

/* The cuBLASLt workspace, and the layer's three products chosen now, so an
 * unsupported shape fails at planning rather than at step one. Nothing is
 * allocated: the workspace exists since init. Addresses are unknown here,
 * so the products are chosen for fully aligned operands; a call on less
 * aligned ones chooses again (host work only) and fits the same workspace. */
fc_status fc_cuda_linear_workspace(fc_backend *be, const fc_linear_call *shape, size_t ws[FC_WS_SLOTS]) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    FC_TRY(fc_cuda_failure(be));
    FC_TRY(check_shape("linear_workspace", shape));
    for (int i = 0; i < FC_WS_SLOTS; i++) ws[i] = 0;
    ws[FC_LT_WS_SLOT] = impl->ws_bytes[FC_LT_WS_SLOT];
    ws[FC_DY_PARTIALS_SLOT] = fc_dy_partials_bytes(shape->B, shape->O);   /* allocated at the first backward */
    fc_lt_kind kinds[3] = {FC_LT_LINEAR_FORWARD, FC_LT_LINEAR_GRAD_INPUT, FC_LT_LINEAR_GRAD_WEIGHT};
    for (int k = 0; k < 3; k++) {
        fc_lt_problem p = layer_problem(be, kinds[k], shape);
        lt_entry *e;
        FC_TRY(lt_get(impl, &p, &e));
    }
    return FC_OK;
}

static fc_status scale_only(fc_backend *be, size_t M, size_t N, float beta, float *C, size_t ldc) {
    fc_launch l = fc_cuda_grid(M * N);
    scale_block_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(C, ldc, M, N, beta);
    return FC_CUDA_LAUNCHED("scale_block_kernel");
}

fc_status fc_cuda_gemm(fc_backend *be, int trans_a, int trans_b, size_t M, size_t N, size_t K, float alpha,
                       const float *A, size_t lda, const float *Bm, size_t ldb, float beta, float *C, size_t ldc) {
    FC_TRY(fc_cuda_failure(be));
    FC_TRY(gemm_check(trans_a, trans_b, M, N, K, lda, ldb, ldc));
    if (M == 0 || N == 0) return FC_OK;
    if (K == 0) return scale_only(be, M, N, beta, C, ldc);   /* BLAS: C = beta * C (beta 0: zeros) */
    fc_lt_problem p = fc_lt_gemm_problem(trans_a, trans_b, M, N, K, lda, ldb, ldc);
    p.tf32 = be->tf32 != 0;
    lt_operands o = {Bm, A, C, NULL, alpha, beta};   /* the transpose trick swaps the operands */
    return lt_run(be, p, &o);
}

/* ---- life cycle ---- */

fc_status fc_cuda_dense_init(fc_backend *be) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    fc_cuda_dense *d = (fc_cuda_dense *)fc_calloc(1, sizeof *d, "the cuBLASLt algorithm cache");
    if (!d) return FC_ERR_MEMORY;
    impl->dense = d;   /* from here on, fc_cuda_dense_free undoes whatever part is done */
    FC_TRY(lt_check(cublasLtCreate(&d->lt), "cublasLtCreate", NULL));
    size_t bytes = fc_lt_workspace_bytes(impl->cc_major);
    fc_status st = FC_CUDA(cudaMalloc(&impl->ws[FC_LT_WS_SLOT], bytes));
    if (st != FC_OK) {
        cudaGetLastError();   /* an allocation failure is not sticky: keep it from later launch checks */
        impl->ws[FC_LT_WS_SLOT] = NULL;
        return st;
    }
    impl->ws_bytes[FC_LT_WS_SLOT] = bytes;
    return FC_OK;
}

/* Called by cuda_destroy after the stream has drained. */
void fc_cuda_dense_free(fc_backend *be) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    fc_cuda_dense *d = impl->dense;
    if (!d) return;
    for (int i = 0; i < d->n; i++) fc_cuda_note_failure(be, entry_release(&d->entries[i]));
    if (d->lt) fc_cuda_note_failure(be, lt_check(cublasLtDestroy(d->lt), "cublasLtDestroy", NULL));
    free(d);
    impl->dense = NULL;
    if (impl->ws[FC_LT_WS_SLOT]) fc_cuda_note_failure(be, FC_CUDA(cudaFree(impl->ws[FC_LT_WS_SLOT])));
    impl->ws[FC_LT_WS_SLOT] = NULL;
    impl->ws_bytes[FC_LT_WS_SLOT] = 0;
}
