/* The learning-rate schedules (fc_train_learning_rate) against the rates
 * torch 2.15's schedulers give an Adam at lr 1e-3, read from
 * optimizer.param_groups[0]["lr"] before each step (python in the fixture
 * venv; the numbers are pasted below): CosineAnnealingLR(T_max=10,
 * eta_min=1e-5) past its T_max, ExponentialLR(gamma=0.9), StepLR(step_size=3,
 * gamma=0.3), and the default StepLR of num_lr_decays halvings. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "train/forecaster.h"

static const double COSINE[14] = {0.001, 0.0009757729755661011, 0.000905463412215599, 0.0007959536998847742,
                                  0.000657963412215599, 0.000505, 0.0003520365877844011, 0.00021404630011522585,
                                  0.00010453658778440107, 3.4227024433899005e-05, 1e-05, 3.4227024433899005e-05,
                                  0.00010453658778440141, 0.00021404630011522671};
static const double EXPONENTIAL[6] = {0.001, 0.0009000000000000001, 0.0008100000000000001, 0.000729,
                                      0.0006561000000000001, 0.00059049};
static const double STEP[8] = {0.001, 0.001, 0.001, 0.0003, 0.0003, 0.0003, 8.999999999999999e-05,
                               8.999999999999999e-05};

static void check_rates(const char *what, const fc_train_options *o, const double *want, size_t n) {
    for (size_t s = 0; s < n; s++) {
        double got = fc_train_learning_rate(o, s);
        CHECK_MSG(fabs(got - want[s]) <= 1e-12 * want[s], "%s step %zu: %.17g, torch %.17g", what, s, got, want[s]);
    }
}

int main(void) {
    fc_train_options o;
    fc_train_options_default(&o);
    o.learning_rate = 1e-3;
    o.lr_scheduler = FC_LR_COSINE, o.lr_t_max = 10, o.lr_eta_min = 1e-5;
    check_rates("cosine", &o, COSINE, 14);
    fc_train_options_default(&o);
    o.learning_rate = 1e-3, o.lr_scheduler = FC_LR_EXPONENTIAL, o.lr_gamma = 0.9;
    check_rates("exponential", &o, EXPONENTIAL, 6);
    fc_train_options_default(&o);
    o.learning_rate = 1e-3, o.lr_step_size = 3, o.lr_gamma = 0.3;
    check_rates("step", &o, STEP, 8);
    fc_train_options_default(&o);   /* neuralforecast's default: 1000 steps, 3 halvings every 333 */
    o.learning_rate = 1e-3;
    CHECK(fc_train_learning_rate(&o, 332) == 1e-3 && fc_train_learning_rate(&o, 333) == 5e-4 &&
          fc_train_learning_rate(&o, 999) == 1.25e-4);
    return CHECK_DONE();
}
