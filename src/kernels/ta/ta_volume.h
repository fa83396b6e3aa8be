/* TA-Lib's Volume Indicators (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_vol_... */
#ifndef FC_KERNELS_TA_VOLUME_H
#define FC_KERNELS_TA_VOLUME_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_ma.h"

/* Chaikin's accumulation step: ad + ((close - low) - (high - close)) /
 * (high - low) * volume, the bar skipped (ad unchanged) unless high - low
 * is > 0 (each operation rounded on its own: the wheel does not fuse it). */
FC_HD double fc_ta_vol_ad_step(double ad, double high, double low, double close, double volume) {
    double range = high - low;
    if (range > 0.0) ad += (close - low - (high - close)) / range * volume;
    return ad;
}

/* ----------------------------------------------------------------- AD */

FC_HD int fc_ta_ad_lookback(const double *par) { (void)par; return 0; }

FC_HD void fc_ta_ad(const fc_ta_call *c) {
    double ad = 0.0;
    for (int t = 0; t < c->n; t++) {
        ad = fc_ta_vol_ad_step(ad, c->in[0][t], c->in[1][t], c->in[2][t], c->in[3][t]);
        c->out[0][t] = ad;
    }
}

/* -------------------------------------------------------------- ADOSC */

FC_HD int fc_ta_adosc_lookback(const double *par) {
    int fast = fc_ta_int(par[0]), slow = fc_ta_int(par[1]);
    return (fast > slow ? fast : slow) - 1;
}

/* EMA(fast) - EMA(slow) of the A/D line, both EMAs seeded with the first
 * bar's A/D value (not an SMA) and stepped as k * ad + (1 - k) * ema, the
 * wheel fusing the second product. "fast" is the first parameter even when
 * it is the longer period. */
FC_HD void fc_ta_adosc(const fc_ta_call *c) {
    int fast = fc_ta_int(c->par[0]), slow = fc_ta_int(c->par[1]);
    int lb = fc_ta_adosc_lookback(c->par);
    double kf = 2.0 / ((double)fast + 1.0), kf1 = 1.0 - kf;
    double ks = 2.0 / ((double)slow + 1.0), ks1 = 1.0 - ks;
    double ad = fc_ta_vol_ad_step(0.0, c->in[0][0], c->in[1][0], c->in[2][0], c->in[3][0]);
    double ef = ad, es = ad;
    fc_ta_nan(c->out[0], 0, lb);
    for (int t = 1; t < c->n; t++) {
        ad = fc_ta_vol_ad_step(ad, c->in[0][t], c->in[1][t], c->in[2][t], c->in[3][t]);
        ef = fma(kf1, ef, kf * ad);
        es = fma(ks1, es, ks * ad);
        if (t >= lb) c->out[0][t] = ef - es;
    }
}

/* ---------------------------------------------------------------- OBV */

FC_HD int fc_ta_obv_lookback(const double *par) { (void)par; return 0; }

/* On-balance volume, starting from the first bar's volume. */
FC_HD void fc_ta_obv(const fc_ta_call *c) {
    const double *x = c->in[0], *vol = c->in[1];
    double obv = vol[0], prev = x[0];
    c->out[0][0] = obv;
    for (int t = 1; t < c->n; t++) {
        if (x[t] > prev) obv += vol[t];
        else if (x[t] < prev) obv -= vol[t];
        c->out[0][t] = obv;
        prev = x[t];
    }
}

/* ---------------------------------------------------------------- CMF */

/* A bar's money-flow volume: the A/D step's increment, 0 when high - low is
 * not > 0. */
FC_HD double fc_ta_vol_mfv(const fc_ta_call *c, int t) {
    double high = c->in[0][t], low = c->in[1][t], close = c->in[2][t];
    double range = high - low;
    return range > 0.0 ? (close - low - (high - close)) / range * c->in[3][t] : 0.0;
}

FC_HD int fc_ta_cmf_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }

/* Chaikin money flow: running sums of money-flow volume and volume over p
 * bars (the leaving bar subtracted before the new one is added), their
 * ratio; 0 where the volume sum is not > 0 (so also once a NaN is in it). */
