/* Accuracy metrics and the seasonal-naive benchmark (see metrics.h). */
#include <math.h>
#include <string.h>

#include "eval/metrics.h"

void fc_metrics_reset(fc_metrics *m) { memset(m, 0, sizeof *m); }

void fc_metrics_add(fc_metrics *m, double y, double yhat) {
    double e = y - yhat, denom = fabs(y) + fabs(yhat);
    m->abs_sum += fabs(e);
    m->sq_sum += e * e;
    m->smape_sum += denom > 0 ? fabs(e) / denom : 0.0;
    m->points++;
    m->series_abs += fabs(e);
    m->series_points++;
}

void fc_metrics_end_series(fc_metrics *m, double scale) {
    if (m->series_points) {
        if (scale > 0) {
            m->mase_sum += (m->series_abs / (double)m->series_points) / scale;
            m->mase_series++;
        } else {
            m->mase_skipped++;
        }
    }
    m->series_abs = 0.0;
    m->series_points = 0;
}

fc_metric_values fc_metrics_values(const fc_metrics *m) {
    fc_metric_values v = {NAN, NAN, NAN, NAN, m->points, m->mase_series + m->mase_skipped, m->mase_skipped};
    if (m->points) {
        double n = (double)m->points;
        v.mae = m->abs_sum / n;
        v.rmse = sqrt(m->sq_sum / n);
        v.smape = 200.0 * m->smape_sum / n;
    }
    if (m->mase_series) v.mase = m->mase_sum / (double)m->mase_series;
    return v;
}

double fc_seasonal_scale_upto(const fc_dataset *ds, size_t s, size_t c, size_t m) {
    size_t a = ds->offsets[s], pairs = 0;
    double sum = 0.0;
    for (size_t t = m; t <= c; t++)
        if (ds->mask[a + t] && ds->mask[a + t - m]) {
            sum += fabs(ds->y[a + t] - ds->y[a + t - m]);
            pairs++;
        }
    return pairs ? sum / (double)pairs : 0.0;
}

double fc_seasonal_scale(const fc_dataset *ds, size_t s, size_t m) {
    size_t n = fc_dataset_len(ds, s);
    return n ? fc_seasonal_scale_upto(ds, s, n - 1, m) : 0.0;
}

double fc_naive_at(const fc_dataset *ds, size_t s, size_t c) {
    size_t a = ds->offsets[s];
    for (size_t r = a + c + 1; r > a; r--)
        if (ds->mask[r - 1]) return ds->y[r - 1];
    return NAN;
}

double fc_seasonal_naive_at(const fc_dataset *ds, size_t s, size_t c, size_t m, size_t k) {
    size_t a = ds->offsets[s];
    double fallback = fc_naive_at(ds, s, c);
    if (m > c) return fallback;   /* no full season of history */
    int64_t seasons = (int64_t)((k + m - 1) / m), t = (int64_t)c + (int64_t)k - seasons * (int64_t)m;
    while (t >= 0 && !ds->mask[a + (size_t)t]) t -= (int64_t)m;
    return t >= 0 ? ds->y[a + (size_t)t] : fallback;
}

void fc_seasonal_naive(const fc_dataset *ds, size_t s, size_t m, size_t h, float *out) {
    size_t n = fc_dataset_len(ds, s);
    for (size_t k = 1; k <= h; k++) {
        double v = n ? fc_seasonal_naive_at(ds, s, n - 1, m, k) : NAN;
        out[k - 1] = (float)(isnan(v) ? 0.0 : v);   /* nothing observed: 0, as before */
    }
}
