/* fcast report's library part: the run log reader (every event, resumed
 * runs, unknown events and keys, malformed and truncated lines, newer
 * schemas), the forecast table, chart scaling and ticks, and escaping. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report/forecast_table.h"
#include "report/html_text.h"
#include "report/report_html.h"
#include "report/run_log.h"
#include "report/svg_chart.h"

#define START "{\"event\":\"start\",\"schema\":1,\"fcast_version\":\"0.1.0\",\"time\":\"t\",\"command\":\"train\"," \
              "\"config\":{\"model\":\"nhits\",\"h\":12,\"learning-rate\":0.001},\"plan_bytes\":1000," \
              "\"limit_bytes\":0,\"threads\":2,\"precision\":\"fp16\",\"max_steps\":100,\"start_step\":0}\n"
#define STEP(s, loss) "{\"event\":\"step\",\"step\":" #s ",\"elapsed_s\":1.0,\"train_loss\":" #loss \
              ",\"train_loss_unit\":\"scaled\",\"lr\":0.001,\"loss_scale\":65536,\"skipped\":0,\"grad_norm\":null," \
              "\"windows_per_s\":15000.0,\"rss_bytes\":123,\"device_bytes\":null}\n"

static fc_status parse(const char *text, fc_run_log *log) {
    return fc_run_log_parse("run.jsonl", text, strlen(text), log);
}

static void test_every_event(void) {
    const char *text = START STEP(10, 0.5) STEP(20, 0.25)
        "{\"event\":\"validation\",\"step\":20,\"elapsed_s\":2.0,\"val_loss\":12.3,\"val_loss_unit\":\"original\","
        "\"improved\":true,\"best_val_loss\":12.3,\"best_step\":20}\n"
        "{\"event\":\"checkpoint\",\"step\":20,\"elapsed_s\":2.1,\"path\":\"ck\",\"bytes\":1234567,\"seconds\":0.05}\n"
        "{\"event\":\"gpu\",\"elapsed_s\":3.0,\"device\":0,\"util_pct\":87,\"mem_used_bytes\":1,\"mem_total_bytes\":2,"
        "\"temp_c\":61,\"power_w\":210.5}\n"
        "{\"event\":\"profile\",\"step\":10,\"phases\":{\"sample\":0.1,\"gather_scale\":0.2,\"forward\":0.3,"
        "\"loss\":0.4,\"backward\":0.5,\"optimizer\":0.6}}\n"
        "\n"
        "{\"event\":\"summary\",\"status\":\"completed\",\"steps\":20,\"seconds\":11.2,\"peak_rss_bytes\":99,"
        "\"phases\":{\"forward\":3.5,\"checkpoint_io\":0.25},\"out\":\"m.safetensors\",\"error\":null}\n";
    fc_run_log g;
    CHECK(parse(text, &g) == FC_OK);
    CHECK(g.lines == 8 && g.n_starts == 1 && !g.truncated_tail);
    CHECK(g.train_loss.n == 2 && g.train_loss.x[1] == 20 && g.train_loss.y[1] == 0.25);
    CHECK(g.loss_scale.y[0] == 65536 && isnan(g.grad_norm.y[0]) && isnan(g.device_bytes.y[0]));
    CHECK(g.val_loss.n == 1 && g.val_loss.y[0] == 12.3);
    CHECK(!strcmp(g.train_loss_unit, "scaled") && !strcmp(g.val_loss_unit, "original"));
    CHECK(g.checkpoint_bytes.n == 1 && g.checkpoint_bytes.y[0] == 1234567);
    CHECK(g.gpu_util.n == 1 && g.gpu_util.x[0] == 3.0 && g.gpu_power.y[0] == 210.5);
    /* a version-1 log's "gather_scale" reads as the gather */
    CHECK(g.profile[1].n == 1 && g.profile[1].y[0] == 0.2 && g.profile[2].n == 0);
    CHECK(g.profile[3].n == 1 && g.profile[3].y[0] == 0.3 && g.profile[7].n == 0);
    CHECK(g.has_summary && !strcmp(g.status, "completed") && !strcmp(g.out, "m.safetensors") && g.error == NULL);
    CHECK(g.phase_seconds[3] == 3.5 && g.phase_seconds[8] == 0.25 && isnan(g.phase_seconds[0]));
    CHECK(g.plan_bytes == 1000 && g.limit_bytes == 0 && !strcmp(g.precision, "fp16"));
    CHECK(g.config.n == 3 && !strcmp(g.config.items[0].key, "model") && !strcmp(g.config.items[1].value, "12"));
    CHECK(!strcmp(g.config.items[2].value, "0.001"));
    int seconds_shown = 0;
    for (size_t i = 0; i < g.summary.n; i++) {
        CHECK(strcmp(g.summary.items[i].key, "event") != 0);
        if (!strcmp(g.summary.items[i].key, "seconds")) seconds_shown = !strcmp(g.summary.items[i].value, "11.2");
    }
    CHECK(seconds_shown);
    fc_run_log_free(&g);
    CHECK(g.train_loss.x == NULL);
}

