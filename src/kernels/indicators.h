/* Technical indicators, one series at a time: the arithmetic of TA-Lib 0.8.1
 * (the C library inside the PyPI wheel ta-lib 0.8.2), operation for operation,
 * so fcast's values match TA-Lib's to the last bit. Written by hand: TA-Lib
 * itself computes one series per call with buffers and branches, while these
 * bodies must step many series in SIMD lanes and on a GPU.
 *
 * Every indicator is split the same way:
 *   <ind>_seed  consumes the warm-up of a segment x[0..n) (n > lookback),
 *               writes out[0..start) (NaN for the lookback, plus the first
 *               value when TA-Lib produces it during the warm-up) and leaves
 *               the running state in st; returns `start`.
 *   <ind>_step  advances one point t >= start: element-wise and branch-free,
 *               so the CPU driver can run 8 series side by side in SIMD lanes
 *               and a CUDA kernel can run one series per thread.
 *   <ind>_run   the scalar loop of steps over [t0, t1), with TA-Lib's periodic
 *               re-anchoring of running sums (WMA, VAR, BBANDS) applied in
 *               place; seed + run is the whole per-series computation.
 * State lives in `double st[]` with a stride `w` between fields: w = 1 for one
 * series, w = lanes for a structure-of-arrays block of series.
 *
 * The caller splits each series into segments (see quant/indicators.c): a
 * segment starts at a non-NaN value; under the "poison" policy a NaN later in
 * the segment flows through TA-Lib's arithmetic exactly as it does in TA-Lib.
 *
 * Rounding: on CPUs with FMA, TA-Lib runs fused-multiply-add builds of EMA
 * and MACD, so their smoothing steps are written as fma() here (one
 * instruction with -march=native, correctly rounded everywhere). Every other
 * product and sum is rounded on its own, as TA-Lib does: C11 compilation
 * (GCC's -ffp-contract=off under -std=c11) contracts nothing, and under nvcc
 * pass --fmad=false for the same bits. With this, the fixtures match TA-Lib
 * bit for bit; TA-Lib on a CPU without FMA differs by an ulp or so. */
#ifndef FC_KERNELS_INDICATORS_H
#define FC_KERNELS_INDICATORS_H

#include <math.h>
#include "core/hd.h"

/* The indicators (quant/indicators.h parses and names them; the segment
 * body in kernels/indicator_segment.h switches on them). */
typedef enum {
    FC_IND_SMA = 0,
    FC_IND_EMA,
    FC_IND_WMA,
    FC_IND_BBANDS, /* outputs: upper, middle, lower */
    FC_IND_RSI,
    FC_IND_MACD,   /* outputs: macd, signal, hist */
    FC_IND_MOM,
    FC_IND_ROC,
    FC_IND_STDDEV,
    FC_IND_ZSCORE, /* (x - SMA_N) / STDDEV_N (population); NaN on a flat window */
    FC_IND_KIND_COUNT
} fc_ind_kind;

#define FC_IND_MAX_OUTPUTS 3

/* Parameters of one indicator, precomputed once (names follow TA-Lib). */
typedef struct {
    int p;           /* timeperiod; MACD: the slow period (after TA-Lib's swap) */
    int p_fast;      /* MACD fast period */
    int p_signal;    /* MACD signal period */
    int reseed;      /* bars between re-anchorings: WMA 8p, VAR/BBANDS 32p */
    double fp;       /* (double)p */
    double inv;      /* 1.0 / p (TA-Lib multiplies by it in VAR, BBANDS, RSI) */
    double pm1;      /* (double)(p - 1), RSI's Wilder factor */
    double divider;  /* WMA: p (p + 1) / 2 */
    double k_fast, k_slow, k_signal; /* EMA/MACD smoothing: 2 / (period + 1) */
    double dev_up, dev_dn;           /* BBANDS nbdevup/nbdevdn, STDDEV nbdev */
} fc_ind_kparams;

/* ------------------------------------------------------------------ SMA */
/* state: [total]; step needs x[t - (p - 1)] */

