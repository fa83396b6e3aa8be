/* The portfolio backtester's signals through the C API (fcast.h):
 * - forecasts of `fcast cv`: the forecast return of each cutoff computed
 *   by hand, flat before the first cutoff, and no look-ahead, tested
 *   directly: prices and forecasts after day t perturbed leave every
 *   position and equity up to t unchanged, bit for bit;
 * - `fcast predict`'s forecasts: their origin is the last price before them;
 * - signal files: forward fill, flat before the first signal, and errors
 *   naming the file, the line and the column;
 * - rules as text: cross(sma:2, sma:3) equals the built-in sma-cross 2/3
 *   run by the same engine; clauses and events computed by hand; parse
 *   errors naming the character;
 * - stops: a stop-loss and a take-profit computed by hand, flat until the
 *   signal changes;
 * - the account by hand: fees that cap a buy at the cash, slippage, a
 *   fixed cost, a short. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fcast.h"
#include "quant/backtest_rule_expr.h"

#define N 120
static char dir[] = "/tmp/fcast_bt_signals_XXXXXX";

static void path_of(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", dir, name); }

/* Two series A and B, N days, prices from a fixed recurrence (no RNG). */
static double price(int s, int t, double bump_after, int after) {
    double p = 100.0 + 10.0 * sin(0.21 * t + s) + 0.3 * t;
    return t > after ? p * bump_after : p;
}

static void write_prices(const char *name, double bump, int after) {
    char p[256];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "w");
    fprintf(f, "unique_id,ds,y\n");
    for (int s = 0; s < 2; s++)
        for (int t = 1; t <= N; t++) fprintf(f, "%c,%d,%.10g\n", 'A' + s, t, price(s, t, bump, after));
    fclose(f);
}

/* cv windows: cutoffs 20, 30, ..., 110, h = 3; yhat(c, k) = y(c) (1 + g(c, k)). */
static double growth(int s, int c, int k) { return 0.01 * sin(0.7 * c + 1.3 * k + s); }

static void write_cv(const char *name, double bump, int after) {
    char p[256];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "w");
    fprintf(f, "unique_id,ds,cutoff,MLP,y\n");
    for (int s = 0; s < 2; s++)
        for (int c = 20; c <= 110; c += 10)
            for (int k = 1; k <= 3; k++) {
                double yhat = price(s, c, 1.0, N) * (1 + growth(s, c, k)) * (c > after ? bump : 1.0);
                fprintf(f, "%c,%d,%d,%.12g,%.10g\n", 'A' + s, c + k, c, yhat, price(s, c + k, 1.0, N));
            }
    fclose(f);
}

typedef struct {
    double position[2 * N], equity[2 * N];
} curve;

static fc_status run_forecast(const char *prices, const char *cv, const fcast_forecast_rule *r, curve *out) {
    char pp[256], cp[256];
    path_of(pp, sizeof pp, prices);
    path_of(cp, sizeof cp, cv);
    fcast_table *t = NULL;
    fcast_signal *s = NULL;
    fc_status st = fcast_table_read_prices(pp, &t);
    if (st == FC_OK) st = fcast_signal_from_forecast_csv(cp, r, t, &s);
    if (st == FC_OK)
        st = fcast_backtest_curve(s, 0, NULL, 2, fcast_table_indptr(t), fcast_table_values(t), out->position,
                                  out->equity, NULL, NULL);
    fcast_signal_free(s);
    fcast_table_free(t);
    return st;
}

