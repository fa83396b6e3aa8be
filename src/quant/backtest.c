/* Rule evaluation for one (combination, series) pair and the grid driver
 * (see backtest.h). Both paths run the same function, on per-thread scratch
 * buffers, so a grid cell equals the combination run alone, bit for bit. */
#include "quant/backtest.h"

#include <math.h>
#include <string.h>
#include "core/error.h"
#include "kernels/quant_backtest.h"
#include "quant/backtest_indicators.h"
#include "quant/risk.h"

static const char *const RULE_NAMES[3] = {"sma-cross", "rsi", "bbands"};
static const char *const PARAM_NAMES[3][FC_RULE_MAX_PARAMS] = {
    {"fast", "slow", NULL}, {"period", "lower", "upper"}, {"period", "k", NULL}};

const char *fc_rule_name(fc_rule_kind k) { return RULE_NAMES[k]; }

fc_status fc_rule_parse(const char *name, fc_rule_kind *out) {
    for (int k = 0; k < 3; k++)
        if (!strcmp(name, RULE_NAMES[k])) {
            *out = (fc_rule_kind)k;
            return FC_OK;
        }
    return fc_error(FC_ERR_INVALID, "--rule: unknown rule '%s' (expected sma-cross, rsi or bbands)", name);
}

size_t fc_rule_param_count(fc_rule_kind k) { return k == FC_RULE_RSI ? 3 : 2; }
const char *fc_rule_param_name(fc_rule_kind k, size_t i) { return PARAM_NAMES[k][i]; }
int fc_rule_param_is_integer(fc_rule_kind k, size_t i) {
    return i == 0 || (k == FC_RULE_SMA_CROSS && i == 1);
}

int fc_rule_is_valid_combination(const fc_rule_params *p) {
    if (p->rule == FC_RULE_SMA_CROSS) return p->p[0] < p->p[1];
    if (p->rule == FC_RULE_RSI) return p->p[1] < p->p[2];
    return 1;
}

static fc_status check_period(const fc_rule_params *p, size_t i, size_t n, const char *series) {
    double v = p->p[i];
    const char *flag = fc_rule_param_name(p->rule, i);
    /* TA-Lib's own limits: RSI and Bollinger bands need at least 2 points, no period exceeds 100000 */
    double lowest = p->rule == FC_RULE_SMA_CROSS ? 1.0 : 2.0;
    if (!(v >= lowest) || v != floor(v) || v > 100000.0)
        return fc_error(FC_ERR_INVALID, "--%s: a period must be a whole number from %g to 100000, got %g", flag,
                        lowest, v);
    if (v > (double)n)
        return fc_error(FC_ERR_INVALID, "--%s: period %g is longer than series %s (%zu points)", flag, v,
                        series ? series : "", n);
    return FC_OK;
}

fc_status fc_rule_check(const fc_rule_params *p, size_t n, const char *series) {
    if (p->rule == FC_RULE_SMA_CROSS) {
        FC_TRY(check_period(p, 0, n, series));
        return check_period(p, 1, n, series);
    }
    FC_TRY(check_period(p, 0, n, series));
    if (p->rule == FC_RULE_RSI) {
        for (int i = 1; i < 3; i++)
            if (!(p->p[i] >= 0.0 && p->p[i] <= 100.0))
                return fc_error(FC_ERR_INVALID, "--%s: an RSI threshold must lie in [0, 100], got %g",
                                PARAM_NAMES[1][i], p->p[i]);
        return FC_OK;
    }
    if (!(p->p[1] > 0.0) || !isfinite(p->p[1]))
        return fc_error(FC_ERR_INVALID, "--k: the band width must be > 0 standard deviations, got %g", p->p[1]);
    return FC_OK;
}

/* Indicators into scratch a, b, c (each n); then positions bar by bar. */
static fc_status rule_indicators(const fc_rule_params *p, const double *close, size_t n, double *a, double *b,
                                 double *c) {
    switch (p->rule) {
    case FC_RULE_SMA_CROSS:
        FC_TRY(fc_bt_compute_sma(close, n, (size_t)p->p[0], a));
        return fc_bt_compute_sma(close, n, (size_t)p->p[1], b);
    case FC_RULE_RSI: return fc_bt_compute_rsi(close, n, (size_t)p->p[0], a);
    case FC_RULE_BBANDS: return fc_bt_compute_bbands(close, n, (size_t)p->p[0], p->p[1], a, b, c);
    }
    return FC_OK;
}

static int rule_position(const fc_rule_params *p, int allow_short, const double *close, const double *a,
                         const double *b, const double *c, size_t t, int prev) {
    switch (p->rule) {
    case FC_RULE_SMA_CROSS: return fc_bt_sma_cross(a[t], b[t], allow_short);
    case FC_RULE_RSI: return fc_bt_rsi(a[t], p->p[1], p->p[2], prev, allow_short);
    case FC_RULE_BBANDS: return fc_bt_bbands(close[t], a[t], b[t], c[t], prev, allow_short);
    }
    return 0;
}

