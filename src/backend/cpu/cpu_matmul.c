/* oneDNN for the CPU backend: one cpu engine and stream per backend, a cache
 * of matmul primitives (one per kind and shape, created on first use, so
 * the step loop only executes), and the BLAS-style GEMM entry (dnnl_sgemm).
 *
 * Primitives are created with a user-managed scratchpad: the backend owns
 * one buffer, grown when a primitive that needs more first runs, so oneDNN
 * allocates nothing per call on our behalf, and a memory plan can build the
 * primitives to learn their scratchpad sizes before anything is allocated. */
#include <oneapi/dnnl/dnnl_debug.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/cpu_internal.h"
#include "core/error.h"
#include "kernels/rows.h"

static const char *mm_kind_name(fc_mm_kind k) {
    switch (k) {
    case FC_MM_LINEAR_FORWARD: return "linear forward";
    case FC_MM_LINEAR_GRAD_INPUT: return "linear backward (input gradient)";
    case FC_MM_LINEAR_GRAD_WEIGHT: return "linear backward (weight gradient)";
    }
    return "unknown";
}

static fc_status mm_fail(const fc_mm_key *k, const char *call, dnnl_status_t s) {
    return fc_error(FC_ERR_BACKEND,
                    "oneDNN %s failed (%s) for the %s%s matmul with B=%lld I=%lld O=%lld%s%s",
                    call, dnnl_status2str(s), k->low ? "bf16 " : "", mm_kind_name(k->kind),
                    (long long)k->B, (long long)k->I, (long long)k->O, k->has_bias ? ", bias" : "",
                    k->act == FC_ACT_RELU ? ", ReLU" : "");
}

/* oneDNN sizes its parallel regions from the calling thread's OpenMP
 * setting, which is per thread, not per backend: re-assert ours before each
 * call so two backends with different thread counts do not leak into each
 * other (cheap: a comparison in the steady state). */
void fc_cpu_use_threads(const fc_backend *be) {
    if (omp_get_max_threads() != be->threads) omp_set_num_threads(be->threads);
}

fc_status fc_cpu_matmul_init(fc_cpu_impl *impl) {
    fc_cpu_isa_guard();
    /* Primitives live in our per-backend cache; oneDNN's process-wide cache
     * (1024 entries by default) would keep a second reference to each, and
     * their generated code, after the backend that built them is gone. */
    dnnl_set_primitive_cache_capacity(0);
    dnnl_status_t s = dnnl_engine_create(&impl->engine, dnnl_cpu, 0);
    if (s != dnnl_success)
        return fc_error(FC_ERR_BACKEND, "oneDNN dnnl_engine_create(cpu) failed (%s)",
                        dnnl_status2str(s));
    s = dnnl_stream_create(&impl->stream, impl->engine, dnnl_stream_default_flags);
    if (s != dnnl_success)
        return fc_error(FC_ERR_BACKEND, "oneDNN dnnl_stream_create failed (%s)",
                        dnnl_status2str(s));
    return FC_OK;
}

static void mm_entry_free(fc_mm_entry *e) {
    if (!e) return;
    if (e->prim) dnnl_primitive_destroy(e->prim);
    dnnl_memory_t mems[5] = {e->src, e->weights, e->bias, e->dst, e->scratch};
    for (int i = 0; i < 5; i++)
        if (mems[i]) dnnl_memory_destroy(mems[i]);
    free(e);
}

void fc_cpu_matmul_free(fc_cpu_impl *impl) {
    for (size_t i = 0; i < impl->cache_len; i++) mm_entry_free(impl->cache[i]);
    free(impl->cache);
    free(impl->scratch);
    fc_cpu_bf16_free(impl);
    if (impl->stream) dnnl_stream_destroy(impl->stream);
    if (impl->engine) dnnl_engine_destroy(impl->engine);
    memset(impl, 0, sizeof *impl);
}

/* A row-major-or-strided 2-D matrix of type dt. */
static dnnl_status_t md_2d(dnnl_memory_desc_t *md, int64_t rows, int64_t cols,
                           int64_t row_stride, int64_t col_stride, dnnl_data_type_t dt) {
    dnnl_dims_t dims = {rows, cols};
    dnnl_dims_t strides = {row_stride, col_stride};
    return dnnl_memory_desc_init_by_strides(md, 2, dims, dt, strides);
}