static void test_forecast_walk_forward(void) {
    write_prices("p.csv", 1.0, N);
    write_cv("cv.csv", 1.0, N);
    fcast_forecast_rule r = {NULL, 2, "0", "0", 1};
    curve a;
    CHECK(run_forecast("p.csv", "cv.csv", &r, &a) == FC_OK);
    for (int s = 0; s < 2; s++)
        for (int t = 1; t <= N; t++) {
            double pos = a.position[s * N + t - 1];
            if (t < 20) {
                CHECK_MSG(pos == 0.0, "series %d day %d: flat before the first cutoff, got %g", s, t, pos);
                continue;
            }
            int c = t >= 110 ? 110 : t / 10 * 10;                 /* the latest cutoff <= t */
            double f = (1 + growth(s, c, 2)) * price(s, c, 1, N) / price(s, c, 1, N) - 1;   /* step h = 2 */
            int want = f > 0 ? 1 : -1;
            /* the sign of the forecast's; the size drifts between orders (shares are held) */
            CHECK_MSG(pos * want > 0.5 && pos * want < 2, "series %d day %d: exposure %g, expected %d", s, t, pos,
                      want);
        }
    /* no look-ahead: perturb prices and forecasts after day 64: nothing up to 64 moves */
    write_prices("p2.csv", 1.37, 64);
    write_cv("cv2.csv", 0.9, 64);
    curve b;
    CHECK(run_forecast("p2.csv", "cv2.csv", &r, &b) == FC_OK);
    int same = 1, differs_later = 0;
    for (int s = 0; s < 2; s++)
        for (int t = 1; t <= N; t++) {
            int i = s * N + t - 1;
            if (t <= 64) same &= a.position[i] == b.position[i] && a.equity[i] == b.equity[i];
            else differs_later |= a.equity[i] != b.equity[i];
        }
    CHECK(same);
    CHECK(differs_later);   /* the perturbation was real */
    /* a horizon beyond the windows, a model that is not there: errors naming them */
    r.horizon = 4;
    CHECK(run_forecast("p.csv", "cv.csv", &r, &b) == FC_ERR_INVALID);
    CHECK(strstr(fc_last_error(), "--horizon 4") && strstr(fc_last_error(), "line 2"));
    r.horizon = 0;
    r.model = "NHITS";
    CHECK(run_forecast("p.csv", "cv.csv", &r, &b) == FC_ERR_PARSE);
    CHECK(strstr(fc_last_error(), "no column NHITS") != NULL);
}

/* predict output: unique_id, ds, model, the forecast after the prices' day 100 (the file's origin). */
static void test_predict_origin(void) {
    char p[256];
    path_of(p, sizeof p, "pred.csv");
    FILE *f = fopen(p, "w");
    fprintf(f, "unique_id,ds,MLP\nA,101,%.12g\nA,102,%.12g\n", price(0, 100, 1, N) * 1.02, price(0, 100, 1, N) * 0.97);
    fclose(f);
    fcast_forecast_rule r = {NULL, 0, NULL, NULL, 1};   /* the last step: -3% */
    curve a;
    CHECK(run_forecast("p.csv", "pred.csv", &r, &a) == FC_OK);
    CHECK(a.position[98] == 0.0);                 /* before the origin */
    CHECK(a.position[99] < -0.99 && a.position[119] < -0.5);   /* short from the origin on (held: drifting) */
    CHECK(a.position[N] == 0.0 && a.position[2 * N - 1] == 0.0); /* B has no forecast: flat */
}

static fc_status run_signal_file(const char *text, curve *out) {
    char sp[256], pp[256];
    path_of(sp, sizeof sp, "sig.csv");
    path_of(pp, sizeof pp, "p.csv");
    FILE *f = fopen(sp, "w");
    fputs(text, f);
    fclose(f);
    fcast_table *t = NULL;
    fcast_signal *s = NULL;
    fc_status st = fcast_table_read_prices(pp, &t);
    if (st == FC_OK) st = fcast_signal_read_csv(sp, NULL, t, &s);
    if (st == FC_OK)
        st = fcast_backtest_curve(s, 0, NULL, 2, fcast_table_indptr(t), fcast_table_values(t), out->position,
                                  out->equity, NULL, NULL);
    fcast_signal_free(s);
    fcast_table_free(t);
    return st;
}

