/* Eight segments side by side. The recurrences of an indicator are serial in
 * time, so one series keeps a core waiting on the latency of each add and
 * divide; eight independent series fill a SIMD register instead. Blocks of
 * up to BLOCK steps are transposed into time-major tiles (tile[t][lane]),
 * stepped with the kernels' branch-free step functions under `omp simd`, and
 * transposed back (with streaming stores when the outputs are too large to
 * stay in cache).
 *
 * TA-Lib re-anchors the running sums of WMA, VAR and BBANDS now and then; the
 * step raises a flag on such a bar and the scalar kernel redoes it. Flags on a
 * schedule (every 8p or 32p bars) are kept at the end of a block; a block is
 * first run without any fix-up (so its state stays in registers) and, in the
 * rare case a data-dependent flag went up inside it, rolled back and rerun
 * step by step. Every lane thus computes exactly what the scalar path does. */
#include "quant/indicator_exec.h"

#include <math.h>
#include <string.h>
#include "core/error.h"
#include "quant/indicator_simd.h"

#define W FC_IND_LANES
/* Steps per tile: five tiles of BLOCK x 8 doubles stay in L1/L2. Tiles (but
 * for the first) start on multiples of 8 points, so the transposes and the
 * streaming stores meet 64-byte aligned rows when the series are. */
#define BLOCK 128
#define MAX_STATE 5

typedef struct {
    double in[BLOCK * W];  /* x[t] */
    double old[BLOCK * W]; /* x[t - trail] */
    double out[FC_IND_MAX_OUTPUTS][BLOCK * W];
} lane_tile;

/* tile[i][l] = x[l][t0 + i - back] for i < len. Chunks of 8 are cut where
 * t0 + i is a multiple of 8, as in scatter(). */
static void gather(double *tile, const double *const x[W], long t0, long back, int len) {
    int i = 0;
    for (; i < len && (((t0 + i) & 7) || len - i < 8); i++)
        for (int l = 0; l < W; l++) tile[i * W + l] = x[l][t0 + i - back];
    for (; i + 8 <= len; i += 8) fc_transpose_in8(x, t0 + i - back, tile + i * W);
    for (; i < len; i++)
        for (int l = 0; l < W; l++) tile[i * W + l] = x[l][t0 + i - back];
}

/* out[l][t0 + i] = tile[i][l]. Streaming stores go around the cache: the
 * outputs of a large batch are written once and not read again here. */
static void scatter(double *const out[W], long t0, const double *tile, int len, int streaming) {
    int i = 0;
    for (; i < len && (((t0 + i) & 7) || len - i < 8); i++)
        for (int l = 0; l < W; l++) out[l][t0 + i] = tile[i * W + l];
    for (; i + 8 <= len; i += 8) fc_transpose_out8(tile + i * W, out, t0 + i, streaming);
    for (; i < len; i++)
        for (int l = 0; l < W; l++) out[l][t0 + i] = tile[i * W + l];
}

/* ---- one block of steps per kind. The lanes' state (stride W) is copied
 * to a local array and the parameters to a local struct: stores to the tile
 * cannot alias either, so the loops vectorize and the state stays in
 * registers across the block. ---- */

static void block_sma(double *st, lane_tile *tl, int len, const fc_ind_kparams *k_in) {
    const fc_ind_kparams kl = *k_in, *k = &kl;
    double ls[W];
    memcpy(ls, st, sizeof ls);
    for (int i = 0; i < len; i++) {
        const double *xi = tl->in + i * W, *xo = tl->old + i * W;
        double *o = tl->out[0] + i * W;
#pragma omp simd
        for (int l = 0; l < W; l++) fc_sma_step(ls + l, W, xi[l], xo[l], k, o + l);
    }
    memcpy(st, ls, sizeof ls);
}

static void block_ema(double *st, lane_tile *tl, int len, const fc_ind_kparams *k_in) {
    const fc_ind_kparams kl = *k_in, *k = &kl;
    double ls[W];
    memcpy(ls, st, sizeof ls);
    for (int i = 0; i < len; i++) {
        const double *xi = tl->in + i * W;
        double *o = tl->out[0] + i * W;
#pragma omp simd
        for (int l = 0; l < W; l++) fc_ema_step(ls + l, W, xi[l], k, o + l);
    }
    memcpy(st, ls, sizeof ls);
}