/* The one evaluation both entry points use; scratch holds 4 n doubles. */
static fc_status run_with_scratch(const fc_rule_params *p, const fc_bt_options *o, const double *close,
                                  size_t n, double *scratch, fc_bt_metrics *out) {
    double *a = scratch, *b = scratch + n, *c = scratch + 2 * n, *net = scratch + 3 * n;
    FC_TRY(rule_indicators(p, close, n, a, b, c));
    const double cost = o->cost_bps * 1e-4;
    fc_bt_state s;
    fc_bt_state_init(&s);
    fc_bt_first(&s, rule_position(p, o->allow_short, close, a, b, c, 0, 0), cost);
    for (size_t t = 1; t < n; t++) {
        int pos = rule_position(p, o->allow_short, close, a, b, c, t, s.pos);
        net[t - 1] = fc_bt_step(&s, close[t] / close[t - 1] - 1.0, pos, cost);
    }
    out->total_return = s.equity - 1.0;
    out->cagr = fc_cagr(s.equity, n - 1);
    out->sharpe = fc_sharpe_ratio(net, n - 1);
    out->max_drawdown = fc_max_drawdown(net, n - 1);
    out->trades = s.trades;
    out->closed_trades = s.closed;
    out->hit_rate = s.closed ? (double)s.wins / (double)s.closed : NAN;
    return FC_OK;
}

fc_status fc_rule_positions(const fc_rule_params *p, int allow_short, const double *close, size_t n,
                            double *scratch, double *positions) {
    double *a = scratch, *b = scratch + n, *c = scratch + 2 * n;
    FC_TRY(rule_indicators(p, close, n, a, b, c));
    int prev = 0;
    for (size_t t = 0; t < n; t++) {
        prev = rule_position(p, allow_short, close, a, b, c, t, prev);
        positions[t] = (double)prev;
    }
    return FC_OK;
}

static fc_status check_series(const double *close, size_t n, const char *id) {
    if (n < 2) return fc_error(FC_ERR_INVALID, "series %s: a backtest needs at least 2 prices, got %zu", id, n);
    for (size_t t = 0; t < n; t++)
        if (!(close[t] > 0.0) || !isfinite(close[t]))
            return fc_error(FC_ERR_INVALID, "series %s, point %zu: prices must be positive, got %g", id, t + 1,
                            close[t]);
    return FC_OK;
}

fc_status fc_backtest_run(const fc_rule_params *p, const fc_bt_options *o, const double *close, size_t n,
                          fc_bt_metrics *out) {
    FC_TRY(check_series(close, n, "(input)"));
    FC_TRY(fc_rule_check(p, n, "(input)"));
    double *scratch = fc_malloc(4 * n * sizeof(double), "backtest scratch");
    if (!scratch) return FC_ERR_MEMORY;
    fc_status st = run_with_scratch(p, o, close, n, scratch, out);
    free(scratch);
    return st;
}

/* Everything that can fail on input is checked here, on the calling thread,
 * so that messages (thread-local) reach the caller. */
static fc_status check_grid(const fc_rule_params *combos, size_t n_combos, const double *const *close,
                            const size_t *len, const char *const *ids, size_t n_series, size_t *max_len) {
    *max_len = 0;
    for (size_t s = 0; s < n_series; s++) {
        const char *id = ids ? ids[s] : "";
        FC_TRY(check_series(close[s], len[s], id));
        for (size_t c = 0; c < n_combos; c++) FC_TRY(fc_rule_check(&combos[c], len[s], id));
        if (len[s] > *max_len) *max_len = len[s];
    }
    return FC_OK;
}

fc_status fc_backtest_grid(const fc_rule_params *combos, size_t n_combos, const fc_bt_options *o,
                           const double *const *close, const size_t *len, const char *const *ids,
                           size_t n_series, fc_bt_metrics *out) {
    size_t max_len;
    FC_TRY(check_grid(combos, n_combos, close, len, ids, n_series, &max_len));
    const long long n_tasks = (long long)(n_combos * n_series);
    long long failed = -1;
    #pragma omp parallel
    {
        double *scratch = malloc(4 * max_len * sizeof(double));
        #pragma omp for schedule(dynamic, 4)
        for (long long i = 0; i < n_tasks; i++) {
            size_t c = (size_t)i / n_series, s = (size_t)i % n_series;
            if (!scratch || run_with_scratch(&combos[c], o, close[s], len[s], scratch, &out[i]) != FC_OK) {
                #pragma omp critical(fc_backtest_failure)
                if (failed < 0 || i < failed) failed = i;
            }
        }
        free(scratch);
    }
    if (failed >= 0) { /* replay the first failure here so its message is this thread's */
        size_t c = (size_t)failed / n_series, s = (size_t)failed % n_series;
        fc_status st = fc_backtest_run(&combos[c], o, close[s], len[s], &out[failed]);
        return st != FC_OK ? fc_error_wrap(st, "series %s: ", ids ? ids[s] : "")
                           : fc_error(FC_ERR_MEMORY, "backtest: out of memory for per-thread scratch");
    }
    return FC_OK;
}
