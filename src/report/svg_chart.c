/* Line charts as inline SVG (svg_chart.h). One chart: compute the ranges,
 * draw grid and ticks, bands under lines, lines, dots, then the legend. */
#include <math.h>
#include <string.h>

#include "report/html_text.h"
#include "report/svg_chart.h"

enum { W = 960, H = 320, LEFT = 82, RIGHT = 24, TOP = 58, BOTTOM = 48 };

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

static const char *color_of(const fc_chart *c, size_t i) {
    if (c->series[i].color) return c->series[i].color;
    return palette[i % (sizeof palette / sizeof *palette)];
}

typedef struct {
    double x0, x1, y0, y1;
    int any;
} bounds;

static int usable(const fc_chart *c, double y) { return isfinite(y) && (!c->log_y || y > 0); }

static void grow(bounds *b, double x, double y) {
    if (!b->any) { b->x0 = b->x1 = x; b->y0 = b->y1 = y; b->any = 1; return; }
    b->x0 = fmin(b->x0, x); b->x1 = fmax(b->x1, x);
    b->y0 = fmin(b->y0, y); b->y1 = fmax(b->y1, y);
}

static bounds data_bounds(const fc_chart *c) {
    bounds b = {0, 0, 0, 0, 0};
    for (size_t s = 0; s < c->n_series; s++) {
        const fc_chart_series *e = &c->series[s];
        for (size_t i = 0; i < e->n; i++) {
            if (!isfinite(e->x[i])) continue;
            if (e->y && usable(c, e->y[i])) grow(&b, e->x[i], e->y[i]);
            if (e->lo && usable(c, e->lo[i])) grow(&b, e->x[i], e->lo[i]);
            if (e->hi && usable(c, e->hi[i])) grow(&b, e->x[i], e->hi[i]);
        }
    }
    return b;
}

/* The axes: data ranges widened to whole ticks (y) and the tick lists. */
typedef struct {
    fc_scale xs, ys;
    double xt[FC_CHART_MAX_TICKS], yt[FC_CHART_MAX_TICKS], x_step, y_step;
    size_t nx, ny;
} axes;

static void x_axis(const fc_chart *c, bounds *b, axes *a) {
    if (b->x1 == b->x0) {
        double d = c->x_format == FC_AXIS_DATE || c->x_format == FC_AXIS_DATETIME ? 86400 : 1;
        b->x0 -= d; b->x1 += d;
    }
    if (c->x_format == FC_AXIS_DATE || c->x_format == FC_AXIS_DATETIME)
        a->nx = fc_ticks_calendar(b->x0, b->x1, 8, a->xt, &a->x_step);
    else
        a->nx = fc_ticks_linear(b->x0, b->x1, 8, a->xt, &a->x_step);
    a->xs = (fc_scale){b->x0, b->x1, LEFT, W - RIGHT, 0};
}

static void y_axis(const fc_chart *c, bounds *b, axes *a) {
    if (c->y_from_zero && !c->log_y) { b->y0 = fmin(b->y0, 0); b->y1 = fmax(b->y1, 0); }
    if (b->y1 == b->y0) {
        double d = c->log_y ? b->y0 / 2 : b->y0 != 0 ? fabs(b->y0) * 0.1 : 1;
        b->y0 -= d; b->y1 += d;
    }
    if (c->log_y) {
        b->y0 = pow(10, floor(log10(b->y0) * 10) / 10);   /* a little room, in tenths of a decade */
        b->y1 = pow(10, ceil(log10(b->y1) * 10) / 10);
        a->ny = fc_ticks_log(b->y0, b->y1, 8, a->yt);
        a->y_step = 0;
        /* Less than a decade (a loss scale halved once): the 1-2-5 marks
         * leave one tick at most, so label linear steps on the log axis. */
        if (a->ny < 3) a->ny = fc_ticks_linear(b->y0, b->y1, 5, a->yt, &a->y_step);
    } else if (c->y_format == FC_AXIS_BYTES) {
        /* Steps of 1, 2, 5 binary units (64 MiB, not 62.9 MB). */
        double unit = 1;
        while ((b->y1 - b->y0) / unit >= 1024 * 4) unit *= 1024;
        fc_ticks_linear(b->y0 / unit, b->y1 / unit, 6, a->yt, &a->y_step);
        b->y0 = floor(b->y0 / unit / a->y_step + 1e-9) * a->y_step * unit;
        b->y1 = ceil(b->y1 / unit / a->y_step - 1e-9) * a->y_step * unit;
        a->ny = fc_ticks_linear(b->y0 / unit, b->y1 / unit, 6, a->yt, &a->y_step);
        for (size_t i = 0; i < a->ny; i++) a->yt[i] *= unit;
        a->y_step *= unit;
    } else {
        fc_ticks_linear(b->y0, b->y1, 6, a->yt, &a->y_step);
        b->y0 = floor(b->y0 / a->y_step + 1e-9) * a->y_step;
        b->y1 = ceil(b->y1 / a->y_step - 1e-9) * a->y_step;
        a->ny = fc_ticks_linear(b->y0, b->y1, 6, a->yt, &a->y_step);
    }
    a->ys = (fc_scale){b->y0, b->y1, H - BOTTOM, TOP, c->log_y};
}

