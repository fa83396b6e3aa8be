/* TA-Lib's Pattern Recognition, CDLHOMINGPIGEON to CDLXSIDEGAP3METHODS (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_ptb_...
 *
 * Every pattern reads open, high, low, close (c->in[0..3]) and writes 0 or
 * +-100 per bar from its lookback on. Each candle setting it uses (body
 * long, shadow very short, ...) is a running total of that setting's range
 * over the `period` candles before the candle it judges; TA-Lib updates the
 * total after each bar as total += (newest - oldest), the difference rounded
 * first, and the thresholds are compared with the total exactly so (a
 * rounding bit at the edge decides a signal): ta_candle.h's
 * fc_ta_candle_total, wrapped here as fc_ta_ptb_total.
 *
 * A NaN bar makes every total NaN for good (NaN - x never washes out), so a
 * pattern using a total is 0 on every later bar of the segment, as in
 * TA-Lib. Settings with period 0 (shadow long, very long) use the candle's
 * own body instead of a total. */
#ifndef FC_KERNELS_TA_PATTERN_B_H
#define FC_KERNELS_TA_PATTERN_B_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_ma.h"
#include "kernels/ta/ta_candle.h"

/* ------------------------------------------------- shared helpers */

/* The four input columns (and the call's input array, for the totals). */
typedef struct { const double *o, *h, *l, *c; const double *const *in; } fc_ta_ptb_bars;

FC_HD_INLINE fc_ta_ptb_bars fc_ta_ptb_bars_of(const fc_ta_call *c) {
    fc_ta_ptb_bars b;
    b.o = c->in[0]; b.h = c->in[1]; b.l = c->in[2]; b.c = c->in[3];
    b.in = c->in;
    return b;
}

/* The parts of candle i. */
FC_HD_INLINE double fc_ta_ptb_body(const fc_ta_ptb_bars *b, int i) { return fc_ta_real_body(b->o, b->c, i); }
FC_HD_INLINE double fc_ta_ptb_upper(const fc_ta_ptb_bars *b, int i) { return fc_ta_upper_shadow(b->o, b->h, b->c, i); }
FC_HD_INLINE double fc_ta_ptb_lower(const fc_ta_ptb_bars *b, int i) { return fc_ta_lower_shadow(b->o, b->l, b->c, i); }
FC_HD_INLINE int fc_ta_ptb_color(const fc_ta_ptb_bars *b, int i) { return fc_ta_color(b->o, b->c, i); }
FC_HD_INLINE int fc_ta_ptb_white(const fc_ta_ptb_bars *b, int i) { return fc_ta_color(b->o, b->c, i) == 1; }
FC_HD_INLINE int fc_ta_ptb_black(const fc_ta_ptb_bars *b, int i) { return fc_ta_color(b->o, b->c, i) == -1; }
/* Top and bottom of candle i's body. */
FC_HD_INLINE double fc_ta_ptb_top(const fc_ta_ptb_bars *b, int i) { return fc_ta_candle_max(b->o[i], b->c[i]); }
FC_HD_INLINE double fc_ta_ptb_bottom(const fc_ta_ptb_bars *b, int i) { return fc_ta_candle_min(b->o[i], b->c[i]); }
/* Body of candle a wholly above / below candle p's body. */
FC_HD_INLINE int fc_ta_ptb_body_gap_up(const fc_ta_ptb_bars *b, int a, int p) { return fc_ta_body_gap_up(b->o, b->c, a, p); }
FC_HD_INLINE int fc_ta_ptb_body_gap_down(const fc_ta_ptb_bars *b, int a, int p) { return fc_ta_body_gap_down(b->o, b->c, a, p); }
/* Range of candle a wholly above / below candle p's range. */
FC_HD_INLINE int fc_ta_ptb_gap_up(const fc_ta_ptb_bars *b, int a, int p) { return fc_ta_candle_gap_up(b->h, b->l, a, p); }
FC_HD_INLINE int fc_ta_ptb_gap_down(const fc_ta_ptb_bars *b, int a, int p) { return fc_ta_candle_gap_down(b->h, b->l, a, p); }

FC_HD_INLINE int fc_ta_ptb_period(int which) { return fc_ta_candle(which).period; }
FC_HD_INLINE int fc_ta_ptb_max(int a, int b) { return a > b ? a : b; }

/* The running total of one setting's range for judging candle i - lag at
 * bar i: ta_candle.h's fc_ta_candle_total, seen through the bars. */
typedef fc_ta_candle_total fc_ta_ptb_total;

/* The total as it stands at the first bar `start`. */
FC_HD_INLINE fc_ta_ptb_total fc_ta_ptb_total_start(int which, int lag, int start, const fc_ta_ptb_bars *b) {
    return fc_ta_candle_total_at(which, lag, start, b->in);
}

/* The setting's threshold for candle i - lag, at bar i. */
FC_HD_INLINE double fc_ta_ptb_avg(const fc_ta_ptb_total *t, const fc_ta_ptb_bars *b, int i) {
    return fc_ta_candle_total_avg(t, b->in, i - t->lag);
}

/* After bar i: the newest range in, the oldest out (one rounded difference). */
FC_HD_INLINE void fc_ta_ptb_roll(fc_ta_ptb_total *t, const fc_ta_ptb_bars *b, int i) { fc_ta_candle_total_step(t, b->in, i); }

/* ------------------------------------------------- CDLHOMINGPIGEON */

FC_HD int fc_ta_cdlhomingpigeon_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_BODY_SHORT), fc_ta_ptb_period(FC_TA_BODY_LONG)) + 1;
}

/* Long black candle, then a short black body inside its body: +100. */
FC_HD void fc_ta_cdlhomingpigeon(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlhomingpigeon_lookback(c->par);
    fc_ta_ptb_total lng = fc_ta_ptb_total_start(FC_TA_BODY_LONG, 1, start, &b);
    fc_ta_ptb_total sht = fc_ta_ptb_total_start(FC_TA_BODY_SHORT, 0, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_ptb_black(&b, i - 1) && fc_ta_ptb_black(&b, i) &&
                  fc_ta_ptb_body(&b, i - 1) > fc_ta_ptb_avg(&lng, &b, i) &&
                  fc_ta_ptb_body(&b, i) <= fc_ta_ptb_avg(&sht, &b, i) &&
                  b.o[i] < b.o[i - 1] && b.c[i] > b.c[i - 1];
        c->out[0][i] = hit ? 100.0 : 0.0;
        fc_ta_ptb_roll(&lng, &b, i);
        fc_ta_ptb_roll(&sht, &b, i);
    }
}

/* ------------------------------------------------- CDLIDENTICAL3CROWS */

