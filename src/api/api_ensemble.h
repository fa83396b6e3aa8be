/* fcast_ensemble_train_file (fcast.h): a member as the library trains
 * it, and the checks of every member before any trains
 * (api_ensemble_member.c); the run over all of them in
 * api_ensemble_run.c. */
#ifndef FC_API_ENSEMBLE_H
#define FC_API_ENSEMBLE_H

#include <pthread.h>

#include "api/api.h"
#include "train/ensemble_file.h"
#include "train/memory_plan.h"

/* One member: its configuration resolved as fcast_train resolves it. */
typedef struct {
    const fcast_config *c;
    char label[160];          /* its name in messages */
    fc_model_config cfg;
    fc_loss_spec loss;
    fc_train_options o;       /* the configuration's, with its verbose and profile keys */
    fc_memory_plan plan;
    fc_api_progress hook;
    fc_train_summary sum;     /* its training's, once trained */
} fc_api_member;

/* Where a trained member goes: member `index` of w, added under `lock`
 * (members trained side by side finish in any order). */
typedef struct {
    fc_ensemble_writer *w;
    size_t index;
    pthread_mutex_t *lock;
} fc_api_member_out;

/* m's configuration resolved (fc_api_resolve) into its model, loss and
 * options, the caller's cancel flag watched; the keys an ensemble member
 * cannot take refused. */
fc_status fc_api_member_resolve(fc_api_member *m, const volatile int *cancel);

/* m's data checks and memory plan on be, against its "memory-limit"
 * beside `kept` bytes of parameters held for the file; *params: its own. */
fc_status fc_api_member_check(fc_api_member *m, const fc_dataset *ds, fc_backend *be, size_t kept, size_t *params);

/* Trains m on ds as fcast_train does (an arena of its plan's size on be,
 * the model created, initialised from its seed and trained), adds it to
 * out with `description` as its run configuration, and closes the arena.
 * be is the calling thread's alone; ds is read, never written. */
fc_status fc_api_member_train(fc_api_member *m, const fc_dataset *ds, fc_backend *be, const char *description,
                              const fc_api_member_out *out, fc_train_summary *sum);

#endif
