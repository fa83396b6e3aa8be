/* The training loop's bookkeeping against hand computations:
 *  - with all weights zero every block outputs 0, so N-HiTS forecasts the
 *    Naive1 level (the last input value): the validation loss must equal the
 *    mean |y - last value| over the validation windows, computed here;
 *  - early stopping: with a learning rate too small to change the
 *    validation loss, patience K stops after K checks past the first;
 *  - training lowers the loss on a noiseless seasonal series, in fp32, bf16
 *    and fp16;
 *  - K micro-batches of W windows give the gradient of one batch of K*W
 *    (the same windows: the sampler draws the whole effective batch), seen
 *    through the global gradient norm the optimizer reports;
 *  - fp16 on data beyond its range stops with an explanation;
 *  - on the bundled electricity demand, the same trained weights forecast
 *    the validation windows with bf16 / fp16 products within 1% of the
 *    fp32 MAE (the numerical cost of the precision itself, free of the
 *    seed-like divergence of two training runs). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/error.h"
#include "train/forecaster.h"

enum { N_POINTS = 200, L = 12, H = 4, VAL = 8 };

static fc_dataset *seasonal_dataset_at(double level, double amplitude) {
    fc_dataset *d = NULL;
    CHECK(fc_dataset_alloc(1, N_POINTS, 0, &d) == FC_OK);
    d->offsets[0] = 0;
    d->offsets[1] = N_POINTS;
    for (size_t t = 0; t < N_POINTS; t++) {
        d->ds[t] = (int64_t)t;
        d->y[t] = level + amplitude * sin(2.0 * M_PI * (double)t / 12.0) + 0.01 * (double)t;
        d->mask[t] = 1;
    }
    d->ids[0] = strdup("s");
    d->source = strdup("synthetic");
    return d;
}

static fc_dataset *seasonal_dataset(void) { return seasonal_dataset_at(10.0, 3.0); }

static fc_forecaster small_nhits(fc_backend *be) {
    fc_forecaster f = {0};
    fc_model_config c;
    fc_model_config_default(&c, FC_MODEL_NHITS, H, L);
    c.n_units = 3;
    for (int i = 0; i < 3; i++) c.mlp_units[i][0] = c.mlp_units[i][1] = 16;
    CHECK(fc_model_create(&c, be, &f.model) == FC_OK);
    CHECK(fc_model_init_params(f.model, 1) == FC_OK);
    return f;
}

static void validation_of_naive_level(fc_backend *be, const fc_dataset *d) {
    fc_forecaster f = small_nhits(be);
    memset(f.model->params, 0, f.model->n_floats * sizeof(float));
    fc_window_spec spec = {L, H, 2, VAL, 0, 0, 0, 0};
    double loss = -1, want = 0;
    size_t n = 0;
    CHECK(fc_validate(&f, d, &spec, &loss) == FC_OK);
    for (size_t start = N_POINTS - L - VAL; start + L + H <= N_POINTS; start += 2)   /* windows every step_size */
        for (size_t k = 0; k < H; k++, n++) want += fabs(d->y[start + L + k] - (float)d->y[start + L - 1]);
    CHECK(n == 3 * H);
    CHECK_CLOSE(loss, want / (double)n, 1e-5, 1e-5);
    fc_forecaster_free(&f);
}

static void early_stopping(fc_backend *be, const fc_dataset *d) {
    fc_forecaster f = small_nhits(be);
    fc_train_options o;
    fc_train_summary s;
    fc_train_options_default(&o);
    o.max_steps = 100;
    o.windows_batch_size = 32;
    o.learning_rate = 1e-30;          /* the weights do not move */
    o.val_size = VAL;
    o.val_check_steps = 5;
    o.early_stop_patience = 2;
    o.verbose = 0;
    CHECK_MSG(fc_train(&f, d, &o, &s) == FC_OK, "%s", fc_last_error());
    CHECK(s.early_stopped == 1);
    CHECK_MSG(s.steps == 15, "stopped after %zu steps", s.steps);   /* best at check 1, then 2 without improvement */
    CHECK(s.best_step == 5);
    fc_forecaster_free(&f);
}

static void training_lowers_the_loss(fc_backend *be, const fc_dataset *d) {
    fc_forecaster f = small_nhits(be);
    fc_train_options o;
    fc_train_summary first, later;
    fc_train_options_default(&o);
    o.windows_batch_size = 64;
    o.verbose = 0;
    o.max_steps = 1;
    CHECK(fc_train(&f, d, &o, &first) == FC_OK);
    o.max_steps = 300;
    CHECK(fc_train(&f, d, &o, &later) == FC_OK);
    CHECK_MSG(later.last_train_loss < 0.2 * first.last_train_loss, "loss %g after 1 step, %g after 300 more",
              first.last_train_loss, later.last_train_loss);
    CHECK(isnan(later.best_val_loss));   /* no validation asked */
    fc_forecaster_free(&f);
}

/* One optimizer step's gradient norm and loss, for W windows x K micro-batches. */
static void one_step(fc_backend *be, const fc_dataset *d, size_t W, size_t K, fc_train_summary *s) {
    fc_forecaster f = small_nhits(be);
    fc_train_options o;
    fc_train_options_default(&o);
    o.max_steps = 1;
    o.windows_batch_size = W;
    o.grad_accum = K;
    o.clip_grad_norm = 1e30;   /* computes the norm, never clips */
    o.verbose = 0;
    CHECK_MSG(fc_train(&f, d, &o, s) == FC_OK, "%s", fc_last_error());
    fc_forecaster_free(&f);
}