FC_HD int fc_ta_cdlidentical3crows_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_SHADOW_VERY_SHORT), fc_ta_ptb_period(FC_TA_EQUAL)) + 2;
}

/* Three declining black candles with very short lower shadows, each opening
 * (about) at the prior close: -100. */
FC_HD void fc_ta_cdlidentical3crows(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlidentical3crows_lookback(c->par);
    fc_ta_ptb_total vs[3], eq[3];
    for (int k = 0; k < 3; k++) {
        vs[k] = fc_ta_ptb_total_start(FC_TA_SHADOW_VERY_SHORT, k, start, &b);
        eq[k] = fc_ta_ptb_total_start(FC_TA_EQUAL, k, start, &b);
    }
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = 1;
        for (int k = 2; k >= 0 && hit; k--)
            hit = fc_ta_ptb_black(&b, i - k) && fc_ta_ptb_lower(&b, i - k) < fc_ta_ptb_avg(&vs[k], &b, i);
        hit = hit && b.c[i - 2] > b.c[i - 1] && b.c[i - 1] > b.c[i];
        for (int k = 2; k >= 1 && hit; k--) {
            double eqk = fc_ta_ptb_avg(&eq[k], &b, i);
            hit = b.o[i - k + 1] <= b.c[i - k] + eqk && b.o[i - k + 1] >= b.c[i - k] - eqk;
        }
        c->out[0][i] = hit ? -100.0 : 0.0;
        for (int k = 0; k < 3; k++) {
            fc_ta_ptb_roll(&vs[k], &b, i);
            fc_ta_ptb_roll(&eq[k], &b, i);
        }
    }
}

/* ------------------------------------------------- CDLINNECK */

FC_HD int fc_ta_cdlinneck_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_EQUAL), fc_ta_ptb_period(FC_TA_BODY_LONG)) + 1;
}

/* Long black candle, then a white one opening below its low and closing
 * at or just above its close: -100. */
FC_HD void fc_ta_cdlinneck(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlinneck_lookback(c->par);
    fc_ta_ptb_total eq = fc_ta_ptb_total_start(FC_TA_EQUAL, 1, start, &b);
    fc_ta_ptb_total lng = fc_ta_ptb_total_start(FC_TA_BODY_LONG, 1, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_ptb_black(&b, i - 1) && fc_ta_ptb_body(&b, i - 1) > fc_ta_ptb_avg(&lng, &b, i) &&
                  fc_ta_ptb_white(&b, i) && b.o[i] < b.l[i - 1] &&
                  b.c[i] <= b.c[i - 1] + fc_ta_ptb_avg(&eq, &b, i) && b.c[i] >= b.c[i - 1];
        c->out[0][i] = hit ? -100.0 : 0.0;
        fc_ta_ptb_roll(&eq, &b, i);
        fc_ta_ptb_roll(&lng, &b, i);
    }
}

/* ------------------------------------------------- CDLINVERTEDHAMMER */

FC_HD int fc_ta_cdlinvertedhammer_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_BODY_SHORT), fc_ta_ptb_period(FC_TA_SHADOW_LONG)),
                         fc_ta_ptb_period(FC_TA_SHADOW_VERY_SHORT)) + 1;
}

/* Small body gapping down from the prior body, long upper shadow, very
 * short lower shadow: +100. */
FC_HD void fc_ta_cdlinvertedhammer(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlinvertedhammer_lookback(c->par);
    fc_ta_ptb_total body = fc_ta_ptb_total_start(FC_TA_BODY_SHORT, 0, start, &b);
    fc_ta_ptb_total sl = fc_ta_ptb_total_start(FC_TA_SHADOW_LONG, 0, start, &b);
    fc_ta_ptb_total vs = fc_ta_ptb_total_start(FC_TA_SHADOW_VERY_SHORT, 0, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_ptb_body_gap_down(&b, i, i - 1) && fc_ta_ptb_body(&b, i) < fc_ta_ptb_avg(&body, &b, i) &&
                  fc_ta_ptb_upper(&b, i) > fc_ta_ptb_avg(&sl, &b, i) &&
                  fc_ta_ptb_lower(&b, i) < fc_ta_ptb_avg(&vs, &b, i);
        c->out[0][i] = hit ? 100.0 : 0.0;
        fc_ta_ptb_roll(&body, &b, i);
        fc_ta_ptb_roll(&sl, &b, i);
        fc_ta_ptb_roll(&vs, &b, i);
    }
}

/* ------------------------------------------------- CDLKICKING, CDLKICKINGBYLENGTH */

FC_HD int fc_ta_cdlkicking_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_SHADOW_VERY_SHORT), fc_ta_ptb_period(FC_TA_BODY_LONG)) + 1;
}
FC_HD int fc_ta_cdlkickingbylength_lookback(const double *par) { return fc_ta_cdlkicking_lookback(par); }

/* Two marubozu of opposite colours with a gap between their ranges (up
 * after the black, down after the white); the sign is the second's colour,
 * or (by_length) the colour of the longer body. */
FC_HD_INLINE void fc_ta_ptb_kicking(const fc_ta_call *c, int by_length) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlkicking_lookback(c->par);
    fc_ta_ptb_total vs[2], lng[2];
    for (int k = 0; k < 2; k++) {
        vs[k] = fc_ta_ptb_total_start(FC_TA_SHADOW_VERY_SHORT, k, start, &b);
        lng[k] = fc_ta_ptb_total_start(FC_TA_BODY_LONG, k, start, &b);
    }
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_ptb_color(&b, i - 1) == -fc_ta_ptb_color(&b, i);
        for (int k = 1; k >= 0 && hit; k--) {
            double vsk = fc_ta_ptb_avg(&vs[k], &b, i);
            hit = fc_ta_ptb_body(&b, i - k) > fc_ta_ptb_avg(&lng[k], &b, i) &&
                  fc_ta_ptb_upper(&b, i - k) < vsk && fc_ta_ptb_lower(&b, i - k) < vsk;
        }
        hit = hit && ((fc_ta_ptb_black(&b, i - 1) && fc_ta_ptb_gap_up(&b, i, i - 1)) ||
                      (fc_ta_ptb_white(&b, i - 1) && fc_ta_ptb_gap_down(&b, i, i - 1)));
        int lead = by_length && !(fc_ta_ptb_body(&b, i) > fc_ta_ptb_body(&b, i - 1)) ? i - 1 : i;
        c->out[0][i] = hit ? 100.0 * fc_ta_ptb_color(&b, lead) : 0.0;
        for (int k = 1; k >= 0; k--) {
            fc_ta_ptb_roll(&lng[k], &b, i);
            fc_ta_ptb_roll(&vs[k], &b, i);
        }
    }
}
FC_HD void fc_ta_cdlkicking(const fc_ta_call *c) { fc_ta_ptb_kicking(c, 0); }
FC_HD void fc_ta_cdlkickingbylength(const fc_ta_call *c) { fc_ta_ptb_kicking(c, 1); }

