/* TA-Lib's Pattern Recognition, CDL2CROWS to CDLHIKKAKEMOD (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_pta_...
 *
 * Each pattern judges bar i from candles i-k..i and writes 100 (bullish),
 * -100 (bearish) or 0 (80 for the one-end-matching engulfing and harami,
 * 200 for a confirmed hikkake). The thresholds come from running totals of
 * a setting's range (fc_ta_candle_total, kernels/ta/ta_candle.h), stepped
 * after every bar as TA-Lib steps them. Inputs: open, high, low, close.
 *
 * Checked against the TA-Lib 0.8.2 wheel on synthetic series beyond the
 * fixtures (tick grids with exact ties, planted patterns, NaNs inside):
 * NaN answers follow TA-Lib's comparisons (a NaN total after a NaN range
 * fails every later threshold) and its min/max macros. */
#ifndef FC_KERNELS_TA_PATTERN_A_H
#define FC_KERNELS_TA_PATTERN_A_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_candle.h"

FC_HD_INLINE int fc_ta_pta_max(int a, int b) { return a > b ? a : b; }
FC_HD_INLINE int fc_ta_pta_period(int which) { return which < 0 ? 0 : fc_ta_candle(which).period; }

/* The longest period of up to five settings (-1: none), which with the
 * pattern's candle count makes most lookbacks. */
FC_HD_INLINE int fc_ta_pta_longest(int a, int b, int c, int d, int e) {
    return fc_ta_pta_max(fc_ta_pta_max(fc_ta_pta_max(fc_ta_pta_period(a), fc_ta_pta_period(b)),
                                       fc_ta_pta_max(fc_ta_pta_period(c), fc_ta_pta_period(d))),
                         fc_ta_pta_period(e));
}

/* NaN over the lookback; returns the first bar computed. */
FC_HD_INLINE int fc_ta_pta_begin(const fc_ta_call *c, int lookback) {
    fc_ta_nan(c->out[0], 0, lookback);
    return lookback;
}

/* ------------------------------------------------- CDL2CROWS */

FC_HD int fc_ta_cdl2crows_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_period(FC_TA_BODY_LONG) + 2;
}

FC_HD void fc_ta_cdl2crows(const fc_ta_call *c) {
    const double *o = c->in[0], *cl = c->in[3];
    int start = fc_ta_pta_begin(c, fc_ta_cdl2crows_lookback(c->par));
    fc_ta_candle_total blong = fc_ta_candle_total_at(FC_TA_BODY_LONG, 2, start, c->in);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_color(o, cl, i - 2) == 1 &&
                  fc_ta_real_body(o, cl, i - 2) > fc_ta_candle_total_avg(&blong, c->in, i - 2) &&
                  fc_ta_color(o, cl, i - 1) == -1 && fc_ta_body_gap_up(o, cl, i - 1, i - 2) &&
                  fc_ta_color(o, cl, i) == -1 &&
                  o[i] < o[i - 1] && o[i] > cl[i - 1] &&      /* opens within the 2nd body */
                  cl[i] > o[i - 2] && cl[i] < cl[i - 2];      /* closes within the 1st body */
        c->out[0][i] = hit ? -100.0 : 0.0;
        fc_ta_candle_total_step(&blong, c->in, i);
    }
}

/* ------------------------------------------------- CDL3BLACKCROWS */

FC_HD int fc_ta_cdl3blackcrows_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_period(FC_TA_SHADOW_VERY_SHORT) + 3;
}

FC_HD void fc_ta_cdl3blackcrows(const fc_ta_call *c) {
    const double *o = c->in[0], *h = c->in[1], *l = c->in[2], *cl = c->in[3];
    int start = fc_ta_pta_begin(c, fc_ta_cdl3blackcrows_lookback(c->par));
    fc_ta_candle_total vshort[3];   /* [k]: candle i - k */
    for (int k = 0; k < 3; k++) vshort[k] = fc_ta_candle_total_at(FC_TA_SHADOW_VERY_SHORT, k, start, c->in);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_color(o, cl, i - 3) == 1 && fc_ta_color(o, cl, i - 2) == -1 &&
                  fc_ta_color(o, cl, i - 1) == -1 && fc_ta_color(o, cl, i) == -1 &&
                  o[i - 1] < o[i - 2] && o[i - 1] > cl[i - 2] &&   /* each opens within the prior body */
                  o[i] < o[i - 1] && o[i] > cl[i - 1] &&
                  h[i - 3] > cl[i - 2] &&                         /* 1st closes under the prior high */
                  cl[i - 2] > cl[i - 1] && cl[i - 1] > cl[i];     /* three declining */
        for (int k = 2; k >= 0 && hit; k--)
            hit = fc_ta_lower_shadow(o, l, cl, i - k) < fc_ta_candle_total_avg(&vshort[k], c->in, i - k);
        c->out[0][i] = hit ? -100.0 : 0.0;
        for (int k = 2; k >= 0; k--) fc_ta_candle_total_step(&vshort[k], c->in, i);
    }
}

/* ------------------------------------------------- CDL3INSIDE */

FC_HD int fc_ta_cdl3inside_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_longest(FC_TA_BODY_SHORT, FC_TA_BODY_LONG, -1, -1, -1) + 2;
}

FC_HD void fc_ta_cdl3inside(const fc_ta_call *c) {
    const double *o = c->in[0], *cl = c->in[3];
    int start = fc_ta_pta_begin(c, fc_ta_cdl3inside_lookback(c->par));
    fc_ta_candle_total blong = fc_ta_candle_total_at(FC_TA_BODY_LONG, 2, start, c->in);
    fc_ta_candle_total bshort = fc_ta_candle_total_at(FC_TA_BODY_SHORT, 1, start, c->in);
    for (int i = start; i < c->n; i++) {
        int c1 = fc_ta_color(o, cl, i - 2), c3 = fc_ta_color(o, cl, i);
        /* 2nd inside the 1st */
        int hit = fc_ta_candle_max(cl[i - 1], o[i - 1]) < fc_ta_candle_max(cl[i - 2], o[i - 2]) &&
                  fc_ta_candle_min(cl[i - 1], o[i - 1]) > fc_ta_candle_min(cl[i - 2], o[i - 2]) &&
                  ((c1 == 1 && c3 == -1 && cl[i] < o[i - 2]) ||            /* 3rd closes out, */
                   (c1 == -1 && c3 == 1 && cl[i] > o[i - 2])) &&           /* opposite the 1st */
                  fc_ta_real_body(o, cl, i - 2) > fc_ta_candle_total_avg(&blong, c->in, i - 2) &&
                  fc_ta_real_body(o, cl, i - 1) <= fc_ta_candle_total_avg(&bshort, c->in, i - 1);
        c->out[0][i] = hit ? (double)(-c1 * 100) : 0.0;
        fc_ta_candle_total_step(&blong, c->in, i);
        fc_ta_candle_total_step(&bshort, c->in, i);
    }
}

/* ------------------------------------------------- CDL3LINESTRIKE */

FC_HD int fc_ta_cdl3linestrike_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_period(FC_TA_NEAR) + 3;
}

/* Candle a opens within or near candle b's body. */
FC_HD_INLINE int fc_ta_pta_opens_near(const double *o, const double *cl, int a, int b, double near) {
    return o[a] >= fc_ta_candle_min(o[b], cl[b]) - near && o[a] <= fc_ta_candle_max(o[b], cl[b]) + near;
}

