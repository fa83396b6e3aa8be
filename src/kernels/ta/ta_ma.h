/* TA-Lib's moving averages, the bodies behind every `matype` parameter:
 * fc_ta_ma(matype, period, x, n, out, work) is TA_MA over x[0..n), and the
 * overlap group's SMA, EMA, WMA, DEMA, ... are these same bodies.
 *
 * matype follows TA-Lib 0.8.1's TA_MAType: 0 SMA, 1 EMA, 2 WMA, 3 DEMA,
 * 4 TEMA, 5 TRIMA, 6 KAMA, 7 MAMA, 8 T3, 9 HMA, 10 none (the input itself),
 * 11 the calling function's own default (the caller resolves it with
 * fc_ta_ma_resolve), 12 ZLEMA, 13 RMA (Wilder's). As TA_MA does, a period
 * of 1 is the input itself whatever the type.
 *
 * out[0..lookback) is NaN. work: FC_TA_MA_WORK doubles per bar. */
#ifndef FC_KERNELS_TA_MA_H
#define FC_KERNELS_TA_MA_H

#include <string.h>

#include "kernels/ta/ta_call.h"

#define FC_TA_MA_WORK 2   /* doubles per bar that fc_ta_ma may use (HMA: 1) */

enum {
    FC_TA_MA_SMA = 0, FC_TA_MA_EMA, FC_TA_MA_WMA, FC_TA_MA_DEMA, FC_TA_MA_TEMA,
    FC_TA_MA_TRIMA, FC_TA_MA_KAMA, FC_TA_MA_MAMA, FC_TA_MA_T3, FC_TA_MA_HMA,
    FC_TA_MA_NONE, FC_TA_MA_OWN, FC_TA_MA_ZLEMA, FC_TA_MA_RMA
};

/* matype 11 ("the function's own default") as the type a function uses. */
FC_HD int fc_ta_ma_resolve(int matype, int own_default) {
    return matype == FC_TA_MA_OWN ? own_default : matype;
}

/* ------------------------------------------------------------------ SMA */

FC_HD int fc_ta_sma_p_lookback(int p) { return p - 1; }

/* TA_SMA: a running total, the oldest value subtracted after each output. */
FC_HD void fc_ta_sma_p(int p, const double *x, int n, double *out) {
    double total = 0.0;
    for (int i = 0; i < p - 1; i++) total += x[i];
    fc_ta_nan(out, 0, p - 1);
    for (int t = p - 1; t < n; t++) {
        total += x[t];
        out[t] = total / (double)p;
        total -= x[t - p + 1];
    }
}

/* ------------------------------------------------------------------ EMA */

FC_HD int fc_ta_ema_p_lookback(int p) { return p - 1; }

/* TA_INT_EMA with smoothing k, seeded (TA-Lib's default compatibility) with
 * the SMA of the first p values; the wheel's build fuses the step. */
FC_HD void fc_ta_ema_k(int p, double k, const double *x, int n, double *out) {
    double total = 0.0;
    for (int i = 0; i < p; i++) total += x[i];
    double prev = total / (double)p;
    fc_ta_nan(out, 0, p - 1);
    out[p - 1] = prev;
    for (int t = p; t < n; t++) {
        prev = fma(x[t] - prev, k, prev);
        out[t] = prev;
    }
}

FC_HD void fc_ta_ema_p(int p, const double *x, int n, double *out) {
    fc_ta_ema_k(p, 2.0 / ((double)p + 1.0), x, n, out);
}

/* ------------------------------------------------------------------ WMA */

FC_HD int fc_ta_wma_p_lookback(int p) { return p - 1; }

/* TA_WMA: running weighted and plain sums; TA-Lib rebuilds both from the
 * window every 8p bars (its fix for drift, #255), recomputing that bar. */
FC_HD void fc_ta_wma_p(int p, const double *x, int n, double *out) {
    if (p == 1) {
        for (int t = 0; t < n; t++) out[t] = x[t];
        return;
    }
    double fp = (double)p, divider = (double)((p * (p + 1)) >> 1);
    double sum = 0.0, sub = 0.0;
    for (int i = 0; i < p - 1; i++) {
        sub += x[i];
        sum += x[i] * (double)(i + 1);
        out[i] = NAN;
    }
    sub += x[p - 1];
    sum += x[p - 1] * fp;
    out[p - 1] = sum / divider;
    sum -= sub;
    int bars = 8 * p - 1;
    for (int t = p; t < n; t++) {
        sub += x[t];
        sub -= x[t - p];
        sum += x[t] * fp;
        out[t] = sum / divider;
        sum -= sub;
        if (--bars <= 0) {
            double rw = 1.0;
            sum = 0.0;
            sub = 0.0;
            for (int j = t - p + 1; j <= t; j++) {
                sub += x[j];
                sum += x[j] * rw;
                rw += 1.0;
            }
            out[t] = sum / divider;
            sum -= sub;
            bars = 8 * p;
        }
    }
}

