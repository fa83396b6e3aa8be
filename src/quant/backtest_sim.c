/* One signal traded on one series (see backtest_sim.h): the targets, the
 * account bar by bar (kernels/quant_backtest_account.h), the trades and
 * the metrics. */
#include "quant/backtest_sim.h"

#include <math.h>
#include <stdlib.h>
#include "core/error.h"

#define MAX_VOL_WINDOW 512

fc_bt_config fc_bt_config_default(void) {
    fc_bt_config c = {0};
    c.capital = 1e6;
    c.size_fraction = 1.0;
    c.vol_window = 20;
    c.max_leverage = 1.0;
    c.periods_per_year = 252.0;
    return c;
}

static fc_status in_range(const char *flag, double v, double lo, double hi, const char *what) {
    if (!(v >= lo && v <= hi))
        return fc_error(FC_ERR_INVALID, "--%s: expected %s, got %g", flag, what, v);
    return FC_OK;
}

fc_status fc_bt_config_check(const fc_bt_config *c) {
    FC_TRY(in_range("cost-bps", c->cost_bps, 0.0, 9999.0, "a cost in [0, 9999] basis points"));
    FC_TRY(in_range("slippage-bps", c->slippage_bps, 0.0, 9999.0, "a slippage in [0, 9999] basis points"));
    FC_TRY(in_range("capital", c->capital, 1e-6, 1e15, "a starting capital in [1e-6, 1e15]"));
    FC_TRY(in_range("fixed-cost", c->fixed_cost, 0.0, c->capital, "a cost per trade in [0, --capital]"));
    FC_TRY(in_range("size", c->size_fraction, 0.0, 1.0, "fixed:F with a fraction F of equity in [0, 1]"));
    FC_TRY(in_range("vol-target", c->vol_target, 0.0, 10.0, "an annualised volatility in [0, 10]"));
    FC_TRY(in_range("max-leverage", c->max_leverage, 0.0, 100.0, "a leverage in [0, 100]"));
    FC_TRY(in_range("stop-loss", c->stop_loss, 0.0, 1.0, "a loss in [0, 1] of the entry price (0: none)"));
    FC_TRY(in_range("take-profit", c->take_profit, 0.0, 100.0, "a gain in [0, 100] of the entry price (0: none)"));
    FC_TRY(in_range("periods-per-year", c->periods_per_year, 1.0, 1e6, "a number of bars a year in [1, 1e6]"));
    if (c->vol_target > 0.0 && (c->vol_window < 2 || c->vol_window > MAX_VOL_WINDOW))
        return fc_error(FC_ERR_INVALID, "--vol-window: expected 2 to %d returns, got %zu", MAX_VOL_WINDOW,
                        c->vol_window);
    return FC_OK;
}

const char *fc_bt_exit_name(fc_bt_exit e) {
    static const char *const names[] = {"signal", "stop_loss", "take_profit", "open"};
    return names[e];
}

size_t fc_bt_scratch_size(size_t n) { return 2 * n + n / sizeof(double) + 1; }

static fc_status push_trade(const fc_bt_detail *d, const fc_bt_trade_rec *t, fc_bt_exit reason) {
    if (!d || !d->trades) return FC_OK;
    if (*d->n_trades == *d->cap_trades) {
        size_t cap = *d->cap_trades ? 2 * *d->cap_trades : 64;
        fc_bt_trade *grown = realloc(*d->trades, cap * sizeof *grown);
        if (!grown) return fc_error(FC_ERR_MEMORY, "backtest: out of memory (trade log)");
        *d->trades = grown;
        *d->cap_trades = cap;
    }
    (*d->trades)[(*d->n_trades)++] = (fc_bt_trade){*t, reason};
    return FC_OK;
}

typedef struct {
    size_t trades, closed, wins;
} trade_count;

