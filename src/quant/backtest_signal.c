/* The grid driver of the portfolio backtester and its simple sources (see
 * backtest_signal.h). */
#include "quant/backtest_signal.h"

#include <math.h>
#include <stdlib.h>
#include "core/error.h"

fc_status fc_bt_rule_signal(const void *ctx, size_t combo, size_t series, const double *close, size_t n,
                            double *scratch, double *signal) {
    (void)series;
    const fc_bt_rule_source *s = ctx;
    return fc_rule_positions(&s->combos[combo], s->allow_short, close, n, scratch, signal);
}

fc_status fc_bt_given_signal(const void *ctx, size_t combo, size_t series, const double *close, size_t n,
                             double *scratch, double *signal) {
    (void)combo, (void)close, (void)scratch;
    const fc_bt_given_source *s = ctx;
    for (size_t t = 0; t < n; t++) signal[t] = s->positions[series][t];
    return FC_OK;
}

fc_status fc_bt_forecast_signal(const void *ctx, size_t combo, size_t series, const double *close, size_t n,
                                double *scratch, double *signal) {
    (void)close, (void)scratch;
    const fc_bt_forecast_source *s = ctx;
    const double hi = s->long_above[combo / s->n_short], lo = s->short_below[combo % s->n_short];
    const double *f = s->forecast_return[series];
    for (size_t t = 0; t < n; t++) {
        double p = 0.0;
        if (f[t] > hi) p = 1.0;
        else if (s->allow_short && f[t] < lo) p = -1.0;
        signal[t] = p;   /* a NaN forecast compares false: flat */
    }
    return FC_OK;
}

fc_status fc_bt_expr_signal(const void *ctx, size_t combo, size_t series, const double *close, size_t n,
                            double *scratch, double *signal) {
    (void)close, (void)scratch;
    const fc_bt_expr_source *s = ctx;
    const double *ops[FC_RX_MAX_OPERANDS] = {0};
    for (size_t k = 0; k < s->expr->n_operands; k++)
        if (!s->expr->operands[k].is_number)
            ops[k] = s->values[series][s->base[k] + fc_rule_expr_instance(s->grid, k, combo)];
    fc_rule_expr_positions(s->expr, ops, n, s->allow_short, signal);
    return FC_OK;
}

static fc_status check_close(const double *close, size_t n, const char *id) {
    if (n < 1) return fc_error(FC_ERR_INVALID, "series %s: a backtest needs at least 1 price", id);
    for (size_t t = 0; t < n; t++)
        if (!(close[t] > 0.0) || !isfinite(close[t]))
            return fc_error(FC_ERR_INVALID, "series %s, point %zu: prices must be positive, got %g", id, t + 1,
                            close[t]);
    return FC_OK;
}

/* The doubles one cell needs: the signal, the source's 3 n, the simulation's. */
static size_t cell_scratch(size_t n) { return 4 * n + fc_bt_scratch_size(n); }

static fc_status run_cell(const fc_bt_source *src, size_t combo, size_t series, const fc_bt_config *c,
                          const double *close, size_t n, double *scratch, fc_bt_stats *out,
                          const fc_bt_detail *detail) {
    double *signal = scratch, *work = scratch + n, *sim = scratch + 4 * n;
    FC_TRY(src->fn(src->ctx, combo, series, close, n, work, signal));
    return fc_bt_simulate(close, signal, n, c, sim, out, detail);
}

fc_status fc_bt_run_one(const fc_bt_source *src, size_t combo, size_t series, const fc_bt_config *c,
                        const double *close, size_t n, fc_bt_stats *out, const fc_bt_detail *detail) {
    FC_TRY(fc_bt_config_check(c));
    FC_TRY(check_close(close, n, "(input)"));
    double *scratch = fc_malloc(cell_scratch(n) * sizeof(double), "backtest scratch");
    if (!scratch) return FC_ERR_MEMORY;
    fc_status st = run_cell(src, combo, series, c, close, n, scratch, out, detail);
    free(scratch);
    return st;
}

fc_status fc_bt_run_grid(const fc_bt_source *src, const fc_bt_config *c, const double *const *close,
                         const size_t *len, const char *const *ids, size_t n_series, fc_bt_stats *out) {
    FC_TRY(fc_bt_config_check(c));
    size_t max_len = 1;
    for (size_t s = 0; s < n_series; s++) {
        FC_TRY(check_close(close[s], len[s], ids ? ids[s] : ""));
        if (len[s] > max_len) max_len = len[s];
    }
    const long long n_tasks = (long long)(src->n_combos * n_series);
    long long failed = -1;
    #pragma omp parallel
    {
        double *scratch = malloc(cell_scratch(max_len) * sizeof(double));
        #pragma omp for schedule(dynamic, 4)
        for (long long i = 0; i < n_tasks; i++) {
            size_t k = (size_t)i / n_series, s = (size_t)i % n_series;
            if (!scratch || run_cell(src, k, s, c, close[s], len[s], scratch, &out[i], NULL) != FC_OK) {
                #pragma omp critical(fc_bt_grid_failure)
                if (failed < 0 || i < failed) failed = i;
            }
        }
        free(scratch);
    }
    if (failed >= 0) {   /* replayed here so that its message is this thread's */
        size_t k = (size_t)failed / n_series, s = (size_t)failed % n_series;
        fc_status st = fc_bt_run_one(src, k, s, c, close[s], len[s], &out[failed], NULL);
        return st != FC_OK ? fc_error_wrap(st, "series %s: ", ids ? ids[s] : "")
                           : fc_error(FC_ERR_MEMORY, "backtest: out of memory for per-thread scratch");
    }
    return FC_OK;
}