FC_HD void fc_ta_cdl3linestrike(const fc_ta_call *c) {
    const double *o = c->in[0], *cl = c->in[3];
    int start = fc_ta_pta_begin(c, fc_ta_cdl3linestrike_lookback(c->par));
    fc_ta_candle_total near3 = fc_ta_candle_total_at(FC_TA_NEAR, 3, start, c->in);
    fc_ta_candle_total near2 = fc_ta_candle_total_at(FC_TA_NEAR, 2, start, c->in);
    for (int i = start; i < c->n; i++) {
        int c3 = fc_ta_color(o, cl, i - 1);
        int hit = fc_ta_color(o, cl, i - 3) == fc_ta_color(o, cl, i - 2) &&
                  fc_ta_color(o, cl, i - 2) == c3 && fc_ta_color(o, cl, i) == -c3 &&
                  fc_ta_pta_opens_near(o, cl, i - 2, i - 3, fc_ta_candle_total_avg(&near3, c->in, i - 3)) &&
                  fc_ta_pta_opens_near(o, cl, i - 1, i - 2, fc_ta_candle_total_avg(&near2, c->in, i - 2)) &&
                  ((c3 == 1 && cl[i - 1] > cl[i - 2] && cl[i - 2] > cl[i - 3] &&
                    o[i] > cl[i - 1] && cl[i] < o[i - 3]) ||
                   (c3 == -1 && cl[i - 1] < cl[i - 2] && cl[i - 2] < cl[i - 3] &&
                    o[i] < cl[i - 1] && cl[i] > o[i - 3]));
        c->out[0][i] = hit ? (double)(c3 * 100) : 0.0;
        fc_ta_candle_total_step(&near3, c->in, i);
        fc_ta_candle_total_step(&near2, c->in, i);
    }
}

/* ------------------------------------------------- CDL3OUTSIDE */

FC_HD int fc_ta_cdl3outside_lookback(const double *par) {
    (void)par;
    return 3;
}

FC_HD void fc_ta_cdl3outside(const fc_ta_call *c) {
    const double *o = c->in[0], *cl = c->in[3];
    int start = fc_ta_pta_begin(c, fc_ta_cdl3outside_lookback(c->par));
    for (int i = start; i < c->n; i++) {
        int c1 = fc_ta_color(o, cl, i - 2), c2 = fc_ta_color(o, cl, i - 1);
        int hit = (c2 == 1 && c1 == -1 && cl[i - 1] > o[i - 2] && o[i - 1] < cl[i - 2] && cl[i] > cl[i - 1]) ||
                  (c2 == -1 && c1 == 1 && o[i - 1] > cl[i - 2] && cl[i - 1] < o[i - 2] && cl[i] < cl[i - 1]);
        c->out[0][i] = hit ? (double)(c2 * 100) : 0.0;
    }
}

/* ------------------------------------------------- CDL3STARSINSOUTH */

FC_HD int fc_ta_cdl3starsinsouth_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_longest(FC_TA_SHADOW_VERY_SHORT, FC_TA_SHADOW_LONG, FC_TA_BODY_LONG,
                             FC_TA_BODY_SHORT, -1) + 2;
}

FC_HD void fc_ta_cdl3starsinsouth(const fc_ta_call *c) {
    const double *o = c->in[0], *h = c->in[1], *l = c->in[2], *cl = c->in[3];
    const double *const *in = c->in;
    int start = fc_ta_pta_begin(c, fc_ta_cdl3starsinsouth_lookback(c->par));
    fc_ta_candle_total blong = fc_ta_candle_total_at(FC_TA_BODY_LONG, 2, start, in);
    fc_ta_candle_total slong = fc_ta_candle_total_at(FC_TA_SHADOW_LONG, 2, start, in);
    fc_ta_candle_total vshort1 = fc_ta_candle_total_at(FC_TA_SHADOW_VERY_SHORT, 1, start, in);
    fc_ta_candle_total vshort0 = fc_ta_candle_total_at(FC_TA_SHADOW_VERY_SHORT, 0, start, in);
    fc_ta_candle_total bshort = fc_ta_candle_total_at(FC_TA_BODY_SHORT, 0, start, in);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_color(o, cl, i - 2) == -1 && fc_ta_color(o, cl, i - 1) == -1 &&
                  fc_ta_color(o, cl, i) == -1 &&
                  /* 1st: long, with a long lower shadow */
                  fc_ta_real_body(o, cl, i - 2) > fc_ta_candle_total_avg(&blong, in, i - 2) &&
                  fc_ta_lower_shadow(o, l, cl, i - 2) > fc_ta_candle_total_avg(&slong, in, i - 2) &&
                  /* 2nd: smaller, opens above the 1st close within its range, trades
                   * below that close but not below its low, and has a lower shadow */
                  fc_ta_real_body(o, cl, i - 1) < fc_ta_real_body(o, cl, i - 2) &&
                  o[i - 1] > cl[i - 2] && o[i - 1] <= h[i - 2] &&
                  l[i - 1] < cl[i - 2] && l[i - 1] >= l[i - 2] &&
                  fc_ta_lower_shadow(o, l, cl, i - 1) > fc_ta_candle_total_avg(&vshort1, in, i - 1) &&
                  /* 3rd: small marubozu inside the 2nd's range */
                  fc_ta_real_body(o, cl, i) < fc_ta_candle_total_avg(&bshort, in, i) &&
                  fc_ta_lower_shadow(o, l, cl, i) < fc_ta_candle_total_avg(&vshort0, in, i) &&
                  fc_ta_upper_shadow(o, h, cl, i) < fc_ta_candle_total_avg(&vshort0, in, i) &&
                  l[i] > l[i - 1] && h[i] < h[i - 1];
        c->out[0][i] = hit ? 100.0 : 0.0;
        fc_ta_candle_total_step(&blong, in, i);
        fc_ta_candle_total_step(&slong, in, i);
        fc_ta_candle_total_step(&vshort1, in, i);
        fc_ta_candle_total_step(&vshort0, in, i);
        fc_ta_candle_total_step(&bshort, in, i);
    }
}

/* ------------------------------------------------- CDL3WHITESOLDIERS */

FC_HD int fc_ta_cdl3whitesoldiers_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_longest(FC_TA_SHADOW_VERY_SHORT, FC_TA_BODY_SHORT, FC_TA_FAR, FC_TA_NEAR, -1) + 2;
}