/* A run resumed from its checkpoint at step 20 after logging up to 30: the
 * steps after 20 are the resumed run's, once each, in order. */
/* Gather and scale timed apart, as fcast writes them now. */
static void test_gather_and_scale(void) {
    const char *text = START STEP(10, 0.5)
        "{\"event\":\"profile\",\"step\":10,\"phases\":{\"sample\":0.1,\"gather\":0.2,\"scale\":0.05,"
        "\"forward\":0.3,\"loss\":0.4,\"backward\":0.5,\"optimizer\":0.6}}\n"
        "{\"event\":\"summary\",\"status\":\"completed\",\"steps\":10,\"phases\":{\"gather\":1.5,\"scale\":0.75}}\n";
    fc_run_log g;
    CHECK(parse(text, &g) == FC_OK);
    CHECK(!strcmp(fc_run_phase_names[1], "gather") && !strcmp(fc_run_phase_names[2], "scale"));
    CHECK(g.profile[1].n == 1 && g.profile[1].y[0] == 0.2 && g.profile[2].n == 1 && g.profile[2].y[0] == 0.05);
    CHECK(g.phase_seconds[1] == 1.5 && g.phase_seconds[2] == 0.75);
    fc_run_log_free(&g);
}

static void test_resumed(void) {
    const char *text = START STEP(10, 0.5) STEP(20, 0.4) STEP(30, 0.3)
        "{\"event\":\"start\",\"schema\":1,\"start_step\":20,\"config\":{\"model\":\"mlp\"}}\n"
        STEP(30, 0.29) STEP(40, 0.2);
    fc_run_log g;
    CHECK(parse(text, &g) == FC_OK);
    CHECK(g.n_starts == 2 && g.resumes.n == 1 && g.resumes.x[0] == 20);
    CHECK(g.train_loss.n == 4);
    for (size_t i = 1; i < g.train_loss.n; i++) CHECK(g.train_loss.x[i] > g.train_loss.x[i - 1]);
    CHECK(g.train_loss.y[2] == 0.29);
    CHECK(!strcmp(g.config.items[0].value, "nhits"));   /* the first start's configuration */
    CHECK(!g.has_summary);
    fc_run_log_free(&g);
    /* the interrupted run's summary, then the resumed run's: the last one holds */
    const char *two = START STEP(10, 0.5)
        "{\"event\":\"summary\",\"status\":\"interrupted\",\"out\":\"m\",\"error\":\"stopped by a signal\"}\n"
        "{\"event\":\"start\",\"schema\":1,\"start_step\":10}\n" STEP(20, 0.4)
        "{\"event\":\"summary\",\"status\":\"completed\",\"out\":null,\"error\":null}\n";
    CHECK(parse(two, &g) == FC_OK);
    CHECK(g.has_summary && !strcmp(g.status, "completed") && g.error == NULL && g.out == NULL);
    fc_run_log_free(&g);
}

static void test_forward_compatible(void) {
    const char *text = START
        "{\"event\":\"hyperparameter_sweep\",\"anything\":[1,2,3]}\n"
        "{\"event\":\"step\",\"step\":5,\"train_loss\":1.5,\"new_key\":{\"x\":1},\"lr\":0.1}\n";
    fc_run_log g;
    CHECK(parse(text, &g) == FC_OK);
    CHECK(g.train_loss.n == 1 && g.train_loss.y[0] == 1.5 && isnan(g.windows_per_s.y[0]));
    fc_run_log_free(&g);
}

static void check_error(const char *text, fc_status want, const char *needle) {
    fc_run_log g;
    fc_status st = parse(text, &g);
    CHECK_MSG(st == want, "status %d, want %d for %s", (int)st, (int)want, text);
    CHECK_CONTAINS(fc_last_error(), needle);
}