/* ------------------------------------------------- CDLLADDERBOTTOM */

FC_HD int fc_ta_cdlladderbottom_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_period(FC_TA_SHADOW_VERY_SHORT) + 4;
}

/* Three black candles with lower opens and closes, a black one with an
 * upper shadow (not very short), a white one opening above its open and
 * closing above its high: +100. */
FC_HD void fc_ta_cdlladderbottom(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlladderbottom_lookback(c->par);
    fc_ta_ptb_total vs = fc_ta_ptb_total_start(FC_TA_SHADOW_VERY_SHORT, 1, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_ptb_black(&b, i - 4) && fc_ta_ptb_black(&b, i - 3) && fc_ta_ptb_black(&b, i - 2) &&
                  b.o[i - 4] > b.o[i - 3] && b.o[i - 3] > b.o[i - 2] &&
                  b.c[i - 4] > b.c[i - 3] && b.c[i - 3] > b.c[i - 2] &&
                  fc_ta_ptb_black(&b, i - 1) && fc_ta_ptb_upper(&b, i - 1) > fc_ta_ptb_avg(&vs, &b, i) &&
                  fc_ta_ptb_white(&b, i) && b.o[i] > b.o[i - 1] && b.c[i] > b.h[i - 1];
        c->out[0][i] = hit ? 100.0 : 0.0;
        fc_ta_ptb_roll(&vs, &b, i);
    }
}

/* ------------------------------------------------- CDLLONGLEGGEDDOJI */

FC_HD int fc_ta_cdllongleggeddoji_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_BODY_DOJI), fc_ta_ptb_period(FC_TA_SHADOW_LONG));
}

/* Doji body with a long lower or upper shadow: +100. */
FC_HD void fc_ta_cdllongleggeddoji(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdllongleggeddoji_lookback(c->par);
    fc_ta_ptb_total doji = fc_ta_ptb_total_start(FC_TA_BODY_DOJI, 0, start, &b);
    fc_ta_ptb_total sl = fc_ta_ptb_total_start(FC_TA_SHADOW_LONG, 0, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_ptb_body(&b, i) <= fc_ta_ptb_avg(&doji, &b, i) &&
                  (fc_ta_ptb_lower(&b, i) > fc_ta_ptb_avg(&sl, &b, i) ||
                   fc_ta_ptb_upper(&b, i) > fc_ta_ptb_avg(&sl, &b, i));
        c->out[0][i] = hit ? 100.0 : 0.0;
        fc_ta_ptb_roll(&doji, &b, i);
        fc_ta_ptb_roll(&sl, &b, i);
    }
}

/* ------------------------------------------------- CDLLONGLINE */

FC_HD int fc_ta_cdllongline_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_BODY_LONG), fc_ta_ptb_period(FC_TA_SHADOW_SHORT));
}

/* A long body whose two shadows are both below the `shadow` setting:
 * 100 times its colour (LONGLINE: short shadows; MARUBOZU: very short). */
FC_HD_INLINE void fc_ta_ptb_long_body(const fc_ta_call *c, int shadow, int start) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    fc_ta_ptb_total body = fc_ta_ptb_total_start(FC_TA_BODY_LONG, 0, start, &b);
    fc_ta_ptb_total sh = fc_ta_ptb_total_start(shadow, 0, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_ptb_body(&b, i) > fc_ta_ptb_avg(&body, &b, i) &&
                  fc_ta_ptb_upper(&b, i) < fc_ta_ptb_avg(&sh, &b, i) &&
                  fc_ta_ptb_lower(&b, i) < fc_ta_ptb_avg(&sh, &b, i);
        c->out[0][i] = hit ? 100.0 * fc_ta_ptb_color(&b, i) : 0.0;
        fc_ta_ptb_roll(&body, &b, i);
        fc_ta_ptb_roll(&sh, &b, i);
    }
}

FC_HD void fc_ta_cdllongline(const fc_ta_call *c) {
    fc_ta_ptb_long_body(c, FC_TA_SHADOW_SHORT, fc_ta_cdllongline_lookback(c->par));
}

/* ------------------------------------------------- CDLMARUBOZU */

FC_HD int fc_ta_cdlmarubozu_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_BODY_LONG), fc_ta_ptb_period(FC_TA_SHADOW_VERY_SHORT));
}

FC_HD void fc_ta_cdlmarubozu(const fc_ta_call *c) {
    fc_ta_ptb_long_body(c, FC_TA_SHADOW_VERY_SHORT, fc_ta_cdlmarubozu_lookback(c->par));
}

/* ------------------------------------------------- CDLMATCHINGLOW */

FC_HD int fc_ta_cdlmatchinglow_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_period(FC_TA_EQUAL) + 1;
}

/* Two black candles with (about) equal closes: +100. */
FC_HD void fc_ta_cdlmatchinglow(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlmatchinglow_lookback(c->par);
    fc_ta_ptb_total eq = fc_ta_ptb_total_start(FC_TA_EQUAL, 1, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        double e = fc_ta_ptb_avg(&eq, &b, i);
        int hit = fc_ta_ptb_black(&b, i - 1) && fc_ta_ptb_black(&b, i) &&
                  b.c[i] <= b.c[i - 1] + e && b.c[i] >= b.c[i - 1] - e;
        c->out[0][i] = hit ? 100.0 : 0.0;
        fc_ta_ptb_roll(&eq, &b, i);
    }
}

/* ------------------------------------------------- CDLMATHOLD */

FC_HD int fc_ta_cdlmathold_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_BODY_SHORT), fc_ta_ptb_period(FC_TA_BODY_LONG)) + 4;
}

/* Long white candle; a small black one gapping up; two more small bodies
 * falling, holding within the first body (penetrating at most
 * `penetration` of it); a white candle opening above the prior close and
 * closing above the reaction days' highs: +100. */