static void draw_grid(FILE *f, const fc_chart *c, const axes *a) {
    char label[48];
    fprintf(f, "<g class=\"axes\" font-size=\"11\" fill=\"#444\">\n");
    for (size_t i = 0; i < a->ny; i++) {
        double y = fc_scale_map(&a->ys, a->yt[i]);
        fc_axis_label(label, sizeof label, a->yt[i], c->y_format, a->y_step);
        fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>"
                   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                LEFT, W - RIGHT, y, y, LEFT - 6, y + 4, label);
    }
    for (size_t i = 0; i < a->nx; i++) {
        double x = fc_scale_map(&a->xs, a->xt[i]);
        fc_axis_label(label, sizeof label, a->xt[i], c->x_format, a->x_step);
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#999\"/>"
                   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                x, x, H - BOTTOM, H - BOTTOM + 5, x, H - BOTTOM + 18, label);
    }
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>\n",
            LEFT, TOP, W - LEFT - RIGHT, H - TOP - BOTTOM);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\">", (LEFT + W - RIGHT) / 2, H - 8);
    fc_html_escape(f, c->x_label);
    fprintf(f, "</text><text transform=\"translate(16,%d) rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">",
            (TOP + H - BOTTOM) / 2);
    fc_html_escape(f, c->y_label);
    fprintf(f, "</text>\n</g>\n");
}

static void draw_band(FILE *f, const fc_chart *c, const fc_chart_series *e, const axes *a, const char *color) {
    fprintf(f, "<polygon class=\"band\" fill=\"%s\" fill-opacity=\"0.18\" stroke=\"none\" points=\"", color);
    for (size_t i = 0; i < e->n; i++)
        if (usable(c, e->lo[i]) && usable(c, e->hi[i]))
            fprintf(f, "%.1f,%.1f ", fc_scale_map(&a->xs, e->x[i]), fc_scale_map(&a->ys, e->hi[i]));
    for (size_t i = e->n; i-- > 0;)
        if (usable(c, e->lo[i]) && usable(c, e->hi[i]))
            fprintf(f, "%.1f,%.1f ", fc_scale_map(&a->xs, e->x[i]), fc_scale_map(&a->ys, e->lo[i]));
    fprintf(f, "\"><title>");
    fc_html_escape(f, e->band_name);
    fprintf(f, "</title></polygon>\n");
}

/* Path output with a pen: a missing value lifts it, so the line breaks. */
typedef struct {
    FILE *f;
    int down;
} pen;

static void pen_to(pen *p, double px, double py) {
    fprintf(p->f, "%c%.1f %.1f", p->down ? 'L' : 'M', px, py);
    p->down = 1;
}

/* Points of one pixel column reduced to their lowest and highest, in the
 * order they came: spikes survive thinning. */
typedef struct {
    int col, have;
    double lo_x, lo_y, hi_x, hi_y;
    size_t lo_i, hi_i;
} column;

static void column_flush(column *k, pen *p) {
    if (!k->have) return;
    if (k->lo_i <= k->hi_i) { pen_to(p, k->lo_x, k->lo_y); if (k->hi_i != k->lo_i) pen_to(p, k->hi_x, k->hi_y); }
    else { pen_to(p, k->hi_x, k->hi_y); pen_to(p, k->lo_x, k->lo_y); }
    k->have = 0;
}