static void test_errors(void) {
    check_error(START "{\"event\":\"step\",\"step\":1,,}\n" STEP(2, 0.1), FC_ERR_PARSE, "run.jsonl:2: malformed JSON");
    check_error(START "\n\n[1,2]\n", FC_ERR_PARSE, "run.jsonl:4: a line should be a JSON object");
    check_error(START "{\"step\":1}\n", FC_ERR_PARSE, "run.jsonl:2: no \"event\"");
    check_error(START "{\"event\":\"step\",\"step\":\"ten\"}\n", FC_ERR_PARSE, "run.jsonl:2: field \"step\"");
    check_error(START "{\"event\":\"step\",\"train_loss\":1}\n", FC_ERR_PARSE, "step event has no \"step\"");
    check_error("{\"event\":\"start\",\"schema\":3}\n", FC_ERR_FORMAT, "run.jsonl:1: run log schema 3 is newer");
    /* A cut-off line followed by more lines is corruption, not a crash. */
    check_error(START "{\"event\":\"step\",\"st\n" STEP(2, 0.1), FC_ERR_PARSE, "run.jsonl:2:");
}

/* A crash mid-write leaves a last line without newline: shown, not refused. */
static void test_truncated_tail(void) {
    fc_run_log g;
    CHECK(parse(START STEP(10, 0.5) "{\"event\":\"step\",\"step\":20,\"train_lo", &g) == FC_OK);
    CHECK(g.truncated_tail && g.train_loss.n == 1 && !g.has_summary);
    fc_run_log_free(&g);
    CHECK(parse("", &g) == FC_OK && g.lines == 0);
    fc_run_log_free(&g);
    CHECK(fc_run_log_read("tests/fixtures/run_log.jsonl", &g) == FC_OK);
    CHECK(g.n_starts == 2 && g.has_summary && g.train_loss.n >= 300 && !g.truncated_tail);
    fc_run_log_free(&g);
    CHECK(fc_run_log_read("tests/fixtures/no_such_log.jsonl", &g) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "no_such_log.jsonl");
}

static void test_scale_and_ticks(void) {
    fc_scale s = {0, 10, 100, 200, 0};
    CHECK_CLOSE(fc_scale_map(&s, 5), 150, 1e-12, 0);
    fc_scale y = {0, 10, 300, 50, 0};   /* pixel y grows downwards */
    CHECK_CLOSE(fc_scale_map(&y, 10), 50, 1e-12, 0);
    fc_scale l = {1, 1000, 0, 300, 1};
    CHECK_CLOSE(fc_scale_map(&l, 10), 100, 1e-9, 0);
    double t[FC_CHART_MAX_TICKS], step;
    size_t n = fc_ticks_linear(0.13, 0.87, 6, t, &step);
    CHECK_CLOSE(step, 0.2, 1e-12, 0);
    CHECK(n == 4);
    CHECK_CLOSE(t[0], 0.2, 1e-12, 0);
    CHECK_CLOSE(t[3], 0.8, 1e-12, 0);
    n = fc_ticks_linear(-3, 3, 7, t, &step);
    CHECK(n == 7 && step == 1 && t[3] == 0 && !signbit(t[3]));
    CHECK(fc_ticks_linear(5, 5, 6, t, &step) == 1);
    CHECK(fc_ticks_linear(1e300, 1e300 * (1 + 1e-16), 6, t, &step) >= 1);   /* terminates */
    n = fc_ticks_log(0.05, 2, 8, t);
    CHECK(n == 6 && t[0] == 0.05 && t[5] == 2);
    n = fc_ticks_log(1e-6, 1e3, 8, t);
    CHECK(n == 10 && t[0] == 1e-6);   /* too many 1-2-5 marks: powers only */
    /* 1949-01-01 .. 1960-12-01 monthly: ticks on whole years. */
    double unit;
    n = fc_ticks_calendar(-662688000.0, -286416000.0, 8, t, &unit);
    char label[48];
    CHECK(n >= 4 && n <= 8);
    fc_axis_label(label, sizeof label, t[0], FC_AXIS_DATE, unit);
    CHECK_MSG(!strcmp(label, "1950") || !strcmp(label, "1949"), "%s", label);
    fc_axis_label(label, sizeof label, 0.0005, FC_AXIS_NUMBER, 0.0001);
    CHECK_MSG(!strcmp(label, "0.0005"), "%s", label);
    fc_axis_label(label, sizeof label, 15000, FC_AXIS_NUMBER, 5000);
    CHECK_MSG(!strcmp(label, "15k"), "%s", label);
    fc_axis_label(label, sizeof label, 5000, FC_AXIS_NUMBER, 5000);
    CHECK_MSG(!strcmp(label, "5000"), "%s", label);
    fc_axis_label(label, sizeof label, 3 * 1048576.0, FC_AXIS_BYTES, 0);
    CHECK_MSG(!strcmp(label, "3.00 MiB"), "%s", label);
}

/* The SVG of a chart: one path per line with every point, a missing value
 * breaking it, names escaped. */
