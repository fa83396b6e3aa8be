/* TA-Lib's Cycle Indicators (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_cyc_...
 *
 * The five HT_ functions share one engine, TA-Lib's (after Ehlers'
 * MESA): a 4-bar WMA smooths the price; four Hilbert transforms (the
 * detrender, its quadrature Q1, and the jI/jQ quadratures of I1 and Q1),
 * each an FIR run separately on even and odd bars with three-slot circular
 * buffers; then the homodyne discriminator gives the period, smoothed twice
 * into smoothPeriod. Bar parity is the bar's index in the segment, as
 * TA-Lib counts it from the start of the series it is given. */
#ifndef FC_KERNELS_TA_CYCLE_H
#define FC_KERNELS_TA_CYCLE_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_ma.h"

/* One Hilbert-transform FIR, its even-bar and odd-bar halves. */
typedef struct {
    double buf[2][3];   /* a*input of the last three bars of that parity */
    double prev[2];     /* b * input two bars of that parity back */
    double input[2];    /* the last input of that parity */
} fc_ta_cyc_fir;

typedef struct {
    const double *x;
    int today, trailing;            /* next bar to read; the WMA's oldest bar */
    double wma_sub, wma_sum, wma_trailing;
    int slot;                       /* circular-buffer slot, advanced on even bars */
    fc_ta_cyc_fir detrender, q1, ji, jq;
    double i1_odd2, i1_odd3, i1_even2, i1_even3;  /* the detrender delayed */
    double prev_i2, prev_q2, re, im, period, smooth_period;
    /* this bar's values */
    double smoothed, i1, q1_value;
} fc_ta_cyc_ht;

/* The 4-bar WMA step on bar v. */
FC_HD double fc_ta_cyc_wma(fc_ta_cyc_ht *h, double v) {
    h->wma_sub += v;
    h->wma_sub -= h->wma_trailing;
    h->wma_sum += v * 4.0;
    h->wma_trailing = h->x[h->trailing++];
    double smoothed = h->wma_sum * 0.1;
    h->wma_sum -= h->wma_sub;
    return smoothed;
}

/* Starts the engine on x: the WMA primed from bars 0..2, then run over
 * `warm` more bars before the Hilbert part starts. */
