/* fcast_backtest_signal, fcast_backtest_curve, fcast_backtest_trades
 * (fcast.h): a signal's combinations on every series of the grouped
 * layout, missing closes (NaN) skipped with their rows, through the
 * portfolio backtester's grid driver (quant/backtest_signal.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_backtest_signal.h"
#include "api/api_quant.h"
#include "core/error.h"
#include "quant/backtest_signal.h"

void fcast_backtest_config_init(fcast_backtest_config *c) {
    if (!c) return;
    fc_bt_config d = fc_bt_config_default();
    *c = (fcast_backtest_config){d.cost_bps, d.slippage_bps, d.fixed_cost, d.capital, d.size_fraction, d.vol_target,
                                 d.vol_window, d.max_leverage, d.stop_loss, d.take_profit, d.periods_per_year};
}

static fc_bt_config engine_config(const fcast_backtest_config *c) {
    if (!c) return fc_bt_config_default();
    return (fc_bt_config){c->cost_bps, c->slippage_bps, c->fixed_cost, c->capital, c->size_fraction, c->vol_target,
                          c->vol_window, c->max_leverage, c->stop_loss, c->take_profit, c->periods_per_year};
}

/* Each series' observed rows: closes, the signal's row arrays (a
 * position, a forecast return or a rule's operand values), and where
 * they came from. */
typedef struct {
    size_t n_series, n_arrays;
    double **close;
    double **arrays;         /* (n_series * n_arrays): series s's array a at [s * n_arrays + a] */
    const double **by_series;/* (n_series * n_arrays) the same, for the engine's sources */
    const double *const **views;   /* (n_series) series s's arrays */
    size_t **origin;         /* the layout row of each kept bar */
    size_t *len;
} kept;

static void kept_free(kept *k) {
    for (size_t s = 0; s < k->n_series; s++) {
        if (k->close) free(k->close[s]);
        if (k->origin) free(k->origin[s]);
    }
    for (size_t i = 0; k->arrays && i < k->n_series * k->n_arrays; i++) free(k->arrays[i]);
    free(k->close);
    free(k->arrays);
    free(k->by_series);
    free((void *)k->views);
    free(k->origin);
    free(k->len);
}

static fc_status kept_alloc(const char *fn, const size_t *off, kept *k) {
    const size_t S = k->n_series, A = k->n_arrays;
    k->close = calloc(S + 1, sizeof *k->close);
    k->arrays = calloc(S * A + 1, sizeof *k->arrays);
    k->by_series = calloc(S * A + 1, sizeof *k->by_series);
    k->views = calloc(S + 1, sizeof *k->views);
    k->origin = calloc(S + 1, sizeof *k->origin);
    k->len = calloc(S + 1, sizeof *k->len);
    if (!k->close || !k->arrays || !k->by_series || !k->views || !k->origin || !k->len)
        return fc_error(FC_ERR_MEMORY, "%s: out of memory", fn);
    for (size_t s = 0; s < S; s++) {
        size_t n = off[s + 1] - off[s] + 1;
        k->close[s] = malloc(n * sizeof(double));
        k->origin[s] = malloc(n * sizeof(size_t));
        if (!k->close[s] || !k->origin[s]) return fc_error(FC_ERR_MEMORY, "%s: out of memory", fn);
        for (size_t a = 0; a < A; a++)
            if (!(k->arrays[s * A + a] = malloc(n * sizeof(double))))
                return fc_error(FC_ERR_MEMORY, "%s: out of memory", fn);
        k->views[s] = (const double *const *)&k->by_series[s * A];
    }
    return FC_OK;
}

static fc_status kept_make(const char *fn, const fcast_signal *sig, const size_t *off, size_t n_series,
                           const double *close, kept *k) {
    double *const *rows;
    k->n_series = n_series;
    k->n_arrays = fc_api_signal_arrays(sig, &rows);
    FC_TRY(kept_alloc(fn, off, k));
    const size_t A = k->n_arrays;
    for (size_t s = 0; s < n_series; s++) {
        for (size_t i = off[s]; i < off[s + 1]; i++) {
            if (isnan(close[i])) continue;
            size_t t = k->len[s]++;
            k->close[s][t] = close[i];
            k->origin[s][t] = i;
            for (size_t a = 0; a < A; a++) k->arrays[s * A + a][t] = rows[a][i];
        }
        for (size_t a = 0; a < A; a++) k->by_series[s * A + a] = k->arrays[s * A + a];
    }
    return FC_OK;
}

