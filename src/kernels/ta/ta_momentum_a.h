/* TA-Lib's Momentum Indicators, AC to MFI (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_moma_... */
#ifndef FC_KERNELS_TA_MOMENTUM_A_H
#define FC_KERNELS_TA_MOMENTUM_A_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_ma.h"

/* ------------------------------------------------- directional movement */

/* Wilder's running +DM, -DM and true range over the bars read so far, as
 * TA_ADX / TA_DX keep them. */
typedef struct {
    double high, low, close;   /* the previous bar */
    double plus_dm, minus_dm, tr;
} fc_ta_moma_dm;

FC_HD fc_ta_moma_dm fc_ta_moma_dm_start(const double *h, const double *l, const double *c, int i) {
    fc_ta_moma_dm s;
    s.high = h[i];
    s.low = l[i];
    s.close = c[i];
    s.plus_dm = s.minus_dm = s.tr = 0.0;
    return s;
}

/* Reads bar i. With p > 0 the sums are first decayed by 1/p (Wilder's
 * smoothing); with p == 0 the bar's DM and TR are only added (the seed).
 * One bar's DM: the larger move outside the previous range, the other 0;
 * none when the moves tie. */
FC_HD void fc_ta_moma_dm_step(fc_ta_moma_dm *s, const double *h, const double *l, const double *c,
                              int i, int p) {
    double up = h[i] - s->high, down = s->low - l[i];
    s->high = h[i];
    s->low = l[i];
    if (p > 0) {
        s->minus_dm -= s->minus_dm / (double)p;
        s->plus_dm -= s->plus_dm / (double)p;
    }
    if (down > 0 && up < down) s->minus_dm += down;
    else if (up > 0 && up > down) s->plus_dm += up;
    /* true range with the previous close, TA-Lib's comparison order */
    double range = s->high - s->low, t = fabs(s->high - s->close);
    if (t > range) range = t;
    t = fabs(s->low - s->close);
    if (t > range) range = t;
    if (p > 0) s->tr = s->tr - s->tr / (double)p + range;
    else s->tr += range;
    s->close = c[i];
}

/* TA_IS_ZERO as TA-Lib's ADX, DX and CMO behave in the wheel: a NaN counts
 * as zero, so once a NaN bar has made their sums NaN, ADX and DX repeat
 * their last value and CMO gives 0 (the fixtures' `nan` case). TA-Lib's
 * PPO and CCI do divide by a NaN (fc_ta_is_zero there). */
FC_HD int fc_ta_moma_zero(double v) { return !(v <= -0.00000000000001 || v >= 0.00000000000001); }

/* DX of the current sums into *dx; 0 when TR or the DI sum is (near) zero
 * or NaN, where *dx is left alone. */
FC_HD int fc_ta_moma_dx(const fc_ta_moma_dm *s, double *dx) {
    if (fc_ta_moma_zero(s->tr)) return 0;
    double minus_di = 100.0 * (s->minus_dm / s->tr);
    double plus_di = 100.0 * (s->plus_dm / s->tr);
    double sum = minus_di + plus_di;
    if (fc_ta_moma_zero(sum)) return 0;
    *dx = 100.0 * (fabs(minus_di - plus_di) / sum);
    return 1;
}

FC_HD int fc_ta_adx_lookback(const double *par) { return 2 * fc_ta_int(par[0]) - 1; }

/* TA_ADX: +DM/-DM/TR seeded over p-1 bars, then p DX summed; the first ADX
 * is their mean, then ADX = (ADX (p-1) + DX) / p (a bar without a DX keeps
 * the ADX). */
FC_HD void fc_ta_adx(const fc_ta_call *c) {
    const double *h = c->in[0], *l = c->in[1], *cl = c->in[2];
    int p = fc_ta_int(c->par[0]), n = c->n, lb = 2 * p - 1;
    double *out = c->out[0];
    fc_ta_moma_dm s = fc_ta_moma_dm_start(h, l, cl, 0);
    int t = 0;
    while (t < p - 1) fc_ta_moma_dm_step(&s, h, l, cl, ++t, 0);
    double sum_dx = 0.0, dx = 0.0;
    for (int k = 0; k < p; k++) {
        fc_ta_moma_dm_step(&s, h, l, cl, ++t, p);
        if (fc_ta_moma_dx(&s, &dx)) sum_dx += dx;
    }
    double adx = sum_dx / (double)p;
    fc_ta_nan(out, 0, lb);
    out[lb] = adx;
    for (t = lb + 1; t < n; t++) {
        fc_ta_moma_dm_step(&s, h, l, cl, t, p);
        /* not fused: the wheel rounds this product */
        if (fc_ta_moma_dx(&s, &dx)) adx = (adx * (double)(p - 1) + dx) / (double)p;
        out[t] = adx;
    }
}

