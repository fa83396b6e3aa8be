/* Which kernels run bf16 products on this CPU: fcast's AMX kernel, fcast's
 * AVX512-BF16 kernel, or oneDNN's; on a CPU without AVX-512, where none of
 * them runs, fp32 products of bf16-rounded values (fc_cpu_bf16_native).
 *
 * AMX, where its probe passes, is several times anything else. Without it,
 * neither of the others wins everywhere: on AMD Zen 4 oneDNN 2.6's bf16
 * kernels run at about twice its fp32 rate, on Intel cores without usable
 * AMX at about half of it, while fcast's AVX512-BF16 kernel runs near the
 * instruction's rate on both. So the choice is measured, once per process:
 * the forward product of a dense layer of N-HiTS's width (256 windows, 512
 * by 512) on one thread, best of several runs, on each. fcast's kernel is
 * taken only when clearly faster (FC_BF16_MARGIN), so that a machine where
 * the two are close does not flip between them from run to run (the
 * kernels sum in different orders, so results differ in the last bits);
 * FCAST_BF16_KERNEL pins the choice. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <oneapi/dnnl/dnnl.h>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/cpu_internal.h"
#include "core/error.h"
#include "kernels/lowp.h"

#define FC_BF16_MARGIN 1.3
enum { PROBE_B = 256, PROBE_D = 512, PROBE_RUNS = 5 };

static const fc_bf16_block_kernel *chosen;
static fc_bf16_choice measured;

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct {
    fc_backend *be;
    uint16_t *x, *w;
    float *y;
    fc_mm_entry *onednn;
} probe_layer;

/* One product y = x . w^T on kernel k, or on oneDNN when k is NULL. */
static fc_status product(probe_layer *p, const fc_bf16_block_kernel *k) {
    if (!k) return fc_cpu_matmul_run(fc_cpu_impl_of(p->be), p->onednn, p->x, p->w, NULL, p->y);
    fc_bf16_operand x = {p->x, PROBE_D, 1}, wt = {p->w, 1, PROBE_D};
    fc_bf16_output o = {.c = p->y, .ldc = PROBE_D};
    return fc_cpu_bf16_gemm_on(p->be, k, &x, &wt, PROBE_B, PROBE_D, PROBE_D, &o);
}

/* GFLOP/s of the best of PROBE_RUNS products after one warm-up; 0 on error. */
static double rate(probe_layer *p, const fc_bf16_block_kernel *k) {
    double best = 0;
    for (int run = 0; run <= PROBE_RUNS; run++) {
        double t0 = seconds_now();
        if (product(p, k) != FC_OK) return 0;
        double dt = seconds_now() - t0;
        if (run > 0 && dt > 0 && (best == 0 || dt < best)) best = dt;
    }
    return best > 0 ? 2.0 * PROBE_B * PROBE_D * PROBE_D / best * 1e-9 : 0;
}

/* Runs the first time a bf16 kernel's name is asked for, which may be on
 * an error path (a failed run's report): the caller's error is kept. */
static void measure(const fc_bf16_block_kernel *hand) {
    probe_layer p = {0};
    fc_error_state caller;
    fc_error_save(&caller);
    if (fc_backend_cpu_create(1, &p.be) != FC_OK) {
        fc_error_restore(&caller);
        return;
    }
    p.x = p.be->alloc(p.be, PROBE_B * PROBE_D * sizeof *p.x);
    p.w = p.be->alloc(p.be, PROBE_D * PROBE_D * sizeof *p.w);
    p.y = p.be->alloc(p.be, PROBE_B * PROBE_D * sizeof *p.y);
    fc_mm_key key = {FC_MM_LINEAR_FORWARD, PROBE_B, PROBE_D, PROBE_D, 0, 0, 1};
    if (p.x && p.w && p.y && fc_cpu_matmul_get(fc_cpu_impl_of(p.be), &key, &p.onednn) == FC_OK) {
        for (size_t i = 0; i < PROBE_B * PROBE_D; i++) p.x[i] = fc_bf16_from_f32((float)(i % 13) / 13.0f - 0.5f);
        for (size_t i = 0; i < PROBE_D * PROBE_D; i++) p.w[i] = fc_bf16_from_f32((float)(i % 11) / 11.0f - 0.5f);
        measured.hand_gflops = rate(&p, hand);
        measured.onednn_gflops = rate(&p, NULL);
        measured.measured = measured.hand_gflops > 0 && measured.onednn_gflops > 0;
    }
    void *bufs[3] = {p.x, p.w, p.y};
    for (int i = 0; i < 3; i++)
        if (bufs[i]) p.be->release(p.be, bufs[i]);
    fc_backend_destroy(&p.be);
    fc_error_restore(&caller);
}

