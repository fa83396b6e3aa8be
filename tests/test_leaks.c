/* Repeated fit and predict in one process keep memory flat: ten rounds of
 * creating N-HiTS, training it (with validation), predicting every series
 * and freeing it. After the first two rounds (which build and cache the
 * kernels) the resident size between rounds must not grow by more than
 * 1 MiB over eight rounds; leaking one model's parameters per round would
 * add 80 MiB. (Without the CPU backend's fixed mmap threshold, glibc's
 * retention made this size swing by 60 MiB between rounds with no leak.) */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "core/error.h"
#include "core/memory_stats.h"
#include "train/forecaster.h"

static void fit_and_predict(fc_backend *be, const fc_dataset *ds) {
    fc_forecaster f = {.scaler = FC_SCALER_STANDARD};
    fc_model_config c;
    fc_model_config_default(&c, FC_MODEL_NHITS, 48, 96);
    CHECK(fc_model_create(&c, be, &f.model) == FC_OK && fc_model_init_params(f.model, 1) == FC_OK);
    fc_train_options o;
    fc_train_summary s;
    fc_train_options_default(&o);
    o.max_steps = 5, o.windows_batch_size = 256, o.verbose = 0, o.val_size = 48, o.val_check_steps = 5;
    CHECK_MSG(fc_train(&f, ds, &o, &s) == FC_OK, "%s", fc_last_error());
    float *out = malloc(ds->n_series * c.h * sizeof *out);
    CHECK(out && fc_predict(&f, ds, out) == FC_OK);
    free(out);
    fc_forecaster_free(&f);
}

int main(void) {
    fc_dataset *ds = NULL;
    fc_load_options lo = {.drop_exog = 1};
    fc_backend *be = NULL;
    CHECK(fc_dataset_load_csv("data/taylor_halfhourly.csv", &lo, &ds) == FC_OK);
    CHECK(fc_backend_cpu_create(1, &be) == FC_OK);
    if (!ds || !be) return CHECK_DONE();
    size_t level = 0;
    for (int round = 0; round < 10; round++) {
        fit_and_predict(be, ds);
        if (round == 1) level = fc_rss_current();
    }
    size_t last = fc_rss_current();
    printf("resident after round 2: %zu bytes, after round 10: %zu bytes\n", level, last);
    if (CHECK_RESIDENT_SIZES)
        CHECK_MSG(last <= level + ((size_t)1 << 20), "grew by %zd bytes over 8 rounds", (ssize_t)(last - level));
    fc_backend_destroy(&be);
    fc_dataset_free(&ds);
    return CHECK_DONE();
}
