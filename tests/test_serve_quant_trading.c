/* fcast serve's POST /v1/quant/portfolio and /v1/quant/backtest
 * (serve/quant_portfolio_route.c, quant_backtest_route.c), called in
 * process with fabricated requests (no network):
 *   - portfolio: the weights answered for data/eu_stock_markets.csv's
 *     returns are, to the bit, the library's own
 *     (fcast_portfolio_bounded_min_variance, _max_sharpe, _risk_parity,
 *     _frontier on fcast_portfolio_moments), prices become the CLI's simple
 *     returns, series come sorted by id, bounds as an object or the CLI's
 *     text are one request;
 *   - backtest: the metrics, trades and equity answered are the library's
 *     (fcast_backtest_signal, _trades, _curve on the same closes);
 *   - every refusal with its status and a message naming the key. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/error.h"
#include "fcast.h"
#include "quant_routes.h"

#define PF "/v1/quant/portfolio"
#define BT "/v1/quant/backtest"
#define CT "application/json"

/* ------------------------------------------------------------ helpers */

static int call(const char *method, const char *path, const char *content_type, const char *body,
                fc_http_response *rs) {
    fc_http_request rq = {.method = method, .path = path, .content_type = content_type, .body = body,
                          .len = body ? strlen(body) : 0};
    memset(rs, 0, sizeof *rs);
    return fc_quant_route(&rq, rs);
}

/* The answer to POST path body as JSON, NULL (and a failed check) unless 200. */
static json_t *post_ok(const char *path, const char *body) {
    fc_http_response rs;
    CHECK(call("POST", path, CT, body, &rs) == 1);
    CHECK_MSG(rs.status == 200, "%.200s: %d %s", body, rs.status, rs.body);
    json_t *j = rs.status == 200 && rs.body ? json_loads(rs.body, 0, NULL) : NULL;
    CHECK(rs.len > 0 && rs.body[rs.len - 1] == '\n');   /* a line, as the CLI prints it */
    free(rs.body);
    return j;
}

/* {"ID": [column j of the T x N matrix M], ...} in the given order. */
static void put_columns(FILE *f, const double *M, size_t T, size_t N, const char *const *ids) {
    fputc('{', f);
    for (size_t j = 0; j < N; j++) {
        fprintf(f, "%s\"%s\": [", j ? ", " : "", ids[j]);
        for (size_t t = 0; t < T; t++) fprintf(f, "%s%.17g", t ? ", " : "", M[t * N + j]);
        fputc(']', f);
    }
    fputc('}', f);
}

/* The weights of portfolio `name` in the answer, in ids' order; 0 if absent. */
static int weights_of(const json_t *answer, const char *name, const char *const *ids, size_t N, double *w) {
    size_t k;
    json_t *p;
    json_array_foreach(json_object_get(answer, "portfolios"), k, p) {
        if (strcmp(json_string_value(json_object_get(p, "name")), name)) continue;
        json_t *W = json_object_get(p, "weights");
        for (size_t j = 0; j < N; j++) w[j] = json_number_value(json_object_get(W, ids[j]));
        return 1;
    }
    return 0;
}

static int same_bits(const double *a, const double *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!(a[i] == b[i])) return 0;
    return 1;
}

/* ------------------------------------------------------------ portfolio */

typedef struct {
    fcast_returns *r;
    const char *ids[4];
    size_t T, N;
    double *mu, *cov;
} eu_data;

static int load_eu(eu_data *d) {
    if (fcast_returns_read_csv(FC_SOURCE_DIR "/data/eu_stock_markets.csv", 0, &d->r) != FC_OK) return 0;
    d->T = fcast_returns_n_periods(d->r), d->N = fcast_returns_n_assets(d->r);
    if (d->N != 4) return 0;
    for (size_t j = 0; j < 4; j++) d->ids[j] = fcast_returns_id(d->r, j);
    d->mu = malloc(4 * sizeof *d->mu), d->cov = malloc(16 * sizeof *d->cov);
    return d->mu && d->cov &&
           fcast_portfolio_moments(fcast_returns_values(d->r), d->T, 4, d->mu, d->cov) == FC_OK;
}

