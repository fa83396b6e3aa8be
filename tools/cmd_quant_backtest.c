/* fcast quant backtest: one rule over a full parameter grid and every symbol
 * of a price file (src/quant/backtest.h): a top-N table by Sharpe on stdout
 * and, with --out, every (combination, symbol) as CSV. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"
#include "io/atomic_file.h"
#include "io/csv_write.h"
#include "io/output_path.h"
#include "core/error.h"
#include "data/dataset.h"
#include "quant/backtest.h"
#include "quant/param_range.h"

/* Range flags in the order of each rule's parameters, with defaults. */
enum { F_FAST, F_SLOW, F_PERIOD, F_LOWER, F_UPPER, F_K, F_COUNT };
static const char *const FLAG_NAMES[F_COUNT] = {"fast", "slow", "period", "lower", "upper", "k"};
static const int RULE_FLAGS[3][3] = {{F_FAST, F_SLOW, -1}, {F_PERIOD, F_LOWER, F_UPPER}, {F_PERIOD, F_K, -1}};
static const char *const DEFAULTS[3][3] = {{"5:50:5", "20:200:10", NULL}, {"14", "30", "70"}, {"20", "2", NULL}};

typedef struct {
    fc_dataset *d;
    double **close;  /* (S) observed closes of each series, in ds order */
    size_t *len;
} price_set;

static void prices_free(price_set *p) {
    if (p->close)
        for (size_t s = 0; s < p->d->n_series; s++) free(p->close[s]);
    free(p->close);
    free(p->len);
    fc_dataset_free(&p->d);
}

/* Each series' observed values (masked gaps dropped), in ds order. */
static fc_status prices_load(const char *path, price_set *p) {
    fc_load_options opt = {0};
    opt.keep_gaps = 1;   /* prices on trading days: a weekend is not a missing value */
    opt.drop_exog = 1;
    FC_TRY(fc_dataset_load_csv(path, &opt, &p->d));
    size_t S = p->d->n_series;
    p->close = fc_calloc(S, sizeof *p->close, "series pointers");
    p->len = fc_calloc(S, sizeof *p->len, "series lengths");
    if (!p->close || !p->len) return FC_ERR_MEMORY;
    for (size_t s = 0; s < S; s++) {
        p->close[s] = fc_malloc(fc_dataset_len(p->d, s) * sizeof(double), "closes");
        if (!p->close[s]) return FC_ERR_MEMORY;
        for (size_t i = p->d->offsets[s]; i < p->d->offsets[s + 1]; i++)
            if (p->d->mask[i]) p->close[s][p->len[s]++] = p->d->y[i];
    }
    return FC_OK;
}

/* Parses the rule's ranges; a range flag of another rule is an error. */
static fc_status build_grid(const char *rule_name, const char *const *text, const arg_spec *specs,
                            fc_rule_params **grid, size_t *n, size_t *skipped, fc_rule_kind *rule) {
    FC_TRY(fc_rule_parse(rule_name, rule));
    for (int f = 0; f < F_COUNT; f++) {
        int used = 0;
        for (int i = 0; i < 3; i++) used |= RULE_FLAGS[*rule][i] == f;
        for (const arg_spec *s = specs; s->name; s++)
            if (!used && s->seen && !strcmp(s->name, FLAG_NAMES[f]))
                return fc_error(FC_ERR_INVALID, "--%s does not apply to rule %s", FLAG_NAMES[f], rule_name);
    }
    fc_range ranges[3];
    for (size_t i = 0; i < fc_rule_param_count(*rule); i++) {
        int f = RULE_FLAGS[*rule][i];
        char flag[16];
        snprintf(flag, sizeof flag, "--%s", FLAG_NAMES[f]);
        FC_TRY(fc_range_parse(flag, text[f] ? text[f] : DEFAULTS[*rule][i], fc_rule_param_is_integer(*rule, i),
                              &ranges[i]));
    }
    FC_TRY(fc_rule_grid_build(*rule, ranges, grid, n, skipped));
    if (*n == 0) return fc_error(FC_ERR_INVALID, "the parameter grid has no valid combination (%zu skipped: %s)",
                                 *skipped, *rule == FC_RULE_SMA_CROSS ? "fast >= slow" : "lower >= upper");
    for (size_t c = 0; c < *n; c++)   /* parameter errors now, not after a long run */
        FC_TRY(fc_rule_check(&(*grid)[c], (size_t)-1, NULL));
    return FC_OK;
}

/* Bounds on one run: results kept for every (combination, symbol), and
 * price points visited; beyond them a run takes minutes and gigabytes. */
