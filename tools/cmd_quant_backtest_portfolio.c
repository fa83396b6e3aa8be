/* fcast quant backtest's portfolio engine: a signal (a built-in rule's
 * grid, a rule over any indicator, a signal file or forecasts) traded in a
 * cash account with vectorbt's arithmetic, through the library API
 * (fcast.h: fcast_signal_*, fcast_backtest_signal, _curve, _trades). What
 * stays here is the CLI's: which flags go together, the table, the CSV
 * texts, and the one combination --trades and --equity write; the JSON
 * line is the library's fcast_backtest_json, which fcast serve answers
 * with too. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_quant_backtest.h"

#define COMMAND "quant backtest"

static const char *const PORTFOLIO_FLAGS[] = {
    "signal", "signal-column", "from-forecast", "model", "horizon", "long-above", "short-below",
    "slippage-bps", "fixed-cost", "capital", "size", "vol-target", "vol-window", "max-leverage", "stop-loss",
    "take-profit", "periods-per-year", "combination", "trades", "equity", "json", NULL};

static int seen(const arg_spec *specs, const char *name) {
    for (const arg_spec *s = specs; s->name; s++)
        if (!strcmp(s->name, name)) return s->seen != 0;
    return 0;
}

const char *backtest_portfolio_flag(const backtest_args *a, const arg_spec *specs) {
    if (strchr(a->rule, '(')) return "--rule";
    static char flag[32];
    for (size_t i = 0; PORTFOLIO_FLAGS[i]; i++)
        if (seen(specs, PORTFOLIO_FLAGS[i])) {
            snprintf(flag, sizeof flag, "--%s", PORTFOLIO_FLAGS[i]);
            return flag;
        }
    return NULL;
}

/* Flags that only one source reads, refused with another. 0, or the exit code. */
static int check_flag_sets(const backtest_args *a, const arg_spec *specs) {
    static const char *const FORECAST_ONLY[] = {"model", "horizon", "long-above", "short-below", NULL};
    static const char *const RANGES[] = {"fast", "slow", "period", "lower", "upper", "k", NULL};
    if (a->signal && a->forecast)
        return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--signal and --from-forecast are two signals: give one");
    if ((a->signal || a->forecast) && seen(specs, "rule"))
        return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--rule and %s are two signals: give one",
                          a->signal ? "--signal" : "--from-forecast");
    for (size_t i = 0; !a->forecast && FORECAST_ONLY[i]; i++)
        if (seen(specs, FORECAST_ONLY[i]))
            return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--%s applies to --from-forecast only", FORECAST_ONLY[i]);
    if (!a->signal && seen(specs, "signal-column"))
        return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--signal-column applies to --signal only");
    int builtin = !a->signal && !a->forecast && !strchr(a->rule, '(');
    for (size_t i = 0; !builtin && RANGES[i]; i++)
        if (seen(specs, RANGES[i]))
            return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--%s is a parameter of the built-in rules (sma-cross, rsi, "
                              "bbands) only", RANGES[i]);
    if (a->json && a->out && !strcmp(a->out, "-"))
        return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--json and --out - both write standard output: give one");
    if (a->forecast && a->short_below && !a->allow_short)
        return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--short-below needs --short (long-short)");
    return 0;
}

/* The flags' configuration; --size is fixed:F. 0, or the exit code. */
static int config_of(const backtest_args *a, fcast_backtest_config *c) {
    fcast_backtest_config_init(c);
    char *end = NULL;
    double f = strncmp(a->size, "fixed:", 6) ? NAN : strtod(a->size + 6, &end);
    if (isnan(f) || end == a->size + 6 || *end)
        return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--size: expected fixed:F with F a fraction of equity, got '%s'",
                          a->size);
    c->cost_bps = a->cost_bps;
    c->slippage_bps = a->slippage_bps;
    c->fixed_cost = a->fixed_cost;
    c->capital = a->capital;
    c->size_fraction = f;
    c->vol_target = a->vol_target;
    c->vol_window = a->vol_window;
    c->max_leverage = a->max_leverage;
    c->stop_loss = a->stop_loss;
    c->take_profit = a->take_profit;
    c->periods_per_year = a->periods_per_year;
    return 0;
}