static char *eu_body(const eu_data *d, const char *keys) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    fputs("{\"returns\": ", f);
    put_columns(f, fcast_returns_values(d->r), d->T, d->N, d->ids);
    fprintf(f, "%s%s}", *keys ? ", " : "", keys);
    fclose(f);
    return text;
}

/* Long-only minimum variance, maximum Sharpe, risk parity and a frontier:
 * the library's weights, read back to the bit (%.17g). */
static void test_portfolio_eu(void) {
    eu_data d = {0};
    CHECK_MSG(load_eu(&d), "%s", fc_last_error());
    char *body = eu_body(&d, "\"long-only\": true, \"frontier\": 5, \"max-sharpe\": true, \"risk-free\": 0.01, "
                             "\"risk-parity\": true");
    json_t *a = body ? post_ok(PF, body) : NULL;
    double got[4], want[4], lo[4] = {0, 0, 0, 0}, hi[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
    CHECK(a && json_integer_value(json_object_get(a, "n_returns")) == (json_int_t)d.T);
    CHECK(a && !strcmp(json_string_value(json_object_get(a, "data")), "request"));
    CHECK(fcast_portfolio_bounded_min_variance(d.mu, d.cov, 4, lo, hi, want, NULL) == FC_OK);
    CHECK(weights_of(a, "min_variance", d.ids, 4, got) && same_bits(got, want, 4));
    CHECK(fcast_portfolio_max_sharpe(d.mu, d.cov, 4, lo, hi, 0.01 / 252.0, want, NULL) == FC_OK);
    CHECK(weights_of(a, "max_sharpe", d.ids, 4, got) && same_bits(got, want, 4));
    CHECK(fcast_portfolio_risk_parity(d.cov, 4, NULL, want, NULL) == FC_OK);
    CHECK(weights_of(a, "risk_parity", d.ids, 4, got) && same_bits(got, want, 4));
    double targets[5], fw[20];
    CHECK(fcast_portfolio_frontier(d.mu, d.cov, 4, lo, hi, 5, targets, fw, NULL) == FC_OK);
    CHECK(weights_of(a, "frontier_4", d.ids, 4, got));
    CHECK_MSG(same_bits(got, fw + 16, 4), "%.17g %.17g %.17g %.17g / %.17g %.17g %.17g %.17g", got[0], got[1], got[2], got[3], fw[16], fw[17], fw[18], fw[19]);
    CHECK(json_array_size(json_object_get(a, "portfolios")) == 8);
    json_decref(a);
    free(body);
    /* Ledoit-Wolf, a target and per-asset bounds, as an object and as the CLI's text */
    const char *as_object = "\"shrink\": \"ledoit-wolf\", \"target-return\": 0.15, \"bounds\": {\"DAX\": [0.1, 0.5], "
                            "\"FTSE\": [0, null]}";
    const char *as_text = "\"shrink\": \"ledoit-wolf\", \"target-return\": 0.15, \"bounds\": \"DAX=0.1:0.5,FTSE=0:inf\"";
    char *b1 = eu_body(&d, as_object), *b2 = eu_body(&d, as_text);
    json_t *a1 = post_ok(PF, b1), *a2 = post_ok(PF, b2);
    CHECK(a1 && a2 && json_equal(a1, a2));
    double lw[16], shrinkage, lo2[4] = {0, 0.1, 0, 0}, hi2[4] = {INFINITY, 0.5, INFINITY, INFINITY};   /* CAC DAX FTSE SMI */
    CHECK(fcast_portfolio_ledoit_wolf(fcast_returns_values(d.r), d.T, 4, lw, &shrinkage) == FC_OK);
    CHECK(json_number_value(json_object_get(a1, "shrinkage")) == shrinkage);
    CHECK(fcast_portfolio_bounded_target_return(d.mu, lw, 4, lo2, hi2, 0.15 / 252.0, want, NULL) == FC_OK);
    CHECK(weights_of(a1, "target_return", d.ids, 4, got) && same_bits(got, want, 4));
    json_decref(a1), json_decref(a2);
    free(b1), free(b2);
    free(d.mu), free(d.cov);
    fcast_returns_free(d.r);
}

/* Prices become p_t / p_{t-1} - 1; the series come sorted by id whatever
 * the request's order; shorts allowed: the closed form. */
static void test_portfolio_prices(void) {
    const double p[2][6] = {{100, 101, 99.5, 102, 103.1, 101.7}, {50, 50.5, 50.2, 49.9, 51, 51.3}};
    const char *body = "{\"prices\": {\"ZZZ\": [100, 101, 99.5, 102, 103.1, 101.7], "
                       "\"AAA\": [50, 50.5, 50.2, 49.9, 51, 51.3]}}";
    double R[10], w[2], got[2], mu[2], cov[4];
    for (size_t t = 0; t < 5; t++) R[2 * t] = p[1][t + 1] / p[1][t] - 1.0, R[2 * t + 1] = p[0][t + 1] / p[0][t] - 1.0;
    CHECK(fcast_portfolio_moments(R, 5, 2, mu, cov) == FC_OK);
    CHECK(fcast_portfolio_unbounded_min_variance(cov, 2, w) == FC_OK);
    json_t *a = post_ok(PF, body);
    const char *ids[2] = {"AAA", "ZZZ"};
    CHECK(weights_of(a, "min_variance", ids, 2, got) && same_bits(got, w, 2));
    const char *first = NULL;
    json_t *W = json_object_get(json_array_get(json_object_get(a, "portfolios"), 0), "weights");
    void *it = json_object_iter(W);
    if (it) first = json_object_iter_key(it);
    CHECK(first && !strcmp(first, "AAA"));
    CHECK(json_is_null(json_object_get(a, "bounds")));
    json_decref(a);
}

/* ------------------------------------------------------------ backtest */

typedef struct {
    fcast_table *t;
    size_t S, rows;
    const int64_t *indptr;
    const double *close;
    const char *ids[4];
} eu_closes;

static int load_closes(eu_closes *e) {
    if (fcast_table_read_csv(FC_SOURCE_DIR "/data/eu_stock_markets.csv", &e->t) != FC_OK) return 0;
    e->S = fcast_table_n_series(e->t);
    if (e->S != 4) return 0;
    e->indptr = fcast_table_indptr(e->t), e->close = fcast_table_values(e->t), e->rows = (size_t)e->indptr[4];
    for (size_t s = 0; s < 4; s++) e->ids[s] = fcast_table_id(e->t, s);
    return 1;
}

/* {"ID": [v of the series' rows], ...} of values in the layout, NaN as null. */
static void put_series(FILE *f, const eu_closes *e, const double *v) {
    fputc('{', f);
    for (size_t s = 0; s < e->S; s++) {
        fprintf(f, "%s\"%s\": [", s ? ", " : "", e->ids[s]);
        for (int64_t i = e->indptr[s]; i < e->indptr[s + 1]; i++) {
            if (i > e->indptr[s]) fputs(", ", f);
            if (isnan(v[i])) fputs("null", f);
            else fprintf(f, "%.17g", v[i]);
        }
        fputc(']', f);
    }
    fputc('}', f);
}

static char *bt_body(const eu_closes *e, const double *positions, const char *keys) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    fputs("{\"close\": ", f);
    put_series(f, e, e->close);
    if (positions) fputs(", \"positions\": ", f), put_series(f, e, positions);
    fprintf(f, ", %s}", keys);
    fclose(f);
    return text;
}

