/* fcast_plan_file (`fcast plan` through the library), against independent
 * truth by public names only:
 *
 *   1. the plan is the one fcast_train_file runs under: its total is the
 *      report's memory_plan of the same configuration trained;
 *   2. its items add up to the total, largest first, and the bytes per
 *      window are the items' shares;
 *   3. under a limit, largest_batch is the batch fcast_train_file names
 *      when it refuses a run over the limit, and it is the largest: its
 *      plan fits, one more window does not;
 *   4. "data-store" stream: the report says the rows were streamed;
 *   5. refusals name keys (flags under FCAST_NAMES_FLAGS). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fcast.h"

#define DATA "data/monthly_classics.csv"

static fcast_config *config(void) {
    fcast_config *c = NULL;
    CHECK_MSG(fcast_config_new("mlp", 6, 12, &c) == FC_OK, "%s", fc_last_error());
    const char *kv[][2] = {{"max-steps", "2"}, {"windows-batch-size", "64"}, {"threads", "1"}, {"verbose", "off"},
                           {"num-layers", "1"}, {"hidden-size", "16"}};
    for (size_t i = 0; c && i < sizeof kv / sizeof *kv; i++)
        CHECK_MSG(fcast_config_set(c, kv[i][0], kv[i][1]) == FC_OK, "%s: %s", kv[i][0], fc_last_error());
    return c;
}

static fcast_plan_report plan(const fcast_config *c) {
    fcast_plan_report r;
    memset(&r, 0xff, sizeof r);
    CHECK_MSG(fcast_plan_file(c, DATA, &r) == FC_OK, "%s", fc_last_error());
    return r;
}

static void plan_is_the_runs(void) {
    fcast_config *c = config();
    fcast_plan_report p = plan(c);
    CHECK(!strcmp(p.model, "MLP") && !strcmp(p.precision, "fp32"));
    CHECK(p.h == 6 && p.input_size == 12 && p.windows_batch_size == 64 && p.memory_limit == 0);
    fcast_model *m = NULL;
    fcast_train_report t;
    CHECK_MSG(fcast_train_file(c, DATA, NULL, NULL, NULL, &m) == FC_OK, "%s", fc_last_error());
    CHECK(fcast_model_train_report(m, &t) == FC_OK);
    CHECK_MSG(t.memory_plan == p.total, "train planned %zu, plan %zu", t.memory_plan, p.total);
    size_t sum = 0, per_window = 0;
    for (size_t i = 0; i < p.n_items; i++) {
        sum += p.items[i].bytes;
        per_window += p.items[i].per_window;
        CHECK(p.items[i].name && (i == 0 || p.items[i - 1].bytes >= p.items[i].bytes));
    }
    CHECK(p.n_items > 3 && sum == p.total && per_window == p.per_window);
    CHECK(!p.data_streamed && !p.data_estimated);   /* no limit: nothing to estimate against */
    fcast_model_free(m);
    fcast_config_free(c);
}

static void largest_batch_is_trains_advice(void) {
    fcast_config *c = config();   /* wide, so half its plan is well above the allowance for code */
    CHECK(fcast_config_set(c, "hidden-size", "1024") == FC_OK && fcast_config_set(c, "data-store", "memory") == FC_OK);
    CHECK(fcast_config_set(c, "windows-batch-size", "4096") == FC_OK);
    size_t big = plan(c).total;
    CHECK_MSG(big > ((size_t)64 << 20), "plan of %zu bytes", big);
    char limit[64], batch[32], advice[96];
    snprintf(limit, sizeof limit, "%zu", big / 2);   /* bytes */
    CHECK(fcast_config_set(c, "memory-limit", limit) == FC_OK);
    fcast_plan_report p = plan(c);
    CHECK(p.memory_limit == big / 2 && p.total > p.memory_limit && p.largest_batch > 0 && p.largest_batch < 4096);
    CHECK(p.data_estimated && p.data_rows > 0 && p.data_load_peak > 0);
    fcast_model *m = NULL;
    CHECK(fcast_train_file(c, DATA, NULL, NULL, NULL, &m) == FC_ERR_MEMORY && !m);
    snprintf(advice, sizeof advice, "the largest windows-batch-size that fits is %zu", p.largest_batch);
    CHECK_CONTAINS(fc_last_error(), advice);
    snprintf(batch, sizeof batch, "%zu", p.largest_batch);
    CHECK(fcast_config_set(c, "windows-batch-size", batch) == FC_OK);
    CHECK(plan(c).total <= p.memory_limit);
    snprintf(batch, sizeof batch, "%zu", p.largest_batch + 1);
    CHECK(fcast_config_set(c, "windows-batch-size", batch) == FC_OK);
    CHECK(plan(c).total > p.memory_limit);
    fcast_config_free(c);
}

static void streamed(void) {
    fcast_config *c = config();
    CHECK(fcast_config_set(c, "data-store", "stream") == FC_OK);
    fcast_plan_report p = plan(c);
    CHECK(p.data_streamed && p.data_store_bytes > 0 && p.data_stream_heap > 0);
    fcast_config_free(c);
}

static void refusals(void) {
    fcast_config *c = config();
    fcast_plan_report p;
    CHECK(fcast_plan_file(NULL, DATA, &p) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "fcast_plan_file");
    CHECK(fcast_plan_file(c, "/nonexistent-data.csv", &p) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "/nonexistent-data.csv");
    CHECK(fcast_config_set(c, "hist-exog", "nope") == FC_OK);
    CHECK(fcast_plan_file(c, DATA, &p) != FC_OK);
    CHECK_CONTAINS(fc_last_error(), "nope");
    fcast_config_free(c);
    c = config();
    CHECK(fcast_config_set(c, "data-store", "memory") == FC_OK && fcast_config_set(c, "memory-limit", "1KiB") == FC_OK);
    CHECK(fcast_plan_file(c, DATA, &p) == FC_ERR_MEMORY);
    CHECK_CONTAINS(fc_last_error(), "memory-limit");
    CHECK(strstr(fc_last_error(), "--memory-limit") == NULL);
    fcast_set_option_names(FCAST_NAMES_FLAGS);
    CHECK(fcast_plan_file(c, DATA, &p) == FC_ERR_MEMORY);
    CHECK_CONTAINS(fc_last_error(), "--memory-limit");
    fcast_set_option_names(FCAST_NAMES_KEYS);
    fcast_config_free(c);
}

int main(void) {
    plan_is_the_runs();
    largest_batch_is_trains_advice();
    streamed();
    refusals();
    return CHECK_DONE();
}