/* The price table's columns for a rule's indicators: the close (y) and the file's other columns. */
static fcast_columns columns_of(const fcast_table *t, const char **names, const double **values) {
    size_t n = 0;
    names[n] = "close";
    values[n++] = fcast_table_values(t);
    for (size_t k = 0; k < fcast_table_n_columns(t) && n < 63; k++)
        if (strcmp(fcast_table_column_name(t, k), "close")) {
            names[n] = fcast_table_column_name(t, k);
            values[n++] = fcast_table_column(t, fcast_table_column_name(t, k));
        }
    return (fcast_columns){n, names, values};
}

/* The signal the flags name, and its source's name for the outputs. 0, or the exit code. */
static int make_signal(const backtest_args *a, const arg_spec *specs, const fcast_table *t, fcast_signal **s,
                       const char **source, size_t *skipped) {
    fc_status st;
    if (a->signal) {
        *source = "signal";
        st = fcast_signal_read_csv(a->signal, a->signal_column, t, s);
    } else if (a->forecast) {
        *source = "forecast";
        const fcast_forecast_rule r = {a->model, a->horizon, a->long_above, a->short_below, a->allow_short};
        st = fcast_signal_from_forecast_csv(a->forecast, &r, t, s);
    } else if (strchr(a->rule, '(')) {
        *source = "rule";
        const char *names[64];
        const double *values[64];
        const fcast_columns cols = columns_of(t, names, values);
        st = fcast_signal_from_rule(a->rule, a->allow_short, fcast_table_n_series(t), fcast_table_indptr(t), &cols, s);
    } else {
        *source = a->rule;
        fcast_grid *g = NULL;
        int rc = backtest_build_grid(a->rule, a->ranges, specs, &g);
        if (rc) return rc;
        st = fcast_signal_from_grid(g, a->allow_short, s);
        *skipped = fcast_grid_skipped(g);   /* fast >= slow, lower >= upper: said in the summary */
        fcast_grid_free(g);
    }
    return st == FC_OK ? 0 : backtest_fail(t);
}

typedef struct {
    const backtest_args *a;
    const fcast_table *t;
    const fcast_signal *s;
    const fcast_backtest_stats *out;
    const char *source;
    size_t n, S, skipped;
} run_view;

static int by_sharpe(const void *x, const void *y, void *ctx) {
    const fcast_backtest_stats *out = ctx;
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    double u = out[i].sharpe, v = out[j].sharpe;
    if (isnan(u) != isnan(v)) return isnan(u) ? 1 : -1;   /* NaN last */
    if (u != v) return u > v ? -1 : 1;
    return (i > j) - (i < j);
}

/* Cells ranked by Sharpe, best first (NaN last, ties in grid order). */
static size_t *rank_cells(const run_view *v) {
    size_t n = v->n * v->S, *r = malloc((n ? n : 1) * sizeof *r);
    if (!r) return NULL;
    for (size_t i = 0; i < n; i++) r[i] = i;
    qsort_r(r, n, sizeof *r, by_sharpe, (void *)v->out);
    return r;
}

static void format_params(const fcast_signal *s, size_t c, char *buf, size_t cap) {
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < fcast_signal_n_params(s) && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%s=%g", i ? " " : "", fcast_signal_param_name(s, i),
                                 fcast_signal_params(s, c)[i]);
    if (!used) snprintf(buf, cap, "-");
}