/* The answer's results against the library's stats, field by field, to the bit. */
static void check_results(const json_t *a, const fcast_backtest_stats *want, size_t n, size_t S, const eu_closes *e) {
    const json_t *res = json_object_get(a, "results");
    CHECK(json_array_size(res) == n * S);
    for (size_t i = 0; i < n * S && i < json_array_size(res); i++) {
        const json_t *r = json_array_get(res, i);
        const fcast_backtest_stats *m = &want[i];
        CHECK(!strcmp(json_string_value(json_object_get(r, "symbol")), e->ids[i % S]));
        CHECK(json_integer_value(json_object_get(r, "combination")) == (json_int_t)(i / S + 1));
        CHECK_MSG(json_number_value(json_object_get(r, "total_return")) == m->total_return, "result %zu", i);
        CHECK(json_number_value(json_object_get(r, "sharpe")) == m->sharpe);
        CHECK(json_number_value(json_object_get(r, "max_drawdown")) == m->max_drawdown);
        CHECK(json_number_value(json_object_get(r, "turnover")) == m->turnover);
        CHECK(json_number_value(json_object_get(r, "end_equity")) == m->end_equity);
        CHECK(json_integer_value(json_object_get(r, "trades")) == (json_int_t)m->trades);
        CHECK(json_integer_value(json_object_get(r, "closed_trades")) == (json_int_t)m->closed_trades);
    }
}

