/* An IQLoss model's forecast at asked quantiles (iq_forecast.h). */
#include "train/distribution_forecast.h"
#include "train/iq_forecast.h"

const float FC_IQ_GRID[FC_IQ_GRID_N] = {0.01f, 0.05f, 0.1f, 0.2f, 0.3f, 0.5f, 0.7f, 0.8f, 0.9f, 0.95f, 0.99f};

void fc_iq_quantiles_of(const float *grid, size_t n, const double *q, size_t n_q, float *out) {
    for (size_t i = 0; i < n; i++) {
        float v[FC_IQ_GRID_N];
        for (size_t k = 0; k < FC_IQ_GRID_N; k++) v[k] = grid[k * n + i];
        for (size_t a = 1; a < FC_IQ_GRID_N; a++)   /* insertion sort of 11 */
            for (size_t b = a; b > 0 && v[b - 1] > v[b]; b--) { float t = v[b]; v[b] = v[b - 1]; v[b - 1] = t; }
        for (size_t j = 0; j < n_q; j++) out[i * n_q + j] = fc_sorted_quantile(v, FC_IQ_GRID_N, (float)q[j]);
    }
}
