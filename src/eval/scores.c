/* Forecast scores of one window (see scores.h). */
#include "eval/scores.h"

#include <float.h>
#include <math.h>

void fc_point_sums_add(fc_point_sums *s, double y, double yhat) {
    double e = fabs(y - yhat), denom = fabs(y) + fabs(yhat);
    s->n += 1.0;
    s->abs += e;
    s->sq += e * e;
    s->smape += denom > 0 ? e / denom : 0.0;   /* utilsforecast: 0 when both are 0 */
    if (y != 0) {                              /* utilsforecast: y = 0 gives NaN, skipped by the mean */
        s->ape += e / fabs(y);
        s->ape_n += 1.0;
    }
}

fc_point_scores fc_point_scores_of(const fc_point_sums *s) {
    fc_point_scores r = {NAN, NAN, NAN, NAN, NAN};
    if (s->n > 0) {
        r.mae = s->abs / s->n;
        r.mse = s->sq / s->n;
        r.rmse = sqrt(r.mse);
        r.smape200 = 200.0 * s->smape / s->n;
    }
    if (s->ape_n > 0) r.mape_pct = 100.0 * s->ape / s->ape_n;
    return r;
}

double fc_quantile_loss(double q, double y, double yhat) {
    double d = y - yhat;
    return fmax(q * d, (q - 1.0) * d);
}

double fc_scaled_crps(const double *ql_sums, size_t nq, double n, double abs_y_sum) {
    if (nq == 0 || n <= 0) return NAN;
    double mean_q = 0.0;
    for (size_t i = 0; i < nq; i++) mean_q += ql_sums[i] / n;
    mean_q /= (double)nq;
    /* eps as utilsforecast: an all-zero window scores huge, not NaN */
    return 2.0 * mean_q * n / (abs_y_sum + DBL_EPSILON);
}

int fc_interval_covers(double y, double lo, double hi) { return y >= lo && y <= hi; }

double fc_mase(double mae, double scale) { return scale > 0 ? mae / scale : NAN; }
