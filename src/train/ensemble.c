/* Combining the members' forecasts (see ensemble.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "train/ensemble.h"

static const char *const COMBINE_NAMES[FC_COMBINE_KINDS] = {"median", "mean"};

const char *fc_combine_name(fc_combine c) { return (unsigned)c < FC_COMBINE_KINDS ? COMBINE_NAMES[c] : "?"; }

int fc_combine_parse(const char *s, fc_combine *out) {
    for (int c = 0; s && c < FC_COMBINE_KINDS; c++)
        if (!strcmp(s, COMBINE_NAMES[c])) { *out = (fc_combine)c; return 0; }
    return -1;
}

void fc_ensemble_free(fc_ensemble *e) {
    for (size_t i = 0; e->members && i < e->n; i++) fc_forecaster_free(&e->members[i]);
    free(e->members);
    e->members = NULL;
    e->n = 0;
}

static int compare_floats(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The middle of sorted x; for an even n the mean of the two middle values,
 * exact in double (a float sum could overflow) before the one rounding. */
static float median_sorted(const float *x, size_t n) {
    if (n % 2) return x[n / 2];
    return (float)(((double)x[n / 2 - 1] + (double)x[n / 2]) / 2.0);
}

static float combine_point(fc_combine c, const float *const *values, size_t n, size_t p, float *scratch) {
    double sum = 0;
    for (size_t m = 0; m < n; m++) {
        float v = values[m][p];
        if (isnan(v)) return NAN;
        scratch[m] = v;
        sum += v;
    }
    switch (c) {
    case FC_COMBINE_MEAN: return (float)(sum / (double)n);
    case FC_COMBINE_MEDIAN: qsort(scratch, n, sizeof *scratch, compare_floats); return median_sorted(scratch, n);
    case FC_COMBINE_KINDS: break;
    }
    FC_ASSERT(0 && "unknown combination");
    return NAN;
}

void fc_ensemble_combine(fc_combine c, const float *const *values, size_t n, size_t count, float *out) {
    float scratch[FC_ENSEMBLE_MAX_MEMBERS];
    FC_ASSERT(n >= 1 && n <= FC_ENSEMBLE_MAX_MEMBERS);
    for (size_t p = 0; p < count; p++) out[p] = combine_point(c, values, n, p, scratch);
}
