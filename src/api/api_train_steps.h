/* Steps of a training run as fcast_train takes them (api_train_run.c),
 * for the runs that train several models the same way (ensembles:
 * api_ensemble_member.c), so each model is the one fcast_train would make
 * of its configuration: api_train_run.c takes these steps too. */
#ifndef FC_API_TRAIN_STEPS_H
#define FC_API_TRAIN_STEPS_H

#include "api/api.h"
#include "train/memory_plan.h"

/* The training options of c: its own, with its "verbose" and "profile"
 * keys, the caller's hook (which must outlive the run) and cancel flag. */
void fc_api_train_options(const fcast_config *c, fc_api_progress *hook, const volatile int *cancel,
                          fc_train_options *o);

/* The checks of ds before training: the exogenous columns cfg reads, then
 * fc_train_check. */
fc_status fc_api_train_check_data(const fc_model_config *cfg, const fc_dataset *ds, const fc_train_options *o);

/* The model of a run: an arena of its plan's size opened on be (the model
 * lives in it; the caller closes it after freeing the model), the model
 * created and its parameters initialised from o->seed. */
fc_status fc_api_train_model_new(const fc_model_config *cfg, const fc_memory_plan *plan, const fc_train_options *o,
                                 fc_backend *be, fc_model **out);

/* What a training did, in fcast_train_report's fields (the training's:
 * steps, times, losses, precision, device; the memory fields 0). */
void fc_api_train_report(const fc_train_summary *s, const fc_train_options *o, const fc_backend *be,
                         fcast_train_report *out);

/* The message of a model file that could not be written after a training
 * that ended with st (FC_OK, or a stop with its message `stop`), its cause
 * the current message: what the run did write, and which checkpoint is
 * good. Returns the run's status: a stop stays a stop. */
fc_status fc_api_model_not_written(fc_status st, fc_status saved, const char *stop, const fc_train_options *o,
                                   const fc_train_summary *s);

#endif
