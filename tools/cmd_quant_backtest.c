/* fcast quant backtest: one rule over a full parameter grid and every symbol
 * of a price file, through the library API (fcast.h: fcast_table_read_csv,
 * fcast_rule_parse, fcast_grid_new, fcast_backtest): a top-N table by Sharpe
 * on stdout and, with --out, every (combination, symbol) as CSV. What stays
 * here is the CLI's: the flags (a range flag of another rule is refused),
 * the bounds on one run, the printing and the library's parameter names
 * mapped back to the flags. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "cmd_quant_backtest.h"
#include "device_choice.h"

#define COMMAND "quant backtest"

/* Range flags; each rule's parameters are named as its flags (fcast_rule_param_name). */
static const char *const FLAG_NAMES[F_COUNT] = {"fast", "slow", "period", "lower", "upper", "k"};

static int flag_index(const char *name) {
    for (int f = 0; f < F_COUNT; f++)
        if (!strcmp(FLAG_NAMES[f], name)) return f;
    return -1;
}

/* Whether msg names a parameter at i ("fast: ..."): then its flag is printed. */
static int names_param_at(const char *msg, size_t i) {
    size_t n = strcspn(msg + i, ":");
    char word[16];
    if (n == 0 || n >= sizeof word || msg[i + n] != ':') return 0;
    snprintf(word, sizeof word, "%.*s", (int)n, msg + i);
    return !strcmp(word, "rule") || flag_index(word) >= 0;
}

/* A failure of the library, its parameter names ("fast: ...", "series DAX:
 * period: ...") written as the flags the user typed. */
int backtest_fail(const fcast_table *t) {
    const char *msg = fc_last_error();
    size_t at = names_param_at(msg, 0) ? 0 : (size_t)-1;
    for (size_t s = 0; at == (size_t)-1 && t && s < fcast_table_n_series(t); s++) {
        const char *id = fcast_table_id(t, s);
        size_t n = strlen(id);
        if (!strncmp(msg, "series ", 7) && !strncmp(msg + 7, id, n) && !strncmp(msg + 7 + n, ": ", 2) &&
            names_param_at(msg, 9 + n))
            at = 9 + n;
    }
    if (at == (size_t)-1) return cli_fail(COMMAND);
    return cli_refuse(COMMAND, cli_exit_code(fc_last_status()), "%.*s--%s", (int)at, msg, msg + at);
}

/* The rule's grid from its range flags; a range flag of another rule is refused. 0, or the exit code. */
int backtest_build_grid(const char *rule_name, const char *const *text, const arg_spec *specs, fcast_grid **grid) {
    fcast_rule rule;
    if (fcast_rule_parse(rule_name, &rule) != FC_OK) return backtest_fail(NULL);
    const char *ranges[3] = {NULL, NULL, NULL};
    int used[F_COUNT] = {0};
    for (size_t i = 0; i < fcast_rule_n_params(rule); i++) {
        int f = flag_index(fcast_rule_param_name(rule, i));
        used[f] = 1;
        ranges[i] = text[f];
    }
    for (int f = 0; f < F_COUNT; f++)
        for (const arg_spec *s = specs; s->name; s++)
            if (!used[f] && s->seen && !strcmp(s->name, FLAG_NAMES[f]))
                return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--%s does not apply to rule %s", FLAG_NAMES[f],
                                  rule_name);
    return fcast_grid_new(rule, ranges, fcast_rule_n_params(rule), grid) == FC_OK ? 0 : backtest_fail(NULL);
}

/* Bounds on one run: results kept for every (combination, symbol), and
 * price points visited; beyond them a run takes minutes and gigabytes. */
#define BT_MAX_BACKTESTS 10000000u
#define BT_MAX_POINT_VISITS 20000000000.0

int backtest_check_size(size_t n, const fcast_table *t) {
    size_t S = fcast_table_n_series(t);
    const double *v = fcast_table_values(t);
    double points = 0;
    for (size_t i = 0; i < (size_t)fcast_table_indptr(t)[S]; i++) points += !isnan(v[i]);
    if ((double)n * (double)S > BT_MAX_BACKTESTS || (double)n * points > BT_MAX_POINT_VISITS)
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "%zu combinations x %zu symbols (%.0f price points) is more "
                          "than one run may take (%u backtests, %.0e point visits): narrow the ranges or step them "
                          "more coarsely", n, S, points, BT_MAX_BACKTESTS, BT_MAX_POINT_VISITS);
    return 0;
}

