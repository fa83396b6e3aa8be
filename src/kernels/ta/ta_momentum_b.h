/* TA-Lib's Momentum Indicators, MINUS_DI to WILLR (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_momb_...
 *
 * NaN inputs: wherever TA-Lib guards a division with its zero test (RSI's
 * gain + loss, DI's true range, ...), the TA-Lib wheel takes the "zero"
 * branch for a NaN divisor and writes 0.0, so a NaN that enters a running
 * sum turns every later output into 0.0 rather than NaN (fixture case
 * `nan`). fc_ta_momb_zeroish reproduces that test. Guards that compare with
 * 0 exactly (ROC's, STOCH's, SMI's) let the NaN through instead.
 *
 * Where the TA-Lib 0.8.1 wheel's rounding differs from what TA-Lib's source
 * reads, the fixtures decide: RSI divides its averages by p as a product
 * with 1 / p; WILLR and the stochastics' %K take the ratio to the range and
 * then scale it by (-)100. */
#ifndef FC_KERNELS_TA_MOMENTUM_B_H
#define FC_KERNELS_TA_MOMENTUM_B_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_ma.h"

/* TA-Lib's zero test as the wheel evaluates it: |v| < 1e-14, or v NaN. */
FC_HD int fc_ta_momb_zeroish(double v) { return !(v <= -0.00000000000001 || v >= 0.00000000000001); }

/* ------------------------------------------- MOM, ROC, ROCP, ROCR, ROCR100 */

/* The five differ only in how the bar and the one p bars back combine; the
 * ratios write 0.0 where the older value is exactly 0. */
enum { FC_TA_MOMB_MOM, FC_TA_MOMB_ROC, FC_TA_MOMB_ROCP, FC_TA_MOMB_ROCR, FC_TA_MOMB_ROCR100 };

FC_HD void fc_ta_momb_change(int kind, const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]), n = c->n;
    const double *x = c->in[0];
    double *out = c->out[0];
    fc_ta_nan(out, 0, p);
    for (int t = p; t < n; t++) {
        double now = x[t], then = x[t - p];
        if (kind == FC_TA_MOMB_MOM) {
            out[t] = now - then;
            continue;
        }
        if (then == 0.0) {
            out[t] = 0.0;
            continue;
        }
        switch (kind) {
        case FC_TA_MOMB_ROC: out[t] = (now / then - 1.0) * 100.0; break;
        case FC_TA_MOMB_ROCP: out[t] = (now - then) / then; break;
        case FC_TA_MOMB_ROCR: out[t] = now / then; break;
        default: out[t] = (now / then) * 100.0; break;
        }
    }
}

FC_HD int fc_ta_mom_lookback(const double *par) { return fc_ta_int(par[0]); }
FC_HD void fc_ta_mom(const fc_ta_call *c) { fc_ta_momb_change(FC_TA_MOMB_MOM, c); }
FC_HD int fc_ta_roc_lookback(const double *par) { return fc_ta_int(par[0]); }
FC_HD void fc_ta_roc(const fc_ta_call *c) { fc_ta_momb_change(FC_TA_MOMB_ROC, c); }
FC_HD int fc_ta_rocp_lookback(const double *par) { return fc_ta_int(par[0]); }
FC_HD void fc_ta_rocp(const fc_ta_call *c) { fc_ta_momb_change(FC_TA_MOMB_ROCP, c); }
FC_HD int fc_ta_rocr_lookback(const double *par) { return fc_ta_int(par[0]); }
FC_HD void fc_ta_rocr(const fc_ta_call *c) { fc_ta_momb_change(FC_TA_MOMB_ROCR, c); }
FC_HD int fc_ta_rocr100_lookback(const double *par) { return fc_ta_int(par[0]); }
FC_HD void fc_ta_rocr100(const fc_ta_call *c) { fc_ta_momb_change(FC_TA_MOMB_ROCR100, c); }

/* ------------------------------------ PLUS_DM, MINUS_DM, PLUS_DI, MINUS_DI */

/* Wilder's one-bar directional movement at bar t: the part of today's range
 * outside yesterday's, +DM when the high's rise beats the low's fall, -DM
 * when the fall beats the rise (ties and NaNs give neither). */