FC_HD int fc_ta_adxr_lookback(const double *par) { return 3 * fc_ta_int(par[0]) - 2; }

/* TA_ADXR: (ADX + the ADX p-1 bars before) / 2, done in place over the ADX
 * from the last bar down. */
FC_HD void fc_ta_adxr(const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]), n = c->n, lb = 3 * p - 2;
    double *out = c->out[0];
    fc_ta_adx(c);
    for (int t = n - 1; t >= lb; t--) out[t] = (out[t] + out[t - (p - 1)]) / 2.0;
    fc_ta_nan(out, 0, lb);
}

FC_HD int fc_ta_dx_lookback(const double *par) { return fc_ta_int(par[0]); }

/* TA_DX: sums seeded over p-1 bars, one smoothed bar, then the DX of every
 * bar (a bar without a DX repeats the previous one; the first is 0). */
FC_HD void fc_ta_dx(const fc_ta_call *c) {
    const double *h = c->in[0], *l = c->in[1], *cl = c->in[2];
    int p = fc_ta_int(c->par[0]), n = c->n;
    double *out = c->out[0];
    fc_ta_moma_dm s = fc_ta_moma_dm_start(h, l, cl, 0);
    for (int t = 1; t < p; t++) fc_ta_moma_dm_step(&s, h, l, cl, t, 0);
    fc_ta_moma_dm_step(&s, h, l, cl, p, p);
    double dx = 0.0;
    fc_ta_moma_dx(&s, &dx);
    fc_ta_nan(out, 0, p);
    out[p] = dx;
    for (int t = p + 1; t < n; t++) {
        fc_ta_moma_dm_step(&s, h, l, cl, t, p);
        fc_ta_moma_dx(&s, &dx);
        out[t] = dx;
    }
}

/* ------------------------------------------------------------ AO, AC */

FC_HD double fc_ta_moma_median(const double *h, const double *l, int i) { return (h[i] + l[i]) / 2.0; }

/* TA_AO over the whole segment: SMA(median, fast) - SMA(median, slow),
 * two running sums walked together (each adds the new bar, is divided by
 * its period, then drops its oldest bar, the median recomputed); fast and
 * slow are not swapped. out[0..max-1) is NaN. */
FC_HD void fc_ta_moma_ao(const double *h, const double *l, int n, int fast, int slow, double *out) {
    int lb = (fast > slow ? fast : slow) - 1;
    int tf = lb - (fast - 1), ts = lb - (slow - 1);
    double sf = 0.0, ss = 0.0;
    for (int i = 0; i < lb; i++) {
        double m = fc_ta_moma_median(h, l, i);
        if (i >= tf) sf += m;
        if (i >= ts) ss += m;
    }
    fc_ta_nan(out, 0, lb);
    for (int t = lb; t < n; t++) {
        double m = fc_ta_moma_median(h, l, t);
        sf += m;
        ss += m;
        out[t] = sf / (double)fast - ss / (double)slow;
        sf -= fc_ta_moma_median(h, l, tf++);
        ss -= fc_ta_moma_median(h, l, ts++);
    }
}

FC_HD int fc_ta_ao_lookback(const double *par) {
    int f = fc_ta_int(par[0]), s = fc_ta_int(par[1]);
    return (f > s ? f : s) - 1;
}

FC_HD void fc_ta_ao(const fc_ta_call *c) {
    fc_ta_moma_ao(c->in[0], c->in[1], c->n, fc_ta_int(c->par[0]), fc_ta_int(c->par[1]), c->out[0]);
}

FC_HD int fc_ta_ac_lookback(const double *par) { return fc_ta_ao_lookback(par) + fc_ta_int(par[2]) - 1; }

/* TA_AC: AO - SMA(AO, signal), the signal a running sum of the AO. */
FC_HD void fc_ta_ac(const fc_ta_call *c) {
    int n = c->n, sig = fc_ta_int(c->par[2]);
    int lb_ao = fc_ta_ao_lookback(c->par), lb = lb_ao + sig - 1;
    double *ao = c->work, *out = c->out[0];
    fc_ta_moma_ao(c->in[0], c->in[1], n, fc_ta_int(c->par[0]), fc_ta_int(c->par[1]), ao);
    double sum = 0.0;
    for (int t = lb_ao; t < lb; t++) sum += ao[t];
    fc_ta_nan(out, 0, lb);
    for (int t = lb; t < n; t++) {
        sum += ao[t];
        out[t] = ao[t] - sum / (double)sig;
        sum -= ao[t - sig + 1];
    }
}

/* ---------------------------------------------------------- APO, PPO */

/* TA_INT_PO: the fast and the slow MA (periods swapped when fast > slow),
 * their difference, or with `percent` 100 (fast - slow) / slow (0 where
 * slow is zero). work: 1 + FC_TA_MA_WORK doubles per bar (the fast MA,
 * then fc_ta_ma's own). */
