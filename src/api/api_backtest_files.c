/* fcast_signal (fcast.h) from files: a signal file (positions per
 * unique_id and ds) and the forecasts of `fcast predict` or `fcast cv`
 * turned into positions by thresholds on their forecast return. Both are
 * aligned on the price table's rows (api_backtest_csv.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_backtest_csv.h"
#include "api/api_backtest_signal.h"
#include "core/error.h"
#include "quant/param_range.h"

#define SIGNAL_FLAG "--signal"
#define FORECAST_FLAG "--from-forecast"

typedef struct {
    const fcast_table *t;
    const int64_t *indptr;
    int64_t *ds;   /* the table's ds, parsed */
} prices;

static fc_status prices_open(const fcast_table *t, prices *p) {
    p->t = t;
    p->indptr = fcast_table_indptr(t);
    return fc_bt_table_ds(t, &p->ds);
}

/* The table row of (series, ds), or an error naming the file's line. */
static fc_status row_of(const char *flag, const char *path, const prices *p, size_t series, int64_t ds, size_t line,
                        const char *column, size_t *row) {
    long long r = fc_bt_find_row(p->ds, (size_t)p->indptr[series], (size_t)p->indptr[series + 1], ds);
    if (r < 0)
        return fc_error(FC_ERR_INVALID, "%s %s, line %zu, column %s: series %s has no price on that %s", flag, path,
                        line, column, fcast_table_id(p->t, series), column);
    *row = (size_t)r;
    return FC_OK;
}

/* Each row's signal, then the forward fill from a series' first signal. */
static fc_status place_signals(const char *path, const fc_bt_csv *f, const prices *p, const char *column,
                               double *rows, size_t n_rows) {
    unsigned char *seen = calloc(n_rows + 1, 1);
    if (!seen) return fc_error(FC_ERR_MEMORY, SIGNAL_FLAG ": out of memory");
    fc_status st = FC_OK;
    for (size_t i = 0; st == FC_OK && i < f->n_rows; i++) {
        const fc_bt_csv_row *r = &f->rows[i];
        size_t row = 0;
        st = row_of(SIGNAL_FLAG, path, p, r->series, r->ds, r->line, "ds", &row);
        if (st == FC_OK && !(r->value[0] >= -1.0 && r->value[0] <= 1.0))
            st = fc_error(FC_ERR_INVALID, SIGNAL_FLAG " %s, line %zu, column %s: %g: a position lies in [-1, 1]", path,
                          r->line, column, r->value[0]);
        if (st == FC_OK && seen[row])
            st = fc_error(FC_ERR_INVALID, SIGNAL_FLAG " %s, line %zu: a second signal for series %s on that ds", path,
                          r->line, fcast_table_id(p->t, r->series));
        if (st == FC_OK) {
            seen[row] = 1;
            rows[row] = r->value[0];
        }
    }
    for (size_t s = 0; st == FC_OK && s < fcast_table_n_series(p->t); s++) {
        double last = 0.0;   /* flat before the first signal */
        for (size_t i = (size_t)p->indptr[s]; i < (size_t)p->indptr[s + 1]; i++) {
            if (seen[i]) last = rows[i];
            rows[i] = last;
        }
    }
    free(seen);
    return st;
}

fc_status fcast_signal_read_csv(const char *path, const char *column, const fcast_table *t, fcast_signal **out) {
    static const char fn[] = "fcast_signal_read_csv";
    if (!path || !t || !out)
        return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !path ? "path" : !t ? "prices" : "out");
    *out = NULL;
    const char *names[1] = {column ? column : "position"};
    fc_bt_csv f;
    prices p = {0};
    size_t n_rows = (size_t)fcast_table_indptr(t)[fcast_table_n_series(t)];
    double *rows = malloc((n_rows + 1) * sizeof *rows);
    fc_status st = rows ? prices_open(t, &p) : fc_error(FC_ERR_MEMORY, "%s: out of memory", fn);
    if (st == FC_OK) st = fc_bt_csv_read(SIGNAL_FLAG, path, t, 0, names, 1, &f, NULL);
    if (st == FC_OK) {
        st = place_signals(path, &f, &p, names[0], rows, n_rows);
        fc_bt_csv_free(&f);
    }
    fcast_signal *s = st == FC_OK ? fc_api_signal_new(fn, FC_SIG_POSITIONS) : NULL;
    if (st == FC_OK && !s) st = FC_ERR_MEMORY;
    free(p.ds);
    if (st != FC_OK) {
        free(rows);
        return st;
    }
    s->n_combos = 1;
    s->n_rows = n_rows;
    s->rows = rows;
    *out = s;
    return FC_OK;
}