FC_HD void fc_ta_cdl3whitesoldiers(const fc_ta_call *c) {
    const double *o = c->in[0], *h = c->in[1], *cl = c->in[3];
    const double *const *in = c->in;
    int start = fc_ta_pta_begin(c, fc_ta_cdl3whitesoldiers_lookback(c->par));
    fc_ta_candle_total vshort[3], near[3], far[3];   /* [k]: candle i - k */
    for (int k = 0; k < 3; k++) {
        vshort[k] = fc_ta_candle_total_at(FC_TA_SHADOW_VERY_SHORT, k, start, in);
        near[k] = fc_ta_candle_total_at(FC_TA_NEAR, k, start, in);
        far[k] = fc_ta_candle_total_at(FC_TA_FAR, k, start, in);
    }
    fc_ta_candle_total bshort = fc_ta_candle_total_at(FC_TA_BODY_SHORT, 0, start, in);
    for (int i = start; i < c->n; i++) {
        double b1 = fc_ta_real_body(o, cl, i - 2), b2 = fc_ta_real_body(o, cl, i - 1);
        double b3 = fc_ta_real_body(o, cl, i);
        int hit = 1;
        for (int k = 2; k >= 0 && hit; k--)   /* white, very short upper shadow */
            hit = fc_ta_color(o, cl, i - k) == 1 &&
                  fc_ta_upper_shadow(o, h, cl, i - k) < fc_ta_candle_total_avg(&vshort[k], in, i - k);
        hit = hit && cl[i] > cl[i - 1] && cl[i - 1] > cl[i - 2] &&
              /* each opens within or near the prior body */
              o[i - 1] > o[i - 2] && o[i - 1] <= cl[i - 2] + fc_ta_candle_total_avg(&near[2], in, i - 2) &&
              o[i] > o[i - 1] && o[i] <= cl[i - 1] + fc_ta_candle_total_avg(&near[1], in, i - 1) &&
              /* each not far shorter than the prior */
              b2 > b1 - fc_ta_candle_total_avg(&far[2], in, i - 2) &&
              b3 > b2 - fc_ta_candle_total_avg(&far[1], in, i - 1) &&
              b3 > fc_ta_candle_total_avg(&bshort, in, i);   /* 3rd not short */
        c->out[0][i] = hit ? 100.0 : 0.0;
        for (int k = 2; k >= 0; k--) fc_ta_candle_total_step(&vshort[k], in, i);
        for (int k = 2; k >= 1; k--) {
            fc_ta_candle_total_step(&far[k], in, i);
            fc_ta_candle_total_step(&near[k], in, i);
        }
        fc_ta_candle_total_step(&bshort, in, i);
    }
}

/* ------------------------------------------------- CDLABANDONEDBABY */

FC_HD int fc_ta_cdlabandonedbaby_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_longest(FC_TA_BODY_DOJI, FC_TA_BODY_LONG, FC_TA_BODY_SHORT, -1, -1) + 2;
}

/* The levels a candle must close beyond to move `pen` of candle b's body
 * into it: close - body * pen below a white b, close + body * pen above a
 * black one. Probing the TA-Lib wheel shows its compiler fused the second
 * into one FMA and left the first as two roundings. */
FC_HD_INLINE double fc_ta_pta_pen_below(const double *o, const double *cl, int b, double pen) {
    return cl[b] - fc_ta_real_body(o, cl, b) * pen;
}
FC_HD_INLINE double fc_ta_pta_pen_above(const double *o, const double *cl, int b, double pen) {
    return fma(fc_ta_real_body(o, cl, b), pen, cl[b]);
}

FC_HD void fc_ta_cdlabandonedbaby(const fc_ta_call *c) {
    const double *o = c->in[0], *h = c->in[1], *l = c->in[2], *cl = c->in[3];
    const double *const *in = c->in;
    double pen = c->par[0];
    int start = fc_ta_pta_begin(c, fc_ta_cdlabandonedbaby_lookback(c->par));
    fc_ta_candle_total blong = fc_ta_candle_total_at(FC_TA_BODY_LONG, 2, start, in);
    fc_ta_candle_total doji = fc_ta_candle_total_at(FC_TA_BODY_DOJI, 1, start, in);
    fc_ta_candle_total bshort = fc_ta_candle_total_at(FC_TA_BODY_SHORT, 0, start, in);
    for (int i = start; i < c->n; i++) {
        int c1 = fc_ta_color(o, cl, i - 2), c3 = fc_ta_color(o, cl, i);
        int hit = fc_ta_real_body(o, cl, i - 2) > fc_ta_candle_total_avg(&blong, in, i - 2) &&
                  fc_ta_real_body(o, cl, i - 1) <= fc_ta_candle_total_avg(&doji, in, i - 1) &&
                  fc_ta_real_body(o, cl, i) > fc_ta_candle_total_avg(&bshort, in, i) &&
                  ((c1 == 1 && c3 == -1 && cl[i] < fc_ta_pta_pen_below(o, cl, i - 2, pen) &&
                    fc_ta_candle_gap_up(h, l, i - 1, i - 2) && fc_ta_candle_gap_down(h, l, i, i - 1)) ||
                   (c1 == -1 && c3 == 1 && cl[i] > fc_ta_pta_pen_above(o, cl, i - 2, pen) &&
                    fc_ta_candle_gap_down(h, l, i - 1, i - 2) && fc_ta_candle_gap_up(h, l, i, i - 1)));
        c->out[0][i] = hit ? (double)(c3 * 100) : 0.0;
        fc_ta_candle_total_step(&blong, in, i);
        fc_ta_candle_total_step(&doji, in, i);
        fc_ta_candle_total_step(&bshort, in, i);
    }
}

/* ------------------------------------------------- CDLADVANCEBLOCK */

FC_HD int fc_ta_cdladvanceblock_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_longest(FC_TA_SHADOW_LONG, FC_TA_SHADOW_SHORT, FC_TA_FAR, FC_TA_NEAR, FC_TA_BODY_LONG) + 2;
}

FC_HD void fc_ta_cdladvanceblock(const fc_ta_call *c) {
    const double *o = c->in[0], *h = c->in[1], *cl = c->in[3];
    const double *const *in = c->in;
    int start = fc_ta_pta_begin(c, fc_ta_cdladvanceblock_lookback(c->par));
    fc_ta_candle_total sshort[3], slong[2], near[3], far[3];   /* [k]: candle i - k */
    for (int k = 0; k < 3; k++) {
        sshort[k] = fc_ta_candle_total_at(FC_TA_SHADOW_SHORT, k, start, in);
        near[k] = fc_ta_candle_total_at(FC_TA_NEAR, k, start, in);
        far[k] = fc_ta_candle_total_at(FC_TA_FAR, k, start, in);
        if (k < 2) slong[k] = fc_ta_candle_total_at(FC_TA_SHADOW_LONG, k, start, in);
    }
    fc_ta_candle_total blong = fc_ta_candle_total_at(FC_TA_BODY_LONG, 2, start, in);
    for (int i = start; i < c->n; i++) {
        double b1 = fc_ta_real_body(o, cl, i - 2), b2 = fc_ta_real_body(o, cl, i - 1);
        double b3 = fc_ta_real_body(o, cl, i);
        double us2 = fc_ta_upper_shadow(o, h, cl, i - 1), us3 = fc_ta_upper_shadow(o, h, cl, i);
        int hit = fc_ta_color(o, cl, i - 2) == 1 && fc_ta_color(o, cl, i - 1) == 1 &&
                  fc_ta_color(o, cl, i) == 1 && cl[i] > cl[i - 1] && cl[i - 1] > cl[i - 2] &&
                  /* each opens within or near the prior body */
                  o[i - 1] > o[i - 2] && o[i - 1] <= cl[i - 2] + fc_ta_candle_total_avg(&near[2], in, i - 2) &&
                  o[i] > o[i - 1] && o[i] <= cl[i - 1] + fc_ta_candle_total_avg(&near[1], in, i - 1) &&
                  /* 1st: long, short upper shadow */
                  b1 > fc_ta_candle_total_avg(&blong, in, i - 2) &&
                  fc_ta_upper_shadow(o, h, cl, i - 2) < fc_ta_candle_total_avg(&sshort[2], in, i - 2) &&
                  /* weakening: 2nd far smaller and 3rd not longer; or 3rd far smaller;
                   * or bodies shrinking with an upper shadow not short; or 3rd smaller
                   * with a long upper shadow */
                  ((b2 < b1 - fc_ta_candle_total_avg(&far[2], in, i - 2) &&
                    b3 < b2 + fc_ta_candle_total_avg(&near[1], in, i - 1)) ||
                   b3 < b2 - fc_ta_candle_total_avg(&far[1], in, i - 1) ||
                   (b3 < b2 && b2 < b1 &&
                    (us3 > fc_ta_candle_total_avg(&sshort[0], in, i) ||
                     us2 > fc_ta_candle_total_avg(&sshort[1], in, i - 1))) ||
                   (b3 < b2 && us3 > fc_ta_candle_total_avg(&slong[0], in, i)));
        c->out[0][i] = hit ? -100.0 : 0.0;
        for (int k = 2; k >= 0; k--) fc_ta_candle_total_step(&sshort[k], in, i);
        for (int k = 1; k >= 0; k--) fc_ta_candle_total_step(&slong[k], in, i);
        for (int k = 2; k >= 1; k--) {
            fc_ta_candle_total_step(&far[k], in, i);
            fc_ta_candle_total_step(&near[k], in, i);
        }
        fc_ta_candle_total_step(&blong, in, i);
    }
}

