/* TA-Lib's Statistic Functions (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_sta_... */
#ifndef FC_KERNELS_TA_STATISTIC_H
#define FC_KERNELS_TA_STATISTIC_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_ma.h"
#include "kernels/ta/ta_var.h"

/* ---------------------------------------------------------- VAR, STDDEV */

FC_HD int fc_ta_var_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }
FC_HD void fc_ta_var(const fc_ta_call *c) { fc_ta_var_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

/* sqrt of VAR times nbdev, unconditionally (TA-Lib 0.8 dropped its 1e-14
 * floor: VAR itself returns 0 for a flat window, never a negative). */
FC_HD int fc_ta_stddev_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }
FC_HD void fc_ta_stddev(const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]);
    double nbdev = c->par[1];
    double *out = c->out[0];
    fc_ta_var_p(p, c->in[0], c->n, out);
    for (int t = p - 1; t < c->n; t++) out[t] = nbdev != 1.0 ? sqrt(out[t]) * nbdev : sqrt(out[t]);
}

/* ------------------------------------------- LINEARREG family and TSF */

enum { FC_TA_STA_LR_VALUE, FC_TA_STA_LR_SLOPE, FC_TA_STA_LR_ANGLE, FC_TA_STA_LR_INTERCEPT, FC_TA_STA_LR_TSF };

/* One least-squares line's output from its slope m (the intercept b from
 * the sums); the wheel fuses b + m*x. */
FC_HD double fc_ta_sta_lr_pick(int what, int p, double m, double sum_y, double sum_x) {
    if (what == FC_TA_STA_LR_SLOPE) return m;
    if (what == FC_TA_STA_LR_ANGLE) return atan(m) * (180.0 / 3.14159265358979323846);
    double b = (sum_y - m * sum_x) / (double)p;
    if (what == FC_TA_STA_LR_INTERCEPT) return b;
    return fma(m, (double)(what == FC_TA_STA_LR_TSF ? p : p - 1), b);
}

/* sum(y) and sum(x*y) of the p bars ending at bar t, oldest first, x the
 * distance back from bar t. */
FC_HD void fc_ta_sta_lr_sums(int p, const double *x, int t, double *sum_y, double *sum_xy) {
    *sum_y = 0.0;
    *sum_xy = 0.0;
    for (int i = p - 1; i >= 0; i--) {
        double v = x[t - i];
        *sum_y += v;
        *sum_xy += (double)i * v;
    }
}

/* TA-Lib's least-squares line over the last p bars, x counted backwards
 * from the current bar (0) to the oldest (p-1). TA-Lib 0.8 keeps sum(y) and
 * sum(x*y) running (so a NaN stays in them for good): each step adds sum(y)
 * to sum(x*y) (every weight grows by one) and takes out p times the
 * departing value; every 32p bars it sums both afresh from the window. */
FC_HD void fc_ta_sta_linreg(int what, int p, const double *x, int n, double *out) {
    double fp = (double)p;
    double sum_x = fp * (p - 1) * 0.5;
    double sum_x2 = fp * (p - 1) * (2 * p - 1) / 6.0;
    double divisor = sum_x * sum_x - p * sum_x2;
    double sum_y, sum_xy;
    fc_ta_sta_lr_sums(p, x, p - 1, &sum_y, &sum_xy);
    fc_ta_nan(out, 0, p - 1);
    int countdown = 32 * p;
    for (int t = p - 1; t < n; t++) {
        if (t > p - 1) {
            if (--countdown <= 0) {
                countdown = 32 * p;
                fc_ta_sta_lr_sums(p, x, t, &sum_y, &sum_xy);
            } else {
                double gone = x[t - p];
                sum_xy = sum_xy + sum_y - fp * gone;
                sum_y = sum_y - gone + x[t];
            }
        }
        double m = (p * sum_xy - sum_x * sum_y) / divisor;
        out[t] = fc_ta_sta_lr_pick(what, p, m, sum_y, sum_x);
    }
}

FC_HD int fc_ta_linearreg_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }
FC_HD void fc_ta_linearreg(const fc_ta_call *c) {
    fc_ta_sta_linreg(FC_TA_STA_LR_VALUE, fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]);
}

