/* The geometry of the CUDA backend's fixed-order reductions
 * (backend/reduce_geometry.c), checked on machines without a GPU: for
 * awkward sizes, one block per piece and never more blocks than partials,
 * pieces that tile [0, n) in order, threads whose strided subsets tile each
 * piece, a tree block size the shared-memory halving can use, and
 * grid-stride indices that cannot wrap near SIZE_MAX. */
#include <stdint.h>
#include <stdlib.h>

#include "backend/launch_geometry.h"
#include "backend/reduce_geometry.h"
#include "check.h"

static void test_tree_shape(void) {
    unsigned t = FC_REDUCE_THREADS;
    CHECK(t >= 32 && t <= 1024);                    /* a whole number of warps, within CUDA's block limit */
    CHECK((t & (t - 1)) == 0);                      /* the tree halves it to exactly one */
    CHECK(2 * t * sizeof(double) <= 48 * 1024);     /* two trees fit the static shared memory */
    CHECK(FC_REDUCE_MIN_BLOCK >= FC_REDUCE_THREADS);   /* no idle thread in a full piece */
}

/* Inputs thread t of a block visits in [0, count): t, t + T, ... */
static size_t thread_share(size_t count, size_t t) {
    return t < count ? (count - t - 1) / FC_REDUCE_THREADS + 1 : 0;
}

/* The pieces of n tile [0, n) in piece order, and within each the threads'
 * strided subsets (disjoint: one residue mod T each) add up to the piece. */
static void check_pieces(size_t n) {
    fc_reduce_split s = fc_reduce_split_of(n);
    fc_launch l = fc_reduce_launch(n);
    CHECK_MSG(l.grid == s.blocks, "n=%zu: grid %u for %zu pieces", n, l.grid, s.blocks);
    CHECK(l.grid <= FC_REDUCE_MAX_BLOCKS && l.block == FC_REDUCE_THREADS);
    if (n == 0) {
        CHECK(l.grid == 0);
        return;
    }
    size_t end = 0;
    for (size_t b = 0; b < s.blocks; b++) {
        fc_reduce_piece p = fc_reduce_piece_of(s, n, b);
        CHECK_MSG(p.start == end, "n=%zu piece %zu starts at %zu, previous ended at %zu", n, b, p.start, end);
        CHECK_MSG(p.count >= 1 && p.count <= s.block_len, "n=%zu piece %zu holds %zu", n, b, p.count);
        CHECK(p.count <= n - p.start);   /* ends within n, computed without wrapping */
        size_t covered = 0;
        for (size_t t = 0; t < FC_REDUCE_THREADS; t++) covered += thread_share(p.count, t);
        CHECK_MSG(covered == p.count, "n=%zu piece %zu: threads cover %zu of %zu", n, b, covered, p.count);
        end = p.start + p.count;
    }
    CHECK_MSG(end == n, "n=%zu: pieces end at %zu", n, end);
}

static void test_awkward_sizes(void) {
    size_t m = FC_REDUCE_MIN_BLOCK, k = FC_REDUCE_MAX_BLOCKS;
    size_t sizes[] = {0, 1, 2, FC_REDUCE_THREADS - 1, FC_REDUCE_THREADS + 1, m - 1, m, m + 1, 2 * m - 1,
                      m * k - 1, m * k, m * k + 1, 1000003, (size_t)1 << 33, SIZE_MAX / 4, SIZE_MAX - 1, SIZE_MAX};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) check_pieces(sizes[i]);
}

/* Small and medium n by brute force: every input visited exactly once. */
static void check_visits(size_t n) {
    unsigned char *seen = calloc(n ? n : 1, 1);
    CHECK(seen != NULL);
    if (!seen) return;
    fc_reduce_split s = fc_reduce_split_of(n);
    for (size_t b = 0; b < s.blocks; b++) {
        fc_reduce_piece p = fc_reduce_piece_of(s, n, b);
        for (size_t t = 0; t < FC_REDUCE_THREADS; t++)
            for (size_t i = p.start + t; i < p.start + p.count; i += FC_REDUCE_THREADS) seen[i]++;
    }
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += seen[i] != 1;
    CHECK_MSG(bad == 0, "n=%zu: %zu inputs not visited exactly once", n, bad);
    free(seen);
}

static void test_visits(void) {
    size_t m = FC_REDUCE_MIN_BLOCK;
    size_t sizes[] = {0, 1, m - 1, m, m + 1, 256 * m + 1, 3 * 256 * m + 17};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) check_visits(sizes[i]);
}

/* Kernels step i += grid * block while i < n. n counts floats in device
 * memory (n <= SIZE_MAX / 4), so the last step from i = n - 1 stays below
 * SIZE_MAX; the grid itself is computed without overflow for any n. */
static void test_grid_stride_near_size_max(void) {
    size_t sizes[] = {SIZE_MAX / sizeof(float), SIZE_MAX - 1, SIZE_MAX};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        fc_launch l = fc_launch_1d(sizes[i], FC_LAUNCH_BLOCK, FC_LAUNCH_MAX_GRID);
        CHECK(l.grid == FC_LAUNCH_MAX_GRID && l.block == FC_LAUNCH_BLOCK);
    }
    size_t stride = (size_t)FC_LAUNCH_MAX_GRID * FC_LAUNCH_BLOCK;
    size_t last = SIZE_MAX / sizeof(float) - 1;
    CHECK(SIZE_MAX - last >= stride);   /* last + stride does not wrap */
    CHECK(fc_launch_1d(0, FC_LAUNCH_BLOCK, FC_LAUNCH_MAX_GRID).grid == 0);
    CHECK(fc_launch_1d(1, FC_LAUNCH_BLOCK, FC_LAUNCH_MAX_GRID).grid == 1);
}

int main(void) {
    test_tree_shape();
    test_awkward_sizes();
    test_visits();
    test_grid_stride_near_size_max();
    printf("test_reduce_geometry: %d checks, %d failures\n", check_count, check_failures);
    return check_failures != 0;
}
