/* The backtest page (report_backtest.h). Only what the files say is shown:
 * the curve, the drawdowns computed from it, and counts of the trade log;
 * risk ratios (Sharpe, Sortino, ...) are the backtest's own output
 * (`fcast quant backtest --json`), not recomputed here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "data/dataset.h"
#include "report/html_text.h"
#include "report/report_backtest.h"
#include "report/svg_chart.h"

#define TRADES_SHOWN 20

size_t fc_drawdown_series(const double *equity, size_t n, double *dd) {
    double peak = NAN;
    size_t run = 0, longest = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(equity[i])) { dd[i] = NAN; continue; }
        if (!(equity[i] < peak)) peak = equity[i];   /* also the first finite point */
        dd[i] = equity[i] / peak - 1.0;
        run = dd[i] < 0 ? run + 1 : 0;
        if (run > longest) longest = run;
    }
    return longest;
}

static fc_axis_format x_format(fc_ds_kind k) {
    return k == FC_DS_DATE ? FC_AXIS_DATE : k == FC_DS_DATETIME ? FC_AXIS_DATETIME : FC_AXIS_NUMBER;
}

static void ds_text(char *buf, size_t cap, fc_ds_kind k, double v) { fc_ds_format(k, (int64_t)v, buf, cap); }

/* First and last finite values of a column. */
static void ends(const double *v, size_t n, double *first, double *last) {
    *first = *last = NAN;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) { if (!isfinite(*first)) *first = v[i]; *last = v[i]; }
}

static double min_finite(const double *v, size_t n) {
    double m = NAN;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]) && !(v[i] >= m)) m = v[i];
    return m;
}

typedef struct {
    size_t trades, closed, wins;
} trade_counts;

static trade_counts count_trades(const fc_trade_table *t, const char *id) {
    trade_counts c = {0, 0, 0};
    for (size_t r = 0; t && r < t->n_rows; r++) {
        if (strcmp(fc_trade_id(t, r), id)) continue;
        c.trades++;
        if (!t->open[r]) { c.closed++; c.wins += t->ret[r] > 0; }
    }
    return c;
}

static void row_num(FILE *f, const char *key, double v, const char *fmt) {
    fprintf(f, "<tr><td>%s</td><td>", key);
    if (isfinite(v)) fprintf(f, fmt, v);
    else fprintf(f, "&ndash;");
    fprintf(f, "</td></tr>\n");
}

static void summary_table(FILE *f, const fc_backtest_page *p, const fc_forecast_series *s, const double *eq,
                          const double *dd, size_t longest) {
    double first, last;
    ends(eq, s->n, &first, &last);
    char a[64], b[64];
    ds_text(a, sizeof a, p->equity->kind, s->ds[0]);
    ds_text(b, sizeof b, p->equity->kind, s->ds[s->n - 1]);
    fprintf(f, "<table><tr><th colspan=\"2\">Summary</th></tr>\n<tr><td>bars</td><td>%zu (%s to %s)</td></tr>\n",
            s->n, a, b);
    row_num(f, "first equity", first, "%.6g");
    row_num(f, "last equity", last, "%.6g");
    row_num(f, "total return", (last / first - 1) * 100, "%.2f %%");
    row_num(f, "maximum drawdown", min_finite(dd, s->n), "%.2f %%");   /* dd in % */
    fprintf(f, "<tr><td>longest drawdown</td><td>%zu bars</td></tr>\n", longest);
    if (p->trades) {
        trade_counts c = count_trades(p->trades, s->id);
        fprintf(f, "<tr><td>trades</td><td>%zu (%zu closed)</td></tr>\n", c.trades, c.closed);
        row_num(f, "hit rate (closed trades that gained)", c.closed ? 100.0 * (double)c.wins / (double)c.closed : NAN,
                "%.1f %%");
    }
    fprintf(f, "</table>\n");
}

