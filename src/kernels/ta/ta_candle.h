/* What TA-Lib's candlestick patterns measure a candle with: its parts (real
 * body, shadows, range, colour, gaps) and the candle settings, TA-Lib
 * 0.8.1's defaults (TA_CandleDefaultSettings): each setting compares a part
 * of a candle with `factor` times the average of a range over the previous
 * `period` candles (or the candle's own range when the period is 0).
 *
 * The patterns (ta_pattern_*.h) keep running sums of the ranges, as TA-Lib
 * does, and ask fc_ta_candle_average for the threshold; inputs are
 * open, high, low, close (c->in[0..3]). */
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

FC_HD fc_ta_candle_setting fc_ta_candle(int which) {
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
FC_HD double fc_ta_real_body(const double *o, const double *c, int i) { return fabs(c[i] - o[i]); }
FC_HD double fc_ta_upper_shadow(const double *o, const double *h, const double *c, int i) {
    return h[i] - (c[i] >= o[i] ? c[i] : o[i]);
}
FC_HD double fc_ta_lower_shadow(const double *o, const double *l, const double *c, int i) {
    return (c[i] >= o[i] ? o[i] : c[i]) - l[i];
}
FC_HD double fc_ta_high_low(const double *h, const double *l, int i) { return h[i] - l[i]; }
/* 1 white (close >= open), -1 black. */
FC_HD int fc_ta_color(const double *o, const double *c, int i) { return c[i] >= o[i] ? 1 : -1; }

/* TA_CANDLERANGE: the range a setting measures, of candle i. */
FC_HD double fc_ta_candle_range(int which, const double *o, const double *h, const double *l,
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
FC_HD double fc_ta_candle_average(int which, double sum, const double *o, const double *h,
                                  const double *l, const double *c, int i) {
    fc_ta_candle_setting s = fc_ta_candle(which);
    double avg = s.period != 0 ? sum / (double)s.period : fc_ta_candle_range(which, o, h, l, c, i);
    return s.factor * avg / (s.range == FC_TA_RANGE_SHADOWS ? 2.0 : 1.0);
}

/* TA_REALBODYGAPUP/DOWN: the body of candle a lies wholly above/below b's. */
FC_HD int fc_ta_body_gap_up(const double *o, const double *c, int a, int b) {
    return fmin(o[a], c[a]) > fmax(o[b], c[b]);
}
FC_HD int fc_ta_body_gap_down(const double *o, const double *c, int a, int b) {
    return fmax(o[a], c[a]) < fmin(o[b], c[b]);
}
/* TA_CANDLEGAPUP/DOWN: candle a's range lies wholly above/below b's. */
FC_HD int fc_ta_candle_gap_up(const double *h, const double *l, int a, int b) { return l[a] > h[b]; }
FC_HD int fc_ta_candle_gap_down(const double *h, const double *l, int a, int b) { return h[a] < l[b]; }

#endif