static void block_rsi(double *st, lane_tile *tl, int len, const fc_ind_kparams *k_in) {
    const fc_ind_kparams kl = *k_in, *k = &kl;
    double ls[2 * W];
    memcpy(ls, st, sizeof ls);
    for (int i = 0; i < len; i++) {
        const double *xi = tl->in + i * W, *xo = tl->old + i * W;
        double *o = tl->out[0] + i * W;
#pragma omp simd
        for (int l = 0; l < W; l++) fc_rsi_step(ls + l, W, xi[l], xo[l], k, o + l);
    }
    memcpy(st, ls, sizeof ls);
}

static void block_macd(double *st, lane_tile *tl, int len, const fc_ind_kparams *k_in) {
    const fc_ind_kparams kl = *k_in, *k = &kl;
    double ls[3 * W];
    memcpy(ls, st, sizeof ls);
    for (int i = 0; i < len; i++) {
        const double *xi = tl->in + i * W;
        double *a = tl->out[0] + i * W, *b = tl->out[1] + i * W, *c = tl->out[2] + i * W;
#pragma omp simd
        for (int l = 0; l < W; l++) fc_macd_step(ls + l, W, xi[l], k, a + l, b + l, c + l);
    }
    memcpy(st, ls, sizeof ls);
}

/* ---- the kinds with re-anchoring: WMA, STDDEV, and BBANDS/ZSCORE (whose
 * VAR state follows the SMA total) ---- */

static int is_flagged(fc_ind_kind kind) {
    return kind == FC_IND_WMA || kind == FC_IND_STDDEV || kind == FC_IND_BBANDS || kind == FC_IND_ZSCORE;
}

/* Where the bars-until-re-anchor counter sits in the state. */
static int counter_field(fc_ind_kind kind) {
    return kind == FC_IND_WMA ? 2 : kind == FC_IND_STDDEV ? 3 : 4;
}

/* One time step of all lanes (state st, stride W): flags ORed into f, which
 * the fast path accumulates over a block and the slow path clears per step. */
static inline void step_flagged(fc_ind_kind kind, double *st, lane_tile *tl, int i, const fc_ind_kparams *k,
                                int f[W]) {
    const double *xi = tl->in + i * W, *xo = tl->old + i * W;
    double *o0 = tl->out[0] + i * W, *o1 = tl->out[1] + i * W;
    if (kind == FC_IND_WMA) {
#pragma omp simd
        for (int l = 0; l < W; l++) f[l] |= fc_wma_step(st + l, W, xi[l], xo[l], k, o0 + l);
    } else if (kind == FC_IND_STDDEV) {
#pragma omp simd
        for (int l = 0; l < W; l++) f[l] |= fc_var_step(st + l, W, xi[l], xo[l], k, o0 + l);
    } else {
#pragma omp simd
        for (int l = 0; l < W; l++) f[l] |= fc_bands_step(st + l, W, xi[l], xo[l], k, o1 + l, o0 + l);
    }
}

static int any_lane(const int f[W]) {
    int any = 0;
    for (int l = 0; l < W; l++) any |= f[l];
    return any;
}

/* Steps [0, len) with no fix-up, the state in registers; returns nonzero if
 * any lane raised a flag. */
static inline int steps_fast(fc_ind_kind kind, double *st, lane_tile *tl, int len, const fc_ind_kparams *k) {
    double ls[MAX_STATE * W];
    int acc[W] = {0};
    memcpy(ls, st, sizeof ls);
    for (int i = 0; i < len; i++) step_flagged(kind, ls, tl, i, k, acc);
    memcpy(st, ls, sizeof ls);
    return any_lane(acc);
}

/* Redoes step i (bar t) with the scalar re-anchoring for the flagged lanes. */
static void fix_step(fc_ind_kind kind, double *st, lane_tile *tl, int i, const fc_ind_kparams *k,
                     const double *const x[W], long t, const int *flag) {
    double *o0 = tl->out[0] + i * W;
    for (int l = 0; l < W; l++) {
        if (!flag[l]) continue;
        if (kind == FC_IND_WMA) fc_wma_reanchor(st + l, W, x[l], t, k, o0 + l);
        else if (kind == FC_IND_STDDEV) fc_var_reanchor(st + l, W, x[l], t, k, o0 + l);
        else fc_var_reanchor(st + W + l, W, x[l], t, k, o0 + l);
    }
}