#define BT_MAX_BACKTESTS 10000000u
#define BT_MAX_POINT_VISITS 20000000000.0

static fc_status check_size(size_t n, const price_set *p) {
    size_t S = p->d->n_series;
    double points = 0;
    for (size_t s = 0; s < S; s++) points += (double)p->len[s];
    if ((double)n * (double)S > BT_MAX_BACKTESTS || (double)n * points > BT_MAX_POINT_VISITS)
        return fc_error(FC_ERR_INVALID, "%zu combinations x %zu symbols (%.0f price points) is more than one run "
                        "may take (%u backtests, %.0e point visits): narrow the ranges or step them more coarsely",
                        n, S, points, BT_MAX_BACKTESTS, BT_MAX_POINT_VISITS);
    return FC_OK;
}

typedef struct {
    const fc_bt_metrics *m;
    size_t index;
} ranked;

static int by_sharpe(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    double u = x->m->sharpe, v = y->m->sharpe;
    if (isnan(u) != isnan(v)) return isnan(u) ? 1 : -1; /* NaN last */
    if (u != v) return u > v ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index); /* stable */
}

static void format_params(const fc_rule_params *p, char *buf, size_t cap) {
    size_t used = 0;
    for (size_t i = 0; i < fc_rule_param_count(p->rule) && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%s=%g", i ? " " : "", fc_rule_param_name(p->rule, i),
                                 p->p[i]);
}

static void print_top(FILE *to, const fc_rule_params *grid, const fc_bt_metrics *out, size_t n_cells, size_t S,
                      char **ids, size_t top) {
    ranked *r = fc_malloc(n_cells * sizeof *r, "ranking");
    if (!r) {
        fprintf(stderr, "fcast quant backtest: %s: the top table is left out\n", fc_last_error());
        return;
    }
    for (size_t i = 0; i < n_cells; i++) r[i] = (ranked){&out[i], i};
    qsort(r, n_cells, sizeof *r, by_sharpe);
    fprintf(to, "%4s  %-10s %-28s %10s %9s %8s %9s %7s %8s\n", "rank", "symbol", "parameters", "total_ret", "cagr",
            "sharpe", "max_dd", "trades", "hit_rate");
    for (size_t k = 0; k < top && k < n_cells; k++) {
        const fc_bt_metrics *m = r[k].m;
        char params[64];
        format_params(&grid[r[k].index / S], params, sizeof params);
        fprintf(to, "%4zu  %-10.10s %-28s %10.4f %9.4f %8.3f %9.4f %7zu %8.3f\n", k + 1, ids[r[k].index % S], params,
                m->total_return, m->cagr, m->sharpe, m->max_drawdown, m->trades, m->hit_rate);
    }
    free(r);
}

typedef struct {
    const fc_rule_params *grid;
    const fc_bt_metrics *out;
    size_t n, S;
    char **ids;
} csv_ctx;

/* Every (combination, symbol), as a body for fc_write_file_atomic. */
static fc_status write_csv(FILE *f, void *ctx) {
    const csv_ctx *c = ctx;
    fc_rule_kind k = c->grid[0].rule;
    fprintf(f, "symbol,rule");
    for (size_t i = 0; i < fc_rule_param_count(k); i++) fprintf(f, ",%s", fc_rule_param_name(k, i));
    fprintf(f, ",total_return,cagr,sharpe,max_drawdown,trades,closed_trades,hit_rate\n");
    for (size_t g = 0; g < c->n; g++)
        for (size_t s = 0; s < c->S; s++) {
            const fc_bt_metrics *m = &c->out[g * c->S + s];
            fc_csv_write_field(f, c->ids[s]);
            fprintf(f, ",%s", fc_rule_name(k));
            for (size_t i = 0; i < fc_rule_param_count(k); i++) fprintf(f, ",%.17g", c->grid[g].p[i]);
            fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%zu,%zu,%.17g\n", m->total_return, m->cagr, m->sharpe,
                    m->max_drawdown, m->trades, m->closed_trades, m->hit_rate);
        }
    return FC_OK;
}

typedef struct {
    const char *data, *rule, *out;
    const char *ranges[F_COUNT];
    double cost_bps;
    int allow_short;
    size_t top;
} backtest_args;

