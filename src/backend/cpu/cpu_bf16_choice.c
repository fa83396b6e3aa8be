/* Which kernels run bf16 products on this CPU: fcast's AMX kernel, fcast's
 * AVX512-BF16 kernel, or oneDNN's; on a CPU without AVX-512, where none of
 * them runs, fp32 products of bf16-rounded values (fc_cpu_bf16_native).
 * This file owns the decision, whole: the CPU's flags (and the tile state
 * the OS must grant AMX), each kernel's check against a reference product
 * in a forked child, the timing against oneDNN, and the environment's
 * overrides. The kernels (cpu_amx.c, cpu_avx512bf16.c) only compute, and
 * nothing here builds a backend: the check and the timing call the
 * products' backend-free core (cpu_bf16_gemm.c) and oneDNN's matmul cache
 * (cpu_matmul.c) directly.
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
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <oneapi/dnnl/dnnl.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/cpu_internal.h"
#include "core/error.h"
#include "kernels/lowp.h"

#define FC_BF16_MARGIN 1.3
#define FC_PROBE_TIMEOUT_MS 10000
enum { PROBE_B = 256, PROBE_D = 512, PROBE_RUNS = 5 };

static const fc_bf16_block_kernel *chosen;
static fc_bf16_choice measured;

/* ---- the CPU's flags ---- */

#if defined(__x86_64__)
#define FC_ARCH_REQ_XCOMP_PERM 0x1023
#define FC_XFEATURE_XTILEDATA 18

/* AMX-BF16 and AMX-TILE in CPUID. */
static int cpu_has_amx_bf16(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return ((d >> 22) & 1) && ((d >> 24) & 1);
}

/* The OS's permission to use the tile state, per process: asked in the
 * parent and again in the probe's child. */
static int tiles_permitted(void) {
    return syscall(SYS_arch_prctl, FC_ARCH_REQ_XCOMP_PERM, FC_XFEATURE_XTILEDATA) == 0;
}
#else
static int cpu_has_amx_bf16(void) { return 0; }
static int tiles_permitted(void) { return 0; }
#endif

/* CPUID and the OS's saving of the AVX-512 state (__builtin_cpu_supports
 * checks both), with the compilers that know the flag (those that build
 * cpu_avx512bf16.c's kernel). */
static int cpu_has_avx512bf16(void) {
#if defined(__x86_64__) && (defined(__clang__) ? __clang_major__ >= 9 : (defined(__GNUC__) && __GNUC__ >= 10))
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
#else
    return 0;
#endif
}

/* ---- each kernel's check against a reference ---- */

/* A 40 x 36 by 36 x 40 product of small integers (exact in bf16 and fp32)
 * on kernel k against plain loops; 0 when every element matches. It runs
 * in a forked child (cpu_probe.c): a kernel the CPU will not run dies
 * there of SIGILL, not here. */
static int kernel_check(const fc_bf16_block_kernel *k) {
    enum { M = 40, K = 36, N = 40, P = 64 };   /* P: M, K and N padded to 32 */
    static uint16_t A[M * K], B[K * N];
    static uint16_t Ap[P * P] __attribute__((aligned(64))), Bp[P * P] __attribute__((aligned(64)));
    static float C[M * N], want[M * N];
    for (int i = 0; i < M * K; i++) A[i] = fc_bf16_from_f32((float)(i % 7 - 3));
    for (int i = 0; i < K * N; i++) B[i] = fc_bf16_from_f32((float)(i % 5 - 2));
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            float s = 0;
            for (int kk = 0; kk < K; kk++) s += (float)(((m * K + kk) % 7) - 3) * (float)(((kk * N + n) % 5) - 2);
            want[m * N + n] = s;
        }
    fc_bf16_operand a = {A, K, 1}, b = {B, N, 1};
    fc_bf16_output o = {.c = C, .ldc = N};
    fc_cpu_bf16_pack_a(1, Ap, &a, M, K, P, P);
    fc_cpu_bf16_multiply(1, k, Ap, Bp, &b, M, N, K, &o);
    int bad = 0;
    for (int i = 0; i < M * N && !bad; i++) bad = C[i] != want[i];
    return bad;
}

/* A kernel, what it needs of the CPU, and its check as the forked child
 * runs it (no arguments). */
typedef struct {
    const fc_bf16_block_kernel *kernel;
    int (*cpu_has)(void);
    int (*check)(void);
} candidate;

static int amx_granted(void) { return cpu_has_amx_bf16() && tiles_permitted(); }
static int check_amx(void) { return tiles_permitted() ? kernel_check(&fc_cpu_amx_kernel) : 1; }
static int check_avx512bf16(void) { return kernel_check(&fc_cpu_avx512bf16_kernel); }

