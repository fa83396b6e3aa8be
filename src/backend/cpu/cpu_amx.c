/* The bf16 block kernel on Intel AMX tiles (cpu_bf16_gemm.c does the rest).
 *
 * Why by hand: oneDNN sizes its tiles from CPUID leaf 0x1D (the tile
 * palette), which some hypervisors hide while still advertising AMX;
 * oneDNN then configures no tiles and dies of SIGILL (see cpu_isa.c), and
 * so does PyTorch. The AMX instructions themselves work on those machines,
 * and palette 1 is architectural (8 tiles of 16 rows x 64 bytes), so this
 * file drives them directly. It runs only where cpu_bf16_choice.c's forked
 * probe shows it computes a known product exactly (this file computes and
 * nothing more: the CPU's flags, the tile permission and the probe are
 * the choice's). Bare-metal AMX machines could use
 * oneDNN's kernels; we keep one path for bf16 where AMX runs, so results
 * do not depend on the hypervisor.
 *
 * Every 32 x 32 block of C is four accumulator tiles fed by two A and two B
 * tiles per 32 k (tiles 0-3 C, 4-5 A, 6-7 B). */
/* AMX intrinsics need x86-64 and gcc 11 / clang 12 or newer; elsewhere
 * there is no AMX kernel. */
#if !defined(FC_NO_AMX) && defined(__x86_64__) && \
    ((defined(__clang__) && __clang_major__ >= 12) || (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 11))
#define FC_HAVE_AMX 1
#else
#define FC_HAVE_AMX 0
#endif

#include "backend/cpu/cpu_internal.h"

#if FC_HAVE_AMX
#include <immintrin.h>
#include <string.h>

#define AMX_TARGET __attribute__((target("amx-tile,amx-bf16")))

typedef struct {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} __attribute__((packed, aligned(64))) amx_tile_config;

AMX_TARGET static void tiles_configure(void) {
    amx_tile_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    for (int t = 0; t < 8; t++) {
        cfg.colsb[t] = 64;
        cfg.rows[t] = 16;
    }
    _tile_loadconfig(&cfg);
}

AMX_TARGET static void tiles_release(void) { _tile_release(); }

/* out (32, 32) fp32 = A rows [m0, m0+32) . B columns [16*nb0, 16*nb0+32). */
AMX_TARGET static void block_product(const uint16_t *Ap, const uint16_t *Bp, size_t Kp, size_t m0, size_t nb0,
                                     float *out) {
    const uint16_t *a0 = Ap + m0 * Kp, *a1 = a0 + 16 * Kp;
    const uint16_t *b0 = Bp + nb0 * Kp * 16, *b1 = b0 + Kp * 16;
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    for (size_t k = 0; k < Kp; k += 32) {
        _tile_loadd(4, a0 + k, (long)(Kp * 2));
        _tile_loadd(5, a1 + k, (long)(Kp * 2));
        _tile_loadd(6, b0 + k * 16, 64);   /* 16 pair-rows of 32 values per 32 k */
        _tile_loadd(7, b1 + k * 16, 64);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
    }
    _tile_stored(0, out, 128);
    _tile_stored(1, out + 16, 128);
    _tile_stored(2, out + 16 * 32, 128);
    _tile_stored(3, out + 16 * 32 + 16, 128);
}

const fc_bf16_block_kernel fc_cpu_amx_kernel = {FC_BF16_KERNEL_AMX, tiles_configure, tiles_release, block_product};

#else /* !FC_HAVE_AMX: no kernel to run */
const fc_bf16_block_kernel fc_cpu_amx_kernel = {FC_BF16_KERNEL_AMX, NULL, NULL, NULL};
#endif