/* The layouts of each kind, all without copies (w is (O,I) row-major);
 * src and weights are bf16 when key->low, bias and dst always f32:
 *   forward:      src x (B,I)          weights w^T (I,O) strides {1,I}   dst y (B,O)
 *   grad input:   src dy (B,O)         weights w (O,I)                   dst dx (B,I)
 *   grad weight:  src dy^T (O,B) {1,O} weights x (B,I)                   dst dw (O,I) */
static dnnl_status_t mm_describe(const fc_mm_key *k, dnnl_memory_desc_t *src,
                                 dnnl_memory_desc_t *wei, dnnl_memory_desc_t *bias,
                                 dnnl_memory_desc_t *dst) {
    int64_t B = k->B, I = k->I, O = k->O;
    dnnl_data_type_t in = k->low ? dnnl_bf16 : dnnl_f32, f32 = dnnl_f32;
    dnnl_status_t s = dnnl_success;
    switch (k->kind) {
    case FC_MM_LINEAR_FORWARD:
        if ((s = md_2d(src, B, I, I, 1, in)) != dnnl_success) return s;
        if ((s = md_2d(wei, I, O, 1, I, in)) != dnnl_success) return s;
        if ((s = md_2d(dst, B, O, O, 1, f32)) != dnnl_success) return s;
        if (k->has_bias) s = md_2d(bias, 1, O, O, 1, f32);
        return s;
    case FC_MM_LINEAR_GRAD_INPUT:
        if ((s = md_2d(src, B, O, O, 1, in)) != dnnl_success) return s;
        if ((s = md_2d(wei, O, I, I, 1, in)) != dnnl_success) return s;
        return md_2d(dst, B, I, I, 1, f32);
    case FC_MM_LINEAR_GRAD_WEIGHT:
        if ((s = md_2d(src, O, B, 1, O, in)) != dnnl_success) return s;
        if ((s = md_2d(wei, B, I, I, 1, in)) != dnnl_success) return s;
        return md_2d(dst, O, I, I, 1, f32);
    }
    return dnnl_invalid_arguments;
}

/* Attributes: user scratchpad; ReLU fused as an eltwise post-op (forward);
 * accumulation into dst as a sum post-op (weight gradient). */
static dnnl_status_t mm_attr(const fc_mm_key *k, dnnl_primitive_attr_t *attr) {
    dnnl_status_t s = dnnl_primitive_attr_create(attr);
    if (s != dnnl_success) return s;
    s = dnnl_primitive_attr_set_scratchpad_mode(*attr, dnnl_scratchpad_mode_user);
    if (s != dnnl_success) return s;
    dnnl_post_ops_t ops;
    if ((s = dnnl_post_ops_create(&ops)) != dnnl_success) return s;
    if (k->kind == FC_MM_LINEAR_FORWARD && k->act == FC_ACT_RELU)
        s = dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f);
    else if (k->kind == FC_MM_LINEAR_GRAD_WEIGHT)
        s = dnnl_post_ops_append_sum(ops, 1.0f);
    if (s == dnnl_success) s = dnnl_primitive_attr_set_post_ops(*attr, ops);
    dnnl_post_ops_destroy(ops);
    return s;
}

/* Grows the shared scratchpad to `bytes` (64-byte aligned). */
static fc_status scratch_reserve(fc_cpu_impl *impl, size_t bytes) {
    if (bytes <= impl->scratch_bytes) return FC_OK;
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes) != 0)
        return fc_error(FC_ERR_MEMORY, "cannot allocate %zu bytes of oneDNN scratchpad", bytes);
    free(impl->scratch);
    impl->scratch = p;
    impl->scratch_bytes = bytes;
    return FC_OK;
}

