/* Geometry of the CUDA backend's fixed-order reductions, beyond the split
 * of launch_geometry.h: the threads of one reduction block, the bounds of
 * each piece and the launch (one block per piece). Plain C, compiled into
 * fcast and libfcast-cuda.so; the piece bounds are FC_HD so that the
 * device kernels and the CPU test (test_reduce_geometry) use the same
 * arithmetic. */
#ifndef FC_BACKEND_REDUCE_GEOMETRY_H
#define FC_BACKEND_REDUCE_GEOMETRY_H

#include <stddef.h>
#include "backend/launch_geometry.h"
#include "core/hd.h"

/* Threads of one reduction block. A power of two, because the block's
 * shared-memory tree halves it down to one value; one double of shared
 * memory per thread and per tree (2 KB). Pieces hold at least
 * FC_REDUCE_MIN_BLOCK inputs, so every thread has 16 or more to add. */
#define FC_REDUCE_THREADS 256u

typedef struct {
    size_t start;   /* first input of the piece */
    size_t count;   /* inputs in it: block_len, less for the last piece */
} fc_reduce_piece;

/* Piece b (< s.blocks) of the split s of n inputs. Cut as the CPU backend
 * cuts its blocks; no (b + 1) * block_len, which could wrap near SIZE_MAX. */
FC_HD fc_reduce_piece fc_reduce_piece_of(fc_reduce_split s, size_t n, size_t b) {
    fc_reduce_piece p;
    p.start = b * s.block_len;
    p.count = n - p.start < s.block_len ? n - p.start : s.block_len;
    return p;
}

/* The launch of a reduction over n inputs: one block of FC_REDUCE_THREADS
 * per piece of fc_reduce_split_of(n), so at most FC_REDUCE_MAX_BLOCKS (the
 * partials the backend has room for); grid 0 when n == 0. */
fc_launch fc_reduce_launch(size_t n);

#endif
