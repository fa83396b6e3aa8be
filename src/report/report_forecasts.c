/* The forecast section of the report (report_html.h): one chart per chosen
 * series with the actual values around the horizon, each model's forecast
 * and its prediction intervals as bands. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "data/ds_text.h"
#include "report/html_text.h"
#include "report/report_html.h"
#include "report/svg_chart.h"

/* Actual points shown before the first forecast, in forecast lengths. */
#define CONTEXT_HORIZONS 3
#define MAX_SERIES_LINES 64

static const char *const model_colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};

fc_status fc_report_pick_series(const fc_forecast_table *t, const char *path, const char *list, size_t default_count,
                                size_t **out, size_t *n) {
    *out = NULL;
    *n = 0;
    if (!list || !*list) {
        size_t k = t->n_series < default_count ? t->n_series : default_count;
        if (!(*out = fc_calloc(k ? k : 1, sizeof **out, "report series"))) return FC_ERR_MEMORY;
        for (size_t i = 0; i < k; i++) (*out)[i] = i;
        *n = k;
        return FC_OK;
    }
    size_t cap = 1;
    for (const char *p = list; *p; p++) cap += *p == ',';
    if (!(*out = fc_calloc(cap, sizeof **out, "report series"))) return FC_ERR_MEMORY;
    for (const char *p = list;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char id[4096];
        if (len >= sizeof id) len = sizeof id - 1;
        memcpy(id, p, len);
        id[len] = 0;
        long s = fc_forecast_table_series(t, id);
        if (s < 0) {
            free(*out);
            *out = NULL;
            return fc_error(FC_ERR_INVALID, "--series: '%s' is not a series of %s (%zu series, the first '%s')",
                            id, path, t->n_series, t->n_series ? t->series[0].id : "");
        }
        (*out)[(*n)++] = (size_t)s;
        if (!comma) return FC_OK;
        p = comma + 1;
    }
}

fc_status fc_report_check_actuals(const fc_forecast_table *t, const char *t_path, const fc_dataset *a) {
    if ((t->kind == FC_DS_INDEX) == (a->ds_kind == FC_DS_INDEX)) return FC_OK;
    return fc_error(FC_ERR_INVALID, "%s has ds as %s but %s has %s: actuals and forecasts should use the same ds",
                    a->source, fc_ds_kind_name(a->ds_kind), t_path, fc_ds_kind_name(t->kind));
}

/* The actual points of series `id` from CONTEXT_HORIZONS forecast lengths
 * before the forecast up to its end, as doubles for the chart. */
typedef struct {
    double *x, *y;
    size_t n;
} points;

/* Rows [from, to) of series `id` in the actuals to draw, of which
 * [from, first) come before the forecast; 0 when the series is absent. */
static int actual_range(const fc_dataset *a, const char *id, const fc_forecast_series *fs, size_t *from,
                        size_t *first, size_t *to) {
    ssize_t s = a ? fc_dataset_find(a, id) : -1;
    if (s < 0) return 0;
    size_t b = a->offsets[s], e = a->offsets[s + 1];
    *first = b;
    while (*first < e && (double)a->ds[*first] < fs->ds[0]) (*first)++;
    *from = *first - b > CONTEXT_HORIZONS * fs->n ? *first - CONTEXT_HORIZONS * fs->n : b;
    *to = *first;
    while (*to < e && (double)a->ds[*to] <= fs->ds[fs->n - 1]) (*to)++;
    return 1;
}

static fc_status actual_points(const fc_dataset *a, const char *id, const fc_forecast_series *fs, points *p) {
    memset(p, 0, sizeof *p);
    size_t from, first, to;
    if (!actual_range(a, id, fs, &from, &first, &to) || to == from) return FC_OK;
    p->x = fc_malloc((to - from) * sizeof *p->x, "report actuals");
    p->y = fc_malloc((to - from) * sizeof *p->y, "report actuals");
    if (!p->x || !p->y) { free(p->x); free(p->y); return FC_ERR_MEMORY; }
    for (size_t i = from; i < to; i++, p->n++) {
        p->x[p->n] = (double)a->ds[i];
        p->y[p->n] = a->mask[i] ? a->y[i] : NAN;
    }
    return FC_OK;
}

/* Whether any chosen series has actual values before its forecast: only
 * then does the page say it draws history for context. */
static int draws_history(const fc_report *r) {
    for (size_t i = 0; i < r->n_series; i++) {
        const fc_forecast_series *fs = &r->forecasts->series[r->series[i]];
        size_t from, first, to;
        if (actual_range(r->actuals, fs->id, fs, &from, &first, &to) && first > from) return 1;
    }
    return 0;
}

