/* bf16 matrix products written by hand, on AMX tiles or AVX512-BF16 dot
 * products, for the CPUs where oneDNN 2.6's bf16 kernels are slow or do
 * not run.
 *
 * Why by hand: oneDNN has excellent AMX kernels but sizes its tiles from a
 * CPUID leaf some hypervisors hide (cpu_amx.c), and on CPUs with
 * AVX512-BF16 but no AMX (AMD Zen 4 / Zen 5, Intel cores in VMs that hide
 * the tile state) Debian's oneDNN 2.6 runs bf16 at about half its fp32
 * speed, although VDPBF16PS does twice the multiply-adds of an fp32 FMA.
 *
 * C (M,N) fp32 (=, or +=) A (M,K) . B (K,N), A and B bf16 read through
 * (row, column) strides, so the three products of a dense layer (x.w^T,
 * dy.w, dy^T.x) need no transposed copies of their own:
 *   1. A is copied into a zero-padded row-major block (M, K rounded up to
 *      32), B into the VNNI layout both instruction sets read (pairs of k
 *      interleaved, 16 columns per block, K rounded up to 32, N to 32);
 *   2. every 32 x 32 block of C is computed by a block kernel
 *      (cpu_amx.c, cpu_avx512bf16.c), which only computes: whether one
 *      runs here, and which, is cpu_bf16_choice.c's (the caller passes
 *      it);
 *   3. the block is written out with bias, ReLU and accumulation applied.
 * Padding with zeros keeps every block full, so there are no edge kernels.
 * Both kernels multiply bf16 pairs into fp32 sums, so results differ
 * between them only by the order of the sums. */
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/cpu_internal.h"
#include "core/error.h"

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* ---- packing ---- */

/* dst (Mp, Kp) row-major = A zero-padded. A transposed source (column
 * stride != 1) is copied in 32 x 32 blocks, reading along its contiguous
 * dimension, so each source line is fetched once. */
void fc_cpu_bf16_pack_a(int threads, uint16_t *dst, const fc_bf16_operand *a, size_t M, size_t K, size_t Mp,
                        size_t Kp) {
    if (a->col_stride == 1) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (size_t m = 0; m < Mp; m++) {
            uint16_t *row = dst + m * Kp;
            size_t k = m < M ? K : 0;
            if (m < M) memcpy(row, a->p + m * a->row_stride, K * sizeof *row);
            for (; k < Kp; k++) row[k] = 0;
        }
        return;
    }
#pragma omp parallel for collapse(2) num_threads(threads) schedule(static)
    for (size_t m0 = 0; m0 < Mp; m0 += 32)
        for (size_t k0 = 0; k0 < Kp; k0 += 32)
            for (size_t k = k0; k < k0 + 32; k++)
                for (size_t m = m0; m < m0 + 32; m++)
                    dst[m * Kp + k] = m < M && k < K ? a->p[m * a->row_stride + k * a->col_stride] : 0;
}

/* B[k][n], zero outside (K, N). */
static uint16_t b_at(const fc_bf16_operand *b, size_t K, size_t N, size_t k, size_t n) {
    return k < K && n < N ? b->p[k * b->row_stride + n * b->col_stride] : 0;
}

/* One VNNI row: the (k0, k0+1) pairs of 16 columns from n0. Interior rows
 * of the two layouts the dense layer has take the fast loops: n contiguous
 * (pairs come from two source rows) or k contiguous (each pair is one
 * 4-byte load). */