static fc_status book(const fc_bt_detail *d, trade_count *k, const fc_bt_trade_rec *t, fc_bt_exit reason) {
    k->trades++;
    if (!t->open) {
        k->closed++;
        k->wins += t->pnl > 0.0;
    }
    return push_trade(d, t, t->open ? FC_BT_EXIT_OPEN : reason);
}

/* vectorbt's get_return_nb: the sign kept for a negative equity (a short gone wrong). */
static double bar_return(double before, double after) {
    if (before == 0.0) return after == 0.0 ? 0.0 : copysign(INFINITY, after);
    double r = (after - before) / before;
    return before < 0.0 ? -r : r;
}

static void write_bar(const fc_bt_detail *d, size_t t, const fc_bt_account *a, double close, double equity,
                      double peak, double ret) {
    if (!d) return;
    if (d->position) d->position[t] = equity > 0.0 ? a->shares * close / equity : 0.0;
    if (d->equity) d->equity[t] = equity;
    if (d->drawdown) d->drawdown[t] = equity / peak - 1.0;
    if (d->returns) d->returns[t] = ret;
}

/* What one run carries from bar to bar. */
typedef struct {
    fc_bt_account a;
    fc_bt_position pos;
    trade_count k;
    double prev_target, turnover;
} run_state;

/* The order of bar t, when its target is new (rounding noise, such as a
 * volatility summed in another order, is not), and the trade it ends. */
static fc_status trade_at(run_state *r, size_t t, double target, double close, const fc_bt_costs *costs,
                          const fc_bt_detail *d, fc_bt_exit reason) {
    if (fc_bt_is_close(target, r->prev_target)) return FC_OK;
    r->prev_target = target;
    double before = r->a.cash + r->a.shares * close;
    fc_bt_fill f = fc_bt_order_target(&r->a, target, close, costs);
    if (f.side == 0) return FC_OK;
    r->turnover += f.size * f.price / before;
    fc_bt_trade_rec done;
    return fc_bt_position_fill(&r->pos, &f, t, &done) ? book(d, &r->k, &done, reason) : FC_OK;
}

static void finish_stats(const run_state *r, const double *ret, size_t n, double ppy, double equity, fc_bt_stats *out) {
    fc_bt_stats_from_returns(ret, n, ppy, out);
    out->turnover = r->turnover;
    out->trades = r->k.trades;
    out->closed_trades = r->k.closed;
    out->hit_rate = r->k.closed ? (double)r->k.wins / (double)r->k.closed : NAN;
    out->end_equity = equity;
}

fc_status fc_bt_simulate(const double *close, const double *signal, size_t n, const fc_bt_config *c,
                         double *scratch, fc_bt_stats *out, const fc_bt_detail *detail) {
    double *target = scratch, *ret = scratch + n;
    unsigned char *reason = (unsigned char *)(scratch + 2 * n);
    fc_bt_targets(close, signal, n, c, target, reason);
    const fc_bt_costs costs = {c->cost_bps * 1e-4, c->fixed_cost, c->slippage_bps * 1e-4};
    run_state r = {{c->capital, 0.0}, {0}, {0, 0, 0}, 0.0, 0.0};
    fc_bt_position_init(&r.pos);
    double prev_equity = c->capital, peak = -INFINITY;
    fc_status st = FC_OK;
    for (size_t t = 0; t < n && st == FC_OK; t++) {
        st = trade_at(&r, t, target[t], close[t], &costs, detail, (fc_bt_exit)reason[t]);
        double equity = r.a.cash + r.a.shares * close[t];
        ret[t] = bar_return(prev_equity, equity);
        if (equity > peak) peak = equity;
        write_bar(detail, t, &r.a, close[t], equity, peak, ret[t]);
        prev_equity = equity;
    }
    fc_bt_trade_rec last;
    if (st == FC_OK && fc_bt_position_finish(&r.pos, n - 1, close[n - 1], &last))
        st = book(detail, &r.k, &last, FC_BT_EXIT_OPEN);
    if (st == FC_OK) finish_stats(&r, ret, n, c->periods_per_year, prev_equity, out);
    return st;
}