static void print_top(FILE *to, const run_view *v, const size_t *rank) {
    fprintf(to, "%4s  %-10s %-36s %10s %9s %8s %8s %8s %9s %6s %8s\n", "rank", "symbol", "parameters", "total_ret",
            "ann_ret", "ann_vol", "sharpe", "sortino", "max_dd", "trades", "hit_rate");
    for (size_t k = 0; rank && k < v->a->top && k < v->n * v->S; k++) {
        const fcast_backtest_stats *m = &v->out[rank[k]];
        char params[64];
        format_params(v->s, rank[k] / v->S, params, sizeof params);
        fprintf(to, "%4zu  %-10.10s %-36s %10.4f %9.4f %8.4f %8.3f %8.3f %9.4f %6zu %8.3f\n", k + 1,
                fcast_table_id(v->t, rank[k] % v->S), params, m->total_return, m->annual_return, m->annual_volatility,
                m->sharpe, m->sortino, m->max_drawdown, m->trades, m->hit_rate);
    }
}

/* The CSV's and JSON's metric columns, in order. */
#define METRIC_HEADER "total_return,annual_return,annual_volatility,sharpe,sortino,calmar,max_drawdown," \
                      "max_drawdown_bars,turnover,hit_rate,trades,closed_trades,end_equity"

static fc_status write_results(FILE *f, void *ctx) {
    const run_view *v = ctx;
    fprintf(f, "symbol,source,combination");
    for (size_t i = 0; i < fcast_signal_n_params(v->s); i++) fprintf(f, ",%s", fcast_signal_param_name(v->s, i));
    fprintf(f, "," METRIC_HEADER "\n");
    for (size_t c = 0; c < v->n; c++)
        for (size_t s = 0; s < v->S; s++) {
            const fcast_backtest_stats *m = &v->out[c * v->S + s];
            fcast_csv_write_field(f, fcast_table_id(v->t, s));
            fprintf(f, ",%s,%zu", v->source, c + 1);
            for (size_t i = 0; i < fcast_signal_n_params(v->s); i++)
                fprintf(f, ",%.17g", fcast_signal_params(v->s, c)[i]);
            fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%zu,%.17g,%.17g,%zu,%zu,%.17g\n", m->total_return,
                    m->annual_return, m->annual_volatility, m->sharpe, m->sortino, m->calmar, m->max_drawdown,
                    m->max_drawdown_bars, m->turnover, m->hit_rate, m->trades, m->closed_trades, m->end_equity);
        }
    return FC_OK;
}

/* --json: the library's writer (fcast_backtest_json), fcast serve's too. 0, or the exit code. */
static int print_json(const run_view *v, const fcast_backtest_config *c, double seconds) {
    const char **ids = malloc((v->S + 1) * sizeof *ids);
    if (!ids) return cli_refuse(COMMAND, CLI_EXIT_MEMORY, "out of memory (the ids of %zu series)", v->S);
    for (size_t s = 0; s < v->S; s++) ids[s] = fcast_table_id(v->t, s);
    const fcast_backtest_run run = {v->a->data, v->source, v->s, c, v->a->allow_short, v->S, ids, v->out, seconds};
    char *text = NULL;
    int rc = fcast_backtest_json(&run, &text) == FC_OK ? 0 : cli_fail(COMMAND);
    if (!rc) printf("%s\n", text);
    free(text);
    free(ids);
    return rc;
}

/* --combination: K (1-based) or best; needed when the signal holds several. 0, or the exit code. */
static int pick_combination(const run_view *v, const size_t *rank, size_t *combo) {
    const char *text = v->a->combination;
    if (!text) {
        if (v->n == 1) {
            *combo = 0;
            return 0;
        }
        return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--trades and --equity write one combination, the grid has %zu: "
                          "pick one with --combination K (the --out CSV's order, from 1) or --combination best", v->n);
    }
    if (!strcmp(text, "best")) {
        *combo = rank ? rank[0] / v->S : 0;
        return 0;
    }
    char *end;
    unsigned long long k = strtoull(text, &end, 10);
    if (end == text || *end || k < 1 || k > v->n)
        return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--combination: expected best or 1 to %zu, got '%s'", v->n, text);
    *combo = (size_t)k - 1;
    return 0;
}