/* Column j of a series' values (stored row-major) into out. */
static void column_of(const fc_forecast_table *t, const fc_forecast_series *fs, size_t j, double *out) {
    for (size_t i = 0; i < fs->n; i++) out[i] = fs->v[i * t->n_cols + j];
}

/* A band for each interval pair <model>-lo-<L> / <model>-hi-<L>. */
static size_t add_bands(const fc_forecast_table *t, const fc_forecast_series *fs, size_t model, const char *color,
                        double *cols, fc_chart_series *out, char names[][96], size_t room) {
    size_t k = 0;
    for (size_t j = 0; j < t->n_cols && k < room; j++) {
        char want[300];
        size_t mlen = strlen(t->cols[model]);
        if (strncmp(t->cols[j], t->cols[model], mlen) || strncmp(t->cols[j] + mlen, "-lo-", 4)) continue;
        snprintf(want, sizeof want, "%s-hi-%s", t->cols[model], t->cols[j] + mlen + 4);
        long hi = fc_forecast_table_column(t, want);
        if (hi < 0) continue;
        column_of(t, fs, j, cols + j * fs->n);
        column_of(t, fs, (size_t)hi, cols + (size_t)hi * fs->n);
        snprintf(names[k], 96, "%s %s%% interval", t->cols[model], t->cols[j] + mlen + 4);
        out[k] = (fc_chart_series){.name = names[k], .band_name = names[k], .color = color, .x = fs->ds,
                                   .n = fs->n, .lo = cols + j * fs->n, .hi = cols + (size_t)hi * fs->n};
        k++;
    }
    return k;
}

static fc_status series_chart(FILE *f, const fc_report *r, size_t s) {
    const fc_forecast_table *t = r->forecasts;
    const fc_forecast_series *fs = &t->series[s];
    points act;
    FC_TRY(actual_points(r->actuals, fs->id, fs, &act));
    double *cols = fc_malloc(t->n_cols * fs->n * sizeof *cols + 1, "report forecast columns");
    if (!cols) { free(act.x); free(act.y); return FC_ERR_MEMORY; }
    fc_chart_series lines[MAX_SERIES_LINES];
    char names[MAX_SERIES_LINES][96];
    size_t n = 0, models = 0;
    if (act.n) lines[n++] = (fc_chart_series){.name = "actual", .color = "#222", .x = act.x, .y = act.y, .n = act.n};
    for (size_t j = 0; j < t->n_cols && n + 8 < MAX_SERIES_LINES; j++) {
        if (fc_forecast_is_interval(t->cols[j])) continue;
        const char *color = model_colors[models++ % (sizeof model_colors / sizeof *model_colors)];
        n += add_bands(t, fs, j, color, cols, lines + n, names + n, MAX_SERIES_LINES - 1 - n);
        column_of(t, fs, j, cols + j * fs->n);
        lines[n++] = (fc_chart_series){.name = t->cols[j], .color = color, .x = fs->ds, .y = cols + j * fs->n,
                                       .n = fs->n, .dots = fs->n <= 60};
    }
    fc_axis_format xf = t->kind == FC_DS_DATE ? FC_AXIS_DATE : t->kind == FC_DS_DATETIME ? FC_AXIS_DATETIME
                                                                                           : FC_AXIS_NUMBER;
    fc_chart c = {.title = fs->id, .x_label = "ds", .y_label = "value", .x_format = xf, .series = lines, .n_series = n};
    fprintf(f, "<div class=\"panel forecast\">\n");
    if (!fc_chart_write_svg(f, &c)) fprintf(f, "<p class=\"empty\">No finite forecast values.</p>\n");
    if (r->actuals && !act.n) {
        fprintf(f, "<p class=\"note\">No actual values of '");
        fc_html_escape(f, fs->id);
        fprintf(f, "' in the forecast's range.</p>\n");
    }
    fprintf(f, "</div>\n");
    free(cols);
    free(act.x);
    free(act.y);
    return FC_OK;
}

fc_status fc_report_write_forecasts(FILE *f, const fc_report *r) {
    fprintf(f, "<h2 id=\"forecasts\">Forecasts</h2>\n<p class=\"meta\">From <code>");
    fc_html_escape(f, r->forecasts_path);
    fprintf(f, "</code>");
    if (r->actuals) {
        fprintf(f, " against <code>");
        fc_html_escape(f, r->actuals_path);
        if (draws_history(r))
            fprintf(f, "</code> (up to %d horizons before the forecast for context)", CONTEXT_HORIZONS);
        else fprintf(f, "</code> (over the forecast's range: they hold no values before it)");
    }
    fprintf(f, "; %zu of %zu series.</p>\n", r->n_series, r->forecasts->n_series);
    for (size_t i = 0; i < r->n_series; i++) FC_TRY(series_chart(f, r, r->series[i]));
    return FC_OK;
}