static void test_signal_file(void) {
    curve a;
    CHECK(run_signal_file("unique_id,ds,position\nA,10,0.5\nA,20,-1\nB,5,1\n", &a) == FC_OK);
    CHECK(a.position[8] == 0.0);                                   /* A before its first signal: flat */
    CHECK(fabs(a.position[9] - 0.5) < 1e-12);                      /* bought at the close of day 10 */
    CHECK(a.position[15] > 0.4 && a.position[15] < 0.6);           /* held (forward fill), drifting */
    CHECK(fabs(a.position[19] + 1.0) < 1e-12 && a.position[119] < -0.5);
    CHECK(fabs(a.position[N + 4] - 1.0) < 1e-12);
    const char *msg;
    CHECK(run_signal_file("unique_id,ds,position\nA,10,0.5\nC,3,1\n", &a) == FC_ERR_INVALID);
    msg = fc_last_error();
    CHECK(strstr(msg, "--signal") && strstr(msg, "sig.csv") && strstr(msg, "line 3") && strstr(msg, "'C'"));
    CHECK(run_signal_file("unique_id,ds,position\nA,500,0.5\n", &a) == FC_ERR_INVALID);
    CHECK(strstr(fc_last_error(), "line 2, column ds") != NULL);
    CHECK(run_signal_file("unique_id,ds,position\nA,1,0\nA,2,1.5\n", &a) == FC_ERR_INVALID);
    CHECK(strstr(fc_last_error(), "line 3, column position: 1.5") != NULL);
    CHECK(run_signal_file("unique_id,ds,position\nA,2,NaN\n", &a) == FC_ERR_PARSE);
    CHECK(strstr(fc_last_error(), "line 2, column position") != NULL);
    CHECK(run_signal_file("unique_id,ds,position\nA,2,1\nA,2,0\n", &a) == FC_ERR_INVALID);
    CHECK(strstr(fc_last_error(), "line 3: a second signal") != NULL);
    CHECK(run_signal_file("unique_id,ds,signal\nA,2,1\n", &a) == FC_ERR_PARSE);
    CHECK(strstr(fc_last_error(), "no column position") != NULL);
}