/* ----------------------------------------------------------------- DEMA */

FC_HD int fc_ta_dema_p_lookback(int p) { return 2 * (p - 1); }

/* TA_DEMA: 2*EMA1 - EMA2, both EMAs stepped together in one pass. EMA1 is
 * seeded with the mean of x[0..p), EMA2 with the mean of EMA1's first p
 * values (accumulated as EMA1 produces them). */
FC_HD void fc_ta_dema_p(int p, const double *x, int n, double *out) {
    int first = fc_ta_dema_p_lookback(p), t = 0;
    double k = 2.0 / (double)(p + 1), sum = 0.0;
    for (; t < p; t++) sum += x[t];
    double e1 = sum / (double)p;
    sum = e1;
    for (int i = 1; i < p; i++) {
        e1 = fma(x[t++] - e1, k, e1);
        sum += e1;
    }
    double e2 = sum / (double)p;
    fc_ta_nan(out, 0, first);
    out[first] = 2.0 * e1 - e2;
    for (; t < n; t++) {
        e1 = fma(x[t] - e1, k, e1);
        e2 = fma(e1 - e2, k, e2);
        out[t] = 2.0 * e1 - e2;
    }
}

/* ----------------------------------------------------------------- TEMA */

FC_HD int fc_ta_tema_p_lookback(int p) { return 3 * (p - 1); }

/* TA_TEMA: 3*EMA1 - 3*EMA2 + EMA3 in one pass, each EMA seeded with the
 * mean of the first p values of the one below it. Period 1 is a copy. */
FC_HD void fc_ta_tema_p(int p, const double *x, int n, double *out) {
    if (p == 1) {
        for (int t = 0; t < n; t++) out[t] = x[t];
        return;
    }
    int first = fc_ta_tema_p_lookback(p), t = 0;
    double k = 2.0 / (double)(p + 1), sum = 0.0;
    for (; t < p; t++) sum += x[t];
    double e1 = sum / (double)p;
    sum = e1;
    for (int i = 1; i < p; i++) {
        e1 = fma(x[t++] - e1, k, e1);
        sum += e1;
    }
    double e2 = sum / (double)p;
    sum = e2;
    for (int i = 1; i < p; i++) {
        e1 = fma(x[t++] - e1, k, e1);
        e2 = fma(e1 - e2, k, e2);
        sum += e2;
    }
    double e3 = sum / (double)p;
    fc_ta_nan(out, 0, first);
    out[first] = e3 + (3.0 * e1 - 3.0 * e2);
    for (; t < n; t++) {
        e1 = fma(x[t] - e1, k, e1);
        e2 = fma(e1 - e2, k, e2);
        e3 = fma(e2 - e3, k, e3);
        out[t] = e3 + (3.0 * e1 - 3.0 * e2);
    }
}

/* ---------------------------------------------------------------- TRIMA */

FC_HD int fc_ta_trima_p_lookback(int p) { return p - 1; }

/* TA_TRIMA: the triangular weights 1,2,..,m,..,2,1 kept as a running
 * numerator with two running half-window sums (the older half, which is
 * subtracted, and the newer half, which is added), times 1/(sum of
 * weights). Odd and even periods place the middle differently. */
FC_HD void fc_ta_trima_p(int p, const double *x, int n, double *out) {
    int h = p >> 1, odd = p & 1;
    double factor = odd ? 1.0 / ((double)(h + 1) * (h + 1)) : 1.0 / ((double)h * (h + 1));
    int trailing = 0, middle = odd ? h : h - 1, today = middle + h;
    double num = 0.0, sub = 0.0, add = 0.0;
    for (int i = middle; i >= trailing; i--) {
        sub += x[i];
        num += sub;
    }
    middle++;
    for (int i = middle; i <= today; i++) {
        add += x[i];
        num += add;
    }
    fc_ta_nan(out, 0, p - 1);
    double v = x[trailing++];
    out[p - 1] = num * factor;
    today++;
    for (; today < n; today++) {
        num -= sub;
        sub -= v;
        v = x[middle++];
        sub += v;
        if (odd) {
            num += add;
            add -= v;
        } else {
            add -= v;
            num += add;
        }
        v = x[today];
        add += v;
        num += v;
        v = x[trailing++];
        out[today] = num * factor;
    }
}