typedef struct {
    const run_view *v;
    const fcast_backtest_trade *trades;
    size_t n;
} trades_ctx;

static void write_ds(FILE *f, const fcast_table *t, size_t row) {
    char ds[64];
    fcast_table_ds_text(t, row, ds, sizeof ds);
    fcast_csv_write_field(f, ds);
}

static fc_status write_trades(FILE *f, void *ctx) {
    const trades_ctx *c = ctx;
    fprintf(f, "unique_id,entry_ds,exit_ds,direction,size,entry_price,exit_price,return,pnl,bars,exit_reason\n");
    for (size_t i = 0; i < c->n; i++) {
        const fcast_backtest_trade *t = &c->trades[i];
        fcast_csv_write_field(f, fcast_table_id(c->v->t, t->series));
        fputc(',', f);
        write_ds(f, c->v->t, t->entry_row);
        fputc(',', f);
        write_ds(f, c->v->t, t->exit_row);
        fprintf(f, ",%s,%.17g,%.17g,%.17g,%.17g,%.17g,%zu,%s\n", t->direction > 0 ? "long" : "short", t->size,
                t->entry_price, t->exit_price, t->ret, t->pnl, t->bars, t->exit_reason);
    }
    return FC_OK;
}

typedef struct {
    const run_view *v;
    const double *position, *equity, *drawdown, *returns;
} equity_ctx;

static fc_status write_equity(FILE *f, void *ctx) {
    const equity_ctx *c = ctx;
    const int64_t *indptr = fcast_table_indptr(c->v->t);
    fprintf(f, "unique_id,ds,position,equity,drawdown,returns\n");
    for (size_t s = 0; s < c->v->S; s++)
        for (size_t i = (size_t)indptr[s]; i < (size_t)indptr[s + 1]; i++) {
            if (isnan(c->equity[i])) continue;   /* a row without a close */
            fcast_csv_write_field(f, fcast_table_id(c->v->t, s));
            fputc(',', f);
            write_ds(f, c->v->t, i);
            fprintf(f, ",%.17g,%.17g,%.17g,%.17g\n", c->position[i], c->equity[i], c->drawdown[i], c->returns[i]);
        }
    return FC_OK;
}

static int write_details(const run_view *v, const fcast_backtest_config *c, size_t combo) {
    const fcast_table *t = v->t;
    const size_t S = v->S, rows = (size_t)fcast_table_indptr(t)[S];
    int rc = 0;
    if (v->a->trades) {
        fcast_backtest_trade *tr = NULL;
        size_t n = 0;
        if (fcast_backtest_trades(v->s, combo, c, S, fcast_table_indptr(t), fcast_table_values(t), &tr, &n) != FC_OK ||
            fcast_write_file(v->a->trades, write_trades, &(trades_ctx){v, tr, n}) != FC_OK)
            rc = cli_fail(COMMAND);
        fcast_backtest_trades_free(tr);
    }
    if (!rc && v->a->equity) {
        double *buf = malloc((4 * rows + 1) * sizeof *buf);
        if (!buf) return cli_refuse(COMMAND, CLI_EXIT_MEMORY, "out of memory (equity curve)");
        equity_ctx e = {v, buf, buf + rows, buf + 2 * rows, buf + 3 * rows};
        if (fcast_backtest_curve(v->s, combo, c, S, fcast_table_indptr(t), fcast_table_values(t), buf, buf + rows,
                                 buf + 2 * rows, buf + 3 * rows) != FC_OK ||
            fcast_write_file(v->a->equity, write_equity, &e) != FC_OK)
            rc = cli_fail(COMMAND);
        free(buf);
    }
    return rc;
}

