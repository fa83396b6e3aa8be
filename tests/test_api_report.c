/* fcast_report_html (`fcast report` through the library), by public names
 * only:
 *
 *   1. a run log (the fixture of a real run) becomes one page that loads
 *      nothing from the network;
 *   2. forecasts (written here, in fcast predict's columns) are drawn for
 *      the series asked, only those, with the actuals under them;
 *   3. refusals name keys (flags under FCAST_NAMES_FLAGS): actuals or
 *      series without forecasts, an unknown series, an output that is an
 *      input; nothing is written on a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fcast.h"

#define LOG "tests/fixtures/run_log.jsonl"

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = s ? fread(s, 1, (size_t)n, f) : 0;
    fclose(f);
    if (s) s[got] = 0;
    return s;
}

/* Forecasts of two series over 1960, as fcast predict writes them. */
static void write_forecasts(const char *path) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fprintf(f, "unique_id,ds,NHITS\n");
    for (int s = 0; s < 2; s++)
        for (int m = 1; m <= 12; m++) fprintf(f, "%s,1960-%02d-01,%d\n", s ? "gas" : "AirPassengers", m, 400 + m);
    fclose(f);
}

static void page_of_a_run(const char *dir) {
    char out[512];
    snprintf(out, sizeof out, "%s/run.html", dir);
    fcast_report_request r = {.log = LOG, .out = out};
    CHECK_MSG(fcast_report_html(&r) == FC_OK, "%s", fc_last_error());
    char *page = slurp(out);
    CHECK(page != NULL);
    if (!page) return;
    CHECK_CONTAINS(page, "<h1>fcast training report</h1>");
    CHECK_CONTAINS(page, "<svg");
    CHECK(!strstr(page, "<script src=") && !strstr(page, "<link "));
    free(page);
}

static void forecasts_drawn(const char *dir) {
    char fc[512], out[512];
    snprintf(fc, sizeof fc, "%s/fc.csv", dir);
    snprintf(out, sizeof out, "%s/fc.html", dir);
    write_forecasts(fc);
    fcast_report_request r = {.log = LOG, .forecasts = fc, .actuals = "data/monthly_classics.csv", .out = out};
    CHECK_MSG(fcast_report_html(&r) == FC_OK, "%s", fc_last_error());
    char *page = slurp(out);
    CHECK(page && strstr(page, ">AirPassengers</text>") && strstr(page, ">gas</text>"));
    free(page);
    r.series = "gas";
    CHECK_MSG(fcast_report_html(&r) == FC_OK, "%s", fc_last_error());
    page = slurp(out);
    CHECK(page && strstr(page, ">gas</text>") && !strstr(page, ">AirPassengers</text>"));
    free(page);
}

static void refusals(const char *dir) {
    char fc[512], out[512];
    snprintf(fc, sizeof fc, "%s/fc.csv", dir);
    snprintf(out, sizeof out, "%s/never.html", dir);
    fcast_report_request r = {.log = LOG, .actuals = "data/monthly_classics.csv", .out = out};
    CHECK(fcast_report_html(&r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "actuals needs forecasts");
    CHECK(fcast_report_html(NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "(log) is needed");
    r = (fcast_report_request){.log = LOG, .series = "gas", .out = out};
    fcast_set_option_names(FCAST_NAMES_FLAGS);
    CHECK(fcast_report_html(&r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--series needs --forecasts");
    fcast_set_option_names(FCAST_NAMES_KEYS);
    r.forecasts = fc;
    r.series = "gas,nope";
    CHECK(fcast_report_html(&r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "'nope'");
    r = (fcast_report_request){.log = LOG, .forecasts = fc, .out = fc};
    CHECK(fcast_report_html(&r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "out");
    r = (fcast_report_request){.log = "/nonexistent-run.jsonl", .out = out};
    CHECK(fcast_report_html(&r) == FC_ERR_IO);
    CHECK(access(out, F_OK) != 0);   /* nothing written on a failure */
}

int main(void) {
    char dir[] = "/tmp/test_api_report_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    page_of_a_run(dir);
    forecasts_drawn(dir);
    refusals(dir);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return CHECK_DONE();
}