FC_HD double fc_ta_momb_dm1(const double *high, const double *low, int t, int minus) {
    double up = high[t] - high[t - 1], down = low[t - 1] - low[t];
    if (minus) return down > 0 && up < down ? down : 0.0;
    return up > 0 && up > down ? up : 0.0;
}

/* TA_TRANGE's true range of bar t. */
FC_HD double fc_ta_momb_tr1(const double *high, const double *low, const double *close, int t) {
    double range = high[t] - low[t], gap = fabs(high[t] - close[t - 1]);
    if (gap > range) range = gap;
    gap = fabs(low[t] - close[t - 1]);
    if (gap > range) range = gap;
    return range;
}

/* Wilder's running sum: s - s/p + today. */
FC_HD double fc_ta_momb_wilder(double s, int p, double today) { return s - s / (double)p + today; }

FC_HD int fc_ta_momb_dm_lookback(const double *par) {
    int p = fc_ta_int(par[0]);
    return p > 1 ? p - 1 : 1;
}

/* +DM/-DM over p bars: the plain sum of the first p - 1 one-bar values,
 * then Wilder's smoothing; p = 1 is the one-bar value itself. */
FC_HD void fc_ta_momb_dm(const fc_ta_call *c, int minus) {
    int p = fc_ta_int(c->par[0]), n = c->n;
    const double *high = c->in[0], *low = c->in[1];
    double *out = c->out[0];
    if (p <= 1) {
        out[0] = NAN;
        for (int t = 1; t < n; t++) out[t] = fc_ta_momb_dm1(high, low, t, minus);
        return;
    }
    double dm = 0.0;
    for (int t = 1; t < p; t++) {
        dm += fc_ta_momb_dm1(high, low, t, minus);
        out[t - 1] = NAN;
    }
    out[p - 1] = dm;
    for (int t = p; t < n; t++) {
        dm = fc_ta_momb_wilder(dm, p, fc_ta_momb_dm1(high, low, t, minus));
        out[t] = dm;
    }
}

FC_HD int fc_ta_plus_dm_lookback(const double *par) { return fc_ta_momb_dm_lookback(par); }
FC_HD void fc_ta_plus_dm(const fc_ta_call *c) { fc_ta_momb_dm(c, 0); }
FC_HD int fc_ta_minus_dm_lookback(const double *par) { return fc_ta_momb_dm_lookback(par); }
FC_HD void fc_ta_minus_dm(const fc_ta_call *c) { fc_ta_momb_dm(c, 1); }

FC_HD int fc_ta_momb_di_lookback(const double *par) {
    int p = fc_ta_int(par[0]);
    return p > 1 ? p : 1;
}

/* 100 * DM / TR, both summed over p - 1 bars and smoothed once before the
 * first output; p = 1 is the one-bar DM / TR (unscaled, as TA-Lib). */
FC_HD void fc_ta_momb_di(const fc_ta_call *c, int minus) {
    int p = fc_ta_int(c->par[0]), n = c->n;
    const double *high = c->in[0], *low = c->in[1], *close = c->in[2];
    double *out = c->out[0];
    out[0] = NAN;
    if (p <= 1) {
        for (int t = 1; t < n; t++) {
            double d = fc_ta_momb_dm1(high, low, t, minus);
            double tr = fc_ta_momb_tr1(high, low, close, t);
            out[t] = d == 0.0 || fc_ta_momb_zeroish(tr) ? 0.0 : d / tr;
        }
        return;
    }
    double dm = 0.0, tr = 0.0;
    for (int t = 1; t < p; t++) {
        dm += fc_ta_momb_dm1(high, low, t, minus);
        tr += fc_ta_momb_tr1(high, low, close, t);
        out[t] = NAN;
    }
    for (int t = p; t < n; t++) {
        dm = fc_ta_momb_wilder(dm, p, fc_ta_momb_dm1(high, low, t, minus));
        tr = fc_ta_momb_wilder(tr, p, fc_ta_momb_tr1(high, low, close, t));
        out[t] = fc_ta_momb_zeroish(tr) ? 0.0 : 100.0 * (dm / tr);
    }
}

FC_HD int fc_ta_plus_di_lookback(const double *par) { return fc_ta_momb_di_lookback(par); }
FC_HD void fc_ta_plus_di(const fc_ta_call *c) { fc_ta_momb_di(c, 0); }
FC_HD int fc_ta_minus_di_lookback(const double *par) { return fc_ta_momb_di_lookback(par); }
FC_HD void fc_ta_minus_di(const fc_ta_call *c) { fc_ta_momb_di(c, 1); }