/* cross(sma:2, sma:3) and the built-in sma-cross 2/3: the same positions, so the same stats. */
static void test_rule_text_equals_builtin(void) {
    char pp[256];
    path_of(pp, sizeof pp, "p.csv");
    fcast_table *t = NULL;
    CHECK(fcast_table_read_prices(pp, &t) == FC_OK);
    if (!t) return;
    const char *names[1] = {"close"};
    const double *values[1] = {fcast_table_values(t)};
    fcast_columns cols = {1, names, values};
    fcast_signal *text = NULL, *builtin = NULL;
    fcast_grid *g = NULL;
    const char *ranges[2] = {"2", "3"};
    CHECK(fcast_signal_from_rule("cross(sma:2, sma:3)", 1, 2, fcast_table_indptr(t), &cols, &text) == FC_OK);
    CHECK(fcast_grid_new(FCAST_RULE_SMA_CROSS, ranges, 2, &g) == FC_OK);
    CHECK(fcast_signal_from_grid(g, 1, &builtin) == FC_OK);
    fcast_backtest_config c;
    fcast_backtest_config_init(&c);
    c.cost_bps = 7;
    fcast_backtest_stats x[2], y[2];
    CHECK(fcast_backtest_signal(text, &c, 2, fcast_table_indptr(t), fcast_table_values(t), NULL, x) == FC_OK);
    CHECK(fcast_backtest_signal(builtin, &c, 2, fcast_table_indptr(t), fcast_table_values(t), NULL, y) == FC_OK);
    for (int s = 0; s < 2; s++)
        CHECK(x[s].end_equity == y[s].end_equity && x[s].trades == y[s].trades && x[s].trades > 3);
    fcast_signal_free(text);
    text = NULL;
    /* a grid in the text: cross(sma:{2:4}, sma:{5:7}) cell by cell the built-in grid fast 2:4 x slow 5:7 */
    fcast_signal *tg = NULL, *bg = NULL;
    fcast_grid *g2 = NULL;
    const char *ranges2[2] = {"2:4", "5:7"};
    CHECK(fcast_signal_from_rule("cross(sma:{2:4}, sma:{5:7})", 1, 2, fcast_table_indptr(t), &cols, &tg) == FC_OK);
    CHECK(fcast_grid_new(FCAST_RULE_SMA_CROSS, ranges2, 2, &g2) == FC_OK);
    CHECK(fcast_signal_from_grid(g2, 1, &bg) == FC_OK);
    CHECK(fcast_signal_n_combinations(tg) == 9 && fcast_signal_n_combinations(bg) == 9);
    CHECK(fcast_signal_n_params(tg) == 2 && !strcmp(fcast_signal_param_name(tg, 1), "p2"));
    fcast_backtest_stats gx[18], gy[18];
    CHECK(fcast_backtest_signal(tg, &c, 2, fcast_table_indptr(t), fcast_table_values(t), NULL, gx) == FC_OK);
    CHECK(fcast_backtest_signal(bg, &c, 2, fcast_table_indptr(t), fcast_table_values(t), NULL, gy) == FC_OK);
    for (size_t k = 0; k < 9; k++) {
        CHECK(fcast_signal_params(tg, k)[0] == fcast_signal_params(bg, k)[0]);
        CHECK(fcast_signal_params(tg, k)[1] == fcast_signal_params(bg, k)[1]);
        for (int s = 0; s < 2; s++) CHECK(gx[2 * k + s].end_equity == gy[2 * k + s].end_equity);
    }
    /* a range of constants: above(close, {100:110:5}) is long exactly on the closes above each level */
    fcast_signal *tc = NULL;
    CHECK(fcast_signal_from_rule("above(close, {100:110:5})", 0, 2, fcast_table_indptr(t), &cols, &tc) == FC_OK);
    CHECK(fcast_signal_n_combinations(tc) == 3);
    double cpos[2 * N];
    CHECK(fcast_backtest_curve(tc, 2, NULL, 2, fcast_table_indptr(t), fcast_table_values(t), cpos, NULL, NULL, NULL) ==
          FC_OK);
    for (int i = 0; i < 2 * N; i++)
        CHECK_MSG((cpos[i] > 0.5) == (fcast_table_values(t)[i] > 110.0) || i % N == 0, "row %d: exposure %g, close %g",
                  i, cpos[i], fcast_table_values(t)[i]);
    CHECK(fcast_signal_from_rule("above(close, {100:9})", 0, 2, fcast_table_indptr(t), &cols, &text) ==
          FC_ERR_INVALID);
    CHECK(strstr(fc_last_error(), "--rule: p1") != NULL);
    fcast_signal_free(tg);
    fcast_signal_free(bg);
    fcast_signal_free(tc);
    fcast_grid_free(g2);
    CHECK(fcast_signal_from_rule("cross(sma:2 sma:3)", 1, 2, fcast_table_indptr(t), &cols, &text) == FC_ERR_INVALID);
    CHECK(strstr(fc_last_error(), "expected ',' at character 13") != NULL);
    CHECK(fcast_signal_from_rule("above(nosuch:3, 1)", 1, 2, fcast_table_indptr(t), &cols, &text) != FC_OK);
    CHECK(strstr(fc_last_error(), "nosuch") != NULL);
    CHECK(fcast_signal_from_rule("long: above(close, 1); short: below(close, 1)", 0, 2, fcast_table_indptr(t), &cols,
                                 &text) == FC_ERR_INVALID);
    CHECK(strstr(fc_last_error(), "needs --short") != NULL);
    fcast_signal_free(builtin);
    fcast_grid_free(g);
    fcast_table_free(t);
}