/* A built-in rule's grid with stops and costs, long-short. */
static void test_backtest_rule(const eu_closes *e) {
    fcast_backtest_config c;
    fcast_backtest_config_init(&c);
    c.cost_bps = 5, c.slippage_bps = 2, c.stop_loss = 0.05, c.take_profit = 0.1;
    const char *ranges[2] = {"10:20:10", "50"};
    fcast_grid *g = NULL;
    fcast_signal *s = NULL;
    CHECK(fcast_grid_new(FCAST_RULE_SMA_CROSS, ranges, 2, &g) == FC_OK);
    CHECK(g && fcast_signal_from_grid(g, 1, &s) == FC_OK);
    fcast_backtest_stats want[8];
    CHECK(s && fcast_backtest_signal(s, &c, 4, e->indptr, e->close, NULL, want) == FC_OK);
    char *body = bt_body(e, NULL, "\"rule\": \"sma-cross\", \"fast\": \"10:20:10\", \"slow\": 50, \"short\": true, "
                                  "\"cost-bps\": 5, \"slippage-bps\": 2, \"stop-loss\": 0.05, \"take-profit\": 0.1");
    json_t *a = body ? post_ok(BT, body) : NULL;
    CHECK(a && !strcmp(json_string_value(json_object_get(a, "source")), "sma-cross"));
    CHECK(a && json_integer_value(json_object_get(a, "combinations")) == 2);
    CHECK(json_is_true(json_object_get(json_object_get(a, "config"), "long_short")));
    check_results(a, want, 2, 4, e);
    json_decref(a);
    free(body);
    /* "best": the combination of the cell with the highest Sharpe, as the CLI's table ranks */
    size_t best = 0;
    for (size_t i = 1; i < 8; i++)
        if (want[i].sharpe > want[best].sharpe) best = i;
    fcast_backtest_trade *tr = NULL;
    size_t n_tr = 0;
    CHECK(fcast_backtest_trades(s, best / 4, &c, 4, e->indptr, e->close, &tr, &n_tr) == FC_OK);
    body = bt_body(e, NULL, "\"rule\": \"sma-cross\", \"fast\": \"10:20:10\", \"slow\": 50, \"short\": true, "
                            "\"cost-bps\": 5, \"slippage-bps\": 2, \"stop-loss\": 0.05, \"take-profit\": 0.1, "
                            "\"combination\": \"best\", \"trades\": true");
    a = body ? post_ok(BT, body) : NULL;
    const json_t *T = json_object_get(a, "trades");
    CHECK_MSG(json_array_size(T) == n_tr && n_tr > 0, "%zu trades, want %zu", json_array_size(T), n_tr);
    int stops = 0;
    for (size_t i = 0; i < n_tr && i < json_array_size(T); i++) {
        CHECK(json_number_value(json_object_get(json_array_get(T, i), "pnl")) == tr[i].pnl);
        stops += !strcmp(tr[i].exit_reason, "stop_loss") || !strcmp(tr[i].exit_reason, "take_profit");
    }
    CHECK(stops > 0);   /* the stops are exercised */
    json_decref(a);
    free(body);
    fcast_backtest_trades_free(tr);
    fcast_signal_free(s);
    fcast_grid_free(g);
}