/* ---------------------------------------------------------------- RSI */

FC_HD int fc_ta_rsi_lookback(const double *par) { return fc_ta_int(par[0]); }

/* 100 * gain / (gain + loss) of x[0..n) into out (NaN before bar p), the
 * averages seeded with the plain means of the first p changes, then Wilder's
 * (avg * (p - 1) + today) / p. TA-Lib 0.8.1 divides by p as a product with
 * 1 / p (the fixtures match that to the bit, not the quotient). */
FC_HD void fc_ta_momb_rsi(int p, const double *x, int n, double *out) {
    double gain = 0.0, loss = 0.0, inv = 1.0 / (double)p, fp1 = (double)(p - 1);
    fc_ta_nan(out, 0, p);
    for (int t = 1; t <= p; t++) {
        double d = x[t] - x[t - 1];
        if (d < 0.0) loss -= d;
        else gain += d;
    }
    loss *= inv;
    gain *= inv;
    for (int t = p; t < n; t++) {
        if (t > p) {
            double d = x[t] - x[t - 1];
            loss *= fp1;
            gain *= fp1;
            if (d < 0.0) loss -= d;
            else gain += d;
            loss *= inv;
            gain *= inv;
        }
        double sum = gain + loss;
        out[t] = fc_ta_momb_zeroish(sum) ? 0.0 : 100.0 * (gain / sum);
    }
}

FC_HD void fc_ta_rsi(const fc_ta_call *c) { fc_ta_momb_rsi(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

/* ------------------------------------------------- rolling extremes */

/* TA-Lib's running lowest low / highest high over [trailing, today]: the
 * index of the extreme is kept, and the window is rescanned only when that
 * index falls out of it. A rescan starts from the oldest bar and takes a new
 * extreme only when strictly beyond; a new bar takes over when it ties. With
 * NaNs this order matters: a NaN oldest bar stays the extreme for the whole
 * rescan (every comparison with it is false), a NaN new bar never enters. */
typedef struct {
    int idx;
    double v;
} fc_ta_momb_extreme;

FC_HD void fc_ta_momb_lowest(const double *x, int trailing, int today, fc_ta_momb_extreme *e) {
    if (e->idx < trailing) {
        e->idx = trailing;
        e->v = x[trailing];
        for (int i = trailing + 1; i <= today; i++)
            if (x[i] < e->v) e->idx = i, e->v = x[i];
    } else if (x[today] <= e->v) {
        e->idx = today;
        e->v = x[today];
    }
}

FC_HD void fc_ta_momb_highest(const double *x, int trailing, int today, fc_ta_momb_extreme *e) {
    if (e->idx < trailing) {
        e->idx = trailing;
        e->v = x[trailing];
        for (int i = trailing + 1; i <= today; i++)
            if (x[i] > e->v) e->idx = i, e->v = x[i];
    } else if (x[today] >= e->v) {
        e->idx = today;
        e->v = x[today];
    }
}

/* ---------------------------------------------------------------- WILLR */

FC_HD int fc_ta_willr_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }

/* -100 * (highest - close) / (highest - lowest), 0 on a flat window. The
 * TA-Lib 0.8.1 wheel's values are the ratio times -100 (not, as TA-Lib's
 * source reads, the difference over (highest - lowest) / -100). */
FC_HD void fc_ta_willr(const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]), n = c->n;
    const double *high = c->in[0], *low = c->in[1], *close = c->in[2];
    double *out = c->out[0];
    fc_ta_momb_extreme lo = {-1, 0.0}, hi = {-1, 0.0};
    fc_ta_nan(out, 0, p - 1);
    for (int t = p - 1; t < n; t++) {
        fc_ta_momb_lowest(low, t - p + 1, t, &lo);
        fc_ta_momb_highest(high, t - p + 1, t, &hi);
        double diff = hi.v - lo.v;
        out[t] = diff != 0.0 ? (hi.v - close[t]) / diff * -100.0 : 0.0;
    }
}

/* --------------------------------------------------------------- STOCHF */