FC_HD int fc_sma_seed(double *st, int w, const double *x, const fc_ind_kparams *k, double *out) {
    (void)w;   /* one lane: the state needs no stride */
    double total = 0.0;
    for (int i = 0; i < k->p - 1; i++) {
        total += x[i];
        out[i] = NAN;
    }
    st[0] = total;
    return k->p - 1;
}

FC_HD void fc_sma_step(double *st, int w, double x, double x_old, const fc_ind_kparams *k,
                       double *out) {
    (void)w;
    double total = st[0] + x;
    *out = total / k->fp;
    st[0] = total - x_old;
}

FC_HD void fc_sma_run(double *st, int w, const double *x, long t0, long t1,
                      const fc_ind_kparams *k, double *out) {
    for (long t = t0; t < t1; t++) fc_sma_step(st, w, x[t], x[t - k->p + 1], k, &out[t]);
}

/* ------------------------------------------------------------------ EMA */
/* state: [ema]; seeded with the SMA of the first p values (TA-Lib's default
 * compatibility). Period 1 is a copy in TA-Lib and is dispatched as COPY. */

FC_HD int fc_ema_seed(double *st, int w, const double *x, const fc_ind_kparams *k, double *out) {
    (void)w;
    double total = 0.0;
    for (int i = 0; i < k->p; i++) total += x[i];
    for (int i = 0; i < k->p - 1; i++) out[i] = NAN;
    st[0] = total / k->fp;
    out[k->p - 1] = st[0];
    return k->p;
}

FC_HD void fc_ema_step(double *st, int w, double x, const fc_ind_kparams *k, double *out) {
    (void)w;
    double m = fma(x - st[0], k->k_slow, st[0]);
    st[0] = m;
    *out = m;
}

FC_HD void fc_ema_run(double *st, int w, const double *x, long t0, long t1,
                      const fc_ind_kparams *k, double *out) {
    for (long t = t0; t < t1; t++) fc_ema_step(st, w, x[t], k, &out[t]);
}

/* ------------------------------------------------------------------ WMA */
/* state: [periodSum, periodSub, barsSinceReseed]; step needs x[t - p].
 * TA-Lib rebuilds both sums from the window every 8p bars (its fix #255); the
 * step reports that bar and fc_wma_reanchor redoes it. Period 1 is COPY. */

FC_HD int fc_wma_seed(double *st, int w, const double *x, const fc_ind_kparams *k, double *out) {
    double sum = 0.0, sub = 0.0;
    for (int i = 0; i < k->p - 1; i++) {
        sub += x[i];
        sum += x[i] * (double)(i + 1);
        out[i] = NAN;
    }
    /* The first output: nothing trails out of the window yet. */
    double v = x[k->p - 1];
    sub += v;
    sum += v * k->fp;
    out[k->p - 1] = sum / k->divider;
    st[0] = sum - sub;
    st[w] = sub;
    st[2 * w] = (double)(k->reseed - 1);
    return k->p;
}

/* Returns nonzero when this bar must be recomputed by fc_wma_reanchor. */
FC_HD int fc_wma_step(double *st, int w, double x, double x_old, const fc_ind_kparams *k,
                      double *out) {
    double sub = st[w] + x;
    sub = sub - x_old;
    double sum = st[0] + x * k->fp;
    double bars = st[2 * w] - 1.0;
    *out = sum / k->divider;
    st[0] = sum - sub;
    st[w] = sub;
    st[2 * w] = bars;
    return bars <= 0.0;
}

/* Recomputes bar t from the window x[t-p+1..t], oldest first, weights 1..p. */
FC_HD void fc_wma_reanchor(double *st, int w, const double *x, long t, const fc_ind_kparams *k,
                           double *out) {
    double sum = 0.0, sub = 0.0, rw = 1.0;
    for (long j = t - k->p + 1; j <= t; j++) {
        sub += x[j];
        sum += x[j] * rw;
        rw += 1.0;
    }
    *out = sum / k->divider;
    st[0] = sum - sub;
    st[w] = sub;
    st[2 * w] = (double)k->reseed;
}