/* ----------------------------------------------------------------- KAMA */

FC_HD int fc_ta_kama_p_lookback(int p) { return p == 1 ? 0 : p; }

/* TA_KAMA: an EMA whose factor, ((er * (2/3 - 2/31)) + 2/31)^2, follows the
 * efficiency ratio er = |x[t] - x[t-p]| / (sum of |1-bar changes| over
 * the p bars), taken as 1 when the sum is (near) zero or not above the
 * signed change. Seeded with x[p-1]; period 1 is a copy. */
FC_HD void fc_ta_kama_p(int p, const double *x, int n, double *out) {
    if (p == 1) {
        for (int t = 0; t < n; t++) out[t] = x[t];
        return;
    }
    const double slow = 2.0 / (30.0 + 1.0), diff = 2.0 / (2.0 + 1.0) - slow;
    double roc_sum = 0.0;
    for (int t = 0; t < p; t++) roc_sum += fabs(x[t] - x[t + 1]);
    fc_ta_nan(out, 0, p);
    double kama = x[p - 1], trailing = x[0];
    for (int t = p; t < n; t++) {
        double change = x[t] - x[t - p];
        if (t > p) {
            roc_sum -= fabs(trailing - x[t - p]);
            roc_sum += fabs(x[t] - x[t - 1]);
            trailing = x[t - p];
        }
        double er = (roc_sum <= change || fc_ta_is_zero(roc_sum)) ? 1.0 : fabs(change / roc_sum);
        /* where the running sum has drifted under |change|, er is held at 1:
         * not in TA-Lib's source we read, but it makes STOCH's and KDJ's KAMA
         * cases exact (STOCHRSI's stays within 5e-15 either way) */
        if (er > 1.0) er = 1.0;
        double sc = fma(er, diff, slow);
        sc *= sc;
        kama = fma(x[t] - kama, sc, kama);
        out[t] = kama;
    }
}

/* ----------------------------------------------------------------- MAMA */

FC_HD int fc_ta_mama_p_lookback(void) { return 32; }

/* One stage of TA-Lib's Hilbert transform for one parity of bars (TA-Lib
 * keeps separate odd-bar and even-bar states): ring[3] of a*input values,
 * the previous b*input term and the previous input. */
typedef struct {
    double ring[3], prev_term, prev_in;
} fc_ta_ma_hilbert;

FC_HD double fc_ta_ma_hilbert_step(fc_ta_ma_hilbert *h, int idx, double in, double adj) {
    double ta = 0.0962 * in;
    double v = -h->ring[idx];
    h->ring[idx] = ta;
    v += ta;
    v -= h->prev_term;
    h->prev_term = 0.5769 * h->prev_in;
    v += h->prev_term;
    h->prev_in = in;
    return v * adj;
}

/* The engine TA_MAMA and TA_HT_TRENDLINE share (Ehlers): a 4-bar WMA of
 * the price, its Hilbert transform (detrender, Q1, jI, jQ, on separate
 * even-bar and odd-bar states), and the adaptive period. */
typedef struct {
    double wsub, wsum, trailing_v;
    int trailing, hidx;
    fc_ta_ma_hilbert det[2], q1s[2], jis[2], jqs[2];
    double period, prev_i2, prev_q2, re, im;
    double i1_prev3[2], i1_prev2[2];   /* [0]: the I1 of even bars, [1]: odd */
} fc_ta_ma_ht;

/* The smoother's next value, x[today] added and x[trailing] dropped. */
FC_HD double fc_ta_ma_ht_smooth(fc_ta_ma_ht *h, const double *x, int today) {
    double v = x[today];
    h->wsub += v;
    h->wsub -= h->trailing_v;
    h->wsum = fma(v, 4.0, h->wsum);
    h->trailing_v = x[h->trailing++];
    double smoothed = h->wsum * 0.1;
    h->wsum -= h->wsub;
    return smoothed;
}

/* Zeroes the engine and primes the smoother over x[0..3+warm); returns the
 * next bar. */