/* Fast %K of bars [from, n) into k[0 .. n - from): (close - lowest) /
 * (highest - lowest) * 100 over the p bars up to each (the wheel's rounding,
 * as WILLR's), 0 on a flat window. from >= p - 1. */
FC_HD void fc_ta_momb_fastk(int p, const double *high, const double *low, const double *close, int from, int n,
                            double *k) {
    fc_ta_momb_extreme lo = {-1, 0.0}, hi = {-1, 0.0};
    for (int t = from; t < n; t++) {
        fc_ta_momb_lowest(low, t - p + 1, t, &lo);
        fc_ta_momb_highest(high, t - p + 1, t, &hi);
        double diff = hi.v - lo.v;
        k[t - from] = diff != 0.0 ? (close[t] - lo.v) / diff * 100.0 : 0.0;
    }
}

FC_HD int fc_ta_stochf_lookback(const double *par) {
    int ma = fc_ta_ma_resolve(fc_ta_int(par[2]), FC_TA_MA_SMA);
    return fc_ta_int(par[0]) - 1 + fc_ta_ma_lookback(ma, fc_ta_int(par[1]));
}

/* work: fast %K from its first bar, then fc_ta_ma's scratch. */
FC_HD void fc_ta_stochf(const fc_ta_call *c) {
    int pk = fc_ta_int(c->par[0]), pd = fc_ta_int(c->par[1]), n = c->n;
    int ma = fc_ta_ma_resolve(fc_ta_int(c->par[2]), FC_TA_MA_SMA);
    int lbk = pk - 1, lb = fc_ta_stochf_lookback(c->par);
    double *k = c->work, *fk = c->out[0], *fd = c->out[1];
    fc_ta_momb_fastk(pk, c->in[0], c->in[1], c->in[2], lbk, n, k);
    fc_ta_nan(fd, 0, lbk);
    fc_ta_ma(ma, pd, k, n - lbk, fd + lbk, c->work + n);
    fc_ta_nan(fk, 0, lb);
    for (int t = lb; t < n; t++) fk[t] = k[t - lbk];
}

/* ---------------------------------------------------------- STOCH, KDJ */

FC_HD int fc_ta_momb_stoch_lookback(const double *par, int own_ma) {
    int mak = fc_ta_ma_resolve(fc_ta_int(par[2]), own_ma), mad = fc_ta_ma_resolve(fc_ta_int(par[4]), own_ma);
    return fc_ta_int(par[0]) - 1 + fc_ta_ma_lookback(mak, fc_ta_int(par[1])) + fc_ta_ma_lookback(mad, fc_ta_int(par[3]));
}

/* Slow %K = MA of fast %K, slow %D = MA of slow %K, into out[0], out[1].
 * work: fast %K, slow %K (n each), then fc_ta_ma's scratch. */
FC_HD void fc_ta_momb_stoch(const fc_ta_call *c, int own_ma) {
    int pk = fc_ta_int(c->par[0]), psk = fc_ta_int(c->par[1]), psd = fc_ta_int(c->par[3]), n = c->n;
    int mak = fc_ta_ma_resolve(fc_ta_int(c->par[2]), own_ma), mad = fc_ta_ma_resolve(fc_ta_int(c->par[4]), own_ma);
    int lbk = pk - 1, lbsk = lbk + fc_ta_ma_lookback(mak, psk), lb = fc_ta_momb_stoch_lookback(c->par, own_ma);
    double *fastk = c->work, *slowk = c->work + n, *sk = c->out[0], *sd = c->out[1];
    fc_ta_momb_fastk(pk, c->in[0], c->in[1], c->in[2], lbk, n, fastk);
    fc_ta_ma(mak, psk, fastk, n - lbk, slowk, c->work + 2 * n);
    /* slowk[j] is bar lbk + j; its first value is bar lbsk */
    fc_ta_nan(sd, 0, lbsk);
    fc_ta_ma(mad, psd, slowk + (lbsk - lbk), n - lbsk, sd + lbsk, c->work + 2 * n);
    fc_ta_nan(sk, 0, lb);
    for (int t = lb; t < n; t++) sk[t] = slowk[t - lbk];
}

FC_HD int fc_ta_stoch_lookback(const double *par) { return fc_ta_momb_stoch_lookback(par, FC_TA_MA_SMA); }
FC_HD void fc_ta_stoch(const fc_ta_call *c) { fc_ta_momb_stoch(c, FC_TA_MA_SMA); }

