/* Axis arithmetic of the SVG charts (svg_chart.h): data-to-pixel maps, tick
 * positions on numeric, logarithmic and calendar axes, and tick labels. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "data/calendar.h"
#include "report/html_text.h"
#include "report/svg_chart.h"

double fc_scale_map(const fc_scale *s, double v) {
    double a = s->d0, b = s->d1;
    if (s->log) { v = log10(v); a = log10(a); b = log10(b); }
    if (b == a) return (s->p0 + s->p1) / 2;
    return s->p0 + (v - a) / (b - a) * (s->p1 - s->p0);
}

/* The smallest of 1, 2, 5 x 10^k at least `raw`. */
static double nice_step(double raw) {
    double p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

size_t fc_ticks_linear(double lo, double hi, size_t target, double *ticks, double *step) {
    if (!(hi > lo) || target < 2) { ticks[0] = lo; *step = 1; return 1; }
    double s = nice_step((hi - lo) / (double)(target - 1));
    /* A step that rounds away under double precision would loop forever. */
    if (!(lo + s > lo) || !(hi - s < hi)) { ticks[0] = lo; *step = 1; return 1; }
    size_t n = 0;
    for (double t = ceil(lo / s - 1e-9) * s; t <= hi + s * 1e-9 && n < FC_CHART_MAX_TICKS; t += s)
        ticks[n++] = fabs(t) < s * 1e-9 ? 0 : t;   /* no "-0" label */
    *step = s;
    return n;
}

size_t fc_ticks_log(double lo, double hi, size_t target, double *ticks) {
    static const double mult[2][3] = {{1, 2, 5}, {1, 0, 0}};
    int k0 = (int)floor(log10(lo)), k1 = (int)ceil(log10(hi));
    for (int pass = 0; pass < 2; pass++) {
        size_t n = 0;
        for (int k = k0; k <= k1; k++)
            for (int m = 0; m < 3; m++) {
                double t = mult[pass][m] * pow(10, k);
                if (t > 0 && t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9) && n < FC_CHART_MAX_TICKS) ticks[n++] = t;
            }
        if (n <= target || pass == 1) return n;
    }
    return 0;
}

/* Month ticks: every `months` months from January of lo's year. */
static size_t month_ticks(double lo, double hi, int months, double *ticks) {
    fc_civil c = fc_civil_from_seconds((int64_t)floor(lo));
    int64_t m = c.year * 12;
    size_t n = 0;
    for (; n < FC_CHART_MAX_TICKS; m += months) {
        fc_civil t = {m / 12, (int)(m % 12) + 1, 1, 0};
        double s = (double)fc_seconds_from_civil(&t);
        if (s > hi) break;
        if (s >= lo) ticks[n++] = s;
    }
    return n;
}

size_t fc_ticks_calendar(double lo, double hi, size_t target, double *ticks, double *unit_seconds) {
    static const int months[] = {1, 2, 3, 6, 12, 24, 60, 120, 240, 600, 1200};
    static const double fixed[] = {3600, 2 * 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400, 14 * 86400};
    double span = hi - lo;
    if (span > 60 * 86400.0) {
        for (size_t i = 0; i < sizeof months / sizeof *months; i++)
            if (span / (months[i] * 30.44 * 86400) <= (double)target || i + 1 == sizeof months / sizeof *months) {
                *unit_seconds = months[i] * 30.44 * 86400;
                return month_ticks(lo, hi, months[i], ticks);
            }
    }
    double s = fixed[sizeof fixed / sizeof *fixed - 1];
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        if (span / fixed[i] <= (double)target) { s = fixed[i]; break; }
    size_t n = 0;
    for (double t = ceil(lo / s) * s; t <= hi && n < FC_CHART_MAX_TICKS; t += s) ticks[n++] = t;
    *unit_seconds = s;
    return n;
}

static void date_label(char *buf, size_t cap, double v, double unit) {
    fc_civil c = fc_civil_from_seconds((int64_t)floor(v));
    int hh = (int)(c.second / 3600), mm = (int)(c.second / 60 % 60);
    if (unit >= 365 * 86400.0) snprintf(buf, cap, "%lld", (long long)c.year);
    else if (unit >= 28 * 86400.0) snprintf(buf, cap, "%lld-%02d", (long long)c.year, c.month);
    else if (unit >= 86400) snprintf(buf, cap, "%lld-%02d-%02d", (long long)c.year, c.month, c.day);
    else snprintf(buf, cap, "%02d-%02d %02d:%02d", c.month, c.day, hh, mm);
}

void fc_axis_label(char *buf, size_t cap, double v, fc_axis_format fmt, double step) {
    switch (fmt) {
    case FC_AXIS_BYTES: fc_format_bytes(buf, cap, v); return;
    case FC_AXIS_DATE:
    case FC_AXIS_DATETIME: date_label(buf, cap, v, step); return;
    case FC_AXIS_NUMBER:
        /* Below 10,000 print as many decimals as the step needs, so ticks
         * 0.0005 apart do not all read "0.001". */
        if (fabs(v) < 1e4 && step > 0 && step < 1) {
            int d = (int)ceil(-log10(step) - 1e-9);
            snprintf(buf, cap, "%.*f", d > 9 ? 9 : d, v);
        } else {
            fc_format_number(buf, cap, v);
        }
        return;
    }
    snprintf(buf, cap, "?");
}
