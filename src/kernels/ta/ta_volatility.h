/* TA-Lib's Volatility Indicators (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_vlt_... */
#ifndef FC_KERNELS_TA_VOLATILITY_H
#define FC_KERNELS_TA_VOLATILITY_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_ma.h"
#include "kernels/ta/ta_var.h"

/* True range of bar t (t >= 1): high - low, replaced by |prev close - high|
 * then by |prev close - low| when strictly greater, in that order (so a NaN
 * distance never wins a comparison). */
FC_HD double fc_ta_vlt_tr(const double *high, const double *low, const double *close, int t) {
    double prev = close[t - 1];
    double best = high[t] - low[t];
    double d = fabs(prev - high[t]);
    if (d > best) best = d;
    d = fabs(prev - low[t]);
    if (d > best) best = d;
    return best;
}

/* ------------------------------------------------------------- TRANGE */

FC_HD int fc_ta_trange_lookback(const double *par) { (void)par; return 1; }

FC_HD void fc_ta_trange(const fc_ta_call *c) {
    double *out = c->out[0];
    out[0] = NAN;
    for (int t = 1; t < c->n; t++) out[t] = fc_ta_vlt_tr(c->in[0], c->in[1], c->in[2], t);
}

/* --------------------------------------------------------- ATR, NATR */

/* Wilder's average of the true range: seeded with the plain mean of the
 * first p ranges (bars 1..p), then atr = beta * atr + alpha * tr with
 * beta = (p-1)/p and alpha = 1 - beta (TA-Lib 0.8's RMA step, one fused
 * multiply-add; not the textbook (atr * (p-1) + tr) / p). out[p] is the
 * first value; with p == 1 it is the true range itself. norm: divided by
 * the bar's close, times 100 (0 where the close is zero), as NATR. */
FC_HD void fc_ta_vlt_atr(const fc_ta_call *c, int norm) {
    const double *high = c->in[0], *low = c->in[1], *close = c->in[2];
    double *out = c->out[0];
    int p = fc_ta_int(c->par[0]), n = c->n;
    double beta = (double)(p - 1) / (double)p, alpha = 1.0 - beta;
    double atr = 0.0;
    fc_ta_nan(out, 0, p);
    if (p > 1) {
        for (int t = 1; t <= p; t++) atr += fc_ta_vlt_tr(high, low, close, t);
        atr /= (double)p;
    }
    for (int t = p; t < n; t++) {
        if (p == 1) atr = fc_ta_vlt_tr(high, low, close, t);
        else if (t > p) atr = fma(beta, atr, alpha * fc_ta_vlt_tr(high, low, close, t));
        if (!norm || p == 1) out[t] = atr;   /* NATR(1) is TRANGE, unnormalised */
        else out[t] = fc_ta_is_zero(close[t]) ? 0.0 : atr / close[t] * 100.0;
    }
}

FC_HD int fc_ta_atr_lookback(const double *par) { return fc_ta_int(par[0]); }
FC_HD void fc_ta_atr(const fc_ta_call *c) { fc_ta_vlt_atr(c, 0); }

FC_HD int fc_ta_natr_lookback(const double *par) { return fc_ta_int(par[0]); }
FC_HD void fc_ta_natr(const fc_ta_call *c) { fc_ta_vlt_atr(c, 1); }

/* ---------------------------------------------------------------- ADR */

FC_HD int fc_ta_adr_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }

/* Average day range: TA_SMA's running total over high - low (today's range
 * added, the total read, the leaving range subtracted, then divided by p). */
FC_HD void fc_ta_adr(const fc_ta_call *c) {
    const double *high = c->in[0], *low = c->in[1];
    double *out = c->out[0];
    int p = fc_ta_int(c->par[0]);
    double total = 0.0;
    for (int t = 0; t < p - 1; t++) total += high[t] - low[t];
    fc_ta_nan(out, 0, p - 1);
    for (int t = p - 1; t < c->n; t++) {
        total += high[t] - low[t];
        double sum = total;
        total -= high[t - p + 1] - low[t - p + 1];
        out[t] = sum / (double)p;
    }
}

/* ---------------------------------------------------------------- CVI */

FC_HD int fc_ta_cvi_lookback(const double *par) { return fc_ta_int(par[0]) - 1 + fc_ta_int(par[1]); }

/* Chaikin's volatility: E = EMA(p) of high - low (SMA seed, the fused EMA
 * step), then 100 * ((E - E r bars back) / E r bars back), 0 where the
 * lagged E is exactly 0. work: E. */