FC_HD void fc_ta_cdlmathold(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    double pen = c->par[0];
    int start = fc_ta_cdlmathold_lookback(c->par);
    fc_ta_ptb_total lng = fc_ta_ptb_total_start(FC_TA_BODY_LONG, 4, start, &b);
    fc_ta_ptb_total sht[4];
    for (int k = 1; k <= 3; k++) sht[k] = fc_ta_ptb_total_start(FC_TA_BODY_SHORT, k, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        double floor4 = b.c[i - 4] - fc_ta_ptb_body(&b, i - 4) * pen;   /* TA-Lib's wheel does not fuse a - b*c */
        int hit = fc_ta_ptb_white(&b, i - 4) && fc_ta_ptb_black(&b, i - 3) && fc_ta_ptb_white(&b, i) &&
                  fc_ta_ptb_body_gap_up(&b, i - 3, i - 4) &&
                  fc_ta_ptb_bottom(&b, i - 2) < b.c[i - 4] && fc_ta_ptb_bottom(&b, i - 1) < b.c[i - 4] &&
                  fc_ta_ptb_bottom(&b, i - 2) > floor4 && fc_ta_ptb_bottom(&b, i - 1) > floor4 &&
                  fc_ta_ptb_top(&b, i - 2) < b.o[i - 3] && fc_ta_ptb_top(&b, i - 1) < fc_ta_ptb_top(&b, i - 2) &&
                  b.o[i] > b.c[i - 1] &&
                  b.c[i] > fc_ta_candle_max(fc_ta_candle_max(b.h[i - 3], b.h[i - 2]), b.h[i - 1]) &&
                  fc_ta_ptb_body(&b, i - 4) > fc_ta_ptb_avg(&lng, &b, i) &&
                  fc_ta_ptb_body(&b, i - 3) < fc_ta_ptb_avg(&sht[3], &b, i) &&
                  fc_ta_ptb_body(&b, i - 2) < fc_ta_ptb_avg(&sht[2], &b, i) &&
                  fc_ta_ptb_body(&b, i - 1) < fc_ta_ptb_avg(&sht[1], &b, i);
        c->out[0][i] = hit ? 100.0 : 0.0;
        fc_ta_ptb_roll(&lng, &b, i);
        for (int k = 3; k >= 1; k--) fc_ta_ptb_roll(&sht[k], &b, i);
    }
}

/* ------------------------------------------------- CDLMORNINGDOJISTAR, CDLMORNINGSTAR */

FC_HD int fc_ta_cdlmorningdojistar_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_BODY_DOJI), fc_ta_ptb_period(FC_TA_BODY_LONG)),
                         fc_ta_ptb_period(FC_TA_BODY_SHORT)) + 2;
}
FC_HD int fc_ta_cdlmorningstar_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_BODY_SHORT), fc_ta_ptb_period(FC_TA_BODY_LONG)) + 2;
}

/* Long black candle; a star (doji, or short body) whose body gaps down;
 * a white candle, not short, closing above the first close plus
 * `penetration` of the first body (one FMA in the wheel): +100. */
FC_HD_INLINE void fc_ta_ptb_morning(const fc_ta_call *c, int star, int start) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    double pen = c->par[0];
    fc_ta_ptb_total lng = fc_ta_ptb_total_start(FC_TA_BODY_LONG, 2, start, &b);
    fc_ta_ptb_total st = fc_ta_ptb_total_start(star, 1, start, &b);
    fc_ta_ptb_total sht = fc_ta_ptb_total_start(FC_TA_BODY_SHORT, 0, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_ptb_black(&b, i - 2) && fc_ta_ptb_white(&b, i) &&
                  fc_ta_ptb_body_gap_down(&b, i - 1, i - 2) &&
                  b.c[i] > fma(fc_ta_ptb_body(&b, i - 2), pen, b.c[i - 2]) &&
                  fc_ta_ptb_body(&b, i - 2) > fc_ta_ptb_avg(&lng, &b, i) &&
                  fc_ta_ptb_body(&b, i - 1) <= fc_ta_ptb_avg(&st, &b, i) &&
                  fc_ta_ptb_body(&b, i) > fc_ta_ptb_avg(&sht, &b, i);
        c->out[0][i] = hit ? 100.0 : 0.0;
        fc_ta_ptb_roll(&lng, &b, i);
        fc_ta_ptb_roll(&st, &b, i);
        fc_ta_ptb_roll(&sht, &b, i);
    }
}
FC_HD void fc_ta_cdlmorningdojistar(const fc_ta_call *c) {
    fc_ta_ptb_morning(c, FC_TA_BODY_DOJI, fc_ta_cdlmorningdojistar_lookback(c->par));
}
FC_HD void fc_ta_cdlmorningstar(const fc_ta_call *c) {
    fc_ta_ptb_morning(c, FC_TA_BODY_SHORT, fc_ta_cdlmorningstar_lookback(c->par));
}

/* ------------------------------------------------- CDLONNECK */

FC_HD int fc_ta_cdlonneck_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_EQUAL), fc_ta_ptb_period(FC_TA_BODY_LONG)) + 1;
}

/* Long black candle, then a white one opening below its low and closing
 * (about) at its low: -100. */
FC_HD void fc_ta_cdlonneck(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlonneck_lookback(c->par);
    fc_ta_ptb_total eq = fc_ta_ptb_total_start(FC_TA_EQUAL, 1, start, &b);
    fc_ta_ptb_total lng = fc_ta_ptb_total_start(FC_TA_BODY_LONG, 1, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        double e = fc_ta_ptb_avg(&eq, &b, i);
        int hit = fc_ta_ptb_black(&b, i - 1) && fc_ta_ptb_body(&b, i - 1) > fc_ta_ptb_avg(&lng, &b, i) &&
                  fc_ta_ptb_white(&b, i) && b.o[i] < b.l[i - 1] &&
                  b.c[i] <= b.l[i - 1] + e && b.c[i] >= b.l[i - 1] - e;
        c->out[0][i] = hit ? -100.0 : 0.0;
        fc_ta_ptb_roll(&eq, &b, i);
        fc_ta_ptb_roll(&lng, &b, i);
    }
}

/* ------------------------------------------------- CDLPIERCING */

FC_HD int fc_ta_cdlpiercing_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_period(FC_TA_BODY_LONG) + 1;
}

/* Long black candle, then a long white one opening below its low and
 * closing inside its body, above the midpoint: +100. */
FC_HD void fc_ta_cdlpiercing(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlpiercing_lookback(c->par);
    fc_ta_ptb_total lng[2];
    for (int k = 0; k < 2; k++) lng[k] = fc_ta_ptb_total_start(FC_TA_BODY_LONG, k, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_ptb_black(&b, i - 1) && fc_ta_ptb_body(&b, i - 1) > fc_ta_ptb_avg(&lng[1], &b, i) &&
                  fc_ta_ptb_white(&b, i) && fc_ta_ptb_body(&b, i) > fc_ta_ptb_avg(&lng[0], &b, i) &&
                  b.o[i] < b.l[i - 1] && b.c[i] < b.o[i - 1] &&
                  b.c[i] > b.c[i - 1] + fc_ta_ptb_body(&b, i - 1) * 0.5;
        c->out[0][i] = hit ? 100.0 : 0.0;
        for (int k = 1; k >= 0; k--) fc_ta_ptb_roll(&lng[k], &b, i);
    }
}