/* ------------------------------------------------- CDLBELTHOLD */

FC_HD int fc_ta_cdlbelthold_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_longest(FC_TA_BODY_LONG, FC_TA_SHADOW_VERY_SHORT, -1, -1, -1);
}

/* A long body with a very short shadow at one end, signed by its colour:
 * at the open end (BELTHOLD: the lower shadow of a white candle, the upper
 * of a black one), or at the close end (CLOSINGMARUBOZU). */
FC_HD_INLINE void fc_ta_pta_shaved_end(const fc_ta_call *c, int open_end) {
    const double *o = c->in[0], *h = c->in[1], *l = c->in[2], *cl = c->in[3];
    const double *const *in = c->in;
    int start = fc_ta_pta_begin(c, fc_ta_pta_longest(FC_TA_BODY_LONG, FC_TA_SHADOW_VERY_SHORT, -1, -1, -1));
    fc_ta_candle_total blong = fc_ta_candle_total_at(FC_TA_BODY_LONG, 0, start, in);
    fc_ta_candle_total vshort = fc_ta_candle_total_at(FC_TA_SHADOW_VERY_SHORT, 0, start, in);
    for (int i = start; i < c->n; i++) {
        int col = fc_ta_color(o, cl, i);
        double vs = fc_ta_candle_total_avg(&vshort, in, i);
        double lower = fc_ta_lower_shadow(o, l, cl, i), upper = fc_ta_upper_shadow(o, h, cl, i);
        double shaved = (col == 1) == (open_end != 0) ? lower : upper;
        int hit = fc_ta_real_body(o, cl, i) > fc_ta_candle_total_avg(&blong, in, i) && shaved < vs;
        c->out[0][i] = hit ? (double)(col * 100) : 0.0;
        fc_ta_candle_total_step(&blong, in, i);
        fc_ta_candle_total_step(&vshort, in, i);
    }
}

FC_HD void fc_ta_cdlbelthold(const fc_ta_call *c) { fc_ta_pta_shaved_end(c, 1); }

/* ------------------------------------------------- CDLBREAKAWAY */

FC_HD int fc_ta_cdlbreakaway_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_period(FC_TA_BODY_LONG) + 4;
}

FC_HD void fc_ta_cdlbreakaway(const fc_ta_call *c) {
    const double *o = c->in[0], *h = c->in[1], *l = c->in[2], *cl = c->in[3];
    int start = fc_ta_pta_begin(c, fc_ta_cdlbreakaway_lookback(c->par));
    fc_ta_candle_total blong = fc_ta_candle_total_at(FC_TA_BODY_LONG, 4, start, c->in);
    for (int i = start; i < c->n; i++) {
        int c1 = fc_ta_color(o, cl, i - 4);
        int hit = c1 == fc_ta_color(o, cl, i - 3) && fc_ta_color(o, cl, i - 3) == fc_ta_color(o, cl, i - 1) &&
                  fc_ta_color(o, cl, i - 1) == -fc_ta_color(o, cl, i) &&
                  fc_ta_real_body(o, cl, i - 4) > fc_ta_candle_total_avg(&blong, c->in, i - 4) &&
                  /* 2nd gaps away, 3rd and 4th go on, 5th closes inside the gap */
                  ((c1 == -1 && fc_ta_body_gap_down(o, cl, i - 3, i - 4) &&
                    h[i - 2] < h[i - 3] && l[i - 2] < l[i - 3] && h[i - 1] < h[i - 2] && l[i - 1] < l[i - 2] &&
                    cl[i] > o[i - 3] && cl[i] < cl[i - 4]) ||
                   (c1 == 1 && fc_ta_body_gap_up(o, cl, i - 3, i - 4) &&
                    h[i - 2] > h[i - 3] && l[i - 2] > l[i - 3] && h[i - 1] > h[i - 2] && l[i - 1] > l[i - 2] &&
                    cl[i] < o[i - 3] && cl[i] > cl[i - 4]));
        c->out[0][i] = hit ? (double)(fc_ta_color(o, cl, i) * 100) : 0.0;
        fc_ta_candle_total_step(&blong, c->in, i);
    }
}

/* ------------------------------------------------- CDLCLOSINGMARUBOZU */

FC_HD int fc_ta_cdlclosingmarubozu_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_longest(FC_TA_BODY_LONG, FC_TA_SHADOW_VERY_SHORT, -1, -1, -1);
}

FC_HD void fc_ta_cdlclosingmarubozu(const fc_ta_call *c) { fc_ta_pta_shaved_end(c, 0); }

/* ------------------------------------------------- CDLCONCEALBABYSWALL */

FC_HD int fc_ta_cdlconcealbabyswall_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_period(FC_TA_SHADOW_VERY_SHORT) + 3;
}

FC_HD void fc_ta_cdlconcealbabyswall(const fc_ta_call *c) {
    const double *o = c->in[0], *h = c->in[1], *l = c->in[2], *cl = c->in[3];
    const double *const *in = c->in;
    int start = fc_ta_pta_begin(c, fc_ta_cdlconcealbabyswall_lookback(c->par));
    fc_ta_candle_total vshort[4];   /* [k]: candle i - k, k = 1..3 */
    for (int k = 1; k < 4; k++) vshort[k] = fc_ta_candle_total_at(FC_TA_SHADOW_VERY_SHORT, k, start, in);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_color(o, cl, i - 3) == -1 && fc_ta_color(o, cl, i - 2) == -1 &&
                  fc_ta_color(o, cl, i - 1) == -1 && fc_ta_color(o, cl, i) == -1;
        for (int k = 3; k >= 2 && hit; k--) {   /* 1st, 2nd: marubozu */
            double vs = fc_ta_candle_total_avg(&vshort[k], in, i - k);
            hit = fc_ta_lower_shadow(o, l, cl, i - k) < vs && fc_ta_upper_shadow(o, h, cl, i - k) < vs;
        }
        hit = hit && fc_ta_body_gap_down(o, cl, i - 1, i - 2) &&   /* 3rd gaps down, */
              fc_ta_upper_shadow(o, h, cl, i - 1) > fc_ta_candle_total_avg(&vshort[1], in, i - 1) &&
              h[i - 1] > cl[i - 2] &&                                /* its shadow into the 2nd body */
              h[i] > h[i - 1] && l[i] < l[i - 1];                    /* 4th engulfs the 3rd */
        c->out[0][i] = hit ? 100.0 : 0.0;
        for (int k = 3; k >= 1; k--) fc_ta_candle_total_step(&vshort[k], in, i);
    }
}