/* Clauses and events on 8 bars: long on a cross up of the close over 10,
 * exit when it falls below 9 (and not (below 9.5) keeps it otherwise). */
static void test_rule_clauses_by_hand(void) {
    fc_rule_expr e;
    CHECK(fc_rule_expr_parse("long: crossup(close, 10); exit: below(close, 9) or above(close, 13)", 0, &e) == FC_OK);
    const double close[8] = {9.5, 10.5, 11, 9.8, 8.5, 10.2, 13.5, 12};
    const double *ops[FC_RX_MAX_OPERANDS] = {close};
    double pos[8];
    fc_rule_expr_positions(&e, ops, 8, 0, pos);
    const double want[8] = {0, 1, 1, 1, 0, 1, 0, 0};
    for (int t = 0; t < 8; t++) CHECK_MSG(pos[t] == want[t], "bar %d: %g, expected %g", t, pos[t], want[t]);
    CHECK(fc_rule_expr_parse("not above(close, 10) and below(close, 12)", 1, &e) == FC_OK);
    fc_rule_expr_positions(&e, ops, 8, 1, pos);
    const double want2[8] = {1, -1, -1, 1, 1, -1, -1, -1};
    for (int t = 0; t < 8; t++) CHECK_MSG(pos[t] == want2[t], "plain bar %d: %g, expected %g", t, pos[t], want2[t]);
    CHECK(fc_rule_expr_parse("above(close, 10) xor below(close, 3)", 0, &e) == FC_ERR_INVALID);
    CHECK(strstr(fc_last_error(), "at character 18") != NULL);
}

/* Long from bar 0 at 100; 97 (-3%), 94 (-6%: the 5% stop, flat), 99 (still
 * the same signal: flat), signal 0 then 1 again at 100: a new entry; 111
 * (+11%: the 10% take-profit). */
static void test_stops_by_hand(void) {
    const double close[8] = {100, 97, 94, 99, 98, 100, 105, 111};
    const double pos[8] = {1, 1, 1, 1, 0, 1, 1, 1};
    const int64_t indptr[2] = {0, 8};
    fcast_signal *s = NULL;
    CHECK(fcast_signal_from_positions(8, pos, &s) == FC_OK);
    fcast_backtest_config c;
    fcast_backtest_config_init(&c);
    c.stop_loss = 0.05;
    c.take_profit = 0.10;
    c.capital = 1000;
    fcast_backtest_trade *tr = NULL;
    size_t n = 0;
    CHECK(fcast_backtest_trades(s, 0, &c, 1, indptr, close, &tr, &n) == FC_OK);
    CHECK(n == 2);
    if (n == 2) {
        CHECK(tr[0].entry_row == 0 && tr[0].exit_row == 2 && !strcmp(tr[0].exit_reason, "stop_loss"));
        CHECK_CLOSE(tr[0].pnl, 1000 * (94.0 / 100 - 1), 1e-9, 0);
        CHECK(tr[1].entry_row == 5 && tr[1].exit_row == 7 && !strcmp(tr[1].exit_reason, "take_profit"));
        CHECK_CLOSE(tr[1].ret, 111.0 / 100 - 1, 1e-12, 0);
    }
    fcast_backtest_trades_free(tr);
    double bad[1] = {1.5};
    fcast_signal *b = NULL;
    CHECK(fcast_signal_from_positions(1, bad, &b) == FC_ERR_INVALID);
    CHECK(strstr(fc_last_error(), "positions[0] = 1.5") != NULL);
    c.vol_window = 1;
    c.vol_target = 0.1;
    fcast_backtest_stats m;
    CHECK(fcast_backtest_signal(s, &c, 1, indptr, close, NULL, &m) == FC_ERR_INVALID);
    CHECK(strstr(fc_last_error(), "--vol-window") != NULL);
    fcast_signal_free(s);
}

