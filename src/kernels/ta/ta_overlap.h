/* TA-Lib's Overlap Studies (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_ovl_... */
#ifndef FC_KERNELS_TA_OVERLAP_H
#define FC_KERNELS_TA_OVERLAP_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_ma.h"
#include "kernels/ta/ta_var.h"

/* ------------------------------------------------- SMA, EMA, WMA */

FC_HD int fc_ta_sma_lookback(const double *par) { return fc_ta_sma_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_sma(const fc_ta_call *c) { fc_ta_sma_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_ema_lookback(const double *par) { return fc_ta_ema_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_ema(const fc_ta_call *c) { fc_ta_ema_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_wma_lookback(const double *par) { return fc_ta_wma_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_wma(const fc_ta_call *c) { fc_ta_wma_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

/* ------------------------------------------- MA and the MA family */

FC_HD int fc_ta_dema_lookback(const double *par) { return fc_ta_dema_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_dema(const fc_ta_call *c) { fc_ta_dema_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_tema_lookback(const double *par) { return fc_ta_tema_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_tema(const fc_ta_call *c) { fc_ta_tema_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_trima_lookback(const double *par) { return fc_ta_trima_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_trima(const fc_ta_call *c) { fc_ta_trima_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_kama_lookback(const double *par) { return fc_ta_kama_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_kama(const fc_ta_call *c) { fc_ta_kama_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_t3_lookback(const double *par) { return fc_ta_t3_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_t3(const fc_ta_call *c) { fc_ta_t3_p(fc_ta_int(c->par[0]), c->par[1], c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_hma_lookback(const double *par) { return fc_ta_hma_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_hma(const fc_ta_call *c) { fc_ta_hma_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0], c->work); }

FC_HD int fc_ta_zlema_lookback(const double *par) { return fc_ta_zlema_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_zlema(const fc_ta_call *c) { fc_ta_zlema_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_rma_lookback(const double *par) { return fc_ta_rma_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_rma(const fc_ta_call *c) { fc_ta_rma_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_mama_lookback(const double *par) { (void)par; return fc_ta_mama_p_lookback(); }
FC_HD void fc_ta_mama(const fc_ta_call *c) {
    fc_ta_mama_p(c->par[0], c->par[1], c->in[0], c->n, c->out[0], c->out[1]);
}

/* MA(timeperiod, matype): TA_MA itself. Listed as X(MA, ovl_ma, ...)
 * because fc_ta_ma / fc_ta_ma_lookback are the shared bodies of ta_ma.h. */
FC_HD int fc_ta_ovl_ma_lookback(const double *par) {
    return fc_ta_ma_lookback(fc_ta_int(par[1]), fc_ta_int(par[0]));
}
FC_HD void fc_ta_ovl_ma(const fc_ta_call *c) {
    fc_ta_ma(fc_ta_int(c->par[1]), fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0], c->work);
}

/* ---------------------------------------------------------- BBANDS */

/* The population standard deviation over p bars: the square root of
 * TA_VAR (kernels/ta/ta_var.h), 0 where the variance is 0. */
FC_HD void fc_ta_ovl_stddev(int p, const double *x, int n, double *out) {
    fc_ta_var_p(p, x, n, out);
    for (int t = p - 1; t < n; t++) out[t] = out[t] != 0.0 ? sqrt(out[t]) : 0.0;
}

FC_HD int fc_ta_bbands_lookback(const double *par) {
    int p = fc_ta_int(par[0]), lb = fc_ta_ma_lookback(fc_ta_ma_resolve(fc_ta_int(par[3]), FC_TA_MA_SMA), p);
    return lb > p - 1 ? lb : p - 1;
}

/* TA_BBANDS: middle = MA(matype), bands = middle +- nbdev * STDDEV(p),
 * from the later of the two lookbacks (an MA whose lookback is under p-1,
 * as MAMA or none, is cut to the stddev's). Outputs: upper, middle, lower;
 * the stddev passes through upper. */
FC_HD void fc_ta_bbands(const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]), n = c->n, first = fc_ta_bbands_lookback(c->par);
    double up = c->par[1], dn = c->par[2];
    double *upper = c->out[0], *mid = c->out[1], *lower = c->out[2];
    fc_ta_ma(fc_ta_ma_resolve(fc_ta_int(c->par[3]), FC_TA_MA_SMA), p, c->in[0], n, mid, c->work);
    /* TA-Lib enters the stddev at the band's first bar: its shift and
     * re-anchoring count start there, not at bar 0 */
    int from = first - (p - 1);
    fc_ta_ovl_stddev(p, c->in[0] + from, n - from, upper + from);
    fc_ta_nan(mid, 0, first);
    fc_ta_nan(lower, 0, first);
    fc_ta_nan(upper, 0, first);
    for (int t = first; t < n; t++) {
        double sd = upper[t], m = mid[t];
        if (up == dn) {
            double w = sd * up;
            upper[t] = m + w;
            lower[t] = m - w;
        } else {
            upper[t] = m + sd * up;
            lower[t] = m - sd * dn;
        }
    }
}

/* -------------------------------------------------------- ACCBANDS */

/* Headley's band terms of bar i: high*(1 + 4(h-l)/(h+l)) and
 * low*(1 - 4(h-l)/(h+l)), plain high and low where h+l is (near) zero. */
FC_HD void fc_ta_ovl_acc_terms(const double *h, const double *l, int i, double *up, double *lo) {
    double s = h[i] + l[i];
    if (!fc_ta_is_zero(s)) {
        double r = 4 * (h[i] - l[i]) / s;
        *up = h[i] * (1 + r);
        *lo = l[i] * (1 - r);
    } else {
        *up = h[i];
        *lo = l[i];
    }
}

FC_HD int fc_ta_accbands_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }

/* TA_ACCBANDS: SMAs (TA_SMA's running sums) of the upper terms, the close
 * and the lower terms. */
FC_HD void fc_ta_accbands(const fc_ta_call *c) {
    const double *h = c->in[0], *l = c->in[1], *cl = c->in[2];
    int p = fc_ta_int(c->par[0]), n = c->n;
    double su = 0.0, sm = 0.0, sl = 0.0, u, d;
    for (int i = 0; i < p - 1; i++) {
        fc_ta_ovl_acc_terms(h, l, i, &u, &d);
        su += u;
        sl += d;
        sm += cl[i];
    }
    for (int k = 0; k < 3; k++) fc_ta_nan(c->out[k], 0, p - 1);
    for (int t = p - 1; t < n; t++) {
        fc_ta_ovl_acc_terms(h, l, t, &u, &d);
        su += u;
        sl += d;
        sm += cl[t];
        c->out[0][t] = su / (double)p;
        c->out[1][t] = sm / (double)p;
        c->out[2][t] = sl / (double)p;
        fc_ta_ovl_acc_terms(h, l, t - p + 1, &u, &d);
        su -= u;
        sl -= d;
        sm -= cl[t - p + 1];
    }
}

/* -------------------------------------- MIDPOINT, MIDPRICE, DONCHIAN */

/* Highest hi and lowest lo over each p-bar window ending at t >= p-1, as
 * TA_DONCHIAN finds them: the extremes and their bars are kept, and a window is
 * rescanned (from its oldest bar) only when a kept extreme has left it. A
 * new bar equal to the kept extreme takes its place. */
FC_HD void fc_ta_ovl_minmax(const double *hi, const double *lo, int p, int n, double *out_hi, double *out_lo) {
    int hi_at = -1, lo_at = -1;
    double highest = 0.0, lowest = 0.0;
    for (int t = p - 1; t < n; t++) {
        int oldest = t - p + 1;
        if (hi_at < oldest) {
            hi_at = oldest;
            highest = hi[oldest];
            for (int i = oldest + 1; i <= t; i++)
                if (hi[i] > highest) highest = hi[i], hi_at = i;
        } else if (hi[t] >= highest) {
            hi_at = t;
            highest = hi[t];
        }
        if (lo_at < oldest) {
            lo_at = oldest;
            lowest = lo[oldest];
            for (int i = oldest + 1; i <= t; i++)
                if (lo[i] < lowest) lowest = lo[i], lo_at = i;
        } else if (lo[t] <= lowest) {
            lo_at = t;
            lowest = lo[t];
        }
        out_hi[t] = highest;
        out_lo[t] = lowest;
    }
}

/* (highest hi + lowest lo) / 2 over each p-bar window ending at t, by
 * TA-Lib's block scan (van Herk / Gil-Werman): windows are cut into blocks
 * of p bars; the extremes of a block's suffixes (scanned backward from its
 * last bar) are combined with the running extremes of the next block's
 * prefixes. Where a NaN starts a scan it sticks; elsewhere it loses every
 * comparison (so the result differs from a plain window scan around a NaN).
 * sh, sl: p doubles each, for the suffix extremes. */
FC_HD void fc_ta_ovl_midrange(const double *hi, const double *lo, int p, int n, double *out, double *sh,
                              double *sl) {
    fc_ta_nan(out, 0, p - 1);
    for (int start = 0; start + p - 1 < n; start += p) {
        int last = start + p - 1;
        double highest = hi[last], lowest = lo[last];
        sh[p - 1] = highest;
        sl[p - 1] = lowest;
        for (int i = last - 1; i >= start; i--) {
            if (hi[i] > highest) highest = hi[i];
            if (lo[i] < lowest) lowest = lo[i];
            sh[i - start] = highest;
            sl[i - start] = lowest;
        }
        out[last] = (sh[0] + sl[0]) / 2.0;
        /* the windows ending in the next block, as far as the data goes */
        int next = last + 1, avail = n - next;
        if (avail > p - 1) avail = p - 1;
        for (int m = 1; m <= avail; m++) {
            double h = hi[next + m - 1], l = lo[next + m - 1];
            if (m == 1 || h > highest) highest = h;
            if (m == 1 || l < lowest) lowest = l;
            double wh = sh[m], wl = sl[m];
            if (highest > wh) wh = highest;
            if (lowest < wl) wl = lowest;
            out[last + m] = (wh + wl) / 2.0;
        }
    }
}

FC_HD int fc_ta_midpoint_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }

/* (highest + lowest) / 2 of the input over p bars; work: 2 per bar. */
FC_HD void fc_ta_midpoint(const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]), n = c->n;
    fc_ta_ovl_midrange(c->in[0], c->in[0], p, n, c->out[0], c->work, c->work + n);
}

FC_HD int fc_ta_midprice_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }

/* (highest high + lowest low) / 2 over p bars; work: 2 per bar. */
FC_HD void fc_ta_midprice(const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]), n = c->n;
    fc_ta_ovl_midrange(c->in[0], c->in[1], p, n, c->out[0], c->work, c->work + n);
}

FC_HD int fc_ta_donchian_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }

/* Donchian channels over the p bars up to and including t: highest high,
 * their middle, lowest low. */
FC_HD void fc_ta_donchian(const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]), n = c->n;
    double *upper = c->out[0], *mid = c->out[1], *lower = c->out[2];
    fc_ta_ovl_minmax(c->in[0], c->in[1], p, n, upper, lower);
    for (int k = 0; k < 3; k++) fc_ta_nan(c->out[k], 0, p - 1);
    for (int t = p - 1; t < n; t++) mid[t] = (upper[t] + lower[t]) / 2.0;
}

/* ------------------------------------------------------------ VWMA */

FC_HD int fc_ta_vwma_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }

/* TA_VWMA: SMA(price*volume) / SMA(volume) from running sums; both sums
 * are zeroed once p consecutive bars have zero volume (so a dead window
 * gives 0/0). Period 1 is a copy. */
FC_HD void fc_ta_vwma(const fc_ta_call *c) {
    const double *x = c->in[0], *v = c->in[1];
    int p = fc_ta_int(c->par[0]), n = c->n, zeros = 0;
    double *out = c->out[0];
    if (p == 1) {
        for (int t = 0; t < n; t++) out[t] = x[t];
        return;
    }
    double spv = 0.0, sv = 0.0, fp = (double)p;
    for (int i = 0; i < p - 1; i++) {
        spv += x[i] * v[i];
        sv += v[i];
        zeros = v[i] == 0.0 ? zeros + 1 : 0;
    }
    fc_ta_nan(out, 0, p - 1);
    for (int t = p - 1; t < n; t++) {
        spv += x[t] * v[t];
        sv += v[t];
        zeros = v[t] == 0.0 ? zeros + 1 : 0;
        if (zeros >= p) {
            zeros = p;
            spv = 0.0;
            sv = 0.0;
        }
        double pv = spv, vv = sv;
        int old = t - p + 1;
        spv -= x[old] * v[old];
        sv -= v[old];
        out[t] = (pv / fp) / (vv / fp);
    }
}

/* ------------------------------------------------- KC, SUPERTREND */

/* True range of bar t >= 1 as TA_ATR takes it: high - low, replaced by
 * |prev close - high|, then by |prev close - low|, when strictly greater. */
FC_HD double fc_ta_ovl_tr(const double *h, const double *l, const double *c, int t) {
    double best = h[t] - l[t], d = fabs(c[t - 1] - h[t]);
    if (d > best) best = d;
    d = fabs(c[t - 1] - l[t]);
    if (d > best) best = d;
    return best;
}

/* TA_ATR(p) entered at bar `first` >= p (TA-Lib's startIdx): seeded with
 * the plain mean of the p true ranges ending at `first` (not at bar p when
 * first is later), then Wilder's b*atr + a*tr, b = (p-1)/p, a = 1 - b. */
FC_HD void fc_ta_ovl_atr(int p, int first, const double *h, const double *l, const double *c, int n,
                         double *out) {
    double b = (double)(p - 1) / (double)p, a = 1.0 - b, total = 0.0;
    for (int t = first - p + 1; t <= first; t++) total += fc_ta_ovl_tr(h, l, c, t);
    double atr = total / (double)p;
    fc_ta_nan(out, 0, first);
    out[first] = atr;
    for (int t = first + 1; t < n; t++) {
        atr = fma(b, atr, a * fc_ta_ovl_tr(h, l, c, t));
        out[t] = atr;
    }
}

FC_HD int fc_ta_kc_lookback(const double *par) {
    int ema = fc_ta_int(par[0]) - 1, atr = fc_ta_int(par[1]);
    return ema > atr ? ema : atr;
}

/* TA_KC (Keltner): middle = EMA(p) of the typical price, seeded at the bar
 * that puts its first value on the lookback; bands = middle +- nbdev *
 * ATR(atrperiod), the ATR also entered at the lookback. Outputs: upper,
 * middle, lower (the typical price passes through upper). */
FC_HD void fc_ta_kc(const fc_ta_call *c) {
    const double *h = c->in[0], *l = c->in[1], *cl = c->in[2];
    int p = fc_ta_int(c->par[0]), n = c->n, first = fc_ta_kc_lookback(c->par);
    int from = first - (p - 1);
    double nb = c->par[2], *upper = c->out[0], *mid = c->out[1], *lower = c->out[2];
    for (int t = 0; t < n; t++) upper[t] = (h[t] + l[t] + cl[t]) / 3.0;
    fc_ta_ema_p(p, upper + from, n - from, mid + from);
    fc_ta_nan(mid, 0, first);
    fc_ta_ovl_atr(fc_ta_int(c->par[1]), first, h, l, cl, n, lower);
    fc_ta_nan(upper, 0, first);
    for (int t = first; t < n; t++) {
        double w = lower[t] * nb;
        upper[t] = mid[t] + w;
        lower[t] = mid[t] - w;
    }
}

FC_HD int fc_ta_supertrend_lookback(const double *par) { return fc_ta_int(par[0]); }

/* TA_SUPERTREND: ATR(p) (TA_ATR's Wilder step), bands median price +-
 * multiplier*ATR; each final band ratchets toward the price and is
 * released by the basic band or by the previous close crossing it; the
 * trend (seeded up at the first bar) flips when the close crosses the band
 * on its side. Outputs: the band of the trend, the trend (1 up, -1 down);
 * the ATR passes through the first. */
FC_HD void fc_ta_supertrend(const fc_ta_call *c) {
    const double *h = c->in[0], *l = c->in[1], *cl = c->in[2];
    int p = fc_ta_int(c->par[0]), n = c->n;
    double mult = c->par[1], *line = c->out[0], *trend = c->out[1];
    fc_ta_ovl_atr(p, p, h, l, cl, n, line);
    double med = (h[p] + l[p]) / 2.0, band = mult * line[p];
    double upper = med + band, lower = med - band, prev_close = cl[p];
    int up = 1;
    fc_ta_nan(trend, 0, p);
    line[p] = lower;
    trend[p] = 1.0;
    for (int t = p + 1; t < n; t++) {
        med = (h[t] + l[t]) / 2.0;
        band = mult * line[t];
        double bu = med + band, bl = med - band;
        if (bu < upper || prev_close > upper) upper = bu;
        if (bl > lower || prev_close < lower) lower = bl;
        if (up ? cl[t] < lower : cl[t] > upper) up = !up;
        line[t] = up ? lower : upper;
        trend[t] = up ? 1.0 : -1.0;
        prev_close = cl[t];
    }
}

/* ------------------------------------------------------ SAR, SAREXT */

/* The parameters of TA-Lib's parabolic SAR (SAREXT's; SAR is the same
 * engine with one acceleration for both sides, no start value, no offset
 * and no sign on the short side). */
typedef struct {
    double start, offset, init[2], step[2], max[2];   /* [0] short, [1] long */
    int signed_short;
} fc_ta_ovl_sar_par;

/* Keeps the SAR outside the last two bars: at or below their lows when
 * long, at or above their highs when short. */
FC_HD double fc_ta_ovl_sar_keep(int is_long, double s, double lo0, double lo1, double hi0, double hi1) {
    if (is_long) {
        if (s > lo0) s = lo0;
        if (s > lo1) s = lo1;
    } else {
        if (s < hi0) s = hi0;
        if (s < hi1) s = hi1;
    }
    return s;
}

/* TA_SAREXT: the first bar is consumed: the direction is short when bar 1
 * has a positive -DM (low[0] - low[1] > 0 and above high[1] - high[0]),
 * long otherwise (or as the start value's sign says); the first SAR is bar
 * 0's low (long) or high (short), or |start|, the extreme point bar 1's
 * high or low. Each bar outputs the SAR computed at the previous one,
 * reversing (the SAR becomes the extreme point, kept outside the last two
 * bars' range, then moved by the offset) when the price reaches it; then
 * sar += af * (ep - sar), clamped to the last two bars' range. */
FC_HD void fc_ta_ovl_sar(const fc_ta_ovl_sar_par *q, const double *high, const double *low, int n, double *out) {
    double init[2] = {q->init[0], q->init[1]}, step[2] = {q->step[0], q->step[1]};
    for (int k = 0; k < 2; k++) {
        if (init[k] > q->max[k]) init[k] = q->max[k];
        if (step[k] > q->max[k]) step[k] = q->max[k];
    }
    double af[2] = {init[0], init[1]}, sar, ep;
    int is_long;
    if (q->start == 0.0) {
        double up = high[1] - high[0], down = low[0] - low[1];
        is_long = !(down > 0 && up < down);
        sar = is_long ? low[0] : high[0];
    } else {
        is_long = q->start > 0;
        sar = fabs(q->start);
    }
    ep = is_long ? high[1] : low[1];
    double new_hi = high[1], new_lo = low[1];
    out[0] = NAN;
    for (int t = 1; t < n; t++) {
        double prev_lo = new_lo, prev_hi = new_hi;
        new_lo = low[t];
        new_hi = high[t];
        int k = is_long;
        if (is_long ? new_lo <= sar : new_hi >= sar) {
            /* reverse: the SAR restarts at the extreme point */
            is_long = !is_long;
            k = is_long;
            sar = fc_ta_ovl_sar_keep(is_long, ep, prev_lo, new_lo, prev_hi, new_hi);
            if (q->offset != 0.0) sar = is_long ? sar - sar * q->offset : sar + sar * q->offset;
            out[t] = (!is_long && q->signed_short) ? -sar : sar;
            af[k] = init[k];
            ep = is_long ? new_hi : new_lo;
        } else {
            out[t] = (!is_long && q->signed_short) ? -sar : sar;
            if (is_long ? new_hi > ep : new_lo < ep) {
                ep = is_long ? new_hi : new_lo;
                af[k] += step[k];
                if (af[k] > q->max[k]) af[k] = q->max[k];
            }
        }
        sar = fma(af[k], ep - sar, sar);
        sar = fc_ta_ovl_sar_keep(is_long, sar, prev_lo, new_lo, prev_hi, new_hi);
    }
}

FC_HD int fc_ta_sar_lookback(const double *par) { (void)par; return 1; }

FC_HD void fc_ta_sar(const fc_ta_call *c) {
    double acc = c->par[0], max = c->par[1];
    fc_ta_ovl_sar_par q = {0.0, 0.0, {acc, acc}, {acc, acc}, {max, max}, 0};
    fc_ta_ovl_sar(&q, c->in[0], c->in[1], c->n, c->out[0]);
}

FC_HD int fc_ta_sarext_lookback(const double *par) { (void)par; return 1; }

/* SAREXT's output is negative while short. */
FC_HD void fc_ta_sarext(const fc_ta_call *c) {
    const double *v = c->par;
    fc_ta_ovl_sar_par q = {v[0], v[1], {v[5], v[2]}, {v[6], v[3]}, {v[7], v[4]}, 1};
    fc_ta_ovl_sar(&q, c->in[0], c->in[1], c->n, c->out[0]);
}

/* ------------------------------------------------------------ MAVP */

FC_HD int fc_ta_mavp_lookback(const double *par) {
    return fc_ta_ma_lookback(fc_ta_ma_resolve(fc_ta_int(par[2]), FC_TA_MA_SMA), fc_ta_int(par[1]));
}

/* The period MAVP uses at a bar: the bar's value cut into [min, max] (a
 * NaN counts as below min), truncated, at least 1. */
FC_HD int fc_ta_ovl_mavp_period(double v, int min, int max) {
    int q;
    if (!(v >= (double)min)) q = min;
    else if (v > (double)max) q = max;
    else q = (int)v;
    return q < 1 ? 1 : q;
}

/* TA_MAVP: at each bar the MA of that bar's period. TA-Lib computes each
 * period's MA entered at MAVP's own first bar L (the max period's
 * lookback), that is over the input from L - lookback(period) on: a
 * shorter period is seeded later than on its own. work: FC_TA_MA_WORK + 1
 * per bar (that MA, then fc_ta_ma's scratch). */
FC_HD void fc_ta_mavp(const fc_ta_call *c) {
    const double *x = c->in[0], *per = c->in[1];
    int n = c->n, min = fc_ta_int(c->par[0]), max = fc_ta_int(c->par[1]);
    int type = fc_ta_ma_resolve(fc_ta_int(c->par[2]), FC_TA_MA_SMA), first = fc_ta_mavp_lookback(c->par);
    double *out = c->out[0], *q_of = c->work, *ma = c->work + n, *scratch = c->work + 2 * n;
    fc_ta_nan(out, 0, n);
    int lo = max, hi = 1;
    for (int t = first; t < n; t++) {   /* each bar's period, once */
        int q = fc_ta_ovl_mavp_period(per[t], min, max);
        q_of[t] = (double)q;
        if (q < lo) lo = q;
        if (q > hi) hi = q;
    }
    for (int q = lo; q <= hi; q++) {
        int used = 0;
        for (int t = first; t < n && !used; t++) used = q_of[t] == (double)q;
        if (!used) continue;
        int from = first - fc_ta_ma_lookback(type, q);
        if (from < 0) continue; /* min > max: TA-Lib refuses the call */
        fc_ta_ma(type, q, x + from, n - from, ma, scratch);
        for (int t = first; t < n; t++)
            if (q_of[t] == (double)q) out[t] = ma[t - from];
    }
}

/* ---------------------------------------------------- HT_TRENDLINE */

FC_HD int fc_ta_ht_trendline_lookback(const double *par) { (void)par; return 63; }

/* TA_HT_TRENDLINE (Ehlers' instantaneous trendline): the mean of the raw
 * price over the smoothed dominant cycle period (rounded down after
 * adding 0.5), then (4*it + 3*it[1] + 2*it[2] + it[3]) / 10. */
FC_HD void fc_ta_ht_trendline(const fc_ta_call *c) {
    const double *x = c->in[0];
    double *out = c->out[0];
    int n = c->n, first = 63;
    fc_ta_ma_ht h;
    int today = fc_ta_ma_ht_init(&h, x, 34);
    double smooth_period = 0.0, it1 = 0.0, it2 = 0.0, it3 = 0.0;
    fc_ta_nan(out, 0, first);
    for (; today < n; today++) {
        double q1, i1;
        fc_ta_ma_ht_step(&h, x, today, &q1, &i1);
        smooth_period = fma(0.67, smooth_period, 0.33 * h.period);
        int dc = (int)(smooth_period + 0.5);
        double it = 0.0;
        for (int i = 0; i < dc && i < 50; i++) it += x[today - i];
        if (dc > 0) it = it / (double)dc;
        double line = (4.0 * it + 3.0 * it1 + 2.0 * it2 + it3) / 10.0;
        it3 = it2;
        it2 = it1;
        it1 = it;
        if (today >= first) out[today] = line;
    }
}

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_OVERLAP(X) \
    X(SMA, sma, 0) \
    X(EMA, ema, 0) \
    X(WMA, wma, 0) \
    X(DEMA, dema, 0) \
    X(TEMA, tema, 0) \
    X(TRIMA, trima, 0) \
    X(KAMA, kama, 0) \
    X(T3, t3, 0) \
    X(HMA, hma, 1) \
    X(ZLEMA, zlema, 0) \
    X(RMA, rma, 0) \
    X(MAMA, mama, 0) \
    X(MA, ovl_ma, FC_TA_MA_WORK) \
    X(BBANDS, bbands, FC_TA_MA_WORK) \
    X(ACCBANDS, accbands, 0) \
    X(MIDPOINT, midpoint, 2) \
    X(MIDPRICE, midprice, 2) \
    X(DONCHIAN, donchian, 0) \
    X(VWMA, vwma, 0) \
    X(KC, kc, 0) \
    X(SUPERTREND, supertrend, 0) \
    X(SAR, sar, 0) \
    X(SAREXT, sarext, 0) \
    X(HT_TRENDLINE, ht_trendline, 0) \
    X(MAVP, mavp, FC_TA_MA_WORK + 2)

#endif
