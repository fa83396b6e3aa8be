/* Host arithmetic of the CUDA backend, checked on machines without a GPU:
 * arena offsets and alignment (backend/arena_books.c, shared with the CPU
 * backend) and the launch and reduction geometry (backend/launch_geometry.c)
 * for awkward shapes. The truths are closed forms: every offset is a
 * multiple of the alignment, buffers never overlap or pass the end, a launch
 * covers every item with a grid within limits, a reduction's pieces tile
 * [0, n) exactly. */
#include <stdint.h>

#include "backend/arena_books.h"
#include "backend/launch_geometry.h"
#include "check.h"
#include "core/error.h"

static void test_arena_alignment_and_bounds(void) {
    fc_arena_books a = {.size = 10000};
    size_t sizes[] = {1, 255, 256, 257, 3, 1000, 0, 17};
    size_t prev_end = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        size_t at = 12345;
        CHECK(fc_arena_take(&a, sizes[i], 256, &at) == FC_OK);
        CHECK_MSG(at % 256 == 0, "offset %zu of buffer %zu not 256-aligned", at, i);
        CHECK_MSG(at >= prev_end, "buffer %zu at %zu overlaps the previous one (ends at %zu)", i, at, prev_end);
        prev_end = at + sizes[i];
        CHECK(a.used == prev_end);
    }
    CHECK(a.live == sizeof sizes / sizeof *sizes);
    CHECK(a.used <= a.size);
}

static void test_arena_exact_fit_and_refusal(void) {
    fc_arena_books a = {.size = 512};
    size_t at;
    CHECK(fc_arena_take(&a, 100, 64, &at) == FC_OK && at == 0);
    CHECK(fc_arena_take(&a, 384, 64, &at) == FC_OK && at == 128);   /* 128 + 384 = 512: exactly full */
    fc_arena_books before = a;
    CHECK(fc_arena_take(&a, 1, 64, &at) == FC_ERR_MEMORY);          /* nothing left */
    CHECK(a.used == before.used && a.live == before.live);          /* a refusal changes nothing */
    fc_arena_give_back(&a);
    CHECK(a.live == 1 && a.used == 512);                            /* space returns only at close */
}

static void test_arena_overflowing_requests(void) {
    fc_arena_books a = {.size = 1 << 20, .used = 1000, .live = 1};
    size_t at;
    CHECK(fc_arena_take(&a, SIZE_MAX, 256, &at) == FC_ERR_MEMORY);
    CHECK(fc_arena_take(&a, SIZE_MAX - 100, 1, &at) == FC_ERR_MEMORY);
    fc_arena_books nearly = {.size = SIZE_MAX, .used = SIZE_MAX - 10};   /* rounding `used` up would wrap */
    CHECK(fc_arena_take(&nearly, 1, 256, &at) == FC_ERR_MEMORY);
    CHECK(nearly.used == SIZE_MAX - 10);
}

/* Every item i < n is visited by some thread of a grid-stride loop, and
 * the grid is within CUDA's limits. */
static void check_launch(size_t n, unsigned block) {
    fc_launch l = fc_launch_1d(n, block, FC_LAUNCH_MAX_GRID);
    if (n == 0) {
        CHECK(l.grid == 0);
        return;
    }
    CHECK_MSG(l.grid >= 1 && l.grid <= FC_LAUNCH_MAX_GRID, "n=%zu: grid %u", n, l.grid);
    CHECK(l.block == block);
    size_t threads = (size_t)l.grid * l.block;
    if (l.grid < FC_LAUNCH_MAX_GRID) CHECK_MSG(threads >= n && threads - n < block, "n=%zu: %zu threads", n, threads);
    else CHECK(threads <= n || threads - n < block);   /* capped: the stride loop covers the rest */
}

static void test_launch_awkward_sizes(void) {
    size_t sizes[] = {0, 1, 255, 256, 257, 65535, 65536ull * 256 - 1, 65535ull * 256, 65535ull * 256 + 1,
                      (size_t)1 << 40, SIZE_MAX - 1, SIZE_MAX};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        check_launch(sizes[i], FC_LAUNCH_BLOCK);
        check_launch(sizes[i], 1);
        check_launch(sizes[i], 1024);
    }
    CHECK(fc_launch_1d(SIZE_MAX, FC_LAUNCH_BLOCK, FC_LAUNCH_MAX_GRID).grid == FC_LAUNCH_MAX_GRID);
    CHECK(fc_launch_1d(10, 0, FC_LAUNCH_MAX_GRID).grid == 0);   /* no block size, no launch */
}

/* The pieces tile [0, n): count and lengths from the closed form. */
static void check_split(size_t n) {
    fc_reduce_split s = fc_reduce_split_of(n);
    if (n == 0) {
        CHECK(s.blocks == 0);
        return;
    }
    CHECK_MSG(s.blocks >= 1 && s.blocks <= FC_REDUCE_MAX_BLOCKS, "n=%zu: %zu blocks", n, s.blocks);
    CHECK(s.block_len >= FC_REDUCE_MIN_BLOCK);
    size_t full = n / s.block_len, rest = n % s.block_len;   /* no products: n may be near SIZE_MAX */
    CHECK_MSG(s.blocks == full + (rest != 0), "n=%zu: %zu x %zu", n, s.blocks, s.block_len);
    if (n <= FC_REDUCE_MIN_BLOCK) CHECK(s.blocks == 1);
}

static void test_reduce_split(void) {
    size_t m = FC_REDUCE_MIN_BLOCK, k = FC_REDUCE_MAX_BLOCKS;
    size_t sizes[] = {0, 1, m - 1, m, m + 1, 2 * m + 1, m * k - 1, m * k, m * k + 1, 1000003, (size_t)1 << 33,
                      SIZE_MAX / 2, SIZE_MAX};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) check_split(sizes[i]);
    /* The split depends on n alone: the CPU backend and the GPU agree on it. */
    fc_reduce_split a = fc_reduce_split_of(1000003), b = fc_reduce_split_of(1000003);
    CHECK(a.blocks == b.blocks && a.block_len == b.block_len);
    CHECK(fc_reduce_split_of(m * k + 1).blocks == k);   /* pieces grow past m rather than exceed k */
}

int main(void) {
    test_arena_alignment_and_bounds();
    test_arena_exact_fit_and_refusal();
    test_arena_overflowing_requests();
    test_launch_awkward_sizes();
    test_reduce_split();
    printf("test_launch_geometry: %d checks, %d failures\n", check_count, check_failures);
    return check_failures != 0;
}
