/* An ensemble member (api_ensemble.h): its configuration resolved, its
 * data checks and memory plan, its training. The training takes
 * fcast_train's steps (api_train_steps.h) on the ensemble's shared
 * backend and data, so its tensors are the bits fcast_train writes for its
 * configuration; tests/cli_ensemble.sh and test_api_ensemble_run compare
 * them. */
#include <stdio.h>

#include "api/api_ensemble.h"
#include "api/api_train_steps.h"
#include "core/error.h"
#include "core/memory_stats.h"

/* Keys of a single run that an ensemble has no place for. */
static fc_status refuse_keys(const fcast_config *c) {
    const fc_api_run_keys *k = &c->run;
    if (k->auto_batch) return fc_error(FC_ERR_INVALID, "--windows-batch-size auto is for fcast train; give a number");
    if (c->pi_windows) return fc_error(FC_ERR_INVALID, "--prediction-intervals: an ensemble has no intervals");
    if (k->checkpoint || k->resume || k->log_file)
        return fc_error(FC_ERR_INVALID, "--checkpoint, --resume and --log-file are for fcast train");
    return FC_OK;
}

fc_status fc_api_member_resolve(fc_api_member *m, const volatile int *cancel) {
    const fcast_config *c = m->c;
    FC_TRY(fc_api_resolve(c, &m->cfg, &m->loss));
    int quantiles = fc_loss_kind_is_one_quantile(m->loss.kind) || fc_loss_kind_is_distribution(m->loss.kind);
    if (m->cfg.n_outputs > 1 || quantiles)
        return fc_error(FC_ERR_INVALID, "--loss %s: an ensemble combines point forecasts by their median or mean, "
                        "and the median of quantiles is not a quantile: use point losses (mae, mse, huber, smape, "
                        "mape, mase)", fc_loss_name(m->loss));
    FC_TRY(refuse_keys(c));
    m->hook = (fc_api_progress){0};
    fc_api_train_options(c, &m->hook, cancel, &m->o);   /* no files of a single run: no checkpoints, no log */
    return FC_OK;
}

fc_status fc_api_member_check(fc_api_member *m, const fc_dataset *ds, fc_backend *be, size_t kept, size_t *params) {
    size_t limit = m->c->run.memory_limit, fits = 0;
    fc_model *planned = NULL;
    FC_TRY(fc_api_train_check_data(&m->cfg, ds, &m->o));
    FC_TRY(fc_model_plan(&m->cfg, &planned));
    *params = planned->n_floats * sizeof(float);
    fc_status st = fc_memory_plan_train(planned, ds, &m->o, be, &m->plan);
    int over = limit && (kept >= limit || m->plan.total > limit - kept);
    if (st == FC_OK && over && kept < limit)
        st = fc_memory_plan_largest_batch(planned, ds, &m->o, be, limit - kept, &fits);
    fc_model_free(&planned);
    if (st != FC_OK || !over) return st;
    if (!kept) return fc_memory_plan_refusal(&m->plan, limit, fits);
    char text[32];
    fc_memory_plan_refusal(&m->plan, kept < limit ? limit - kept : 0, fits);
    return fc_error_wrap(FC_ERR_MEMORY, "beside the %s of the earlier members' parameters held for the ensemble "
                         "file: ", fc_bytes_text(kept, text, sizeof text));
}

fc_status fc_api_member_train(fc_api_member *m, const fc_dataset *ds, fc_backend *be, const char *description,
                              const fc_api_member_out *out, fc_train_summary *sum) {
    fc_forecaster f = {.scaler = m->c->scaler, .loss = m->loss, .run_config_json = description,
                       .ds_kind = ds->ds_kind, .freq = ds->freq};
    fc_status st = fc_api_train_model_new(&m->cfg, &m->plan, &m->o, be, &f.model);
    if (st == FC_OK) st = fc_train(&f, ds, &m->o, sum);
    if (st == FC_OK) {   /* copies the parameters */
        pthread_mutex_lock(out->lock);
        st = fc_ensemble_writer_add_at(out->w, out->index, &f);
        pthread_mutex_unlock(out->lock);
    }
    fc_forecaster_free(&f);
    be->arena_close(be);
    return st;
}