FC_HD void fc_ta_cyc_init(fc_ta_cyc_ht *h, const double *x, int warm) {
    fc_ta_cyc_fir zero = {{{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}, {0.0, 0.0}, {0.0, 0.0}};
    h->detrender = h->q1 = h->ji = h->jq = zero;
    h->i1_odd2 = h->i1_odd3 = h->i1_even2 = h->i1_even3 = 0.0;
    h->prev_i2 = h->prev_q2 = h->re = h->im = h->period = h->smooth_period = 0.0;
    h->smoothed = h->i1 = h->q1_value = 0.0;
    h->slot = 0;
    h->trailing = 0;
    h->x = x;
    h->wma_sub = x[0];
    h->wma_sum = x[0];
    h->wma_sub += x[1];
    h->wma_sum += x[1] * 2.0;
    h->wma_sub += x[2];
    h->wma_sum += x[2] * 3.0;
    h->wma_trailing = 0.0;
    h->today = 3;
    for (int i = 0; i < warm; i++) h->smoothed = fc_ta_cyc_wma(h, x[h->today++]);
}

/* One FIR step on bar parity `odd`: 0.0962*v - 0.0962*v[-6] + 0.5769*v[-2]
 * - 0.5769*v[-4] (v[-k] the input k bars back), scaled by adj. */
FC_HD double fc_ta_cyc_fir_step(fc_ta_cyc_fir *f, int odd, int slot, double v, double adj) {
    double t = 0.0962 * v;
    double r = -f->buf[odd][slot];
    f->buf[odd][slot] = t;
    r += t;
    r -= f->prev[odd];
    f->prev[odd] = 0.5769 * f->input[odd];
    r += f->prev[odd];
    f->input[odd] = v;
    r *= adj;
    return r;
}

/* One bar of the engine: smoothing, Hilbert transforms, period. The fma()
 * calls are where the wheel's build fuses (adjustedPrevPeriod, Q2, I2, Re,
 * Im, period, smoothPeriod); the FIRs and the WMA are not fused. */
FC_HD void fc_ta_cyc_step(fc_ta_cyc_ht *h) {
    double adj = fma(0.075, h->period, 0.54);
    h->smoothed = fc_ta_cyc_wma(h, h->x[h->today]);
    int odd = h->today % 2 != 0;
    double i1 = odd ? h->i1_odd3 : h->i1_even3;
    double det = fc_ta_cyc_fir_step(&h->detrender, odd, h->slot, h->smoothed, adj);
    double q1 = fc_ta_cyc_fir_step(&h->q1, odd, h->slot, det, adj);
    double ji = fc_ta_cyc_fir_step(&h->ji, odd, h->slot, i1, adj);
    double jq = fc_ta_cyc_fir_step(&h->jq, odd, h->slot, q1, adj);
    if (!odd && ++h->slot == 3) h->slot = 0;
    double q2 = fma(0.2, q1 + ji, 0.8 * h->prev_q2);
    double i2 = fma(0.2, i1 - jq, 0.8 * h->prev_i2);
    if (odd) {
        h->i1_even3 = h->i1_even2;
        h->i1_even2 = det;
    } else {
        h->i1_odd3 = h->i1_odd2;
        h->i1_odd2 = det;
    }
    h->i1 = i1;
    h->q1_value = q1;
    h->re = fma(0.8, h->re, 0.2 * fma(i2, h->prev_i2, q2 * h->prev_q2));
    h->im = fma(0.8, h->im, 0.2 * ((i2 * h->prev_q2) - (q2 * h->prev_i2)));
    h->prev_q2 = q2;
    h->prev_i2 = i2;
    double last = h->period, period = h->period;
    if (h->im != 0.0 && h->re != 0.0) period = 360.0 / (atan(h->im / h->re) * (180.0 / (4.0 * atan(1.0))));
    if (period > 1.5 * last) period = 1.5 * last;
    if (period < 0.67 * last) period = 0.67 * last;
    if (period < 6) period = 6;
    else if (period > 50) period = 50;
    h->period = fma(0.2, period, 0.8 * last);
    h->smooth_period = fma(0.67, h->smooth_period, 0.33 * h->period);
}

/* ---------------------------------------------------------- HT_DCPERIOD */

FC_HD int fc_ta_ht_dcperiod_lookback(const double *par) { (void)par; return 32; }
FC_HD void fc_ta_ht_dcperiod(const fc_ta_call *c) {
    fc_ta_cyc_ht h;
    fc_ta_cyc_init(&h, c->in[0], 9);
    fc_ta_nan(c->out[0], 0, 32);
    for (; h.today < c->n; h.today++) {
        fc_ta_cyc_step(&h);
        if (h.today >= 32) c->out[0][h.today] = h.smooth_period;
    }
}

/* ------------------------------------------------------------ HT_PHASOR */

/* The in-phase (I1, the detrender three bars of the same parity back) and
 * quadrature (Q1) components. */
FC_HD int fc_ta_ht_phasor_lookback(const double *par) { (void)par; return 32; }
FC_HD void fc_ta_ht_phasor(const fc_ta_call *c) {
    fc_ta_cyc_ht h;
    fc_ta_cyc_init(&h, c->in[0], 9);
    fc_ta_nan(c->out[0], 0, 32);
    fc_ta_nan(c->out[1], 0, 32);
    for (; h.today < c->n; h.today++) {
        fc_ta_cyc_step(&h);
        if (h.today >= 32) {
            c->out[0][h.today] = h.i1;
            c->out[1][h.today] = h.q1_value;
        }
    }
}

/* ------------------------------------------ the dominant cycle's phase */

/* The last 50 smoothed prices and the dominant cycle phase (degrees). */
typedef struct {
    double price[50];
    int idx;
    double phase;
} fc_ta_cyc_dc;

/* TA-Lib's DC phase: the smoothed prices of the last int(smoothPeriod+0.5)
 * bars correlated with one sine and cosine cycle of that length; phase =
 * atan(real/imag) (kept, +-90 by the sign of real, when imag is 0), +90,
 * +360/smoothPeriod for the WMA's lag, +180 when imag < 0, -360 above
 * 315. The current bar's smoothed price is already in price[idx]. */
FC_HD void fc_ta_cyc_dc_phase(fc_ta_cyc_dc *d, double smooth_period) {
    double quarter = atan(1.0);
    double rad2deg = 45.0 / quarter, two_pi = quarter * 8.0;
    int len = (int)(smooth_period + 0.5);
    double re = 0.0, im = 0.0;
    int k = d->idx;
    for (int i = 0; i < len; i++) {
        double angle = ((double)i * two_pi) / (double)len;
        re += sin(angle) * d->price[k];
        im += cos(angle) * d->price[k];
        k = k == 0 ? 49 : k - 1;
    }
    if (fabs(im) > 0.0) {
        d->phase = atan(re / im) * rad2deg;
    } else if (fabs(im) <= 0.01) {
        if (re < 0.0) d->phase -= 90.0;
        else if (re > 0.0) d->phase += 90.0;
    }
    d->phase += 90.0;
    d->phase += 360.0 / smooth_period;
    if (im < 0.0) d->phase += 180.0;
    if (d->phase > 315.0) d->phase -= 360.0;
}

/* Starts the engine for the 63-bar HT functions: 34 WMA bars of warm-up. */
FC_HD void fc_ta_cyc_dc_init(fc_ta_cyc_ht *h, fc_ta_cyc_dc *d, const double *x) {
    fc_ta_cyc_init(h, x, 34);
    for (int i = 0; i < 50; i++) d->price[i] = 0.0;
    d->idx = 0;
    d->phase = 0.0;
}

/* One bar: the engine, the smoothed price into the ring, the phase. */
FC_HD void fc_ta_cyc_dc_step(fc_ta_cyc_ht *h, fc_ta_cyc_dc *d) {
    fc_ta_cyc_step(h);
    d->price[d->idx] = h->smoothed;
    fc_ta_cyc_dc_phase(d, h->smooth_period);
}

FC_HD void fc_ta_cyc_dc_next(fc_ta_cyc_dc *d) {
    if (++d->idx == 50) d->idx = 0;
}

FC_HD int fc_ta_ht_dcphase_lookback(const double *par) { (void)par; return 63; }
FC_HD void fc_ta_ht_dcphase(const fc_ta_call *c) {
    fc_ta_cyc_ht h;
    fc_ta_cyc_dc d;
    fc_ta_cyc_dc_init(&h, &d, c->in[0]);
    fc_ta_nan(c->out[0], 0, 63);
    for (; h.today < c->n; h.today++) {
        fc_ta_cyc_dc_step(&h, &d);
        if (h.today >= 63) c->out[0][h.today] = d.phase;
        fc_ta_cyc_dc_next(&d);
    }
}

/* -------------------------------------------------------------- HT_SINE */

/* sin(phase) and sin(phase + 45 degrees). */
FC_HD int fc_ta_ht_sine_lookback(const double *par) { (void)par; return 63; }
FC_HD void fc_ta_ht_sine(const fc_ta_call *c) {
    double deg2rad = 1.0 / (45.0 / atan(1.0));
    fc_ta_cyc_ht h;
    fc_ta_cyc_dc d;
    fc_ta_cyc_dc_init(&h, &d, c->in[0]);
    fc_ta_nan(c->out[0], 0, 63);
    fc_ta_nan(c->out[1], 0, 63);
    for (; h.today < c->n; h.today++) {
        fc_ta_cyc_dc_step(&h, &d);
        if (h.today >= 63) {
            c->out[0][h.today] = sin(d.phase * deg2rad);
            c->out[1][h.today] = sin((d.phase + 45) * deg2rad);
        }
        fc_ta_cyc_dc_next(&d);
    }
}

/* --------------------------------------------------------- HT_TRENDMODE */

/* 1 (trend) or 0 (cycle), TA-Lib's rules: trend unless the sine and
 * lead-sine crossed this bar or fewer than half a period ago, or the phase
 * advanced by between 0.67 and 1.5 times 360/smoothPeriod; but trend
 * whenever the smoothed price is 1.5% or more away from the trendline
 * (a 4-3-2-1 WMA of the raw price's mean over the dominant cycle period,
 * as in HT_TRENDLINE). */
FC_HD int fc_ta_ht_trendmode_lookback(const double *par) { (void)par; return 63; }
FC_HD void fc_ta_ht_trendmode(const fc_ta_call *c) {
    const double *x = c->in[0];
    double deg2rad = 1.0 / (45.0 / atan(1.0));
    double trend1 = 0.0, trend2 = 0.0, trend3 = 0.0;
    double sine = 0.0, lead = 0.0;
    int days = 0;
    fc_ta_cyc_ht h;
    fc_ta_cyc_dc d;
    fc_ta_cyc_dc_init(&h, &d, x);
    fc_ta_nan(c->out[0], 0, 63);
    for (; h.today < c->n; h.today++) {
        double prev_phase = d.phase;
        fc_ta_cyc_dc_step(&h, &d);
        double sp = h.smooth_period;
        double prev_sine = sine, prev_lead = lead;
        sine = sin(d.phase * deg2rad);
        lead = sin((d.phase + 45) * deg2rad);
        int len = (int)(sp + 0.5);
        double mean = 0.0;
        /* (TA-Lib reads before the series' start should len exceed the
         * bars seen; the period's slow start keeps it from doing so) */
        for (int j = 0; j < len && j <= h.today; j++) mean += x[h.today - j];
        if (len > 0) mean = mean / (double)len;
        double trendline = (4.0 * mean + 3.0 * trend1 + 2.0 * trend2 + trend3) / 10.0;
        trend3 = trend2;
        trend2 = trend1;
        trend1 = mean;
        int trend = 1;
        if ((sine > lead && prev_sine <= prev_lead) || (sine < lead && prev_sine >= prev_lead)) {
            days = 0;
            trend = 0;
        }
        days++;
        if (days < 0.5 * sp) trend = 0;
        double advance = d.phase - prev_phase;
        if (sp != 0.0 && advance > 0.67 * 360.0 / sp && advance < 1.5 * 360.0 / sp) trend = 0;
        double price = d.price[d.idx];
        if (trendline != 0.0 && fabs((price - trendline) / trendline) >= 0.015) trend = 1;
        if (h.today >= 63) c->out[0][h.today] = (double)trend;
        fc_ta_cyc_dc_next(&d);
    }
}

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_CYCLE(X) \
    X(HT_DCPERIOD, ht_dcperiod, 0) \
    X(HT_PHASOR, ht_phasor, 0) \
    X(HT_DCPHASE, ht_dcphase, 0) \
    X(HT_SINE, ht_sine, 0) \
    X(HT_TRENDMODE, ht_trendmode, 0)

#endif