/* The caller's positions; its trade log and equity curve against the library's. */
static void test_backtest_positions(const eu_closes *e) {
    double *pos = malloc(e->rows * sizeof *pos);
    if (!pos) return;
    for (size_t i = 0; i < e->rows; i++) pos[i] = round(4.0 * sin((double)i / 37.0)) / 4.0;   /* in [-1, 1] */
    fcast_signal *s = NULL;
    fcast_backtest_config c;
    fcast_backtest_config_init(&c);
    c.fixed_cost = 10, c.size_fraction = 0.5;
    CHECK(fcast_signal_from_positions(e->rows, pos, &s) == FC_OK);
    fcast_backtest_stats want[4];
    CHECK(s && fcast_backtest_signal(s, &c, 4, e->indptr, e->close, NULL, want) == FC_OK);
    fcast_backtest_trade *tr = NULL;
    size_t n_tr = 0;
    CHECK(s && fcast_backtest_trades(s, 0, &c, 4, e->indptr, e->close, &tr, &n_tr) == FC_OK);
    double *eq = malloc(e->rows * sizeof *eq);
    CHECK(s && eq && fcast_backtest_curve(s, 0, &c, 4, e->indptr, e->close, NULL, eq, NULL, NULL) == FC_OK);
    char *body = bt_body(e, pos, "\"fixed-cost\": 10, \"size\": \"fixed:0.5\", \"trades\": true, \"equity\": true");
    json_t *a = body ? post_ok(BT, body) : NULL;
    check_results(a, want, 1, 4, e);
    const json_t *T = json_object_get(a, "trades"), *E = json_object_get(a, "equity");
    CHECK_MSG(json_array_size(T) == n_tr && n_tr > 10, "%zu trades, want %zu", json_array_size(T), n_tr);
    for (size_t i = 0; i < n_tr && i < json_array_size(T); i++) {
        const json_t *t = json_array_get(T, i);
        CHECK(!strcmp(json_string_value(json_object_get(t, "unique_id")), e->ids[tr[i].series]));
        CHECK(json_integer_value(json_object_get(t, "entry_ds")) == (json_int_t)(tr[i].entry_row - (size_t)e->indptr[tr[i].series]));
        CHECK(json_number_value(json_object_get(t, "pnl")) == tr[i].pnl);
        CHECK(!strcmp(json_string_value(json_object_get(t, "exit_reason")), tr[i].exit_reason));
    }
    CHECK(json_array_size(E) == e->rows);   /* no missing close in this file */
    for (size_t i = 0; i < e->rows && i < json_array_size(E); i++)
        if (json_number_value(json_object_get(json_array_get(E, i), "equity")) != eq[i]) {
            CHECK_MSG(0, "equity row %zu", i);
            break;
        }
    /* the same request with one close missing: the bar is skipped, not a failure */
    json_decref(a);
    free(body);
    free(eq);
    fcast_backtest_trades_free(tr);
    fcast_signal_free(s);
    free(pos);
}

/* A rule as text over high and low, one array of closes with a null. */
static void test_backtest_rule_text(void) {
    const double close[12] = {10, 10.5, 10.2, NAN, 10.8, 11.2, 11, 11.6, 11.3, 11.9, 12.4, 12};
    const char *body = "{\"close\": [10, 10.5, 10.2, null, 10.8, 11.2, 11, 11.6, 11.3, 11.9, 12.4, 12], "
                       "\"rule\": \"long: above(close, sma:3); exit: below(close, sma:3)\"}";
    const int64_t indptr[2] = {0, 12};
    const char *names[1] = {"close"};
    const double *values[1] = {close};
    const fcast_columns cols = {1, names, values};
    fcast_signal *s = NULL;
    fcast_backtest_stats want;
    CHECK(fcast_signal_from_rule("long: above(close, sma:3); exit: below(close, sma:3)", 0, 1, indptr, &cols, &s) ==
          FC_OK);
    CHECK(s && fcast_backtest_signal(s, NULL, 1, indptr, close, NULL, &want) == FC_OK);
    json_t *a = post_ok(BT, body);
    const json_t *r = json_array_get(json_object_get(a, "results"), 0);
    CHECK(a && !strcmp(json_string_value(json_object_get(a, "source")), "rule"));
    CHECK(!strcmp(json_string_value(json_object_get(r, "symbol")), "series"));
    CHECK(json_number_value(json_object_get(r, "end_equity")) == want.end_equity);
    json_decref(a);
    fcast_signal_free(s);
}