FC_HD void fc_ta_cvi(const fc_ta_call *c) {
    const double *high = c->in[0], *low = c->in[1];
    double *out = c->out[0], *ema = c->work;
    int p = fc_ta_int(c->par[0]), r = fc_ta_int(c->par[1]), n = c->n;
    double k = 2.0 / ((double)p + 1.0), e = 0.0;
    for (int t = 0; t < p; t++) e += high[t] - low[t];
    e /= (double)p;
    ema[p - 1] = e;
    for (int t = p; t < n; t++) {
        e = fma(high[t] - low[t] - e, k, e);
        ema[t] = e;
    }
    int lb = p - 1 + r;
    fc_ta_nan(out, 0, lb);
    for (int t = lb; t < n; t++) {
        double lag = ema[t - r];
        out[t] = lag != 0.0 ? 100.0 * ((ema[t] - lag) / lag) : 0.0;
    }
}

/* -------------------------------------------------------------- MASSI */

FC_HD int fc_ta_massi_lookback(const double *par) {
    return 2 * (fc_ta_int(par[0]) - 1) + fc_ta_int(par[1]) - 1;
}

/* Dorsey's mass index: e1 = EMA(fast) of high - low, e2 = EMA(fast) of e1
 * (each seeded with the SMA of its first fast inputs, fused EMA steps), the
 * ratio e1 / e2 (1 where e2 is exactly 0) summed over slow bars as TA_SUM
 * does (add, read, subtract the leaving ratio). work: the ratios. */
FC_HD void fc_ta_massi(const fc_ta_call *c) {
    const double *high = c->in[0], *low = c->in[1];
    double *out = c->out[0], *ratio = c->work;
    int fast = fc_ta_int(c->par[0]), slow = fc_ta_int(c->par[1]), n = c->n;
    int lb_e = fast - 1, lb = fc_ta_massi_lookback(c->par);
    double k = 2.0 / ((double)fast + 1.0), e1 = 0.0, e2 = 0.0, total = 0.0;
    fc_ta_nan(out, 0, lb);
    for (int t = 0; t < n; t++) {
        double hl = high[t] - low[t];
        if (t < fast) {
            e1 += hl;
            if (t == fast - 1) e1 /= (double)fast;
        } else {
            e1 = fma(hl - e1, k, e1);
        }
        if (t < lb_e) continue;
        if (t - lb_e < fast) {
            e2 += e1;
            if (t - lb_e == fast - 1) e2 /= (double)fast;
        } else {
            e2 = fma(e1 - e2, k, e2);
        }
        if (t < 2 * lb_e) continue;
        ratio[t] = e2 == 0.0 ? 1.0 : e1 / e2;
        total += ratio[t];
        if (t >= lb) {
            out[t] = total;
            total -= ratio[t - slow + 1];
        }
    }
}

/* ---------------------------------------------------------------- RVI */

FC_HD int fc_ta_rvi_lookback(const double *par) { return fc_ta_int(par[1]) - 1 + fc_ta_int(par[0]) - 1; }

/* Dorsey's relative volatility index: sigma = sqrt of TA_VAR(sd) of the
 * input; up = sigma on bars that closed higher than the previous one, dn
 * on those that closed lower (neither on a tie); both smoothed as RMA(p)
 * (SMA seed of the first p, then beta * prev + alpha * value fused, beta =
 * (p-1)/p, alpha = 1 - beta); out = 100 * (up / (up + dn)), 50 where the
 * sum is exactly 0. The variances are staged in out itself, each read just
 * before its bar is written. */
FC_HD void fc_ta_rvi(const fc_ta_call *c) {
    const double *x = c->in[0];
    double *out = c->out[0];
    int p = fc_ta_int(c->par[0]), sd = fc_ta_int(c->par[1]), n = c->n;
    int lb = fc_ta_rvi_lookback(c->par);
    double beta = (double)(p - 1) / (double)p, alpha = 1.0 - beta;
    double up = 0.0, dn = 0.0;
    fc_ta_var_p(sd, x, n, out);   /* TA_VAR (kernels/ta/ta_var.h) */
    for (int t = sd - 1; t < n; t++) {
        double sigma = sqrt(out[t]), delta = x[t] - x[t - 1];
        double u = delta > 0.0 ? sigma : 0.0, d = delta < 0.0 ? sigma : 0.0;
        if (t < lb) {
            up += u;
            dn += d;
            continue;
        }
        if (t == lb) {
            up = (up + u) / (double)p;
            dn = (dn + d) / (double)p;
        } else {
            up = fma(beta, up, alpha * u);
            dn = fma(beta, dn, alpha * d);
        }
        double total = up + dn;
        out[t] = total == 0.0 ? 50.0 : 100.0 * (up / total);
    }
    fc_ta_nan(out, 0, lb);
}

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_VOLATILITY(X) \
    X(TRANGE, trange, 0) \
    X(ATR, atr, 0) \
    X(NATR, natr, 0) \
    X(ADR, adr, 0) \
    X(CVI, cvi, 1) \
    X(MASSI, massi, 1) \
    X(RVI, rvi, 0)

#endif