/* KDJ: STOCH with Wilder's smoothing (RMA) by default, and J = 3K - 2D. */
FC_HD int fc_ta_kdj_lookback(const double *par) { return fc_ta_momb_stoch_lookback(par, FC_TA_MA_RMA); }

FC_HD void fc_ta_kdj(const fc_ta_call *c) {
    fc_ta_momb_stoch(c, FC_TA_MA_RMA);
    const double *k = c->out[0], *d = c->out[1];
    double *j = c->out[2];
    for (int t = 0; t < c->n; t++) j[t] = 3.0 * k[t] - 2.0 * d[t];
}

/* ------------------------------------------------------------- STOCHRSI */

FC_HD int fc_ta_stochrsi_lookback(const double *par) {
    int ma = fc_ta_ma_resolve(fc_ta_int(par[3]), FC_TA_MA_SMA);
    return fc_ta_int(par[0]) + fc_ta_int(par[1]) - 1 + fc_ta_ma_lookback(ma, fc_ta_int(par[2]));
}

/* STOCHF with the RSI as high, low and close. work: the RSI, its fast %K
 * (n each), then fc_ta_ma's scratch. */
FC_HD void fc_ta_stochrsi(const fc_ta_call *c) {
    int pr = fc_ta_int(c->par[0]), pk = fc_ta_int(c->par[1]), pd = fc_ta_int(c->par[2]), n = c->n;
    int ma = fc_ta_ma_resolve(fc_ta_int(c->par[3]), FC_TA_MA_SMA);
    int lbk = pr + pk - 1, lb = fc_ta_stochrsi_lookback(c->par);
    double *rsi = c->work, *k = c->work + n, *fk = c->out[0], *fd = c->out[1];
    fc_ta_momb_rsi(pr, c->in[0], n, rsi);
    const double *r = rsi + pr;
    fc_ta_momb_fastk(pk, r, r, r, pk - 1, n - pr, k);
    fc_ta_nan(fd, 0, lbk);
    fc_ta_ma(ma, pd, k, n - lbk, fd + lbk, c->work + 2 * n);
    fc_ta_nan(fk, 0, lb);
    for (int t = lb; t < n; t++) fk[t] = k[t - lbk];
}

/* ---------------------------------------------------------------- TRIX */

FC_HD int fc_ta_trix_lookback(const double *par) { return 3 * (fc_ta_int(par[0]) - 1) + 1; }

/* The one-bar rate of change (ROC's formula) of EMA(EMA(EMA(x))), each EMA
 * seeded with the mean of its input's first p values. work: 2 per bar. */
FC_HD void fc_ta_trix(const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]), n = c->n, lb = p - 1;
    double *e1 = c->work, *e2 = c->work + n, *e3 = c->work, *out = c->out[0];
    fc_ta_ema_p(p, c->in[0], n, e1);
    fc_ta_ema_p(p, e1 + lb, n - lb, e2);        /* e2[j]: bar lb + j */
    fc_ta_ema_p(p, e2 + lb, n - 2 * lb, e3);    /* e3[j]: bar 2 lb + j */
    int first = 3 * lb + 1;
    fc_ta_nan(out, 0, first);
    for (int t = first; t < n; t++) {
        double prev = e3[t - 1 - 2 * lb], now = e3[t - 2 * lb];
        out[t] = prev != 0.0 ? (now / prev - 1.0) * 100.0 : 0.0;
    }
}

/* -------------------------------------------------------------- ULTOSC */

FC_HD int fc_ta_ultosc_lookback(const double *par) {
    int p1 = fc_ta_int(par[0]), p2 = fc_ta_int(par[1]), p3 = fc_ta_int(par[2]);
    int m = p1 > p2 ? p1 : p2;
    return m > p3 ? m : p3;
}

/* Bar t's buying pressure (close - min(low, previous close)) and true range
 * (TA-Lib's own order of the three candidates). */
FC_HD void fc_ta_momb_ult_terms(const double *high, const double *low, const double *close, int t, double *bp,
                                double *tr) {
    double lo = low[t], hi = high[t], cy = close[t - 1];
    double true_low = lo < cy ? lo : cy;
    double range = hi - lo, gap = fabs(cy - hi);
    if (gap > range) range = gap;
    gap = fabs(cy - lo);
    if (gap > range) range = gap;
    *bp = close[t] - true_low;
    *tr = range;
}

