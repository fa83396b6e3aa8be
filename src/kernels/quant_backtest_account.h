/* Per-bar bodies of the portfolio backtester (src/quant/backtest_sim.c),
 * shared with a future CUDA kernel (one thread per (combination, symbol)):
 * a cash account holding one asset, orders to a target fraction of equity,
 * and the bookkeeping of positions (trades).
 *
 * The arithmetic is vectorbt's (Portfolio.from_orders, size_type
 * 'targetpercent', direction 'both', lock_cash False; vectorbt/portfolio/
 * nb.py: execute_order_nb, buy_nb, sell_nb, get_exit_trades_nb,
 * fill_position_record_nb), step for step, its tolerances included, so
 * that the same positions give the same equity to the last bits:
 *  - the value before an order is cash + shares * close;
 *  - an order for target w buys or sells w * value / close - shares shares
 *    at close (1 + slippage) or close (1 - slippage);
 *  - fees = fees * traded value + fixed fees, paid in cash;
 *  - a buy is limited by the cash (no borrowing): what cannot be paid,
 *    fees included, is not bought; a short sale is not limited;
 *  - a position (trade) runs from the first fill after flat to the fill
 *    that makes it flat again or reverses it; its entry price is the
 *    size-weighted average of the fills that increased it, its exit price
 *    that of the fills that reduced it, its PnL the difference in value
 *    less every fee it paid (entry fees pro rata of the size closed). */
#ifndef FC_KERNELS_QUANT_BACKTEST_ACCOUNT_H
#define FC_KERNELS_QUANT_BACKTEST_ACCOUNT_H

#include <math.h>
#include <stddef.h>
#include "core/hd.h"

/* vectorbt's tolerances (vectorbt/utils/math_.py): sizes, cash and prices
 * within these of each other are the same number. */
#define FC_BT_REL_TOL 1e-9
#define FC_BT_ABS_TOL 1e-12

FC_HD int fc_bt_is_close(double a, double b) {
    if (isnan(a) || isnan(b)) return 0;
    if (a == b) return 1;
    if (isinf(a) || isinf(b)) return 0;
    double scale = fmax(fabs(a), fabs(b)) * FC_BT_REL_TOL;
    return fabs(a - b) <= fmax(scale, FC_BT_ABS_TOL);
}

FC_HD int fc_bt_is_close_or_less(double a, double b) { return fc_bt_is_close(a, b) || a < b; }

/* a + b, exactly 0 when they cancel within the tolerances. */
FC_HD double fc_bt_add(double a, double b) {
    int cancel = (a < 0) != (b < 0) ? fc_bt_is_close(fabs(a), fabs(b)) : fc_bt_is_close(a + b, 0.0);
    return cancel ? 0.0 : a + b;
}

typedef struct {
    double cash;     /* may include a short sale's proceeds */
    double shares;   /* negative when short */
} fc_bt_account;

typedef struct {
    double fees, fixed_fees, slippage;   /* fractions of the traded value, currency per order, fraction of price */
} fc_bt_costs;

typedef struct {
    double size;    /* shares traded, > 0; 0 when nothing was filled */
    double price;   /* the fill price, slippage included */
    double fees;
    int side;       /* +1 buy, -1 sell, 0 none */
} fc_bt_fill;

FC_HD fc_bt_fill fc_bt_no_fill(void) {
    fc_bt_fill f = {0.0, 0.0, 0.0, 0};
    return f;
}

/* vectorbt's buy_nb without lock_cash: at most the cash, fees included. */
FC_HD fc_bt_fill fc_bt_buy(fc_bt_account *a, double size, double price, const fc_bt_costs *c) {
    double adj = price * (1.0 + c->slippage), limit = a->cash;
    if (limit == 0.0 || size == 0.0) return fc_bt_no_fill();
    double req = size * adj, fees = req * c->fees + c->fixed_fees, spent = req + fees, final = size;
    if (!fc_bt_is_close_or_less(spent, limit)) {   /* partial: what the cash pays for */
        double max_req = fc_bt_add(limit, -c->fixed_fees) / (1.0 + c->fees);
        if (max_req <= 0.0) return fc_bt_no_fill();
        final = max_req / adj;
        fees = limit - max_req;
        spent = limit;
    }
    if (fc_bt_is_close(size, 0.0) || final < 0.0) return fc_bt_no_fill();
    a->cash = fc_bt_add(a->cash, -spent);
    a->shares = fc_bt_add(a->shares, final);
    fc_bt_fill f = {final, adj, fees, 1};
    return f;
}

/* vectorbt's sell_nb with direction 'both': sells and short sales alike. */
FC_HD fc_bt_fill fc_bt_sell(fc_bt_account *a, double size, double price, const fc_bt_costs *c) {
    double adj = price * (1.0 - c->slippage);
    if (fc_bt_is_close(size, 0.0)) return fc_bt_no_fill();
    double got = size * adj, fees = got * c->fees + c->fixed_fees, net = fc_bt_add(got, -fees);
    if (net < 0.0) return fc_bt_no_fill();   /* the fees exceed the proceeds: rejected */
    a->cash = a->cash + net;
    a->shares = fc_bt_add(a->shares, -size);
    fc_bt_fill f = {size, adj, fees, -1};
    return f;
}

/* An order at a close for target w (a fraction of equity, signed):
 * vectorbt's execute_order_nb for size_type 'targetpercent'. */
