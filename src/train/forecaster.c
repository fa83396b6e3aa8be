/* Names of scalers and losses, and releasing a forecaster. */
#include <string.h>
#include <strings.h>

#include "train/forecaster.h"

static const char *const scaler_names[] = {"identity", "standard", "robust", "minmax"};
static const char *const loss_names[] = {"mae", "mse"};

const char *fc_scaler_name(fc_scaler_kind k) { return (unsigned)k < 4 ? scaler_names[k] : "?"; }
const char *fc_loss_name(fc_loss_kind k) { return (unsigned)k < 2 ? loss_names[k] : "?"; }

int fc_scaler_parse(const char *s, fc_scaler_kind *out) {
    for (int i = 0; i < 4; i++)
        if (!strcasecmp(s, scaler_names[i])) { *out = (fc_scaler_kind)i; return 0; }
    return -1;
}

int fc_loss_parse(const char *s, fc_loss_kind *out) {
    for (int i = 0; i < 2; i++)
        if (!strcasecmp(s, loss_names[i])) { *out = (fc_loss_kind)i; return 0; }
    return -1;
}

void fc_train_options_default(fc_train_options *o) {
    memset(o, 0, sizeof *o);
    o->max_steps = 1000;
    o->batch_size = 32;
    o->windows_batch_size = 1024;
    o->learning_rate = 1e-3;
    o->num_lr_decays = 3;
    o->val_check_steps = 100;
    o->early_stop_patience = -1;
    o->step_size = 1;
    o->seed = 1;
    o->verbose = 1;
    o->precision = FC_PREC_FP32;
    o->grad_accum = 1;
}

void fc_forecaster_free(fc_forecaster *f) { fc_model_free(&f->model); }