FC_HD void fc_wma_run(double *st, int w, const double *x, long t0, long t1,
                      const fc_ind_kparams *k, double *out) {
    for (long t = t0; t < t1; t++)
        if (fc_wma_step(st, w, x[t], x[t - k->p], k, &out[t]))
            fc_wma_reanchor(st, w, x, t, k, &out[t]);
}

/* ------------------------------------------------- rolling variance (VAR) */
/* TA-Lib 0.8's cancellation-free variance (its var.c, #118/#243): running
 * sums of x - shift, re-anchored on the window mean every 32p bars, when the
 * variance falls below 1e-6 of the mean squared deviation, or when a value
 * leaving the window dwarfs what remains.
 * state: [shift, total1, total2, barsSinceReseed]; step needs x[t - (p - 1)]. */

FC_HD int fc_var_seed(double *st, int w, const double *x, const fc_ind_kparams *k) {
    double shift = x[0], t1 = 0.0, t2 = 0.0;
    for (int i = 0; i < k->p - 1; i++) {
        double d = x[i] - shift;
        t1 += d;
        t2 += d * d;
    }
    st[0] = shift;
    st[w] = t1;
    st[2 * w] = t2;
    st[3 * w] = (double)k->reseed;
    return k->p - 1;
}

/* *var receives the population variance of x[t-p+1..t]; returns nonzero when
 * the bar must be recomputed by fc_var_reanchor. */
FC_HD int fc_var_step(double *st, int w, double x, double x_old, const fc_ind_kparams *k,
                      double *var) {
    double shift = st[0];
    double d = x - shift;
    double t1 = st[w] + d;
    double t2 = st[2 * w] + d * d;
    double m1 = t1 * k->inv;
    double v = t2 * k->inv - m1 * m1;
    *var = v;
    d = x_old - shift;
    t1 = t1 - d;
    double d2 = d * d;
    t2 = t2 - d2;
    double bars = st[3 * w] - 1.0;
    st[w] = t1;
    st[2 * w] = t2;
    st[3 * w] = bars;
    return (v < 0.000001 * (t2 * k->inv)) | (d2 > 1000000.0 * t2) | (bars <= 0.0);
}

FC_HD void fc_var_reanchor(double *st, int w, const double *x, long t, const fc_ind_kparams *k,
                           double *var) {
    long from = t - k->p + 1;
    double sum = 0.0;
    for (long j = from; j <= t; j++) sum += x[j];
    double shift = sum * k->inv, t1 = 0.0, t2 = 0.0;
    for (long j = from; j <= t; j++) {
        double d = x[j] - shift;
        t1 += d;
        t2 += d * d;
    }
    double m1 = t1 * k->inv;
    double v = t2 * k->inv - m1 * m1;
    if (v < 0.000000000001 * (t2 * k->inv)) v = 0.0;
    *var = v;
    double d = x[from] - shift;
    st[0] = shift;
    st[w] = t1 - d;
    st[2 * w] = t2 - d * d;
    st[3 * w] = (double)k->reseed;
}

/* The finishing steps take sd = sqrt(var), so a SIMD caller can take the
 * roots in bulk. */
FC_HD double fc_stddev_finish(double sd, const fc_ind_kparams *k) {
    return sd * k->dev_up; /* TA-Lib skips the product when nbdev is 1: same bits */
}

FC_HD int fc_stddev_seed(double *st, int w, const double *x, const fc_ind_kparams *k, double *out) {
    for (int i = 0; i < k->p - 1; i++) out[i] = NAN;
    return fc_var_seed(st, w, x, k);
}

FC_HD void fc_stddev_run(double *st, int w, const double *x, long t0, long t1,
                         const fc_ind_kparams *k, double *out) {
    for (long t = t0; t < t1; t++) {
        double v;
        if (fc_var_step(st, w, x[t], x[t - k->p + 1], k, &v)) fc_var_reanchor(st, w, x, t, k, &v);
        out[t] = fc_stddev_finish(sqrt(v), k);
    }
}

/* ------------------------------------------- BBANDS and the rolling z-score */
/* TA-Lib's fused SMA path of BBANDS: the SMA running sum (bit-identical to
 * TA_SMA) next to the VAR state above (bit-identical to TA_VAR).
 * state: [maTotal, shift, total1, total2, barsSinceReseed]. The z-score is
 * (x - SMA) / STDDEV over the same window, from the same state. */