/* ------------------------------------------------- CDLCOUNTERATTACK */

FC_HD int fc_ta_cdlcounterattack_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_longest(FC_TA_EQUAL, FC_TA_BODY_LONG, -1, -1, -1) + 1;
}

FC_HD void fc_ta_cdlcounterattack(const fc_ta_call *c) {
    const double *o = c->in[0], *cl = c->in[3];
    const double *const *in = c->in;
    int start = fc_ta_pta_begin(c, fc_ta_cdlcounterattack_lookback(c->par));
    fc_ta_candle_total equal = fc_ta_candle_total_at(FC_TA_EQUAL, 1, start, in);
    fc_ta_candle_total blong1 = fc_ta_candle_total_at(FC_TA_BODY_LONG, 1, start, in);
    fc_ta_candle_total blong0 = fc_ta_candle_total_at(FC_TA_BODY_LONG, 0, start, in);
    for (int i = start; i < c->n; i++) {
        double eq = fc_ta_candle_total_avg(&equal, in, i - 1);
        int hit = fc_ta_color(o, cl, i - 1) == -fc_ta_color(o, cl, i) &&
                  fc_ta_real_body(o, cl, i - 1) > fc_ta_candle_total_avg(&blong1, in, i - 1) &&
                  fc_ta_real_body(o, cl, i) > fc_ta_candle_total_avg(&blong0, in, i) &&
                  cl[i] <= cl[i - 1] + eq && cl[i] >= cl[i - 1] - eq;   /* equal closes */
        c->out[0][i] = hit ? (double)(fc_ta_color(o, cl, i) * 100) : 0.0;
        fc_ta_candle_total_step(&equal, in, i);
        fc_ta_candle_total_step(&blong1, in, i);
        fc_ta_candle_total_step(&blong0, in, i);
    }
}

/* ------------------------------------------------- CDLDARKCLOUDCOVER */

FC_HD int fc_ta_cdldarkcloudcover_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_period(FC_TA_BODY_LONG) + 1;
}

FC_HD void fc_ta_cdldarkcloudcover(const fc_ta_call *c) {
    const double *o = c->in[0], *h = c->in[1], *cl = c->in[3];
    double pen = c->par[0];
    int start = fc_ta_pta_begin(c, fc_ta_cdldarkcloudcover_lookback(c->par));
    fc_ta_candle_total blong = fc_ta_candle_total_at(FC_TA_BODY_LONG, 1, start, c->in);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_color(o, cl, i - 1) == 1 &&
                  fc_ta_real_body(o, cl, i - 1) > fc_ta_candle_total_avg(&blong, c->in, i - 1) &&
                  fc_ta_color(o, cl, i) == -1 &&
                  o[i] > h[i - 1] &&                   /* opens above the prior high */
                  cl[i] > o[i - 1] &&                  /* closes within the prior body, */
                  cl[i] < fc_ta_pta_pen_below(o, cl, i - 1, pen);   /* pen of it down */
        c->out[0][i] = hit ? -100.0 : 0.0;
        fc_ta_candle_total_step(&blong, c->in, i);
    }
}

/* ------------------------------------------------- CDLDOJI */

FC_HD int fc_ta_cdldoji_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_period(FC_TA_BODY_DOJI);
}

FC_HD void fc_ta_cdldoji(const fc_ta_call *c) {
    const double *o = c->in[0], *cl = c->in[3];
    int start = fc_ta_pta_begin(c, fc_ta_cdldoji_lookback(c->par));
    fc_ta_candle_total doji = fc_ta_candle_total_at(FC_TA_BODY_DOJI, 0, start, c->in);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_real_body(o, cl, i) <= fc_ta_candle_total_avg(&doji, c->in, i);
        c->out[0][i] = hit ? 100.0 : 0.0;
        fc_ta_candle_total_step(&doji, c->in, i);
    }
}

/* ------------------------------------------------- CDLDOJISTAR */

FC_HD int fc_ta_cdldojistar_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_longest(FC_TA_BODY_DOJI, FC_TA_BODY_LONG, -1, -1, -1) + 1;
}

/* TA-Lib writes -100 after a white candle (star gapping up) and 100 after
 * a black one: the sign is minus the first candle's colour. */
FC_HD void fc_ta_cdldojistar(const fc_ta_call *c) {
    const double *o = c->in[0], *cl = c->in[3];
    const double *const *in = c->in;
    int start = fc_ta_pta_begin(c, fc_ta_cdldojistar_lookback(c->par));
    fc_ta_candle_total blong = fc_ta_candle_total_at(FC_TA_BODY_LONG, 1, start, in);
    fc_ta_candle_total doji = fc_ta_candle_total_at(FC_TA_BODY_DOJI, 0, start, in);
    for (int i = start; i < c->n; i++) {
        int c1 = fc_ta_color(o, cl, i - 1);
        int hit = fc_ta_real_body(o, cl, i - 1) > fc_ta_candle_total_avg(&blong, in, i - 1) &&
                  fc_ta_real_body(o, cl, i) <= fc_ta_candle_total_avg(&doji, in, i) &&
                  ((c1 == 1 && fc_ta_body_gap_up(o, cl, i, i - 1)) ||
                   (c1 == -1 && fc_ta_body_gap_down(o, cl, i, i - 1)));
        c->out[0][i] = hit ? (double)(-c1 * 100) : 0.0;
        fc_ta_candle_total_step(&blong, in, i);
        fc_ta_candle_total_step(&doji, in, i);
    }
}

/* ------------------------------------------------- CDLDRAGONFLYDOJI */

FC_HD int fc_ta_cdldragonflydoji_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_longest(FC_TA_BODY_DOJI, FC_TA_SHADOW_VERY_SHORT, -1, -1, -1);
}

FC_HD void fc_ta_cdldragonflydoji(const fc_ta_call *c) {
    const double *o = c->in[0], *h = c->in[1], *l = c->in[2], *cl = c->in[3];
    const double *const *in = c->in;
    int start = fc_ta_pta_begin(c, fc_ta_cdldragonflydoji_lookback(c->par));
    fc_ta_candle_total doji = fc_ta_candle_total_at(FC_TA_BODY_DOJI, 0, start, in);
    fc_ta_candle_total vshort = fc_ta_candle_total_at(FC_TA_SHADOW_VERY_SHORT, 0, start, in);
    for (int i = start; i < c->n; i++) {
        double vs = fc_ta_candle_total_avg(&vshort, in, i);
        int hit = fc_ta_real_body(o, cl, i) <= fc_ta_candle_total_avg(&doji, in, i) &&
                  fc_ta_upper_shadow(o, h, cl, i) < vs && fc_ta_lower_shadow(o, l, cl, i) > vs;
        c->out[0][i] = hit ? 100.0 : 0.0;
        fc_ta_candle_total_step(&doji, in, i);
        fc_ta_candle_total_step(&vshort, in, i);
    }
}

