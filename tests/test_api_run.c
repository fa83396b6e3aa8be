/* A training run through the library as `fcast train` runs it (fcast.h),
 * by public names only:
 *
 *   1. the loss keys may come in any order (the loss after its
 *      parameters), and a parameter of another loss, or level and
 *      quantiles together, is refused by fcast_config_check, naming them;
 *   2. fcast_train_file with "out": the file it writes equals
 *      fcast_model_save's of the same run, its forecasts are those of the
 *      same run on fcast_data_open's panel, and the report says what ran
 *      (steps, precision, the model file, a memory plan under the limit,
 *      the arena in use, phase times that add up);
 *   3. the operations keys: a memory limit below the plan refuses the run
 *      before training with FC_ERR_MEMORY naming the plan; an output in a
 *      missing directory is refused before the data is read; bad values
 *      name their key;
 *   4. FCAST_NAMES_FLAGS makes the same messages name --flags. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fcast.h"

#define H 6
#define L 12
#define DATA "data/monthly_classics.csv"

static fcast_config *config(void) {
    fcast_config *c = NULL;
    CHECK_MSG(fcast_config_new("mlp", H, L, &c) == FC_OK, "%s", fc_last_error());
    const char *kv[][2] = {{"max-steps", "6"}, {"windows-batch-size", "32"}, {"threads", "1"}, {"seed", "3"},
                           {"num-layers", "1"}, {"hidden-size", "16"}};
    for (size_t i = 0; c && i < sizeof kv / sizeof *kv; i++)
        CHECK_MSG(fcast_config_set(c, kv[i][0], kv[i][1]) == FC_OK, "%s: %s", kv[i][0], fc_last_error());
    return c;
}

static void loss_keys_any_order(void) {
    fcast_config *c = config();
    CHECK(fcast_config_set(c, "level", "80,95") == FC_OK);   /* before the loss */
    CHECK(fcast_config_check(c) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "level is a parameter of loss mq, huber-mq or a distribution, not of loss mae");
    CHECK(fcast_config_set(c, "loss", "mq") == FC_OK);
    CHECK_MSG(fcast_config_check(c) == FC_OK, "%s", fc_last_error());
    CHECK(fcast_config_set(c, "quantiles", "0.1,0.9") == FC_OK && fcast_config_check(c) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "level and quantiles both given");
    fcast_config_free(c);
    c = config();
    CHECK(fcast_config_set(c, "season", "12") == FC_OK && fcast_config_set(c, "loss", "mase") == FC_OK);
    CHECK(fcast_config_check(c) == FC_ERR_INVALID);   /* not below the input size */
    CHECK_CONTAINS(fc_last_error(), "season 12 must be at least 1 and below input-size 12");
    fcast_config_free(c);
}

static float *forecasts(const fcast_model *m, const fcast_data *d) {
    size_t n = fcast_data_n_series(d) * H;
    float *out = calloc(n ? n : 1, sizeof *out);
    CHECK_MSG(fcast_predict(m, d, out, n) == FC_OK, "%s", fc_last_error());
    return out;
}