/* ------------------------------------------------------------ errors */

typedef struct {
    const char *method, *path, *content_type, *body;
    int status;
    const char *needle;
} bad_case;

#define R2 "\"returns\": {\"A\": [0.01, -0.02, 0.03], \"B\": [0.02, 0.01, -0.01]}"
#define C2 "\"close\": {\"A\": [1, 2, 3, 2, 3], \"B\": [2, 2, 3, 3, 2]}"

static const bad_case BAD[] = {
    /* portfolio */
    {"POST", PF, CT, "{\"long-only\": true", 400, "line 1, column"},
    {"POST", PF, CT, "[1]", 400, "JSON object"},
    {"POST", PF, CT, "{\"long-only\": true}", 400, "returns or prices: required"},
    {"POST", PF, CT, "{" R2 ", \"json\": true}", 400, "json: unknown key (known: returns, prices"},
    {"POST", PF, CT, "{" R2 ", \"prices\": {\"A\": [1, 2, 3]}}", 400, "returns and prices: give one of them"},
    {"POST", PF, CT, "{" R2 ", \"long-only\": 1}", 400, "long-only: expected true or false"},
    {"POST", PF, CT, "{" R2 ", \"long-only\": true, \"min-weight\": 0}", 400, "long-only is min-weight 0: give one"},
    {"POST", PF, CT, "{" R2 ", \"frontier\": 5}", 400, "frontier needs bounds on the weights: add long-only"},
    {"POST", PF, CT, "{" R2 ", \"max-sharpe\": true}", 400, "max-sharpe needs bounds on the weights"},
    {"POST", PF, CT, "{" R2 ", \"long-only\": true, \"frontier\": 1}", 400, "frontier 1: expected 2 to 1000 points"},
    {"POST", PF, CT, "{" R2 ", \"frontier\": -3}", 400, "frontier: expected a non-negative integer"},
    {"POST", PF, CT, "{" R2 ", \"budgets\": {\"A\": 2}}", 400, "budgets needs risk-parity"},
    {"POST", PF, CT, "{" R2 ", \"shrink\": \"oas\"}", 400, "shrink oas: expected sample or ledoit-wolf"},
    {"POST", PF, CT, "{" R2 ", \"bounds\": {\"C\": [0, 1]}}", 400, "bounds: 'C' is not a series of the request"},
    {"POST", PF, CT, "{" R2 ", \"bounds\": \"A=0.5\"}", 400, "bounds: expected ID=LO:HI items such as"},
    {"POST", PF, CT, "{" R2 ", \"bounds\": {\"A\": [0.6, 0.5]}}", 400, "A: lower bound 0.6 > upper bound 0.5"},
    {"POST", PF, CT, "{" R2 ", \"bounds\": {\"A\": 0.5}}", 400, "bounds.A: expected [lower, upper]"},
    {"POST", PF, CT, "{" R2 ", \"bounds\": 3}", 400, "bounds: expected an object"},
    {"POST", PF, CT, "{" R2 ", \"risk-parity\": true, \"budgets\": {\"A\": \"x\"}}", 400, "budgets.A: expected a number"},
    {"POST", PF, CT, "{\"returns\": {\"A\": [0.01, 0.02], \"B\": [0.01]}}", 400, "returns.B: 1 values, but A has 2"},
    {"POST", PF, CT, "{\"returns\": {\"A\": [0.01], \"B\": [0.01]}}", 400, "a covariance needs at least 2 returns"},
    {"POST", PF, CT, "{\"returns\": {\"A\": [0.01, null], \"B\": [0.01, 0]}}", 400, "returns.A[1]: expected a number, got null"},
    {"POST", PF, CT, "{\"returns\": {\"A\": [0.01, -1], \"B\": [0.01, 0]}}", 400, "returns.A[1]: a return must be finite and > -1"},
    {"POST", PF, CT, "{\"prices\": {\"A\": [1, 0, 2], \"B\": [1, 1, 2]}}", 400, "prices.A[1]: returns need positive prices"},
    {"POST", PF, CT, "{\"returns\": []}", 400, "returns: expected an object of columns"},
    {"POST", PF, CT, "{" R2 ", \"target-return\": 100}", 400, "target"},
    {"GET", PF, NULL, NULL, 405, "allowed: POST"},
    {"POST", PF, "text/csv", "A,B", 415, "Content-Type text/csv"},
    /* backtest */
    {"POST", BT, CT, "{\"rule\": \"rsi\"}", 400, "close: required"},
    {"POST", BT, CT, "{" C2 ", \"signal\": \"x.csv\"}", 400, "signal: unknown key (known: close, open"},
    {"POST", BT, CT, "{" C2 ", \"rule\": \"rsi\", \"positions\": {\"A\": [0, 1, 1, 0, 0], \"B\": [0, 0, 0, 0, 0]}}", 400,
     "rule and positions are two signals"},
    {"POST", BT, CT, "{" C2 ", \"rule\": \"rsi\", \"fast\": 3}", 400, "fast does not apply to rule rsi"},
    {"POST", BT, CT, "{" C2 ", \"rule\": \"cross(sma:2, sma:3)\", \"fast\": 3}", 400, "fast is a parameter of the built-in rules"},
    {"POST", BT, CT, "{" C2 ", \"rule\": \"momentum\"}", 400, "momentum"},
    {"POST", BT, CT, "{" C2 ", \"rule\": \"sma-cross\", \"fast\": [1]}", 400, "fast: expected a range"},
    {"POST", BT, CT, "{" C2 ", \"rule\": 3}", 400, "rule: expected a string"},
    {"POST", BT, CT, "{" C2 ", \"short\": \"yes\"}", 400, "short: expected true or false"},
    {"POST", BT, CT, "{" C2 ", \"cost-bps\": \"5\"}", 400, "cost-bps: expected a number"},
    {"POST", BT, CT, "{" C2 ", \"size\": \"half\"}", 400, "size: expected fixed:F"},
    {"POST", BT, CT, "{" C2 ", \"vol-window\": 2.5}", 400, "vol-window: expected a non-negative integer"},
    {"POST", BT, CT, "{\"close\": {\"A\": [1, 2, \"3\"]}}", 400, "close.A[2]: expected a number or null, got a string"},
    {"POST", BT, CT, "{\"close\": {}}", 400, "close: expected"},
    {"POST", BT, CT, "{\"close\": [1, 2, 3], \"positions\": {\"A\": [0, 1, 1]}}", 400, "positions: expected close's shape (one array)"},
    {"POST", BT, CT, "{" C2 ", \"positions\": {\"A\": [0, 1, 1, 0, 0], \"B\": [0, 0]}}", 400, "positions.B: expected an array of 5 values"},
    {"POST", BT, CT, "{" C2 ", \"positions\": {\"A\": [0, 1, 1, 0, 0], \"C\": [0, 0, 0, 0, 0]}}", 400, "positions: no series B"},
    {"POST", BT, CT, "{" C2 ", \"positions\": {\"A\": [0, 2, 1, 0, 0], \"B\": [0, 0, 0, 0, 0]}}", 400, "position"},
    {"POST", BT, CT, "{" C2 ", \"fast\": \"2:3\", \"slow\": 4, \"trades\": true}", 400, "pick one with combination K"},
    {"POST", BT, CT, "{" C2 ", \"fast\": \"2:3\", \"slow\": 4, \"trades\": true, \"combination\": 3}", 400,
     "combination: expected \\\"best\\\" or 1 to 2"},
    {"POST", BT, CT, "{\"close\": [1, 2, -3, 4], \"fast\": 1, \"slow\": 2}", 400, "point 3: prices must be positive, got -3"},
    {"POST", BT, CT, "{" C2 ", \"fast\": 1, \"slow\": 2, \"cost-bps\": -1}", 400, "cost"},
    {"POST", BT, CT, "{" C2 "}", 400, "series A: slow: period 20 is longer than series A (5 points)"},
    {"DELETE", BT, NULL, NULL, 405, "allowed: POST"},
    {"POST", BT, "application/xml", "<close/>", 415, "Content-Type application/xml"},
};