/* FCAST_BF16_KERNEL=onednn | avx512bf16 | amx picks one (one that does not
 * run here leaves oneDNN); FCAST_NO_AMX leaves AMX out. */
static void choose_once(void) {
    if (!fc_cpu_bf16_native()) return;   /* no bf16 kernel runs: bf16 is carried in fp32 */
    const char *want = getenv("FCAST_BF16_KERNEL");
    if (want && *want && strcmp(want, "auto") != 0) {
        if (!strcmp(want, "amx")) chosen = fc_cpu_amx_kernel();
        else if (!strcmp(want, "avx512bf16")) chosen = fc_cpu_avx512bf16_kernel();
        return;
    }
    if (!getenv("FCAST_NO_AMX") && (chosen = fc_cpu_amx_kernel())) return;
    const fc_bf16_block_kernel *hand = fc_cpu_avx512bf16_kernel();
    if (!hand) return;
    measure(hand);
    if (measured.measured && measured.hand_gflops > FC_BF16_MARGIN * measured.onednn_gflops) chosen = hand;
}

/* Whether oneDNN builds a bf16 matmul here: a primitive descriptor of a
 * small product, made on an engine of its own (no backend: creating one
 * asks this very question). */
static int onednn_builds_bf16(void) {
    dnnl_engine_t eng = NULL;
    if (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success) return 0;
    dnnl_dims_t dims = {16, 16};
    dnnl_memory_desc_t a, b, c;
    dnnl_matmul_desc_t desc;
    dnnl_primitive_desc_t pd = NULL;
    int ok = dnnl_memory_desc_init_by_tag(&a, 2, dims, dnnl_bf16, dnnl_ab) == dnnl_success &&
             dnnl_memory_desc_init_by_tag(&b, 2, dims, dnnl_bf16, dnnl_ab) == dnnl_success &&
             dnnl_memory_desc_init_by_tag(&c, 2, dims, dnnl_f32, dnnl_ab) == dnnl_success &&
             dnnl_matmul_desc_init(&desc, &a, &b, NULL, &c) == dnnl_success &&
             dnnl_primitive_desc_create(&pd, &desc, NULL, eng, NULL) == dnnl_success;
    if (pd) dnnl_primitive_desc_destroy(pd);
    dnnl_engine_destroy(eng);
    return ok;
}

static int native;

static void probe_native(void) {
    const char *carried = getenv("FCAST_BF16_CARRIED");
    fc_cpu_isa_guard();   /* the ISA oneDNN may use is settled before it is asked */
    native = !(carried && *carried && strcmp(carried, "0")) && onednn_builds_bf16();
}

int fc_cpu_bf16_native(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, probe_native);
    return native;
}

const fc_bf16_block_kernel *fc_cpu_bf16_kernel(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, choose_once);
    return chosen;
}

const char *fc_backend_cpu_bf16_kernel_name(void) {
    const fc_bf16_block_kernel *k = fc_cpu_bf16_kernel();
    return k ? k->name : fc_cpu_bf16_native() ? "oneDNN" : FC_BF16_KERNEL_CARRIED;
}

int fc_backend_cpu_uses_amx(void) {
    const fc_bf16_block_kernel *k = fc_cpu_bf16_kernel();
    return k && !strcmp(k->name, FC_BF16_KERNEL_AMX);
}

fc_bf16_choice fc_backend_cpu_bf16_choice(void) {
    fc_cpu_bf16_kernel();
    return measured;
}