FC_HD int fc_ta_linearreg_slope_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }
FC_HD void fc_ta_linearreg_slope(const fc_ta_call *c) {
    fc_ta_sta_linreg(FC_TA_STA_LR_SLOPE, fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]);
}

FC_HD int fc_ta_linearreg_angle_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }
FC_HD void fc_ta_linearreg_angle(const fc_ta_call *c) {
    fc_ta_sta_linreg(FC_TA_STA_LR_ANGLE, fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]);
}

FC_HD int fc_ta_linearreg_intercept_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }
FC_HD void fc_ta_linearreg_intercept(const fc_ta_call *c) {
    fc_ta_sta_linreg(FC_TA_STA_LR_INTERCEPT, fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]);
}

FC_HD int fc_ta_tsf_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }
FC_HD void fc_ta_tsf(const fc_ta_call *c) {
    fc_ta_sta_linreg(FC_TA_STA_LR_TSF, fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]);
}

/* --------------------------------------------------------------- CORREL */

/* The five sums of CORREL's window, each value measured from its shift. */
typedef struct {
    double x, y, xx, yy, xy;
} fc_ta_sta_sums2;

FC_HD void fc_ta_sta_sums2_add(fc_ta_sta_sums2 *s, double x, double y) {
    s->x += x;
    s->xx += x * x;
    s->xy += x * y;
    s->y += y;
    s->yy += y * y;
}

/* Pearson's r over p bars, TA-Lib 0.8's cancellation-free form (as VAR):
 * sums of deviations from a shift per series (first the window's first
 * values); sums of squares ssX = sumX2 - sumX^2/p etc. TA-Lib re-anchors
 * both shifts at the window's means and rebuilds the sums when ssX or ssY
 * falls below 1e-6 of its sum of squares, when a departed squared deviation
 * exceeded 1e6 times it, or every 32p bars (rebuilt ssX, ssY below 0 are 0).
 * r = spXY / sqrt(ssX*ssY), clamped to [-1, 1]; 0 where ssX or ssY is not
 * above 1e-14 of its sum of squares. */
FC_HD void fc_ta_sta_correl(int p, const double *a, const double *b, int n, double *out) {
    double inv = 1.0 / (double)p;
    double sx = a[0], sy = b[0];
    fc_ta_sta_sums2 s = {0.0, 0.0, 0.0, 0.0, 0.0};
    for (int j = 0; j < p - 1; j++) fc_ta_sta_sums2_add(&s, a[j] - sx, b[j] - sy);
    fc_ta_nan(out, 0, p - 1);
    int countdown = 32 * p;
    double leave_x = 0.0, leave_y = 0.0;
    for (int t = p - 1; t < n; t++) {
        fc_ta_sta_sums2_add(&s, a[t] - sx, b[t] - sy);
        double ssx = s.xx - ((s.x * s.x) * inv);
        double ssy = s.yy - ((s.y * s.y) * inv);
        double spxy = s.xy - ((s.x * s.y) * inv);
        int first = t - p + 1;
        if (--countdown <= 0 || ssx < 0.000001 * s.xx || ssy < 0.000001 * s.yy ||
            leave_x > 1000000.0 * s.xx || leave_y > 1000000.0 * s.yy) {
            countdown = 32 * p;
            double ta = 0.0, tb = 0.0;
            for (int j = first; j <= t; j++) {
                ta += a[j];
                tb += b[j];
            }
            sx = ta * inv;
            sy = tb * inv;
            s.x = s.y = s.xx = s.yy = s.xy = 0.0;
            for (int j = first; j <= t; j++) fc_ta_sta_sums2_add(&s, a[j] - sx, b[j] - sy);
            ssx = s.xx - ((s.x * s.x) * inv);
            ssy = s.yy - ((s.y * s.y) * inv);
            spxy = s.xy - ((s.x * s.y) * inv);
            if (ssx < 0.0) ssx = 0.0;
            if (ssy < 0.0) ssy = 0.0;
        }
        double dx = a[first] - sx, dy = b[first] - sy;
        if (ssx > 0.00000000000001 * s.xx && ssy > 0.00000000000001 * s.yy) {
            double r = spxy / sqrt(ssx * ssy);
            out[t] = r > 1.0 ? 1.0 : r < -1.0 ? -1.0 : r;
        } else {
            out[t] = 0.0;
        }
        leave_x = dx * dx;
        leave_y = dy * dy;
        s.x -= dx;
        s.xx -= leave_x;
        s.xy -= dx * dy;
        s.y -= dy;
        s.yy -= leave_y;
    }
}

