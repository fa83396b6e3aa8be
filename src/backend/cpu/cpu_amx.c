/* bf16 matrix products on Intel AMX, written by hand.
 *
 * Why: oneDNN has excellent AMX kernels, but it sizes its tiles from CPUID
 * leaf 0x1D (the tile palette), which some hypervisors hide while still
 * advertising AMX; oneDNN then configures no tiles and dies of SIGILL (see
 * cpu_isa.c), and so does PyTorch. The AMX instructions themselves work on
 * those machines, and palette 1 is architectural (8 tiles of 16 rows x 64
 * bytes), so this file drives them directly. It runs only where a forked
 * probe shows it computes a known product exactly; elsewhere oneDNN does
 * the work. Bare-metal AMX machines could use oneDNN's kernels; we keep one
 * path for bf16 where AMX runs, so results do not depend on the hypervisor.
 *
 * C (M,N) fp32 (=, or +=) A (M,K) . B (K,N), A and B bf16 read through
 * (row, column) strides, so the three products of a dense layer (x.w^T,
 * dy.w, dy^T.x) need no transposed copies of their own:
 *   1. A is copied into a zero-padded row-major block (M, K rounded up to
 *      32), B into the VNNI layout TDPBF16PS reads (pairs of k interleaved,
 *      16 columns per block, K rounded up to 32, N to 32);
 *   2. every 32 x 32 block of C is four accumulator tiles fed by two A and
 *      two B tiles per 32 k (tiles 0-3 C, 4-5 A, 6-7 B);
 *   3. the block is written out with bias, ReLU and accumulation applied.
 * Padding with zeros keeps every tile full, so there is one tile
 * configuration and no edge kernels. */
/* AMX intrinsics need x86-64 and gcc 11 / clang 12 or newer; elsewhere the
 * entry points below report AMX as unusable and oneDNN does all bf16 work. */
#if !defined(FC_NO_AMX) && defined(__x86_64__) && \
    ((defined(__clang__) && __clang_major__ >= 12) || (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 11))
#define FC_HAVE_AMX 1
#else
#define FC_HAVE_AMX 0
#endif

#if FC_HAVE_AMX
#include <cpuid.h>
#include <immintrin.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/cpu_internal.h"
#include "core/error.h"
#include "kernels/lowp.h"

#define AMX_TARGET __attribute__((target("amx-tile,amx-bf16")))
#define FC_ARCH_REQ_XCOMP_PERM 0x1023
#define FC_XFEATURE_XTILEDATA 18

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* ---- packing ---- */

/* dst (Mp, Kp) row-major = A zero-padded. A transposed source (column
 * stride != 1) is copied in 32 x 32 blocks, reading along its contiguous
 * dimension, so each source line is fetched once. */
static void pack_a(fc_backend *be, uint16_t *dst, const fc_amx_operand *a, size_t M, size_t K, size_t Mp,
                   size_t Kp) {
    if (a->col_stride == 1) {
#pragma omp parallel for num_threads(be->threads) schedule(static)
        for (size_t m = 0; m < Mp; m++) {
            uint16_t *row = dst + m * Kp;
            size_t k = m < M ? K : 0;
            if (m < M) memcpy(row, a->p + m * a->row_stride, K * sizeof *row);
            for (; k < Kp; k++) row[k] = 0;
        }
        return;
    }
#pragma omp parallel for collapse(2) num_threads(be->threads) schedule(static)
    for (size_t m0 = 0; m0 < Mp; m0 += 32)
        for (size_t k0 = 0; k0 < Kp; k0 += 32)
            for (size_t k = k0; k < k0 + 32; k++)
                for (size_t m = m0; m < m0 + 32; m++)
                    dst[m * Kp + k] = m < M && k < K ? a->p[m * a->row_stride + k * a->col_stride] : 0;
}

/* B[k][n], zero outside (K, N). */
static uint16_t b_at(const fc_amx_operand *b, size_t K, size_t N, size_t k, size_t n) {
    return k < K && n < N ? b->p[k * b->row_stride + n * b->col_stride] : 0;
}

/* One VNNI row: the (k0, k0+1) pairs of 16 columns from n0. Interior rows
 * of the two layouts the dense layer has take the fast loops: n contiguous
 * (pairs come from two source rows) or k contiguous (each pair is one
 * 4-byte load). */
static void pack_b_row(uint16_t *row, const fc_amx_operand *b, size_t K, size_t N, size_t k0, size_t n0) {
    int interior = k0 + 1 < K && n0 + 16 <= N;
    if (interior && b->col_stride == 1) {
        const uint16_t *r0 = b->p + k0 * b->row_stride + n0, *r1 = r0 + b->row_stride;
        for (size_t j = 0; j < 16; j++) row[2 * j] = r0[j], row[2 * j + 1] = r1[j];
    } else if (interior && b->row_stride == 1) {
        for (size_t j = 0; j < 16; j++) memcpy(row + 2 * j, b->p + (n0 + j) * b->col_stride + k0, 4);
    } else {
        for (size_t j = 0; j < 16; j++) {
            row[2 * j] = b_at(b, K, N, k0, n0 + j);
            row[2 * j + 1] = b_at(b, K, N, k0 + 1, n0 + j);
        }
    }
}

