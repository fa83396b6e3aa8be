/* The rates the bf16 choice compares (cpu_bf16_choice.c): the forward
 * product of a dense layer of N-HiTS's width (256 windows, 512 by 512)
 * on one thread, best of PROBE_RUNS after a warm-up, in fp32 on oneDNN,
 * in bf16 on oneDNN and in bf16 on one of fcast's block kernels; and,
 * untimed, the name of the implementation oneDNN builds for that product
 * (its impl_info_str: "brg:avx512_core_amx" says oneDNN runs it on AMX,
 * which no CPUID flag can tell). Both products run on one thread, as
 * the rates are quoted (a backend sets its own count again before each
 * call of its own). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "backend/cpu/cpu_internal.h"
#include "core/error.h"
#include "kernels/lowp.h"

enum { PROBE_B = 256, PROBE_D = 512, PROBE_RUNS = 5 };

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The layer and its operands in both formats; fcast's packed blocks. */
typedef struct {
    float *x32, *w32, *y;
    uint16_t *x16, *w16, *a, *b;
    fc_cpu_impl impl;
} probe_layer;

static fc_mm_key probe_key(int bf16) { return (fc_mm_key){FC_MM_LINEAR_FORWARD, PROBE_B, PROBE_D, PROBE_D, 0, 0, bf16}; }

/* One product y = x . w^T: on kernel k, else on oneDNN's primitive e. */
static fc_status product(probe_layer *p, const fc_bf16_block_kernel *k, fc_mm_entry *e) {
    if (!k) return fc_cpu_matmul_run(&p->impl, e, e->key.low ? (void *)p->x16 : (void *)p->x32,
                                     e->key.low ? (void *)p->w16 : (void *)p->w32, NULL, p->y);
    fc_bf16_operand x = {p->x16, PROBE_D, 1}, wt = {p->w16, 1, PROBE_D};
    fc_bf16_output o = {.c = p->y, .ldc = PROBE_D};
    fc_cpu_bf16_pack_a(1, p->a, &x, PROBE_B, PROBE_D, PROBE_B, PROBE_D);
    fc_cpu_bf16_multiply(1, k, p->a, p->b, &wt, PROBE_B, PROBE_D, PROBE_D, &o);
    return FC_OK;
}

/* GFLOP/s of the best of PROBE_RUNS products after one warm-up; 0 on error. */
static double rate(probe_layer *p, const fc_bf16_block_kernel *k, fc_mm_entry *e) {
    double best = 0;
    for (int run = 0; run <= PROBE_RUNS; run++) {
        double t0 = seconds_now();
        if (product(p, k, e) != FC_OK) return 0;
        double dt = seconds_now() - t0;
        if (run > 0 && dt > 0 && (best == 0 || dt < best)) best = dt;
    }
    return best > 0 ? 2.0 * PROBE_B * PROBE_D * PROBE_D / best * 1e-9 : 0;
}

static void *aligned(size_t bytes) {
    void *p = NULL;
    return posix_memalign(&p, 64, bytes) == 0 ? p : NULL;
}

static int layer_alloc(probe_layer *p) {
    size_t xs = (size_t)PROBE_B * PROBE_D, ws = (size_t)PROBE_D * PROBE_D;
    p->x32 = aligned(xs * sizeof *p->x32), p->w32 = aligned(ws * sizeof *p->w32), p->y = aligned(xs * sizeof *p->y);
    p->x16 = aligned(xs * sizeof *p->x16), p->w16 = aligned(ws * sizeof *p->w16);
    p->a = aligned(xs * sizeof *p->a), p->b = aligned(ws * sizeof *p->b);
    if (!p->x32 || !p->w32 || !p->y || !p->x16 || !p->w16 || !p->a || !p->b) return 0;
    for (size_t i = 0; i < xs; i++) p->x16[i] = fc_bf16_from_f32(p->x32[i] = (float)(i % 13) / 13.0f - 0.5f);
    for (size_t i = 0; i < ws; i++) p->w16[i] = fc_bf16_from_f32(p->w32[i] = (float)(i % 11) / 11.0f - 0.5f);
    return fc_cpu_matmul_init(&p->impl) == FC_OK;
}

static void layer_free(probe_layer *p) {
    fc_cpu_matmul_free(&p->impl);
    void *bufs[7] = {p->x32, p->w32, p->y, p->x16, p->w16, p->a, p->b};
    for (int i = 0; i < 7; i++) free(bufs[i]);
}

/* oneDNN's rate for one precision; 0 where it builds no such product. */
static double onednn_rate(probe_layer *p, int bf16) {
    fc_mm_key key = probe_key(bf16);
    fc_mm_entry *e = NULL;
    return fc_cpu_matmul_get(&p->impl, &key, &e) == FC_OK ? rate(p, NULL, e) : 0;
}

/* Runs on the first use of bf16, which may be on an error path (a failed
 * run's report): the caller's error is kept. */
void fc_cpu_bf16_rates(const fc_bf16_block_kernel *hand, fc_bf16_rates *out) {
    probe_layer p = {0};
    fc_error_state caller;
    fc_error_save(&caller);
    *out = (fc_bf16_rates){0};
    int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    if (layer_alloc(&p)) {
        out->fp32 = onednn_rate(&p, 0);
        out->onednn = onednn_rate(&p, 1);
        if (hand) out->hand = rate(&p, hand, NULL);
    }
    layer_free(&p);
    omp_set_num_threads(threads);
    fc_error_restore(&caller);
}

/* The name alone, without timing (fcast doctor): "" where oneDNN builds
 * no such product (bf16 without AVX-512). */
void fc_cpu_onednn_impl_name(int bf16, char *name, size_t cap) {
    fc_cpu_impl impl = {0};
    fc_error_state caller;
    fc_error_save(&caller);
    name[0] = 0;
    fc_cpu_isa_guard();   /* oneDNN's ISA is settled before it builds anything */
    fc_mm_key key = probe_key(bf16);
    fc_mm_entry *e = NULL;
    if (fc_cpu_matmul_init(&impl) == FC_OK && fc_cpu_matmul_get(&impl, &key, &e) == FC_OK)
        snprintf(name, cap, "%s", e->impl_name);
    fc_cpu_matmul_free(&impl);
    fc_error_restore(&caller);
}