FC_HD int fc_ta_ma_ht_init(fc_ta_ma_ht *h, const double *x, int warm) {
    memset(h, 0, sizeof *h);   /* (= {0} trips -Wmissing-field-initializers under nvcc) */
    h->wsub = x[0];
    h->wsum = x[0];
    h->wsub += x[1];
    h->wsum += x[1] * 2.0;
    h->wsub += x[2];
    h->wsum += x[2] * 3.0;
    int today = 3;
    for (int i = 0; i < warm; i++) fc_ta_ma_ht_smooth(h, x, today++);
    return today;
}

/* One bar: the transform of the smoothed price (giving q1 and i1, the
 * detrender 3 bars back, for the caller's phase), then the period update. */
FC_HD void fc_ta_ma_ht_step(fc_ta_ma_ht *h, const double *x, int today, double *q1_out, double *i1_out) {
    const double rad2deg = 180.0 / (4.0 * atan(1.0));
    double adj = fma(0.075, h->period, 0.54);
    double smoothed = fc_ta_ma_ht_smooth(h, x, today);
    int par = today % 2 == 0 ? 0 : 1;
    double i1 = h->i1_prev3[par];
    double detrender = fc_ta_ma_hilbert_step(&h->det[par], h->hidx, smoothed, adj);
    double q1 = fc_ta_ma_hilbert_step(&h->q1s[par], h->hidx, detrender, adj);
    double ji = fc_ta_ma_hilbert_step(&h->jis[par], h->hidx, i1, adj);
    double jq = fc_ta_ma_hilbert_step(&h->jqs[par], h->hidx, q1, adj);
    if (par == 0 && ++h->hidx == 3) h->hidx = 0;
    double q2 = fma(0.2, q1 + ji, 0.8 * h->prev_q2);
    double i2 = fma(0.2, i1 - jq, 0.8 * h->prev_i2);
    /* this bar's detrender is the other parity's I1, 3 bars on */
    h->i1_prev3[1 - par] = h->i1_prev2[1 - par];
    h->i1_prev2[1 - par] = detrender;
    *q1_out = q1;
    *i1_out = i1;
    /* the wheel fuses Re's inner sum but not Im's difference */
    h->re = fma(0.8, h->re, 0.2 * fma(i2, h->prev_i2, q2 * h->prev_q2));
    h->im = fma(0.8, h->im, 0.2 * ((i2 * h->prev_q2) - (q2 * h->prev_i2)));
    h->prev_q2 = q2;
    h->prev_i2 = i2;
    double last = h->period, period = last;
    if (h->im != 0.0 && h->re != 0.0) period = 360.0 / (atan(h->im / h->re) * rad2deg);
    if (period > 1.5 * last) period = 1.5 * last;
    if (period < 0.67 * last) period = 0.67 * last;
    if (period < 6) period = 6;
    else if (period > 50) period = 50;
    h->period = fma(0.2, period, 0.8 * last);
}

/* TA_MAMA (Ehlers' MESA adaptive MA): alpha = fast / (phase change), at
 * least slow (fast where the change is under 1 degree); mama steps by
 * alpha, fama by alpha/2 on mama. fama may be NULL. */
FC_HD void fc_ta_mama_p(double fast, double slow, const double *x, int n, double *mama_out,
                        double *fama_out) {
    const double rad2deg = 180.0 / (4.0 * atan(1.0));
    int first = fc_ta_mama_p_lookback();
    fc_ta_ma_ht h;
    int today = fc_ta_ma_ht_init(&h, x, 9);
    double mama = 0.0, fama = 0.0, prev_phase = 0.0;
    fc_ta_nan(mama_out, 0, first);
    if (fama_out) fc_ta_nan(fama_out, 0, first);
    for (; today < n; today++) {
        double q1, i1;
        fc_ta_ma_ht_step(&h, x, today, &q1, &i1);
        double phase = i1 != 0.0 ? atan(q1 / i1) * rad2deg : 0.0;
        double dphase = prev_phase - phase;
        prev_phase = phase;
        if (dphase < 1.0) dphase = 1.0;
        double alpha = fast;
        if (dphase > 1.0) {
            alpha = fast / dphase;
            if (alpha < slow) alpha = slow;
        }
        mama = fma(1 - alpha, mama, alpha * x[today]);
        alpha *= 0.5;
        fama = fma(1 - alpha, fama, alpha * mama);
        if (today >= first) {
            mama_out[today] = mama;
            if (fama_out) fama_out[today] = fama;
        }
    }
}

