/* One fresh training of a cross-validation (see cross_validation.h,
 * fc_cv_fit): what `fcast cv`, `fcast tune` and the library's
 * fcast_cross_validate each run per fit. */
#include "core/error.h"
#include "train/cross_validation.h"
#include "train/memory_plan.h"

/* Refuses, before the model is built, a training whose plan passes the limit. */
static fc_status check_memory(const fc_cv_training *t, const fc_dataset *ds, const fc_train_options *o) {
    if (!t->memory_limit) return FC_OK;
    fc_memory_plan p;
    fc_status st = fc_memory_plan_train_config(&t->cfg, ds, o, t->be, &p);
    if (st == FC_OK && p.total > t->memory_limit)
        st = fc_memory_plan_refusal(&p, t->memory_limit, FC_PLAN_NO_BATCH_ADVICE);
    return st;
}

fc_status fc_cv_fit(const fc_cv_training *t, const fc_dataset *ds, size_t test_size, fc_forecaster *f,
                    fc_train_summary *sum) {
    fc_train_options o = t->o;
    o.test_size = test_size;
    FC_TRY(fc_train_check(ds, &t->cfg, &o));
    FC_TRY(check_memory(t, ds, &o));
    *f = (fc_forecaster){.scaler = t->scaler, .loss = t->loss, .ds_kind = ds->ds_kind, .freq = ds->freq};
    FC_TRY(fc_model_create(&t->cfg, t->be, &f->model));
    FC_TRY(fc_model_init_params(f->model, o.seed));
    return fc_train(f, ds, &o, sum);
}
