/* fcast_backtest (fcast.h): every combination of a grid on every series of
 * the grouped layout, missing closes (NaN) skipped, through the engine's
 * grid driver (quant/backtest.h: OpenMP over (combination, series) pairs,
 * each cell equal to the combination run alone). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_quant.h"
#include "core/error.h"
#include "quant/backtest.h"

static const char FN[] = "fcast_backtest";

typedef struct {
    double **close;   /* (n_series) each series' observed closes */
    size_t *len;
    size_t n_series;
} closes;

static void closes_free(closes *c) {
    for (size_t s = 0; c->close && s < c->n_series; s++) free(c->close[s]);
    free(c->close);
    free(c->len);
}

static fc_status closes_make(const size_t *off, size_t n_series, const double *values, closes *c) {
    c->n_series = n_series;
    c->close = calloc(n_series + 1, sizeof *c->close);
    c->len = calloc(n_series + 1, sizeof *c->len);
    if (!c->close || !c->len) return fc_error(FC_ERR_MEMORY, "%s: out of memory", FN);
    for (size_t s = 0; s < n_series; s++) {
        c->close[s] = malloc((off[s + 1] - off[s] + 1) * sizeof(double));
        if (!c->close[s]) return fc_error(FC_ERR_MEMORY, "%s: out of memory", FN);
        for (size_t i = off[s]; i < off[s + 1]; i++)
            if (!isnan(values[i])) c->close[s][c->len[s]++] = values[i];
    }
    return FC_OK;
}

/* st, its flag ("--slow: period 5000 is longer than series CAC", "series <id>:
 * --fast: ...") in the API's words: the parameter's name. */
static fc_status param_words(fc_status st, const char *const *ids, size_t n_series) {
    const char *msg = fc_last_error();
    size_t at = strncmp(msg, "--", 2) ? (size_t)-1 : 0;
    for (size_t s = 0; at && ids && s < n_series; s++) {
        size_t n = strlen(ids[s]);
        if (!strncmp(msg, "series ", 7) && !strncmp(msg + 7, ids[s], n) && !strncmp(msg + 7 + n, ": --", 4) &&
            (at == (size_t)-1 || 9 + n > at))
            at = 9 + n;
    }
    if (at == (size_t)-1) return st;
    char copy[1024];   /* fc_error rewrites the message it reads */
    snprintf(copy, sizeof copy, "%s", msg);
    return fc_error(st, "%.*s%s", (int)at, copy, copy + at + 2);
}

static fc_status check_args(const fcast_grid *g, const fcast_backtest_options *o, const double *close,
                            fcast_backtest_metrics *out) {
    if (!g || !o || !close || !out)
        return fc_error(FC_ERR_INVALID, "%s: %s is NULL", FN, !g ? "g" : !o ? "o" : !close ? "close" : "out");
    if (!(o->cost_bps >= 0.0 && o->cost_bps < 10000.0))
        return fc_error(FC_ERR_INVALID, "%s: o->cost_bps = %g: must be in [0, 10000) basis points", FN, o->cost_bps);
    if (o->allow_short != 0 && o->allow_short != 1)
        return fc_error(FC_ERR_INVALID, "%s: o->allow_short = %d: must be 0 or 1", FN, o->allow_short);
    return FC_OK;
}

static fc_status run(const fcast_grid *g, const fcast_backtest_options *o, const closes *c,
                     const char *const *ids, fcast_backtest_metrics *out) {
    size_t n = fcast_grid_size(g), S = c->n_series;
    fc_rule_params *combos = malloc((n + 1) * sizeof *combos);
    fc_bt_metrics *m = malloc((n * S + 1) * sizeof *m);
    fc_status st = combos && m ? FC_OK : fc_error(FC_ERR_MEMORY, "%s: out of memory", FN);
    for (size_t k = 0; st == FC_OK && k < n; k++) {
        combos[k].rule = (fc_rule_kind)fcast_grid_rule(g);
        memcpy(combos[k].p, fcast_grid_params(g, k), sizeof combos[k].p);
    }
    fc_bt_options bo = {.cost_bps = o->cost_bps, .allow_short = o->allow_short};
    if (st == FC_OK)
        st = fc_backtest_grid(combos, n, &bo, (const double *const *)c->close, c->len, ids, S, m);
    for (size_t i = 0; st == FC_OK && i < n * S; i++)
        out[i] = (fcast_backtest_metrics){m[i].total_return, m[i].cagr, m[i].sharpe, m[i].max_drawdown,
                                          m[i].hit_rate, m[i].trades, m[i].closed_trades};
    free(combos);
    free(m);
    return st == FC_OK ? FC_OK : param_words(st, ids, S);
}

fc_status fcast_backtest(const fcast_grid *g, const fcast_backtest_options *o, size_t n_series, const int64_t *indptr,
                         const double *close, const char *const *ids, fcast_backtest_metrics *out) {
    FC_TRY(check_args(g, o, close, out));
    size_t *off = NULL;
    FC_TRY(fc_api_offsets_from_indptr(FN, n_series, indptr, &off));
    closes c = {0};
    fc_status st = closes_make(off, n_series, close, &c);
    if (st == FC_OK) st = run(g, o, &c, ids, out);
    closes_free(&c);
    free(off);
    return st;
}
