/* The portfolio backtester against vectorbt (python/make_backtest_fixtures.py,
 * tests/fixtures/quant/backtest_*.csv): for 7 cases (an SMA cross long-only,
 * with fees, slippage and fixed costs, with stops; random -1/0/1 signals
 * with and without costs; random fractional positions; volatility
 * targeting; 365 bars a year against year_freq '365D') on DAX, FTSE (data/eu_stock_markets.csv) and GOOG
 * (data/goog_daily_ohlcv.csv): every metric, every trade (positions, fees
 * in the PnL) and one full equity curve.
 *
 * Tolerance 1e-10 relative (1e-12 absolute near 0): both sides run the
 * same arithmetic in double precision, but over up to 2,148 bars the sums
 * are not added in the same order (numpy's pairwise sums, vectorbt's
 * value kept as cash + shares x price where fcast also compounds returns),
 * which moves the last few bits; 1e-10 leaves room for that and nothing
 * else. Counts (trades, drawdown bars) are exact. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "quant/backtest_signal.h"
#include "quant/backtest_sim.h"

#define FIX "tests/fixtures/quant/"
#define MAX_N 2200
#define RTOL 1e-10
#define ATOL 1e-12

static const char *const SERIES[3] = {"DAX", "FTSE", "GOOG"};
static double close_of[3][MAX_N];
static size_t len_of[3];

static int series_index(const char *id) {
    for (int s = 0; s < 3; s++)
        if (!strcmp(id, SERIES[s])) return s;
    return -1;
}

/* Splits a CSV line (no quotes in these files) into at most cap fields. */
static size_t split(char *line, char **f, size_t cap) {
    size_t n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line; n < cap; p++) {
        f[n++] = p;
        p = strchr(p, ',');
        if (!p) break;
        *p = '\0';
    }
    return n;
}

static void load_prices(void) {
    char line[512], *f[8] = {0};
    FILE *eu = fopen("data/eu_stock_markets.csv", "r"), *goog = fopen("data/goog_daily_ohlcv.csv", "r");
    CHECK(eu && goog);
    if (!eu || !goog) exit(1);
    fgets(line, sizeof line, eu);
    while (fgets(line, sizeof line, eu)) {
        split(line, f, 8);
        int s = series_index(f[0]);
        if (s >= 0) close_of[s][len_of[s]++] = strtod(f[2], NULL);
    }
    fgets(line, sizeof line, goog);
    while (fgets(line, sizeof line, goog)) {
        split(line, f, 8);
        close_of[2][len_of[2]++] = strtod(f[5], NULL);
    }
    fclose(eu);
    fclose(goog);
}

typedef struct {
    char name[32];
    fc_bt_config c;
} test_case;

static size_t load_cases(test_case *cases, size_t cap) {
    char line[512], *f[16] = {0};
    FILE *in = fopen(FIX "backtest_cases.csv", "r");
    CHECK(in != NULL);
    if (!in) return 0;
    size_t n = 0;
    fgets(line, sizeof line, in);
    while (n < cap && fgets(line, sizeof line, in)) {
        CHECK(split(line, f, 16) == 12);
        test_case *k = &cases[n++];
        snprintf(k->name, sizeof k->name, "%.31s", f[0]);
        k->c = fc_bt_config_default();
        k->c.cost_bps = strtod(f[1], NULL);
        k->c.slippage_bps = strtod(f[2], NULL);
        k->c.fixed_cost = strtod(f[3], NULL);
        k->c.capital = strtod(f[4], NULL);
        k->c.size_fraction = strtod(f[5], NULL);
        k->c.vol_target = strtod(f[6], NULL);
        k->c.vol_window = (size_t)strtoul(f[7], NULL, 10);
        k->c.max_leverage = strtod(f[8], NULL);
        k->c.stop_loss = strtod(f[9], NULL);
        k->c.take_profit = strtod(f[10], NULL);
        k->c.periods_per_year = strtod(f[11], NULL);
    }
    fclose(in);
    return n;
}

