/* The backtester: a 10-price case computed by hand (positions, timing, costs,
 * trade count, hit rate), long-only and long-short; the grid equals every
 * combination run alone, bit for bit, for all three rules on the bundled
 * DAX/SMI/CAC/FTSE prices; invalid combinations are skipped; bad ranges and
 * periods are errors that name the flag. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "data/dataset.h"
#include "quant/backtest.h"
#include "quant/param_range.h"

/* Closes 10 10 11 12 13 14 13 12 11 10, sma-cross fast 2, slow 3:
 *   SMA2 (t=1..9): 10 10.5 11.5 12.5 13.5 13.5 12.5 11.5 10.5
 *   SMA3 (t=2..9): 10.33 11 12 13 13.33 13 12 11
 * fast > slow on closes t = 2..6 (long), below from t = 7 (flat, or short).
 * Long-only: buy at the close of t=2 (11), hold bars 3..7, sell at the close of
 * t=7 (12): equity (1-c) * 12/11 * (1-c); one trade, closed, won.
 * Long-short: at t=7 flip to short (cost 2c), hold bars 8 and 9 (12 -> 11 -> 10):
 * equity (1-c) * 12/11 * (1-2c) * (1 + 1/12) * (1 + 1/11); two trades, one closed. */
static void test_hand_computed(void) {
    const double close[10] = {10, 10, 11, 12, 13, 14, 13, 12, 11, 10};
    const double c = 5e-4;
    fc_rule_params p = {.rule = FC_RULE_SMA_CROSS, .p = {2, 3}};
    fc_bt_options o = {.cost_bps = 5, .allow_short = 0};
    fc_bt_metrics m;
    CHECK(fc_backtest_run(&p, &o, close, 10, &m) == FC_OK);
    double eq = (1 - c) * (12.0 / 11.0) * (1 - c);
    CHECK_CLOSE(m.total_return, eq - 1, 1e-14, 0);
    CHECK(m.trades == 1 && m.closed_trades == 1);
    CHECK(m.hit_rate == 1.0);
    CHECK_CLOSE(m.cagr, pow(eq, 252.0 / 9.0) - 1, 1e-12, 1e-12);
    /* drawdown: peak after bar 5 (14/11 (1-c)), trough at the close of bar 7 */
    CHECK_CLOSE(m.max_drawdown, (12.0 / 14.0) * (1 - c) - 1, 1e-14, 0);

    o.allow_short = 1;
    CHECK(fc_backtest_run(&p, &o, close, 10, &m) == FC_OK);
    eq = (1 - c) * (12.0 / 11.0) * (1 - 2 * c) * (1 + 1.0 / 12.0) * (1 + 1.0 / 11.0);
    CHECK_CLOSE(m.total_return, eq - 1, 1e-14, 0);
    CHECK(m.trades == 2 && m.closed_trades == 1);
    CHECK(m.hit_rate == 1.0);

    /* no costs: the long-only trade earns exactly 12/11 */
    o.allow_short = 0;
    o.cost_bps = 0;
    CHECK(fc_backtest_run(&p, &o, close, 10, &m) == FC_OK);
    CHECK_CLOSE(m.total_return, 1.0 / 11.0, 1e-15, 0);
    /* a losing trade: the mirror image of the prices loses on entry after a rise */
    const double lose[6] = {10, 11, 12, 11, 10, 9}; /* long at the close of t=2 (12), out at t=4 (10) */
    o.cost_bps = 5;
    CHECK(fc_backtest_run(&p, &o, lose, 6, &m) == FC_OK);
    CHECK(m.closed_trades == 1 && m.hit_rate == 0.0);
}

static int load_series(fc_dataset **d, const double *close[4], size_t len[4], const char *ids[4]) {
    fc_load_options opt = {0};
    if (fc_dataset_load_csv(FC_SOURCE_DIR "/data/eu_stock_markets.csv", &opt, d) != FC_OK) return 0;
    for (size_t s = 0; s < 4; s++) {
        close[s] = (*d)->y + (*d)->offsets[s];
        len[s] = fc_dataset_len(*d, s);
        ids[s] = (*d)->ids[s];
    }
    return (*d)->n_series == 4;
}

