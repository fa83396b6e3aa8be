/* A trial's score from its cross-validation (see trial_score.h). */
#include "tune/trial_score.h"

#include <math.h>
#include <string.h>

#include "core/error.h"
#include "eval/metrics.h"
#include "train/forecaster.h"

static const char *const NAMES[] = {"mae", "mse", "rmse", "smape", "mase"};

int fc_tune_metric_parse(const char *name, fc_tune_metric *m) {
    for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES; i++)
        if (!strcmp(name, NAMES[i])) { *m = (fc_tune_metric)i; return 0; }
    return -1;
}

const char *fc_tune_metric_name(fc_tune_metric m) { return NAMES[m]; }

size_t fc_tune_point_output(const fc_loss_spec *loss) { return fc_loss_point_output(loss); }

/* One point's term of the sum. */
static double term(fc_tune_metric m, double y, double yhat, double scale) {
    double e = fabs(y - yhat), d = fabs(y) + fabs(yhat);
    switch (m) {
    case FC_TUNE_MAE: return e;
    case FC_TUNE_MSE:
    case FC_TUNE_RMSE: return e * e;
    case FC_TUNE_SMAPE: return d > 0 ? 200.0 * e / d : 0.0;
    case FC_TUNE_MASE: return e / scale;
    }
    return NAN;
}

fc_status fc_tune_score(const fc_dataset *ds, const fc_cv_origin *o, size_t n_origins, const float *values,
                        const fc_score_spec *spec, double *score, size_t *points) {
    double sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < n_origins; i++) {
        size_t s = o[i].series, len = ds->offsets[s + 1] - ds->offsets[s];
        double scale = 1.0;
        if (spec->metric == FC_TUNE_MASE) scale = fc_seasonal_scale_upto(ds, s, (size_t)o[i].cutoff, spec->season);
        if (!(scale > 0)) continue;
        const float *f = values + i * spec->h * spec->n_outputs;
        for (size_t k = 0; k < spec->h; k++) {
            size_t t = (size_t)o[i].cutoff + 1 + k;
            if (t >= len || !ds->mask[ds->offsets[s] + t]) continue;
            sum += term(spec->metric, ds->y[ds->offsets[s] + t], f[k * spec->n_outputs + spec->point_output], scale);
            n++;
        }
    }
    *points = n;
    if (!n) return fc_error(FC_ERR_INVALID, "no forecast point of the cross-validation has an observed value to score");
    *score = spec->metric == FC_TUNE_RMSE ? sqrt(sum / (double)n) : sum / (double)n;
    return FC_OK;
}