FC_HD int fc_ta_moma_po_lookback(const double *par) {
    int f = fc_ta_int(par[0]), s = fc_ta_int(par[1]);
    return fc_ta_ma_lookback(fc_ta_ma_resolve(fc_ta_int(par[2]), FC_TA_MA_EMA), f > s ? f : s);
}

FC_HD void fc_ta_moma_po(const fc_ta_call *c, int percent) {
    int n = c->n, f = fc_ta_int(c->par[0]), s = fc_ta_int(c->par[1]);
    int type = fc_ta_ma_resolve(fc_ta_int(c->par[2]), FC_TA_MA_EMA);
    if (s < f) { int t = s; s = f; f = t; }
    double *fastma = c->work, *out = c->out[0];
    fc_ta_ma(type, f, c->in[0], n, fastma, c->work + n);
    fc_ta_ma(type, s, c->in[0], n, out, c->work + n);
    int lb = fc_ta_ma_lookback(type, s);
    for (int t = lb; t < n; t++) {
        double slow = out[t];
        if (!percent) out[t] = fastma[t] - slow;
        else out[t] = fc_ta_is_zero(slow) ? 0.0 : ((fastma[t] - slow) / slow) * 100.0;
    }
}

FC_HD int fc_ta_apo_lookback(const double *par) { return fc_ta_moma_po_lookback(par); }
FC_HD void fc_ta_apo(const fc_ta_call *c) { fc_ta_moma_po(c, 0); }

FC_HD int fc_ta_ppo_lookback(const double *par) { return fc_ta_moma_po_lookback(par); }
FC_HD void fc_ta_ppo(const fc_ta_call *c) { fc_ta_moma_po(c, 1); }

/* ------------------------------------------------------ AROON, AROONOSC */

/* The bar of the lowest (sign -1) or highest (sign 1) value of x over the
 * window ending at `today` that starts at `trailing`, kept as TA_AROON
 * keeps it: rescanned from `trailing` when the kept bar has left the
 * window, else replaced by today's bar when today's value ties or beats it
 * (ties go to the newest bar). */
typedef struct {
    int idx;
    double val;
} fc_ta_moma_ext;

FC_HD int fc_ta_moma_beats(double v, double best, int sign) { return sign < 0 ? v <= best : v >= best; }

FC_HD void fc_ta_moma_ext_step(fc_ta_moma_ext *e, const double *x, int trailing, int today, int sign) {
    if (e->idx < trailing) {
        e->idx = trailing;
        e->val = x[trailing];
        for (int i = trailing + 1; i <= today; i++)
            if (fc_ta_moma_beats(x[i], e->val, sign)) e->idx = i, e->val = x[i];
    } else if (fc_ta_moma_beats(x[today], e->val, sign)) {
        e->idx = today;
        e->val = x[today];
    }
}

FC_HD int fc_ta_aroon_lookback(const double *par) { return fc_ta_int(par[0]); }

/* TA_AROON over p+1 bars: 100/p * (p - bars since the extreme). Outputs
 * aroondown, aroonup. */
FC_HD void fc_ta_aroon(const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]), n = c->n;
    double factor = 100.0 / (double)p;
    fc_ta_moma_ext lo = {-1, 0.0}, hi = {-1, 0.0};
    fc_ta_nan(c->out[0], 0, p);
    fc_ta_nan(c->out[1], 0, p);
    for (int t = p; t < n; t++) {
        fc_ta_moma_ext_step(&lo, c->in[1], t - p, t, -1);
        fc_ta_moma_ext_step(&hi, c->in[0], t - p, t, 1);
        c->out[1][t] = factor * (double)(p - (t - hi.idx));
        c->out[0][t] = factor * (double)(p - (t - lo.idx));
    }
}

FC_HD int fc_ta_aroonosc_lookback(const double *par) { return fc_ta_int(par[0]); }

/* TA_AROONOSC: aroonup - aroondown, as TA-Lib simplifies it:
 * 100/p * (bar of the high - bar of the low). */
FC_HD void fc_ta_aroonosc(const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]), n = c->n;
    double factor = 100.0 / (double)p;
    fc_ta_moma_ext lo = {-1, 0.0}, hi = {-1, 0.0};
    fc_ta_nan(c->out[0], 0, p);
    for (int t = p; t < n; t++) {
        fc_ta_moma_ext_step(&lo, c->in[1], t - p, t, -1);
        fc_ta_moma_ext_step(&hi, c->in[0], t - p, t, 1);
        c->out[0][t] = factor * (double)(hi.idx - lo.idx);
    }
}

/* ------------------------------------------------------------------ BOP */

FC_HD int fc_ta_bop_lookback(const double *par) { (void)par; return 0; }