static void pack_b_row(uint16_t *row, const fc_bf16_operand *b, size_t K, size_t N, size_t k0, size_t n0) {
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
static void pack_b(int threads, uint16_t *dst, const fc_bf16_operand *b, size_t K, size_t N, size_t Kp,
                   size_t Np) {
    size_t blocks = Np / 16, pairs = Kp / 2;
#pragma omp parallel for collapse(2) num_threads(threads) schedule(static)
    for (size_t nb = 0; nb < blocks; nb++)
        for (size_t kp = 0; kp < pairs; kp++) pack_b_row(dst + (nb * pairs + kp) * 32, b, K, N, 2 * kp, nb * 16);
}

/* ---- the blocks ---- */

/* The valid part of a 32 x 32 block into C, with bias, ReLU, accumulation. */
static void block_write(const fc_bf16_output *o, const float *out, size_t m0, size_t n0, size_t M, size_t N) {
    size_t rows = M - m0 < 32 ? M - m0 : 32, cols = N - n0 < 32 ? N - n0 : 32;
    for (size_t r = 0; r < rows; r++) {
        float *c = o->c + (m0 + r) * o->ldc + n0;
        const float *v = out + r * 32;
        for (size_t j = 0; j < cols; j++) {
            float x = v[j];
            if (o->accumulate) x += c[j];
            if (o->bias) x += o->bias[n0 + j];
            /* max(x, 0) as oneDNN's fused ReLU computes it (a NaN becomes 0), so
             * bf16 gives the same results on every kernel */
            c[j] = o->relu && !(x > 0.0f) ? 0.0f : x;
        }
    }
}

static void multiply_blocks(int threads, const fc_bf16_block_kernel *k, const uint16_t *Ap, const uint16_t *Bp,
                            size_t Mp, size_t Np, size_t Kp, size_t M, size_t N, const fc_bf16_output *o) {
    size_t mblocks = Mp / 32, nblocks = Np / 32;
#pragma omp parallel num_threads(threads)
    {
        float out[32 * 32] __attribute__((aligned(64)));
        if (k->thread_begin) k->thread_begin();   /* AMX tile state is per thread */
#pragma omp for collapse(2) schedule(static)
        for (size_t mb = 0; mb < mblocks; mb++)
            for (size_t nb = 0; nb < nblocks; nb++) {
                k->block(Ap, Bp, Kp, mb * 32, nb * 2, out);
                block_write(o, out, mb * 32, nb * 32, M, N);
            }
        if (k->thread_end) k->thread_end();
    }
}

/* ---- entry ---- */

void fc_cpu_bf16_multiply(int threads, const fc_bf16_block_kernel *k, const uint16_t *Ap, uint16_t *Bp,
                          const fc_bf16_operand *b, size_t M, size_t N, size_t K, const fc_bf16_output *o) {
    size_t Mp = round_up(M, 32), Np = round_up(N, 32), Kp = round_up(K, 32);
    pack_b(threads, Bp, b, K, N, Kp, Np);
    multiply_blocks(threads, k, Ap, Bp, Mp, Np, Kp, M, N, o);
}

size_t fc_cpu_bf16_padded(size_t n) { return round_up(n, 32); }

static fc_status reserve(void **buf, size_t *have, size_t bytes) {
    if (bytes <= *have) return FC_OK;
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes) != 0)
        return fc_error(FC_ERR_MEMORY, "cannot allocate %zu bytes for bf16 operand blocks", bytes);
    free(*buf);
    *buf = p;
    *have = bytes;
    return FC_OK;
}

fc_status fc_cpu_bf16_gemm(fc_backend *be, const fc_bf16_block_kernel *k, const fc_bf16_operand *a,
                           const fc_bf16_operand *b, size_t M, size_t N, size_t K, const fc_bf16_output *o) {
    fc_cpu_impl *impl = fc_cpu_impl_of(be);
    size_t Mp = round_up(M, 32), Kp = round_up(K, 32);
    FC_TRY(reserve(&impl->bf16_a, &impl->bf16_a_bytes, Mp * Kp * sizeof(uint16_t)));
    fc_cpu_use_threads(be);
    fc_cpu_bf16_pack_a(be->threads, impl->bf16_a, a, M, K, Mp, Kp);
    return fc_cpu_bf16_gemm_packed(be, k, impl->bf16_a, b, M, N, K, o);
}

fc_status fc_cpu_bf16_gemm_packed(fc_backend *be, const fc_bf16_block_kernel *k, const uint16_t *Ap,
                                  const fc_bf16_operand *b, size_t M, size_t N, size_t K, const fc_bf16_output *o) {
    fc_cpu_impl *impl = fc_cpu_impl_of(be);
    size_t Np = round_up(N, 32), Kp = round_up(K, 32);
    FC_TRY(reserve(&impl->bf16_b, &impl->bf16_b_bytes, Kp * Np * sizeof(uint16_t)));
    fc_cpu_use_threads(be);
    fc_cpu_bf16_multiply(be->threads, k, Ap, impl->bf16_b, b, M, N, K, o);
    return FC_OK;
}

fc_status fc_cpu_bf16_transposed_block(fc_backend *be, size_t M, size_t K, uint16_t **block, size_t *ld) {
    fc_cpu_impl *impl = fc_cpu_impl_of(be);
    size_t Mp = round_up(M, 32), Kp = round_up(K, 32);
    FC_TRY(reserve(&impl->bf16_t, &impl->bf16_t_bytes, Mp * Kp * sizeof(uint16_t)));
    *block = impl->bf16_t;
    *ld = Kp;
    return FC_OK;
}

void fc_cpu_bf16_workspace(size_t B, size_t I, size_t O, size_t ws[3]) {
    size_t b = round_up(B, 32), i = round_up(I, 32), o = round_up(O, 32), e = sizeof(uint16_t);
    ws[0] = (b * i > b * o ? b * i : b * o) * e;          /* A: x (forward), dy (input gradient) */
    size_t kn = i * o > b * i ? i * o : b * i;            /* B: w^T, w, x */
    ws[1] = kn * e;
    ws[2] = o * b * e;                                    /* dy^T */
}

void fc_cpu_bf16_pad_block(uint16_t *block, size_t M, size_t K) {
    size_t Mp = round_up(M, 32), Kp = round_up(K, 32);
    if (Kp > K)
        for (size_t m = 0; m < M; m++) memset(block + m * Kp + K, 0, (Kp - K) * sizeof *block);
    memset(block + M * Kp, 0, (Mp - M) * Kp * sizeof *block);
}

void fc_cpu_bf16_free(fc_cpu_impl *impl) {
    free(impl->bf16_a);
    free(impl->bf16_b);
    free(impl->bf16_t);
    impl->bf16_a = impl->bf16_b = impl->bf16_t = NULL;
    impl->bf16_a_bytes = impl->bf16_b_bytes = impl->bf16_t_bytes = 0;
}