/* The engine's source for sig over k (src's ctx points into *storage). */
typedef union {
    fc_bt_rule_source rule;
    fc_bt_given_source given;
    fc_bt_forecast_source forecast;
    fc_bt_expr_source expr;
} source_storage;

static fc_bt_source source_of(const fcast_signal *sig, const kept *k, source_storage *st) {
    switch (sig->kind) {
    case FC_SIG_GRID:
        st->rule = (fc_bt_rule_source){sig->combos, sig->allow_short};
        return (fc_bt_source){fc_bt_rule_signal, &st->rule, sig->n_combos};
    case FC_SIG_POSITIONS:   /* one array a series: its positions */
        st->given = (fc_bt_given_source){k->by_series};
        return (fc_bt_source){fc_bt_given_signal, &st->given, 1};
    case FC_SIG_FORECAST:
        st->forecast = (fc_bt_forecast_source){k->by_series, sig->long_above, sig->short_below, sig->n_long,
                                               sig->n_short, sig->allow_short};
        return (fc_bt_source){fc_bt_forecast_signal, &st->forecast, sig->n_combos};
    case FC_SIG_RULE:
        st->expr = (fc_bt_expr_source){sig->expr, sig->grid, k->views, sig->base, sig->allow_short};
        return (fc_bt_source){fc_bt_expr_signal, &st->expr, sig->n_combos};
    }
    return (fc_bt_source){0};
}

/* The checks and the kept rows every entry point starts from. */
static fc_status prepare(const char *fn, const fcast_signal *s, size_t n_series, const int64_t *indptr,
                         const double *close, kept *k) {
    if (!s || !close) return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !s ? "s" : "close");
    size_t *off = NULL;
    FC_TRY(fc_api_offsets_from_indptr(fn, n_series, indptr, &off));
    fc_status st = FC_OK;
    if (s->kind != FC_SIG_GRID && (size_t)off[n_series] != s->n_rows)
        st = fc_error(FC_ERR_INVALID, "%s: the layout has %zu rows, the signal %zu", fn, off[n_series], s->n_rows);
    if (st == FC_OK) st = kept_make(fn, s, off, n_series, close, k);
    free(off);
    return st;
}

/* Rule parameters are checked against each series' length here, on the calling thread. */
static fc_status check_rule_periods(const fcast_signal *s, const kept *k, const char *const *ids) {
    if (s->kind != FC_SIG_GRID) return FC_OK;
    for (size_t i = 0; i < k->n_series; i++)
        for (size_t c = 0; c < s->n_combos; c++) {
            fc_status st = fc_rule_check(&s->combos[c], k->len[i], ids ? ids[i] : "");
            if (st != FC_OK) return fc_error_wrap(st, "series %s: ", ids ? ids[i] : "");
        }
    return FC_OK;
}

fc_status fcast_backtest_signal(const fcast_signal *s, const fcast_backtest_config *c, size_t n_series,
                                const int64_t *indptr, const double *close, const char *const *ids,
                                fcast_backtest_stats *out) {
    static const char fn[] = "fcast_backtest_signal";
    if (!out) return fc_error(FC_ERR_INVALID, "%s: out is NULL", fn);
    kept k = {0};
    fc_status st = prepare(fn, s, n_series, indptr, close, &k);
    fc_bt_config cfg = engine_config(c);
    source_storage storage;
    fc_bt_stats *m = st == FC_OK ? malloc((s->n_combos * n_series + 1) * sizeof *m) : NULL;
    if (st == FC_OK && !m) st = fc_error(FC_ERR_MEMORY, "%s: out of memory", fn);
    if (st == FC_OK) st = check_rule_periods(s, &k, ids);
    if (st == FC_OK) {
        fc_bt_source src = source_of(s, &k, &storage);
        st = fc_bt_run_grid(&src, &cfg, (const double *const *)k.close, k.len, ids, n_series, m);
    }
    for (size_t i = 0; st == FC_OK && i < s->n_combos * n_series; i++)
        out[i] = (fcast_backtest_stats){m[i].total_return, m[i].annual_return, m[i].annual_volatility, m[i].sharpe,
                                        m[i].sortino, m[i].calmar, m[i].max_drawdown, m[i].max_drawdown_bars,
                                        m[i].turnover, m[i].hit_rate, m[i].trades, m[i].closed_trades,
                                        m[i].end_equity};
    free(m);
    kept_free(&k);
    return st;
}

typedef struct {
    double *position, *equity, *drawdown, *returns;
} curve_out;