static void check_grid_equals_single(fc_rule_kind rule, const char *r0, const char *r1, const char *r2,
                                     const fc_bt_options *o) {
    fc_dataset *d = NULL;
    const double *close[4];
    size_t len[4];
    const char *ids[4];
    CHECK(load_series(&d, close, len, ids));
    if (!d) return;
    const char *texts[3] = {r0, r1, r2};
    fc_range ranges[3];
    for (size_t i = 0; i < fc_rule_param_count(rule); i++)
        CHECK(fc_range_parse(fc_rule_param_name(rule, i), texts[i], fc_rule_param_is_integer(rule, i),
                             &ranges[i]) == FC_OK);
    fc_rule_params *combos = NULL;
    size_t n = 0, skipped = 0;
    CHECK(fc_rule_grid_build(rule, ranges, &combos, &n, &skipped) == FC_OK);
    fc_bt_metrics *grid = calloc(n * 4, sizeof *grid);
    CHECK(fc_backtest_grid(combos, n, o, close, len, ids, 4, grid) == FC_OK);
    size_t same = 0, traded = 0;
    for (size_t c = 0; c < n; c++)
        for (size_t s = 0; s < 4; s++) {
            fc_bt_metrics one;
            memset(&one, 0, sizeof one);
            CHECK(fc_backtest_run(&combos[c], o, close[s], len[s], &one) == FC_OK);
            same += memcmp(&one, &grid[c * 4 + s], sizeof one) == 0;
            traded += one.trades > 0;
        }
    CHECK_MSG(same == n * 4, "%s: %zu of %zu cells equal", fc_rule_name(rule), same, n * 4);
    CHECK(traded > n); /* the rules do trade on real prices */
    free(grid);
    free(combos);
    fc_dataset_free(&d);
}

static void test_grid_equals_single_runs(void) {
    fc_bt_options o = {.cost_bps = 5, .allow_short = 0};
    check_grid_equals_single(FC_RULE_SMA_CROSS, "5:50:5", "20:200:30", NULL, &o);
    o.allow_short = 1;
    check_grid_equals_single(FC_RULE_RSI, "7:21:7", "20:40:10", "60:80:10", &o);
    check_grid_equals_single(FC_RULE_BBANDS, "10:40:10", "1.5:2.5:0.5", NULL, &o);
}

static void test_grid_skips_invalid(void) {
    fc_range r[2];
    CHECK(fc_range_parse("fast", "5:20:5", 1, &r[0]) == FC_OK);
    CHECK(fc_range_parse("slow", "10:20:10", 1, &r[1]) == FC_OK);
    fc_rule_params *g = NULL;
    size_t n = 0, skipped = 0;
    CHECK(fc_rule_grid_build(FC_RULE_SMA_CROSS, r, &g, &n, &skipped) == FC_OK);
    /* kept: (5,10) (5,20) (10,20) (15,20); skipped: (10,10) (15,10) (20,10) (20,20) */
    CHECK(n == 4 && skipped == 4);
    if (n == 4) {
        CHECK(g[0].p[0] == 5 && g[0].p[1] == 10);
        CHECK(g[3].p[0] == 15 && g[3].p[1] == 20);
    }
    free(g);
}

static void test_ranges_and_errors(void) {
    fc_range r;
    CHECK(fc_range_parse("--k", "0.1:0.3:0.1", 0, &r) == FC_OK && r.count == 3);
    CHECK(fc_range_parse("--fast", "14", 1, &r) == FC_OK && r.count == 1 && r.start == 14);
    CHECK(fc_range_parse("--fast", "5:50:5", 1, &r) == FC_OK && r.count == 10 && fc_range_value(&r, 9) == 50);
    CHECK(fc_range_parse("--fast", "5:x", 1, &r) == FC_ERR_PARSE);
    CHECK_CONTAINS(fc_last_error(), "--fast");
    CHECK(fc_range_parse("--slow", "5:50:0", 1, &r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "step");
    CHECK(fc_range_parse("--slow", "50:5", 1, &r) == FC_ERR_INVALID);
    CHECK(fc_range_parse("--period", "1.5:3", 1, &r) == FC_ERR_INVALID);
    CHECK(fc_range_parse("--period", "1:2:3:4", 1, &r) == FC_ERR_PARSE);
    CHECK(fc_range_parse("--period", "", 1, &r) == FC_ERR_PARSE);

    const double close[5] = {1, 2, 3, 4, 5};
    fc_bt_options o = {0};
    fc_bt_metrics m;
    fc_rule_params p = {.rule = FC_RULE_SMA_CROSS, .p = {2, 6}};
    CHECK(fc_backtest_run(&p, &o, close, 5, &m) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--slow");
    p = (fc_rule_params){.rule = FC_RULE_RSI, .p = {0, 30, 70}};
    CHECK(fc_backtest_run(&p, &o, close, 5, &m) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--period");
    p = (fc_rule_params){.rule = FC_RULE_BBANDS, .p = {3, -1}};
    CHECK(fc_backtest_run(&p, &o, close, 5, &m) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--k");
    const double bad[3] = {1, -2, 3};
    p = (fc_rule_params){.rule = FC_RULE_SMA_CROSS, .p = {1, 2}};
    CHECK(fc_backtest_run(&p, &o, bad, 3, &m) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "positive");
    fc_rule_kind k;
    CHECK(fc_rule_parse("macd", &k) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--rule");
}

int main(void) {
    test_hand_computed();
    test_grid_equals_single_runs();
    test_grid_skips_invalid();
    test_ranges_and_errors();
    return CHECK_DONE();
}
