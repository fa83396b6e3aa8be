/* Conformal prediction intervals (see conformal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "train/conformal.h"

static const char *const METHOD_NAMES[] = {"conformal_distribution", "conformal_error"};

const char *fc_conformal_method_name(fc_conformal_method m) {
    return (unsigned)m < 2 ? METHOD_NAMES[m] : "?";
}

int fc_conformal_method_parse(const char *s, fc_conformal_method *out) {
    for (int i = 0; i < 2; i++)
        if (s && !strcasecmp(s, METHOD_NAMES[i])) { *out = (fc_conformal_method)i; return 0; }
    return -1;
}

fc_status fc_levels_parse(const char *text, const char *flag, double *levels, size_t *n) {
    *n = 0;
    for (const char *p = text; p && *p;) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || (*end && *end != ',') || !(v > 0.0 && v < 100.0))
            return fc_error(FC_ERR_INVALID, "%s '%s': expected levels between 0 and 100 separated by commas (80,95)",
                            flag, text);
        for (size_t i = 0; i < *n; i++)
            if (levels[i] == v) return fc_error(FC_ERR_INVALID, "%s '%s': level %g is given twice", flag, text, v);
        if (*n == FC_MAX_LEVELS) return fc_error(FC_ERR_INVALID, "%s '%s': at most %d levels", flag, text, FC_MAX_LEVELS);
        levels[(*n)++] = v;
        p = *end ? end + 1 : end;
    }
    if (!*n) return fc_error(FC_ERR_INVALID, "%s: no level given", flag);
    fc_levels_sort(levels, *n);
    return FC_OK;
}

static int compare_levels(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void fc_levels_sort(double *levels, size_t n) { qsort(levels, n, sizeof *levels, compare_levels); }

/* Python's str() of the level: "80" for neuralforecast's integer levels,
 * else the shortest text that reads back as the same double ("80.5"). */
void fc_level_text(double level, char *buf, size_t cap) {
    if (level == floor(level) && fabs(level) < 1e15) {
        snprintf(buf, cap, "%.0f", level);
        return;
    }
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, cap, "%.*g", digits, level);
        if (strtod(buf, NULL) == level) return;
    }
}

static fc_status copy_ids(const fc_dataset *ds, fc_conformal *c) {
    c->ids = calloc(ds->n_series ? ds->n_series : 1, sizeof *c->ids);
    if (!c->ids) return fc_error(FC_ERR_MEMORY, "out of memory for the conformal scores' series");
    c->n_series = ds->n_series;
    for (size_t s = 0; s < ds->n_series; s++)
        if (!(c->ids[s] = strdup(ds->ids[s]))) return fc_error(FC_ERR_MEMORY, "out of memory for series ids");
    return FC_OK;
}

/* Origin k's errors into its series' row of scores. */
static void store_errors(const fc_dataset *ds, const fc_cv_origin *o, const float *fc, size_t h, fc_conformal *c) {
    size_t base = ds->offsets[o->series] + (size_t)o->cutoff + 1;
    float *row = c->scores + ((size_t)o->series * c->n_windows + o->window) * h;
    for (size_t t = 0; t < h; t++)
        row[t] = ds->mask[base + t] ? fabsf(fc[t] - (float)ds->y[base + t]) : NAN;
}

fc_status fc_conformal_from_cv(const fc_dataset *ds, const fc_cv_spec *cv, const fc_cv_origin *o, size_t n,
                               const float *forecasts, fc_conformal_method method, fc_conformal *out) {
    memset(out, 0, sizeof *out);
    if (n != ds->n_series * cv->n_windows) {
        for (size_t s = 0, k = 0; s < ds->n_series; s++, k += cv->n_windows)
            if (k >= n || o[k].series != s || o[k].window != 0)
                return fc_error(FC_ERR_INVALID, "%s: series '%s' has %zu points; conformal intervals with "
                                "--pi-windows %zu need %zu (h + step x (windows - 1) + 1)", ds->source, ds->ids[s],
                                fc_dataset_len(ds, s), cv->n_windows, fc_cv_test_size(cv) + 1);
    }
    *out = (fc_conformal){method, cv->n_windows, cv->step_size, cv->h, 0, NULL, NULL};
    fc_status st = copy_ids(ds, out);
    if (st == FC_OK && !(out->scores = fc_malloc((n ? n : 1) * cv->h * sizeof(float), "conformal scores")))
        st = FC_ERR_MEMORY;
    for (size_t k = 0; st == FC_OK && k < n; k++) store_errors(ds, &o[k], forecasts + k * cv->h, cv->h, out);
    if (st != FC_OK) fc_conformal_free(out);
    return st;
}

