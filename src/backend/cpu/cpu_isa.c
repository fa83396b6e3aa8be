/* Keeps oneDNN off AMX where AMX does not run.
 *
 * Some virtual machines advertise AMX in CPUID, and the kernel grants the
 * tile state (arch_prctl ARCH_REQ_XCOMP_PERM), yet oneDNN's AMX kernels die
 * of SIGILL at their first tile instruction (seen on this project's VMs;
 * PyTorch 2.15's bf16 matmuls die the same way). No flag tells this in
 * advance, so, once per process and only when CPUID advertises AMX, a forked
 * child (cpu_probe.c) runs one small bf16 oneDNN matmul of a shape oneDNN
 * gives to AMX. If it does not report success, oneDNN is capped at the best ISA
 * below AMX (avx512_core_bf16) before it builds any kernel in this process.
 * A user's DNNL_MAX_CPU_ISA / ONEDNN_MAX_CPU_ISA setting wins. */
#include <cpuid.h>
#include <pthread.h>
#include <stdlib.h>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/cpu_internal.h"

static int amx_capped;

static int cpu_advertises_amx(void) {
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (d >> 24) & 1;   /* AMX-TILE */
#else
    return 0;
#endif
}

/* One bf16 matmul (64x64 by 64x64, fp32 output) through oneDNN; 0 if it ran. */
static int run_small_bf16_matmul(void) {
    enum { N = 64 };
    static uint16_t a[N * N], w[N * N];
    static float y[N * N];
    dnnl_engine_t eng;
    dnnl_stream_t st;
    dnnl_memory_desc_t md_a, md_w, md_y;
    dnnl_dims_t dims = {N, N};
    dnnl_matmul_desc_t desc;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t prim;
    dnnl_memory_t ma, mw, my;
    if (dnnl_engine_create(&eng, dnnl_cpu, 0) || dnnl_stream_create(&st, eng, dnnl_stream_default_flags)) return 1;
    if (dnnl_memory_desc_init_by_tag(&md_a, 2, dims, dnnl_bf16, dnnl_ab) ||
        dnnl_memory_desc_init_by_tag(&md_w, 2, dims, dnnl_bf16, dnnl_ab) ||
        dnnl_memory_desc_init_by_tag(&md_y, 2, dims, dnnl_f32, dnnl_ab))
        return 1;
    if (dnnl_matmul_desc_init(&desc, &md_a, &md_w, NULL, &md_y) ||
        dnnl_primitive_desc_create(&pd, &desc, NULL, eng, NULL) || dnnl_primitive_create(&prim, pd))
        return 1;
    if (dnnl_memory_create(&ma, &md_a, eng, a) || dnnl_memory_create(&mw, &md_w, eng, w) ||
        dnnl_memory_create(&my, &md_y, eng, y))
        return 1;
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, my}};
    return dnnl_primitive_execute(prim, st, 3, args) || dnnl_stream_wait(st);
}

static void isa_guard_once(void) {
    if (getenv("DNNL_MAX_CPU_ISA") || getenv("ONEDNN_MAX_CPU_ISA")) return;
    if (!cpu_advertises_amx() || fc_cpu_probe_in_child(run_small_bf16_matmul, 10000)) return;
    amx_capped = dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx512_core_bf16) == dnnl_success;
}

void fc_cpu_isa_guard(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, isa_guard_once);
}

int fc_cpu_amx_capped(void) {
    fc_cpu_isa_guard();
    return amx_capped;
}
