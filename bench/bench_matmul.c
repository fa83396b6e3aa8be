/* GFLOP/s of the CPU backend's dense layer at the N-HiTS shape
 * (B=1024, I=512, O=512, fp32 by default):
 *   linear_forward   y = relu(x . w^T + b), one fused oneDNN matmul (2BIO flop)
 *   linear_backward  dx = dy . w, dw += dy^T . x, db += colsum(dy) (4BIO flop)
 * against, in the same run, plain dnnl_sgemm of the same product and the
 * machine's fp32 FMA peak measured by a register-only loop.
 *
 * usage: bench_matmul [B I O [iterations [threads [fp32|bf16|fp16]]]]
 * FCAST_BF16_KERNEL=onednn|avx512bf16|amx picks the bf16 kernel. */
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "backend/backend.h"
#include "backend/cpu/cpu_backend.h"
#include "core/rng.h"

#ifdef __AVX512F__
#include <immintrin.h>
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static float *random_matrix(fc_backend *be, size_t n, uint64_t seed) {
    float *x = be->alloc(be, n * sizeof *x);
    if (!x) return NULL;
    for (size_t i = 0; i < n; i++) x[i] = 2 * fc_u32_to_unit_float(fc_rng_block(seed, 0, i).v[0]) - 1;
    return x;
}

/* Register-only FMA loop on every thread: 12 independent 16-wide chains
 * (enough to cover 2 FMA ports x 4-6 cycles of latency; 32 flop per FMA).
 * Without AVX-512 it reports 0 and no share is printed. */
static double measured_peak_gflops(int threads) {
#ifdef __AVX512F__
    const long reps = 20000000;
    double t0 = now(), sink = 0;
#pragma omp parallel num_threads(threads) reduction(+ : sink)
    {
        const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
        __m512 a0 = _mm512_set1_ps(0.f), a1 = _mm512_set1_ps(1.f), a2 = _mm512_set1_ps(2.f),
               a3 = _mm512_set1_ps(3.f), a4 = _mm512_set1_ps(4.f), a5 = _mm512_set1_ps(5.f),
               a6 = _mm512_set1_ps(6.f), a7 = _mm512_set1_ps(7.f), a8 = _mm512_set1_ps(8.f),
               a9 = _mm512_set1_ps(9.f), a10 = _mm512_set1_ps(10.f), a11 = _mm512_set1_ps(11.f);
        for (long r = 0; r < reps; r++) {
#define FMA4(x, y, z, w)                                                                   \
    x = _mm512_fmadd_ps(x, m, c), y = _mm512_fmadd_ps(y, m, c), z = _mm512_fmadd_ps(z, m, c), \
    w = _mm512_fmadd_ps(w, m, c)
            FMA4(a0, a1, a2, a3);
            FMA4(a4, a5, a6, a7);
            FMA4(a8, a9, a10, a11);
#undef FMA4
        }
        __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                                 _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
        s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)));
        sink += _mm512_reduce_add_ps(s);
    }
    double secs = now() - t0;
    if (sink == 12345.0) printf("#"); /* keeps the loop alive */
    return (double)threads * reps * 12 * 32 / secs * 1e-9;
#else
    (void)threads;
    return 0;
#endif
}

typedef struct {
    fc_backend *be;
    size_t B, I, O;
    fc_precision prec;
    float *x, *w, *b, *y, *dy, *dx, *dw, *db;
    void *x_low, *w_low, *dy_low;
} bench_ctx;

static fc_linear_call call_of(const bench_ctx *c) {
    return (fc_linear_call){.B = c->B, .I = c->I, .O = c->O, .act = FC_ACT_RELU, .prec = c->prec,
                            .x = c->x, .x_low = c->x_low, .w = c->w, .w_low = c->w_low, .b = c->b, .y = c->y};
}

static int run_forward(bench_ctx *c) {
    fc_linear_call call = call_of(c);
    return c->be->linear_forward(c->be, &call);
}

/* The ReLU mask zeroes dy where y <= 0 on the first call; later calls see
 * the same sparsity a training step sees. */
static int run_backward(bench_ctx *c) {
    fc_linear_call call = call_of(c);
    return c->be->linear_backward(c->be, &call, c->dy, c->dy_low, c->dx, c->dw, c->db);
}

/* C = x . w^T with oneDNN's BLAS-style entry (no bias, no activation). */
static int run_sgemm(bench_ctx *c) {
    return dnnl_sgemm('N', 'T', (dnnl_dim_t)c->B, (dnnl_dim_t)c->O, (dnnl_dim_t)c->I, 1.0f, c->x,
                      (dnnl_dim_t)c->I, c->w, (dnnl_dim_t)c->I, 0.0f, c->y, (dnnl_dim_t)c->O);
}