static void test_chart_svg(void) {
    double x[5] = {1, 2, 3, 4, 5}, yv[5] = {1, 2, NAN, 4, 5};
    fc_chart_series s = {.name = "<b>&", .x = x, .y = yv, .n = 5};
    fc_chart c = {.title = "T", .x_label = "step", .y_label = "loss", .series = &s, .n_series = 1};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(fc_chart_write_svg(f, &c) == 1);
    fclose(f);
    CHECK_CONTAINS(buf, "<svg");
    CHECK_CONTAINS(buf, "&lt;b&gt;&amp;");
    CHECK(strstr(buf, "<b>") == NULL);
    const char *d = strstr(buf, "class=\"line\"");
    CHECK(d != NULL);
    int moves = 0, lines = 0;
    for (const char *p = d ? strstr(d, " d=\"") + 4 : ""; *p && *p != '"'; p++) { moves += *p == 'M'; lines += *p == 'L'; }
    CHECK_MSG(moves == 2 && lines == 2, "M %d L %d", moves, lines);
    free(buf);
    double none[1] = {NAN};
    fc_chart_series e = {.name = "e", .x = x, .y = none, .n = 1};
    fc_chart ce = {.title = "E", .series = &e, .n_series = 1};
    f = open_memstream(&buf, &len);
    CHECK(fc_chart_write_svg(f, &ce) == 0);
    fclose(f);
    CHECK(len == 0);
    free(buf);
}

static void test_forecast_table(void) {
    const char *csv = "unique_id,ds,NHITS,NHITS-lo-80,NHITS-hi-80\n"
                      "a,2000-01-01,1,0.5,1.5\na,2000-02-01,2,1.5,2.5\nb,2000-01-01,3,,\n";
    fc_forecast_table t;
    CHECK(fc_forecast_table_parse("f.csv", csv, strlen(csv), &t) == FC_OK);
    CHECK(t.n_cols == 3 && t.n_series == 2 && t.kind == FC_DS_DATE);
    CHECK(t.series[0].n == 2 && t.series[0].v[1 * 3 + 2] == 2.5 && isnan(t.series[1].v[1]));
    CHECK(fc_forecast_is_interval(t.cols[1]) && !fc_forecast_is_interval(t.cols[0]));
    size_t *pick, n;
    CHECK(fc_report_pick_series(&t, "f.csv", NULL, 4, &pick, &n) == FC_OK && n == 2 && pick[1] == 1);
    free(pick);
    CHECK(fc_report_pick_series(&t, "f.csv", "b", 4, &pick, &n) == FC_OK && n == 1 && pick[0] == 1);
    free(pick);
    CHECK(fc_report_pick_series(&t, "f.csv", "b,zz", 4, &pick, &n) == FC_ERR_INVALID && pick == NULL);
    CHECK_CONTAINS(fc_last_error(), "'zz' is not a series of f.csv");
    fc_forecast_table_free(&t);
    const char *bad = "unique_id,ds,NHITS\na,2000-01-01,x\n";
    CHECK(fc_forecast_table_parse("f.csv", bad, strlen(bad), &t) == FC_ERR_PARSE);
    CHECK_CONTAINS(fc_last_error(), "f.csv:2: column 'NHITS'");
    const char *order = "unique_id,ds,NHITS\na,2,1\na,1,1\n";
    CHECK(fc_forecast_table_parse("f.csv", order, strlen(order), &t) == FC_ERR_PARSE);
    CHECK_CONTAINS(fc_last_error(), "f.csv:3: series 'a'");
    const char *noid = "ds,NHITS\n1,2\n";
    CHECK(fc_forecast_table_parse("f.csv", noid, strlen(noid), &t) == FC_ERR_PARSE);
    CHECK_CONTAINS(fc_last_error(), "unique_id");
}

/* The whole page escapes what came from the log. */
static void test_page_escapes(void) {
    const char *text = "{\"event\":\"start\",\"schema\":1,\"config\":{\"data\":\"<script>alert(1)</script>\"}}\n"
                       STEP(1, 0.5) STEP(2, 0.4);
    fc_run_log g;
    CHECK(parse(text, &g) == FC_OK);
    fc_report r = {.log_path = "x<y>.jsonl", .log = &g};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(fc_report_write_html(f, &r) == FC_OK);
    fclose(f);
    CHECK(strstr(buf, "<script") == NULL);
    CHECK_CONTAINS(buf, "&lt;script&gt;");
    CHECK_CONTAINS(buf, "x&lt;y&gt;.jsonl");
    CHECK_CONTAINS(buf, "no summary");
    free(buf);
    fc_run_log_free(&g);
}

int main(void) {
    test_every_event();
    test_gather_and_scale();
    test_resumed();
    test_forward_compatible();
    test_errors();
    test_truncated_tail();
    test_scale_and_ticks();
    test_chart_svg();
    test_forecast_table();
    test_page_escapes();
    return CHECK_DONE();
}
