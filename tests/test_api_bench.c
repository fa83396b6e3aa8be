/* fcast_bench_train (`fcast bench train` through the library), by public
 * names only:
 *
 *   1. its training is the default N-HiTS's: the validation MAE of a
 *      precision is fcast_train's best validation loss for the same
 *      configuration (standard scaler, 48 points held out, one validation
 *      at the end), and its figures are positive and consistent;
 *   2. the precisions come in the order asked, with their kernels;
 *   3. refusals name keys (flags under FCAST_NAMES_FLAGS). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "backend/cpu/cpu_backend.h"
#include "fcast.h"

#define STEPS "3"

static fcast_bench_request request(void) {
    fcast_bench_request r;
    fcast_bench_defaults(&r);
    r.steps = 3;
    r.warmup = 0;
    r.threads = 1;
    r.windows_batch_size = 64;
    r.device = "cpu";
    return r;
}

static double trained_val_mae(const char *data) {
    fcast_config *c = NULL;
    CHECK(fcast_config_new("nhits", 48, 96, &c) == FC_OK);
    const char *kv[][2] = {{"max-steps", STEPS}, {"windows-batch-size", "64"}, {"threads", "1"}, {"device", "cpu"},
                           {"scaler", "standard"}, {"val-size", "48"}, {"val-check-steps", STEPS}, {"verbose", "off"}};
    for (size_t i = 0; c && i < sizeof kv / sizeof *kv; i++)
        CHECK_MSG(fcast_config_set(c, kv[i][0], kv[i][1]) == FC_OK, "%s: %s", kv[i][0], fc_last_error());
    fcast_model *m = NULL;
    fcast_train_report t = {0};
    CHECK_MSG(fcast_train_file(c, data, NULL, NULL, NULL, &m) == FC_OK, "%s", fc_last_error());
    if (m) CHECK(fcast_model_train_report(m, &t) == FC_OK);
    fcast_model_free(m);
    fcast_config_free(c);
    return t.best_val_loss;
}

static void bench_is_the_default_training(void) {
    fcast_bench_request r = request();
    r.precisions = "fp32";
    fcast_bench_report b;
    CHECK_MSG(fcast_bench_train(&r, &b) == FC_OK, "%s", fc_last_error());
    CHECK(!strcmp(b.device, "cpu") && !b.gpu && b.threads == 1 && b.n_runs == 1);
    const fcast_bench_run *x = &b.runs[0];
    CHECK(!strcmp(x->precision, "fp32") && !strcmp(x->kernel, "oneDNN") && !x->torch_ok);
    CHECK(x->peak_gflops > 0 && x->windows_per_second > 0 && x->gflops > 0 && x->step_seconds > 0);
    CHECK(isfinite(x->val_mae) && x->val_mae > 0);
    double trained = trained_val_mae(r.data);
    CHECK_CLOSE(x->val_mae, trained, 1e-6, 1e-5);
}

static void precisions_in_order(void) {
    fcast_bench_request r = request();
    r.steps = 1;
    r.precisions = "bf16,fp32";
    fcast_bench_report b;
    CHECK_MSG(fcast_bench_train(&r, &b) == FC_OK, "%s", fc_last_error());
    CHECK(b.n_runs == 2 && !strcmp(b.runs[0].precision, "bf16") && !strcmp(b.runs[1].precision, "fp32"));
    const char *engine = fc_backend_cpu_bf16_kernel_name();   /* the backend's own answer */
    const char *want = !strcmp(engine, "oneDNN") || !strcmp(engine, FC_BF16_KERNEL_CARRIED) ? engine
                     : b.bf16_on_fcast_amx ? "fcast AMX" : "fcast AVX512-BF16";
    CHECK_MSG(!strcmp(b.runs[0].kernel, want), "bf16 kernel %s, backend says %s", b.runs[0].kernel, engine);
    CHECK(b.bf16_on_fcast_amx == fc_backend_cpu_uses_amx());
    r.precisions = NULL;   /* the CPU's: fp32 and bf16 */
    CHECK_MSG(fcast_bench_train(&r, &b) == FC_OK, "%s", fc_last_error());
    CHECK(b.n_runs == 2 && !strcmp(b.runs[0].precision, "fp32") && !strcmp(b.runs[1].precision, "bf16"));
}

static void refusals(void) {
    fcast_bench_request r = request();
    fcast_bench_report b;
    r.steps = 0;
    CHECK(fcast_bench_train(&r, &b) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "steps must be between 1 and 100000");
    CHECK(strstr(fc_last_error(), "--steps") == NULL);
    r = request();
    r.precisions = "fp32,fp33";
    CHECK(fcast_bench_train(&r, &b) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "precisions 'fp32,fp33'");
    r.precisions = "fp32,fp32";
    fcast_set_option_names(FCAST_NAMES_FLAGS);
    CHECK(fcast_bench_train(&r, &b) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--precisions 'fp32,fp32' names fp32 twice");
    fcast_set_option_names(FCAST_NAMES_KEYS);
    r = request();
    r.data = "/nonexistent-data.csv";
    CHECK(fcast_bench_train(&r, &b) == FC_ERR_IO);
    r = request();
    r.device = "gpu";
    CHECK(fcast_bench_train(&r, &b) == FC_ERR_INVALID);
    CHECK(fcast_bench_train(NULL, &b) == FC_ERR_INVALID);
}

int main(void) {
    bench_is_the_default_training();
    precisions_in_order();
    refusals();
    return CHECK_DONE();
}
