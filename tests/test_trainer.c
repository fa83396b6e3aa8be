/* The training loop's bookkeeping against hand computations:
 *  - with all weights zero every block outputs 0, so N-HiTS forecasts the
 *    Naive1 level (the last input value): the validation loss must equal the
 *    mean |y - last value| over the validation windows, computed here;
 *  - early stopping: with a learning rate too small to change the
 *    validation loss, patience K stops after K checks past the first;
 *  - training lowers the loss on a noiseless seasonal series. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/error.h"
#include "train/forecaster.h"

enum { N_POINTS = 200, L = 12, H = 4, VAL = 8 };

static fc_dataset *seasonal_dataset(void) {
    fc_dataset *d = NULL;
    CHECK(fc_dataset_alloc(1, N_POINTS, 0, &d) == FC_OK);
    d->offsets[0] = 0;
    d->offsets[1] = N_POINTS;
    for (size_t t = 0; t < N_POINTS; t++) {
        d->ds[t] = (int64_t)t;
        d->y[t] = 10.0 + 3.0 * sin(2.0 * M_PI * (double)t / 12.0) + 0.01 * (double)t;
        d->mask[t] = 1;
    }
    d->ids[0] = strdup("s");
    d->source = strdup("synthetic");
    return d;
}

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
    fc_window_spec spec = {L, H, 2, VAL, 0, 0};
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

int main(void) {
    fc_backend *be = NULL;
    CHECK(fc_backend_cpu_create(1, &be) == FC_OK);
    fc_dataset *d = seasonal_dataset();
    validation_of_naive_level(be, d);
    early_stopping(be, d);
    training_lowers_the_loss(be, d);
    fc_dataset_free(&d);
    fc_backend_destroy(&be);
    return CHECK_DONE();
}
