/* The host side of quant on the GPU, on a machine without one.
 *
 * 1. The slices of a GPU Monte Carlo run (backend/mc_slices.c) for awkward
 *    counts: 1 draw, 1023, 1024, 1025, a slice boundary -+1, a budget below
 *    one chunk, and counts near 2^64 without overflow. The truth is a walk
 *    that checks every slice against the definition: whole chunks, in order,
 *    covering every draw once, within the buffer.
 * 2. The backend entries' contracts (backend.h), emulated on the host the
 *    way cuda_quant.cu's kernels compute them (samples by draw in any order,
 *    then one sum per chunk over the slice buffer; NaN everywhere, then one
 *    segment per thread), checked against the CPU's own loops, to the bit:
 *    fc_mc_price and fc_ind_compute_many give the same results whichever
 *    path runs, so the dispatch and the order of additions are right. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "check.h"
#include "kernels/quant_paths.h"
#include "quant/indicator_exec.h"
#include "quant/indicators.h"
#include "quant/barrier.h"
#include "quant/lsm.h"
#include "quant/mc_options.h"
#include "backend/mc_slices.h"

/* ------------------------------------------------------------ slices */

static void test_chunk_count(void) {
    CHECK(fc_mc_chunk_count(0, 1024) == 0);
    CHECK(fc_mc_chunk_count(1, 1024) == 1);
    CHECK(fc_mc_chunk_count(1023, 1024) == 1);
    CHECK(fc_mc_chunk_count(1024, 1024) == 1);
    CHECK(fc_mc_chunk_count(1025, 1024) == 2);
    CHECK(fc_mc_chunk_count(UINT64_MAX, 1024) == (UINT64_C(1) << 54));
    CHECK(fc_mc_chunk_count(UINT64_MAX, 1) == UINT64_MAX);
    CHECK(fc_mc_chunk_count(UINT64_MAX, UINT32_MAX) == UINT64_C(0x100000001));   /* 2^64-1 = (2^32-1)(2^32+1) */
    CHECK(fc_mc_chunk_count(UINT64_MAX - 1, UINT32_MAX) == UINT64_C(0x100000001));
}

/* A launch covers n items by grid-stride: no block when n is 0, else at
 * least one, within the grid limit, and not more blocks than items need. */
static int launch_covers(fc_launch l, uint64_t n, unsigned block) {
    if (n == 0) return l.grid == 0;
    uint64_t need = n / block + (n % block != 0);
    return l.block == block && l.grid >= 1 && l.grid <= FC_LAUNCH_MAX_GRID && (uint64_t)l.grid <= need &&
           (l.grid == FC_LAUNCH_MAX_GRID || (uint64_t)l.grid == need);
}

/* Walks every slice of p (or the first and last `ends` of them when there
 * are too many) and checks it against the definition. */
static void check_slicing(const fc_mc_slicing *p, uint64_t n_draws, uint32_t chunk, uint64_t ends) {
    CHECK(p->n_draws == n_draws && p->chunk_draws == chunk && p->n_chunks == fc_mc_chunk_count(n_draws, chunk));
    CHECK(p->slice_chunks >= 1);
    CHECK(n_draws == 0 ? p->n_slices == 0 : p->n_slices >= 1);
    uint64_t covered_to = 0;   /* draws of the slices walked in order so far */
    for (uint64_t i = 0; i < p->n_slices; i++) {
        if (p->n_slices > 2 * ends && i == ends) {   /* jump to the tail: slices are regular in between */
            i = p->n_slices - ends;
            covered_to = i * p->slice_chunks * chunk;
        }
        fc_mc_slice s = fc_mc_slice_at(p, i);
        int last = i + 1 == p->n_slices;
        CHECK_MSG(s.first_draw == covered_to && s.first_chunk == i * p->slice_chunks,
                  "slice %llu starts at draw %llu, chunk %llu", (unsigned long long)i,
                  (unsigned long long)s.first_draw, (unsigned long long)s.first_chunk);
        CHECK(s.first_draw == s.first_chunk * chunk);   /* on a chunk boundary */
        CHECK(s.n_chunks >= 1 && s.n_chunks <= p->slice_chunks && (last || s.n_chunks == p->slice_chunks));
        CHECK(s.n_draws >= 1 && s.n_draws <= p->buffer_draws);
        CHECK(s.n_chunks == fc_mc_chunk_count(s.n_draws, chunk));   /* whole chunks; only the run's last is short */
        CHECK(last || s.n_draws == s.n_chunks * chunk);
        CHECK(launch_covers(s.draws, s.n_draws, FC_MC_DRAW_BLOCK));
        CHECK(launch_covers(s.chunks, s.n_chunks, FC_MC_CHUNK_BLOCK));
        covered_to = s.first_draw + s.n_draws;
        if (last) CHECK(covered_to == n_draws && s.first_chunk + s.n_chunks == p->n_chunks);
    }
}