typedef struct {
    const fcast_backtest_metrics *m;
    size_t index;
} ranked;

static int by_sharpe(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    double u = x->m->sharpe, v = y->m->sharpe;
    if (isnan(u) != isnan(v)) return isnan(u) ? 1 : -1; /* NaN last */
    if (u != v) return u > v ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index); /* stable */
}

static void format_params(const fcast_grid *g, size_t c, char *buf, size_t cap) {
    fcast_rule rule = fcast_grid_rule(g);
    const double *p = fcast_grid_params(g, c);
    size_t used = 0;
    for (size_t i = 0; i < fcast_rule_n_params(rule) && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%s=%g", i ? " " : "", fcast_rule_param_name(rule, i),
                                 p[i]);
}

static void print_top(FILE *to, const fcast_grid *g, const fcast_backtest_metrics *out, const fcast_table *t,
                      size_t top) {
    const size_t S = fcast_table_n_series(t), n_cells = fcast_grid_size(g) * S;
    ranked *r = malloc((n_cells ? n_cells : 1) * sizeof *r);
    if (!r) {
        fprintf(stderr, "fcast " COMMAND ": out of memory (ranking): the top table is left out\n");
        return;
    }
    for (size_t i = 0; i < n_cells; i++) r[i] = (ranked){&out[i], i};
    qsort(r, n_cells, sizeof *r, by_sharpe);
    fprintf(to, "%4s  %-10s %-28s %10s %9s %8s %9s %7s %8s\n", "rank", "symbol", "parameters", "total_ret", "cagr",
            "sharpe", "max_dd", "trades", "hit_rate");
    for (size_t k = 0; k < top && k < n_cells; k++) {
        const fcast_backtest_metrics *m = r[k].m;
        char params[64];
        format_params(g, r[k].index / S, params, sizeof params);
        fprintf(to, "%4zu  %-10.10s %-28s %10.4f %9.4f %8.3f %9.4f %7zu %8.3f\n", k + 1,
                fcast_table_id(t, r[k].index % S), params, m->total_return, m->cagr, m->sharpe, m->max_drawdown,
                m->trades, m->hit_rate);
    }
    free(r);
}

typedef struct {
    const fcast_grid *g;
    const fcast_backtest_metrics *out;
    const fcast_table *t;
} csv_ctx;

/* Every (combination, symbol), as a body for fc_write_file_atomic. */
static fc_status write_csv(FILE *f, void *ctx) {
    const csv_ctx *c = ctx;
    const fcast_rule k = fcast_grid_rule(c->g);
    const size_t S = fcast_table_n_series(c->t), np = fcast_rule_n_params(k);
    fprintf(f, "symbol,rule");
    for (size_t i = 0; i < np; i++) fprintf(f, ",%s", fcast_rule_param_name(k, i));
    fprintf(f, ",total_return,cagr,sharpe,max_drawdown,trades,closed_trades,hit_rate\n");
    for (size_t g = 0; g < fcast_grid_size(c->g); g++)
        for (size_t s = 0; s < S; s++) {
            const fcast_backtest_metrics *m = &c->out[g * S + s];
            fcast_csv_write_field(f, fcast_table_id(c->t, s));
            fprintf(f, ",%s", fcast_rule_name(k));
            for (size_t i = 0; i < np; i++) fprintf(f, ",%.17g", fcast_grid_params(c->g, g)[i]);
            fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%zu,%zu,%.17g\n", m->total_return, m->cagr, m->sharpe,
                    m->max_drawdown, m->trades, m->closed_trades, m->hit_rate);
        }
    return FC_OK;
}

