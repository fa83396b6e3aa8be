/* What TA-Lib's candlestick patterns measure a candle with: its parts (real
 * body, shadows, range, colour, gaps) and the candle settings, TA-Lib
 * 0.8.1's defaults (TA_CandleDefaultSettings): each setting compares a part
 * of a candle with `factor` times the average of a range over the previous
 * `period` candles (or the candle's own range when the period is 0).
 *
 * The patterns (ta_pattern_*.h) keep running sums of the ranges as TA-Lib
 * does (fc_ta_candle_total, at the end) and ask fc_ta_candle_average for
 * the threshold; inputs are open, high, low, close (c->in[0..3]). Where
 * TA-Lib takes a min or max of prices it is fc_ta_candle_min/max, not
 * fmin/fmax: they differ when a price is NaN. */
#ifndef FC_KERNELS_TA_CANDLE_H
#define FC_KERNELS_TA_CANDLE_H

#include "kernels/ta/ta_call.h"

enum { FC_TA_RANGE_REALBODY = 0, FC_TA_RANGE_HIGHLOW, FC_TA_RANGE_SHADOWS };

enum {
    FC_TA_BODY_LONG = 0, FC_TA_BODY_VERY_LONG, FC_TA_BODY_SHORT, FC_TA_BODY_DOJI,
    FC_TA_SHADOW_LONG, FC_TA_SHADOW_VERY_LONG, FC_TA_SHADOW_SHORT, FC_TA_SHADOW_VERY_SHORT,
    FC_TA_NEAR, FC_TA_FAR, FC_TA_EQUAL, FC_TA_CANDLE_SETTING_COUNT
};

typedef struct {
    int range;      /* FC_TA_RANGE_* */
    int period;     /* candles averaged */
    double factor;
} fc_ta_candle_setting;

FC_HD_INLINE fc_ta_candle_setting fc_ta_candle(int which) {
    fc_ta_candle_setting s;
    switch (which) {
    case FC_TA_BODY_LONG:         s.range = FC_TA_RANGE_REALBODY; s.period = 10; s.factor = 1.0; break;
    case FC_TA_BODY_VERY_LONG:    s.range = FC_TA_RANGE_REALBODY; s.period = 10; s.factor = 3.0; break;
    case FC_TA_BODY_SHORT:        s.range = FC_TA_RANGE_REALBODY; s.period = 10; s.factor = 1.0; break;
    case FC_TA_BODY_DOJI:         s.range = FC_TA_RANGE_HIGHLOW;  s.period = 10; s.factor = 0.1; break;
    case FC_TA_SHADOW_LONG:       s.range = FC_TA_RANGE_REALBODY; s.period = 0;  s.factor = 1.0; break;
    case FC_TA_SHADOW_VERY_LONG:  s.range = FC_TA_RANGE_REALBODY; s.period = 0;  s.factor = 2.0; break;
    case FC_TA_SHADOW_SHORT:      s.range = FC_TA_RANGE_SHADOWS;  s.period = 10; s.factor = 1.0; break;
    case FC_TA_SHADOW_VERY_SHORT: s.range = FC_TA_RANGE_HIGHLOW;  s.period = 10; s.factor = 0.1; break;
    case FC_TA_NEAR:              s.range = FC_TA_RANGE_HIGHLOW;  s.period = 5;  s.factor = 0.2; break;
    case FC_TA_FAR:               s.range = FC_TA_RANGE_HIGHLOW;  s.period = 5;  s.factor = 0.6; break;
    default: /* FC_TA_EQUAL */    s.range = FC_TA_RANGE_HIGHLOW;  s.period = 5;  s.factor = 0.05; break;
    }
    return s;
}

/* The parts of candle i; o, h, l, c are the four input columns. */
FC_HD_INLINE double fc_ta_real_body(const double *o, const double *c, int i) { return fabs(c[i] - o[i]); }
FC_HD_INLINE double fc_ta_upper_shadow(const double *o, const double *h, const double *c, int i) {
    return h[i] - (c[i] >= o[i] ? c[i] : o[i]);
}
FC_HD_INLINE double fc_ta_lower_shadow(const double *o, const double *l, const double *c, int i) {
    return (c[i] >= o[i] ? o[i] : c[i]) - l[i];
}
FC_HD_INLINE double fc_ta_high_low(const double *h, const double *l, int i) { return h[i] - l[i]; }
/* 1 white (close >= open), -1 black. */
FC_HD_INLINE int fc_ta_color(const double *o, const double *c, int i) { return c[i] >= o[i] ? 1 : -1; }

/* TA_CANDLERANGE: the range a setting measures, of candle i. */
FC_HD_INLINE double fc_ta_candle_range(int which, const double *o, const double *h, const double *l,
                                const double *c, int i) {
    switch (fc_ta_candle(which).range) {
    case FC_TA_RANGE_REALBODY: return fc_ta_real_body(o, c, i);
    case FC_TA_RANGE_HIGHLOW: return fc_ta_high_low(h, l, i);
    default: return fc_ta_upper_shadow(o, h, c, i) + fc_ta_lower_shadow(o, l, c, i);
    }
}

