/* How the GPU walks the draws of a Monte Carlo pricing (quant/mc_options.c,
 * backend/cuda/cuda_quant.cu): host arithmetic, compiled into fcast and into
 * libfcast-cuda.so, so the geometry of awkward counts is tested on machines
 * without a GPU (tests/test_mc_slices.c).
 *
 * The CPU sums draws in chunks of `chunk_draws`, each chunk in draw order,
 * and adds the chunk sums in chunk order. The GPU keeps that order: one
 * thread per draw writes the draw's two samples to a device buffer, then one
 * thread per chunk sums its chunk's samples in draw order. The buffer holds
 * a bounded number of draws, so the draws run in slices of whole chunks: a
 * chunk never straddles two slices, and every chunk sum is complete when its
 * slice ends. */
#ifndef FC_BACKEND_MC_SLICES_H
#define FC_BACKEND_MC_SLICES_H

#include <stddef.h>
#include <stdint.h>
#include "backend/launch_geometry.h"
#include "core/hd.h"

/* Device bytes for the samples of one slice: 64 MiB holds 2^21 draws of two
 * 16-byte samples (2048 chunks of 1024 draws), enough to fill any GPU, and
 * small beside any GPU's memory. */
#define FC_MC_SLICE_BYTES ((size_t)64 << 20)

/* Threads per block. Draws: the element-wise size (at most 256 threads, so
 * any register use fits an SM: 255 registers x 256 threads <= 64K). Chunk
 * sums: one warp per block, since a slice has only a few thousand chunks,
 * each a long serial sum, and small blocks spread them over every SM. */
#define FC_MC_DRAW_BLOCK FC_LAUNCH_BLOCK
#define FC_MC_CHUNK_BLOCK 32u

typedef struct {
    uint64_t n_draws;       /* all draws */
    uint32_t chunk_draws;   /* draws per chunk (the last chunk may hold fewer) */
    uint64_t n_chunks;      /* ceil(n_draws / chunk_draws) */
    uint64_t slice_chunks;  /* chunks per slice, >= 1 (the last slice may hold fewer) */
    uint64_t buffer_draws;  /* draws the sample buffer must hold: min(slice_chunks * chunk_draws, n_draws) */
    uint64_t n_slices;      /* ceil(n_chunks / slice_chunks); 0 when n_draws is 0 */
} fc_mc_slicing;

/* Slice i: its chunks [first_chunk, first_chunk + n_chunks) and their draws
 * [first_draw, first_draw + n_draws), and the two launches that cover it. */
typedef struct {
    uint64_t first_draw, n_draws;
    uint64_t first_chunk, n_chunks;
    fc_launch draws;        /* one thread per draw (grid-stride) */
    fc_launch chunks;       /* one thread per chunk (grid-stride) */
} fc_mc_slice;

/* ceil(n_draws / chunk_draws) without overflow; chunk_draws > 0. */
uint64_t fc_mc_chunk_count(uint64_t n_draws, uint32_t chunk_draws);

/* The slices of n_draws draws in chunks of chunk_draws (> 0), when a draw
 * needs bytes_per_draw (> 0) of buffer and a slice may use budget_bytes: as
 * many whole chunks as fit, and never fewer than one (a budget below one
 * chunk is exceeded by that chunk rather than refused). */
fc_mc_slicing fc_mc_slicing_plan(uint64_t n_draws, uint32_t chunk_draws, size_t bytes_per_draw,
                                 size_t budget_bytes);

/* Slice i < p->n_slices. */
fc_mc_slice fc_mc_slice_at(const fc_mc_slicing *p, uint64_t i);

/* Chunk c (< the slice's n_chunks) of a slice of n_draws draws: its draws
 * [*begin, *end) counted from the slice's first draw (the kernel's and the
 * tests' one formula). */
FC_HD void fc_mc_chunk_bounds(uint64_t n_draws, uint32_t chunk_draws, uint64_t c, uint64_t *begin, uint64_t *end) {
    *begin = c * chunk_draws;
    *end = n_draws - *begin > chunk_draws ? *begin + chunk_draws : n_draws;
}

#endif