/* 100 * (4 bp/tr over the shortest period + 2 over the middle + 1 over the
 * longest) / 7, the periods sorted whatever their order; a window whose true
 * ranges sum to zero (or NaN) adds nothing. */
FC_HD void fc_ta_ultosc(const fc_ta_call *c) {
    const double *high = c->in[0], *low = c->in[1], *close = c->in[2];
    int per[3] = {fc_ta_int(c->par[0]), fc_ta_int(c->par[1]), fc_ta_int(c->par[2])}, n = c->n;
    for (int i = 0; i < 2; i++)        /* ascending */
        for (int j = 0; j < 2 - i; j++)
            if (per[j] > per[j + 1]) {
                int s = per[j];
                per[j] = per[j + 1];
                per[j + 1] = s;
            }
    int start = per[2];
    double a[3] = {0.0, 0.0, 0.0}, b[3] = {0.0, 0.0, 0.0}, bp, tr;
    for (int i = start - per[2] + 1; i < start; i++) {
        fc_ta_momb_ult_terms(high, low, close, i, &bp, &tr);
        for (int w = 0; w < 3; w++)
            if (i >= start - per[w] + 1) a[w] += bp, b[w] += tr;
    }
    double *out = c->out[0];
    fc_ta_nan(out, 0, start);
    const double weight[3] = {4.0, 2.0, 1.0};
    for (int t = start; t < n; t++) {
        fc_ta_momb_ult_terms(high, low, close, t, &bp, &tr);
        double sum = 0.0;
        for (int w = 0; w < 3; w++) {
            a[w] += bp;
            b[w] += tr;
            if (!fc_ta_momb_zeroish(b[w])) sum += weight[w] * (a[w] / b[w]);
        }
        for (int w = 0; w < 3; w++) {
            fc_ta_momb_ult_terms(high, low, close, t - per[w] + 1, &bp, &tr);
            a[w] -= bp;
            b[w] -= tr;
        }
        out[t] = 100.0 * (sum / 7.0);
    }
}

/* -------------------------------------------------------------- QSTICK */

FC_HD int fc_ta_qstick_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }

/* TA_SMA's running total over the candle bodies close - open. */
FC_HD void fc_ta_qstick(const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]), n = c->n;
    const double *open = c->in[0], *close = c->in[1];
    double *out = c->out[0], total = 0.0;
    for (int i = 0; i < p - 1; i++) total += close[i] - open[i];
    fc_ta_nan(out, 0, p - 1);
    for (int t = p - 1; t < n; t++) {
        total += close[t] - open[t];
        out[t] = total / (double)p;
        total -= close[t - p + 1] - open[t - p + 1];
    }
}

/* ----------------------------------------------------------------- VHF */

FC_HD int fc_ta_vhf_lookback(const double *par) { return fc_ta_int(par[0]); }

/* (highest - lowest) of the last p values over the sum of the last p
 * absolute one-bar changes (reaching one bar further back), summed afresh
 * each bar; 0 when that sum is not positive (a flat window, or a NaN). */
FC_HD void fc_ta_vhf(const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]), n = c->n;
    const double *x = c->in[0];
    double *out = c->out[0];
    fc_ta_nan(out, 0, p);
    for (int t = p; t < n; t++) {
        double hi = x[t], lo = x[t], sum = 0.0;
        for (int i = t - p + 1; i <= t; i++) {
            sum += fabs(x[i] - x[i - 1]);
            if (x[i] > hi) hi = x[i];
            if (x[i] < lo) lo = x[i];
        }
        out[t] = sum > 0.0 ? (hi - lo) / sum : 0.0;
    }
}

/* -------------------------------------------------------------- VORTEX */

FC_HD int fc_ta_vortex_lookback(const double *par) { return fc_ta_int(par[0]); }

/* +VI = sum |high - previous low| / sum TR, -VI = sum |low - previous high| /
 * sum TR over p bars, running sums (today added, the oldest retired after
 * the output); 0 where the TR sum is not positive. As TA-Lib, the TR sum is
 * reset to exactly 0 once p true ranges in a row are 0 (a flat window),
 * purging the sums' rounding residue. */