/* ------------------------------------------------------------ forecasts */

/* One forecast window: the rows of (series, cutoff), in ds order in the file. */
typedef struct {
    size_t series, first, count;   /* rows [first, first + count) of the file */
    int64_t cutoff;
} window;

static int by_series_cutoff_ds(const void *a, const void *b) {
    const fc_bt_csv_row *x = a, *y = b;
    if (x->series != y->series) return x->series < y->series ? -1 : 1;
    if (x->cutoff != y->cutoff) return x->cutoff < y->cutoff ? -1 : 1;
    if (x->ds != y->ds) return x->ds < y->ds ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

/* predict output: the cutoff of a series is its last price row before its first forecast ds. */
static fc_status predict_cutoffs(const char *path, fc_bt_csv *f, const prices *p) {
    const size_t S = fcast_table_n_series(p->t);
    int64_t *first = malloc((S + 1) * sizeof *first);
    if (!first) return fc_error(FC_ERR_MEMORY, FORECAST_FLAG ": out of memory");
    for (size_t s = 0; s < S; s++) first[s] = INT64_MAX;
    for (size_t i = 0; i < f->n_rows; i++)
        if (f->rows[i].ds < first[f->rows[i].series]) first[f->rows[i].series] = f->rows[i].ds;
    fc_status st = FC_OK;
    for (size_t i = 0; st == FC_OK && i < f->n_rows; i++) {
        fc_bt_csv_row *r = &f->rows[i];
        size_t lo = (size_t)p->indptr[r->series], k = (size_t)p->indptr[r->series + 1];
        while (k > lo && p->ds[k - 1] >= first[r->series]) k--;
        if (k == lo)
            st = fc_error(FC_ERR_INVALID, FORECAST_FLAG " %s, line %zu: series %s has no price before its first "
                          "forecast (the forecast's origin)", path, r->line, fcast_table_id(p->t, r->series));
        else r->cutoff = p->ds[k - 1];
    }
    free(first);
    return st;
}

/* The forecast return of each window, placed at its cutoff's price row. */
static fc_status window_returns(const char *path, const fc_bt_csv *f, const prices *p, size_t horizon,
                                const double *close, double *at_cutoff) {
    size_t i = 0;
    while (i < f->n_rows) {
        size_t j = i;
        while (j < f->n_rows && f->rows[j].series == f->rows[i].series && f->rows[j].cutoff == f->rows[i].cutoff) j++;
        const fc_bt_csv_row *r = &f->rows[i];
        size_t h = horizon ? horizon : j - i, row = 0;
        if (h > j - i)
            return fc_error(FC_ERR_INVALID, FORECAST_FLAG " %s, line %zu: --horizon %zu, but the forecast of series %s "
                            "at this cutoff has %zu steps", path, r->line, horizon, fcast_table_id(p->t, r->series),
                            j - i);
        FC_TRY(row_of(FORECAST_FLAG, path, p, r->series, r->cutoff, r->line, "cutoff", &row));
        if (!(close[row] > 0.0))
            return fc_error(FC_ERR_INVALID, FORECAST_FLAG " %s, line %zu: series %s has no positive price at the "
                            "cutoff", path, r->line, fcast_table_id(p->t, r->series));
        at_cutoff[row] = f->rows[i + h - 1].value[0] / close[row] - 1.0;
        i = j;
    }
    return FC_OK;
}

/* Each price row holds the return of the latest cutoff at or before it. */
static void hold_latest(const prices *p, double *rows) {
    for (size_t s = 0; s < fcast_table_n_series(p->t); s++) {
        double last = NAN;   /* before the first cutoff: no forecast, flat */
        for (size_t i = (size_t)p->indptr[s]; i < (size_t)p->indptr[s + 1]; i++) {
            if (!isnan(rows[i])) last = rows[i];
            rows[i] = last;
        }
    }
}

static fc_status thresholds(const char *flag, const char *text, double **out, size_t *n) {
    fc_range r;
    FC_TRY(fc_range_parse(flag, text ? text : "0", 0, &r));
    if (!(*out = malloc(r.count * sizeof **out))) return fc_error(FC_ERR_MEMORY, "%s: out of memory", flag);
    for (size_t i = 0; i < r.count; i++) (*out)[i] = fc_range_value(&r, i);
    *n = r.count;
    return FC_OK;
}

static fc_status forecast_combos(fcast_signal *s, const fcast_forecast_rule *r) {
    FC_TRY(thresholds("--long-above", r->long_above, &s->long_above, &s->n_long));
    FC_TRY(thresholds("--short-below", r->allow_short ? r->short_below : NULL, &s->short_below, &s->n_short));
    s->n_combos = s->n_long * s->n_short;
    s->n_params = r->allow_short ? 2 : 1;   /* long-only: short_below plays no part */
    s->param_names[0] = "long_above";
    s->param_names[1] = "short_below";
    if (!(s->params = malloc(s->n_params * s->n_combos * sizeof *s->params)))
        return fc_error(FC_ERR_MEMORY, FORECAST_FLAG ": out of memory");
    for (size_t c = 0; c < s->n_combos; c++) {
        s->params[s->n_params * c] = s->long_above[c / s->n_short];
        if (s->n_params == 2) s->params[2 * c + 1] = s->short_below[c % s->n_short];
    }
    return FC_OK;
}

static fc_status forecast_rows(const char *path, const fcast_forecast_rule *r, const prices *p, fcast_signal *s) {
    const char *names[1] = {r->model};
    char *chosen[1] = {NULL};
    fc_bt_csv f;
    FC_TRY(fc_bt_csv_read(FORECAST_FLAG, path, p->t, 1, names, 1, &f, chosen));
    fc_status st = (s->model = strdup(chosen[0])) ? FC_OK : fc_error(FC_ERR_MEMORY, FORECAST_FLAG ": out of memory");
    if (st == FC_OK && !f.has_cutoff) st = predict_cutoffs(path, &f, p);
    if (st == FC_OK) {
        qsort(f.rows, f.n_rows, sizeof *f.rows, by_series_cutoff_ds);
        for (size_t i = 0; i < s->n_rows; i++) s->rows[i] = NAN;
        st = window_returns(path, &f, p, r->horizon, fcast_table_values(p->t), s->rows);
    }
    if (st == FC_OK) hold_latest(p, s->rows);
    fc_bt_csv_free(&f);
    return st;
}

fc_status fcast_signal_from_forecast_csv(const char *path, const fcast_forecast_rule *r, const fcast_table *t,
                                         fcast_signal **out) {
    static const char fn[] = "fcast_signal_from_forecast_csv";
    if (!path || !r || !t || !out)
        return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !path ? "path" : !r ? "r" : !t ? "prices" : "out");
    *out = NULL;
    fcast_signal *s = fc_api_signal_new(fn, FC_SIG_FORECAST);
    if (!s) return FC_ERR_MEMORY;
    s->allow_short = r->allow_short != 0;
    s->n_rows = (size_t)fcast_table_indptr(t)[fcast_table_n_series(t)];
    prices p = {0};
    fc_status st = forecast_combos(s, r);
    if (st == FC_OK) st = (s->rows = malloc((s->n_rows + 1) * sizeof *s->rows)) ? FC_OK : FC_ERR_MEMORY;
    if (st == FC_OK) st = prices_open(t, &p);
    if (st == FC_OK) st = forecast_rows(path, r, &p, s);
    free(p.ds);
    if (st != FC_OK) {
        fcast_signal_free(s);
        return st == FC_ERR_MEMORY && !fc_last_error()[0] ? fc_error(st, "%s: out of memory", fn) : st;
    }
    *out = s;
    return FC_OK;
}