static const candidate amx = {&fc_cpu_amx_kernel, amx_granted, check_amx};
static const candidate avx512bf16 = {&fc_cpu_avx512bf16_kernel, cpu_has_avx512bf16, check_avx512bf16};

/* The kernel where it was built, the CPU has what it needs and its check
 * passes in a forked child; else NULL. */
static const fc_bf16_block_kernel *usable(const candidate *c) {
    if (!c->kernel->block || !c->cpu_has()) return NULL;
    return fc_cpu_probe_in_child(c->check, FC_PROBE_TIMEOUT_MS) ? c->kernel : NULL;
}

/* ---- the timing ---- */

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The dense layer's forward product and what it runs on: fcast's blocks
 * (a, b) or oneDNN's cached primitive (impl, onednn). */
typedef struct {
    uint16_t *x, *w, *a, *b;
    float *y;
    fc_cpu_impl impl;
    fc_mm_entry *onednn;
} probe_layer;

/* One product y = x . w^T on kernel k, or on oneDNN when k is NULL. */
static fc_status product(probe_layer *p, const fc_bf16_block_kernel *k) {
    if (!k) return fc_cpu_matmul_run(&p->impl, p->onednn, p->x, p->w, NULL, p->y);
    fc_bf16_operand x = {p->x, PROBE_D, 1}, wt = {p->w, 1, PROBE_D};
    fc_bf16_output o = {.c = p->y, .ldc = PROBE_D};
    fc_cpu_bf16_pack_a(1, p->a, &x, PROBE_B, PROBE_D, PROBE_B, PROBE_D);
    fc_cpu_bf16_multiply(1, k, p->a, p->b, &wt, PROBE_B, PROBE_D, PROBE_D, &o);
    return FC_OK;
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

static void *aligned(size_t bytes) {
    void *p = NULL;
    return posix_memalign(&p, 64, bytes) == 0 ? p : NULL;
}

/* Runs the first time a bf16 kernel's name is asked for, which may be on
 * an error path (a failed run's report): the caller's error is kept. Both
 * products run on one thread, as the rates are quoted (the backend sets
 * its own count again before each call of its own). */
static void measure(const fc_bf16_block_kernel *hand) {
    probe_layer p = {0};
    fc_error_state caller;
    fc_error_save(&caller);
    p.x = aligned(PROBE_B * PROBE_D * sizeof *p.x);
    p.w = aligned(PROBE_D * PROBE_D * sizeof *p.w);
    p.a = aligned(PROBE_B * PROBE_D * sizeof *p.a);
    p.b = aligned(PROBE_D * PROBE_D * sizeof *p.b);
    p.y = aligned(PROBE_B * PROBE_D * sizeof *p.y);
    fc_mm_key key = {FC_MM_LINEAR_FORWARD, PROBE_B, PROBE_D, PROBE_D, 0, 0, 1};
    omp_set_num_threads(1);
    if (p.x && p.w && p.a && p.b && p.y && fc_cpu_matmul_init(&p.impl) == FC_OK &&
        fc_cpu_matmul_get(&p.impl, &key, &p.onednn) == FC_OK) {
        for (size_t i = 0; i < PROBE_B * PROBE_D; i++) p.x[i] = fc_bf16_from_f32((float)(i % 13) / 13.0f - 0.5f);
        for (size_t i = 0; i < PROBE_D * PROBE_D; i++) p.w[i] = fc_bf16_from_f32((float)(i % 11) / 11.0f - 0.5f);
        measured.hand_gflops = rate(&p, hand);
        measured.onednn_gflops = rate(&p, NULL);
        measured.measured = measured.hand_gflops > 0 && measured.onednn_gflops > 0;
    }
    fc_cpu_matmul_free(&p.impl);
    void *bufs[5] = {p.x, p.w, p.a, p.b, p.y};
    for (int i = 0; i < 5; i++) free(bufs[i]);
    fc_error_restore(&caller);
}

/* ---- the choice ---- */

/* FCAST_BF16_KERNEL=onednn | avx512bf16 | amx picks one (one that does not
 * run here leaves oneDNN); FCAST_NO_AMX leaves AMX out. */
static void choose_once(void) {
    if (!fc_cpu_bf16_native()) return;   /* no bf16 kernel runs: bf16 is carried in fp32 */
    const char *want = getenv("FCAST_BF16_KERNEL");
    if (want && *want && strcmp(want, "auto") != 0) {
        if (!strcmp(want, "amx")) chosen = usable(&amx);
        else if (!strcmp(want, "avx512bf16")) chosen = usable(&avx512bf16);
        return;
    }
    if (!getenv("FCAST_NO_AMX") && (chosen = usable(&amx))) return;
    const fc_bf16_block_kernel *hand = usable(&avx512bf16);
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