/* dst: for each block of 16 columns, Kp/2 rows of 16 (k, k+1) pairs. */
static void pack_b(fc_backend *be, uint16_t *dst, const fc_amx_operand *b, size_t K, size_t N, size_t Kp,
                   size_t Np) {
    size_t blocks = Np / 16, pairs = Kp / 2;
#pragma omp parallel for collapse(2) num_threads(be->threads) schedule(static)
    for (size_t nb = 0; nb < blocks; nb++)
        for (size_t kp = 0; kp < pairs; kp++) pack_b_row(dst + (nb * pairs + kp) * 32, b, K, N, 2 * kp, nb * 16);
}

/* ---- the tile kernel ---- */

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

/* The valid part of a 32 x 32 block into C, with bias, ReLU, accumulation. */
static void block_write(const fc_amx_output *o, const float *out, size_t m0, size_t n0, size_t M, size_t N) {
    size_t rows = M - m0 < 32 ? M - m0 : 32, cols = N - n0 < 32 ? N - n0 : 32;
    for (size_t r = 0; r < rows; r++) {
        float *c = o->c + (m0 + r) * o->ldc + n0;
        const float *v = out + r * 32;
        for (size_t j = 0; j < cols; j++) {
            float x = v[j];
            if (o->accumulate) x += c[j];
            if (o->bias) x += o->bias[n0 + j];
            /* max(x, 0) as oneDNN's fused ReLU computes it (a NaN becomes 0), so
             * bf16 gives the same results on AMX and on oneDNN's kernels */
            c[j] = o->relu && !(x > 0.0f) ? 0.0f : x;
        }
    }
}

static void multiply_blocks(fc_backend *be, const uint16_t *Ap, const uint16_t *Bp, size_t Mp,
                                       size_t Np, size_t Kp, size_t M, size_t N, const fc_amx_output *o) {
    size_t mblocks = Mp / 32, nblocks = Np / 32;
#pragma omp parallel num_threads(be->threads)
    {
        float out[32 * 32] __attribute__((aligned(64)));
        tiles_configure();   /* tile state is per thread */
#pragma omp for collapse(2) schedule(static)
        for (size_t mb = 0; mb < mblocks; mb++)
            for (size_t nb = 0; nb < nblocks; nb++) {
                block_product(Ap, Bp, Kp, mb * 32, nb * 2, out);
                block_write(o, out, mb * 32, nb * 32, M, N);
            }
        tiles_release();
    }
}

/* ---- entry ---- */

static fc_status reserve(void **buf, size_t *have, size_t bytes) {
    if (bytes <= *have) return FC_OK;
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes) != 0)
        return fc_error(FC_ERR_MEMORY, "cannot allocate %zu bytes for AMX operand blocks", bytes);
    free(*buf);
    *buf = p;
    *have = bytes;
    return FC_OK;
}

fc_status fc_cpu_amx_gemm(fc_backend *be, const fc_amx_operand *a, const fc_amx_operand *b, size_t M, size_t N,
                          size_t K, const fc_amx_output *o) {
    fc_cpu_impl *impl = fc_cpu_impl_of(be);
    size_t Mp = round_up(M, 32), Kp = round_up(K, 32);
    FC_TRY(reserve(&impl->amx_a, &impl->amx_a_bytes, Mp * Kp * sizeof(uint16_t)));
    fc_cpu_use_threads(be);
    pack_a(be, impl->amx_a, a, M, K, Mp, Kp);
    return fc_cpu_amx_gemm_packed(be, impl->amx_a, b, M, N, K, o);
}

fc_status fc_cpu_amx_gemm_packed(fc_backend *be, const uint16_t *Ap, const fc_amx_operand *b, size_t M, size_t N,
                                 size_t K, const fc_amx_output *o) {
    fc_cpu_impl *impl = fc_cpu_impl_of(be);
    size_t Mp = round_up(M, 32), Np = round_up(N, 32), Kp = round_up(K, 32);
    FC_TRY(reserve(&impl->amx_b, &impl->amx_b_bytes, Kp * Np * sizeof(uint16_t)));
    fc_cpu_use_threads(be);
    pack_b(be, impl->amx_b, b, K, N, Kp, Np);
    multiply_blocks(be, Ap, impl->amx_b, Mp, Np, Kp, M, N, o);
    return FC_OK;
}

fc_status fc_cpu_amx_transposed_block(fc_backend *be, size_t M, size_t K, uint16_t **block, size_t *ld) {
    fc_cpu_impl *impl = fc_cpu_impl_of(be);
    size_t Mp = round_up(M, 32), Kp = round_up(K, 32);
    FC_TRY(reserve(&impl->amx_t, &impl->amx_t_bytes, Mp * Kp * sizeof(uint16_t)));
    *block = impl->amx_t;
    *ld = Kp;
    return FC_OK;
}