FC_HD int fc_bands_seed(double *st, int w, const double *x, const fc_ind_kparams *k) {
    double total = 0.0;
    for (int i = 0; i < k->p - 1; i++) total += x[i];
    st[0] = total;
    return fc_var_seed(st + w, w, x, k);
}

/* *mid receives the SMA, *var the variance; returns the re-anchor flag. */
FC_HD int fc_bands_step(double *st, int w, double x, double x_old, const fc_ind_kparams *k,
                        double *mid, double *var) {
    double total = st[0] + x;
    *mid = total / k->fp;
    st[0] = total - x_old;
    return fc_var_step(st + w, w, x, x_old, k, var);
}

/* TA-Lib writes `var != 0 ? sqrt(var) : 0`, which is sqrt(var) for every
 * variance it can produce (never negative: its reseed floors those). */
FC_HD void fc_bbands_finish(double mid, double sd, const fc_ind_kparams *k, double *upper,
                            double *middle, double *lower) {
    *upper = mid + sd * k->dev_up;
    *middle = mid;
    *lower = mid - sd * k->dev_dn;
}

/* A window of equal values has no spread: the z-score is undefined (NaN). */
FC_HD double fc_zscore_finish(double x, double mid, double sd) {
    return sd > 0.0 ? (x - mid) / sd : NAN;
}

FC_HD void fc_bbands_run(double *st, int w, const double *x, long t0, long t1,
                         const fc_ind_kparams *k, double *up, double *mid, double *lo) {
    for (long t = t0; t < t1; t++) {
        double m, v;
        if (fc_bands_step(st, w, x[t], x[t - k->p + 1], k, &m, &v))
            fc_var_reanchor(st + w, w, x, t, k, &v);
        fc_bbands_finish(m, sqrt(v), k, &up[t], &mid[t], &lo[t]);
    }
}

FC_HD void fc_zscore_run(double *st, int w, const double *x, long t0, long t1,
                         const fc_ind_kparams *k, double *out) {
    for (long t = t0; t < t1; t++) {
        double m, v;
        if (fc_bands_step(st, w, x[t], x[t - k->p + 1], k, &m, &v))
            fc_var_reanchor(st + w, w, x, t, k, &v);
        out[t] = fc_zscore_finish(x[t], m, sqrt(v));
    }
}

/* ------------------------------------------------------------------ RSI */
/* Wilder smoothing seeded with the simple means of the first p gains and
 * losses; TA-Lib 0.8 scales by a hoisted 1/p and splits gain and loss without
 * a branch. state: [avgGain, avgLoss]; step needs x[t - 1].
 * TA-Lib answers 0 when gain + loss is not positive, which also turns a NaN
 * into 0 for the rest of the series; fcast answers 0 for a flat market (as
 * TA-Lib) but NaN for a NaN, so a gap never reads as "extremely oversold". */

FC_HD double fc_rsi_value(double gain, double loss) {
    double total = gain + loss;
    return total > 0.0 ? 100.0 * (gain / total) : (total == 0.0 ? 0.0 : NAN);
}

FC_HD int fc_rsi_seed(double *st, int w, const double *x, const fc_ind_kparams *k, double *out) {
    double gain = 0.0, loss = 0.0, prev = x[0];
    out[0] = NAN;
    for (int i = 1; i <= k->p; i++) {
        double d = x[i] - prev;
        prev = x[i];
        double g = d > 0.0 ? d : 0.0;
        gain += g;
        loss += g - d;
        if (i < k->p) out[i] = NAN;
    }
    loss *= k->inv;
    gain *= k->inv;
    st[0] = gain;
    st[w] = loss;
    out[k->p] = fc_rsi_value(gain, loss);
    return k->p + 1;
}

