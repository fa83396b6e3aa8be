/* The CPU backend's few functions beyond the table (fc_backend_cpu_create is
 * declared in backend/backend.h). Free of oneDNN types so tests and tools
 * can include it. */
#ifndef FC_BACKEND_CPU_CPU_BACKEND_H
#define FC_BACKEND_CPU_CPU_BACKEND_H

#include <stddef.h>
#include "backend/backend.h"

/* How many oneDNN matmul primitives this backend has created so far: one per
 * distinct (kind, shape, bf16 or not) seen, forward ones also per activation
 * and bias (fp16 on CPU runs fp32 primitives). Lets tests check that the
 * steady state builds nothing. */
size_t fc_backend_cpu_primitives_created(const fc_backend *be);

/* 1 when this process found AMX advertised but not running and capped
 * oneDNN below it (cpu_isa.c); tools report it and pass the cap on to
 * other oneDNN users they start (ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16). */
int fc_cpu_amx_capped(void);

/* 1 when bf16 products run on fcast's own AMX kernels (cpu_amx.c): AMX
 * computes correctly here, checked by a forked probe. FCAST_NO_AMX=1 in
 * the environment turns them off. */
int fc_backend_cpu_uses_amx(void);
/* Which kernels run bf16 products (cpu_bf16_gemm.c): "fcast's AMX",
 * "fcast's AVX512-BF16" or "oneDNN"; FC_BF16_KERNEL_CARRIED where no
 * 16-bit kernel runs or none beats fp32 here, and bf16 values are carried
 * in fp32 (oneDNN's fp32 products of bf16-rounded values).
 * FCAST_BF16_KERNEL=amx|avx512bf16|onednn asks for one. */
#define FC_BF16_KERNEL_CARRIED "oneDNN fp32 on bf16 values"
const char *fc_backend_cpu_bf16_kernel_name(void);
/* The one-thread rates of cpu_bf16_rates.c, GFLOP/s (0: not measured). */
typedef struct {
    double fp32, onednn, hand;
} fc_bf16_rates;
/* How the choice was made (cpu_bf16_choice.c): measured 1 when the rates
 * were timed (without AMX, where oneDNN builds bf16 products); reason, one
 * sentence for reports; amx, what became of fcast's AMX kernel ("used",
 * "not advertised", "the check in a forked child failed", ...). */
typedef struct {
    int measured;
    fc_bf16_rates rates;
    const char *reason, *amx;
} fc_bf16_choice;
fc_bf16_choice fc_backend_cpu_bf16_choice(void);
/* The implementation oneDNN builds for that layer's product in fp32 (bf16
 * 0) or bf16, without timing it: "" where it builds none. */
void fc_cpu_onednn_impl_name(int bf16, char *name, size_t cap);

#endif