FC_HD int fc_ta_correl_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }
FC_HD void fc_ta_correl(const fc_ta_call *c) {
    fc_ta_sta_correl(fc_ta_int(c->par[0]), c->in[0], c->in[1], c->n, c->out[0]);
}

/* ----------------------------------------------------------------- BETA */

/* A bar's return (price - prev) / prev less the shift; -shift where prev is
 * (near) zero. */
FC_HD double fc_ta_sta_ret(double price, double prev, double shift) {
    return !fc_ta_is_zero(prev) ? (price - prev) / prev - shift : -shift;
}

/* BETA: the least-squares slope of in1's returns on in0's over p returns.
 * TA-Lib 0.8's cancellation-free form (as VAR, CORREL): the returns are
 * measured from a shift per series (first the window's first return) and
 * TA-Lib re-anchors the shifts at the window's mean returns and rebuilds
 * the sums when denom = p*Sxx - Sx^2 falls below 1e-6 of p*Sxx, when the
 * departed squared x return exceeded 1e3 times Sxx, or every 32p bars (a
 * rebuilt denom below 0 is 0). beta = (p*Sxy - Sx*Sy) / denom; 0 where
 * denom is not above 1e-14 of p*Sxx. */
FC_HD void fc_ta_sta_beta(int p, const double *a, const double *b, int n, double *out) {
    double np = (double)p;
    double sxx = 0.0, sxy = 0.0, sx = 0.0, sy = 0.0;
    double last_a = a[0], last_b = b[0], tail_a = a[0], tail_b = b[0];
    double shift_a = !fc_ta_is_zero(last_a) ? (a[1] - last_a) / last_a : 0.0;
    double shift_b = !fc_ta_is_zero(last_b) ? (b[1] - last_b) / last_b : 0.0;
    for (int i = 1; i < p; i++) {
        double x = fc_ta_sta_ret(a[i], last_a, shift_a), y = fc_ta_sta_ret(b[i], last_b, shift_b);
        last_a = a[i];
        last_b = b[i];
        sxx += x * x;
        sxy += x * y;
        sx += x;
        sy += y;
    }
    fc_ta_nan(out, 0, p);
    int tail = 1, countdown = 32 * p;
    double leaving_xx = 0.0;
    for (int t = p; t < n; t++) {
        double x = fc_ta_sta_ret(a[t], last_a, shift_a), y = fc_ta_sta_ret(b[t], last_b, shift_b);
        last_a = a[t];
        last_b = b[t];
        sxx += x * x;
        sxy += x * y;
        sx += x;
        sy += y;
        double scale = np * sxx;
        double denom = scale - sx * sx;
        if (--countdown <= 0 || denom < 0.000001 * scale || leaving_xx > 1000.0 * sxx) {
            countdown = 32 * p;
            /* Rebuild from the returns of bars tail..t, walking the prices
             * forward from the one before the window. */
            double pa = tail_a, pb = tail_b, ta = 0.0, tb = 0.0;
            for (int j = tail; j <= t; j++) {
                if (!fc_ta_is_zero(pa)) ta += (a[j] - pa) / pa;
                pa = a[j];
                if (!fc_ta_is_zero(pb)) tb += (b[j] - pb) / pb;
                pb = b[j];
            }
            shift_a = ta / np;
            shift_b = tb / np;
            pa = tail_a;
            pb = tail_b;
            sxx = sxy = sx = sy = 0.0;
            for (int j = tail; j <= t; j++) {
                double rx = fc_ta_sta_ret(a[j], pa, shift_a), ry = fc_ta_sta_ret(b[j], pb, shift_b);
                pa = a[j];
                pb = b[j];
                sxx += rx * rx;
                sxy += rx * ry;
                sx += rx;
                sy += ry;
            }
            scale = np * sxx;
            denom = scale - sx * sx;
            if (denom < 0.0) denom = 0.0;
        }
        double ox = fc_ta_sta_ret(a[tail], tail_a, shift_a), oy = fc_ta_sta_ret(b[tail], tail_b, shift_b);
        tail_a = a[tail];
        tail_b = b[tail];
        tail++;
        out[t] = denom > 0.00000000000001 * scale ? ((np * sxy) - (sx * sy)) / denom : 0.0;
        leaving_xx = ox * ox;
        sxx -= ox * ox;
        sxy -= ox * oy;
        sx -= ox;
        sy -= oy;
    }
}

