/* TA-Lib's Price Transform (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_prc_... */
#ifndef FC_KERNELS_TA_PRICE_H
#define FC_KERNELS_TA_PRICE_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_ma.h"

/* ------------------------------------------- bar averages (lookback 0) */

FC_HD int fc_ta_avgprice_lookback(const double *par) { (void)par; return 0; }

/* (high + low + close + open) / 4, summed in that order. */
FC_HD void fc_ta_avgprice(const fc_ta_call *c) {
    const double *open = c->in[0], *high = c->in[1], *low = c->in[2], *close = c->in[3];
    for (int t = 0; t < c->n; t++) c->out[0][t] = (high[t] + low[t] + close[t] + open[t]) / 4.0;
}

FC_HD int fc_ta_medprice_lookback(const double *par) { (void)par; return 0; }

FC_HD void fc_ta_medprice(const fc_ta_call *c) {
    const double *high = c->in[0], *low = c->in[1];
    for (int t = 0; t < c->n; t++) c->out[0][t] = (high[t] + low[t]) / 2.0;
}

FC_HD int fc_ta_typprice_lookback(const double *par) { (void)par; return 0; }

FC_HD void fc_ta_typprice(const fc_ta_call *c) {
    const double *high = c->in[0], *low = c->in[1], *close = c->in[2];
    for (int t = 0; t < c->n; t++) c->out[0][t] = (high[t] + low[t] + close[t]) / 3.0;
}

FC_HD int fc_ta_wclprice_lookback(const double *par) { (void)par; return 0; }

/* (high + low + 2 close) / 4. */
FC_HD void fc_ta_wclprice(const fc_ta_call *c) {
    const double *high = c->in[0], *low = c->in[1], *close = c->in[2];
    for (int t = 0; t < c->n; t++) c->out[0][t] = (high[t] + low[t] + close[t] * 2.0) / 4.0;
}

/* ------------------------------------------------------------- AVGDEV */

FC_HD int fc_ta_avgdev_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }

/* Mean absolute deviation from the window's mean, each window summed afresh
 * from the newest bar back; TA-Lib divides the sum by p at every term. */
FC_HD void fc_ta_avgdev(const fc_ta_call *c) {
    const double *x = c->in[0];
    double *out = c->out[0];
    int p = fc_ta_int(c->par[0]);
    double fp = (double)p;
    fc_ta_nan(out, 0, p - 1);
    for (int t = p - 1; t < c->n; t++) {
        double sum = 0.0, dev = 0.0;
        for (int i = 0; i < p; i++) sum += x[t - i];
        for (int i = 0; i < p; i++) dev += fabs(x[t - i] - sum / fp);
        out[t] = dev / fp;
    }
}

/* ----------------------------------------------------------------- HA */

FC_HD int fc_ta_ha_lookback(const double *par) { (void)par; return 0; }

/* Heikin-Ashi candles. The first open is (open + close) / 2 of bar 0, each
 * later one the mean of the previous HA open and close; the HA close sums
 * ((open + high) + low) + close (AVGPRICE's order differs). High and low:
 * the bar's, replaced by the HA open then the HA close when strictly
 * beyond (plain comparisons, as TA-Lib; a NaN never wins). */
FC_HD void fc_ta_ha(const fc_ta_call *c) {
    const double *open = c->in[0], *high = c->in[1], *low = c->in[2], *close = c->in[3];
    double ha_open = 0.0, ha_close = 0.0;
    for (int t = 0; t < c->n; t++) {
        ha_open = t == 0 ? (open[0] + close[0]) / 2.0 : (ha_open + ha_close) / 2.0;
        ha_close = (open[t] + high[t] + low[t] + close[t]) / 4.0;
        double hi = high[t], lo = low[t];
        if (ha_open > hi) hi = ha_open;
        if (ha_close > hi) hi = ha_close;
        if (ha_open < lo) lo = ha_open;
        if (ha_close < lo) lo = ha_close;
        c->out[0][t] = ha_open;
        c->out[1][t] = hi;
        c->out[2][t] = lo;
        c->out[3][t] = ha_close;
    }
}

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_PRICE(X) \
    X(AVGPRICE, avgprice, 0) \
    X(MEDPRICE, medprice, 0) \
    X(TYPPRICE, typprice, 0) \
    X(WCLPRICE, wclprice, 0) \
    X(AVGDEV, avgdev, 0) \
    X(HA, ha, 0)

#endif