static int same_file(const char *a, const char *b) {
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb, ca, cb;
    while (same && ((ca = fgetc(fa)) != EOF) | ((cb = fgetc(fb)) != EOF)) same = ca == cb;
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

static void report_of(const fcast_model *m, const char *out) {
    fcast_train_report r;
    CHECK(fcast_model_train_report(m, &r) == FC_OK);
    CHECK(r.steps == 6 && r.max_steps == 6 && r.start_step == 0 && !r.early_stopped);
    CHECK(isnan(r.best_val_loss) && isfinite(r.last_train_loss) && r.windows_batch_size == 32);
    CHECK(!strcmp(r.precision, "fp32") && !strcmp(r.device, "cpu") && r.kernel && r.checkpoint == NULL);
    CHECK(r.model_file && !strcmp(r.model_file, out));
    CHECK(r.memory_plan > 0 && r.memory_limit == (size_t)256 << 20 && r.memory_plan <= r.memory_limit);
    CHECK(r.arena_size > 0 && r.arena_used > 0 && r.arena_used <= r.arena_size && r.resident_peak > 0);
    double total = 0;
    for (size_t p = 0; p < FCAST_PHASES; p++) total += r.phase_seconds[p];
    CHECK(total > 0 && total <= r.seconds * 1.01 + 1e-3);
    CHECK(!strcmp(fcast_phase_name(1), "gather") && !strcmp(fcast_phase_name(3), "forward") && fcast_phase_name(FCAST_PHASES) == NULL);
}

static void train_file_writes_and_reports(void) {
    char out[] = "/tmp/fcast_test_api_run_XXXXXX";
    CHECK(mkdtemp(out) != NULL);
    char model[128], saved[128];
    snprintf(model, sizeof model, "%s/m.safetensors", out);
    snprintf(saved, sizeof saved, "%s/saved.safetensors", out);
    fcast_config *c = config();
    CHECK(fcast_config_set(c, "out", model) == FC_OK && fcast_config_set(c, "memory-limit", "256MiB") == FC_OK);
    fcast_model *m = NULL, *again = NULL;
    CHECK_MSG(fcast_train_file(c, DATA, NULL, NULL, NULL, &m) == FC_OK, "%s", fc_last_error());
    if (m) report_of(m, model);
    CHECK(m && fcast_model_save(m, saved) == FC_OK && same_file(model, saved));
    fcast_data *d = NULL;
    CHECK_MSG(fcast_data_open(c, DATA, &d) == FC_OK, "%s", fc_last_error());
    CHECK(fcast_config_set(c, "out", saved) == FC_OK);
    CHECK_MSG(d && fcast_train(c, d, NULL, NULL, NULL, &again) == FC_OK, "%s", fc_last_error());
    float *a = m ? forecasts(m, d) : NULL, *b = again ? forecasts(again, d) : NULL;
    CHECK(a && b && !memcmp(a, b, fcast_data_n_series(d) * H * sizeof *a));
    free(a), free(b);
    fcast_model_free(m), fcast_model_free(again);
    fcast_data_free(d);
    fcast_config_free(c);
    remove(model), remove(saved), rmdir(out);
}

static void operations_refusals(void) {
    fcast_config *c = config();
    fcast_model *m = NULL;
    CHECK(fcast_config_set(c, "memory-limit", "17MiB") == FC_OK);
    CHECK(fcast_config_set(c, "windows-batch-size", "100000") == FC_OK);
    CHECK(fcast_train_file(c, DATA, NULL, NULL, NULL, &m) == FC_ERR_MEMORY && m == NULL);
    CHECK_CONTAINS(fc_last_error(), "memory-limit 17.0 MiB: this run needs");
    CHECK_CONTAINS(fc_last_error(), "the largest windows-batch-size that fits is");
    CHECK(fcast_config_set(c, "memory-limit", "1GiB") == FC_OK);
    CHECK(fcast_config_set(c, "out", "/nonexistent-dir/m.safetensors") == FC_OK);
    CHECK(fcast_train_file(c, "/nonexistent-data.csv", NULL, NULL, NULL, &m) == FC_ERR_IO && m == NULL);
    CHECK_CONTAINS(fc_last_error(), "out /nonexistent-dir/m.safetensors");   /* the output, not the data */
    CHECK(fcast_config_set(c, "device", "gpu") == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "device 'gpu'");
    CHECK(fcast_config_set(c, "tf32", "maybe") == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "tf32 'maybe': expected on or off");
    CHECK(fcast_config_set(c, "data-store", "disk") == FC_ERR_INVALID);
    CHECK(fcast_config_set(c, "windows-batch-size", "auto") == FC_OK);
    fcast_set_option_names(FCAST_NAMES_FLAGS);
    CHECK(fcast_config_set(c, "tf32", "maybe") == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--tf32 'maybe': expected on or off");
    CHECK(fcast_config_set(c, "max-steps", "0") == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--max-steps '0'");
    CHECK(fcast_config_set(c, "season", "3") == FC_OK && fcast_config_check(c) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--season is a parameter of --loss mase, not of --loss mae");
    fcast_set_option_names(FCAST_NAMES_KEYS);
    fcast_config_free(c);
}

int main(void) {
    loss_keys_any_order();
    train_file_writes_and_reports();
    operations_refusals();
    return CHECK_DONE();
}
