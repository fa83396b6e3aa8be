/* Line charts as inline SVG: axes with ticks and labels, a legend, lines
 * broken where a value is missing, optional dots, and an optional band
 * (a forecast's prediction interval) under a line.
 *
 * Nothing is scripted: each line and dot carries an SVG <title>, which the
 * browser shows on hover. Long series are thinned to the smallest and
 * largest point of each pixel column, so a million steps draw like the
 * original but stay a few hundred kilobytes. */
#ifndef FC_REPORT_SVG_CHART_H
#define FC_REPORT_SVG_CHART_H

#include <stddef.h>
#include <stdio.h>

/* How axis values are labelled. DATE and DATETIME values are seconds since
 * 1970-01-01 (as fc_dataset stores ds); their ticks fall on calendar units. */
typedef enum { FC_AXIS_NUMBER = 0, FC_AXIS_BYTES, FC_AXIS_DATE, FC_AXIS_DATETIME } fc_axis_format;

typedef struct {
    const char *name;        /* legend text */
    const char *color;       /* CSS colour; NULL picks from the palette */
    const double *x, *y;     /* (n) x ascending; NaN y breaks the line; y NULL: band only */
    size_t n;
    const double *lo, *hi;   /* (n) band around the line, or NULL */
    const char *band_name;   /* legend text of the band */
    int dashed;              /* reference lines (plan, limit) */
    int dots;                /* a dot per point (sparse series: validation) */
} fc_chart_series;

typedef struct {
    const char *title, *x_label, *y_label;
    fc_axis_format x_format, y_format;
    int log_y;               /* logarithmic y (losses spanning decades) */
    int y_from_zero;         /* include 0 in the y range (throughput, memory) */
    const fc_chart_series *series;
    size_t n_series;
} fc_chart;

/* A linear or logarithmic map from data [d0, d1] to pixels [p0, p1]. */
typedef struct {
    double d0, d1, p0, p1;
    int log;
} fc_scale;

double fc_scale_map(const fc_scale *s, double v);

#define FC_CHART_MAX_TICKS 32

/* Tick positions covering [lo, hi] at a "nice" step (1, 2 or 5 times a
 * power of ten), about `target` of them; returns how many (at most
 * FC_CHART_MAX_TICKS) and sets *step. */
size_t fc_ticks_linear(double lo, double hi, size_t target, double *ticks, double *step);

/* Ticks at 1, 2, 5 x 10^k (or only 10^k when those are too many) inside
 * [lo, hi], lo > 0. */
size_t fc_ticks_log(double lo, double hi, size_t target, double *ticks);

/* Ticks on calendar units (years, months, days, hours) inside [lo, hi]
 * seconds; *unit_seconds is the chosen unit's length, for labels. */
size_t fc_ticks_calendar(double lo, double hi, size_t target, double *ticks, double *unit_seconds);

/* Writes a tick label for v. */
void fc_axis_label(char *buf, size_t cap, double v, fc_axis_format fmt, double step);

/* Writes the chart as one <svg> element. Returns 0 if it has no finite
 * point to draw (nothing written), 1 otherwise. */
int fc_chart_write_svg(FILE *f, const fc_chart *c);

/* A horizontal bar chart: one bar per value, labelled with the value and
 * its share of the total (the phases of a step). */
void fc_bars_write_svg(FILE *f, const char *title, const char *const *names, const double *values,
                       size_t n, const char *unit);

#endif