/* Seconds per call, best of 3 rounds of `iters` calls after a warm-up. */
static double time_op(int (*op)(bench_ctx *), bench_ctx *c, int iters) {
    for (int i = 0; i < 3; i++)
        if (op(c) != 0) {
            fprintf(stderr, "bench_matmul: %s\n", fc_last_error());
            exit(1);
        }
    double best = 1e30;
    for (int round = 0; round < 3; round++) {
        double t0 = now();
        for (int i = 0; i < iters; i++) op(c);
        double dt = (now() - t0) / iters;
        if (dt < best) best = dt;
    }
    return best;
}

static void report(const char *name, double secs, double flop, double ref_secs, double peak) {
    double gflops = flop / secs * 1e-9;
    printf("%-34s %8.3f ms  %8.1f GFLOP/s", name, secs * 1e3, gflops);
    if (ref_secs > 0) printf("  %5.2fx sgemm", ref_secs / secs);
    if (peak > 0) printf("  %5.1f%% of peak", 100 * gflops / peak);
    printf("\n");
}

int main(int argc, char **argv) {
    bench_ctx c = {0};
    c.B = argc > 3 ? strtoul(argv[1], NULL, 10) : 1024;
    c.I = argc > 3 ? strtoul(argv[2], NULL, 10) : 512;
    c.O = argc > 3 ? strtoul(argv[3], NULL, 10) : 512;
    int iters = argc > 4 ? atoi(argv[4]) : 50;
    int threads = argc > 5 ? atoi(argv[5]) : 0;
    if (argc > 6 && fc_precision_parse(argv[6], &c.prec)) {
        fprintf(stderr, "bench_matmul: precision '%s' is not fp32, bf16 or fp16\n", argv[6]);
        return 2;
    }
    if (fc_backend_cpu_create(threads, &c.be) != FC_OK) {
        fprintf(stderr, "bench_matmul: %s\n", fc_last_error());
        return 1;
    }
    fc_backend *be = c.be;
    c.x = random_matrix(be, c.B * c.I, 1), c.w = random_matrix(be, c.O * c.I, 2);
    c.b = random_matrix(be, c.O, 3), c.dy = random_matrix(be, c.B * c.O, 4);
    c.y = random_matrix(be, c.B * c.O, 5), c.dx = random_matrix(be, c.B * c.I, 6);
    c.dw = random_matrix(be, c.O * c.I, 7), c.db = random_matrix(be, c.O, 8);
    if (!c.x || !c.w || !c.b || !c.dy || !c.y || !c.dx || !c.dw || !c.db) {
        fprintf(stderr, "bench_matmul: %s\n", fc_last_error());
        return 1;
    }
    size_t lb = be->low_bytes(be, c.prec);
    if (c.prec != FC_PREC_FP32) {
        c.x_low = be->alloc(be, c.B * c.I * lb), c.w_low = be->alloc(be, c.O * c.I * lb);
        c.dy_low = be->alloc(be, c.B * c.O * lb);
        if (!c.x_low || !c.w_low || !c.dy_low) return 1;
        be->round_to(be, c.w_low, c.w, c.O * c.I, c.prec);
    }
    double flop = 2.0 * (double)c.B * (double)c.I * (double)c.O;
    double peak = measured_peak_gflops(be->threads);
    printf("bench_matmul: B=%zu I=%zu O=%zu %s, %d threads, %d iterations x 3 rounds (best)\n",
           c.B, c.I, c.O, fc_precision_name(c.prec), be->threads, iters);
    printf("kernel: %s\n", c.prec == FC_PREC_BF16 ? fc_backend_cpu_bf16_kernel_name()
                           : c.prec == FC_PREC_FP16 ? "oneDNN fp32 (fp16-rounded inputs)" : "oneDNN fp32");
    if (peak > 0) printf("measured fp32 FMA peak (AVX-512, all threads): %.1f GFLOP/s\n", peak);
    double t_sgemm = time_op(run_sgemm, &c, iters);
    double t_fwd = time_op(run_forward, &c, iters);
    double t_bwd = time_op(run_backward, &c, iters);
    report("reference dnnl_sgemm x.w^T", t_sgemm, flop, 0, peak);
    report("linear_forward (bias+ReLU fused)", t_fwd, flop, t_sgemm, peak);
    report("linear_backward (dx, dw+=, db+=)", t_bwd, 2 * flop, 2 * t_sgemm, peak);
    void *bufs[11] = {c.x, c.w, c.b, c.y, c.dy, c.dx, c.dw, c.db, c.x_low, c.w_low, c.dy_low};
    for (int i = 0; i < 11; i++) be->release(be, bufs[i]);
    fc_backend_destroy(&c.be);
    return 0;
}