FC_HD fc_bt_fill fc_bt_order_target(fc_bt_account *a, double w, double close, const fc_bt_costs *c) {
    if (fc_bt_is_close(a->cash, 0.0)) a->cash = 0.0;
    if (fc_bt_is_close(a->shares, 0.0)) a->shares = 0.0;
    double value = a->cash + (a->shares != 0.0 ? a->shares * close : 0.0);
    if (fc_bt_is_close(value, 0.0)) value = 0.0;
    if (isnan(w) || !(value > 0.0)) return fc_bt_no_fill();   /* nothing left to trade with */
    double size = w * value / close - a->shares;
    return size > 0.0 ? fc_bt_buy(a, size, close, c) : fc_bt_sell(a, -size, close, c);
}

/* The open position, vectorbt's exit-trade sums, and what its closed parts
 * add up to (fill_position_record_nb aggregates them). */
typedef struct {
    int dir;                                     /* +1 long, -1 short, 0 flat */
    size_t entry_bar;
    double in_size, in_gross, in_fees;           /* entry fills not yet closed */
    double out_size, out_entry, out_exit;        /* closed: size, size x entry price, size x exit price */
    double out_entry_fees, out_exit_fees;
} fc_bt_position;

/* A finished position, as a trade. */
typedef struct {
    int dir;
    size_t entry_bar, exit_bar;
    double size, entry_price, exit_price, pnl, ret;
    int open;   /* 1: still held at the last bar, valued at its close */
} fc_bt_trade_rec;

FC_HD void fc_bt_position_init(fc_bt_position *p) {
    p->dir = 0;
    p->entry_bar = 0;
    p->in_size = p->in_gross = p->in_fees = 0.0;
    p->out_size = p->out_entry = p->out_exit = p->out_entry_fees = p->out_exit_fees = 0.0;
}

/* vectorbt's get_trade_stats_nb over the position's sums. */
FC_HD fc_bt_trade_rec fc_bt_position_record(const fc_bt_position *p, size_t exit_bar, int open) {
    fc_bt_trade_rec r;
    r.dir = p->dir;
    r.entry_bar = p->entry_bar;
    r.exit_bar = exit_bar;
    r.size = p->out_size;
    r.entry_price = p->out_entry / p->out_size;
    r.exit_price = p->out_exit / p->out_size;
    double entry_val = r.size * r.entry_price, diff = fc_bt_add(r.size * r.exit_price, -entry_val);
    if (diff != 0.0 && p->dir < 0) diff = -diff;
    r.pnl = diff - p->out_entry_fees - p->out_exit_fees;
    r.ret = r.pnl / entry_val;
    r.open = open;
    return r;
}

/* Part of the position (size at price, exit fees) closed. */
FC_HD void fc_bt_position_close_part(fc_bt_position *p, double size, double price, double exit_fees) {
    double entry_price = p->in_gross / p->in_size;
    p->out_size += size;
    p->out_entry += size * entry_price;
    p->out_exit += size * price;
    p->out_entry_fees += size / p->in_size * p->in_fees;
    p->out_exit_fees += exit_fees;
}

FC_HD void fc_bt_position_open(fc_bt_position *p, int dir, size_t bar, double size, double price, double fees) {
    fc_bt_position_init(p);
    p->dir = dir;
    p->entry_bar = bar;
    p->in_size = size;
    p->in_gross = size * price;
    p->in_fees = fees;
}

/* Books a fill at bar t; returns 1 when it finished a position (written to
 * *done, before any reversed position it opened). */
FC_HD int fc_bt_position_fill(fc_bt_position *p, const fc_bt_fill *f, size_t t, fc_bt_trade_rec *done) {
    if (f->side == 0) return 0;
    if (p->dir == 0) {
        fc_bt_position_open(p, f->side, t, f->size, f->price, f->fees);
        return 0;
    }
    if (f->side == p->dir) {   /* increased */
        p->in_size += f->size;
        p->in_gross += f->size * f->price;
        p->in_fees += f->fees;
        return 0;
    }
    if (fc_bt_is_close_or_less(f->size, p->in_size)) {   /* reduced or closed */
        int closed = fc_bt_is_close(f->size, p->in_size);
        double part = closed ? p->in_size : f->size;
        fc_bt_position_close_part(p, part, f->price, f->fees);
        if (closed) {
            *done = fc_bt_position_record(p, t, 0);
            fc_bt_position_init(p);
            return 1;
        }
        double keep = (p->in_size - f->size) / p->in_size;
        p->in_size *= keep;
        p->in_gross *= keep;
        p->in_fees *= keep;
        return 0;
    }
    /* reversed: the old position closes in full, the rest opens the other way */
    double closing = p->in_size, closing_fees = closing / f->size * f->fees;
    fc_bt_position_close_part(p, closing, f->price, closing_fees);
    *done = fc_bt_position_record(p, t, 0);
    fc_bt_position_open(p, -p->dir, t, f->size - closing, f->price, f->fees - closing_fees);
    return 1;
}

/* The position still open after the last bar, valued at its close with no
 * exit fee (vectorbt's open trade); returns 0 when flat. */
FC_HD int fc_bt_position_finish(fc_bt_position *p, size_t last, double close, fc_bt_trade_rec *done) {
    if (p->dir == 0 || !(p->in_size > FC_BT_ABS_TOL)) return 0;
    fc_bt_position_close_part(p, p->in_size, close, 0.0);
    *done = fc_bt_position_record(p, last, 1);
    return 1;
}

#endif