static void accumulation_equals_large_batch(fc_backend *be, const fc_dataset *d) {
    fc_train_summary big, acc4, other;
    one_step(be, d, 64, 1, &big);
    one_step(be, d, 16, 4, &acc4);
    CHECK(isfinite(big.last_grad_norm) && big.last_grad_norm > 0);
    CHECK_CLOSE(acc4.last_grad_norm, big.last_grad_norm, 0, 1e-5);
    CHECK_CLOSE(acc4.last_train_loss, big.last_train_loss, 0, 1e-6);
    CHECK(acc4.steps == 1);
    /* not vacuous: a different effective batch has a different gradient */
    one_step(be, d, 16, 1, &other);
    CHECK_MSG(fabs(other.last_grad_norm / big.last_grad_norm - 1) > 1e-3, "norms %g vs %g",
              other.last_grad_norm, big.last_grad_norm);
}

static void mixed_precision_trains(fc_backend *be, const fc_dataset *d) {
    double final_loss[FC_PREC_COUNT];
    for (int p = 0; p < FC_PREC_COUNT; p++) {
        fc_forecaster f = small_nhits(be);
        fc_train_options o;
        fc_train_summary s;
        fc_train_options_default(&o);
        o.windows_batch_size = 64;
        o.max_steps = 300;
        o.precision = (fc_precision)p;
        o.verbose = 0;
        CHECK_MSG(fc_train(&f, d, &o, &s) == FC_OK, "%s: %s", fc_precision_name(o.precision), fc_last_error());
        final_loss[p] = s.last_train_loss;
        /* fp16 on values near 10: the scale never needs to back off */
        CHECK(p == FC_PREC_FP16 ? s.loss_scale == 65536.0f && s.skipped_steps == 0 : s.loss_scale == 0.0f);
        CHECK(f.model->prec == FC_PREC_FP32 && f.model->params_low == NULL);   /* predictions run in fp32 */
        fc_forecaster_free(&f);
    }
    for (int p = 1; p < FC_PREC_COUNT; p++)
        CHECK_MSG(final_loss[p] < 1.5 * final_loss[0] + 0.02, "%s final loss %g vs fp32 %g",
                  fc_precision_name((fc_precision)p), final_loss[p], final_loss[0]);
}

/* Series near 10^5 without scaling: fp16 inputs overflow (65504 is its
 * largest value); fcast stops and says why. (Gradients that overflow at
 * every loss scale stop it too: tests/cli_precision.sh.) */
static void fp16_out_of_range(fc_backend *be) {
    fc_dataset *big = seasonal_dataset_at(1e5, 5000.0);
    fc_forecaster f = small_nhits(be);
    fc_train_options o;
    fc_train_summary s;
    fc_train_options_default(&o);
    o.windows_batch_size = 32;
    o.max_steps = 200;
    o.precision = FC_PREC_FP16;
    o.verbose = 0;
    CHECK(fc_train(&f, big, &o, &s) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "fp16");
    CHECK_CONTAINS(fc_last_error(), "--scaler standard");
    fc_forecaster_free(&f);
    fc_dataset_free(&big);
}

static void precision_costs_under_one_percent(fc_backend *be) {
    fc_dataset *taylor = NULL;
    fc_load_options lo = {.drop_exog = 1};
    CHECK_MSG(fc_dataset_load_csv("data/taylor_halfhourly.csv", &lo, &taylor) == FC_OK, "%s", fc_last_error());
    if (!taylor) return;
    fc_forecaster f = {.scaler = FC_SCALER_STANDARD};
    fc_model_config c;
    fc_model_config_default(&c, FC_MODEL_NHITS, 48, 336);
    for (int i = 0; i < 3; i++) c.mlp_units[i][0] = c.mlp_units[i][1] = 128;
    CHECK(fc_model_create(&c, be, &f.model) == FC_OK && fc_model_init_params(f.model, 1) == FC_OK);
    fc_train_options o;
    fc_train_summary s;
    fc_train_options_default(&o);
    o.max_steps = 150;
    o.windows_batch_size = 256;
    o.verbose = 0;
    CHECK_MSG(fc_train(&f, taylor, &o, &s) == FC_OK, "%s", fc_last_error());
    fc_window_spec spec = {336, 48, 1, 48 * 7, 0, 0, 0, 0};   /* the last week: 289 windows */
    double mae[FC_PREC_COUNT];
    for (int p = 0; p < FC_PREC_COUNT; p++) {
        CHECK(fc_model_set_precision(f.model, (fc_precision)p) == FC_OK);
        CHECK(fc_validate(&f, taylor, &spec, &mae[p]) == FC_OK);
    }
    CHECK(fc_model_set_precision(f.model, FC_PREC_FP32) == FC_OK);
    printf("validation MAE of one model: fp32 %.3f  bf16 %.3f  fp16 %.3f\n", mae[0], mae[1], mae[2]);
    CHECK(mae[0] > 0 && mae[0] < 2000);   /* a trained model: daily seasonal naive is ~2300 on a day */
    CHECK_CLOSE(mae[FC_PREC_BF16], mae[0], 0, 0.01);
    CHECK_CLOSE(mae[FC_PREC_FP16], mae[0], 0, 0.01);
    CHECK(mae[FC_PREC_BF16] != mae[0]);   /* the products did run in bf16 */
    fc_forecaster_free(&f);
    fc_dataset_free(&taylor);
}

int main(void) {
    fc_backend *be = NULL;
    CHECK(fc_backend_cpu_create(1, &be) == FC_OK);
    fc_dataset *d = seasonal_dataset();
    validation_of_naive_level(be, d);
    early_stopping(be, d);
    training_lowers_the_loss(be, d);
    accumulation_equals_large_batch(be, d);
    mixed_precision_trains(be, d);
    fp16_out_of_range(be);
    precision_costs_under_one_percent(be);
    fc_dataset_free(&d);
    fc_backend_destroy(&be);
    return CHECK_DONE();
}