/* ------------------------------------------------------------------- T3 */

FC_HD int fc_ta_t3_p_lookback(int p) { return 6 * (p - 1); }

/* TA_T3 (Tillson): six chained EMAs, each seeded with the mean of the
 * first p values of the one below, combined as c1*e6 + c2*e5 + c3*e4 +
 * c4*e3 with the coefficients of the volume factor v. The EMA step here
 * is k*x + (1-k)*prev, not TA_EMA's form (the wheel fuses the second
 * product). Period 1 is a copy. */
FC_HD double fc_ta_ma_t3_step(double k, double omk, double in, double prev) {
    return fma(omk, prev, k * in);
}

/* c1*e6 + c2*e5 + c3*e4 + c4*e3 as the wheel fuses it: c2*e5 rounded,
 * each other product fused into the running sum. */
FC_HD double fc_ta_ma_t3_mix(const double *c, const double *e) {
    return fma(c[3], e[2], fma(c[2], e[3], fma(c[0], e[5], c[1] * e[4])));
}

FC_HD void fc_ta_t3_p(int p, double vf, const double *x, int n, double *out) {
    if (p == 1) {
        for (int t = 0; t < n; t++) out[t] = x[t];
        return;
    }
    int first = fc_ta_t3_p_lookback(p), t = 0;
    double k = 2.0 / (p + 1.0), omk = 1.0 - k;
    double e[6];
    double sum = x[t++];
    for (int i = p - 1; i > 0; i--) sum += x[t++];
    e[0] = sum / (double)p;
    for (int s = 1; s < 6; s++) {
        /* seed e[s] from the next p values of e[s-1] */
        sum = e[s - 1];
        for (int i = p - 1; i > 0; i--) {
            e[0] = fc_ta_ma_t3_step(k, omk, x[t++], e[0]);
            for (int j = 1; j < s; j++) e[j] = fc_ta_ma_t3_step(k, omk, e[j - 1], e[j]);
            sum += e[s - 1];
        }
        e[s] = sum / (double)p;
    }
    double v2 = vf * vf, c[4];
    c[0] = -(v2 * vf);
    c[1] = 3.0 * (v2 - c[0]);
    c[2] = fma(-6.0, v2, -(3.0 * (vf - c[0])));
    c[3] = fma(3.0, v2, fma(3.0, vf, 1.0) - c[0]);
    fc_ta_nan(out, 0, first);
    out[first] = fc_ta_ma_t3_mix(c, e);
    for (; t < n; t++) {
        e[0] = fc_ta_ma_t3_step(k, omk, x[t], e[0]);
        for (int j = 1; j < 6; j++) e[j] = fc_ta_ma_t3_step(k, omk, e[j - 1], e[j]);
        out[t] = fc_ta_ma_t3_mix(c, e);
    }
}

/* ------------------------------------------------------------------ HMA */

FC_HD int fc_ta_ma_isqrt(int p) { return (int)sqrt((double)p); }

FC_HD int fc_ta_hma_p_lookback(int p) {
    return p == 1 ? 0 : (p - 1) + (fc_ta_ma_isqrt(p) - 1);
}

/* One running WMA of TA_HMA's fused pass: TA_WMA's sums, re-anchored as
 * TA_WMA does every 8p of the stage's own steps (counted from its first
 * step; the outer WMA's warm-up priming does not count). */
typedef struct {
    double sub, sum, trailing, divider, fp;
    int p, left;
} fc_ta_ma_wsum;

FC_HD void fc_ta_ma_wsum_prime(fc_ta_ma_wsum *w, int p, const double *x, int from, int to) {
    w->sub = 0.0;
    w->sum = 0.0;
    w->trailing = 0.0;
    w->p = p;
    w->left = 8 * p;
    w->fp = (double)p;
    w->divider = (double)p * (p + 1) / 2.0;
    int wt = 1;
    for (int i = from; i < to; i++) {
        w->sub += x[i];
        w->sum += x[i] * wt;
        wt++;
    }
}

/* Adds v; returns 1 when the sums are due to be rebuilt from the window
 * (the caller does it with fc_ta_ma_wsum_rebuild, oldest value first). */