/* ------------------------------------------------- CDLRICKSHAWMAN */

FC_HD int fc_ta_cdlrickshawman_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_BODY_DOJI), fc_ta_ptb_period(FC_TA_SHADOW_LONG)),
                         fc_ta_ptb_period(FC_TA_NEAR));
}

/* Doji body, two long shadows, body near the middle of the range: +100. */
FC_HD void fc_ta_cdlrickshawman(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlrickshawman_lookback(c->par);
    fc_ta_ptb_total doji = fc_ta_ptb_total_start(FC_TA_BODY_DOJI, 0, start, &b);
    fc_ta_ptb_total sl = fc_ta_ptb_total_start(FC_TA_SHADOW_LONG, 0, start, &b);
    fc_ta_ptb_total nearby = fc_ta_ptb_total_start(FC_TA_NEAR, 0, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        double mid = b.l[i] + (b.h[i] - b.l[i]) / 2.0;
        double nr = fc_ta_ptb_avg(&nearby, &b, i);
        int hit = fc_ta_ptb_body(&b, i) <= fc_ta_ptb_avg(&doji, &b, i) &&
                  fc_ta_ptb_lower(&b, i) > fc_ta_ptb_avg(&sl, &b, i) &&
                  fc_ta_ptb_upper(&b, i) > fc_ta_ptb_avg(&sl, &b, i) &&
                  fc_ta_ptb_bottom(&b, i) <= mid + nr && fc_ta_ptb_top(&b, i) >= mid - nr;
        c->out[0][i] = hit ? 100.0 : 0.0;
        fc_ta_ptb_roll(&doji, &b, i);
        fc_ta_ptb_roll(&sl, &b, i);
        fc_ta_ptb_roll(&nearby, &b, i);
    }
}

/* ------------------------------------------------- CDLRISEFALL3METHODS */

FC_HD int fc_ta_cdlrisefall3methods_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_BODY_SHORT), fc_ta_ptb_period(FC_TA_BODY_LONG)) + 4;
}

/* Long candle; three small ones of the other colour, each body partly
 * inside the first range, closing further against the first; a long
 * candle of the first colour opening beyond the prior close and closing
 * beyond the first close: 100 times the first colour. */
FC_HD void fc_ta_cdlrisefall3methods(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlrisefall3methods_lookback(c->par);
    fc_ta_ptb_total lng4 = fc_ta_ptb_total_start(FC_TA_BODY_LONG, 4, start, &b);
    fc_ta_ptb_total lng0 = fc_ta_ptb_total_start(FC_TA_BODY_LONG, 0, start, &b);
    fc_ta_ptb_total sht[4];
    for (int k = 1; k <= 3; k++) sht[k] = fc_ta_ptb_total_start(FC_TA_BODY_SHORT, k, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int col = fc_ta_ptb_color(&b, i - 4);
        double s = (double)col;
        int hit = col == -fc_ta_ptb_color(&b, i - 3) && fc_ta_ptb_color(&b, i - 3) == fc_ta_ptb_color(&b, i - 2) &&
                  fc_ta_ptb_color(&b, i - 2) == fc_ta_ptb_color(&b, i - 1) &&
                  fc_ta_ptb_color(&b, i - 1) == -fc_ta_ptb_color(&b, i);
        for (int k = 3; k >= 1 && hit; k--)
            hit = fc_ta_ptb_bottom(&b, i - k) < b.h[i - 4] && fc_ta_ptb_top(&b, i - k) > b.l[i - 4];
        hit = hit && b.c[i - 2] * s < b.c[i - 3] * s && b.c[i - 1] * s < b.c[i - 2] * s &&
              b.o[i] * s > b.c[i - 1] * s && b.c[i] * s > b.c[i - 4] * s &&
              fc_ta_ptb_body(&b, i - 4) > fc_ta_ptb_avg(&lng4, &b, i) &&
              fc_ta_ptb_body(&b, i - 3) < fc_ta_ptb_avg(&sht[3], &b, i) &&
              fc_ta_ptb_body(&b, i - 2) < fc_ta_ptb_avg(&sht[2], &b, i) &&
              fc_ta_ptb_body(&b, i - 1) < fc_ta_ptb_avg(&sht[1], &b, i) &&
              fc_ta_ptb_body(&b, i) > fc_ta_ptb_avg(&lng0, &b, i);
        c->out[0][i] = hit ? 100.0 * col : 0.0;
        fc_ta_ptb_roll(&lng4, &b, i);
        for (int k = 3; k >= 1; k--) fc_ta_ptb_roll(&sht[k], &b, i);
        fc_ta_ptb_roll(&lng0, &b, i);
    }
}

/* ------------------------------------------------- CDLSEPARATINGLINES */

FC_HD int fc_ta_cdlseparatinglines_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_SHADOW_VERY_SHORT), fc_ta_ptb_period(FC_TA_BODY_LONG)),
                         fc_ta_ptb_period(FC_TA_EQUAL)) + 1;
}

/* Two candles of opposite colours opening (about) level, the second a
 * belt hold (long body, very short shadow at its open end): 100 times the
 * second's colour. */
FC_HD void fc_ta_cdlseparatinglines(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlseparatinglines_lookback(c->par);
    fc_ta_ptb_total vs = fc_ta_ptb_total_start(FC_TA_SHADOW_VERY_SHORT, 0, start, &b);
    fc_ta_ptb_total lng = fc_ta_ptb_total_start(FC_TA_BODY_LONG, 0, start, &b);
    fc_ta_ptb_total eq = fc_ta_ptb_total_start(FC_TA_EQUAL, 1, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        double e = fc_ta_ptb_avg(&eq, &b, i);
        double v = fc_ta_ptb_avg(&vs, &b, i);
        int hit = fc_ta_ptb_color(&b, i - 1) == -fc_ta_ptb_color(&b, i) &&
                  b.o[i] <= b.o[i - 1] + e && b.o[i] >= b.o[i - 1] - e &&
                  fc_ta_ptb_body(&b, i) > fc_ta_ptb_avg(&lng, &b, i) &&
                  ((fc_ta_ptb_white(&b, i) && fc_ta_ptb_lower(&b, i) < v) ||
                   (fc_ta_ptb_black(&b, i) && fc_ta_ptb_upper(&b, i) < v));
        c->out[0][i] = hit ? 100.0 * fc_ta_ptb_color(&b, i) : 0.0;
        fc_ta_ptb_roll(&vs, &b, i);
        fc_ta_ptb_roll(&lng, &b, i);
        fc_ta_ptb_roll(&eq, &b, i);
    }
}

/* ------------------------------------------------- CDLSHOOTINGSTAR */

FC_HD int fc_ta_cdlshootingstar_lookback(const double *par) { return fc_ta_cdlinvertedhammer_lookback(par); }

