/* Eight segments side by side: the recurrences of an indicator are serial in
 * time, so one series keeps a core waiting on the latency of each add and
 * divide; eight independent series fill a SIMD register instead. Blocks of
 * BLOCK steps are gathered into time-major tiles (tile[t][lane]), stepped with
 * the kernels' branch-free step functions under `omp simd`, and scattered back
 * (with non-temporal stores when the outputs are too large to stay in cache).
 * TA-Lib's periodic re-anchoring (WMA, VAR, BBANDS) is flagged by the step and
 * redone for the lanes concerned with the scalar kernel, so every lane
 * computes exactly what the scalar path computes. */
/* sqrt never needs errno here (its arguments are variances); without this
 * GCC keeps a scalar errno branch around every sqrt and cannot vectorize. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-math-errno")
#endif

#include "quant/indicator_exec.h"

#include <math.h>
#include <string.h>
#include "core/error.h"

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#define HAVE_STREAM_STORES 1
#endif

#define W FC_IND_LANES
#define BLOCK 128

typedef struct {
    double in[BLOCK * W];   /* x[t] */
    double old[BLOCK * W];  /* x[t - trail] */
    double out[FC_IND_MAX_OUTPUTS][BLOCK * W];
    int flag[W];
} lane_tile;

static void gather(double *tile, const double *const x[W], long t0, int len) {
    for (int l = 0; l < W; l++) {
        const double *s = x[l] + t0;
        for (int i = 0; i < len; i++) tile[i * W + l] = s[i];
    }
}

/* Copies one lane's column of the tile to dst[0..len). Streaming stores go
 * around the cache: the outputs of a large batch are written once and not
 * read again here, and a normal store would first read each line. */
static void scatter_lane(double *dst, const double *column, int len, int streaming) {
#ifdef HAVE_STREAM_STORES
    if (streaming) {
        for (int i = 0; i < len; i++) {
            long long bits;
            memcpy(&bits, &column[i * W], sizeof bits);
            _mm_stream_si64((long long *)(dst + i), bits);
        }
        return;
    }
#else
    (void)streaming;
#endif
    for (int i = 0; i < len; i++) dst[i] = column[i * W];
}

static int any_flag(const int flag[W]) {
    int any = 0;
    for (int l = 0; l < W; l++) any |= flag[l];
    return any;
}

/* ---- one block of steps per kind; st is the lanes' state (stride W) ---- */

static void block_sma(double *st, lane_tile *tl, int len, const fc_ind_kparams *k_in) {
    /* A local copy: stores through st cannot alias it, so the loop vectorizes. */
    const fc_ind_kparams kl = *k_in, *k = &kl;
    for (int i = 0; i < len; i++) {
        const double *xi = tl->in + i * W, *xo = tl->old + i * W;
        double *o = tl->out[0] + i * W;
#pragma omp simd
        for (int l = 0; l < W; l++) fc_sma_step(st + l, W, xi[l], xo[l], k, o + l);
    }
}

static void block_ema(double *st, lane_tile *tl, int len, const fc_ind_kparams *k_in) {
    /* A local copy: stores through st cannot alias it, so the loop vectorizes. */
    const fc_ind_kparams kl = *k_in, *k = &kl;
    for (int i = 0; i < len; i++) {
        const double *xi = tl->in + i * W;
        double *o = tl->out[0] + i * W;
#pragma omp simd
        for (int l = 0; l < W; l++) fc_ema_step(st + l, W, xi[l], k, o + l);
    }
}

static void block_wma(double *st, lane_tile *tl, int len, const fc_ind_kparams *k_in,
                      const double *const x[W], long t0) {
    /* A local copy: stores through st cannot alias it, so the loop vectorizes. */
    const fc_ind_kparams kl = *k_in, *k = &kl;
    for (int i = 0; i < len; i++) {
        const double *xi = tl->in + i * W, *xo = tl->old + i * W;
        double *o = tl->out[0] + i * W;
#pragma omp simd
        for (int l = 0; l < W; l++) tl->flag[l] = fc_wma_step(st + l, W, xi[l], xo[l], k, o + l);
        if (any_flag(tl->flag))
            for (int l = 0; l < W; l++)
                if (tl->flag[l]) fc_wma_reanchor(st + l, W, x[l], t0 + i, k, o + l);
    }
}

/* VAR state at st (STDDEV) or st + W (BBANDS, ZSCORE: after the SMA total). */
static void block_var(double *st, lane_tile *tl, int len, const fc_ind_kparams *k_in,
                      const double *const x[W], long t0, int with_mid) {
    /* A local copy: stores through st cannot alias it, so the loop vectorizes. */
    const fc_ind_kparams kl = *k_in, *k = &kl;
    double *var_st = with_mid ? st + W : st;
    for (int i = 0; i < len; i++) {
        const double *xi = tl->in + i * W, *xo = tl->old + i * W;
        double *v = tl->out[0] + i * W, *m = tl->out[1] + i * W;
        if (with_mid) {
#pragma omp simd
            for (int l = 0; l < W; l++) tl->flag[l] = fc_bands_step(st + l, W, xi[l], xo[l], k, m + l, v + l);
        } else {
#pragma omp simd
            for (int l = 0; l < W; l++) tl->flag[l] = fc_var_step(st + l, W, xi[l], xo[l], k, v + l);
        }
        if (any_flag(tl->flag))
            for (int l = 0; l < W; l++)
                if (tl->flag[l]) fc_var_reanchor(var_st + l, W, x[l], t0 + i, k, v + l);
    }
}

