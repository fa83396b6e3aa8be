/* TA-Lib 0.8's variance, the one VAR, STDDEV, BBANDS and RVI share:
 * fc_ta_var_p(p, x, n, out) is TA_VAR's population variance over p bars
 * (out[0..p-1) NaN). */
#ifndef FC_KERNELS_TA_VAR_H
#define FC_KERNELS_TA_VAR_H

#include "kernels/ta/ta_call.h"

/* The deviations of x[from..to] from shift added into s1 (sum) and s2 (sum
 * of squares). */
FC_HD void fc_ta_var_shifted_sums(const double *x, int from, int to, double shift, double *s1, double *s2) {
    for (int j = from; j <= to; j++) {
        double d = x[j] - shift;
        *s1 += d;
        *s2 += d * d;
    }
}

/* TA_VAR (population variance; nbdev is not used), TA-Lib 0.8's
 * cancellation-free form: running sums of the deviations from a shift
 * (first the window's first value), variance = E[d^2] - E[d]^2. TA-Lib
 * re-anchors the shift at the window's mean and rebuilds both sums from the
 * window (recomputing that bar) when the variance falls below 1e-6 of E[d^2],
 * when the value just removed had a squared deviation above 1e6 times the
 * remaining sum, or every 32p bars; a rebuilt variance below 1e-12 of its
 * E[d^2] is 0. */
FC_HD void fc_ta_var_p(int p, const double *x, int n, double *out) {
    double inv = 1.0 / (double)p;
    double shift = x[0], s1 = 0.0, s2 = 0.0;
    fc_ta_var_shifted_sums(x, 0, p - 2, shift, &s1, &s2);
    fc_ta_nan(out, 0, p - 1);
    int countdown = 32 * p;
    for (int t = p - 1; t < n; t++) {
        double d = x[t] - shift;
        s1 += d;
        s2 += d * d;
        double m1 = s1 * inv;
        double var = s2 * inv - m1 * m1;
        int first = t - p + 1;
        d = x[first] - shift;
        s1 -= d;
        d *= d;
        s2 -= d;
        countdown--;
        if (var < 0.000001 * (s2 * inv) || d > 1000000.0 * s2 || countdown <= 0) {
            countdown = 32 * p;
            double total = 0.0;
            for (int j = first; j <= t; j++) total += x[j];
            shift = total * inv;
            s1 = 0.0;
            s2 = 0.0;
            fc_ta_var_shifted_sums(x, first, t, shift, &s1, &s2);
            m1 = s1 * inv;
            var = s2 * inv - m1 * m1;
            if (var < 0.000000000001 * (s2 * inv)) var = 0.0;
            d = x[first] - shift;
            s1 -= d;
            s2 -= d * d;
        }
        out[t] = var;
    }
}

#endif