/* The chunk bounds of a slice partition its draws in order. */
static void check_chunk_bounds(uint64_t n_draws, uint32_t chunk) {
    uint64_t at = 0, n_chunks = fc_mc_chunk_count(n_draws, chunk);
    for (uint64_t c = 0; c < n_chunks; c++) {
        uint64_t b, e;
        fc_mc_chunk_bounds(n_draws, chunk, c, &b, &e);
        CHECK(b == at && e > b && e - b <= chunk && (c + 1 == n_chunks || e - b == chunk));
        at = e;
    }
    CHECK(at == n_draws);
}

static void test_slicing(void) {
    const uint32_t chunk = 1024;
    const size_t per_draw = 2 * sizeof(fc_mc_sample);
    const size_t three = 3 * chunk * per_draw;   /* a budget of exactly three chunks */
    const uint64_t counts[] = {1, 2, 1023, 1024, 1025, 2047, 2048, 2049, 3 * 1024 - 1, 3 * 1024, 3 * 1024 + 1,
                               6 * 1024 - 1, 6 * 1024, 6 * 1024 + 1, 1000003};
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        uint64_t n = counts[k];
        const size_t budgets[] = {1, per_draw * chunk - 1, three - 1, three, three + 1, FC_MC_SLICE_BYTES, SIZE_MAX};
        for (size_t b = 0; b < sizeof budgets / sizeof *budgets; b++) {
            fc_mc_slicing p = fc_mc_slicing_plan(n, chunk, per_draw, budgets[b]);
            check_slicing(&p, n, chunk, UINT64_MAX);
            uint64_t want = budgets[b] / per_draw / chunk;   /* whole chunks in the budget */
            if (want < 1) want = 1;
            if (want > p.n_chunks) want = p.n_chunks;
            CHECK_MSG(p.slice_chunks == want, "n %llu budget %zu: %llu chunks per slice, want %llu",
                      (unsigned long long)n, budgets[b], (unsigned long long)p.slice_chunks, (unsigned long long)want);
            CHECK(p.buffer_draws == (p.slice_chunks * chunk < n ? p.slice_chunks * chunk : n));
        }
        check_chunk_bounds(n, chunk);
    }
    /* three chunks per slice: 3*1024+1 draws is one full slice and one of a single draw */
    fc_mc_slicing p = fc_mc_slicing_plan(3 * 1024 + 1, chunk, per_draw, three);
    fc_mc_slice s1 = fc_mc_slice_at(&p, 1);
    CHECK(p.n_slices == 2 && s1.first_draw == 3 * 1024 && s1.n_draws == 1 && s1.n_chunks == 1);
    /* the default budget: 2^21 draws, 2048 chunks per slice */
    p = fc_mc_slicing_plan(UINT64_C(5000000000), chunk, per_draw, FC_MC_SLICE_BYTES);
    CHECK(p.slice_chunks == 2048 && p.buffer_draws == (UINT64_C(1) << 21));
    check_slicing(&p, UINT64_C(5000000000), chunk, 3);
    /* counts near 2^64: no product overflows */
    p = fc_mc_slicing_plan(UINT64_MAX, chunk, per_draw, FC_MC_SLICE_BYTES);
    CHECK(p.n_chunks == (UINT64_C(1) << 54) && p.n_slices == (UINT64_C(1) << 43));
    check_slicing(&p, UINT64_MAX, chunk, 2);
    fc_mc_slice last = fc_mc_slice_at(&p, p.n_slices - 1);
    CHECK(last.n_draws == UINT64_MAX - last.first_draw && last.n_draws == (UINT64_C(1) << 21) - 1);
    /* a budget of all memory: 2^54 - 1 chunks in the first slice, the last 1023 draws in a second */
    p = fc_mc_slicing_plan(UINT64_MAX, chunk, 1, SIZE_MAX);
    CHECK(p.n_slices == 2 && p.buffer_draws == UINT64_MAX - 1023);
    check_slicing(&p, UINT64_MAX, chunk, 1);
    CHECK(fc_mc_slice_at(&p, 1).n_draws == 1023);
    p = fc_mc_slicing_plan(UINT64_MAX, 1, per_draw, FC_MC_SLICE_BYTES);   /* chunks of one draw */
    check_slicing(&p, UINT64_MAX, 1, 2);
    p = fc_mc_slicing_plan(UINT64_MAX, UINT32_MAX, per_draw, 1);   /* one huge chunk per slice */
    CHECK(p.slice_chunks == 1 && p.buffer_draws == UINT32_MAX);
    check_slicing(&p, UINT64_MAX, UINT32_MAX, 2);
    p = fc_mc_slicing_plan(0, chunk, per_draw, FC_MC_SLICE_BYTES);
    check_slicing(&p, 0, chunk, 1);
}