static int run(const backtest_args *a, const arg_spec *specs) {
    price_set p = {0};
    fc_rule_params *grid = NULL;
    fc_bt_metrics *out = NULL;
    size_t n = 0, skipped = 0;
    fc_rule_kind rule;
    fc_status st = fc_output_check("--out", a->out, 1, &(fc_input_path){"--data", a->data}, 1);   /* before any work */
    if (st == FC_OK) st = build_grid(a->rule, a->ranges, specs, &grid, &n, &skipped, &rule);
    if (st == FC_OK && !(a->cost_bps >= 0.0 && a->cost_bps < 10000.0))
        st = fc_error(FC_ERR_INVALID, "--cost-bps: expected a cost in [0, 10000) basis points, got %g", a->cost_bps);
    if (st == FC_OK) st = prices_load(a->data, &p);
    if (st == FC_OK) st = check_size(n, &p);
    size_t S = p.d ? p.d->n_series : 0;
    if (st == FC_OK) st = (out = fc_malloc(n * S * sizeof *out, "backtest results")) ? FC_OK : FC_ERR_MEMORY;
    fc_bt_options o = {.cost_bps = a->cost_bps, .allow_short = a->allow_short};
    double t0 = omp_get_wtime();
    if (st == FC_OK)
        st = fc_backtest_grid(grid, n, &o, (const double *const *)p.close, p.len, (const char *const *)p.d->ids, S, out);
    /* With the CSV on standard output, the summary and the table go to stderr. */
    FILE *log = a->out && !strcmp(a->out, "-") ? stderr : stdout;
    if (st == FC_OK) {
        fprintf(log, "%s: rule %s, %zu combinations (%zu invalid skipped) x %zu symbols = %zu backtests in %.3f s; "
               "cost %g bps, %s\n", a->data, a->rule, n, skipped, S, n * S, omp_get_wtime() - t0, a->cost_bps,
               a->allow_short ? "long-short" : "long-only");
        print_top(log, grid, out, n * S, S, p.d->ids, a->top);
        fflush(log);
        if (a->out) st = fc_write_file_atomic(a->out, write_csv, &(csv_ctx){grid, out, n, S, p.d->ids});
    }
    int rc = st == FC_OK ? 0 : cli_fail("quant backtest");
    free(grid);
    free(out);
    prices_free(&p);
    return rc;
}

int cmd_quant_backtest(int argc, char **argv, int first) {
    backtest_args a = {.rule = "sma-cross", .top = 10};
    const char *device = NULL;
    arg_spec specs[] = {
        {"data", ARG_STR, &a.data, "FILE", "long CSV (unique_id, ds, y) of closing prices", 1, 0},
        {"rule", ARG_STR, &a.rule, "RULE", "sma-cross, rsi or bbands (sma-cross)", 0, 0},
        {"fast", ARG_STR, &a.ranges[F_FAST], "A:B:S", "sma-cross: fast periods (5:50:5)", 0, 0},
        {"slow", ARG_STR, &a.ranges[F_SLOW], "A:B:S", "sma-cross: slow periods (20:200:10)", 0, 0},
        {"period", ARG_STR, &a.ranges[F_PERIOD], "A:B:S", "rsi, bbands: periods (14; 20)", 0, 0},
        {"lower", ARG_STR, &a.ranges[F_LOWER], "A:B:S", "rsi: buy below this RSI (30)", 0, 0},
        {"upper", ARG_STR, &a.ranges[F_UPPER], "A:B:S", "rsi: sell (or short) above this RSI (70)", 0, 0},
        {"k", ARG_STR, &a.ranges[F_K], "A:B:S", "bbands: band width in standard deviations (2)", 0, 0},
        {"cost-bps", ARG_DOUBLE, &a.cost_bps, "BPS", "cost per unit of turnover, basis points (0)", 0, 0},
        {"short", ARG_FLAG, &a.allow_short, NULL, "long-short instead of long-only", 0, 0},
        {"top", ARG_SIZE, &a.top, "N", "rows of the table ranked by Sharpe (10)", 0, 0},
        {"out", ARG_STR, &a.out, "FILE", "every (combination, symbol) as CSV; - for standard output (the table then goes to stderr)", 0, 0},
        {"device", ARG_STR, &device, "DEV", DEVICE_CPU_ONLY_HELP, 0, 0},
        {0},
    };
    int rc = args_parse("quant backtest",
                        "Backtest a rule over a full parameter grid (ranges start:stop:step, inclusive) and every\n"
                        "symbol in one pass. A position decided on the close of day t earns the return of day t+1\n"
                        "(no look-ahead); costs are charged per unit of turnover.",
                        specs, argc, argv, first);
    if (rc) return args_exit(rc);
    if (device_cpu_only("quant backtest", device) != FC_OK) return cli_fail("quant backtest");
    return run(&a, specs);
}