static void steps_slow(fc_ind_kind kind, double *st, lane_tile *tl, int from, int to, const fc_ind_kparams *k,
                       const double *const x[W], long t0) {
    for (int i = from; i < to; i++) {
        int f[W] = {0};
        step_flagged(kind, st, tl, i, k, f);
        if (any_lane(f)) fix_step(kind, st, tl, i, k, x, t0 + i, f);
    }
}

/* The driver keeps scheduled re-anchors on the block's last step, so the
 * steps before it run without fix-ups, unless the data asks for one: then
 * the block is rolled back and rerun step by step. */
static inline void block_flagged(fc_ind_kind kind, double *st, lane_tile *tl, int len,
                                 const fc_ind_kparams *k_in, const double *const x[W], long t0) {
    const fc_ind_kparams kl = *k_in, *k = &kl;
    double saved[MAX_STATE * W];
    memcpy(saved, st, sizeof saved);
    if (steps_fast(kind, st, tl, len - 1, k)) {
        memcpy(st, saved, sizeof saved);
        steps_slow(kind, st, tl, 0, len - 1, k, x, t0);
    }
    steps_slow(kind, st, tl, len - 1, len, k, x, t0);
}

static void block_wma(double *st, lane_tile *tl, int len, const fc_ind_kparams *k, const double *const x[W],
                      long t0) {
    block_flagged(FC_IND_WMA, st, tl, len, k, x, t0);
}

static void block_stddev(double *st, lane_tile *tl, int len, const fc_ind_kparams *k, const double *const x[W],
                         long t0) {
    block_flagged(FC_IND_STDDEV, st, tl, len, k, x, t0);
}

static void block_bands(double *st, lane_tile *tl, int len, const fc_ind_kparams *k, const double *const x[W],
                        long t0) {
    block_flagged(FC_IND_BBANDS, st, tl, len, k, x, t0);
}

/* Steps until (and including) the first scheduled re-anchor of any lane. */
static long counter_room(fc_ind_kind kind, const double *st) {
    const double *c = st + counter_field(kind) * W;
    double room = c[0];
    for (int l = 1; l < W; l++)
        if (c[l] < room) room = c[l];
    return room < 1.0 ? 1 : (long)room;
}

static void finish_var(fc_ind_kind kind, lane_tile *tl, int len, const fc_ind_kparams *k_in) {
    const fc_ind_kparams kl = *k_in, *k = &kl;
    double *sd = tl->out[0], *m = tl->out[1], *lo = tl->out[2];
    const double *x = tl->in;
    int n = len * W;
    fc_sqrt_inplace(sd, n);
    if (kind == FC_IND_STDDEV) {
#pragma omp simd
        for (int i = 0; i < n; i++) sd[i] = fc_stddev_finish(sd[i], k);
    } else if (kind == FC_IND_BBANDS) {
#pragma omp simd
        for (int i = 0; i < n; i++) fc_bbands_finish(m[i], sd[i], k, &sd[i], &m[i], &lo[i]);
    } else {
#pragma omp simd
        for (int i = 0; i < n; i++) sd[i] = fc_zscore_finish(x[i], m[i], sd[i]);
    }
}

static void run_block(const fc_ind_plan *p, double *st, lane_tile *tl, int len, const double *const x[W], long t0) {
    switch (p->kind) {
    case FC_IND_SMA: block_sma(st, tl, len, &p->k); break;
    case FC_IND_EMA: block_ema(st, tl, len, &p->k); break;
    case FC_IND_RSI: block_rsi(st, tl, len, &p->k); break;
    case FC_IND_MACD: block_macd(st, tl, len, &p->k); break;
    case FC_IND_WMA: block_wma(st, tl, len, &p->k, x, t0); break;
    case FC_IND_STDDEV:
        block_stddev(st, tl, len, &p->k, x, t0);
        finish_var(p->kind, tl, len, &p->k);
        break;
    case FC_IND_BBANDS:
    case FC_IND_ZSCORE:
        block_bands(st, tl, len, &p->k, x, t0);
        finish_var(p->kind, tl, len, &p->k);
        break;
    default: FC_ASSERT(0);
    }
}