/* TA_BOP: (close - open) / (high - low), 0 where the range is below 1e-14. */
FC_HD void fc_ta_bop(const fc_ta_call *c) {
    const double *o = c->in[0], *h = c->in[1], *l = c->in[2], *cl = c->in[3];
    for (int t = 0; t < c->n; t++) {
        double range = h[t] - l[t];
        c->out[0][t] = range < 0.00000000000001 ? 0.0 : (cl[t] - o[t]) / range;
    }
}

/* ------------------------------------------------------------------ CCI */

FC_HD int fc_ta_cci_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }

/* TA_CCI: typical price minus its mean over p bars, over 0.015 times the
 * mean absolute deviation; 0 when either is (near) zero. TA-Lib sums its
 * circular buffer by slot, not by age: slot j holds the window's bar with
 * bar % p == j, and the sums run j = 0..p-1. work: 1 per bar. */
FC_HD void fc_ta_cci(const fc_ta_call *c) {
    const double *h = c->in[0], *l = c->in[1], *cl = c->in[2];
    int p = fc_ta_int(c->par[0]), n = c->n;
    double *tp = c->work, *out = c->out[0];
    for (int t = 0; t < n; t++) tp[t] = (h[t] + l[t] + cl[t]) / 3;
    fc_ta_nan(out, 0, p - 1);
    for (int t = p - 1; t < n; t++) {
        int first = t - p + 1, base = first - first % p;   /* the bar of slot 0 */
        double mean = 0.0;
        for (int j = 0; j < p; j++) mean += tp[base + j < first ? base + j + p : base + j];
        mean /= (double)p;
        double dev = 0.0;
        for (int j = 0; j < p; j++) dev += fabs(tp[base + j < first ? base + j + p : base + j] - mean);
        double d = tp[t] - mean;
        out[t] = (!fc_ta_is_zero(d) && !fc_ta_is_zero(dev)) ? d / (0.015 * (dev / (double)p)) : 0.0;
    }
}

/* ------------------------------------------------------------ CMO, CMOU */

FC_HD int fc_ta_cmo_lookback(const double *par) { return fc_ta_int(par[0]); }

/* TA_CMO: Wilder-smoothed gains and losses as in RSI (seeded with the mean
 * of the first p changes, then (avg (p-1) + change) / p, each a separate
 * rounding), 100 (gain - loss) / (gain + loss), 0 when the sum is zero or
 * NaN (TA-Lib's outputs stay 0 after a NaN bar). */
FC_HD void fc_ta_cmo(const fc_ta_call *c) {
    const double *x = c->in[0];
    int p = fc_ta_int(c->par[0]), n = c->n;
    double *out = c->out[0], gain = 0.0, loss = 0.0, prev = x[0];
    for (int t = 1; t <= p; t++) {
        double d = x[t] - prev;
        prev = x[t];
        if (d < 0) loss -= d;
        else gain += d;
    }
    loss /= (double)p;
    gain /= (double)p;
    fc_ta_nan(out, 0, p);
    for (int t = p;; t++) {
        double sum = gain + loss;
        out[t] = fc_ta_moma_zero(sum) ? 0.0 : 100.0 * ((gain - loss) / sum);
        if (t + 1 >= n) break;
        double d = x[t + 1] - prev;
        prev = x[t + 1];
        loss *= (double)(p - 1);
        gain *= (double)(p - 1);
        if (d < 0) loss -= d;
        else gain += d;
        loss /= (double)p;
        gain /= (double)p;
    }
}

FC_HD int fc_ta_cmou_lookback(const double *par) { return fc_ta_int(par[0]); }

/* Adds (sign 1) or removes (sign -1) one change d from the up/down sums. */
FC_HD void fc_ta_moma_updown(double *up, double *down, double d, int sign) {
    if (d > 0.0) *up += sign > 0 ? d : -d;
    else if (d < 0.0) *down -= sign > 0 ? d : -d;
}

/* TA_CMOU: the same oscillator over plain moving sums of the last p up and
 * down moves (the oldest change leaves before the newest enters), scaled
 * before the division: 100 (up - down) / (up + down). */
FC_HD void fc_ta_cmou(const fc_ta_call *c) {
    const double *x = c->in[0];
    int p = fc_ta_int(c->par[0]), n = c->n;
    double *out = c->out[0], up = 0.0, down = 0.0;
    for (int t = 1; t <= p; t++) fc_ta_moma_updown(&up, &down, x[t] - x[t - 1], 1);
    fc_ta_nan(out, 0, p);
    for (int t = p; t < n; t++) {
        if (t > p) {
            fc_ta_moma_updown(&up, &down, x[t - p] - x[t - p - 1], -1);
            fc_ta_moma_updown(&up, &down, x[t] - x[t - 1], 1);
        }
        double sum = up + down;
        out[t] = fc_ta_is_zero(sum) ? 0.0 : 100.0 * (up - down) / sum;
    }
}