/* The case's run-length encoded signal of series s, expanded. */
static void load_signal(const char *name, int s, double *signal) {
    char line[256], *f[4] = {0};
    FILE *in = fopen(FIX "backtest_signals.csv", "r");
    if (!in) return;
    for (size_t t = 0; t < len_of[s]; t++) signal[t] = NAN;
    fgets(line, sizeof line, in);
    while (fgets(line, sizeof line, in)) {
        split(line, f, 4);
        if (strcmp(f[0], name) || strcmp(f[1], SERIES[s])) continue;
        size_t from = (size_t)strtoul(f[2], NULL, 10);
        double v = strtod(f[3], NULL);
        for (size_t t = from; t < len_of[s]; t++) signal[t] = v;
    }
    fclose(in);
    CHECK(!isnan(signal[0]));
}

#define CLOSE(what, a, b) CHECK_MSG(fabs((a) - (b)) <= ATOL + RTOL * fabs(b) || (isnan(a) && isnan(b)), \
                                    "%s %s %s: fcast %.17g, vectorbt %.17g", name, id, what, (a), (b))

static void compare_metrics(const char *name, const char *id, const fc_bt_stats *m, char **f) {
    const double want[] = {strtod(f[2], NULL), strtod(f[3], NULL), strtod(f[4], NULL), strtod(f[5], NULL),
                           strtod(f[6], NULL), strtod(f[7], NULL), strtod(f[8], NULL)};
    CLOSE("total_return", m->total_return, want[0]);
    CLOSE("annual_return", m->annual_return, want[1]);
    CLOSE("annual_volatility", m->annual_volatility, want[2]);
    CLOSE("sharpe", m->sharpe, want[3]);
    CLOSE("sortino", m->sortino, want[4]);
    CLOSE("calmar", m->calmar, want[5]);
    CLOSE("max_drawdown", m->max_drawdown, want[6]);
    CHECK_MSG(m->max_drawdown_bars == strtoul(f[9], NULL, 10), "%s %s drawdown bars %zu, vectorbt %s", name, id,
              m->max_drawdown_bars, f[9]);
    CLOSE("turnover", m->turnover, strtod(f[10], NULL));
    CLOSE("hit_rate", m->hit_rate, strtod(f[11], NULL));
    CHECK_MSG(m->trades == strtoul(f[12], NULL, 10) && m->closed_trades == strtoul(f[13], NULL, 10),
              "%s %s trades %zu/%zu, vectorbt %s/%s", name, id, m->trades, m->closed_trades, f[12], f[13]);
    CLOSE("end_equity", m->end_equity, strtod(f[14], NULL));
}

/* The trades of (name, id) in the fixture's order, one by one. */
static void compare_trades(const char *name, const char *id, const fc_bt_trade *got, size_t n_got) {
    char line[512], *f[16] = {0};
    FILE *in = fopen(FIX "backtest_trades.csv", "r");
    if (!in) return;
    size_t k = 0;
    fgets(line, sizeof line, in);
    while (fgets(line, sizeof line, in)) {
        split(line, f, 16);
        if (strcmp(f[0], name) || strcmp(f[1], id)) continue;
        CHECK_MSG(k < n_got, "%s %s: fcast has %zu trades, vectorbt more", name, id, n_got);
        if (k >= n_got) break;
        const fc_bt_trade_rec *t = &got[k].t;
        CHECK_MSG(t->entry_bar == strtoul(f[2], NULL, 10) && t->exit_bar == strtoul(f[3], NULL, 10) &&
                      t->dir == atoi(f[4]) && t->open == atoi(f[10]),
                  "%s %s trade %zu: bars %zu-%zu dir %d open %d, vectorbt %s-%s %s %s", name, id, k, t->entry_bar,
                  t->exit_bar, t->dir, t->open, f[2], f[3], f[4], f[10]);
        CLOSE("trade size", t->size, strtod(f[5], NULL));
        CLOSE("trade entry_price", t->entry_price, strtod(f[6], NULL));
        CLOSE("trade exit_price", t->exit_price, strtod(f[7], NULL));
        CLOSE("trade pnl", t->pnl, strtod(f[8], NULL));
        CLOSE("trade return", t->ret, strtod(f[9], NULL));
        k++;
    }
    CHECK_MSG(k == n_got, "%s %s: fcast has %zu trades, vectorbt %zu", name, id, n_got, k);
    fclose(in);
}