FC_HD void fc_rsi_step(double *st, int w, double x, double x_prev, const fc_ind_kparams *k,
                       double *out) {
    double d = x - x_prev;
    double loss = st[w] * k->pm1;
    double gain = st[0] * k->pm1;
    double g = d > 0.0 ? d : 0.0;
    gain += g;
    loss += g - d;
    loss *= k->inv;
    gain *= k->inv;
    st[0] = gain;
    st[w] = loss;
    *out = fc_rsi_value(gain, loss);
}

FC_HD void fc_rsi_run(double *st, int w, const double *x, long t0, long t1,
                      const fc_ind_kparams *k, double *out) {
    for (long t = t0; t < t1; t++) fc_rsi_step(st, w, x[t], x[t - 1], k, &out[t]);
}

/* ----------------------------------------------------------------- MACD */
/* TA-Lib's aligned seeding: the slow EMA is seeded with the SMA of the first
 * `slow` values and the fast EMA with the SMA of the last `fast` of those, so
 * both start on the same bar; the signal EMA is seeded with the mean of the
 * first `signal` MACD values. state: [fast, slow, signal]. */

FC_HD int fc_macd_seed(double *st, int w, const double *x, const fc_ind_kparams *k,
                       double *macd, double *signal, double *hist) {
    int s = k->p, f = k->p_fast, g = k->p_signal;
    double slow_sum = 0.0, fast_sum = 0.0;
    for (int i = 0; i < s - f; i++) slow_sum += x[i];
    for (int i = s - f; i < s; i++) {
        fast_sum += x[i];
        slow_sum += x[i];
    }
    double slow = slow_sum / (double)s, fast = fast_sum / (double)f;
    double line = fast - slow, sig = 0.0;
    sig += line;
    int t = s;
    for (int i = 1; i < g; i++, t++) {
        fast = fma(x[t] - fast, k->k_fast, fast);
        slow = fma(x[t] - slow, k->k_slow, slow);
        line = fast - slow;
        sig += line;
    }
    sig = sig / (double)g;
    for (int i = 0; i < t - 1; i++) macd[i] = signal[i] = hist[i] = NAN;
    macd[t - 1] = line;
    signal[t - 1] = sig;
    hist[t - 1] = line - sig;
    st[0] = fast;
    st[w] = slow;
    st[2 * w] = sig;
    return t;
}

FC_HD void fc_macd_step(double *st, int w, double x, const fc_ind_kparams *k, double *macd,
                        double *signal, double *hist) {
    double fast = fma(x - st[0], k->k_fast, st[0]);
    double slow = fma(x - st[w], k->k_slow, st[w]);
    double line = fast - slow;
    double sig = fma(line - st[2 * w], k->k_signal, st[2 * w]);
    st[0] = fast;
    st[w] = slow;
    st[2 * w] = sig;
    *macd = line;
    *signal = sig;
    *hist = line - sig;
}

FC_HD void fc_macd_run(double *st, int w, const double *x, long t0, long t1,
                       const fc_ind_kparams *k, double *macd, double *signal, double *hist) {
    for (long t = t0; t < t1; t++) fc_macd_step(st, w, x[t], k, &macd[t], &signal[t], &hist[t]);
}

/* ------------------------------------------------------------ MOM, ROC */
/* Stateless differences against x[t - p]: a NaN spoils two outputs only. */

FC_HD double fc_mom_value(double x, double x_old) { return x - x_old; }

/* TA-Lib: ((price / prevPrice) - 1) * 100, and 0 when prevPrice is 0. */
FC_HD double fc_roc_value(double x, double x_old) {
    return x_old != 0.0 ? ((x / x_old) - 1.0) * 100.0 : 0.0;
}

FC_HD int fc_lagged_seed(const fc_ind_kparams *k, double *out) {
    for (int i = 0; i < k->p; i++) out[i] = NAN;
    return k->p;
}

FC_HD void fc_mom_run(const double *x, long t0, long t1, const fc_ind_kparams *k, double *out) {
    for (long t = t0; t < t1; t++) out[t] = fc_mom_value(x[t], x[t - k->p]);
}

FC_HD void fc_roc_run(const double *x, long t0, long t1, const fc_ind_kparams *k, double *out) {
    for (long t = t0; t < t1; t++) out[t] = fc_roc_value(x[t], x[t - k->p]);
}

#endif
