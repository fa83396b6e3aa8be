/* Conformal scores of a training (see conformal.h, fc_conformal_fit):
 * what `fcast train --prediction-intervals conformal` and the library's
 * "prediction-intervals" key both run. */
#include <stdlib.h>

#include "core/error.h"
#include "train/conformal.h"

static fc_status fit(void *ctx, const fc_dataset *ds, size_t test_size, fc_forecaster *f) {
    fc_train_summary sum;
    return fc_cv_fit(ctx, ds, test_size, f, &sum);
}

fc_status fc_conformal_fit(const fc_cv_training *t, const fc_dataset *ds, size_t windows, size_t step,
                           fc_conformal_method method, fc_conformal *out) {
    fc_cv_training quiet = *t;   /* the calibration runs say nothing and leave no files */
    quiet.o.verbose = 0;
    quiet.o.checkpoint_path = NULL;
    quiet.o.resume_path = NULL;
    quiet.o.log = NULL;
    fc_cv_spec cv = {t->cfg.h, windows, step, 0};
    FC_TRY(fc_cv_check(&cv));
    size_t room = ds->n_series * windows;
    fc_cv_origin *o = fc_malloc((room ? room : 1) * sizeof *o, "conformal origins");
    if (!o) return FC_ERR_MEMORY;
    size_t n = fc_cv_origins(ds, &cv, o), width;
    float *values = NULL;
    fc_status st = fc_cross_validate(ds, &cv, o, n, fit, &quiet, &values, &width);
    if (st == FC_OK) st = fc_conformal_from_cv(ds, &cv, o, n, values, method, out);
    free(values);
    free(o);
    return st;
}