FC_HD int fc_ta_ma_wsum_add(fc_ta_ma_wsum *w, double v) {
    w->sub += v;
    w->sub -= w->trailing;
    w->sum += v * w->fp;
    if (--w->left > 0) return 0;
    w->left = 8 * w->p;
    w->sub = 0.0;
    w->sum = 0.0;
    return 1;
}

/* One window value of a rebuild, weight wt (1 for the oldest). */
FC_HD void fc_ta_ma_wsum_rebuild(fc_ta_ma_wsum *w, double v, int wt) {
    w->sub += v;
    w->sum += v * wt;
}

/* The WMA of the bar; `next_trailing` leaves the window at the next step. */
FC_HD double fc_ta_ma_wsum_out(fc_ta_ma_wsum *w, double next_trailing) {
    w->trailing = next_trailing;
    double r = w->sum / w->divider;
    w->sum -= w->sub;
    return r;
}

/* A stage over the input: add x[t], rebuilding from x[t-p+1..t] when due. */
FC_HD double fc_ta_ma_wsum_step(fc_ta_ma_wsum *w, const double *x, int t, double next_trailing) {
    if (fc_ta_ma_wsum_add(w, x[t]))
        for (int j = t - w->p + 1, wt = 1; j <= t; j++, wt++) fc_ta_ma_wsum_rebuild(w, x[j], wt);
    return fc_ta_ma_wsum_out(w, next_trailing);
}

/* TA_HMA (Hull): WMA(2*WMA(x, p/2) - WMA(x, p), (int)sqrt(p)) in one pass
 * of three running WMAs; ring: sqrt(p) doubles for the de-lagged values. */
FC_HD void fc_ta_hma_p(int p, const double *x, int n, double *out, double *ring) {
    if (p == 1) {
        for (int t = 0; t < n; t++) out[t] = x[t];
        return;
    }
    int half = p / 2, sq = fc_ta_ma_isqrt(p);
    int first = fc_ta_hma_p_lookback(p), wstart = first - (sq - 1);
    fc_ta_ma_wsum full, hw, sw;
    int tfull = wstart - (p - 1), thalf = wstart - (half - 1);
    fc_ta_ma_wsum_prime(&full, p, x, tfull, wstart);
    fc_ta_nan(out, 0, first);
    if (p == 2 || p == 3) {
        /* the half and sqrt WMAs are of period 1: 2*x - WMA(x, p) */
        for (int t = first; t < n; t++) out[t] = 2.0 * x[t] - fc_ta_ma_wsum_step(&full, x, t, x[tfull++]);
        return;
    }
    fc_ta_ma_wsum_prime(&hw, half, x, thalf, wstart);
    fc_ta_ma_wsum_prime(&sw, sq, x, 0, 0);
    int slot = 0, ring_n = sq - 1;
    for (int t = wstart; t < n; t++) {
        double f = fc_ta_ma_wsum_step(&full, x, t, x[tfull++]);
        double hv = fc_ta_ma_wsum_step(&hw, x, t, x[thalf++]);
        double d = 2.0 * hv - f;
        if (t < first) {
            /* warm-up: prime the outer WMA with weights 1..sq-1 */
            sw.sub += d;
            sw.sum += d * (double)(t - wstart + 1);
            ring[slot] = d;
        } else {
            if (fc_ta_ma_wsum_add(&sw, d)) {
                /* the window: the ring from its oldest slot, then d */
                for (int j = 0; j < ring_n; j++) fc_ta_ma_wsum_rebuild(&sw, ring[(slot + j) % ring_n], j + 1);
                fc_ta_ma_wsum_rebuild(&sw, d, sq);
            }
            double expiring = ring[slot];
            ring[slot] = d;
            out[t] = fc_ta_ma_wsum_out(&sw, expiring);
        }
        if (++slot == ring_n) slot = 0;
    }
}

/* ---------------------------------------------------------------- ZLEMA */

FC_HD int fc_ta_zlema_p_lookback(int p) { return (p - 1) / 2 + (p - 1); }

/* TA_ZLEMA: the EMA of the de-lagged 2*x[t] - x[t-lag], lag = (p-1)/2,
 * seeded with the mean of its first p values. Period 1 is a copy. */