static void finish_var(fc_ind_kind kind, lane_tile *tl, int len, const fc_ind_kparams *k_in) {
    /* A local copy: stores through st cannot alias it, so the loop vectorizes. */
    const fc_ind_kparams kl = *k_in, *k = &kl;
    double *v = tl->out[0], *m = tl->out[1], *lo = tl->out[2];
    const double *x = tl->in;
    int n = len * W;
    if (kind == FC_IND_STDDEV) {
#pragma omp simd
        for (int i = 0; i < n; i++) v[i] = fc_stddev_finish(v[i], k);
    } else if (kind == FC_IND_BBANDS) {
#pragma omp simd
        for (int i = 0; i < n; i++) fc_bbands_finish(m[i], v[i], k, &v[i], &m[i], &lo[i]);
    } else {
#pragma omp simd
        for (int i = 0; i < n; i++) v[i] = fc_zscore_finish(x[i], m[i], v[i]);
    }
}

static void block_rsi(double *st, lane_tile *tl, int len, const fc_ind_kparams *k_in) {
    /* A local copy: stores through st cannot alias it, so the loop vectorizes. */
    const fc_ind_kparams kl = *k_in, *k = &kl;
    for (int i = 0; i < len; i++) {
        const double *xi = tl->in + i * W, *xo = tl->old + i * W;
        double *o = tl->out[0] + i * W;
#pragma omp simd
        for (int l = 0; l < W; l++) fc_rsi_step(st + l, W, xi[l], xo[l], k, o + l);
    }
}

static void block_macd(double *st, lane_tile *tl, int len, const fc_ind_kparams *k_in) {
    /* A local copy: stores through st cannot alias it, so the loop vectorizes. */
    const fc_ind_kparams kl = *k_in, *k = &kl;
    for (int i = 0; i < len; i++) {
        const double *xi = tl->in + i * W;
        double *a = tl->out[0] + i * W, *b = tl->out[1] + i * W, *c = tl->out[2] + i * W;
#pragma omp simd
        for (int l = 0; l < W; l++) fc_macd_step(st + l, W, xi[l], k, a + l, b + l, c + l);
    }
}

static void run_block(const fc_ind_plan *p, double *st, lane_tile *tl, int len,
                      const double *const x[W], long t0) {
    switch (p->kind) {
    case FC_IND_SMA: block_sma(st, tl, len, &p->k); break;
    case FC_IND_EMA: block_ema(st, tl, len, &p->k); break;
    case FC_IND_WMA: block_wma(st, tl, len, &p->k, x, t0); break;
    case FC_IND_STDDEV:
    case FC_IND_BBANDS:
    case FC_IND_ZSCORE:
        block_var(st, tl, len, &p->k, x, t0, p->kind != FC_IND_STDDEV);
        finish_var(p->kind, tl, len, &p->k);
        break;
    case FC_IND_RSI: block_rsi(st, tl, len, &p->k); break;
    case FC_IND_MACD: block_macd(st, tl, len, &p->k); break;
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

/* The scalar run loop for lane l from t0 to the end of its segment. */
static void tail_lane(const fc_ind_plan *p, double *st, const double *x, long t0, long n,
                      double *const *out) {
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
    double st[5 * W];
    lane_tile tile;
    long start = 0, end = n[0];
    for (int l = 0; l < W; l++) {
        FC_ASSERT(n[l] > plan->lookback);
        start = seed_lane(plan, st + l, x[l], out[l]);
        if (n[l] < end) end = n[l];
    }
    /* All lanes step together up to the shortest segment's end. */
    for (long t0 = start; t0 < end; t0 += BLOCK) {
        int len = (int)(end - t0 < BLOCK ? end - t0 : BLOCK);
        gather(tile.in, x, t0, len);
        if (plan->trail) gather(tile.old, x, t0 - plan->trail, len);
        run_block(plan, st, &tile, len, x, t0);
        for (int l = 0; l < W; l++)
            for (int j = 0; j < plan->n_out; j++) scatter_lane(out[l][j] + t0, tile.out[j] + l, len, streaming);
    }
    for (int l = 0; l < W; l++)
        if (n[l] > end) tail_lane(plan, st + l, x[l], end, n[l], out[l]);
#ifdef HAVE_STREAM_STORES
    if (streaming) _mm_sfence(); /* make the weakly ordered stores visible to other threads */
#endif
}