/* Small body gapping up from the prior body, long upper shadow, very
 * short lower shadow: -100. */
FC_HD void fc_ta_cdlshootingstar(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlshootingstar_lookback(c->par);
    fc_ta_ptb_total body = fc_ta_ptb_total_start(FC_TA_BODY_SHORT, 0, start, &b);
    fc_ta_ptb_total sl = fc_ta_ptb_total_start(FC_TA_SHADOW_LONG, 0, start, &b);
    fc_ta_ptb_total vs = fc_ta_ptb_total_start(FC_TA_SHADOW_VERY_SHORT, 0, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_ptb_body_gap_up(&b, i, i - 1) && fc_ta_ptb_body(&b, i) < fc_ta_ptb_avg(&body, &b, i) &&
                  fc_ta_ptb_upper(&b, i) > fc_ta_ptb_avg(&sl, &b, i) &&
                  fc_ta_ptb_lower(&b, i) < fc_ta_ptb_avg(&vs, &b, i);
        c->out[0][i] = hit ? -100.0 : 0.0;
        fc_ta_ptb_roll(&body, &b, i);
        fc_ta_ptb_roll(&sl, &b, i);
        fc_ta_ptb_roll(&vs, &b, i);
    }
}

/* ------------------------------------------------- CDLSHORTLINE */

FC_HD int fc_ta_cdlshortline_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_BODY_SHORT), fc_ta_ptb_period(FC_TA_SHADOW_SHORT));
}

/* Short body with short shadows: 100 times its colour. */
FC_HD void fc_ta_cdlshortline(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlshortline_lookback(c->par);
    fc_ta_ptb_total body = fc_ta_ptb_total_start(FC_TA_BODY_SHORT, 0, start, &b);
    fc_ta_ptb_total sh = fc_ta_ptb_total_start(FC_TA_SHADOW_SHORT, 0, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_ptb_body(&b, i) < fc_ta_ptb_avg(&body, &b, i) &&
                  fc_ta_ptb_upper(&b, i) < fc_ta_ptb_avg(&sh, &b, i) &&
                  fc_ta_ptb_lower(&b, i) < fc_ta_ptb_avg(&sh, &b, i);
        c->out[0][i] = hit ? 100.0 * fc_ta_ptb_color(&b, i) : 0.0;
        fc_ta_ptb_roll(&body, &b, i);
        fc_ta_ptb_roll(&sh, &b, i);
    }
}

/* ------------------------------------------------- CDLSPINNINGTOP */

FC_HD int fc_ta_cdlspinningtop_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_period(FC_TA_BODY_SHORT);
}

/* Small body with both shadows longer than the body: 100 times its colour. */
FC_HD void fc_ta_cdlspinningtop(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlspinningtop_lookback(c->par);
    fc_ta_ptb_total body = fc_ta_ptb_total_start(FC_TA_BODY_SHORT, 0, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        double rb = fc_ta_ptb_body(&b, i);
        int hit = fc_ta_ptb_upper(&b, i) > rb && fc_ta_ptb_lower(&b, i) > rb && rb < fc_ta_ptb_avg(&body, &b, i);
        c->out[0][i] = hit ? 100.0 * fc_ta_ptb_color(&b, i) : 0.0;
        fc_ta_ptb_roll(&body, &b, i);
    }
}

/* ------------------------------------------------- CDLSTALLEDPATTERN */

FC_HD int fc_ta_cdlstalledpattern_lookback(const double *par) {
    (void)par;
    int p = fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_BODY_LONG), fc_ta_ptb_period(FC_TA_BODY_SHORT));
    p = fc_ta_ptb_max(p, fc_ta_ptb_period(FC_TA_SHADOW_VERY_SHORT));
    return fc_ta_ptb_max(p, fc_ta_ptb_period(FC_TA_NEAR)) + 2;
}

/* Three white candles with rising closes: two long ones, the second with a
 * very short upper shadow opening above the first open and at most near
 * its close; a small third riding on the second's shoulder: -100. */
FC_HD void fc_ta_cdlstalledpattern(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlstalledpattern_lookback(c->par);
    fc_ta_ptb_total lng[3], nr[3];
    for (int k = 1; k <= 2; k++) {
        lng[k] = fc_ta_ptb_total_start(FC_TA_BODY_LONG, k, start, &b);
        nr[k] = fc_ta_ptb_total_start(FC_TA_NEAR, k, start, &b);
    }
    fc_ta_ptb_total sht = fc_ta_ptb_total_start(FC_TA_BODY_SHORT, 0, start, &b);
    fc_ta_ptb_total vs = fc_ta_ptb_total_start(FC_TA_SHADOW_VERY_SHORT, 1, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_ptb_white(&b, i - 2) && fc_ta_ptb_white(&b, i - 1) && fc_ta_ptb_white(&b, i) &&
                  b.c[i] > b.c[i - 1] && b.c[i - 1] > b.c[i - 2] &&
                  fc_ta_ptb_body(&b, i - 2) > fc_ta_ptb_avg(&lng[2], &b, i) &&
                  fc_ta_ptb_body(&b, i - 1) > fc_ta_ptb_avg(&lng[1], &b, i) &&
                  fc_ta_ptb_upper(&b, i - 1) < fc_ta_ptb_avg(&vs, &b, i) &&
                  b.o[i - 1] > b.o[i - 2] && b.o[i - 1] <= b.c[i - 2] + fc_ta_ptb_avg(&nr[2], &b, i) &&
                  fc_ta_ptb_body(&b, i) < fc_ta_ptb_avg(&sht, &b, i) &&
                  b.o[i] >= b.c[i - 1] - fc_ta_ptb_body(&b, i) - fc_ta_ptb_avg(&nr[1], &b, i);
        c->out[0][i] = hit ? -100.0 : 0.0;
        for (int k = 2; k >= 1; k--) {
            fc_ta_ptb_roll(&lng[k], &b, i);
            fc_ta_ptb_roll(&nr[k], &b, i);
        }
        fc_ta_ptb_roll(&sht, &b, i);
        fc_ta_ptb_roll(&vs, &b, i);
    }
}

/* ------------------------------------------------- CDLSTICKSANDWICH */

FC_HD int fc_ta_cdlsticksandwich_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_period(FC_TA_EQUAL) + 2;
}

/* Black candle; white one trading above its close; black one closing
 * (about) at the first close: +100. */