static void draw_line(FILE *f, const fc_chart *c, const fc_chart_series *e, const axes *a, const char *color) {
    fprintf(f, "<path class=\"line\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s d=\"", color,
            e->dashed ? "1.5" : "1.8", e->dashed ? " stroke-dasharray=\"6 4\"" : "");
    pen p = {f, 0};
    column k = {0};
    for (size_t i = 0; i < e->n; i++) {
        if (!usable(c, e->y[i]) || !isfinite(e->x[i])) { column_flush(&k, &p); p.down = 0; continue; }
        double px = fc_scale_map(&a->xs, e->x[i]), py = fc_scale_map(&a->ys, e->y[i]);
        int col = (int)floor(px * 2);   /* half-pixel columns */
        if (k.have && col != k.col) column_flush(&k, &p);
        if (!k.have) { k = (column){col, 1, px, py, px, py, i, i}; continue; }
        if (py > k.lo_y) { k.lo_x = px; k.lo_y = py; k.lo_i = i; }   /* pixel y grows downwards */
        if (py < k.hi_y) { k.hi_x = px; k.hi_y = py; k.hi_i = i; }
    }
    column_flush(&k, &p);
    fprintf(f, "\"><title>");
    fc_html_escape(f, e->name);
    fprintf(f, "</title></path>\n");
}

static void draw_dots(FILE *f, const fc_chart *c, const fc_chart_series *e, const axes *a, const char *color) {
    char xl[48], yl[48];
    for (size_t i = 0; i < e->n && i < 2000; i++) {
        if (!usable(c, e->y[i])) continue;
        fc_axis_label(xl, sizeof xl, e->x[i], c->x_format, c->x_format == FC_AXIS_NUMBER ? 1 : 86400);
        fc_axis_label(yl, sizeof yl, e->y[i], c->y_format, 0);
        fprintf(f, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>",
                fc_scale_map(&a->xs, e->x[i]), fc_scale_map(&a->ys, e->y[i]), color);
        fc_html_escape(f, e->name);
        fprintf(f, ": %s at %s</title></circle>\n", yl, xl);
    }
}

/* The legend, one row under the title; widths estimated from the text. */
static void draw_legend(FILE *f, const fc_chart *c) {
    double x = LEFT;
    fprintf(f, "<g class=\"legend\" font-size=\"12\">\n");
    for (size_t s = 0; s < c->n_series; s++) {
        const fc_chart_series *e = &c->series[s];
        const char *color = color_of(c, s);
        if (e->lo && e->band_name) {
            fprintf(f, "<rect x=\"%.0f\" y=\"33\" width=\"18\" height=\"10\" fill=\"%s\" fill-opacity=\"0.18\"/>"
                       "<text x=\"%.0f\" y=\"42\">", x, color, x + 23);
            fc_html_escape(f, e->band_name);
            fprintf(f, "</text>\n");
            x += 35 + 6.6 * (double)strlen(e->band_name);
        }
        if (!e->y) continue;
        fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"38\" y2=\"38\" stroke=\"%s\" stroke-width=\"2.5\"%s/>"
                   "<text x=\"%.0f\" y=\"42\">", x, x + 18, color, e->dashed ? " stroke-dasharray=\"6 4\"" : "", x + 23);
        fc_html_escape(f, e->name);
        fprintf(f, "</text>\n");
        x += 35 + 6.6 * (double)strlen(e->name ? e->name : "");
    }
    fprintf(f, "</g>\n");
}

int fc_chart_write_svg(FILE *f, const fc_chart *c) {
    bounds b = data_bounds(c);
    if (!b.any) return 0;
    axes a;
    x_axis(c, &b, &a);
    y_axis(c, &b, &a);
    fprintf(f, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
               "xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" role=\"img\">\n", W, H, W, H);
    fprintf(f, "<text x=\"%d\" y=\"20\" font-size=\"15\" font-weight=\"bold\">", LEFT);
    fc_html_escape(f, c->title);
    fprintf(f, "</text>\n");
    draw_grid(f, c, &a);
    for (size_t s = 0; s < c->n_series; s++)
        if (c->series[s].lo && c->series[s].hi) draw_band(f, c, &c->series[s], &a, color_of(c, s));
    for (size_t s = 0; s < c->n_series; s++) {
        if (!c->series[s].y) continue;   /* a band alone */
        draw_line(f, c, &c->series[s], &a, color_of(c, s));
        if (c->series[s].dots) draw_dots(f, c, &c->series[s], &a, color_of(c, s));
    }
    draw_legend(f, c);
    fprintf(f, "</svg>\n");
    return 1;
}