void fc_cpu_amx_workspace(size_t B, size_t I, size_t O, size_t ws[3]) {
    size_t b = round_up(B, 32), i = round_up(I, 32), o = round_up(O, 32), e = sizeof(uint16_t);
    ws[0] = (b * i > b * o ? b * i : b * o) * e;          /* A: x (forward), dy (input gradient) */
    size_t kn = i * o > b * i ? i * o : b * i;            /* B: w^T, w, x */
    ws[1] = kn * e;
    ws[2] = o * b * e;                                    /* dy^T */
}

void fc_cpu_amx_pad_block(uint16_t *block, size_t M, size_t K) {
    size_t Mp = round_up(M, 32), Kp = round_up(K, 32);
    if (Kp > K)
        for (size_t m = 0; m < M; m++) memset(block + m * Kp + K, 0, (Kp - K) * sizeof *block);
    memset(block + M * Kp, 0, (Mp - M) * Kp * sizeof *block);
}

void fc_cpu_amx_free(fc_cpu_impl *impl) {
    free(impl->amx_a);
    free(impl->amx_b);
    free(impl->amx_t);
    impl->amx_a = impl->amx_b = impl->amx_t = NULL;
    impl->amx_a_bytes = impl->amx_b_bytes = impl->amx_t_bytes = 0;
}

/* ---- is AMX usable here? ---- */

static int cpu_has_amx_bf16(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return ((d >> 22) & 1) && ((d >> 24) & 1);   /* AMX-BF16 and AMX-TILE */
}

/* A 40 x 36 by 36 x 40 product of small integers (exact in bf16 and fp32)
 * against plain loops; 0 when every element matches. Runs in the child. */
static int probe_product(void) {
    if (syscall(SYS_arch_prctl, FC_ARCH_REQ_XCOMP_PERM, FC_XFEATURE_XTILEDATA) != 0) return 1;
    enum { M = 40, K = 36, N = 40 };
    static uint16_t A[M * K], B[K * N];
    static float C[M * N];
    static float want[M * N];
    for (int i = 0; i < M * K; i++) A[i] = fc_bf16_from_f32((float)(i % 7 - 3));
    for (int i = 0; i < K * N; i++) B[i] = fc_bf16_from_f32((float)(i % 5 - 2));
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            float s = 0;
            for (int k = 0; k < K; k++) s += (float)(((m * K + k) % 7) - 3) * (float)(((k * N + n) % 5) - 2);
            want[m * N + n] = s;
        }
    fc_backend *be = NULL;
    if (fc_backend_cpu_create(1, &be) != FC_OK) return 1;
    fc_amx_operand a = {A, K, 1}, b = {B, N, 1};
    fc_amx_output o = {.c = C, .ldc = N};
    int bad = fc_cpu_amx_gemm(be, &a, &b, M, N, K, &o) != FC_OK;
    for (int i = 0; i < M * N && !bad; i++) bad = C[i] != want[i];
    fc_backend_destroy(&be);
    return bad;
}

static int amx_usable;

static void amx_check_once(void) {
    if (getenv("FCAST_NO_AMX") || !cpu_has_amx_bf16()) return;
    /* the permission is per process: ask in the parent too */
    if (syscall(SYS_arch_prctl, FC_ARCH_REQ_XCOMP_PERM, FC_XFEATURE_XTILEDATA) != 0) return;
    amx_usable = fc_cpu_probe_in_child(probe_product, 10000);
}

int fc_cpu_amx_usable(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, amx_check_once);
    return amx_usable;
}

int fc_backend_cpu_uses_amx(void) { return fc_cpu_amx_usable(); }

#else /* !FC_HAVE_AMX */
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/cpu_internal.h"
#include "core/error.h"

static fc_status no_amx(void) { return fc_error(FC_ERR_BACKEND, "AMX kernels are not built for this target"); }
int fc_cpu_amx_usable(void) { return 0; }
int fc_backend_cpu_uses_amx(void) { return 0; }
fc_status fc_cpu_amx_gemm(fc_backend *be, const fc_amx_operand *a, const fc_amx_operand *b, size_t M, size_t N,
                          size_t K, const fc_amx_output *o) {
    (void)be, (void)a, (void)b, (void)M, (void)N, (void)K, (void)o;
    return no_amx();
}
fc_status fc_cpu_amx_gemm_packed(fc_backend *be, const uint16_t *Ap, const fc_amx_operand *b, size_t M, size_t N,
                                 size_t K, const fc_amx_output *o) {
    (void)be, (void)Ap, (void)b, (void)M, (void)N, (void)K, (void)o;
    return no_amx();
}
fc_status fc_cpu_amx_transposed_block(fc_backend *be, size_t M, size_t K, uint16_t **block, size_t *ld) {
    (void)be, (void)M, (void)K, (void)block, (void)ld;
    return no_amx();
}
void fc_cpu_amx_pad_block(uint16_t *block, size_t M, size_t K) { (void)block, (void)M, (void)K; }
void fc_cpu_amx_workspace(size_t B, size_t I, size_t O, size_t ws[3]) {
    (void)B, (void)I, (void)O;
    ws[0] = ws[1] = ws[2] = 0;
}
void fc_cpu_amx_free(fc_cpu_impl *impl) { (void)impl; }
#endif