/* ------------------------------------------------- CDLENGULFING */

/* 2 in TA-Lib, though the pattern reads two candles only. */
FC_HD int fc_ta_cdlengulfing_lookback(const double *par) {
    (void)par;
    return 2;
}

/* 100 when the second body engulfs the first strictly, 80 when the two
 * match at one end. */
FC_HD void fc_ta_cdlengulfing(const fc_ta_call *c) {
    const double *o = c->in[0], *cl = c->in[3];
    int start = fc_ta_pta_begin(c, fc_ta_cdlengulfing_lookback(c->par));
    for (int i = start; i < c->n; i++) {
        int c1 = fc_ta_color(o, cl, i - 1), c2 = fc_ta_color(o, cl, i);
        int hit = (c2 == 1 && c1 == -1 &&
                   ((cl[i] >= o[i - 1] && o[i] < cl[i - 1]) || (cl[i] > o[i - 1] && o[i] <= cl[i - 1]))) ||
                  (c2 == -1 && c1 == 1 &&
                   ((o[i] >= cl[i - 1] && cl[i] < o[i - 1]) || (o[i] > cl[i - 1] && cl[i] <= o[i - 1])));
        int strict = o[i] != cl[i - 1] && cl[i] != o[i - 1];
        c->out[0][i] = hit ? (double)(c2 * (strict ? 100 : 80)) : 0.0;
    }
}

/* ------------------------------------------------- CDLEVENINGDOJISTAR */

FC_HD int fc_ta_cdleveningdojistar_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_longest(FC_TA_BODY_DOJI, FC_TA_BODY_LONG, FC_TA_BODY_SHORT, -1, -1) + 2;
}

FC_HD void fc_ta_cdleveningdojistar(const fc_ta_call *c) {
    const double *o = c->in[0], *cl = c->in[3];
    const double *const *in = c->in;
    double pen = c->par[0];
    int start = fc_ta_pta_begin(c, fc_ta_cdleveningdojistar_lookback(c->par));
    fc_ta_candle_total blong = fc_ta_candle_total_at(FC_TA_BODY_LONG, 2, start, in);
    fc_ta_candle_total doji = fc_ta_candle_total_at(FC_TA_BODY_DOJI, 1, start, in);
    fc_ta_candle_total bshort = fc_ta_candle_total_at(FC_TA_BODY_SHORT, 0, start, in);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_color(o, cl, i - 2) == 1 && fc_ta_color(o, cl, i) == -1 &&
                  fc_ta_body_gap_up(o, cl, i - 1, i - 2) &&
                  cl[i] < fc_ta_pta_pen_below(o, cl, i - 2, pen) &&
                  fc_ta_real_body(o, cl, i - 2) > fc_ta_candle_total_avg(&blong, in, i - 2) &&
                  fc_ta_real_body(o, cl, i - 1) <= fc_ta_candle_total_avg(&doji, in, i - 1) &&
                  fc_ta_real_body(o, cl, i) > fc_ta_candle_total_avg(&bshort, in, i);
        c->out[0][i] = hit ? -100.0 : 0.0;
        fc_ta_candle_total_step(&blong, in, i);
        fc_ta_candle_total_step(&doji, in, i);
        fc_ta_candle_total_step(&bshort, in, i);
    }
}

/* ------------------------------------------------- CDLEVENINGSTAR */

FC_HD int fc_ta_cdleveningstar_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_longest(FC_TA_BODY_SHORT, FC_TA_BODY_LONG, -1, -1, -1) + 2;
}

FC_HD void fc_ta_cdleveningstar(const fc_ta_call *c) {
    const double *o = c->in[0], *cl = c->in[3];
    const double *const *in = c->in;
    double pen = c->par[0];
    int start = fc_ta_pta_begin(c, fc_ta_cdleveningstar_lookback(c->par));
    fc_ta_candle_total blong = fc_ta_candle_total_at(FC_TA_BODY_LONG, 2, start, in);
    fc_ta_candle_total bshort1 = fc_ta_candle_total_at(FC_TA_BODY_SHORT, 1, start, in);
    fc_ta_candle_total bshort0 = fc_ta_candle_total_at(FC_TA_BODY_SHORT, 0, start, in);
    for (int i = start; i < c->n; i++) {
        int hit = fc_ta_color(o, cl, i - 2) == 1 && fc_ta_color(o, cl, i) == -1 &&
                  fc_ta_body_gap_up(o, cl, i - 1, i - 2) &&
                  cl[i] < fc_ta_pta_pen_below(o, cl, i - 2, pen) &&
                  fc_ta_real_body(o, cl, i - 2) > fc_ta_candle_total_avg(&blong, in, i - 2) &&
                  fc_ta_real_body(o, cl, i - 1) <= fc_ta_candle_total_avg(&bshort1, in, i - 1) &&
                  fc_ta_real_body(o, cl, i) > fc_ta_candle_total_avg(&bshort0, in, i);
        c->out[0][i] = hit ? -100.0 : 0.0;
        fc_ta_candle_total_step(&blong, in, i);
        fc_ta_candle_total_step(&bshort1, in, i);
        fc_ta_candle_total_step(&bshort0, in, i);
    }
}

/* ------------------------------------------------- CDLGAPSIDESIDEWHITE */

FC_HD int fc_ta_cdlgapsidesidewhite_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_longest(FC_TA_NEAR, FC_TA_EQUAL, -1, -1, -1) + 2;
}

FC_HD void fc_ta_cdlgapsidesidewhite(const fc_ta_call *c) {
    const double *o = c->in[0], *cl = c->in[3];
    const double *const *in = c->in;
    int start = fc_ta_pta_begin(c, fc_ta_cdlgapsidesidewhite_lookback(c->par));
    fc_ta_candle_total near = fc_ta_candle_total_at(FC_TA_NEAR, 1, start, in);
    fc_ta_candle_total equal = fc_ta_candle_total_at(FC_TA_EQUAL, 1, start, in);
    for (int i = start; i < c->n; i++) {
        double nr = fc_ta_candle_total_avg(&near, in, i - 1), eq = fc_ta_candle_total_avg(&equal, in, i - 1);
        double b2 = fc_ta_real_body(o, cl, i - 1), b3 = fc_ta_real_body(o, cl, i);
        int up = fc_ta_body_gap_up(o, cl, i - 1, i - 2);
        int hit = ((up && fc_ta_body_gap_up(o, cl, i, i - 2)) ||    /* both gap away from the 1st */
                   (fc_ta_body_gap_down(o, cl, i - 1, i - 2) && fc_ta_body_gap_down(o, cl, i, i - 2))) &&
                  fc_ta_color(o, cl, i - 1) == 1 && fc_ta_color(o, cl, i) == 1 &&
                  b3 >= b2 - nr && b3 <= b2 + nr &&                     /* near the same size */
                  o[i] >= o[i - 1] - eq && o[i] <= o[i - 1] + eq;       /* about the same open */
        c->out[0][i] = hit ? (up ? 100.0 : -100.0) : 0.0;
        fc_ta_candle_total_step(&near, in, i);
        fc_ta_candle_total_step(&equal, in, i);
    }
}