static void chart(FILE *f, const fc_backtest_page *p, const fc_forecast_series *s, const char *title,
                  const char *y_label, const char *color, const double *y) {
    fc_chart_series line = {.name = title, .color = color, .x = s->ds, .y = y, .n = s->n};
    fc_chart c = {.title = title, .x_label = "ds", .y_label = y_label, .x_format = x_format(p->equity->kind),
                  .series = &line, .n_series = 1};
    fprintf(f, "<div class=\"panel\">\n");
    if (!fc_chart_write_svg(f, &c)) fprintf(f, "<p class=\"empty\">%s: no finite values.</p>\n", title);
    fprintf(f, "</div>\n");
}

/* The series' last TRADES_SHOWN trades, every column as written. */
static void trades_table(FILE *f, const fc_trade_table *t, const char *id) {
    size_t total = count_trades(t, id).trades, skip = total > TRADES_SHOWN ? total - TRADES_SHOWN : 0, seen = 0;
    if (!total) { fprintf(f, "<p class=\"note\">No trades of this series in the trade log.</p>\n"); return; }
    fprintf(f, "<table><tr>");
    for (size_t c = 0; c < t->n_cols; c++) {
        fprintf(f, "<th>");
        fc_html_escape(f, t->cols[c]);
        fprintf(f, "</th>");
    }
    fprintf(f, "</tr>\n");
    for (size_t r = 0; r < t->n_rows; r++) {
        if (strcmp(fc_trade_id(t, r), id) || seen++ < skip) continue;
        fprintf(f, "<tr>");
        for (size_t c = 0; c < t->n_cols; c++) {
            fprintf(f, "<td>");
            fc_html_escape(f, t->cells[r * t->n_cols + c]);
            fprintf(f, "</td>");
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
    if (skip) fprintf(f, "<p class=\"note\">The last %d of %zu trades.</p>\n", TRADES_SHOWN, total);
}

static fc_status series_section(FILE *f, const fc_backtest_page *p, const fc_forecast_series *s) {
    size_t nc = p->equity->n_cols;
    double *eq = fc_malloc(3 * s->n * sizeof *eq + 1, "backtest report columns");
    if (!eq) return FC_ERR_MEMORY;
    double *dd = eq + s->n, *pos = dd + s->n;
    for (size_t i = 0; i < s->n; i++) {
        eq[i] = s->v[i * nc + p->equity_col];
        pos[i] = p->position_col == (size_t)-1 ? NAN : s->v[i * nc + p->position_col];
    }
    size_t longest = fc_drawdown_series(eq, s->n, dd);
    for (size_t i = 0; i < s->n; i++) dd[i] *= 100;
    fprintf(f, "<h2>");
    fc_html_escape(f, s->id);
    fprintf(f, "</h2>\n<div class=\"tables\">\n");
    summary_table(f, p, s, eq, dd, longest);
    fprintf(f, "</div>\n");
    chart(f, p, s, "Equity", "equity", "#1f77b4", eq);
    chart(f, p, s, "Drawdown below the running peak", "drawdown (%)", "#d62728", dd);
    if (p->position_col != (size_t)-1) chart(f, p, s, "Position", "position (fraction of equity)", "#2ca02c", pos);
    if (p->trades) trades_table(f, p->trades, s->id);
    free(eq);
    return FC_OK;
}

fc_status fc_report_write_backtest(FILE *f, const fc_backtest_page *p) {
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>fcast backtest: ");
    fc_html_escape(f, p->equity_path);
    fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n<h1>fcast backtest report</h1>\n<p class=\"meta\">"
               "Equity curve <code>", fc_report_style);
    fc_html_escape(f, p->equity_path);
    fprintf(f, "</code>");
    if (p->trades) {
        fprintf(f, ", trade log <code>");
        fc_html_escape(f, p->trades_path);
        fprintf(f, "</code> (%zu trades)", p->trades->n_rows);
    }
    fprintf(f, "; %zu of %zu series.</p>\n", p->n_series, p->equity->n_series);
    for (size_t i = 0; i < p->n_series; i++) FC_TRY(series_section(f, p, &p->equity->series[p->series[i]]));
    fprintf(f, "<p class=\"meta\">Written by fcast report %s.</p>\n</body></html>\n", fc_version());
    return FC_OK;
}