FC_HD void fc_ta_cmf(const fc_ta_call *c) {
    const double *vol = c->in[3];
    double *out = c->out[0];
    int p = fc_ta_int(c->par[0]);
    double smfv = 0.0, svol = 0.0;
    for (int t = 0; t < p; t++) {
        smfv += fc_ta_vol_mfv(c, t);
        svol += vol[t];
    }
    fc_ta_nan(out, 0, p - 1);
    out[p - 1] = svol > 0.0 ? smfv / svol : 0.0;
    for (int t = p; t < c->n; t++) {
        smfv -= fc_ta_vol_mfv(c, t - p);
        svol -= vol[t - p];
        smfv += fc_ta_vol_mfv(c, t);
        svol += vol[t];
        out[t] = svol > 0.0 ? smfv / svol : 0.0;
    }
}

/* ---------------------------------------------------------------- EFI */

FC_HD int fc_ta_efi_lookback(const double *par) { return fc_ta_int(par[0]); }

/* Elder's force of bar t >= 1: (close - previous close) * volume. */
FC_HD double fc_ta_vol_force(const double *close, const double *vol, int t) {
    return (close[t] - close[t - 1]) * vol[t];
}

/* Elder's force index: the EMA(p) of the force from bar 1 (seeded with the
 * mean of bars 1..p, then the fused EMA step, k = 2 / (p + 1)); at p == 1
 * the raw force. */
FC_HD void fc_ta_efi(const fc_ta_call *c) {
    const double *close = c->in[0], *vol = c->in[1];
    double *out = c->out[0];
    int p = fc_ta_int(c->par[0]);
    out[0] = NAN;
    if (p == 1) {
        for (int t = 1; t < c->n; t++) out[t] = fc_ta_vol_force(close, vol, t);
        return;
    }
    double k = 2.0 / (double)(p + 1), ema = 0.0;
    for (int t = 1; t <= p; t++) ema += fc_ta_vol_force(close, vol, t);
    ema /= (double)p;
    fc_ta_nan(out, 1, p);
    out[p] = ema;
    for (int t = p + 1; t < c->n; t++) {
        ema = fma(fc_ta_vol_force(close, vol, t) - ema, k, ema);
        out[t] = ema;
    }
}

/* ----------------------------------------------------------- MARKETFI */

FC_HD int fc_ta_marketfi_lookback(const double *par) { (void)par; return 0; }

/* Bill Williams' market facilitation index (high - low) / volume; 0 on a
 * zero-volume bar (an exact test). */
FC_HD void fc_ta_marketfi(const fc_ta_call *c) {
    const double *high = c->in[0], *low = c->in[1], *vol = c->in[2];
    for (int t = 0; t < c->n; t++) c->out[0][t] = vol[t] != 0.0 ? (high[t] - low[t]) / vol[t] : 0.0;
}

/* ------------------------------------------------------------ NVI, PVI */

/* Negative (rising == 0) or positive (rising == 1) volume index: from 1000,
 * index += (close - prev close) / prev close * index on the bars whose
 * volume fell (rose) strictly from the previous bar's and whose previous
 * close is not 0; a step that would leave the index infinite or NaN is
 * dropped (TA-Lib keeps the last finite value). */
FC_HD void fc_ta_vol_volume_index(const fc_ta_call *c, int rising) {
    const double *close = c->in[0], *vol = c->in[1];
    double index = 1000.0;
    c->out[0][0] = index;
    for (int t = 1; t < c->n; t++) {
        int moved = rising ? vol[t] > vol[t - 1] : vol[t] < vol[t - 1];
        if (moved && close[t - 1] != 0.0) {
            double next = index;
            next += (close[t] - close[t - 1]) / close[t - 1] * next;
            if (isfinite(next)) index = next;
        }
        c->out[0][t] = index;
    }
}

FC_HD int fc_ta_nvi_lookback(const double *par) { (void)par; return 0; }
FC_HD void fc_ta_nvi(const fc_ta_call *c) { fc_ta_vol_volume_index(c, 0); }

FC_HD int fc_ta_pvi_lookback(const double *par) { (void)par; return 0; }
FC_HD void fc_ta_pvi(const fc_ta_call *c) { fc_ta_vol_volume_index(c, 1); }

/* ---------------------------------------------------------------- PVT */

FC_HD int fc_ta_pvt_lookback(const double *par) { (void)par; return 0; }

/* Price-volume trend: from 0, += (close - prev close) / prev close * volume,
 * bars whose previous close is exactly 0 adding nothing. */
FC_HD void fc_ta_pvt(const fc_ta_call *c) {
    const double *close = c->in[0], *vol = c->in[1];
    double pvt = 0.0;
    c->out[0][0] = pvt;
    for (int t = 1; t < c->n; t++) {
        if (close[t - 1] != 0.0) pvt += (close[t] - close[t - 1]) / close[t - 1] * vol[t];
        c->out[0][t] = pvt;
    }
}