/* -------------------------------------------------------------- COPPOCK */

FC_HD int fc_ta_coppock_lookback(const double *par) {
    int w = fc_ta_int(par[0]), r1 = fc_ta_int(par[1]), r2 = fc_ta_int(par[2]);
    return (r1 > r2 ? r1 : r2) + w - 1;
}

/* TA_ROC's rate of change over p bars, 0 where the base price is 0. */
FC_HD double fc_ta_moma_roc(const double *x, int t, int p) {
    double base = x[t - p];
    return base != 0.0 ? (x[t] / base - 1.0) * 100.0 : 0.0;
}

/* TA_COPPOCK: the WMA (TA_WMA's recurrence, re-anchor included) of
 * ROC(r1) + ROC(r2); the two periods may come in either order. work: 1 per
 * bar (the ROC sum). */
FC_HD void fc_ta_coppock(const fc_ta_call *c) {
    const double *x = c->in[0];
    int w = fc_ta_int(c->par[0]), r1 = fc_ta_int(c->par[1]), r2 = fc_ta_int(c->par[2]), n = c->n;
    int start = r1 > r2 ? r1 : r2;
    double *s = c->work, *out = c->out[0];
    for (int t = start; t < n; t++) s[t] = fc_ta_moma_roc(x, t, r1) + fc_ta_moma_roc(x, t, r2);
    fc_ta_nan(out, 0, start);
    fc_ta_wma_p(w, s + start, n - start, out + start);
}

/* ------------------------------------------------------------------ DPO */

FC_HD int fc_ta_dpo_lookback(const double *par) {
    int p = fc_ta_int(par[0]);
    return p - 1 > p / 2 + 1 ? p - 1 : p / 2 + 1;
}

/* TA_DPO: the price p/2 + 1 bars back minus today's SMA(p); the SMA's
 * running sum starts p-1 bars before the first output (bar 1 at p = 2,
 * whose lookback is the displacement). */
FC_HD void fc_ta_dpo(const fc_ta_call *c) {
    const double *x = c->in[0];
    int p = fc_ta_int(c->par[0]), n = c->n, lb = fc_ta_dpo_lookback(c->par);
    int shift = p / 2 + 1;
    double *out = c->out[0], total = 0.0;
    for (int i = lb - (p - 1); i < lb; i++) total += x[i];
    fc_ta_nan(out, 0, lb);
    for (int t = lb; t < n; t++) {
        total += x[t];
        double sum = total;
        total -= x[t - (p - 1)];
        out[t] = x[t - shift] - sum / (double)p;
    }
}

/* ------------------------------------------------------------------- ER */

FC_HD int fc_ta_er_lookback(const double *par) { return fc_ta_int(par[0]); }

/* TA_ER (KAMA's efficiency ratio): |x[t] - x[t-p]| over the sum of the p
 * one-bar moves, the sum kept running (old move out, new move in). 1 where
 * the sum is not positive or not above the signed net move; a window of p
 * exactly-zero moves resets the sum to 0 (dropping its rounding residue). */
FC_HD void fc_ta_er(const fc_ta_call *c) {
    const double *x = c->in[0];
    int p = fc_ta_int(c->par[0]), n = c->n, zeros = 0;
    double *out = c->out[0], path = 0.0;
    for (int i = 0; i < p; i++) {
        double d = x[i] - x[i + 1];
        path += fabs(d);
        zeros = d == 0.0 ? zeros + 1 : 0;
    }
    fc_ta_nan(out, 0, p);
    for (int t = p; t < n; t++) {
        double net = x[t] - x[t - p];
        if (t > p) {
            path -= fabs(x[t - p - 1] - x[t - p]);
            path += fabs(x[t] - x[t - 1]);
            zeros = x[t] - x[t - 1] == 0.0 ? zeros + 1 : 0;
            if (zeros >= p) {
                zeros = p;
                path = 0.0;
            }
        }
        out[t] = (path <= 0.0 || path <= net) ? 1.0 : fabs(net / path);
    }
}

/* ------------------------------------------------------------------ ERI */

FC_HD int fc_ta_eri_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }

/* TA_ERI: bull power high - EMA(close, p), bear power low - EMA(close, p). */
FC_HD void fc_ta_eri(const fc_ta_call *c) {
    const double *h = c->in[0], *l = c->in[1], *cl = c->in[2];
    int p = fc_ta_int(c->par[0]), n = c->n;
    double *bull = c->out[0], *bear = c->out[1];
    if (p == 1) for (int t = 0; t < n; t++) bear[t] = cl[t];
    else fc_ta_ema_p(p, cl, n, bear);
    fc_ta_nan(bull, 0, p - 1);
    for (int t = p - 1; t < n; t++) {
        double ema = bear[t];
        bull[t] = h[t] - ema;
        bear[t] = l[t] - ema;
    }
}

/* ----------------------------------------------------------------- FOSC */