static int compare_ids(const void *key, const void *item) { return strcmp(key, *(char *const *)item); }

ssize_t fc_conformal_find(const fc_conformal *c, const char *id) {
    char **at = bsearch(id, c->ids, c->n_series, sizeof *c->ids, compare_ids);
    return at ? at - c->ids : -1;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* np.quantile(x, q) with method "linear" on sorted x (n >= 1): the virtual
 * index q (n - 1), and numpy's _lerp (from the nearer end past the middle). */
static double quantile_sorted(const double *x, size_t n, double q) {
    double pos = q * (double)(n - 1);
    size_t i = (size_t)floor(pos);
    if (i + 1 >= n) return x[n - 1];
    double t = pos - (double)i, a = x[i], b = x[i + 1], d = b - a;
    return t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
}

/* The step's sample: errors (conformal_error) or point -/+ errors
 * (conformal_distribution), sorted; missing errors left out. */
static size_t step_sample(const fc_conformal *c, size_t series, size_t t, double point, double *x) {
    size_t n = 0;
    for (size_t w = 0; w < c->n_windows; w++) {
        float e = c->scores[(series * c->n_windows + w) * c->h + t];
        if (isnan(e)) continue;
        if (c->method == FC_CONFORMAL_ERROR) {
            x[n++] = e;
        } else {
            x[n++] = point - e;
            x[n++] = point + e;
        }
    }
    qsort(x, n, sizeof *x, compare_doubles);
    return n;
}

/* cuts = alpha/200 for the levels reversed, then 1 - alpha/200 for the
 * levels, alpha = 100 - level: the lo columns, then the hi ones. */
static double cut_of(const double *levels, size_t n_levels, size_t j) {
    if (j < n_levels) return (100.0 - levels[n_levels - 1 - j]) / 200.0;
    return 1.0 - (100.0 - levels[j - n_levels]) / 200.0;
}

void fc_conformal_intervals(const fc_conformal *c, size_t series, const float *point, const double *levels,
                            size_t n_levels, float *out) {
    double x[2 * 4096];
    size_t cols = 2 * n_levels;
    for (size_t t = 0; t < c->h; t++) {
        size_t n = step_sample(c, series, t, point[t], x);
        for (size_t j = 0; j < cols; j++) {
            double q = cut_of(levels, n_levels, j), v;
            if (!n) v = NAN;
            else if (c->method == FC_CONFORMAL_DISTRIBUTION) v = quantile_sorted(x, n, q);
            /* add_conformal_error_intervals: lo j takes the quantile of
             * the reversed cuts, i.e. 1 - q: m - Q(1 - alpha/200) */
            else if (j < n_levels) v = (double)point[t] - quantile_sorted(x, n, 1.0 - q);
            else v = (double)point[t] + quantile_sorted(x, n, q);
            out[t * cols + j] = (float)v;
        }
    }
}

void fc_conformal_suffixes(const double *levels, size_t n_levels, char (*names)[FC_LEVEL_NAME_MAX]) {
    for (size_t j = 0; j < n_levels; j++) {
        char lo[FC_LEVEL_NAME_MAX - 4], hi[FC_LEVEL_NAME_MAX - 4];
        fc_level_text(levels[n_levels - 1 - j], lo, sizeof lo);
        fc_level_text(levels[j], hi, sizeof hi);
        snprintf(names[j], FC_LEVEL_NAME_MAX, "-lo-%s", lo);
        snprintf(names[n_levels + j], FC_LEVEL_NAME_MAX, "-hi-%s", hi);
    }
}

void fc_conformal_free(fc_conformal *c) {
    for (size_t s = 0; c->ids && s < c->n_series; s++) free(c->ids[s]);
    free(c->ids);
    free(c->scores);
    memset(c, 0, sizeof *c);
}