FC_HD int fc_ta_beta_lookback(const double *par) { return fc_ta_int(par[0]); }
FC_HD void fc_ta_beta(const fc_ta_call *c) {
    fc_ta_sta_beta(fc_ta_int(c->par[0]), c->in[0], c->in[1], c->n, c->out[0]);
}

/* ---------------------------------------------------------- PERCENTRANK */

/* The share (in %) of the p bars before each bar that are below it; a NaN
 * bar or neighbour is never below. */
FC_HD int fc_ta_percentrank_lookback(const double *par) { return fc_ta_int(par[0]); }
FC_HD void fc_ta_percentrank(const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]);
    const double *x = c->in[0];
    fc_ta_nan(c->out[0], 0, p);
    for (int t = p; t < c->n; t++) {
        int count = 0;
        for (int i = p; i >= 1; i--)
            if (x[t - i] < x[t]) count++;
        /* TA-Lib divides, then scales by 100 */
        c->out[0][t] = ((double)count / (double)p) * 100.0;
    }
}

/* ----------------------------------------------------------- PERCENTILE */

/* The nearest-rank percentile of the last p bars: the rank-th smallest,
 * rank = ceil(P*p/100) within [1, p]. As TA-Lib, the p-1 bars before the
 * current one are kept sorted (ascending, equal values in age order) in
 * s = work[0..p). The current value v goes after the kept values <= v
 * (position pos); the answer is the kept rank-th value if it lies below
 * pos, v if rank-1 == pos, else the kept (rank-1)-th value. Then v is
 * inserted at pos and the first kept value not below the oldest bar is
 * removed. A NaN is never <= anything, so it enters at the front and the
 * scans step over it as TA-Lib's do. */
FC_HD void fc_ta_sta_percentile(int p, double pct, const double *x, int n, double *s, double *out) {
    int kept = p - 1;
    /* the multiply before the divide, as TA-Lib (exact at round percents) */
    int rank = (int)ceil(pct * (double)p / 100.0);
    if (rank < 1) rank = 1;
    if (rank > p) rank = p;
    for (int i = 0; i < kept; i++) {
        int j = i;
        while (j > 0 && s[j - 1] > x[i]) {
            s[j] = s[j - 1];
            j--;
        }
        s[j] = x[i];
    }
    fc_ta_nan(out, 0, kept);
    for (int t = kept; t < n; t++) {
        double v = x[t];
        int pos = 0;
        while (pos < kept && s[pos] <= v) pos++;
        if (rank - 1 < pos) out[t] = s[rank - 1];
        else if (rank - 1 == pos) out[t] = v;
        else out[t] = s[rank - 2];
        for (int j = kept; j > pos; j--) s[j] = s[j - 1];
        s[pos] = v;
        double old = x[t - kept];
        int j = 0;
        while (j < kept && s[j] < old) j++;
        for (; j < kept; j++) s[j] = s[j + 1];
    }
}

FC_HD int fc_ta_percentile_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }
FC_HD void fc_ta_percentile(const fc_ta_call *c) {
    fc_ta_sta_percentile(fc_ta_int(c->par[0]), c->par[1], c->in[0], c->n, c->work, c->out[0]);
}

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_STATISTIC(X) \
    X(VAR, var, 0) \
    X(STDDEV, stddev, 0) \
    X(LINEARREG, linearreg, 0) \
    X(LINEARREG_SLOPE, linearreg_slope, 0) \
    X(LINEARREG_ANGLE, linearreg_angle, 0) \
    X(LINEARREG_INTERCEPT, linearreg_intercept, 0) \
    X(TSF, tsf, 0) \
    X(CORREL, correl, 0) \
    X(BETA, beta, 0) \
    X(PERCENTRANK, percentrank, 0) \
    X(PERCENTILE, percentile, 1)

#endif