/* One series' run with its details, scattered back to the layout's rows. */
static fc_status detail_series(const fcast_signal *s, size_t combo, const fc_bt_config *cfg, const kept *k, size_t i,
                               const curve_out *co, fc_bt_trade **trades, size_t *n_trades, size_t *cap) {
    source_storage storage;
    fc_bt_source src = source_of(s, k, &storage);
    const size_t n = k->len[i];
    double *buf = malloc((4 * n + 1) * sizeof *buf);
    if (!buf) return fc_error(FC_ERR_MEMORY, "backtest: out of memory (equity curve)");
    fc_bt_detail d = {buf, buf + n, buf + 2 * n, buf + 3 * n, trades, n_trades, cap};
    fc_bt_stats m;
    fc_status st = n ? fc_bt_run_one(&src, combo, i, cfg, k->close[i], n, &m, &d) : FC_OK;
    double *const dst[4] = {co->position, co->equity, co->drawdown, co->returns};
    for (size_t t = 0; st == FC_OK && t < n; t++)
        for (int j = 0; j < 4; j++)
            if (dst[j]) dst[j][k->origin[i][t]] = buf[(size_t)j * n + t];
    free(buf);
    return st;
}

static fc_status details(const char *fn, const fcast_signal *s, size_t combo, const fcast_backtest_config *c,
                         size_t n_series, const int64_t *indptr, const double *close, const curve_out *co,
                         fcast_backtest_trade **trades_out, size_t *n_out) {
    kept k = {0};
    fc_status st = prepare(fn, s, n_series, indptr, close, &k);
    if (st == FC_OK && combo >= s->n_combos)
        st = fc_error(FC_ERR_INVALID, "%s: combo = %zu: the signal has %zu combinations", fn, combo, s->n_combos);
    if (st == FC_OK) st = check_rule_periods(s, &k, NULL);
    const fc_bt_config cfg = engine_config(c);
    fc_bt_trade *tr = NULL;
    size_t n_tr = 0, cap = 0, done = 0;
    fcast_backtest_trade *pub = NULL;
    size_t n_pub = 0;
    for (size_t i = 0; st == FC_OK && i < n_series; i++) {
        st = detail_series(s, combo, &cfg, &k, i, co, trades_out ? &tr : NULL, &n_tr, &cap);
        if (st != FC_OK || !trades_out || n_tr == done) continue;
        fcast_backtest_trade *g = realloc(pub, n_tr * sizeof *g);
        if (!g) {
            st = fc_error(FC_ERR_MEMORY, "%s: out of memory", fn);
            break;
        }
        pub = g;
        for (; done < n_tr; done++) {
            const fc_bt_trade_rec *t = &tr[done].t;
            pub[n_pub++] = (fcast_backtest_trade){i, k.origin[i][t->entry_bar], k.origin[i][t->exit_bar],
                                                  t->exit_bar - t->entry_bar, t->dir, t->size, t->entry_price,
                                                  t->exit_price, t->pnl, t->ret, fc_bt_exit_name(tr[done].reason)};
        }
    }
    free(tr);
    kept_free(&k);
    if (st != FC_OK) {
        free(pub);
        return st;
    }
    if (trades_out) {
        *trades_out = pub;
        *n_out = n_pub;
    }
    return FC_OK;
}

static void fill_nan(double *a, size_t n) {
    for (size_t i = 0; a && i < n; i++) a[i] = NAN;
}

fc_status fcast_backtest_curve(const fcast_signal *s, size_t combo, const fcast_backtest_config *c, size_t n_series,
                               const int64_t *indptr, const double *close, double *position, double *equity,
                               double *drawdown, double *returns) {
    static const char fn[] = "fcast_backtest_curve";
    if (!indptr) return fc_error(FC_ERR_INVALID, "%s: indptr is NULL", fn);
    const size_t rows = (size_t)indptr[n_series];
    fill_nan(position, rows);
    fill_nan(equity, rows);
    fill_nan(drawdown, rows);
    fill_nan(returns, rows);
    const curve_out co = {position, equity, drawdown, returns};
    return details(fn, s, combo, c, n_series, indptr, close, &co, NULL, NULL);
}

fc_status fcast_backtest_trades(const fcast_signal *s, size_t combo, const fcast_backtest_config *c, size_t n_series,
                                const int64_t *indptr, const double *close, fcast_backtest_trade **trades,
                                size_t *n_trades) {
    static const char fn[] = "fcast_backtest_trades";
    if (!trades || !n_trades) return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !trades ? "trades" : "n_trades");
    *trades = NULL;
    *n_trades = 0;
    const curve_out none = {NULL, NULL, NULL, NULL};
    return details(fn, s, combo, c, n_series, indptr, close, &none, trades, n_trades);
}

void fcast_backtest_trades_free(fcast_backtest_trade *trades) { free(trades); }
