/* Launch geometry of the CUDA backend's kernels, and the split of
 * fixed-order reductions that the CPU backend shares: host arithmetic,
 * compiled into fcast and into libfcast-cuda.so, so that grid sizes for
 * awkward shapes are tested on machines without a GPU (test_launch_geometry). */
#ifndef FC_BACKEND_LAUNCH_GEOMETRY_H
#define FC_BACKEND_LAUNCH_GEOMETRY_H

#include <stddef.h>

/* Threads per block of the element-wise kernels, and the most blocks one
 * launch asks for: kernels loop with a grid stride past that, so any n
 * (up to SIZE_MAX) is covered by a grid within every GPU's limits
 * (2^31 - 1 blocks in x). */
#define FC_LAUNCH_BLOCK 256u
#define FC_LAUNCH_MAX_GRID 65535u

typedef struct {
    unsigned grid;    /* blocks (0: nothing to do, do not launch) */
    unsigned block;   /* threads per block */
} fc_launch;

/* A grid-stride launch over n items with `block` threads per block and at
 * most max_grid blocks: grid = min(ceil(n / block), max_grid). */
fc_launch fc_launch_1d(size_t n, unsigned block, unsigned max_grid);

/* Fixed-order reductions (sums of squares, masked losses): n inputs are cut
 * into `blocks` pieces of block_len (the last one shorter) whose bounds
 * depend on n alone, never on threads or the device; each piece is summed in
 * one fixed order and the pieces are added in piece order. So a reduction
 * gives the same bits for any thread count, and a GPU gives the same bits
 * run after run. */
#define FC_REDUCE_MAX_BLOCKS 256
#define FC_REDUCE_MIN_BLOCK 4096

typedef struct {
    size_t block_len;
    size_t blocks;    /* 0 when n == 0 */
} fc_reduce_split;

fc_reduce_split fc_reduce_split_of(size_t n);

#endif
