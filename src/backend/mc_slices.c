/* The slices of a GPU Monte Carlo run: see mc_slices.h. Every count is
 * uint64_t and no product can exceed what it bounds (the budget, or
 * n_draws), so counts up to UINT64_MAX plan without overflow. */
#include "backend/mc_slices.h"

uint64_t fc_mc_chunk_count(uint64_t n_draws, uint32_t chunk_draws) {
    return n_draws / chunk_draws + (n_draws % chunk_draws != 0);   /* not (n + c - 1) / c: n may be near 2^64 */
}

fc_mc_slicing fc_mc_slicing_plan(uint64_t n_draws, uint32_t chunk_draws, size_t bytes_per_draw,
                                 size_t budget_bytes) {
    fc_mc_slicing p = {n_draws, chunk_draws, fc_mc_chunk_count(n_draws, chunk_draws), 1, 0, 0};
    uint64_t fit = (uint64_t)(budget_bytes / bytes_per_draw) / chunk_draws;   /* whole chunks in the budget */
    if (fit > p.slice_chunks) p.slice_chunks = fit;
    if (p.n_chunks && p.slice_chunks > p.n_chunks) p.slice_chunks = p.n_chunks;   /* no buffer beyond the run */
    /* slice_chunks * chunk_draws <= max(budget / bytes_per_draw, chunk_draws): no overflow */
    uint64_t full = p.slice_chunks * chunk_draws;
    p.buffer_draws = full < n_draws ? full : n_draws;
    p.n_slices = p.n_chunks / p.slice_chunks + (p.n_chunks % p.slice_chunks != 0);
    return p;
}

fc_mc_slice fc_mc_slice_at(const fc_mc_slicing *p, uint64_t i) {
    fc_mc_slice s;
    s.first_chunk = i * p->slice_chunks;   /* i < n_slices: below n_chunks */
    uint64_t left = p->n_chunks - s.first_chunk;
    s.n_chunks = left < p->slice_chunks ? left : p->slice_chunks;
    s.first_draw = s.first_chunk * p->chunk_draws;   /* below n_draws */
    /* The last slice ends at n_draws (its last chunk may be short); others end on a chunk boundary. */
    s.n_draws = s.first_chunk + s.n_chunks == p->n_chunks ? p->n_draws - s.first_draw
                                                            : s.n_chunks * p->chunk_draws;
    s.draws = fc_launch_1d((size_t)s.n_draws, FC_MC_DRAW_BLOCK, FC_LAUNCH_MAX_GRID);
    s.chunks = fc_launch_1d((size_t)s.n_chunks, FC_MC_CHUNK_BLOCK, FC_LAUNCH_MAX_GRID);
    return s;
}