/* The backtests, the summary line, the table and the CSV. 0, or the exit code. */
static int backtest_and_report(const backtest_args *a, const fcast_grid *g, const fcast_table *t) {
    const size_t n = fcast_grid_size(g), S = fcast_table_n_series(t);
    fcast_backtest_metrics *out = malloc((n * S > 0 ? n * S : 1) * sizeof *out);
    if (!out) return cli_refuse(COMMAND, CLI_EXIT_MEMORY, "out of memory (backtest results)");
    const fcast_backtest_options o = {.cost_bps = a->cost_bps, .allow_short = a->allow_short};
    double t0 = omp_get_wtime();
    const char **ids = malloc((S ? S : 1) * sizeof *ids);   /* for messages: NULL names no series */
    for (size_t s = 0; ids && s < S; s++) ids[s] = fcast_table_id(t, s);
    int rc = 0;
    if (fcast_backtest(g, &o, S, fcast_table_indptr(t), fcast_table_values(t), ids, out) != FC_OK)
        rc = backtest_fail(t);
    free(ids);
    /* With the CSV on standard output, the summary and the table go to stderr. */
    FILE *log = a->out && !strcmp(a->out, "-") ? stderr : stdout;
    if (!rc) {
        fprintf(log, "%s: rule %s, %zu combinations (%zu invalid skipped) x %zu symbols = %zu backtests in %.3f s; "
               "cost %g bps, %s\n", a->data, a->rule, n, fcast_grid_skipped(g), S, n * S, omp_get_wtime() - t0,
               a->cost_bps, a->allow_short ? "long-short" : "long-only");
        print_top(log, g, out, t, a->top);
        fflush(log);
        if (a->out && fcast_write_file(a->out, write_csv, &(csv_ctx){g, out, t}) != FC_OK) rc = cli_fail(COMMAND);
    }
    free(out);
    return rc;
}

static int run(const backtest_args *a, const arg_spec *specs) {
    if (!a->compact) return backtest_portfolio_run(a, specs);
    const char *other = backtest_portfolio_flag(a, specs);
    if (other)
        return cli_refuse(COMMAND, CLI_EXIT_USAGE, "%s belongs to the portfolio engine; --compact runs the compact rule "
                          "grid of built-in rules, with its own costs: drop one of them", other);
    fcast_table *t = NULL;
    fcast_grid *g = NULL;
    const fcast_path_use files[] = {{"--data", a->data, FCAST_PATH_IN, 0, NULL},
                                    {"--out", a->out, FCAST_PATH_OUT_STDOUT, 0, NULL}};
    int rc = fcast_paths_check(files, 2) == FC_OK ? 0 : cli_fail(COMMAND);   /* before any work */
    if (!rc) rc = backtest_build_grid(a->rule, a->ranges, specs, &g);
    if (!rc && !(a->cost_bps >= 0.0 && a->cost_bps < 10000.0))
        rc = cli_refuse(COMMAND, CLI_EXIT_INVALID, "--cost-bps: expected a cost in [0, 10000) basis points, got %g",
                        a->cost_bps);
    if (!rc && fcast_table_read_csv(a->data, &t) != FC_OK) rc = cli_fail(COMMAND);
    if (!rc) rc = backtest_check_size(fcast_grid_size(g), t);
    if (!rc) rc = backtest_and_report(a, g, t);
    fcast_grid_free(g);
    fcast_table_free(t);
    return rc;
}