static int report(const run_view *v, const fcast_backtest_config *c, double seconds) {
    size_t *rank = rank_cells(v);
    size_t combo = 0;
    int rc = (v->a->trades || v->a->equity) ? pick_combination(v, rank, &combo) : 0;
    FILE *log = v->a->out && !strcmp(v->a->out, "-") ? stderr : stdout;
    if (!rc && v->a->json) {
        rc = print_json(v, c, seconds);
    } else if (!rc) {
        char skipped[48] = "";
        if (v->skipped) snprintf(skipped, sizeof skipped, " (%zu invalid skipped)", v->skipped);
        fprintf(log, "%s: %s, %zu combinations%s x %zu symbols = %zu backtests in %.3f s; cost %g bps, slippage %g "
                "bps, fixed %g, capital %g, %s\n", v->a->data, v->source, v->n, skipped, v->S, v->n * v->S, seconds,
                c->cost_bps, c->slippage_bps, c->fixed_cost, c->capital, v->a->allow_short ? "long-short" : "long-only");
        print_top(log, v, rank);
        fflush(log);
    }
    if (!rc && v->a->out && fcast_write_file(v->a->out, write_results, (void *)v) != FC_OK) rc = cli_fail(COMMAND);
    if (!rc && (v->a->trades || v->a->equity)) rc = write_details(v, c, combo);
    free(rank);
    return rc;
}

static int run_signal(const backtest_args *a, const fcast_table *t, const fcast_signal *s, const char *source,
                      size_t skipped, const fcast_backtest_config *c) {
    const size_t n = fcast_signal_n_combinations(s), S = fcast_table_n_series(t);
    int rc = backtest_check_size(n, t);
    if (rc) return rc;
    fcast_backtest_stats *out = malloc((n * S + 1) * sizeof *out);
    const char **ids = malloc((S + 1) * sizeof *ids);
    if (!out || !ids) rc = cli_refuse(COMMAND, CLI_EXIT_MEMORY, "out of memory (backtest results)");
    for (size_t i = 0; !rc && i < S; i++) ids[i] = fcast_table_id(t, i);
    double t0 = omp_get_wtime();
    if (!rc && fcast_backtest_signal(s, c, S, fcast_table_indptr(t), fcast_table_values(t), ids, out) != FC_OK)
        rc = backtest_fail(t);
    if (!rc) rc = report(&(run_view){a, t, s, out, source, n, S, skipped}, c, omp_get_wtime() - t0);
    free(out);
    free(ids);
    return rc;
}

int backtest_portfolio_run(const backtest_args *a, const arg_spec *specs) {
    const fcast_path_use files[] = {{"--data", a->data, FCAST_PATH_IN, 0, NULL},
                                    {"--signal", a->signal, FCAST_PATH_IN, 0, NULL},
                                    {"--from-forecast", a->forecast, FCAST_PATH_IN, 0, NULL},
                                    {"--out", a->out, FCAST_PATH_OUT_STDOUT, 0, NULL},
                                    {"--trades", a->trades, FCAST_PATH_OUT, 0, NULL},
                                    {"--equity", a->equity, FCAST_PATH_OUT, 0, NULL}};
    int rc = check_flag_sets(a, specs);
    if (!rc && fcast_paths_check(files, sizeof files / sizeof *files) != FC_OK) rc = cli_fail(COMMAND);
    fcast_backtest_config c;
    if (!rc) rc = config_of(a, &c);
    fcast_table *t = NULL;
    fcast_signal *s = NULL;
    const char *source = NULL;
    if (!rc && fcast_table_read_prices(a->data, &t) != FC_OK) rc = cli_fail(COMMAND);
    size_t skipped = 0;
    if (!rc) rc = make_signal(a, specs, t, &s, &source, &skipped);
    if (!rc) rc = run_signal(a, t, s, source, skipped, &c);
    fcast_signal_free(s);
    fcast_table_free(t);
    return rc;
}