FC_HD void fc_ta_vortex(const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]), n = c->n, flat = 0;
    const double *high = c->in[0], *low = c->in[1], *close = c->in[2];
    double *plus = c->out[0], *minus = c->out[1], str = 0.0, svp = 0.0, svm = 0.0;
    for (int i = 1; i < p; i++) {
        double tr = fc_ta_momb_tr1(high, low, close, i);
        str += tr;
        svp += fabs(high[i] - low[i - 1]);
        svm += fabs(low[i] - high[i - 1]);
        flat = tr == 0.0 ? flat + 1 : 0;
    }
    fc_ta_nan(plus, 0, p);
    fc_ta_nan(minus, 0, p);
    for (int t = p; t < n; t++) {
        double tr = fc_ta_momb_tr1(high, low, close, t);
        str += tr;
        svp += fabs(high[t] - low[t - 1]);
        svm += fabs(low[t] - high[t - 1]);
        flat = tr == 0.0 ? flat + 1 : 0;
        if (flat >= p) {
            flat = p;
            str = 0.0;
        }
        double ctr = str, cvp = svp, cvm = svm;
        int o = t - p + 1;
        str -= fc_ta_momb_tr1(high, low, close, o);
        svp -= fabs(high[o] - low[o - 1]);
        svm -= fabs(low[o] - high[o - 1]);
        plus[t] = ctr > 0.0 ? cvp / ctr : 0.0;
        minus[t] = ctr > 0.0 ? cvm / ctr : 0.0;
    }
}

/* ----------------------------------------------------------------- WAD */

FC_HD int fc_ta_wad_lookback(const double *par) {
    (void)par;
    return 0;
}

/* Williams' accumulation/distribution without volume: the running sum of
 * close - min(low, previous close) on an up close, close - max(high,
 * previous close) on a down close, nothing on an equal one (nor when either
 * close is NaN); bar 0 adds nothing. */
FC_HD void fc_ta_wad(const fc_ta_call *c) {
    const double *high = c->in[0], *low = c->in[1], *close = c->in[2];
    double *out = c->out[0], sum = 0.0, prev = close[0];
    for (int t = 0; t < c->n; t++) {
        double now = close[t], extreme;
        if (now > prev) {
            extreme = prev < low[t] ? prev : low[t];
            sum += now - extreme;
        } else if (now < prev) {
            extreme = prev > high[t] ? prev : high[t];
            sum += now - extreme;
        }
        out[t] = sum;
        prev = now;
    }
}

/* ---------------------------------------------------------------- TSI */

/* One EMA carried bar by bar, as TA_EMA computes it: the mean of the first
 * p inputs, then fma(x - prev, k, prev) with k = 2 / (p + 1). */
typedef struct {
    int p, seen;
    double k, sum, v;
} fc_ta_momb_ema;

FC_HD fc_ta_momb_ema fc_ta_momb_ema_new(int p) {
    fc_ta_momb_ema e = {p, 0, 2.0 / ((double)p + 1.0), 0.0, 0.0};
    return e;
}

/* Feeds x; returns 1 once e->v holds a value (from the p-th input on). */
FC_HD int fc_ta_momb_ema_step(fc_ta_momb_ema *e, double x) {
    if (e->seen < e->p) {
        e->sum += x;
        if (++e->seen < e->p) return 0;
        e->v = e->sum / (double)e->p;
        return 1;
    }
    e->v = fma(x - e->v, e->k, e->v);
    return 1;
}

FC_HD int fc_ta_tsi_lookback(const double *par) { return 1 + (fc_ta_int(par[0]) - 1) + (fc_ta_int(par[1]) - 1); }

/* 100 * EMA2(EMA1(change)) / EMA2(EMA1(|change|)), the one-bar change of x
 * smoothed twice (first period, then second); 0 where the denominator is not
 * positive (no movement, or a NaN). */