static void compare_equity(const char *name, const char *id, const double *equity, const double *returns) {
    char line[256], *f[6] = {0};
    FILE *in = fopen(FIX "backtest_equity.csv", "r");
    if (!in) return;
    size_t rows = 0;
    fgets(line, sizeof line, in);
    while (fgets(line, sizeof line, in)) {
        split(line, f, 6);
        if (strcmp(f[0], name) || strcmp(f[1], id)) continue;
        size_t t = (size_t)strtoul(f[2], NULL, 10);
        CLOSE("equity", equity[t], strtod(f[3], NULL));
        CLOSE("returns", returns[t], strtod(f[4], NULL));
        rows++;
    }
    fclose(in);
    CHECK(rows > 0);
}

static void run_case(const test_case *k, int s, char **want) {
    const size_t n = len_of[s];
    double *signal = malloc(n * sizeof *signal), *scratch = malloc(fc_bt_scratch_size(n) * sizeof(double));
    double *equity = malloc(n * sizeof(double)), *returns = malloc(n * sizeof(double));
    fc_bt_trade *trades = NULL;
    size_t n_trades = 0, cap = 0;
    load_signal(k->name, s, signal);
    fc_bt_detail d = {.equity = equity, .returns = returns, .trades = &trades, .n_trades = &n_trades,
                      .cap_trades = &cap};
    fc_bt_stats m;
    CHECK(fc_bt_config_check(&k->c) == FC_OK);
    CHECK(fc_bt_simulate(close_of[s], signal, n, &k->c, scratch, &m, &d) == FC_OK);
    compare_metrics(k->name, SERIES[s], &m, want);
    compare_trades(k->name, SERIES[s], trades, n_trades);
    if (!strcmp(k->name, "random_costs") && s == 0) compare_equity(k->name, SERIES[s], equity, returns);

    /* the grid driver gives the same cell, bit for bit */
    const double *pos[1] = {signal};
    fc_bt_given_source given = {pos};
    fc_bt_source src = {fc_bt_given_signal, &given, 1};
    const double *cl[1] = {close_of[s]};
    fc_bt_stats g;
    CHECK(fc_bt_run_grid(&src, &k->c, cl, &n, NULL, 1, &g) == FC_OK);
    CHECK(g.end_equity == m.end_equity && g.sharpe == m.sharpe && g.trades == m.trades);
    free(trades);
    free(signal);
    free(scratch);
    free(equity);
    free(returns);
}

int main(void) {
    load_prices();
    CHECK(len_of[0] == 1860 && len_of[1] == 1860 && len_of[2] == 2148);
    test_case cases[16];
    size_t n_cases = load_cases(cases, 16), rows = 0;
    CHECK(n_cases == 8);
    char line[1024], *f[16] = {0};
    FILE *in = fopen(FIX "backtest_metrics.csv", "r");
    CHECK(in != NULL);
    if (!in) return 1;
    fgets(line, sizeof line, in);
    while (fgets(line, sizeof line, in)) {
        CHECK(split(line, f, 16) == 15);
        int s = series_index(f[1]);
        for (size_t k = 0; k < n_cases && s >= 0; k++)
            if (!strcmp(cases[k].name, f[0])) {
                run_case(&cases[k], s, f);
                rows++;
            }
    }
    fclose(in);
    CHECK(rows == 24);
    printf("%d checks, %d failures\n", check_count, check_failures);
    return check_failures != 0;
}
