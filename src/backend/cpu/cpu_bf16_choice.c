/* How bf16 products run on this CPU, decided once per process, the first
 * time bf16 is used: on fcast's AMX kernel, on fcast's AVX512-BF16
 * kernel, on oneDNN's bf16 kernels, or carried in fp32: fp32 FMAs on
 * bf16-rounded operands (fc_cpu_bf16_native 0). This file owns the
 * decision, whole: the CPU's flags (and the tile state the OS must grant
 * AMX), each kernel's check against a reference product in a forked
 * child, the environment's overrides, and the rule applied to the
 * measured rates (cpu_bf16_rates.c). The kernels (cpu_amx.c,
 * cpu_avx512bf16.c) only compute, and nothing here builds a backend.
 *
 * AMX, where its check passes, is several times anything else. Without it
 * no path wins everywhere: on AMD Zen 4 oneDNN 2.6's bf16 kernels run at
 * about twice its fp32 rate, on Intel cores without usable AMX at about
 * half of it, and fcast's AVX512-BF16 kernel near the instruction's rate
 * on both (bench/bench_isa_rates.c measures the instructions). So the
 * rates are measured, and where no 16-bit kernel beats fp32, bf16 is
 * carried in fp32: asking for bf16 then costs no speed, and, the products
 * of bf16 values being exact in fp32, it computes what a bf16 kernel with
 * fp32 accumulation computes up to the order of the sums.
 * FCAST_BF16_KERNEL pins a kernel, FCAST_BF16_CARRIED=1 the carried path. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#define FC_PROBE_TIMEOUT_MS 10000

/* The decision, made once (decide): the kernel (NULL: oneDNN's, or
 * carried when native is 0) and how it was reached. */
static const fc_bf16_block_kernel *chosen;
static int native;
static fc_bf16_choice choice = {.reason = "not decided", .amx = "not examined"};
static char reason_text[200];

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


/* fcast's AMX kernel where it runs, saying in choice.amx why not. */
static const fc_bf16_block_kernel *amx_kernel(void) {
    const fc_bf16_block_kernel *k = NULL;
    if (!fc_cpu_amx_kernel.block) choice.amx = "not built (the compiler lacks AMX intrinsics: gcc 11 or clang 12 needed)";
    else if (!cpu_has_amx_bf16()) choice.amx = "not advertised (CPUID)";
    else if (getenv("FCAST_NO_AMX")) choice.amx = "turned off (FCAST_NO_AMX)";
    else if (!tiles_permitted()) choice.amx = "advertised, but the OS does not grant the tile state (arch_prctl)";
    else if (!(k = usable(&amx))) choice.amx = "advertised, but its check in a forked child failed (a fault or a wrong product)";
    else choice.amx = "used";
    return k;
}

/* ---- the choice ---- */

fc_bf16_path fc_cpu_bf16_pick(double fp32, double onednn, double hand) {
    double best = hand > onednn ? hand : onednn;
    if (!(best > FC_BF16_MIN_GAIN * fp32)) return FC_BF16_PATH_CARRIED;
    return hand > FC_BF16_MARGIN * onednn ? FC_BF16_PATH_HAND : FC_BF16_PATH_ONEDNN;
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

static int env_set(const char *name) {
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* FCAST_BF16_KERNEL=onednn | avx512bf16 | amx: that kernel where it runs,
 * else oneDNN's; 0 when the variable asks for nothing (unset or auto). */
static int pinned(void) {
    const char *want = getenv("FCAST_BF16_KERNEL");
    if (!want || !*want || !strcmp(want, "auto")) return 0;
    if (!strcmp(want, "amx")) chosen = amx_kernel();
    else if (!strcmp(want, "avx512bf16")) chosen = usable(&avx512bf16);
    snprintf(reason_text, sizeof reason_text, "FCAST_BF16_KERNEL=%s", want);
    return 1;
}

/* Without AMX: the rates decide (fc_cpu_bf16_pick). */
static void measured_choice(void) {
    const fc_bf16_block_kernel *hand = usable(&avx512bf16);
    fc_cpu_bf16_rates(hand, &choice.rates);
    const fc_bf16_rates *r = &choice.rates;
    choice.measured = r->fp32 > 0 && r->onednn > 0;
    if (!choice.measured) {   /* a failed timing leaves the earlier default: oneDNN's kernels */
        snprintf(reason_text, sizeof reason_text, "the rates could not be measured: oneDNN's kernels");
        return;
    }
    double best = (hand && r->hand > r->onednn ? r->hand : r->onednn) / r->fp32;
    switch (fc_cpu_bf16_pick(r->fp32, r->onednn, hand ? r->hand : 0)) {
    case FC_BF16_PATH_CARRIED:
        native = 0;
        snprintf(reason_text, sizeof reason_text,
                 "no 16-bit kernel beats fp32 here: the best runs at %.2fx fp32's rate on one thread",
                 best);
        return;
    case FC_BF16_PATH_HAND:
        chosen = hand;
        snprintf(reason_text, sizeof reason_text, "%.2fx fp32's rate on one thread, and clearly ahead of oneDNN's", best);
        return;
    case FC_BF16_PATH_ONEDNN:
        snprintf(reason_text, sizeof reason_text, "%.2fx fp32's rate on one thread", best);
        return;
    }
}

static void decide(void) {
    fc_cpu_isa_guard();   /* the ISA oneDNN may use is settled before it is asked */
    choice.reason = reason_text;
    if (env_set("FCAST_BF16_CARRIED")) {
        snprintf(reason_text, sizeof reason_text, "FCAST_BF16_CARRIED=1");
        return;
    }
    if (!onednn_builds_bf16()) {
        snprintf(reason_text, sizeof reason_text,
                 "no bf16 kernel runs on this CPU: oneDNN's need AVX-512, fcast's AVX512-BF16 or AMX");
        return;
    }
    native = 1;
    if (pinned()) return;
    if ((chosen = amx_kernel())) {
        snprintf(reason_text, sizeof reason_text, "AMX computed a known product exactly here");
        return;
    }
    measured_choice();
}

static void decide_once(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, decide);
}

int fc_cpu_bf16_native(void) {
    decide_once();
    return native;
}

const fc_bf16_block_kernel *fc_cpu_bf16_kernel(void) {
    decide_once();
    return chosen;
}

const char *fc_backend_cpu_bf16_kernel_name(void) {
    decide_once();
    return chosen ? chosen->name : native ? "oneDNN" : FC_BF16_KERNEL_CARRIED;
}

int fc_backend_cpu_uses_amx(void) {
    decide_once();
    return chosen == &fc_cpu_amx_kernel;
}

fc_bf16_choice fc_backend_cpu_bf16_choice(void) {
    decide_once();
    return choice;
}