/* TA_TSF's least squares over the p bars before bar t, x = the bar's age
 * (0 the newest, p-1 the oldest), kept as running sums: each bar every
 * weight grows by one, the oldest bar leaves at weight p and the new one
 * enters at 0. TA-Lib rebuilds the sums from the window every 32p bars, or
 * when the leaving term dwarfs the window (|p x| > 100 sum |x|). */
typedef struct {
    double sum_x, divisor, sum_y, sum_xy, sum_abs;
    int bars;
} fc_ta_moma_ls;

FC_HD void fc_ta_moma_ls_fill(fc_ta_moma_ls *s, const double *x, int t, int p) {
    double w = (double)(p - 1);
    s->sum_y = s->sum_xy = s->sum_abs = 0.0;
    for (int j = t - p; j < t; j++) {
        s->sum_y += x[j];
        s->sum_xy += w * x[j];
        s->sum_abs += fabs(x[j]);
        w -= 1.0;
    }
}

/* The forecast one bar past the window: b + m p (fused, as TA-Lib writes it). */
FC_HD double fc_ta_moma_ls_forecast(const fc_ta_moma_ls *s, int p) {
    double m = ((double)p * s->sum_xy - s->sum_x * s->sum_y) / s->divisor;
    double b = (s->sum_y - m * s->sum_x) / (double)p;
    return fma(m, (double)p, b);
}

FC_HD int fc_ta_fosc_lookback(const double *par) { return fc_ta_int(par[0]); }

/* TA_FOSC: 100 (x - the forecast made from the p bars before) / x, 0 where
 * x is 0. */
FC_HD void fc_ta_fosc(const fc_ta_call *c) {
    const double *x = c->in[0];
    int p = fc_ta_int(c->par[0]), n = c->n;
    double *out = c->out[0], fp = (double)p;
    fc_ta_moma_ls s;
    s.sum_x = fp * (double)(p - 1) * 0.5;
    double sum_x2 = fp * (double)(p - 1) * (double)(2 * p - 1) / 6.0;
    s.divisor = s.sum_x * s.sum_x - fp * sum_x2;
    s.sum_y = s.sum_xy = s.sum_abs = 0.0;
    for (int i = p - 1; i >= 0; i--) {
        double v = x[p - 1 - i];
        s.sum_y += v;
        s.sum_xy += (double)i * v;
        s.sum_abs += fabs(v);
    }
    s.bars = 32 * p;
    fc_ta_nan(out, 0, p);
    for (int t = p; t < n; t++) {
        if (t > p) {
            double old = x[t - p - 1], wold = fp * old;
            s.sum_xy = s.sum_xy + s.sum_y - wold;
            s.sum_y = s.sum_y - old + x[t - 1];
            s.sum_abs = s.sum_abs - fabs(old) + fabs(x[t - 1]);
            if (--s.bars <= 0 || fabs(wold) > 100.0 * s.sum_abs) {
                s.bars = 32 * p;
                fc_ta_moma_ls_fill(&s, x, t, p);
            }
        }
        double v = x[t];
        out[t] = v != 0.0 ? 100.0 * (v - fc_ta_moma_ls_forecast(&s, p)) / v : 0.0;
    }
}

/* -------------------------------------------------------------- FRACTAL */

FC_HD int fc_ta_fractal_lookback(const double *par) { return fc_ta_int(par[0]) + fc_ta_int(par[1]); }

/* TA_FRACTAL: at bar t, the pivot is bar t - right; swinghigh 100 where its
 * high is above every other high of bars t-left-right..t (strictly), else
 * 0; swinglow likewise with the lows. The others' extreme is seeded with
 * the oldest bar and only replaced by a strictly better one. */
FC_HD void fc_ta_fractal(const fc_ta_call *c) {
    const double *h = c->in[0], *l = c->in[1];
    int left = fc_ta_int(c->par[0]), right = fc_ta_int(c->par[1]), n = c->n, w = left + right;
    fc_ta_nan(c->out[0], 0, w);
    fc_ta_nan(c->out[1], 0, w);
    for (int t = w; t < n; t++) {
        double other_h = h[t - w], other_l = l[t - w];
        for (int i = w - 1; i >= 0; i--) {
            if (i == right) continue;
            if (h[t - i] > other_h) other_h = h[t - i];
            if (l[t - i] < other_l) other_l = l[t - i];
        }
        c->out[0][t] = h[t - right] > other_h ? 100.0 : 0.0;
        c->out[1][t] = l[t - right] < other_l ? 100.0 : 0.0;
    }
}

/* ------------------------------------------------------------------ IMI */

FC_HD int fc_ta_imi_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }

/* TA_IMI: 100 up / (up + down) over the last p candles' bodies (a doji
 * counts as down, adding 0), summed afresh each bar. */
