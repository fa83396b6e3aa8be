/* Portfolio backtests: fcast against vectorbt on the same prices, measured
 * in the same run.
 *
 *   bench_backtest [--symbols 100] [--days 2500] [--fast 100] [--slow 100]
 *                  [--slice 100] [--python python3]
 *                  [--script python/bench_vectorbt_backtest.py] [--no-vectorbt]
 *
 * Prices: geometric Brownian motion, 100 at day 0, daily drift 2e-4 and
 * volatility 1e-2, normals by Box-Muller from splitmix64 seeded with the
 * symbol's index (python/bench_vectorbt_backtest.py has the same
 * generator); they are also written to a temporary file that the Python
 * side reads, so both compute on identical inputs. The grid: sma-cross,
 * fast 1 .. F, slow 110 .. 110 + S - 1 (every pair valid), long-only, 5
 * bps fees: F x S combinations x every symbol, each traded as vectorbt's
 * Portfolio.from_orders(targetpercent) and measured (total and annual
 * return, volatility, Sharpe, Sortino, Calmar, drawdown and its duration,
 * turnover, trades, hit rate). vectorbt runs --slice combinations (it
 * holds every (combination, symbol) column in memory: the full grid would
 * need ~200 GB) and its time is scaled to the full grid, as printed. */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "quant/backtest_signal.h"

typedef struct {
    size_t symbols, days, fast, slow, slice;
    int vectorbt;
    const char *python, *script;
} bench_args;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *state) { return ((double)(splitmix64(state) >> 11) + 0.5) * 0x1.0p-53; }

/* Symbol s: S_0 = 100, S_t = S_{t-1} exp(mu - sigma^2 / 2 + sigma z_t). */
static void gbm(size_t s, size_t days, double *out) {
    uint64_t state = (uint64_t)s;
    const double mu = 2e-4, sigma = 1e-2;
    out[0] = 100.0;
    for (size_t t = 1; t < days; t += 2) {
        double u1 = uniform(&state), u2 = uniform(&state), r = sqrt(-2.0 * log(u1));
        double z[2] = {r * cos(2.0 * M_PI * u2), r * sin(2.0 * M_PI * u2)};
        for (int k = 0; k < 2 && t + (size_t)k < days; k++)
            out[t + (size_t)k] = out[t + (size_t)k - 1] * exp(mu - 0.5 * sigma * sigma + sigma * z[k]);
    }
}

static int parse(int argc, char **argv, bench_args *a) {
    *a = (bench_args){100, 2500, 100, 100, 100, 1, "python3", "python/bench_vectorbt_backtest.py"};
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(f, "--no-vectorbt")) { a->vectorbt = 0; continue; }
        if (!v) return fprintf(stderr, "bench_backtest: %s needs a value\n", f), 2;
        if (!strcmp(f, "--symbols")) a->symbols = strtoul(v, NULL, 10);
        else if (!strcmp(f, "--days")) a->days = strtoul(v, NULL, 10);
        else if (!strcmp(f, "--fast")) a->fast = strtoul(v, NULL, 10);
        else if (!strcmp(f, "--slow")) a->slow = strtoul(v, NULL, 10);
        else if (!strcmp(f, "--slice")) a->slice = strtoul(v, NULL, 10);
        else if (!strcmp(f, "--python")) a->python = v;
        else if (!strcmp(f, "--script")) a->script = v;
        else return fprintf(stderr, "bench_backtest: unknown flag %s\n", f), 2;
        i++;
    }
    return 0;
}

/* vectorbt's seconds for the slice, read from the script's last line "vectorbt_seconds S". */
static double run_vectorbt(const bench_args *a, const char *prices, double *check_sharpe) {
    char cmd[1024], line[512];
    snprintf(cmd, sizeof cmd, "%s %s --prices %s --symbols %zu --days %zu --fast %zu --slow %zu --slice %zu", a->python,
             a->script, prices, a->symbols, a->days, a->fast, a->slow, a->slice);
    FILE *p = popen(cmd, "r");
    double secs = NAN;
    while (p && fgets(line, sizeof line, p)) {
        fputs(line, stdout);
        sscanf(line, "vectorbt_seconds %lf", &secs);
        sscanf(line, "vectorbt_sharpe_first %lf", check_sharpe);
    }
    if (p) pclose(p);
    return secs;
}

int main(int argc, char **argv) {
    bench_args a;
    if (parse(argc, argv, &a)) return 2;
    double *prices = malloc(a.symbols * a.days * sizeof *prices);
    const double **close = malloc(a.symbols * sizeof *close);
    size_t *len = malloc(a.symbols * sizeof *len);
    size_t n = a.fast * a.slow;
    fc_rule_params *combos = malloc(n * sizeof *combos);
    fc_bt_stats *out = malloc(n * a.symbols * sizeof *out);
    if (!prices || !close || !len || !combos || !out) return fprintf(stderr, "bench_backtest: out of memory\n"), 1;
    for (size_t s = 0; s < a.symbols; s++) {
        gbm(s, a.days, prices + s * a.days);
        close[s] = prices + s * a.days;
        len[s] = a.days;
    }
    for (size_t i = 0; i < a.fast; i++)
        for (size_t j = 0; j < a.slow; j++)
            combos[i * a.slow + j] =
                (fc_rule_params){.rule = FC_RULE_SMA_CROSS, .p = {(double)(i + 1), (double)(110 + j)}};
    fc_bt_config c = fc_bt_config_default();
    c.cost_bps = 5;
    c.capital = 100000;
    fc_bt_rule_source rule = {combos, 0};
    fc_bt_source src = {fc_bt_rule_signal, &rule, n};
    double t0 = now();
    if (fc_bt_run_grid(&src, &c, close, len, NULL, a.symbols, out) != FC_OK)
        return fprintf(stderr, "bench_backtest: %s\n", fc_last_error()), 1;
    double fcast_s = now() - t0;
    printf("grid: %zu combinations (fast 1..%zu x slow 110..%zu) x %zu symbols x %zu days = %zu backtests\n", n, a.fast,
           109 + a.slow, a.symbols, a.days, n * a.symbols);
    printf("fcast: %.3f s on %d threads (%.0f backtests/s); combination 1, symbol 0: sharpe %.12g\n", fcast_s,
           omp_get_max_threads(), (double)(n * a.symbols) / fcast_s, out[0].sharpe);
    if (a.vectorbt) {
        char path[] = "/tmp/bench_backtest_XXXXXX";
        int fd = mkstemp(path);
        FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
        if (!f || fwrite(prices, sizeof *prices, a.symbols * a.days, f) != a.symbols * a.days) return 1;
        fclose(f);
        double vbt_sharpe = NAN, slice_s = run_vectorbt(&a, path, &vbt_sharpe);
        unlink(path);
        double scaled = slice_s * (double)a.fast * (double)a.slow / (double)a.slice;
        printf("vectorbt: %.3f s for %zu combinations, %.1f s scaled to the grid; sharpe of combination 1, symbol 0: "
               "%.12g (fcast - vectorbt = %.2g)\n", slice_s, a.slice, scaled, vbt_sharpe, out[0].sharpe - vbt_sharpe);
        printf("ratio: fcast is %.1fx faster than vectorbt\n", scaled / fcast_s);
    }
    free(prices);
    free(close);
    free(len);
    free(combos);
    free(out);
    return 0;
}