FC_HD void fc_ta_zlema_p(int p, const double *x, int n, double *out) {
    if (p == 1) {
        for (int t = 0; t < n; t++) out[t] = x[t];
        return;
    }
    int lag = (p - 1) / 2, first = fc_ta_zlema_p_lookback(p);
    double k = 2.0 / (double)(p + 1), sum = 0.0;
    for (int t = lag; t < lag + p; t++) sum += 2.0 * x[t] - x[t - lag];
    double prev = sum / (double)p;
    fc_ta_nan(out, 0, first);
    out[first] = prev;
    for (int t = first + 1; t < n; t++) {
        prev = fma((2.0 * x[t] - x[t - lag]) - prev, k, prev);
        out[t] = prev;
    }
}

/* ------------------------------------------------------------------ RMA */

FC_HD int fc_ta_rma_p_lookback(int p) { return p - 1; }

/* TA_RMA (Wilder's smoothing): seeded with the mean of x[0..p), then
 * a*x + b*prev with b = (p-1)/p and a = 1 - b (a from b, so a + b is
 * exactly 1); the wheel fuses b*prev. */
FC_HD void fc_ta_rma_p(int p, const double *x, int n, double *out) {
    double b = (double)(p - 1) / (double)p, a = 1.0 - b, sum = 0.0;
    for (int t = 0; t < p; t++) sum += x[t];
    double prev = sum / (double)p;
    fc_ta_nan(out, 0, p - 1);
    out[p - 1] = prev;
    for (int t = p; t < n; t++) {
        prev = fma(b, prev, a * x[t]);
        out[t] = prev;
    }
}

/* ------------------------------------------------------------ dispatch */

FC_HD int fc_ta_ma_lookback(int matype, int p) {
    if (p <= 1 || matype == FC_TA_MA_NONE) return 0;
    switch (matype) {
    case FC_TA_MA_EMA: return fc_ta_ema_p_lookback(p);
    case FC_TA_MA_WMA: return fc_ta_wma_p_lookback(p);
    case FC_TA_MA_DEMA: return fc_ta_dema_p_lookback(p);
    case FC_TA_MA_TEMA: return fc_ta_tema_p_lookback(p);
    case FC_TA_MA_TRIMA: return fc_ta_trima_p_lookback(p);
    case FC_TA_MA_KAMA: return fc_ta_kama_p_lookback(p);
    case FC_TA_MA_MAMA: return fc_ta_mama_p_lookback();
    case FC_TA_MA_T3: return fc_ta_t3_p_lookback(p);
    case FC_TA_MA_HMA: return fc_ta_hma_p_lookback(p);
    case FC_TA_MA_ZLEMA: return fc_ta_zlema_p_lookback(p);
    case FC_TA_MA_RMA: return fc_ta_rma_p_lookback(p);
    default: return fc_ta_sma_p_lookback(p);
    }
}

/* TA_MA: MAMA is fastlimit 0.5, slowlimit 0.05 (its first output, the
 * period ignored), T3 is vfactor 0.7; 11 (unresolved) is the SMA. */
FC_HD void fc_ta_ma(int matype, int p, const double *x, int n, double *out, double *work) {
    int lookback = fc_ta_ma_lookback(matype, p);
    if (n <= lookback) {
        fc_ta_nan(out, 0, n);
        return;
    }
    if (p == 1 || matype == FC_TA_MA_NONE) {
        for (int t = 0; t < n; t++) out[t] = x[t];
        return;
    }
    switch (matype) {
    case FC_TA_MA_EMA: fc_ta_ema_p(p, x, n, out); return;
    case FC_TA_MA_WMA: fc_ta_wma_p(p, x, n, out); return;
    case FC_TA_MA_DEMA: fc_ta_dema_p(p, x, n, out); return;
    case FC_TA_MA_TEMA: fc_ta_tema_p(p, x, n, out); return;
    case FC_TA_MA_TRIMA: fc_ta_trima_p(p, x, n, out); return;
    case FC_TA_MA_KAMA: fc_ta_kama_p(p, x, n, out); return;
    case FC_TA_MA_MAMA: fc_ta_mama_p(0.5, 0.05, x, n, out, (double *)0); return;
    case FC_TA_MA_T3: fc_ta_t3_p(p, 0.7, x, n, out); return;
    case FC_TA_MA_HMA: fc_ta_hma_p(p, x, n, out, work); return;
    case FC_TA_MA_ZLEMA: fc_ta_zlema_p(p, x, n, out); return;
    case FC_TA_MA_RMA: fc_ta_rma_p(p, x, n, out); return;
    default: fc_ta_sma_p(p, x, n, out); return;
    }
}

#endif