/* ------------------------------------------------- CDLGRAVESTONEDOJI */

FC_HD int fc_ta_cdlgravestonedoji_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_longest(FC_TA_BODY_DOJI, FC_TA_SHADOW_VERY_SHORT, -1, -1, -1);
}

FC_HD void fc_ta_cdlgravestonedoji(const fc_ta_call *c) {
    const double *o = c->in[0], *h = c->in[1], *l = c->in[2], *cl = c->in[3];
    const double *const *in = c->in;
    int start = fc_ta_pta_begin(c, fc_ta_cdlgravestonedoji_lookback(c->par));
    fc_ta_candle_total doji = fc_ta_candle_total_at(FC_TA_BODY_DOJI, 0, start, in);
    fc_ta_candle_total vshort = fc_ta_candle_total_at(FC_TA_SHADOW_VERY_SHORT, 0, start, in);
    for (int i = start; i < c->n; i++) {
        double vs = fc_ta_candle_total_avg(&vshort, in, i);
        int hit = fc_ta_real_body(o, cl, i) <= fc_ta_candle_total_avg(&doji, in, i) &&
                  fc_ta_lower_shadow(o, l, cl, i) < vs && fc_ta_upper_shadow(o, h, cl, i) > vs;
        c->out[0][i] = hit ? 100.0 : 0.0;
        fc_ta_candle_total_step(&doji, in, i);
        fc_ta_candle_total_step(&vshort, in, i);
    }
}

/* ------------------------------------------------- CDLHAMMER, CDLHANGINGMAN */

FC_HD_INLINE int fc_ta_pta_hammer_lookback(void) {
    return fc_ta_pta_longest(FC_TA_BODY_SHORT, FC_TA_SHADOW_LONG, FC_TA_SHADOW_VERY_SHORT, FC_TA_NEAR, -1) + 1;
}

/* A small body with a long lower shadow and a very short upper one, its
 * body near the prior candle's low (hammer, 100) or high (hanging man,
 * -100). */
FC_HD_INLINE void fc_ta_pta_hammer_like(const fc_ta_call *c, int hanging) {
    const double *o = c->in[0], *h = c->in[1], *l = c->in[2], *cl = c->in[3];
    const double *const *in = c->in;
    int start = fc_ta_pta_begin(c, fc_ta_pta_hammer_lookback());
    fc_ta_candle_total body = fc_ta_candle_total_at(FC_TA_BODY_SHORT, 0, start, in);
    fc_ta_candle_total slong = fc_ta_candle_total_at(FC_TA_SHADOW_LONG, 0, start, in);
    fc_ta_candle_total vshort = fc_ta_candle_total_at(FC_TA_SHADOW_VERY_SHORT, 0, start, in);
    fc_ta_candle_total near = fc_ta_candle_total_at(FC_TA_NEAR, 1, start, in);
    for (int i = start; i < c->n; i++) {
        double nr = fc_ta_candle_total_avg(&near, in, i - 1);
        int hit = fc_ta_real_body(o, cl, i) < fc_ta_candle_total_avg(&body, in, i) &&
                  fc_ta_lower_shadow(o, l, cl, i) > fc_ta_candle_total_avg(&slong, in, i) &&
                  fc_ta_upper_shadow(o, h, cl, i) < fc_ta_candle_total_avg(&vshort, in, i) &&
                  (hanging ? fc_ta_candle_min(cl[i], o[i]) >= h[i - 1] - nr
                           : fc_ta_candle_min(cl[i], o[i]) <= l[i - 1] + nr);
        c->out[0][i] = hit ? (hanging ? -100.0 : 100.0) : 0.0;
        fc_ta_candle_total_step(&body, in, i);
        fc_ta_candle_total_step(&slong, in, i);
        fc_ta_candle_total_step(&vshort, in, i);
        fc_ta_candle_total_step(&near, in, i);
    }
}

FC_HD int fc_ta_cdlhammer_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_hammer_lookback();
}
FC_HD void fc_ta_cdlhammer(const fc_ta_call *c) { fc_ta_pta_hammer_like(c, 0); }

FC_HD int fc_ta_cdlhangingman_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_hammer_lookback();
}
FC_HD void fc_ta_cdlhangingman(const fc_ta_call *c) { fc_ta_pta_hammer_like(c, 1); }

/* ------------------------------------------------- CDLHARAMI, CDLHARAMICROSS */

/* A long candle, then a short body (harami: BodyShort) or a doji (harami
 * cross: BodyDoji) inside its body: -100 / 100 against the first candle's
 * colour, -80 / 80 when the bodies meet at one end. */
FC_HD_INLINE void fc_ta_pta_harami_like(const fc_ta_call *c, int second) {
    const double *o = c->in[0], *cl = c->in[3];
    const double *const *in = c->in;
    int start = fc_ta_pta_begin(c, fc_ta_pta_longest(second, FC_TA_BODY_LONG, -1, -1, -1) + 1);
    fc_ta_candle_total blong = fc_ta_candle_total_at(FC_TA_BODY_LONG, 1, start, in);
    fc_ta_candle_total small = fc_ta_candle_total_at(second, 0, start, in);
    for (int i = start; i < c->n; i++) {
        int v = 0;
        if (fc_ta_real_body(o, cl, i - 1) > fc_ta_candle_total_avg(&blong, in, i - 1) &&
            fc_ta_real_body(o, cl, i) <= fc_ta_candle_total_avg(&small, in, i)) {
            double top2 = fc_ta_candle_max(cl[i], o[i]), top1 = fc_ta_candle_max(cl[i - 1], o[i - 1]);
            double bot2 = fc_ta_candle_min(cl[i], o[i]), bot1 = fc_ta_candle_min(cl[i - 1], o[i - 1]);
            int sign = -fc_ta_color(o, cl, i - 1);
            if (top2 < top1 && bot2 > bot1) v = sign * 100;
            else if (top2 <= top1 && bot2 >= bot1) v = sign * 80;
        }
        c->out[0][i] = (double)v;
        fc_ta_candle_total_step(&blong, in, i);
        fc_ta_candle_total_step(&small, in, i);
    }
}

FC_HD int fc_ta_cdlharami_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_longest(FC_TA_BODY_SHORT, FC_TA_BODY_LONG, -1, -1, -1) + 1;
}
FC_HD void fc_ta_cdlharami(const fc_ta_call *c) { fc_ta_pta_harami_like(c, FC_TA_BODY_SHORT); }

FC_HD int fc_ta_cdlharamicross_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_longest(FC_TA_BODY_DOJI, FC_TA_BODY_LONG, -1, -1, -1) + 1;
}
FC_HD void fc_ta_cdlharamicross(const fc_ta_call *c) { fc_ta_pta_harami_like(c, FC_TA_BODY_DOJI); }

/* ------------------------------------------------- CDLHIGHWAVE */

FC_HD int fc_ta_cdlhighwave_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_longest(FC_TA_BODY_SHORT, FC_TA_SHADOW_VERY_LONG, -1, -1, -1);
}