/* Memory objects without buffers: handles are set at execution. */
static dnnl_status_t mm_memories(fc_cpu_impl *impl, fc_mm_entry *e, const dnnl_memory_desc_t *src,
                                 const dnnl_memory_desc_t *wei, const dnnl_memory_desc_t *bias,
                                 const dnnl_memory_desc_t *dst, const dnnl_memory_desc_t *scratch) {
    dnnl_engine_t eng = impl->engine;
    dnnl_status_t s = dnnl_memory_create(&e->src, src, eng, DNNL_MEMORY_NONE);
    if (s == dnnl_success) s = dnnl_memory_create(&e->weights, wei, eng, DNNL_MEMORY_NONE);
    if (s == dnnl_success) s = dnnl_memory_create(&e->dst, dst, eng, DNNL_MEMORY_NONE);
    if (s == dnnl_success && bias) s = dnnl_memory_create(&e->bias, bias, eng, DNNL_MEMORY_NONE);
    if (s == dnnl_success && scratch)
        s = dnnl_memory_create(&e->scratch, scratch, eng, DNNL_MEMORY_NONE);
    return s;
}

/* Builds the primitive of `key` and its memory objects into e. */
static fc_status mm_build(fc_cpu_impl *impl, fc_mm_entry *e) {
    const fc_mm_key *k = &e->key;
    dnnl_memory_desc_t src, wei, bias, dst;
    dnnl_matmul_desc_t desc;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    fc_status st = FC_OK;
    dnnl_status_t s;
    const char *call = "dnnl_memory_desc_init_by_strides";
    if ((s = mm_describe(k, &src, &wei, &bias, &dst)) != dnnl_success) goto fail;
    call = "dnnl_matmul_desc_init";
    s = dnnl_matmul_desc_init(&desc, &src, &wei, k->has_bias ? &bias : NULL, &dst);
    if (s != dnnl_success) goto fail;
    call = "primitive attributes (post-ops, scratchpad)";
    if ((s = mm_attr(k, &attr)) != dnnl_success) goto fail;
    call = "dnnl_primitive_desc_create";
    s = dnnl_primitive_desc_create(&pd, &desc, attr, impl->engine, NULL);
    if (s != dnnl_success) goto fail;
    call = "dnnl_primitive_create";
    if ((s = dnnl_primitive_create(&e->prim, pd)) != dnnl_success) goto fail;
    const dnnl_memory_desc_t *scratch = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    size_t scratch_bytes = scratch ? dnnl_memory_desc_get_size(scratch) : 0;
    e->scratch_bytes = scratch_bytes;   /* reserved at the first run: planning builds without allocating */
    const char *name = NULL;
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name) == dnnl_success && name)
        snprintf(e->impl_name, sizeof e->impl_name, "%s", name);
    call = "dnnl_memory_create";
    s = mm_memories(impl, e, &src, &wei, k->has_bias ? &bias : NULL, &dst,
                    scratch_bytes ? scratch : NULL);
    if (s != dnnl_success) goto fail;
    impl->primitives_created++;
    goto done;
fail:
    st = mm_fail(k, call, s);
done:
    if (pd) dnnl_primitive_desc_destroy(pd);
    if (attr) dnnl_primitive_attr_destroy(attr);
    return st;
}

static int mm_key_equal(const fc_mm_key *a, const fc_mm_key *b) {
    return a->kind == b->kind && a->B == b->B && a->I == b->I && a->O == b->O &&
           a->act == b->act && a->has_bias == b->has_bias && a->low == b->low;
}

fc_status fc_cpu_matmul_get(fc_cpu_impl *impl, const fc_mm_key *key, fc_mm_entry **out) {
    for (size_t i = 0; i < impl->cache_len; i++) {
        if (mm_key_equal(&impl->cache[i]->key, key)) {
            *out = impl->cache[i];
            return FC_OK;
        }
    }
    if (impl->cache_len == impl->cache_cap) {
        size_t cap = impl->cache_cap ? 2 * impl->cache_cap : 16;
        fc_mm_entry **grown = fc_realloc(impl->cache, cap * sizeof *grown, "the matmul cache");
        if (!grown) return FC_ERR_MEMORY;
        impl->cache = grown;
        impl->cache_cap = cap;
    }
    fc_mm_entry *e = fc_calloc(1, sizeof *e, "a matmul cache entry");
    if (!e) return FC_ERR_MEMORY;
    e->key = *key;
    fc_status st = mm_build(impl, e);
    if (st != FC_OK) {
        mm_entry_free(e);
        return st;
    }
    impl->cache[impl->cache_len++] = e;
    *out = e;
    return FC_OK;
}

