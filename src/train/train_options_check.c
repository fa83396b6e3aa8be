/* What a training run refuses before anything is sized: options out of
 * range, and data without the windows they ask for. */
#include <math.h>

#include "core/error.h"
#include "train/trainer_internal.h"

/* Windows per step beyond this are a typo: refused before any sizing. */
#define FC_MAX_WINDOWS_BATCH ((size_t)1 << 20)
#define FC_MAX_GRAD_ACCUM 4096

fc_window_spec trainer_window_spec(const fc_model_config *c, const fc_train_options *o) {
    return (fc_window_spec){c->input_size, c->h, o->step_size, o->val_size, o->min_in_frac, o->min_out_frac,
                            o->test_size, o->start_padding && c->input_size ? c->input_size - 1 : 0};
}

fc_status trainer_check_options(const fc_train_options *o, const fc_model_config *c) {
    if (o->max_steps < 1) return fc_error(FC_ERR_INVALID, "--max-steps must be >= 1");
    if (o->batch_size < 1) return fc_error(FC_ERR_INVALID, "--batch-size must be >= 1");
    if (o->windows_batch_size < 1) return fc_error(FC_ERR_INVALID, "--windows-batch-size must be >= 1");
    if (o->step_size < 1) return fc_error(FC_ERR_INVALID, "--step-size must be >= 1");   /* plans divide by it */
    if (!(o->learning_rate > 0) || !isfinite(o->learning_rate))
        return fc_error(FC_ERR_INVALID, "--lr must be a finite number > 0");
    if (o->windows_batch_size > FC_MAX_WINDOWS_BATCH || o->batch_size > FC_MAX_WINDOWS_BATCH)
        return fc_error(FC_ERR_INVALID, "--windows-batch-size and --batch-size must be at most %zu", FC_MAX_WINDOWS_BATCH);
    if (o->val_size && o->val_size < c->h)
        return fc_error(FC_ERR_INVALID, "--val-size %zu is shorter than the horizon h = %zu", o->val_size, c->h);
    if (o->early_stop_patience > 0 && !o->val_size)
        return fc_error(FC_ERR_INVALID, "--early-stop-patience needs a validation set (--val-size)");
    if (o->val_size && o->val_check_steps < 1) return fc_error(FC_ERR_INVALID, "--val-check-steps must be >= 1");
    if (o->min_in_frac < 0 || o->min_in_frac > 1 || o->min_out_frac < 0 || o->min_out_frac > 1)
        return fc_error(FC_ERR_INVALID, "availability thresholds must be between 0 and 1");
    if (o->grad_accum < 1 || o->grad_accum > FC_MAX_GRAD_ACCUM)
        return fc_error(FC_ERR_INVALID, "--grad-accum must be between 1 and %d", FC_MAX_GRAD_ACCUM);
    if (o->windows_batch_size * o->grad_accum > FC_MAX_WINDOWS_BATCH)
        return fc_error(FC_ERR_INVALID, "--grad-accum %zu x --windows-batch-size %zu is more than %zu windows "
                        "per step", o->grad_accum, o->windows_batch_size, FC_MAX_WINDOWS_BATCH);
    if (o->lr_scheduler == FC_LR_EXPONENTIAL && !(o->lr_gamma > 0))
        return fc_error(FC_ERR_INVALID, "--lr-scheduler exponential needs --lr-gamma > 0 (ExponentialLR's gamma)");
    if (o->lr_gamma != -1.0 && (!(o->lr_gamma > 0) || !isfinite(o->lr_gamma)))
        return fc_error(FC_ERR_INVALID, "--lr-gamma must be a finite number > 0");
    if (!(o->lr_eta_min >= 0) || !isfinite(o->lr_eta_min))
        return fc_error(FC_ERR_INVALID, "--lr-eta-min must be a finite number >= 0");
    if (!(o->clip_grad_norm >= 0) || !isfinite(o->clip_grad_norm))
        return fc_error(FC_ERR_INVALID, "--clip-grad-norm must be a finite number >= 0 (0: off)");
    if (o->weight_decay != -1 && (!(o->weight_decay >= 0) || !isfinite(o->weight_decay)))
        return fc_error(FC_ERR_INVALID, "--weight-decay must be a finite number >= 0 (0: none)");
    if (o->optimizer != FC_OPTIMIZER_ADAM && o->optimizer != FC_OPTIMIZER_ADAMW)
        return fc_error(FC_ERR_INVALID, "unknown optimizer %d", (int)o->optimizer);
    if ((unsigned)o->precision >= FC_PREC_COUNT)
        return fc_error(FC_ERR_INVALID, "unknown precision %d", (int)o->precision);
    return FC_OK;
}

fc_status fc_train_check(const fc_dataset *ds, const fc_model_config *c, const fc_train_options *o) {
    FC_TRY(trainer_check_options(o, c));
    fc_window_spec spec = trainer_window_spec(c, o);
    size_t longest;
    return fc_windows_check(ds, &spec, &longest);
}

int fc_train_has_windows(const fc_dataset *ds, const fc_model_config *c, const fc_train_options *o) {
    fc_dataset own = ds->shards > 1 ? fc_dataset_own_view(ds) : *ds;
    fc_window_spec spec = trainer_window_spec(c, o);
    fc_window_sampler s;
    if (fc_window_sampler_init(&s, &own, &spec, o->batch_size, 1, o->seed) != FC_OK) return 0;
    fc_window_sampler_free(&s);
    return 1;
}