FC_HD void fc_ta_cdlsticksandwich(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlsticksandwich_lookback(c->par);
    fc_ta_ptb_total eq = fc_ta_ptb_total_start(FC_TA_EQUAL, 2, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        double e = fc_ta_ptb_avg(&eq, &b, i);
        int hit = fc_ta_ptb_black(&b, i - 2) && fc_ta_ptb_white(&b, i - 1) && fc_ta_ptb_black(&b, i) &&
                  b.l[i - 1] > b.c[i - 2] && b.c[i] <= b.c[i - 2] + e && b.c[i] >= b.c[i - 2] - e;
        c->out[0][i] = hit ? 100.0 : 0.0;
        fc_ta_ptb_roll(&eq, &b, i);
    }
}

/* ------------------------------------------------- CDLTAKURI */

FC_HD int fc_ta_cdltakuri_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_BODY_DOJI), fc_ta_ptb_period(FC_TA_SHADOW_VERY_SHORT)),
                         fc_ta_ptb_period(FC_TA_SHADOW_VERY_LONG));
}

/* Doji body, very short upper shadow, very long lower shadow: +100. */
FC_HD void fc_ta_cdltakuri(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdltakuri_lookback(c->par);
    fc_ta_ptb_total doji = fc_ta_ptb_total_start(FC_TA_BODY_DOJI, 0, start, &b);
    fc_ta_ptb_total vs = fc_ta_ptb_total_start(FC_TA_SHADOW_VERY_SHORT, 0, start, &b);
    fc_ta_ptb_total vl = fc_ta_ptb_total_start(FC_TA_SHADOW_VERY_LONG, 0, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_ptb_body(&b, i) <= fc_ta_ptb_avg(&doji, &b, i) &&
                  fc_ta_ptb_upper(&b, i) < fc_ta_ptb_avg(&vs, &b, i) &&
                  fc_ta_ptb_lower(&b, i) > fc_ta_ptb_avg(&vl, &b, i);
        c->out[0][i] = hit ? 100.0 : 0.0;
        fc_ta_ptb_roll(&doji, &b, i);
        fc_ta_ptb_roll(&vs, &b, i);
        fc_ta_ptb_roll(&vl, &b, i);
    }
}

/* ------------------------------------------------- CDLTASUKIGAP */

FC_HD int fc_ta_cdltasukigap_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_period(FC_TA_NEAR) + 2;
}

/* A body gap (up or down), a candle of the gap's colour, then one of the
 * other colour opening inside its body and closing inside the gap, the two
 * bodies near the same size: 100 times the middle candle's colour. */
FC_HD void fc_ta_cdltasukigap(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdltasukigap_lookback(c->par);
    fc_ta_ptb_total nr = fc_ta_ptb_total_start(FC_TA_NEAR, 1, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        double n1 = fc_ta_ptb_avg(&nr, &b, i);
        int same = fabs(fc_ta_ptb_body(&b, i - 1) - fc_ta_ptb_body(&b, i)) < n1;
        int up = fc_ta_ptb_body_gap_up(&b, i - 1, i - 2) && fc_ta_ptb_white(&b, i - 1) && fc_ta_ptb_black(&b, i) &&
                 b.o[i] < b.c[i - 1] && b.o[i] > b.o[i - 1] && b.c[i] < b.o[i - 1] &&
                 b.c[i] > fc_ta_ptb_top(&b, i - 2) && same;
        int down = fc_ta_ptb_body_gap_down(&b, i - 1, i - 2) && fc_ta_ptb_black(&b, i - 1) && fc_ta_ptb_white(&b, i) &&
                   b.o[i] < b.o[i - 1] && b.o[i] > b.c[i - 1] && b.c[i] > b.o[i - 1] &&
                   b.c[i] < fc_ta_ptb_bottom(&b, i - 2) && same;
        c->out[0][i] = up || down ? 100.0 * fc_ta_ptb_color(&b, i - 1) : 0.0;
        fc_ta_ptb_roll(&nr, &b, i);
    }
}

/* ------------------------------------------------- CDLTHRUSTING */

FC_HD int fc_ta_cdlthrusting_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_EQUAL), fc_ta_ptb_period(FC_TA_BODY_LONG)) + 1;
}

/* Long black candle, then a white one opening below its low and closing
 * above its close (by more than "equal") but at most at its midpoint: -100. */
FC_HD void fc_ta_cdlthrusting(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlthrusting_lookback(c->par);
    fc_ta_ptb_total eq = fc_ta_ptb_total_start(FC_TA_EQUAL, 1, start, &b);
    fc_ta_ptb_total lng = fc_ta_ptb_total_start(FC_TA_BODY_LONG, 1, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_ptb_black(&b, i - 1) && fc_ta_ptb_body(&b, i - 1) > fc_ta_ptb_avg(&lng, &b, i) &&
                  fc_ta_ptb_white(&b, i) && b.o[i] < b.l[i - 1] &&
                  b.c[i] > b.c[i - 1] + fc_ta_ptb_avg(&eq, &b, i) &&
                  b.c[i] <= b.c[i - 1] + fc_ta_ptb_body(&b, i - 1) * 0.5;
        c->out[0][i] = hit ? -100.0 : 0.0;
        fc_ta_ptb_roll(&eq, &b, i);
        fc_ta_ptb_roll(&lng, &b, i);
    }
}

/* ------------------------------------------------- CDLTRISTAR */

FC_HD int fc_ta_cdltristar_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_period(FC_TA_BODY_DOJI) + 2;
}

/* Three doji (all three judged against the average before the first, as
 * TA-Lib does); the middle one's body gaps up with the third not higher
 * (-100), or gaps down with the third not lower (+100). */
FC_HD void fc_ta_cdltristar(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdltristar_lookback(c->par);
    fc_ta_ptb_total doji = fc_ta_ptb_total_start(FC_TA_BODY_DOJI, 2, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        double d = fc_ta_ptb_avg(&doji, &b, i);
        double v = 0.0;
        if (fc_ta_ptb_body(&b, i - 2) <= d && fc_ta_ptb_body(&b, i - 1) <= d && fc_ta_ptb_body(&b, i) <= d) {
            if (fc_ta_ptb_body_gap_up(&b, i - 1, i - 2) && fc_ta_ptb_top(&b, i) < fc_ta_ptb_top(&b, i - 1)) v = -100.0;
            if (fc_ta_ptb_body_gap_down(&b, i - 1, i - 2) && fc_ta_ptb_bottom(&b, i) > fc_ta_ptb_bottom(&b, i - 1))
                v = 100.0;
        }
        c->out[0][i] = v;
        fc_ta_ptb_roll(&doji, &b, i);
    }
}

/* ------------------------------------------------- CDLUNIQUE3RIVER */

FC_HD int fc_ta_cdlunique3river_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_BODY_SHORT), fc_ta_ptb_period(FC_TA_BODY_LONG)) + 2;
}

/* Long black candle; a black harami with a lower low; a short white
 * candle opening above that low: +100. */