static void test_bad_bodies(void) {
    size_t n = sizeof BAD / sizeof *BAD;
    for (size_t i = 0; i < n; i++) {
        const bad_case *b = &BAD[i];
        fc_http_response rs;
        CHECK(call(b->method, b->path, b->content_type, b->body, &rs) == 1);
        CHECK_MSG(rs.status == b->status, "%s %s %s: status %d, want %d (%s)", b->method, b->path, b->body,
                  rs.status, b->status, rs.body);
        CHECK_MSG(rs.body && strstr(rs.body, b->needle), "%s: message %s lacks '%s'", b->body, rs.body, b->needle);
        free(rs.body);
    }
    printf("%zu bad bodies\n", n);
}

/* head, then n times item separated by commas, then tail. */
static char *repeat_body(const char *head, const char *item, size_t n, const char *tail) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    fputs(head, f);
    for (size_t i = 0; i < n; i++) fprintf(f, "%s%s", i ? "," : "", item);
    fputs(tail, f);
    fclose(f);
    return text;
}

/* 413: more assets than the library takes, more values than a request
 * holds, more backtests x bars than a request may run. */
static void test_limits(void) {
    fc_http_response rs = {0};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fputs("{\"returns\": {", f);
    for (int j = 0; j <= FCAST_PORTFOLIO_MAX_ASSETS; j++) fprintf(f, "%s\"S%d\": [0.1, 0.2]", j ? ", " : "", j);
    fputs("}}", f);
    fclose(f);
    CHECK(call("POST", PF, CT, text, &rs) && rs.status == 413 && strstr(rs.body, "4097 series; a portfolio takes 1 to 4096"));
    free(rs.body), free(text);
    /* nulls: jansson shares one null, so the parsed array stays small */
    text = repeat_body("{\"close\": [", "null", FC_QUANT_MAX_VALUES + 1, "]}");
    CHECK(text && call("POST", BT, CT, text, &rs) && rs.status == 413 && strstr(rs.body, "more than the 10000000 values"));
    free(rs.body), free(text);
    text = repeat_body("{\"prices\": {\"A\": [", "1", FC_QUANT_MAX_VALUES / 2 + 1, "], \"B\": [");
    CHECK(text && call("POST", PF, CT, text, &rs) && rs.status == 400);   /* malformed, not read: cheap */
    free(rs.body), free(text);
    /* 2,000,000 bars x 1,000 combinations = 2e12 bar visits */
    text = repeat_body("{\"fast\": \"1:1000\", \"slow\": 2000, \"close\": [", "1", 2000000, "]}");
    CHECK_MSG(text && call("POST", BT, CT, text, &rs) && rs.status == 413 && strstr(rs.body, "bar visits, more than"),
              "%d %s", rs.status, rs.body);
    free(rs.body), free(text);
}

int main(void) {
    test_portfolio_eu();
    test_portfolio_prices();
    eu_closes e = {0};
    CHECK_MSG(load_closes(&e), "%s", fc_last_error());
    if (e.t) {
        test_backtest_rule(&e);
        test_backtest_positions(&e);
    }
    fcast_table_free(e.t);
    test_backtest_rule_text();
    test_bad_bodies();
    test_limits();
    return CHECK_DONE();
}