/* ------------------------------------------- Monte Carlo entry, emulated */

static size_t g_budget;        /* slice budget of the emulated GPU */
static int g_fail;             /* the emulated entry fails (a lost GPU) */
static uint64_t g_slices_run;  /* slices the emulated entry walked */

/* cuda_quant.cu's fc_cuda_mc_chunk_sums on the host: per slice, the draw
 * kernel (threads visited last block first, to show the order of draws does
 * not matter), then the chunk kernel, then the copy into the host's sums. */
static fc_status emulated_mc_chunk_sums(fc_backend *be, const struct fc_mc_spec *spec, uint64_t seed,
                                        uint64_t n_draws, uint32_t chunk_draws, struct fc_mc_sums *chunk_sums) {
    (void)be;
    if (g_fail) return FC_ERR_BACKEND;
    fc_mc_slicing p = fc_mc_slicing_plan(n_draws, chunk_draws, 2 * sizeof(fc_mc_sample), g_budget);
    fc_mc_sample *samples = malloc((size_t)p.buffer_draws * 2 * sizeof *samples);
    fc_mc_sums *sums = malloc((size_t)p.slice_chunks * sizeof *sums);
    if (!samples || !sums) abort();
    for (uint64_t i = 0; i < p.n_slices; i++, g_slices_run++) {
        fc_mc_slice s = fc_mc_slice_at(&p, i);
        uint64_t threads = (uint64_t)s.draws.grid * s.draws.block;
        for (uint64_t t = threads; t-- > 0;)
            for (uint64_t d = t; d < s.n_draws; d += threads) fc_mc_draw(spec, seed, s.first_draw + d, samples + 2 * d);
        for (uint64_t c = 0; c < s.n_chunks; c++) {
            uint64_t b, e;
            fc_mc_chunk_bounds(s.n_draws, chunk_draws, c, &b, &e);
            fc_mc_sums acc = {0, 0, 0, 0, 0};
            for (uint64_t d = b; d < e; d++) fc_mc_sums_add(&acc, samples + 2 * d);
            sums[c] = acc;
        }
        memcpy(chunk_sums + s.first_chunk, sums, (size_t)s.n_chunks * sizeof *sums);
    }
    free(samples);
    free(sums);
    return FC_OK;
}

static int same_result(const fc_mc_result *a, const fc_mc_result *b) { return !memcmp(a, b, sizeof *a); }