/* oneDNN reads src, weights and bias only; its handles are non-const. */
fc_status fc_cpu_matmul_run(fc_cpu_impl *impl, fc_mm_entry *e, const void *src,
                            const void *weights, const float *bias, float *dst) {
    dnnl_exec_arg_t args[5];
    int n = 0;
    FC_TRY(scratch_reserve(impl, e->scratch_bytes));
    dnnl_memory_set_data_handle(e->src, (void *)src);
    dnnl_memory_set_data_handle(e->weights, (void *)weights);
    dnnl_memory_set_data_handle(e->dst, dst);
    args[n++] = (dnnl_exec_arg_t){DNNL_ARG_SRC, e->src};
    args[n++] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, e->weights};
    args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DST, e->dst};
    if (e->bias) {
        dnnl_memory_set_data_handle(e->bias, (void *)bias);
        args[n++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, e->bias};
    }
    if (e->scratch) {
        dnnl_memory_set_data_handle(e->scratch, impl->scratch);
        args[n++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, e->scratch};
    }
    dnnl_status_t s = dnnl_primitive_execute(e->prim, impl->stream, n, args);
    if (s == dnnl_success) s = dnnl_stream_wait(impl->stream);
    return s == dnnl_success ? FC_OK : mm_fail(&e->key, "dnnl_primitive_execute", s);
}

/* Row-major op(A) is M x K, op(B) is K x N: the leading dimension of a
 * matrix must cover its stored width. */
static fc_status gemm_check(int trans_a, int trans_b, size_t M, size_t N, size_t K, size_t lda,
                            size_t ldb, size_t ldc) {
    size_t a_width = trans_a ? M : K, b_width = trans_b ? K : N;
    if (lda < (a_width ? a_width : 1))
        return fc_error(FC_ERR_INVALID, "gemm: lda = %zu is smaller than A's stored width %zu",
                        lda, a_width);
    if (ldb < (b_width ? b_width : 1))
        return fc_error(FC_ERR_INVALID, "gemm: ldb = %zu is smaller than B's stored width %zu",
                        ldb, b_width);
    if (ldc < (N ? N : 1))
        return fc_error(FC_ERR_INVALID, "gemm: ldc = %zu is smaller than N = %zu", ldc, N);
    return FC_OK;
}

/* C = beta * C, for K == 0: dnnl_sgemm leaves C untouched there, while
 * BLAS (and this entry's contract) scales it (beta == 0: zeros). */
static void gemm_scale_only(size_t M, size_t N, float beta, float *C, size_t ldc) {
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) C[i * ldc + j] = fc_axpby(0.0f, 0.0f, beta, C[i * ldc + j]);
}

fc_status fc_cpu_gemm(fc_backend *be, int trans_a, int trans_b, size_t M, size_t N, size_t K,
                      float alpha, const float *A, size_t lda, const float *Bm, size_t ldb,
                      float beta, float *C, size_t ldc) {
    FC_TRY(gemm_check(trans_a, trans_b, M, N, K, lda, ldb, ldc));
    if (M == 0 || N == 0) return FC_OK;
    if (K == 0) {
        gemm_scale_only(M, N, beta, C, ldc);
        return FC_OK;
    }
    fc_cpu_use_threads(be);
    dnnl_status_t s = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', (dnnl_dim_t)M,
                                 (dnnl_dim_t)N, (dnnl_dim_t)K, alpha, A, (dnnl_dim_t)lda, Bm,
                                 (dnnl_dim_t)ldb, beta, C, (dnnl_dim_t)ldc);
    if (s != dnnl_success)
        return fc_error(FC_ERR_BACKEND,
                        "oneDNN dnnl_sgemm failed (%s) for transa=%c transb=%c M=%zu N=%zu K=%zu "
                        "lda=%zu ldb=%zu ldc=%zu",
                        dnnl_status2str(s), trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', M, N, K,
                        lda, ldb, ldc);
    return FC_OK;
}
