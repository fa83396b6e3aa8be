/* The report page (report_html.h): header and run status, summary and
 * configuration tables, then one chart per aspect of the run. A chart whose
 * data the log lacks (no GPU, no --profile) is replaced by one line saying
 * so, so the reader knows it was not forgotten. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "report/html_text.h"
#include "report/report_html.h"
#include "report/svg_chart.h"


static int has_data(const fc_xy *c) {
    for (size_t i = 0; i < c->n; i++)
        if (isfinite(c->y[i])) return 1;
    return 0;
}

static fc_chart_series line(const char *name, const fc_xy *c) {
    return (fc_chart_series){.name = name, .x = c->x, .y = c->y, .n = c->n};
}

/* Draws the chart or, with no data, says what is missing. */
static void chart_or_note(FILE *f, const fc_chart *c, const char *missing) {
    fprintf(f, "<div class=\"panel\">\n");
    if (!fc_chart_write_svg(f, c)) fprintf(f, "<p class=\"empty\">%s: %s.</p>\n", c->title, missing);
    fprintf(f, "</div>\n");
}

static void kv_table(FILE *f, const char *title, const fc_kv_list *l) {
    fprintf(f, "<table><tr><th colspan=\"2\">%s</th></tr>\n", title);
    for (size_t i = 0; i < l->n; i++) {
        fprintf(f, "<tr><td>");
        fc_html_escape(f, l->items[i].key);
        fprintf(f, "</td><td>");
        fc_html_escape(f, l->items[i].value);
        size_t k = strlen(l->items[i].key);
        char *end;
        double v = strtod(l->items[i].value, &end);
        if (k > 6 && !strcmp(l->items[i].key + k - 6, "_bytes") && *end == 0 && v > 0) {
            char b[32];   /* byte counts also in binary units */
            fc_format_bytes(b, sizeof b, v);
            fprintf(f, " (%s)", b);
        }
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
}

static void write_header(FILE *f, const fc_report *r) {
    const fc_run_log *g = r->log;
    const char *status = g->has_summary && g->status ? g->status : "none";
    fprintf(f, "<h1>fcast training report</h1>\n<p class=\"meta\"><code>");
    fc_html_escape(f, r->log_path);
    fprintf(f, "</code> &middot; fcast ");
    fc_html_escape(f, g->command ? g->command : "?");
    fprintf(f, " &middot; version ");
    fc_html_escape(f, g->fcast_version ? g->fcast_version : "?");
    fprintf(f, " &middot; started ");
    fc_html_escape(f, g->time ? g->time : "?");
    fprintf(f, " &middot; status <span class=\"status ");
    fc_html_escape(f, status);
    fprintf(f, "\">");
    fc_html_escape(f, g->has_summary ? status : "no summary");
    fprintf(f, "</span></p>\n");
    if (!g->has_summary)
        fprintf(f, "<p class=\"warn\">This run has no summary: it is still running, or it crashed or was killed. "
                   "Shown is what its %zu log lines recorded.</p>\n", g->lines);
    if (g->truncated_tail) fprintf(f, "<p class=\"warn\">The log's last line was cut off mid-write and is ignored.</p>\n");
    if (g->error) {
        fprintf(f, "<p class=\"warn\">Error: ");
        fc_html_escape(f, g->error);
        fprintf(f, "</p>\n");
    }
    if (g->n_starts > 1) {
        fprintf(f, "<p class=\"meta\">Resumed %zu time%s, from step", g->n_starts - 1, g->n_starts > 2 ? "s" : "");
        for (size_t i = 0; i < g->resumes.n; i++) fprintf(f, "%s %.0f", i ? "," : "", g->resumes.x[i]);
        fprintf(f, ".</p>\n");
    }
}

static void loss_charts(FILE *f, const fc_run_log *g) {
    const char *tu = g->train_loss_unit ? g->train_loss_unit : "", *vu = g->val_loss_unit ? g->val_loss_unit : "";
    char tname[80], vname[80], ylabel[80];
    snprintf(tname, sizeof tname, "train loss%s%s%s", *tu ? " (" : "", tu, *tu ? ")" : "");
    snprintf(vname, sizeof vname, "validation loss%s%s%s", *vu ? " (" : "", vu, *vu ? ")" : "");
    fc_chart_series val = line(vname, &g->val_loss);
    val.dots = 1;
    fc_chart_series both[2] = {line(tname, &g->train_loss), val};
    fprintf(f, "<h2 id=\"loss\">Loss</h2>\n");
    if (!strcmp(tu, vu) || !has_data(&g->val_loss)) {
        /* One unit: both curves on one axis, log scale when it spans decades. */
        snprintf(ylabel, sizeof ylabel, "loss%s%s%s", *tu ? " (" : "", tu, *tu ? ")" : "");
        fc_chart c = {.title = "Training and validation loss", .x_label = "step", .y_label = ylabel, .log_y = 1,
                      .series = both, .n_series = has_data(&g->val_loss) ? 2 : 1};
        chart_or_note(f, &c, "no step events in the log");
        return;
    }
    /* Scaled training loss next to validation loss in the data's units: two
     * axes would invite comparing numbers that are not comparable. */
    fc_chart ct = {.title = "Training loss", .x_label = "step", .y_label = tname, .log_y = 1, .series = both, .n_series = 1};
    chart_or_note(f, &ct, "no step events in the log");
    fc_chart cv = {.title = "Validation loss", .x_label = "step", .y_label = vname, .series = both + 1, .n_series = 1};
    both[1].color = "#d62728";
    chart_or_note(f, &cv, "no validation events in the log");
}

static void optimizer_charts(FILE *f, const fc_run_log *g) {
    fprintf(f, "<h2 id=\"optimizer\">Learning rate, loss scale, gradient norm</h2>\n");
    fc_chart_series lr = line("learning rate", &g->lr), ls = line("loss scale", &g->loss_scale),
                    gn = line("gradient norm", &g->grad_norm);
    ls.color = "#9467bd";
    gn.color = "#2ca02c";
    fc_chart c1 = {.title = "Learning rate", .x_label = "step", .y_label = "learning rate", .series = &lr, .n_series = 1};
    chart_or_note(f, &c1, "not logged");
    fc_chart c2 = {.title = "Loss scale", .x_label = "step", .y_label = "loss scale", .log_y = 1, .series = &ls, .n_series = 1};
    chart_or_note(f, &c2, "none in this run (only fp16 training scales the loss)");
    fc_chart c3 = {.title = "Gradient norm", .x_label = "step", .y_label = "norm", .log_y = 1, .series = &gn, .n_series = 1};
    chart_or_note(f, &c3, "not computed in this run (no clipping or loss scaling)");
}

static void throughput_chart(FILE *f, const fc_run_log *g) {
    fprintf(f, "<h2 id=\"throughput\">Throughput</h2>\n");
    fc_chart_series s = line("windows/s", &g->windows_per_s);
    s.color = "#ff7f0e";
    fc_chart c = {.title = "Training throughput", .x_label = "step", .y_label = "windows per second",
                  .y_from_zero = 1, .series = &s, .n_series = 1};
    chart_or_note(f, &c, "not logged");
}

/* Resident memory and device memory per step, against the plan and the
 * limit drawn as dashed lines over the same steps. */
static void memory_chart(FILE *f, const fc_run_log *g) {
    fprintf(f, "<h2 id=\"memory\">Memory</h2>\n");
    double x[2] = {0, 1}, plan[2] = {g->plan_bytes, g->plan_bytes}, limit[2] = {g->limit_bytes, g->limit_bytes};
    if (g->rss_bytes.n) { x[0] = g->rss_bytes.x[0]; x[1] = g->rss_bytes.x[g->rss_bytes.n - 1]; }
    fc_chart_series s[4];
    size_t n = 0;
    s[n++] = line("resident (RSS)", &g->rss_bytes);
    if (has_data(&g->device_bytes)) s[n++] = line("device", &g->device_bytes);
    if (isfinite(g->plan_bytes) && g->plan_bytes > 0)
        s[n++] = (fc_chart_series){.name = "plan", .color = "#2ca02c", .x = x, .y = plan, .n = 2, .dashed = 1};
    if (isfinite(g->limit_bytes) && g->limit_bytes > 0)
        s[n++] = (fc_chart_series){.name = "limit", .color = "#d62728", .x = x, .y = limit, .n = 2, .dashed = 1};
    fc_chart c = {.title = "Memory against the plan and the limit", .x_label = "step", .y_label = "bytes",
                  .y_format = FC_AXIS_BYTES, .y_from_zero = 1, .series = s, .n_series = n};
    if (!has_data(&g->rss_bytes) && !has_data(&g->device_bytes)) c.n_series = 0;
    chart_or_note(f, &c, "no memory figures in the log");
    if (!(g->limit_bytes > 0)) fprintf(f, "<p class=\"note\">No memory limit was set for this run.</p>\n");
}

static void gpu_charts(FILE *f, const fc_run_log *g) {
    if (!g->gpu_util.n) return;   /* a CPU run: no section at all */
    fprintf(f, "<h2 id=\"gpu\">GPU</h2>\n");
    fc_chart_series u[2] = {line("utilisation %", &g->gpu_util), line("temperature (C)", &g->gpu_temp)};
    fc_chart c = {.title = "GPU utilisation and temperature", .x_label = "elapsed seconds", .y_label = "% / C",
                  .y_from_zero = 1, .series = u, .n_series = 2};
    chart_or_note(f, &c, "no samples");
    fc_chart_series m[2] = {line("used", &g->gpu_mem_used), line("total", &g->gpu_mem_total)};
    m[1].dashed = 1;
    fc_chart cm = {.title = "GPU memory", .x_label = "elapsed seconds", .y_label = "bytes", .y_format = FC_AXIS_BYTES,
                   .y_from_zero = 1, .series = m, .n_series = 2};
    chart_or_note(f, &cm, "no samples");
}

/* Where the time went: the summary's totals, else the profile samples
 * summed (a run without a summary). */
static void phase_charts(FILE *f, const fc_run_log *g) {
    fprintf(f, "<h2 id=\"phases\">Phase breakdown</h2>\n");
    double v[FC_RUN_PHASES];
    int any = 0;
    for (int p = 0; p < FC_RUN_PHASES; p++) {
        v[p] = g->phase_seconds[p];
        if (!isfinite(v[p])) {
            v[p] = 0;
            for (size_t i = 0; i < g->profile[p].n; i++)
                if (isfinite(g->profile[p].y[i])) v[p] += g->profile[p].y[i];
        }
        any |= v[p] > 0;
    }
    if (any) fc_bars_write_svg(f, g->has_summary ? "Seconds per phase (whole run)" : "Seconds per phase (profiled steps)",
                               fc_run_phase_names, v, FC_RUN_PHASES, "s");
    else fprintf(f, "<p class=\"empty\">No phase times in the log (run with --profile, or let the run finish).</p>\n");
    fc_chart_series s[FC_RUN_PHASES];
    enum { STEP_PHASES = 7 };   /* sample .. optimizer: a step's own (validation and checkpoints are not per step) */
    for (int p = 0; p < STEP_PHASES; p++) s[p] = line(fc_run_phase_names[p], &g->profile[p]);
    fc_chart c = {.title = "Phase seconds per profiled step", .x_label = "step", .y_label = "seconds",
                  .y_from_zero = 1, .series = s, .n_series = STEP_PHASES};
    int any_profile = 0;
    for (int p = 0; p < STEP_PHASES; p++) any_profile |= g->profile[p].n > 0;
    if (any_profile) chart_or_note(f, &c, "no profile events");
}

static void checkpoint_table(FILE *f, const fc_run_log *g) {
    if (!g->checkpoint_bytes.n) return;
    fprintf(f, "<h2 id=\"checkpoints\">Checkpoints</h2>\n<table><tr><th>step</th><th>size</th><th>seconds</th></tr>\n");
    size_t from = g->checkpoint_bytes.n > 20 ? g->checkpoint_bytes.n - 20 : 0;
    for (size_t i = from; i < g->checkpoint_bytes.n; i++) {
        char b[32];
        fc_format_bytes(b, sizeof b, g->checkpoint_bytes.y[i]);
        fprintf(f, "<tr><td>%.0f</td><td>%s</td><td>%.3f</td></tr>\n", g->checkpoint_bytes.x[i], b,
                g->checkpoint_seconds.y[i]);
    }
    fprintf(f, "</table>\n");
    if (from) fprintf(f, "<p class=\"note\">The last 20 of %zu checkpoints.</p>\n", g->checkpoint_bytes.n);
}

fc_status fc_report_write_html(FILE *f, const fc_report *r) {
    const fc_run_log *g = r->log;
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>fcast report: ");
    fc_html_escape(f, r->log_path);
    fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n", fc_report_style);
    write_header(f, r);
    fprintf(f, "<div class=\"tables\">\n");
    if (g->has_summary) kv_table(f, "Summary", &g->summary);
    if (g->config.n) kv_table(f, "Configuration", &g->config);
    fprintf(f, "</div>\n");
    loss_charts(f, g);
    optimizer_charts(f, g);
    throughput_chart(f, g);
    memory_chart(f, g);
    gpu_charts(f, g);
    phase_charts(f, g);
    checkpoint_table(f, g);
    if (r->forecasts) FC_TRY(fc_report_write_forecasts(f, r));
    fprintf(f, "<p class=\"meta\">Written by fcast report %s.</p>\n</body></html>\n", fc_version());
    return FC_OK;
}