static void test_mc_entry(void) {
    fc_backend gpu;
    memset(&gpu, 0, sizeof gpu);
    gpu.name = "emulated";
    gpu.mc_chunk_sums = emulated_mc_chunk_sums;
    fc_backend cpu_like;   /* a backend without the entry: the host loops run */
    memset(&cpu_like, 0, sizeof cpu_like);
    const size_t budgets[] = {1, 3 * 1024 * 2 * sizeof(fc_mc_sample), FC_MC_SLICE_BYTES};
    /* paths -> draws: 2 per draw plain, 4 antithetic; 1, 1023, 1025 and 3*1024+1 draws */
    const uint64_t paths[] = {2, 2 * 1023, 4 * 1025, 4 * (3 * 1024 + 1)};
    for (size_t k = 0; k < sizeof paths / sizeof *paths; k++)
        for (int asian = 0; asian < 2; asian++) {
            fc_mc_option o = {.type = asian ? FC_PUT : FC_CALL, .asian = asian,
                              .market = {100, 95, 0.03, 0.01, 0.25, 1.0}, .steps = 3, .n_fixings = 6,
                              .paths = paths[k], .antithetic = k >= 2, .control_variate = 1, .seed = 77};
            fc_mc_result host, via_cpu, via_gpu;
            CHECK(fc_mc_price(&o, &host) == FC_OK);
            o.backend = &cpu_like;
            CHECK(fc_mc_price(&o, &via_cpu) == FC_OK);
            CHECK_MSG(same_result(&host, &via_cpu), "paths %llu asian %d", (unsigned long long)paths[k], asian);
            o.backend = &gpu;
            for (size_t b = 0; b < sizeof budgets / sizeof *budgets; b++) {
                g_budget = budgets[b];
                g_slices_run = 0;
                CHECK(fc_mc_price(&o, &via_gpu) == FC_OK);
                CHECK(g_slices_run >= 1);
                CHECK_MSG(same_result(&host, &via_gpu), "paths %llu asian %d budget %zu: %.17g vs %.17g",
                          (unsigned long long)paths[k], asian, budgets[b], via_gpu.price, host.price);
            }
        }
    /* the GPU's draws run in the units the host picks for a large quote: at
     * S = K = 1e160 its sums no longer overflow into a standard error of 0 */
    for (int asian = 0; asian < 2; asian++) {
        fc_mc_option o = {.type = FC_CALL, .asian = asian, .market = {1e160, 1e160, 0.03, 0.01, 0.25, 1.0},
                          .steps = 1, .n_fixings = 4, .paths = 4096, .control_variate = 1, .seed = 9};
        fc_mc_result host, via_gpu;
        CHECK(fc_mc_price(&o, &host) == FC_OK);
        o.backend = &gpu;
        g_budget = FC_MC_SLICE_BYTES;
        CHECK(fc_mc_price(&o, &via_gpu) == FC_OK);
        CHECK(same_result(&host, &via_gpu));
        CHECK_MSG(via_gpu.std_error > 1e-5 * via_gpu.price, "asian %d: %g +- %g", asian, via_gpu.price,
                  via_gpu.std_error);
    }
    /* barrier options run through the same entry: the GPU's slicing gives
     * the host's sums, bit for bit, for knock-ins and knock-outs */
    const int kinds[] = {FC_BARRIER_DOWN_OUT, FC_BARRIER_UP_IN};
    for (size_t k = 0; k < 2; k++) {
        fc_barrier_option b = {.type = k ? FC_PUT : FC_CALL, .kind = kinds[k], .market = {100, 100, 0.05, 0.01, 0.2, 1.0},
                               .barrier = k ? 115 : 90, .rebate = 1.5};
        fc_barrier_mc_result host, via_gpu;
        CHECK(fc_barrier_mc_price(&b, 7, 2 * 3 * 1024 + 6, 5, NULL, &host) == FC_OK);
        for (size_t bu = 0; bu < sizeof budgets / sizeof *budgets; bu++) {
            g_budget = budgets[bu];
            g_slices_run = 0;
            CHECK(fc_barrier_mc_price(&b, 7, 2 * 3 * 1024 + 6, 5, &gpu, &via_gpu) == FC_OK);
            CHECK(g_slices_run >= 1);
            CHECK_MSG(!memcmp(&host, &via_gpu, sizeof host), "barrier kind %d budget %zu: %.17g vs %.17g",
                      kinds[k], budgets[bu], via_gpu.price, host.price);
        }
    }
    /* Longstaff-Schwartz's pricing paths too, their coefficients staged by
     * the entry: the same price as on the host, bit for bit */
    fc_lsm_option l = {.type = FC_PUT, .market = {100, 100, 0.05, 0.0, 0.2, 1.0}, .steps = 10, .paths = 4 * 2049,
                       .calibration_paths = 4000, .degree = 3, .seed = 8};
    fc_lsm_result lh, lg;
    CHECK(fc_lsm_price(&l, NULL, &lh) == FC_OK);
    g_budget = 3 * 1024 * 2 * sizeof(fc_mc_sample);
    g_slices_run = 0;
    CHECK(fc_lsm_price(&l, &gpu, &lg) == FC_OK);
    CHECK(g_slices_run >= 1);
    CHECK_MSG(!memcmp(&lh, &lg, sizeof lh), "LSM: %.17g vs %.17g", lg.price, lh.price);
    /* a backend's failure is the pricing's */
    fc_mc_option o = {.type = FC_CALL, .market = {100, 100, 0, 0, 0.2, 1.0}, .steps = 1, .paths = 1000,
                      .seed = 1, .backend = &gpu};
    fc_mc_result r;
    g_fail = 1;
    CHECK(fc_mc_price(&o, &r) == FC_ERR_BACKEND);
    g_fail = 0;
}