/* Seeds lane l (its state at st + l, stride W); returns the first step index. */
static long seed_lane(const fc_ind_plan *p, double *st, const double *x, double *const *out) {
    const fc_ind_kparams *k = &p->k;
    switch (p->kind) {
    case FC_IND_SMA: return fc_sma_seed(st, W, x, k, out[0]);
    case FC_IND_EMA: return fc_ema_seed(st, W, x, k, out[0]);
    case FC_IND_WMA: return fc_wma_seed(st, W, x, k, out[0]);
    case FC_IND_STDDEV: return fc_stddev_seed(st, W, x, k, out[0]);
    case FC_IND_BBANDS:
    case FC_IND_ZSCORE: {
        long start = fc_bands_seed(st, W, x, k);
        for (int j = 0; j < p->n_out; j++)
            for (long t = 0; t < start; t++) out[j][t] = NAN;
        return start;
    }
    case FC_IND_RSI: return fc_rsi_seed(st, W, x, k, out[0]);
    case FC_IND_MACD: return fc_macd_seed(st, W, x, k, out[0], out[1], out[2]);
    default: FC_ASSERT(0); return 0;
    }
}

/* The scalar run loop for one lane from t0 to the end of its segment. */
static void tail_lane(const fc_ind_plan *p, double *st, const double *x, long t0, long n, double *const *out) {
    const fc_ind_kparams *k = &p->k;
    switch (p->kind) {
    case FC_IND_SMA: fc_sma_run(st, W, x, t0, n, k, out[0]); break;
    case FC_IND_EMA: fc_ema_run(st, W, x, t0, n, k, out[0]); break;
    case FC_IND_WMA: fc_wma_run(st, W, x, t0, n, k, out[0]); break;
    case FC_IND_STDDEV: fc_stddev_run(st, W, x, t0, n, k, out[0]); break;
    case FC_IND_BBANDS: fc_bbands_run(st, W, x, t0, n, k, out[0], out[1], out[2]); break;
    case FC_IND_ZSCORE: fc_zscore_run(st, W, x, t0, n, k, out[0]); break;
    case FC_IND_RSI: fc_rsi_run(st, W, x, t0, n, k, out[0]); break;
    case FC_IND_MACD: fc_macd_run(st, W, x, t0, n, k, out[0], out[1], out[2]); break;
    default: FC_ASSERT(0);
    }
}

void fc_ind_segments_lanes(const fc_ind_plan *plan, const double *const x[W], const long n[W],
                           double *const out[W][FC_IND_MAX_OUTPUTS], int streaming) {
    double st[MAX_STATE * W];
    lane_tile tile;
    long start = 0, end = n[0];
    for (int l = 0; l < W; l++) {
        FC_ASSERT(n[l] > plan->lookback);
        start = seed_lane(plan, st + l, x[l], out[l]);
        if (n[l] < end) end = n[l];
    }
    double *dst[FC_IND_MAX_OUTPUTS][W];
    for (int l = 0; l < W; l++)
        for (int j = 0; j < plan->n_out; j++) dst[j][l] = out[l][j];
    /* All lanes step together up to the shortest segment's end. */
    for (long t0 = start; t0 < end;) {
        long stop = (t0 + BLOCK) & ~7L;
        if (stop > end) stop = end;
        if (is_flagged(plan->kind) && stop - t0 > counter_room(plan->kind, st)) stop = t0 + counter_room(plan->kind, st);
        int len = (int)(stop - t0);
        gather(tile.in, x, t0, 0, len);
        if (plan->trail >= 0) gather(tile.old, x, t0, plan->trail, len);
        run_block(plan, st, &tile, len, x, t0);
        for (int j = 0; j < plan->n_out; j++) scatter(dst[j], t0, tile.out[j], len, streaming);
        t0 = stop;
    }
    for (int l = 0; l < W; l++)
        if (n[l] > end) tail_lane(plan, st + l, x[l], end, n[l], out[l]);
    if (streaming) fc_stream_fence();
}