FC_HD void fc_ta_imi(const fc_ta_call *c) {
    const double *o = c->in[0], *cl = c->in[1];
    int p = fc_ta_int(c->par[0]), n = c->n;
    fc_ta_nan(c->out[0], 0, p - 1);
    for (int t = p - 1; t < n; t++) {
        double up = 0.0, down = 0.0;
        for (int i = t - (p - 1); i <= t; i++) {
            if (cl[i] > o[i]) up += cl[i] - o[i];
            else down += o[i] - cl[i];
        }
        double total = up + down;   /* 0 when every body is flat: TA-Lib answers 50 */
        c->out[0][t] = fc_ta_is_zero(total) ? 50.0 : 100.0 * (up / total);
    }
}

/* ------------------------------------------------ MACD, MACDFIX, MACDEXT */

/* TA_INT_MACD with smoothings fk, sk (for periods fast <= slow): both EMAs
 * seeded on the window ending at bar slow-1 (the fast EMA too, a TA-Lib
 * quirk: its seed is the mean of the fast bars before that bar, not of the
 * first fast bars), MACD = fast - slow from bar slow-1, the signal an EMA
 * of the MACD seeded with the mean of its first `signal` values. Outputs
 * macd, macdsignal, macdhist; no work. */
FC_HD void fc_ta_moma_macd(const fc_ta_call *c, int fast, double fk, int slow, double sk, int signal) {
    const double *x = c->in[0];
    int n = c->n, first = slow - 1, lb = first + signal - 1;
    double *macd = c->out[0], *sig = c->out[1], *hist = c->out[2];
    fc_ta_ema_k(slow, sk, x, n, macd);
    fc_ta_ema_k(fast, fk, x + (slow - fast), n - (slow - fast), hist + (slow - fast));
    for (int t = first; t < n; t++) macd[t] = hist[t] - macd[t];
    fc_ta_ema_k(signal, 2.0 / ((double)signal + 1.0), macd + first, n - first, sig + first);
    for (int t = lb; t < n; t++) hist[t] = macd[t] - sig[t];
    fc_ta_nan(macd, 0, lb);
    fc_ta_nan(sig, 0, lb);
    fc_ta_nan(hist, 0, lb);
}

FC_HD int fc_ta_macd_lookback(const double *par) {
    int f = fc_ta_int(par[0]), s = fc_ta_int(par[1]);
    return (f > s ? f : s) - 1 + fc_ta_int(par[2]) - 1;
}

/* TA_MACD: periods swapped when fast > slow; k = 2 / (period + 1). */
FC_HD void fc_ta_macd(const fc_ta_call *c) {
    int f = fc_ta_int(c->par[0]), s = fc_ta_int(c->par[1]);
    if (s < f) { int t = s; s = f; f = t; }
    fc_ta_moma_macd(c, f, 2.0 / ((double)f + 1.0), s, 2.0 / ((double)s + 1.0), fc_ta_int(c->par[2]));
}

FC_HD int fc_ta_macdfix_lookback(const double *par) { return 25 + fc_ta_int(par[0]) - 1; }

/* TA_MACDFIX: 12/26 with TA-Lib's fixed smoothings 0.15 and 0.075. */
FC_HD void fc_ta_macdfix(const fc_ta_call *c) { fc_ta_moma_macd(c, 12, 0.15, 26, 0.075, fc_ta_int(c->par[0])); }

/* MACDEXT's parameters in order (periods and types swapped when fast >
 * slow) and the lookbacks of its three MAs. */
typedef struct {
    int fast, ftype, slow, stype, signal, gtype;
    int lb_fast, lb_slow, lb_large, lb_signal;
} fc_ta_moma_macdext_par;

FC_HD fc_ta_moma_macdext_par fc_ta_moma_macdext_setup(const double *par) {
    fc_ta_moma_macdext_par m;
    m.fast = fc_ta_int(par[0]);
    m.ftype = fc_ta_ma_resolve(fc_ta_int(par[1]), FC_TA_MA_SMA);
    m.slow = fc_ta_int(par[2]);
    m.stype = fc_ta_ma_resolve(fc_ta_int(par[3]), FC_TA_MA_SMA);
    m.signal = fc_ta_int(par[4]);
    m.gtype = fc_ta_ma_resolve(fc_ta_int(par[5]), FC_TA_MA_SMA);
    if (m.slow < m.fast) {
        int t = m.slow; m.slow = m.fast; m.fast = t;
        t = m.stype; m.stype = m.ftype; m.ftype = t;
    }
    m.lb_fast = fc_ta_ma_lookback(m.ftype, m.fast);
    m.lb_slow = fc_ta_ma_lookback(m.stype, m.slow);
    m.lb_large = m.lb_fast > m.lb_slow ? m.lb_fast : m.lb_slow;
    m.lb_signal = fc_ta_ma_lookback(m.gtype, m.signal);
    return m;
}