/* -------------------------------------------- indicator entry, emulated */

/* cuda_quant.cu's fc_cuda_indicator_segments on the host: per plan, NaN over
 * the span, then each segment (threads visited last first), then the copy. */
static fc_status emulated_indicator_segments(fc_backend *be, const struct fc_ind_plan *plans, size_t n_specs,
                                             const double *x, size_t row0, size_t n_rows,
                                             const struct fc_ind_seg *seg, size_t n_seg, double *const *const *outs) {
    (void)be;
    if (g_fail) return FC_ERR_BACKEND;
    double *dev = malloc((n_rows ? n_rows : 1) * FC_IND_MAX_OUTPUTS * sizeof *dev);
    if (!dev) abort();
    for (size_t j = 0; j < n_specs; j++) {
        for (size_t i = 0; i < (size_t)plans[j].n_out * n_rows; i++) dev[i] = NAN;
        for (size_t i = n_seg; i-- > 0;) {
            size_t at = seg[i].begin - row0;
            double *o[FC_IND_MAX_OUTPUTS];
            for (int k = 0; k < FC_IND_MAX_OUTPUTS; k++) o[k] = k < plans[j].n_out ? dev + k * n_rows + at : NULL;
            fc_ind_segment_run(&plans[j], x + seg[i].begin, (long)seg[i].len, o);
        }
        for (int k = 0; k < plans[j].n_out; k++) memcpy(outs[j][k] + row0, dev + k * n_rows, n_rows * sizeof *dev);
    }
    free(dev);
    return FC_OK;
}

#define IND_ROWS 2400
#define IND_SPECS 12
#define GUARD -12345.0   /* rows before offsets[0]: no path may touch them */

/* A random walk per series with NaN gaps (leading, inner, a whole NaN
 * series) and, for `masked`, points masked out; series of 1 to ~700 points. */