/* TA_CANDLEAVERAGE: factor times the average range (sum over the setting's
 * period, or candle i's own range when the period is 0), halved for the
 * Shadows range (two shadows per candle). */
FC_HD_INLINE double fc_ta_candle_average(int which, double sum, const double *o, const double *h,
                                  const double *l, const double *c, int i) {
    fc_ta_candle_setting s = fc_ta_candle(which);
    double avg = s.period != 0 ? sum / (double)s.period : fc_ta_candle_range(which, o, h, l, c, i);
    return s.factor * avg / (s.range == FC_TA_RANGE_SHADOWS ? 2.0 : 1.0);
}

/* TA-Lib's min and max macros, a < b ? a : b and a > b ? a : b: unlike
 * fmin and fmax they return b when either is NaN (the argument order is
 * TA-Lib's at each call, so NaN inputs give TA-Lib's answers). */
FC_HD_INLINE double fc_ta_candle_min(double a, double b) { return a < b ? a : b; }
FC_HD_INLINE double fc_ta_candle_max(double a, double b) { return a > b ? a : b; }

/* TA_REALBODYGAPUP/DOWN: the body of candle a lies wholly above/below b's. */
FC_HD_INLINE int fc_ta_body_gap_up(const double *o, const double *c, int a, int b) {
    return fc_ta_candle_min(o[a], c[a]) > fc_ta_candle_max(o[b], c[b]);
}
FC_HD_INLINE int fc_ta_body_gap_down(const double *o, const double *c, int a, int b) {
    return fc_ta_candle_max(o[a], c[a]) < fc_ta_candle_min(o[b], c[b]);
}
/* TA_CANDLEGAPUP/DOWN: candle a's range lies wholly above/below b's. */
FC_HD_INLINE int fc_ta_candle_gap_up(const double *h, const double *l, int a, int b) { return l[a] > h[b]; }
FC_HD_INLINE int fc_ta_candle_gap_down(const double *h, const double *l, int a, int b) { return h[a] < l[b]; }

/* A setting's running total, TA-Lib's way: the total that judges candle
 * i - lag holds the ranges of the `period` candles before it, summed from
 * 0.0 oldest first, and after each bar i it takes
 * sum + (range(i - lag) - range(i - lag - period)), the difference first
 * (the rounding of that order decides signals at the threshold's edge).
 * With period 0 the total is unused (the threshold is the candle's own
 * range), though it is still stepped as TA-Lib steps it. */
typedef struct {
    int which;      /* FC_TA_BODY_LONG ... */
    int lag;        /* the total judges candle i - lag at bar i */
    double sum;
    /* the setting, looked up once (fc_ta_candle's switch per bar cost a
     * third of a pattern's time) */
    int range, period;
    double factor, halve;   /* halve: 2 for the Shadows range (two per candle), else 1 */
} fc_ta_candle_total;

/* TA_CANDLERANGE by the range's kind. */
FC_HD_INLINE double fc_ta_candle_range_kind(int range, const double *o, const double *h, const double *l,
                                     const double *c, int i) {
    if (range == FC_TA_RANGE_REALBODY) return fc_ta_real_body(o, c, i);
    if (range == FC_TA_RANGE_HIGHLOW) return fc_ta_high_low(h, l, i);
    return fc_ta_upper_shadow(o, h, c, i) + fc_ta_lower_shadow(o, l, c, i);
}

/* The total as it stands at bar `start` (the first bar judged, or the
 * first of TA-Lib's warm-up bars), before any step. */
FC_HD_INLINE fc_ta_candle_total fc_ta_candle_total_at(int which, int lag, int start, const double *const *in) {
    fc_ta_candle_setting s = fc_ta_candle(which);
    fc_ta_candle_total t;
    t.which = which;
    t.lag = lag;
    t.sum = 0.0;
    t.range = s.range;
    t.period = s.period;
    t.factor = s.factor;
    t.halve = s.range == FC_TA_RANGE_SHADOWS ? 2.0 : 1.0;
    for (int k = start - lag - s.period; k < start - lag; k++)
        t.sum += fc_ta_candle_range_kind(t.range, in[0], in[1], in[2], in[3], k);
    return t;
}

/* TA_CANDLEAVERAGE of the total, for candle idx (the candle matters only
 * with period 0): fc_ta_candle_average's arithmetic. */
FC_HD_INLINE double fc_ta_candle_total_avg(const fc_ta_candle_total *t, const double *const *in, int idx) {
    double avg = t->period != 0 ? t->sum / (double)t->period
                                : fc_ta_candle_range_kind(t->range, in[0], in[1], in[2], in[3], idx);
    return t->factor * avg / t->halve;
}

/* After bar i: the newest candle in, the oldest out. */
FC_HD_INLINE void fc_ta_candle_total_step(fc_ta_candle_total *t, const double *const *in, int i) {
    int newest = i - t->lag, oldest = newest - t->period;
    double add = fc_ta_candle_range_kind(t->range, in[0], in[1], in[2], in[3], newest);
    double drop = fc_ta_candle_range_kind(t->range, in[0], in[1], in[2], in[3], oldest);
    t->sum = t->sum + (add - drop);
}

#endif