/* The account by hand (kernels/quant_backtest_account.h): capital 1000 at a close of 100. */
static fcast_backtest_stats one_run(const double *close, const double *pos, size_t n, const fcast_backtest_config *c,
                                    fcast_backtest_trade **tr, size_t *n_tr) {
    const int64_t indptr[2] = {0, (int64_t)n};
    fcast_signal *s = NULL;
    fcast_backtest_stats m = {0};
    CHECK(fcast_signal_from_positions(n, pos, &s) == FC_OK);
    CHECK(fcast_backtest_signal(s, c, 1, indptr, close, NULL, &m) == FC_OK);
    if (tr) CHECK(fcast_backtest_trades(s, 0, c, 1, indptr, close, tr, n_tr) == FC_OK);
    fcast_signal_free(s);
    return m;
}

static void test_account_by_hand(void) {
    const double close[2] = {100, 110}, down[2] = {100, 90};
    const double longs[2] = {1, 1}, half[2] = {0.5, 0.5}, shorts[2] = {-1, -1};
    fcast_backtest_config c;
    fcast_backtest_config_init(&c);
    c.capital = 1000;
    /* 1% fees: 10 shares and their fee cost 1010 > 1000, so 1000 / 1.01 buys 9.90099 shares, the fee the rest */
    c.cost_bps = 100;
    fcast_backtest_trade *tr = NULL;
    size_t n = 0;
    fcast_backtest_stats m = one_run(close, longs, 2, &c, &tr, &n);
    const double shares = 1000 / 1.01 / 100;
    CHECK_CLOSE(m.end_equity, shares * 110, 1e-9, 0);
    CHECK_CLOSE(m.total_return, shares * 110 / 1000 - 1, 1e-12, 0);
    CHECK(n == 1 && !strcmp(tr[0].exit_reason, "open"));
    if (n == 1) {
        CHECK_CLOSE(tr[0].size, shares, 1e-12, 0);
        CHECK_CLOSE(tr[0].pnl, shares * 10 - 1000 * (1 - 1 / 1.01), 1e-9, 0);   /* the entry fee in the PnL */
        CHECK_CLOSE(tr[0].ret, 0.09, 1e-12, 0);                                   /* 10% less the 1% fee */
    }
    fcast_backtest_trades_free(tr);
    CHECK(m.trades == 1 && m.closed_trades == 0 && isnan(m.hit_rate));
    /* 1% slippage, no fees: the fill at 101, so 1000 / 101 shares */
    c.cost_bps = 0;
    c.slippage_bps = 100;
    m = one_run(close, longs, 2, &c, NULL, NULL);
    CHECK_CLOSE(m.end_equity, 1000.0 / 101 * 110, 1e-9, 0);
    /* a fixed cost of 10 on half the equity: 5 shares, 490 cash */
    c.slippage_bps = 0;
    c.fixed_cost = 10;
    m = one_run(close, half, 2, &c, NULL, NULL);
    CHECK_CLOSE(m.end_equity, 490 + 5 * 110, 1e-9, 0);
    CHECK_CLOSE(m.turnover, 500.0 / 1000, 1e-12, 0);
    /* a short of 1: 10 shares sold, 2000 cash; at 90 the equity is 2000 - 900 */
    c.fixed_cost = 0;
    m = one_run(down, shorts, 2, &c, NULL, NULL);
    CHECK_CLOSE(m.end_equity, 1100, 1e-9, 0);
    CHECK_CLOSE(m.total_return, 0.1, 1e-12, 0);
}

int main(void) {
    if (!mkdtemp(dir)) return 1;
    test_forecast_walk_forward();
    test_predict_origin();
    test_signal_file();
    test_rule_text_equals_builtin();
    test_rule_clauses_by_hand();
    test_stops_by_hand();
    test_account_by_hand();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
    printf("%d checks, %d failures\n", check_count, check_failures);
    return check_failures != 0;
}
