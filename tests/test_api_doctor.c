/* fcast_doctor_run (`fcast doctor` through the library), by public names
 * only:
 *
 *   1. the conclusion's largest windows batch is fcast_plan_file's for the
 *      default N-HiTS (h 48, input 96) on the same data, precision and
 *      limit, on the device the doctor chose;
 *   2. the text, the JSON and the summary say the same answers;
 *   3. quick measures nothing (peaks 0, "not measured");
 *   4. refusals name keys (flags under FCAST_NAMES_FLAGS). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fcast.h"

#define DATA "data/taylor_halfhourly.csv"

static size_t planned_batch(const fcast_doctor_summary *s) {
    fcast_config *c = NULL;
    char limit[32];
    snprintf(limit, sizeof limit, "%zu", s->memory_limit);
    CHECK(fcast_config_new("nhits", 48, 96, &c) == FC_OK);
    CHECK(fcast_config_set(c, "precision", s->precision) == FC_OK);
    CHECK(fcast_config_set(c, "memory-limit", limit) == FC_OK);
    CHECK(fcast_config_set(c, "device", s->device) == FC_OK);
    CHECK(fcast_config_set(c, "verbose", "off") == FC_OK);
    char threads[16];
    snprintf(threads, sizeof threads, "%d", s->threads);
    CHECK(fcast_config_set(c, "threads", threads) == FC_OK);
    fcast_plan_report p;
    CHECK_MSG(fcast_plan_file(c, DATA, &p) == FC_OK, "%s", fc_last_error());
    fcast_config_free(c);
    return p.largest_batch;
}

static void conclusion_is_the_plans(void) {
    fcast_doctor_request r = {.memory_limit = "256MiB", .data = DATA, .threads = 1, .quick = 1};
    fcast_doctor *d = NULL;
    CHECK_MSG(fcast_doctor_run(&r, &d) == FC_OK, "%s", fc_last_error());
    if (!d) return;
    fcast_doctor_summary s;
    CHECK(fcast_doctor_summary_get(d, &s) == FC_OK);
    CHECK(s.memory_limit == (size_t)256 << 20 && !strcmp(s.memory_limit_source, "--memory-limit"));
    CHECK(!strcmp(s.plan_data, DATA) && s.threads == 1 && s.logical_cpus >= 1);
    CHECK(s.cpu_peak_gflops[0] == 0 && s.cpu_peak_gflops[1] == 0);   /* quick */
    CHECK(!strcmp(s.precision, "fp32") || !strcmp(s.precision, "bf16"));
    CHECK(s.largest_windows_batch_size > 0);
    size_t planned = planned_batch(&s);
    CHECK_MSG(s.largest_windows_batch_size == planned, "doctor %zu, plan %zu", s.largest_windows_batch_size, planned);
    char line[128];
    snprintf(line, sizeof line, "(--memory-limit): %zu\n", s.largest_windows_batch_size);
    CHECK_CONTAINS(fcast_doctor_text(d), line);
    CHECK_CONTAINS(fcast_doctor_text(d), "matrix-product peak: not measured (--quick)");
    json_error_t err;
    json_t *j = json_loads(fcast_doctor_json(d), 0, &err);
    CHECK_MSG(j != NULL, "%s", err.text);
    json_t *c = json_object_get(j, "conclusion");
    CHECK((size_t)json_integer_value(json_object_get(c, "largest_windows_batch_size")) == s.largest_windows_batch_size);
    CHECK(!strcmp(json_string_value(json_object_get(c, "device")), s.device));
    CHECK(json_is_null(json_object_get(json_object_get(json_object_get(j, "cpu"), "peak_gflops"), "fp32")));
    json_decref(j);
    fcast_doctor_free(d);
}

static void refusals(void) {
    fcast_doctor *d = NULL;
    fcast_doctor_request r = {.memory_limit = "lots", .quick = 1};
    CHECK(fcast_doctor_run(&r, &d) == FC_ERR_INVALID && !d);
    CHECK_CONTAINS(fc_last_error(), "memory-limit 'lots'");
    CHECK(strstr(fc_last_error(), "--memory-limit") == NULL);
    r = (fcast_doctor_request){.threads = 2000, .quick = 1};
    fcast_set_option_names(FCAST_NAMES_FLAGS);
    CHECK(fcast_doctor_run(&r, &d) == FC_ERR_INVALID && !d);
    CHECK_CONTAINS(fc_last_error(), "--threads must be at most 1024");
    fcast_set_option_names(FCAST_NAMES_KEYS);
    r = (fcast_doctor_request){.data = "/nonexistent-data.csv", .memory_limit = "1GiB", .quick = 1};
    CHECK(fcast_doctor_run(&r, &d) == FC_ERR_IO && !d);
    CHECK(fcast_doctor_run(NULL, &d) == FC_ERR_INVALID);
    fcast_doctor_summary s;
    CHECK(fcast_doctor_summary_get(NULL, &s) == FC_ERR_INVALID && fcast_doctor_text(NULL) == NULL);
    fcast_doctor_free(NULL);
}

int main(void) {
    conclusion_is_the_plans();
    refusals();
    return CHECK_DONE();
}
