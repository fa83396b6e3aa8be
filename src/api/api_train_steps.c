/* Steps of a training run as fcast_train takes them (api_train_steps.h). */
#include "api/api_train_steps.h"
#include "core/error.h"

void fc_api_train_options(const fcast_config *c, fc_api_progress *hook, const volatile int *cancel,
                          fc_train_options *o) {
    *o = c->train;
    o->verbose = c->run.verbose;
    o->profile = c->run.profile;
    fc_api_watch(o, hook, cancel);
}

fc_status fc_api_train_check_data(const fc_model_config *cfg, const fc_dataset *ds, const fc_train_options *o) {
    FC_TRY(fc_exog_check_columns(cfg, ds, fc_api_exog_words()));
    return fc_train_check(ds, cfg, o);
}

fc_status fc_api_train_model_new(const fc_model_config *cfg, const fc_memory_plan *plan, const fc_train_options *o,
                                 fc_backend *be, fc_model **out) {
    FC_TRY(be->arena_open(be, fc_memory_plan_arena_bytes(plan)));
    FC_TRY(fc_model_create(cfg, be, out));
    return fc_model_init_params(*out, o->seed);
}

void fc_api_train_report(const fc_train_summary *s, const fc_train_options *o, const fc_backend *be,
                         fcast_train_report *out) {
    *out = (fcast_train_report){.steps = s->steps, .max_steps = o->max_steps, .start_step = s->start_step,
                                .seconds = s->seconds, .windows_per_second = s->windows_per_second,
                                .last_train_loss = s->last_train_loss, .best_val_loss = s->best_val_loss,
                                .best_step = s->best_step, .early_stopped = s->early_stopped,
                                .skipped_steps = s->skipped_steps, .loss_scale = s->loss_scale,
                                .windows_batch_size = o->windows_batch_size,
                                .precision = fc_precision_name(o->precision), .device = be ? be->name : NULL};
}

fc_status fc_api_model_not_written(fc_status st, fc_status saved, const char *stop, const fc_train_options *o,
                                   const fc_train_summary *s) {
    char why[FC_ERROR_CAP], good[FC_ERROR_CAP];
    snprintf(why, sizeof why, "%s", fc_last_error());
    if (st != FC_OK) return fc_error(st, "%s; the model so far was not written: %s", stop, why);
    fc_train_good_checkpoint(o, s, good, sizeof good);
    return fc_error(saved, "%s; the model after step %zu was not written; %s", why, s->steps, good);
}
