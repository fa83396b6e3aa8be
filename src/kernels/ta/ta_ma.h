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

#include "kernels/ta/ta_call.h"

#define FC_TA_MA_WORK 2   /* doubles per bar that fc_ta_ma may use */

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

/* ------------------------------------------------------------ dispatch */

FC_HD int fc_ta_ma_lookback(int matype, int p) {
    if (p == 1 || matype == FC_TA_MA_NONE) return 0;
    switch (matype) {
    case FC_TA_MA_EMA: return fc_ta_ema_p_lookback(p);
    case FC_TA_MA_WMA: return fc_ta_wma_p_lookback(p);
    default: return fc_ta_sma_p_lookback(p);
    }
}

FC_HD void fc_ta_ma(int matype, int p, const double *x, int n, double *out, double *work) {
    (void)work;
    if (p == 1 || matype == FC_TA_MA_NONE) {
        for (int t = 0; t < n; t++) out[t] = x[t];
        return;
    }
    switch (matype) {
    case FC_TA_MA_EMA: fc_ta_ema_p(p, x, n, out); return;
    case FC_TA_MA_WMA: fc_ta_wma_p(p, x, n, out); return;
    default: fc_ta_sma_p(p, x, n, out); return;
    }
}

#endif