FC_HD void fc_ta_cdlunique3river(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlunique3river_lookback(c->par);
    fc_ta_ptb_total lng = fc_ta_ptb_total_start(FC_TA_BODY_LONG, 2, start, &b);
    fc_ta_ptb_total sht = fc_ta_ptb_total_start(FC_TA_BODY_SHORT, 0, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_ptb_black(&b, i - 2) && fc_ta_ptb_black(&b, i - 1) && fc_ta_ptb_white(&b, i) &&
                  b.c[i - 1] > b.c[i - 2] && b.o[i - 1] <= b.o[i - 2] && b.l[i - 1] < b.l[i - 2] &&
                  b.o[i] > b.l[i - 1] && fc_ta_ptb_body(&b, i - 2) > fc_ta_ptb_avg(&lng, &b, i) &&
                  fc_ta_ptb_body(&b, i) < fc_ta_ptb_avg(&sht, &b, i);
        c->out[0][i] = hit ? 100.0 : 0.0;
        fc_ta_ptb_roll(&lng, &b, i);
        fc_ta_ptb_roll(&sht, &b, i);
    }
}

/* ------------------------------------------------- CDLUPSIDEGAP2CROWS */

FC_HD int fc_ta_cdlupsidegap2crows_lookback(const double *par) {
    (void)par;
    return fc_ta_ptb_max(fc_ta_ptb_period(FC_TA_BODY_SHORT), fc_ta_ptb_period(FC_TA_BODY_LONG)) + 2;
}

/* Long white candle; a short black body gapping up; a black candle
 * engulfing it and closing above the first close: -100. */
FC_HD void fc_ta_cdlupsidegap2crows(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlupsidegap2crows_lookback(c->par);
    fc_ta_ptb_total lng = fc_ta_ptb_total_start(FC_TA_BODY_LONG, 2, start, &b);
    fc_ta_ptb_total sht = fc_ta_ptb_total_start(FC_TA_BODY_SHORT, 1, start, &b);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_ptb_white(&b, i - 2) && fc_ta_ptb_body(&b, i - 2) > fc_ta_ptb_avg(&lng, &b, i) &&
                  fc_ta_ptb_black(&b, i - 1) && fc_ta_ptb_body(&b, i - 1) <= fc_ta_ptb_avg(&sht, &b, i) &&
                  fc_ta_ptb_body_gap_up(&b, i - 1, i - 2) && fc_ta_ptb_black(&b, i) &&
                  b.o[i] > b.o[i - 1] && b.c[i] < b.c[i - 1] && b.c[i] > b.c[i - 2];
        c->out[0][i] = hit ? -100.0 : 0.0;
        fc_ta_ptb_roll(&lng, &b, i);
        fc_ta_ptb_roll(&sht, &b, i);
    }
}

/* ------------------------------------------------- CDLXSIDEGAP3METHODS */

FC_HD int fc_ta_cdlxsidegap3methods_lookback(const double *par) {
    (void)par;
    return 2;
}

/* Two candles of one colour with a body gap in their direction (up when
 * white, down when black), then one of the other colour opening inside the
 * second body and closing inside the first: 100 times the first colour. */
FC_HD void fc_ta_cdlxsidegap3methods(const fc_ta_call *c) {
    fc_ta_ptb_bars b = fc_ta_ptb_bars_of(c);
    int start = fc_ta_cdlxsidegap3methods_lookback(c->par);
    fc_ta_nan(c->out[0], 0, start);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_ptb_color(&b, i - 2) == fc_ta_ptb_color(&b, i - 1) &&
                  fc_ta_ptb_color(&b, i - 1) == -fc_ta_ptb_color(&b, i) &&
                  b.o[i] < fc_ta_ptb_top(&b, i - 1) && b.o[i] > fc_ta_ptb_bottom(&b, i - 1) &&
                  b.c[i] < fc_ta_ptb_top(&b, i - 2) && b.c[i] > fc_ta_ptb_bottom(&b, i - 2) &&
                  ((fc_ta_ptb_white(&b, i - 2) && fc_ta_ptb_body_gap_up(&b, i - 1, i - 2)) ||
                   (fc_ta_ptb_black(&b, i - 2) && fc_ta_ptb_body_gap_down(&b, i - 1, i - 2)));
        c->out[0][i] = hit ? 100.0 * fc_ta_ptb_color(&b, i - 2) : 0.0;
    }
}

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_PATTERN_B(X) \
    X(CDLHOMINGPIGEON, cdlhomingpigeon, 0) \
    X(CDLIDENTICAL3CROWS, cdlidentical3crows, 0) \
    X(CDLINNECK, cdlinneck, 0) \
    X(CDLINVERTEDHAMMER, cdlinvertedhammer, 0) \
    X(CDLKICKING, cdlkicking, 0) \
    X(CDLKICKINGBYLENGTH, cdlkickingbylength, 0) \
    X(CDLLADDERBOTTOM, cdlladderbottom, 0) \
    X(CDLLONGLEGGEDDOJI, cdllongleggeddoji, 0) \
    X(CDLLONGLINE, cdllongline, 0) \
    X(CDLMARUBOZU, cdlmarubozu, 0) \
    X(CDLMATCHINGLOW, cdlmatchinglow, 0) \
    X(CDLMATHOLD, cdlmathold, 0) \
    X(CDLMORNINGDOJISTAR, cdlmorningdojistar, 0) \
    X(CDLMORNINGSTAR, cdlmorningstar, 0) \
    X(CDLONNECK, cdlonneck, 0) \
    X(CDLPIERCING, cdlpiercing, 0) \
    X(CDLRICKSHAWMAN, cdlrickshawman, 0) \
    X(CDLRISEFALL3METHODS, cdlrisefall3methods, 0) \
    X(CDLSEPARATINGLINES, cdlseparatinglines, 0) \
    X(CDLSHOOTINGSTAR, cdlshootingstar, 0) \
    X(CDLSHORTLINE, cdlshortline, 0) \
    X(CDLSPINNINGTOP, cdlspinningtop, 0) \
    X(CDLSTALLEDPATTERN, cdlstalledpattern, 0) \
    X(CDLSTICKSANDWICH, cdlsticksandwich, 0) \
    X(CDLTAKURI, cdltakuri, 0) \
    X(CDLTASUKIGAP, cdltasukigap, 0) \
    X(CDLTHRUSTING, cdlthrusting, 0) \
    X(CDLTRISTAR, cdltristar, 0) \
    X(CDLUNIQUE3RIVER, cdlunique3river, 0) \
    X(CDLUPSIDEGAP2CROWS, cdlupsidegap2crows, 0) \
    X(CDLXSIDEGAP3METHODS, cdlxsidegap3methods, 0)

#endif