int cmd_quant_backtest(int argc, char **argv, int first) {
    backtest_args a = {.rule = "sma-cross", .top = 10, .signal_column = "position", .capital = 1e6, .size = "fixed:1",
                       .vol_window = 20, .max_leverage = 1.0, .periods_per_year = 252.0};
    const char *device = NULL;
    arg_spec specs[] = {
        {"data", ARG_IN, &a.data, "FILE", "long CSV (unique_id, ds, y) of closing prices", 1, 0},
        {"rule", ARG_STR, &a.rule, "RULE",
         "sma-cross, rsi, bbands (sma-cross), or a rule over any indicator: \"cross(sma:10, sma:50)\", with grids "
         "as sma:{5:50:5}", 0, 0},
        {"signal", ARG_IN, &a.signal, "FILE", "positions in [-1, 1] per unique_id, ds (instead of a rule)", 0, 0},
        {"signal-column", ARG_STR, &a.signal_column, "NAME", "--signal's position column (position)", 0, 0},
        {"from-forecast", ARG_IN, &a.forecast, "FILE", "fcast predict or fcast cv output, traded on its forecast "
         "return", 0, 0},
        {"model", ARG_STR, &a.model, "NAME", "--from-forecast: the model column (the first)", 0, 0},
        {"horizon", ARG_SIZE, &a.horizon, "H", "--from-forecast: the forecast step read (0: the last)", 0, 0},
        {"long-above", ARG_STR, &a.long_above, "A:B:S", "--from-forecast: long above this forecast return (0)", 0, 0},
        {"short-below", ARG_STR, &a.short_below, "A:B:S", "--from-forecast: short below this one, with --short (0)", 0,
         0},
        {"fast", ARG_STR, &a.ranges[F_FAST], "A:B:S", "sma-cross: fast periods (5:50:5)", 0, 0},
        {"slow", ARG_STR, &a.ranges[F_SLOW], "A:B:S", "sma-cross: slow periods (20:200:10)", 0, 0},
        {"period", ARG_STR, &a.ranges[F_PERIOD], "A:B:S", "rsi, bbands: periods (14; 20)", 0, 0},
        {"lower", ARG_STR, &a.ranges[F_LOWER], "A:B:S", "rsi: buy below this RSI (30)", 0, 0},
        {"upper", ARG_STR, &a.ranges[F_UPPER], "A:B:S", "rsi: sell (or short) above this RSI (70)", 0, 0},
        {"k", ARG_STR, &a.ranges[F_K], "A:B:S", "bbands: band width in standard deviations (2)", 0, 0},
        {"cost-bps", ARG_DOUBLE, &a.cost_bps, "BPS", "fees, basis points of the traded value (0)", 0, 0},
        {"short", ARG_FLAG, &a.allow_short, NULL, "long-short instead of long-only", 0, 0},
        {"compact", ARG_FLAG, &a.compact, NULL, "the compact rule grid of earlier releases instead (built-in rules; "
         "returns compounded as weights, costs per unit of turnover)", 0, 0},
        {"slippage-bps", ARG_DOUBLE, &a.slippage_bps, "BPS", "fill prices moved against each order (0)", 0, 0},
        {"fixed-cost", ARG_DOUBLE, &a.fixed_cost, "X", "cost per order in units of --capital (0)", 0, 0},
        {"capital", ARG_DOUBLE, &a.capital, "X", "starting cash (1000000)", 0, 0},
        {"size", ARG_STR, &a.size, "fixed:F", "every position times F, a fraction of equity (fixed:1)", 0, 0},
        {"vol-target", ARG_DOUBLE, &a.vol_target, "V", "scale positions to this annualised volatility (0: off)", 0, 0},
        {"vol-window", ARG_SIZE, &a.vol_window, "N", "--vol-target: returns of the realised volatility (20)", 0, 0},
        {"max-leverage", ARG_DOUBLE, &a.max_leverage, "L", "--vol-target: the scale's cap (1)", 0, 0},
        {"stop-loss", ARG_DOUBLE, &a.stop_loss, "X", "flat when a trade loses X of its entry close (0: off)", 0, 0},
        {"take-profit", ARG_DOUBLE, &a.take_profit, "X", "flat when a trade gains X of its entry close (0: off)", 0,
         0},
        {"periods-per-year", ARG_DOUBLE, &a.periods_per_year, "N", "bars a year for annualised metrics (252)", 0, 0},
        {"combination", ARG_STR, &a.combination, "K", "--trades/--equity: the K-th combination (--out's order, from "
         "1) or best (the table's first)", 0, 0},
        {"trades", ARG_OUT, &a.trades, "FILE", "the trade log of one combination as CSV", 0, 0},
        {"equity", ARG_OUT, &a.equity, "FILE", "the equity curve of one combination as CSV", 0, 0},
        {"json", ARG_FLAG, &a.json, NULL, "the run and every (combination, symbol) as one JSON line", 0, 0},
        {"top", ARG_SIZE, &a.top, "N", "rows of the table ranked by Sharpe (10)", 0, 0},
        {"out", ARG_OUT, &a.out, "FILE",
         "every (combination, symbol) as CSV; - for standard output (the table then goes to stderr)", 0, 0},
        {"device", ARG_STR, &device, "DEV", DEVICE_CPU_ONLY_HELP, 0, 0},
        {0},
    };
    int rc = args_parse(COMMAND,
                        "Backtest a rule, a signal file or forecasts over a full parameter grid (ranges\n"
                        "start:stop:step, inclusive) and every symbol in one pass. A position decided on the close\n"
                        "of day t earns the return of day t+1 (no look-ahead). docs/quant-analytics.md has it all.",
                        specs, argc, argv, first);
    if (rc) return args_exit(rc);
    if ((rc = device_cpu_only(COMMAND, device))) return rc;
    return run(&a, specs);
}