FC_HD int fc_ta_macdext_lookback(const double *par) {
    fc_ta_moma_macdext_par m = fc_ta_moma_macdext_setup(par);
    return m.lb_large + m.lb_signal;
}

/* TA_MACDEXT: TA-Lib asks both MAs for outputs from the larger lookback L
 * on, so the MA with the shorter lookback starts on the bars just before L
 * (as if the series began there), not at bar 0; the signal is an MA of
 * the MACD from L on. work: FC_TA_MA_WORK per bar. */
FC_HD void fc_ta_macdext(const fc_ta_call *c) {
    fc_ta_moma_macdext_par m = fc_ta_moma_macdext_setup(c->par);
    const double *x = c->in[0];
    int n = c->n, big = m.lb_large, lb = big + m.lb_signal;
    int of = big - m.lb_fast, os = big - m.lb_slow;
    double *macd = c->out[0], *sig = c->out[1], *hist = c->out[2];
    fc_ta_ma(m.stype, m.slow, x + os, n - os, macd + os, c->work);
    fc_ta_ma(m.ftype, m.fast, x + of, n - of, hist + of, c->work);
    for (int t = big; t < n; t++) macd[t] = hist[t] - macd[t];
    fc_ta_ma(m.gtype, m.signal, macd + big, n - big, sig + big, c->work);
    for (int t = lb; t < n; t++) hist[t] = macd[t] - sig[t];
    fc_ta_nan(macd, 0, lb);
    fc_ta_nan(sig, 0, lb);
    fc_ta_nan(hist, 0, lb);
}

/* ------------------------------------------------------------------ MFI */

FC_HD int fc_ta_mfi_lookback(const double *par) { return fc_ta_int(par[0]); }

/* TA_MFI: typical price times volume, counted positive when the typical
 * price rose or held, negative when it fell, nothing when the move is
 * within 1e-14 of the two prices' magnitude; running sums over p bars; a
 * run of p bars without flow resets both sums to 0 (dropping residue).
 * 100 pos / (pos + neg), pos clamped into [0, total], 0 when total <= 0.
 * work: 2 per bar (each bar's positive and negative flow). */
FC_HD void fc_ta_mfi(const fc_ta_call *c) {
    const double *h = c->in[0], *l = c->in[1], *cl = c->in[2], *v = c->in[3];
    int p = fc_ta_int(c->par[0]), n = c->n, idle = 0;
    double *pos = c->work, *neg = c->work + n, *out = c->out[0];
    double pos_sum = 0.0, neg_sum = 0.0, prev = (h[0] + l[0] + cl[0]) / 3.0;
    fc_ta_nan(out, 0, p);
    for (int t = 1; t < n; t++) {
        if (t > p) {
            pos_sum -= pos[t - p];
            neg_sum -= neg[t - p];
        }
        double tp = (h[t] + l[t] + cl[t]) / 3.0;
        double move = tp - prev, scale = fabs(tp) + fabs(prev);
        prev = tp;
        double flow = fabs(move) <= 0.00000000000001 * scale ? 0.0 : tp * v[t];
        pos[t] = move < 0.0 ? 0.0 : flow;
        neg[t] = move < 0.0 ? flow : 0.0;
        pos_sum += pos[t];
        neg_sum += neg[t];
        idle = flow == 0.0 ? idle + 1 : 0;
        if (idle >= p) {
            idle = p;
            pos_sum = neg_sum = 0.0;
        }
        if (t < p) continue;
        double total = pos_sum + neg_sum;
        double up = pos_sum < 0.0 ? 0.0 : (pos_sum > total ? total : pos_sum);
        out[t] = total <= 0.0 ? 0.0 : 100.0 * (up / total);
    }
}

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_MOMENTUM_A(X) \
    X(AC, ac, 1) \
    X(ADX, adx, 0) \
    X(ADXR, adxr, 0) \
    X(AO, ao, 0) \
    X(APO, apo, 1 + FC_TA_MA_WORK) \
    X(AROON, aroon, 0) \
    X(AROONOSC, aroonosc, 0) \
    X(BOP, bop, 0) \
    X(CCI, cci, 1) \
    X(CMO, cmo, 0) \
    X(CMOU, cmou, 0) \
    X(COPPOCK, coppock, 1) \
    X(DPO, dpo, 0) \
    X(DX, dx, 0) \
    X(ER, er, 0) \
    X(ERI, eri, 0) \
    X(FOSC, fosc, 0) \
    X(FRACTAL, fractal, 0) \
    X(IMI, imi, 0) \
    X(MACD, macd, 0) \
    X(MACDEXT, macdext, FC_TA_MA_WORK) \
    X(MACDFIX, macdfix, 0) \
    X(MFI, mfi, 2) \
    X(PPO, ppo, 1 + FC_TA_MA_WORK)

#endif