FC_HD void fc_ta_tsi(const fc_ta_call *c) {
    int p1 = fc_ta_int(c->par[0]), p2 = fc_ta_int(c->par[1]), n = c->n;
    const double *x = c->in[0];
    double *out = c->out[0];
    fc_ta_momb_ema n1 = fc_ta_momb_ema_new(p1), d1 = fc_ta_momb_ema_new(p1);
    fc_ta_momb_ema n2 = fc_ta_momb_ema_new(p2), d2 = fc_ta_momb_ema_new(p2);
    out[0] = NAN;
    for (int t = 1; t < n; t++) {
        double m = x[t] - x[t - 1];
        int ready = fc_ta_momb_ema_step(&n1, m);
        fc_ta_momb_ema_step(&d1, fabs(m));
        if (ready) {
            ready = fc_ta_momb_ema_step(&n2, n1.v);
            fc_ta_momb_ema_step(&d2, d1.v);
        }
        out[t] = !ready ? NAN : d2.v > 0.0 ? 100.0 * n2.v / d2.v : 0.0;
    }
}

/* ---------------------------------------------------------------- SMI */

FC_HD int fc_ta_smi_lookback(const double *par) {
    return fc_ta_int(par[0]) - 1 + fc_ta_int(par[2]) - 1 + fc_ta_int(par[1]) - 1 + fc_ta_int(par[3]) - 1;
}

/* Blau's stochastic momentum index: over the p-bar window, the close's
 * distance from the mid-range, close - (highest + lowest) / 2, and the range
 * highest - lowest, each smoothed by the slow then the fast EMA; SMI = 100 *
 * distance / (range / 2) (0 on a zero range, NaN on a NaN one), the signal
 * its EMA. Both outputs start at the signal's first value. */
FC_HD void fc_ta_smi(const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]), n = c->n, lb = fc_ta_smi_lookback(c->par);
    const double *high = c->in[0], *low = c->in[1], *close = c->in[2];
    double *smi = c->out[0], *sig = c->out[1];
    fc_ta_momb_ema sn = fc_ta_momb_ema_new(fc_ta_int(c->par[2])), sd = sn;
    fc_ta_momb_ema fn = fc_ta_momb_ema_new(fc_ta_int(c->par[1])), fd = fn;
    fc_ta_momb_ema es = fc_ta_momb_ema_new(fc_ta_int(c->par[3]));
    fc_ta_momb_extreme lo = {-1, 0.0}, hi = {-1, 0.0};
    fc_ta_nan(smi, 0, lb);
    fc_ta_nan(sig, 0, lb);
    for (int t = p - 1; t < n; t++) {
        fc_ta_momb_lowest(low, t - p + 1, t, &lo);
        fc_ta_momb_highest(high, t - p + 1, t, &hi);
        double range = hi.v - lo.v, dist = close[t] - (hi.v + lo.v) * 0.5;
        int ready = fc_ta_momb_ema_step(&sn, dist);
        fc_ta_momb_ema_step(&sd, range);
        if (!ready) continue;
        ready = fc_ta_momb_ema_step(&fn, sn.v);
        fc_ta_momb_ema_step(&fd, sd.v);
        if (!ready) continue;
        double half = 0.5 * fd.v, v = fc_ta_is_zero(half) ? 0.0 : 100.0 * fn.v / half;
        if (!fc_ta_momb_ema_step(&es, v)) continue;
        smi[t] = v;
        sig[t] = es.v;
    }
}

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_MOMENTUM_B(X) \
    X(MOM, mom, 0) \
    X(ROC, roc, 0) \
    X(ROCP, rocp, 0) \
    X(ROCR, rocr, 0) \
    X(ROCR100, rocr100, 0) \
    X(PLUS_DM, plus_dm, 0) \
    X(MINUS_DM, minus_dm, 0) \
    X(PLUS_DI, plus_di, 0) \
    X(MINUS_DI, minus_di, 0) \
    X(RSI, rsi, 0) \
    X(WILLR, willr, 0) \
    X(STOCHF, stochf, 1 + FC_TA_MA_WORK) \
    X(STOCH, stoch, 2 + FC_TA_MA_WORK) \
    X(KDJ, kdj, 2 + FC_TA_MA_WORK) \
    X(STOCHRSI, stochrsi, 2 + FC_TA_MA_WORK) \
    X(TRIX, trix, 2) \
    X(ULTOSC, ultosc, 0) \
    X(QSTICK, qstick, 0) \
    X(VHF, vhf, 0) \
    X(VORTEX, vortex, 0) \
    X(WAD, wad, 0) \
    X(TSI, tsi, 0) \
    X(SMI, smi, 0)

#endif