static void make_series(double *y, uint8_t *mask, size_t *off, size_t *n_series) {
    uint64_t s = 12345;
    size_t lens[] = {700, 1, 30, 0, 250, 9, 600, 27, 5, 400, 40, 3, 8};
    *n_series = sizeof lens / sizeof *lens;
    off[0] = 100;   /* the span starts past row 0 */
    for (size_t k = 0; k < *n_series; k++) off[k + 1] = off[k] + lens[k];
    double v = 100.0;
    for (size_t i = 0; i < off[*n_series]; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        v += (double)((s >> 11) % 2001) / 1000.0 - 1.0;
        y[i] = i < off[0] ? GUARD : v;
        mask[i] = ((s >> 40) % 97) != 0;
        if (((s >> 20) % 53) == 0) y[i] = NAN;
    }
    for (size_t i = off[9]; i < off[9] + 12; i++) y[i] = NAN;       /* a long gap early in a series */
    for (size_t i = off[10]; i < off[11]; i++) y[i] = NAN;          /* a series of NaN only */
}

static void test_indicator_entry(void) {
    static double y[IND_ROWS], a[IND_SPECS][3][IND_ROWS], b[IND_SPECS][3][IND_ROWS];
    static uint8_t mask[IND_ROWS];
    size_t off[32], n_series;
    make_series(y, mask, off, &n_series);
    CHECK(off[n_series] <= IND_ROWS);
    fc_ind_spec *specs = NULL;
    size_t n_specs = 0;
    CHECK(fc_ind_parse_list("sma:20,ema:9,ema:1,wma:7,wma:1,rsi:14,macd:5:13:4,bbands:20:2,stddev:6:1.5,mom:4,roc:3,"
                            "zscore:15", &specs, &n_specs) == FC_OK);
    CHECK(n_specs == IND_SPECS);
    double *oa[IND_SPECS][3], *ob[IND_SPECS][3];
    double *const *outs_a[IND_SPECS], *const *outs_b[IND_SPECS];
    for (size_t j = 0; j < n_specs; j++) {
        for (int k = 0; k < 3; k++) {
            oa[j][k] = a[j][k];
            ob[j][k] = b[j][k];
        }
        outs_a[j] = oa[j];
        outs_b[j] = ob[j];
    }
    fc_backend gpu;
    memset(&gpu, 0, sizeof gpu);
    gpu.name = "emulated";
    gpu.indicator_segments = emulated_indicator_segments;
    for (int policy = 0; policy < 2; policy++)
        for (int masked = 0; masked < 2; masked++) {
            for (size_t j = 0; j < n_specs; j++)
                for (int k = 0; k < 3; k++)
                    for (size_t i = 0; i < IND_ROWS; i++) a[j][k][i] = b[j][k][i] = GUARD;
            uint8_t none_a[IND_SPECS * 32], none_b[IND_SPECS * 32];
            fc_ind_options o = fc_ind_options_default();
            o.nan = policy ? FC_NAN_RESTART : FC_NAN_POISON;
            o.threads = 2;
            CHECK(fc_ind_compute_many(specs, n_specs, y, masked ? mask : NULL, off, n_series, &o, outs_a, none_a) ==
                  FC_OK);
            o.backend = &gpu;
            CHECK(fc_ind_compute_many(specs, n_specs, y, masked ? mask : NULL, off, n_series, &o, outs_b, none_b) ==
                  FC_OK);
            for (size_t j = 0; j < n_specs; j++)
                for (int k = 0; k < 3; k++)
                    CHECK_MSG(!memcmp(a[j][k], b[j][k], sizeof a[j][k]), "'%s' output %d, policy %d, masked %d",
                              specs[j].label, k, policy, masked);
            CHECK(!memcmp(none_a, none_b, n_specs * n_series));
            CHECK(a[0][0][off[0] - 1] == GUARD && b[0][0][off[0] - 1] == GUARD);   /* before the span: untouched */
            CHECK(none_b[0 * n_series + 3] == 1 && none_b[0 * n_series + 0] == 0);  /* empty and long series */
        }
    fc_ind_options o = fc_ind_options_default();
    o.backend = &gpu;
    g_fail = 1;
    CHECK(fc_ind_compute_many(specs, n_specs, y, NULL, off, n_series, &o, outs_b, NULL) == FC_ERR_BACKEND);
    g_fail = 0;
    free(specs);
}

int main(void) {
    test_chunk_count();
    test_slicing();
    test_mc_entry();
    test_indicator_entry();
    return CHECK_DONE();
}