FC_HD void fc_ta_cdlhighwave(const fc_ta_call *c) {
    const double *o = c->in[0], *h = c->in[1], *l = c->in[2], *cl = c->in[3];
    const double *const *in = c->in;
    int start = fc_ta_pta_begin(c, fc_ta_cdlhighwave_lookback(c->par));
    fc_ta_candle_total body = fc_ta_candle_total_at(FC_TA_BODY_SHORT, 0, start, in);
    fc_ta_candle_total shadow = fc_ta_candle_total_at(FC_TA_SHADOW_VERY_LONG, 0, start, in);
    for (int i = start; i < c->n; i++) {
        double vl = fc_ta_candle_total_avg(&shadow, in, i);
        int hit = fc_ta_real_body(o, cl, i) < fc_ta_candle_total_avg(&body, in, i) &&
                  fc_ta_upper_shadow(o, h, cl, i) > vl && fc_ta_lower_shadow(o, l, cl, i) > vl;
        c->out[0][i] = hit ? (double)(fc_ta_color(o, cl, i) * 100) : 0.0;
        fc_ta_candle_total_step(&body, in, i);
        fc_ta_candle_total_step(&shadow, in, i);
    }
}

/* ------------------------------------------------- CDLHIKKAKE, CDLHIKKAKEMOD */

/* The last pattern (its bar and its 100 / -100), carried across bars: a
 * close beyond the high (low) of the candle before the pattern bar, within
 * 3 bars of it, confirms it once (200 / -200); a new pattern overrides a
 * confirmation on the same bar. TA-Lib runs this over the 3 bars before
 * the first output too, writing nothing there. */
typedef struct {
    int idx, result;
} fc_ta_pta_hikkake;

FC_HD_INLINE int fc_ta_pta_hikkake_step(fc_ta_pta_hikkake *s, const double *h, const double *l, const double *cl,
                                 int i, int found) {
    if (found) {
        s->result = h[i] < h[i - 1] ? 100 : -100;
        s->idx = i;
        return s->result;
    }
    if (i <= s->idx + 3 &&
        ((s->result > 0 && cl[i] > h[s->idx - 1]) || (s->result < 0 && cl[i] < l[s->idx - 1]))) {
        s->idx = 0;
        return s->result + (s->result > 0 ? 100 : -100);
    }
    return 0;
}

/* The third candle breaks out of the inside bar (i-1 inside i-2), down
 * (lower high and low) or up (higher high and low). */
FC_HD_INLINE int fc_ta_pta_inside_breakout(const double *h, const double *l, int i, int *down) {
    *down = h[i] < h[i - 1] && l[i] < l[i - 1];
    return h[i - 1] < h[i - 2] && l[i - 1] > l[i - 2] && (*down || (h[i] > h[i - 1] && l[i] > l[i - 1]));
}

FC_HD int fc_ta_cdlhikkake_lookback(const double *par) {
    (void)par;
    return 5;
}

FC_HD void fc_ta_cdlhikkake(const fc_ta_call *c) {
    const double *h = c->in[1], *l = c->in[2], *cl = c->in[3];
    int start = fc_ta_pta_begin(c, fc_ta_cdlhikkake_lookback(c->par)), down;
    fc_ta_pta_hikkake s = {0, 0};
    for (int i = start - 3; i < c->n; i++) {
        int v = fc_ta_pta_hikkake_step(&s, h, l, cl, i, fc_ta_pta_inside_breakout(h, l, i, &down));
        if (i >= start) c->out[0][i] = (double)v;
    }
}

FC_HD int fc_ta_cdlhikkakemod_lookback(const double *par) {
    (void)par;
    return fc_ta_pta_max(1, fc_ta_pta_period(FC_TA_NEAR)) + 5;
}

/* Hikkake with an inside bar inside an inside bar (i-2 in i-3, i-1 in
 * i-2), the 2nd candle closing near its low (bullish) or high (bearish). */
FC_HD void fc_ta_cdlhikkakemod(const fc_ta_call *c) {
    const double *h = c->in[1], *l = c->in[2], *cl = c->in[3];
    int start = fc_ta_pta_begin(c, fc_ta_cdlhikkakemod_lookback(c->par)), down;
    fc_ta_candle_total near = fc_ta_candle_total_at(FC_TA_NEAR, 2, start - 3, c->in);
    fc_ta_pta_hikkake s = {0, 0};
    for (int i = start - 3; i < c->n; i++) {
        double nr = fc_ta_candle_total_avg(&near, c->in, i - 2);
        int found = h[i - 2] < h[i - 3] && l[i - 2] > l[i - 3] && fc_ta_pta_inside_breakout(h, l, i, &down) &&
                    (down ? cl[i - 2] <= l[i - 2] + nr : cl[i - 2] >= h[i - 2] - nr);
        int v = fc_ta_pta_hikkake_step(&s, h, l, cl, i, found);
        if (i >= start) c->out[0][i] = (double)v;
        fc_ta_candle_total_step(&near, c->in, i);
    }
}

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_PATTERN_A(X) \
    X(CDL2CROWS, cdl2crows, 0) \
    X(CDL3BLACKCROWS, cdl3blackcrows, 0) \
    X(CDL3INSIDE, cdl3inside, 0) \
    X(CDL3LINESTRIKE, cdl3linestrike, 0) \
    X(CDL3OUTSIDE, cdl3outside, 0) \
    X(CDL3STARSINSOUTH, cdl3starsinsouth, 0) \
    X(CDL3WHITESOLDIERS, cdl3whitesoldiers, 0) \
    X(CDLABANDONEDBABY, cdlabandonedbaby, 0) \
    X(CDLADVANCEBLOCK, cdladvanceblock, 0) \
    X(CDLBELTHOLD, cdlbelthold, 0) \
    X(CDLBREAKAWAY, cdlbreakaway, 0) \
    X(CDLCLOSINGMARUBOZU, cdlclosingmarubozu, 0) \
    X(CDLCONCEALBABYSWALL, cdlconcealbabyswall, 0) \
    X(CDLCOUNTERATTACK, cdlcounterattack, 0) \
    X(CDLDARKCLOUDCOVER, cdldarkcloudcover, 0) \
    X(CDLDOJI, cdldoji, 0) \
    X(CDLDOJISTAR, cdldojistar, 0) \
    X(CDLDRAGONFLYDOJI, cdldragonflydoji, 0) \
    X(CDLENGULFING, cdlengulfing, 0) \
    X(CDLEVENINGDOJISTAR, cdleveningdojistar, 0) \
    X(CDLEVENINGSTAR, cdleveningstar, 0) \
    X(CDLGAPSIDESIDEWHITE, cdlgapsidesidewhite, 0) \
    X(CDLGRAVESTONEDOJI, cdlgravestonedoji, 0) \
    X(CDLHAMMER, cdlhammer, 0) \
    X(CDLHANGINGMAN, cdlhangingman, 0) \
    X(CDLHARAMI, cdlharami, 0) \
    X(CDLHARAMICROSS, cdlharamicross, 0) \
    X(CDLHIGHWAVE, cdlhighwave, 0) \
    X(CDLHIKKAKE, cdlhikkake, 0) \
    X(CDLHIKKAKEMOD, cdlhikkakemod, 0)

#endif