/* --------------------------------------------------------------- RVOL */

FC_HD int fc_ta_rvol_lookback(const double *par) { return fc_ta_int(par[0]); }

/* Relative volume: the bar's volume over the mean of the p bars before it
 * (a running total, the leaving bar subtracted before today's is added).
 * Once p zero volumes in a row fill the window, TA-Lib resets the total to
 * an exact 0. */
FC_HD void fc_ta_rvol(const fc_ta_call *c) {
    const double *vol = c->in[0];
    double *out = c->out[0];
    int p = fc_ta_int(c->par[0]), zeros = 0;
    double total = 0.0;
    for (int t = 0; t < p; t++) {
        total += vol[t];
        zeros = vol[t] == 0.0 ? zeros + 1 : 0;
    }
    fc_ta_nan(out, 0, p);
    for (int t = p; t < c->n; t++) {
        double base = total / (double)p;
        total -= vol[t - p];
        total += vol[t];
        zeros = vol[t] == 0.0 ? zeros + 1 : 0;
        if (zeros >= p) {
            zeros = p;
            total = 0.0;
        }
        out[t] = vol[t] / base;
    }
}

/* --------------------------------------------------------------- VWAP */

FC_HD int fc_ta_vwap_lookback(const double *par) { (void)par; return 0; }

/* Volume-weighted typical price, cumulative from the first bar. A bar whose
 * typical price or volume is not finite is left out of both sums (so after
 * a NaN bar the average resumes); until the volume sum is > 0 the previous
 * value (0 at first) is repeated. */
FC_HD void fc_ta_vwap(const fc_ta_call *c) {
    const double *high = c->in[0], *low = c->in[1], *close = c->in[2], *vol = c->in[3];
    double spv = 0.0, sv = 0.0, vwap = 0.0;
    for (int t = 0; t < c->n; t++) {
        double typ = (high[t] + low[t] + close[t]) / 3.0;
        double pv = typ * vol[t];   /* not fused with the sum, as TA-Lib */
        if (isfinite(typ) && isfinite(vol[t])) {
            spv += pv;
            sv += vol[t];
        }
        if (sv > 0.0) vwap = spv / sv;
        c->out[0][t] = vwap;
    }
}

/* ---------------------------------------------------------------- PVO */

FC_HD int fc_ta_vol_pvo_type(const double *par) { return fc_ta_ma_resolve(fc_ta_int(par[2]), FC_TA_MA_EMA); }

FC_HD int fc_ta_pvo_lookback(const double *par) {
    int fast = fc_ta_int(par[0]), slow = fc_ta_int(par[1]);
    return fc_ta_ma_lookback(fc_ta_vol_pvo_type(par), fast > slow ? fast : slow);
}

/* Percentage volume oscillator: (MA(fast) - MA(slow)) / MA(slow) * 100 of
 * the volume, the periods swapped if slow < fast, 0 where the slow MA is
 * within 1e-14 of zero. Each MA runs over the whole series from bar 0.
 * work: the fast MA, then fc_ta_ma's scratch. */
FC_HD void fc_ta_pvo(const fc_ta_call *c) {
    int fast = fc_ta_int(c->par[0]), slow = fc_ta_int(c->par[1]);
    int type = fc_ta_vol_pvo_type(c->par), n = c->n;
    if (slow < fast) {
        int swap = slow;
        slow = fast;
        fast = swap;
    }
    double *fast_ma = c->work, *out = c->out[0];
    fc_ta_ma(type, fast, c->in[0], n, fast_ma, c->work + n);
    fc_ta_ma(type, slow, c->in[0], n, out, c->work + n);
    int lb = fc_ta_ma_lookback(type, slow);
    fc_ta_nan(out, 0, lb);
    for (int t = lb; t < n; t++)
        out[t] = fc_ta_is_zero(out[t]) ? 0.0 : (fast_ma[t] - out[t]) / out[t] * 100.0;
}

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_VOLUME(X) \
    X(AD, ad, 0) \
    X(ADOSC, adosc, 0) \
    X(OBV, obv, 0) \
    X(CMF, cmf, 0) \
    X(EFI, efi, 0) \
    X(MARKETFI, marketfi, 0) \
    X(NVI, nvi, 0) \
    X(PVI, pvi, 0) \
    X(PVT, pvt, 0) \
    X(RVOL, rvol, 0) \
    X(VWAP, vwap, 0) \
    X(PVO, pvo, 1 + FC_TA_MA_WORK)

#endif
