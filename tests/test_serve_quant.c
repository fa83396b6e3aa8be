/* The quant endpoints (serve/quant_routes.c), called in process with
 * fabricated requests (no network):
 *   - POST /v1/quant/option answers exactly the text the shared JSON
 *     function (quant/quant_request.h, which `fcast quant option --json`
 *     prints) gives for the same parameters, with the library's numbers;
 *   - the other methods (binomial, LSM, barriers, Greeks) answer the
 *     text of the library's fcast_*_json writers (which the CLI prints)
 *     for the library's prices, and values against independent truth:
 *     a European tree within 0.01 of Black-Scholes, LSM within 4 standard
 *     errors of Longstaff-Schwartz's table, barrier in + out = vanilla
 *     (1e-10), Monte Carlo Greeks within 4 standard errors of Black-Scholes';
 *   - POST /v1/quant/implied-vol: a Black-Scholes price back to its
 *     volatility (1e-10), one option as fcast_implied_vol_json, many, and a
 *     bad price as an error or (report) null with its reason;
 *   - POST /v1/quant/indicators answers the library's values bit for bit
 *     (direct fc_ind_compute calls), NaN as null, columns named and ordered
 *     as the CLI's CSV;
 *   - bad bodies get the right status and a message naming the field;
 *   - other paths are not the route's, other methods are 405. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/error.h"
#include "quant/indicators.h"
#include "quant/quant_request.h"
#include "quant_routes.h"
#include "fcast.h"

#define OPTION_PATH "/v1/quant/option"

/* ------------------------------------------------------------ helpers */

/* rs for METHOD PATH with body (Content-Type JSON); 0 if the route declined. */
static int call(const char *method, const char *path, const char *content_type, const char *body,
                fc_http_response *rs) {
    fc_http_request rq = {.method = method, .path = path, .content_type = content_type, .body = body,
                          .len = body ? strlen(body) : 0};
    memset(rs, 0, sizeof *rs);
    return fc_quant_route(&rq, rs);
}

static int post(const char *path, const char *body, fc_http_response *rs) {
    return call("POST", path, "application/json", body, rs);
}

/* A printf-formatted string, malloc'd. */
static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    return s;
}

/* ------------------------------------------------------------ options */

/* The shared function's text for p, plus the newline the CLI prints. */
static char *expected_option(const fc_option_params *p, fc_mc_result *r) {
    fc_mc_option o;
    fc_bs_greeks g;
    if (fc_option_from_params(p, &o) != FC_OK || fc_option_price(&o, r, &g) != FC_OK) return NULL;
    char *s = fc_option_json(&o, r, &g), *line = s ? format("%s\n", s) : NULL;
    free(s);
    return line;
}

typedef struct {
    const char *body;
    fc_option_params p;   /* the same request as the CLI's flags would make it */
} option_case;

static void check_option_case(const option_case *c) {
    fc_http_response rs;
    fc_mc_result r;
    char *want = expected_option(&c->p, &r);
    CHECK_MSG(want != NULL, "%s: %s", c->body, fc_last_error());
    CHECK(post("/v1/quant/option", c->body, &rs) == 1);
    CHECK_MSG(rs.status == 200, "%s: %d %s", c->body, rs.status, rs.body);
    CHECK(rs.content_type && !strcmp(rs.content_type, "application/json"));
    CHECK_MSG(want && rs.body && rs.len == strlen(want) && !memcmp(rs.body, want, rs.len),
              "%s:\n got  %s want %s", c->body, rs.body, want);
    /* and the numbers read back are the library's, to the bit */
    json_t *j = rs.body ? json_loads(rs.body, 0, NULL) : NULL;
    double price = json_real_value(json_object_get(j, "price"));
    CHECK(j && memcmp(&price, &r.price, sizeof price) == 0);
    CHECK(j && (uint64_t)json_integer_value(json_object_get(j, "paths")) == r.paths);
    json_decref(j);
    free(want);
    free(rs.body);
}

static fc_option_params params(int call, double S, double K, double sigma, double T) {
    fc_option_params p = fc_option_params_default();
    p.call = call;
    p.put = !call;
    p.S = S, p.K = K, p.sigma = sigma, p.T = T;
    return p;
}

static void test_option_answers(void) {
    option_case c[7];
    c[0] = (option_case){"{\"call\": true, \"S\": 100, \"K\": 105, \"sigma\": 0.25, \"T\": 1, \"r\": 0.03, "
                         "\"paths\": 200000, \"seed\": 3}", params(1, 100, 105, 0.25, 1)};
    c[0].p.r = 0.03, c[0].p.paths = 200000, c[0].p.seed = 3;
    c[1] = (option_case){"{\"put\": true, \"S\": 100, \"K\": 100, \"r\": 0.05, \"sigma\": 0.2, \"T\": 1, "
                         "\"paths\": 100000, \"antithetic\": true, \"seed\": 7, \"steps\": 4, \"q\": 0.01}",
                         params(0, 100, 100, 0.2, 1)};
    c[1].p.r = 0.05, c[1].p.paths = 100000, c[1].p.antithetic = 1, c[1].p.seed = 7, c[1].p.steps = 4, c[1].p.q = 0.01;
    c[2] = (option_case){"{\"type\": \"asian\", \"put\": true, \"S\": 90, \"K\": 87, \"r\": 0.025, \"q\": 0.06, "
                         "\"sigma\": 0.13, \"T\": 1, \"fixings\": 12, \"paths\": 100000, \"antithetic\": true}",
                         params(0, 90, 87, 0.13, 1)};
    c[2].p.type = "asian", c[2].p.r = 0.025, c[2].p.q = 0.06, c[2].p.fixings = 12, c[2].p.paths = 100000;
    c[2].p.antithetic = 1;
    c[3] = (option_case){"{\"type\": \"asian\", \"call\": true, \"S\": 100, \"K\": 100, \"sigma\": 0.3, \"T\": 0.5, "
                         "\"fixings\": 5, \"paths\": 50001, \"no-control-variate\": true}",
                         params(1, 100, 100, 0.3, 0.5)};
    c[3].p.type = "asian", c[3].p.fixings = 5, c[3].p.paths = 50001, c[3].p.no_control_variate = 1;
    /* the defaults: 1000000 paths, seed 42, r = q = 0 */
    c[4] = (option_case){"{\"call\": true, \"S\": 100, \"K\": 100, \"sigma\": 0.2, \"T\": 1}", params(1, 100, 100, 0.2, 1)};
    /* false flags are absent flags; a real with an integer value is an integer */
    c[5] = (option_case){"{\"call\": true, \"put\": false, \"antithetic\": false, \"S\": 100, \"K\": 95, "
                         "\"sigma\": 0.2, \"T\": 2, \"paths\": 2e5, \"seed\": 11.0}", params(1, 100, 95, 0.2, 2)};
    c[5].p.paths = 200000, c[5].p.seed = 11;
    c[6] = (option_case){"{\"type\": \"european\", \"put\": true, \"S\": 50.5, \"K\": 49.25, \"sigma\": 0.4, "
                         "\"T\": 0.25, \"paths\": 3}", params(0, 50.5, 49.25, 0.4, 0.25)};
    c[6].p.paths = 3;   /* rounded up to whole draws by the library, as in the CLI */
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) check_option_case(&c[i]);
}

/* ------------------------------------------- options: the other methods */

/* The answer to body: 200 and its text, without the newline (NULL else). */
static char *answer(const char *path, const char *body) {
    fc_http_response rs;
    CHECK(post(path, body, &rs) == 1);
    CHECK_MSG(rs.status == 200, "%s: %d %s", body, rs.status, rs.body);
    if (rs.status != 200 || !rs.body || !rs.len || rs.body[rs.len - 1] != '\n') {
        free(rs.body);
        return NULL;
    }
    rs.body[rs.len - 1] = '\0';
    return rs.body;
}

/* got is want (a library writer's text, taken), byte for byte. */
static void check_same(const char *what, char *got, char *want) {
    CHECK_MSG(got && want && !strcmp(got, want), "%s:\n got  %s\n want %s", what, got, want);
    free(got), free(want);
}

static double number(const char *json, const char *key) {
    json_t *j = json ? json_loads(json, 0, NULL) : NULL;
    double v = json_number_value(json_object_get(j, key));
    json_decref(j);
    return v;
}

/* Trees and LSM: the library's price through its writer, the CLI's defaults
 * (1000 steps, bbsr; 50 dates, degree 3) where the request has none. */
static void test_american_answers(void) {
    fcast_tree_option t = {.type = FCAST_PUT, .american = 1, .spot = 100, .strike = 105, .rate = 0.05, .div = 0.01,
                           .vol = 0.25, .expiry = 1, .steps = 1000, .tree = FCAST_TREE_BBSR};
    double price, bs;
    CHECK(fcast_tree_price(&t, &price) == FC_OK);
    check_same("binomial American put", answer(OPTION_PATH, "{\"put\": true, \"exercise\": \"american\", \"S\": 100, "
               "\"K\": 105, \"r\": 0.05, \"q\": 0.01, \"sigma\": 0.25, \"T\": 1}"), fcast_tree_option_json(&t, price, 0));
    t = (fcast_tree_option){.type = FCAST_CALL, .american = 0, .spot = 100, .strike = 95, .rate = 0.03, .vol = 0.2,
                            .expiry = 0.5, .steps = 301, .tree = FCAST_TREE_CRR};
    const fcast_option_arrays one = {1, &t.type, &t.spot, &t.strike, &t.rate, &t.div, &t.vol, &t.expiry};
    CHECK(fcast_tree_price(&t, &price) == FC_OK && fcast_bs_european(&one, &bs, NULL, NULL, NULL, NULL, NULL) == FC_OK);
    char *got = answer(OPTION_PATH, "{\"call\": true, \"method\": \"binomial\", \"tree\": \"crr\", \"steps\": 301, "
                       "\"S\": 100, \"K\": 95, \"r\": 0.03, \"sigma\": 0.2, \"T\": 0.5}");
    /* independent of the writer: a European tree converges to Black-Scholes (CRR: O(1/steps)) */
    CHECK_MSG(fabs(number(got, "price") - number(got, "bs_price")) < 0.01, "%s", got);
    check_same("binomial European call (crr)", got, fcast_tree_option_json(&t, price, bs));

    fcast_lsm_option l = {.type = FCAST_PUT, .spot = 36, .strike = 40, .rate = 0.06, .vol = 0.2, .expiry = 1,
                          .steps = 50, .paths = 20000, .calibration_paths = 20000, .degree = 3, .seed = 5};
    fcast_lsm_result lr;
    CHECK(fcast_lsm_price(&l, &lr) == FC_OK);
    got = answer(OPTION_PATH, "{\"put\": true, \"exercise\": \"american\", \"method\": \"lsm\", \"S\": 36, \"K\": 40, "
                 "\"r\": 0.06, \"sigma\": 0.2, \"T\": 1, \"paths\": 20000, \"calibration-paths\": 20000, \"seed\": 5}");
    /* Longstaff and Schwartz (2001), table 1: 4.478 for this put; 4 standard errors */
    CHECK_MSG(fabs(number(got, "price") - 4.478) < 4 * number(got, "stderr") + 0.01, "%s", got);
    check_same("LSM American put", got, fcast_lsm_option_json(&l, &lr));
}

/* Barriers: closed form and Monte Carlo; in + out = the vanilla option. */
static void test_barrier_answers(void) {
    fcast_barrier_option b = {.type = FCAST_CALL, .kind = FCAST_BARRIER_DOWN_OUT, .spot = 100, .strike = 100,
                              .rate = 0.05, .vol = 0.3, .expiry = 1, .barrier = 90, .rebate = 2};
    double exact;
    CHECK(fcast_barrier_price(&b, &exact) == FC_OK);
    check_same("down-and-out call, rebate", answer(OPTION_PATH, "{\"call\": true, \"barrier\": \"down-and-out:90\", "
               "\"rebate\": 2, \"S\": 100, \"K\": 100, \"r\": 0.05, \"sigma\": 0.3, \"T\": 1}"),
               fcast_barrier_option_json(&b, exact, NULL));
    b.steps = 40, b.paths = 50000, b.seed = 9;
    fcast_mc_result r;
    CHECK(fcast_barrier_price(&b, &exact) == FC_OK && fcast_barrier_mc_price(&b, &r) == FC_OK);
    check_same("down-and-out call, Monte Carlo", answer(OPTION_PATH, "{\"call\": true, \"barrier\": \"down-and-out:90\", "
               "\"method\": \"mc\", \"steps\": 40, \"paths\": 50000, \"seed\": 9, \"rebate\": 2, \"S\": 100, "
               "\"K\": 100, \"r\": 0.05, \"sigma\": 0.3, \"T\": 1}"), fcast_barrier_option_json(&b, exact, &r));
    char *in = answer(OPTION_PATH, "{\"put\": true, \"barrier\": \"up-and-in:120\", \"S\": 100, \"K\": 110, "
                      "\"r\": 0.02, \"sigma\": 0.25, \"T\": 2}");
    char *out = answer(OPTION_PATH, "{\"put\": true, \"barrier\": \"up-and-out:120\", \"S\": 100, \"K\": 110, "
                       "\"r\": 0.02, \"sigma\": 0.25, \"T\": 2}");
    int put = FCAST_PUT;
    double S = 100, K = 110, rate = 0.02, div = 0, vol = 0.25, T = 2, vanilla;
    const fcast_option_arrays one = {1, &put, &S, &K, &rate, &div, &vol, &T};
    CHECK(fcast_bs_european(&one, &vanilla, NULL, NULL, NULL, NULL, NULL) == FC_OK);
    double parity = number(in, "price") + number(out, "price");
    CHECK_MSG(fabs(parity - vanilla) < 1e-10 * vanilla, "in + out = %.17g, Black-Scholes %.17g", parity, vanilla);
    free(in), free(out);
}

/* Greeks: the price's object and fcast_mc_greeks' values after it. */
static void test_greeks_answers(void) {
    for (int method = FCAST_GREEKS_PATHWISE; method <= FCAST_GREEKS_LR; method++) {
        fcast_mc_option o = {.type = FCAST_CALL, .spot = 100, .strike = 110, .rate = 0.04, .div = 0.01, .vol = 0.3,
                             .expiry = 1.5, .steps = 1, .paths = 100000, .seed = 13, .antithetic = 1};
        fcast_mc_result r;
        fcast_mc_detail d;
        fcast_mc_greeks_result k;
        double g[6];
        const fcast_option_arrays one = {1, &o.type, &o.spot, &o.strike, &o.rate, &o.div, &o.vol, &o.expiry};
        CHECK(fcast_mc_price_on(&o, NULL, &r, &d) == FC_OK && fcast_mc_greeks(&o, method, &k) == FC_OK);
        CHECK(fcast_bs_european(&one, &g[0], &g[1], &g[2], &g[3], &g[4], &g[5]) == FC_OK);
        char *body = format("{\"call\": true, \"greeks\": \"%s\", \"S\": 100, \"K\": 110, \"r\": 0.04, \"q\": 0.01, "
                            "\"sigma\": 0.3, \"T\": 1.5, \"paths\": 100000, \"seed\": 13, \"antithetic\": true}",
                            method == FCAST_GREEKS_LR ? "lr" : "pathwise");
        char *got = answer(OPTION_PATH, body);
        /* independent of the writer: within 4 standard errors of Black-Scholes' delta and vega */
        CHECK_MSG(fabs(number(got, "mc_delta") - g[1]) < 4 * number(got, "mc_delta_stderr"), "%s", got);
        CHECK_MSG(fabs(number(got, "mc_vega") - g[3]) < 4 * number(got, "mc_vega_stderr"), "%s", got);
        check_same(body, got, fcast_mc_greeks_json(&o, &r, &d, g, method, &k));
        free(body);
    }
}

/* ------------------------------------------------------ implied volatility */

#define IV_PATH "/v1/quant/implied-vol"

/* A price made by Black-Scholes at vol comes back as vol (1e-10). */
static double bs_price(int type, double S, double K, double r, double q, double T, double vol) {
    double p = NAN;
    const fcast_option_arrays one = {1, &type, &S, &K, &r, &q, &vol, &T};
    CHECK(fcast_bs_european(&one, &p, NULL, NULL, NULL, NULL, NULL) == FC_OK);
    return p;
}

static void test_implied_vol_one(void) {
    double price = bs_price(FCAST_PUT, 100, 110, 0.03, 0.01, 0.75, 0.35), vol;
    int type = FCAST_PUT;
    double S = 100, K = 110, r = 0.03, q = 0.01, T = 0.75;
    const fcast_option_arrays one = {1, &type, &S, &K, &r, &q, NULL, &T};
    CHECK(fcast_implied_vol(&one, &price, &vol, NULL) == FC_OK);
    char *body = format("{\"put\": true, \"price\": %.17g, \"S\": 100, \"K\": 110, \"r\": 0.03, \"q\": 0.01, "
                        "\"T\": 0.75}", price);
    char *got = answer(IV_PATH, body);
    CHECK_MSG(fabs(number(got, "implied_vol") - 0.35) < 1e-10, "%s", got);
    check_same(body, got, fcast_implied_vol_json(type, S, K, r, q, T, price, vol));
    free(body);
}

/* Many options: types and a rate each, a spot for all; a bad price. */
static void test_implied_vol_many(void) {
    const double vols[3] = {0.1, 0.5, 0.25}, K[3] = {80, 100, 130}, r[3] = {0, 0.05, -0.01};
    const int types[3] = {FCAST_CALL, FCAST_PUT, FCAST_CALL};
    double p[3];
    for (int i = 0; i < 3; i++) p[i] = bs_price(types[i], 100, K[i], r[i], 0, 2, vols[i]);
    char *body = format("{\"type\": [\"call\", \"put\", \"call\"], \"price\": [%.17g, %.17g, %.17g], \"S\": 100, "
                        "\"K\": [80, 100, 130], \"r\": [0, 0.05, -0.01], \"T\": 2}", p[0], p[1], p[2]);
    char *got = answer(IV_PATH, body);
    json_t *j = got ? json_loads(got, 0, NULL) : NULL, *iv = json_object_get(j, "implied_vol");
    CHECK_MSG(json_array_size(iv) == 3 && json_object_size(j) == 1, "%s", got);
    for (size_t i = 0; i < 3; i++)
        CHECK_MSG(fabs(json_number_value(json_array_get(iv, i)) - vols[i]) < 1e-10, "option %zu: %s", i, got);
    json_decref(j), free(got), free(body);
    /* the call's upper bound is S: 100 has no volatility */
    const char *bad = "{\"call\": true, \"price\": [10, 100, 5], \"S\": 100, \"K\": 100, \"T\": 1%s}";
    fc_http_response rs;
    body = format(bad, "");
    CHECK(post(IV_PATH, body, &rs) == 1 && rs.status == 400 &&
          strstr(rs.body, "option 1: price 100 of the call: price at or above the upper bound (lower 0, upper 100)"));
    free(rs.body), free(body);
    body = format(bad, ", \"bad-rows\": \"report\"");
    got = answer(IV_PATH, body);
    j = got ? json_loads(got, 0, NULL) : NULL;
    iv = json_object_get(j, "implied_vol");
    json_t *err = json_object_get(j, "error");
    CHECK_MSG(json_is_number(json_array_get(iv, 0)) && json_is_null(json_array_get(iv, 1)) &&
              json_is_number(json_array_get(iv, 2)) && json_is_null(json_array_get(err, 0)) &&
              !strcmp(json_string_value(json_array_get(err, 1)) ? json_string_value(json_array_get(err, 1)) : "",
                      "price at or above the upper bound") && json_is_null(json_array_get(err, 2)), "%s", got);
    /* the solved ones price back to their prices under Black-Scholes */
    CHECK(fabs(bs_price(FCAST_CALL, 100, 100, 0, 0, 1, json_number_value(json_array_get(iv, 0))) - 10) < 1e-9);
    CHECK(fabs(bs_price(FCAST_CALL, 100, 100, 0, 0, 1, json_number_value(json_array_get(iv, 2))) - 5) < 1e-9);
    json_decref(j), free(got), free(body);
}

/* ---------------------------------------------------------- indicators */

/* A deterministic random walk of n prices, NaN at the positions of nulls
 * (every `gap`-th point from 50 on; 0: none). */
static void prices(double *y, uint8_t *mask, size_t n, size_t gap) {
    uint64_t s = 88172645463325252ull;
    double p = 100.0;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        p *= 1.0 + ((double)(s >> 11) / 9007199254740992.0 - 0.5) * 0.04;
        mask[i] = !(gap && i >= 50 && (i - 50) % gap == 0);
        y[i] = mask[i] ? p : NAN;
    }
}

static char *indicators_body(const double *y, const uint8_t *mask, size_t n, const char *ind_json, const char *nan) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fputs("{\"close\": [", f);
    for (size_t i = 0; i < n; i++) {
        if (mask[i]) fprintf(f, "%s%.17g", i ? ", " : "", y[i]);
        else fprintf(f, "%snull", i ? ", " : "");
    }
    fprintf(f, "], \"ind\": %s", ind_json);
    if (nan) fprintf(f, ", \"nan\": \"%s\"", nan);
    fputs("}", f);
    fclose(f);
    return text;
}

/* Every value of column `got` equals out[] to the bit; null where NaN. */
static int same_column(const json_t *got, const double *out, size_t n) {
    if (!json_is_array(got) || json_array_size(got) != n) return 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_array_get(got, i);
        if (isnan(out[i]) ? !json_is_null(v) : !json_is_number(v)) return 0;
        double x = json_is_number(v) ? json_number_value(v) : NAN;
        if (!isnan(out[i]) && memcmp(&x, &out[i], sizeof x) != 0) return 0;
    }
    return 1;
}

/* The answer against one fc_ind_compute call per spec, column by column,
 * in the CLI's column order. */
static void check_indicators_answer(const char *answer, const double *y, const uint8_t *mask, size_t n,
                                    const char *spec_text, fc_nan_policy nan) {
    fc_ind_spec *specs = NULL;
    size_t n_specs = 0, offsets[2] = {0, n};
    CHECK(fc_ind_parse_list(spec_text, &specs, &n_specs) == FC_OK);
    fc_ind_options opt = fc_ind_options_default();
    opt.nan = nan;
    json_t *j = json_loads(answer, 0, NULL);
    CHECK_MSG(json_is_object(j), "%.200s", answer);
    void *it = json_object_iter(j);
    double *out[FC_IND_MAX_OUTPUTS];
    for (int k = 0; k < FC_IND_MAX_OUTPUTS; k++) out[k] = malloc(n * sizeof(double));
    for (size_t s = 0; s < n_specs; s++) {
        CHECK(fc_ind_compute(&specs[s], y, mask, offsets, 1, &opt, out, NULL) == FC_OK);
        for (int k = 0; k < fc_ind_n_outputs(&specs[s]); k++, it = json_object_iter_next(j, it)) {
            char name[96];
            fc_ind_column_name(&specs[s], k, name, sizeof name);
            CHECK_MSG(it && !strcmp(json_object_iter_key(it), name), "column %s: got %s", name,
                      it ? json_object_iter_key(it) : "(none)");
            CHECK_MSG(it && same_column(json_object_iter_value(it), out[k], n), "column %s differs", name);
        }
    }
    CHECK_MSG(it == NULL, "more columns than the specs give");
    for (int k = 0; k < FC_IND_MAX_OUTPUTS; k++) free(out[k]);
    json_decref(j);
    free(specs);
}

static void test_indicators_answers(void) {
    enum { N = 3000 };
    static double y[N];
    static uint8_t mask[N];
    static const char *const SPECS = "sma:20,ema:12,rsi:14,macd:12:26:9,bbands:20,wma:5,mom,roc:3,stddev:10:2,zscore";
    static const char *const SPECS_ARRAY = "[\"sma:20,ema:12\", \"rsi:14\", \"macd:12:26:9\", \"bbands:20\", "
                                           "\"wma:5,mom,roc:3\", \"stddev:10:2\", \"zscore\"]";
    const struct { size_t gap; const char *nan; fc_nan_policy policy; } runs[] = {
        {0, NULL, FC_NAN_POISON}, {97, NULL, FC_NAN_POISON}, {97, "restart", FC_NAN_RESTART}, {97, "poison", FC_NAN_POISON}};
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        prices(y, mask, N, runs[r].gap);
        char *quoted = format("\"%s\"", SPECS);
        char *body = indicators_body(y, mask, N, quoted, runs[r].nan);
        char *body_array = indicators_body(y, mask, N, SPECS_ARRAY, runs[r].nan);
        fc_http_response rs, ra;
        CHECK(post("/v1/quant/indicators", body, &rs) == 1);
        CHECK_MSG(rs.status == 200, "%d %s", rs.status, rs.body);
        if (rs.status == 200) check_indicators_answer(rs.body, y, runs[r].gap ? mask : NULL, N, SPECS, runs[r].policy);
        CHECK(post("/v1/quant/indicators", body_array, &ra) == 1);
        CHECK_MSG(ra.status == 200 && ra.len == rs.len && !memcmp(ra.body, rs.body, rs.len),
                  "ind as an array answers what the string does");
        CHECK(rs.len > 0 && rs.body[rs.len - 1] == '\n');
        free(rs.body), free(ra.body), free(body), free(body_array), free(quoted);
    }
}

/* A short series gets its leading nulls and the values after them. */
static void test_indicators_small(void) {
    fc_http_response rs;
    CHECK(post("/v1/quant/indicators", "{\"close\": [1, 2, 3, 4], \"ind\": \"sma:2,mom:1\"}", &rs) == 1);
    CHECK_MSG(rs.status == 200 && !strcmp(rs.body, "{\"sma_2\": [null, 1.5, 2.5, 3.5], \"mom_1\": [null, 1, 1, 1]}\n"),
              "%s", rs.body);
    free(rs.body);
}

/* ------------------------------------------------------------- errors */

typedef struct {
    const char *method, *path, *content_type, *body;
    int status;
    const char *needle;   /* in the error message */
} bad_case;

#define OPT "/v1/quant/option"
#define IND "/v1/quant/indicators"
#define CT "application/json"
#define MKT "\"S\": 100, \"K\": 100, \"sigma\": 0.2, \"T\": 1"

static const bad_case BAD[] = {
    /* option: the body */
    {"POST", OPT, CT, "{\"call\": true, ", 400, "line 1, column"},
    {"POST", OPT, CT, "", 400, "invalid JSON"},
    {"POST", OPT, CT, "[1, 2]", 400, "JSON object"},
    {"POST", OPT, CT, "{\"call\": true, \"S\": 1, \"S\": 2, \"K\": 100, \"sigma\": 0.2, \"T\": 1}", 400, "duplicate"},
    {"POST", OPT, CT, "{\"call\": true, \"spot\": 100, " MKT "}", 400, "spot: unknown key (known: type, call"},
    {"POST", OPT, CT, "{\"call\": true, \"json\": true, " MKT "}", 400, "json: unknown key"},
    {"POST", OPT, CT, "{\"call\": true, \"device\": \"cuda\", " MKT "}", 400, "device: unknown key"},
    /* option: types */
    {"POST", OPT, CT, "{\"call\": true, \"S\": \"100\", \"K\": 100, \"sigma\": 0.2, \"T\": 1}", 400, "S: expected a number, got a string"},
    {"POST", OPT, CT, "{\"call\": 1, " MKT "}", 400, "call: expected true or false"},
    {"POST", OPT, CT, "{\"call\": true, \"antithetic\": \"yes\", " MKT "}", 400, "antithetic: expected true or false"},
    {"POST", OPT, CT, "{\"call\": true, \"type\": 3, " MKT "}", 400, "type: expected a string"},
    {"POST", OPT, CT, "{\"call\": true, \"paths\": -1, " MKT "}", 400, "paths: expected a non-negative integer"},
    {"POST", OPT, CT, "{\"call\": true, \"paths\": 1.5, " MKT "}", 400, "paths: expected a non-negative integer"},
    {"POST", OPT, CT, "{\"call\": true, \"paths\": 1e300, " MKT "}", 400, "paths: expected a non-negative integer"},
    {"POST", OPT, CT, "{\"call\": true, \"seed\": \"x\", " MKT "}", 400, "seed: expected a non-negative integer"},
    {"POST", OPT, CT, "{\"call\": true, \"r\": null, " MKT "}", 400, "r: expected a number, got null"},
    /* option: values, with the library's messages */
    {"POST", OPT, CT, "{\"call\": true, \"K\": 100, \"sigma\": 0.2, \"T\": 1}", 400, "S: required"},
    {"POST", OPT, CT, "{\"call\": true, \"S\": 100, \"K\": 100, \"T\": 1}", 400, "sigma: required"},
    {"POST", OPT, CT, "{" MKT "}", 400, "give exactly one of --call and --put"},
    {"POST", OPT, CT, "{\"call\": true, \"put\": true, " MKT "}", 400, "give exactly one of --call and --put"},
    {"POST", OPT, CT, "{\"call\": true, \"type\": \"bermudan\", " MKT "}", 400, "--type: expected european or asian"},
    {"POST", OPT, CT, "{\"call\": true, \"S\": 100, \"K\": 100, \"sigma\": 0, \"T\": 1}", 400, "--sigma"},
    {"POST", OPT, CT, "{\"call\": true, \"S\": 100, \"K\": 100, \"sigma\": 1e200, \"T\": 1}", 400, "--sigma"},
    {"POST", OPT, CT, "{\"call\": true, \"S\": 100, \"K\": 100, \"sigma\": 0.2, \"T\": -1}", 400, "--T"},
    {"POST", OPT, CT, "{\"call\": true, \"S\": -5, \"K\": 100, \"sigma\": 0.2, \"T\": 1}", 400, "--S"},
    {"POST", OPT, CT, "{\"call\": true, \"S\": 100, \"K\": 0, \"sigma\": 0.2, \"T\": 1}", 400, "--K"},
    {"POST", OPT, CT, "{\"call\": true, \"r\": -1000, " MKT "}", 400, "--r"},
    {"POST", OPT, CT, "{\"call\": true, \"paths\": 1, " MKT "}", 400, "--paths"},
    {"POST", OPT, CT, "{\"call\": true, \"steps\": 0, " MKT "}", 400, "--steps"},
    {"POST", OPT, CT, "{\"call\": true, \"steps\": 100001, \"paths\": 2, " MKT "}", 400, "--steps"},
    {"POST", OPT, CT, "{\"type\": \"asian\", \"call\": true, \"steps\": 5, " MKT "}", 400, "--steps does not apply"},
    {"POST", OPT, CT, "{\"call\": true, \"fixings\": 5, " MKT "}", 400, "--fixings does not apply"},
    {"POST", OPT, CT, "{\"type\": \"asian\", \"call\": true, \"fixings\": 0, " MKT "}", 400, "--fixings"},
    {"POST", OPT, CT, "{\"call\": true, \"S\": 1e-306, \"K\": 1e-306, \"sigma\": 0.2, \"T\": 1, \"paths\": 1000}", 400,
     "--S = 1e-306, --K = 1e-306: the price"},
    /* option: the server's limits */
    {"POST", OPT, CT, "{\"call\": true, \"paths\": 100000001, " MKT "}", 413, "paths: 100000001, more than the 100000000"},
    {"POST", OPT, CT, "{\"call\": true, \"paths\": 18446744073709551615, " MKT "}", 400, "invalid JSON"},
    {"POST", OPT, CT, "{\"call\": true, \"paths\": 100000000, \"steps\": 100, " MKT "}", 413, "path steps"},
    {"POST", OPT, CT, "{\"type\": \"asian\", \"call\": true, \"paths\": 100000000, " MKT "}", 413, "fixings 12"},
    /* option: the other methods, refused as the CLI refuses their flags */
    {"POST", OPT, CT, "{\"call\": true, \"exercise\": \"bermudan\", " MKT "}", 400, "--exercise: expected european or american, got 'bermudan'"},
    {"POST", OPT, CT, "{\"call\": true, \"exercise\": 1, " MKT "}", 400, "exercise: expected a string, got a number"},
    {"POST", OPT, CT, "{\"call\": true, \"exercise\": \"american\", \"method\": \"lsm\", \"tree\": \"crr\", " MKT "}", 400, "--tree is for --method binomial"},
    {"POST", OPT, CT, "{\"call\": true, \"tree\": \"crr\", " MKT "}", 400, "--tree is for --method binomial"},
    {"POST", OPT, CT, "{\"call\": true, \"tree\": \"crr\", \"barrier\": \"down-and-out:90\", " MKT "}", 400, "--tree is for --method binomial"},
    {"POST", OPT, CT, "{\"call\": true, \"greeks\": \"lr\", \"barrier\": \"down-and-out:90\", " MKT "}", 400, "--greeks is for the European Monte Carlo price (--method mc), not --barrier"},
    {"POST", OPT, CT, "{\"call\": true, \"greeks\": \"lr\", \"exercise\": \"american\", " MKT "}", 400, "not --exercise american"},
    {"POST", OPT, CT, "{\"call\": true, \"greeks\": \"lr\", \"method\": \"binomial\", " MKT "}", 400, "not --method binomial"},
    {"POST", OPT, CT, "{\"call\": true, \"rebate\": 1, " MKT "}", 400, "--rebate is for --barrier"},
    {"POST", OPT, CT, "{\"call\": true, \"barrier\": \"down-and-out:90\", \"exercise\": \"american\", " MKT "}", 400, "--barrier options are European here"},
    {"POST", OPT, CT, "{\"call\": true, \"barrier\": \"down-and-out:90\", \"method\": \"lsm\", " MKT "}", 400, "--barrier: --method analytic (the default) or mc, got 'lsm'"},
    {"POST", OPT, CT, "{\"call\": true, \"barrier\": \"sideways:90\", " MKT "}", 400, "--barrier 'sideways:90': expected KIND:LEVEL"},
    {"POST", OPT, CT, "{\"call\": true, \"barrier\": \"down-and-out:\", " MKT "}", 400, "expected KIND:LEVEL"},
    {"POST", OPT, CT, "{\"call\": true, \"barrier\": \"down-and-out:90\", \"paths\": 1000, " MKT "}", 400, "--paths, --steps and --seed are for --method mc"},
    {"POST", OPT, CT, "{\"call\": true, \"barrier\": \"down-and-out:90\", \"antithetic\": true, " MKT "}", 400, "do not apply to --barrier"},
    {"POST", OPT, CT, "{\"call\": true, \"barrier\": \"down-and-out:110\", " MKT "}", 400, "--barrier: down-and-out:110 with --S 100"},
    {"POST", OPT, CT, "{\"call\": true, \"barrier\": \"down-and-out:90\", \"rebate\": -1, " MKT "}", 400, "--rebate"},
    {"POST", OPT, CT, "{\"call\": true, \"barrier\": \"down-and-out:90\", \"method\": \"mc\", \"steps\": 0, " MKT "}", 400, "--steps: expected at least 1 time step, got 0"},
    {"POST", OPT, CT, "{\"call\": true, \"method\": \"lsm\", " MKT "}", 400, "--method lsm needs --exercise american"},
    {"POST", OPT, CT, "{\"call\": true, \"calibration-paths\": 1000, " MKT "}", 400, "--calibration-paths and --basis-degree are for --method lsm"},
    {"POST", OPT, CT, "{\"call\": true, \"method\": \"pde\", " MKT "}", 400, "--method: expected mc, binomial or lsm, got 'pde'"},
    {"POST", OPT, CT, "{\"call\": true, \"exercise\": \"american\", \"method\": \"mc\", " MKT "}", 400, "--exercise american: Monte Carlo is --method lsm"},
    {"POST", OPT, CT, "{\"call\": true, \"exercise\": \"american\", \"paths\": 1000, " MKT "}", 400, "are Monte Carlo's: they do not apply to --method binomial"},
    {"POST", OPT, CT, "{\"call\": true, \"method\": \"binomial\", \"type\": \"asian\", " MKT "}", 400, "--method binomial prices --type european options"},
    {"POST", OPT, CT, "{\"call\": true, \"method\": \"binomial\", \"tree\": \"jr\", " MKT "}", 400, "--tree: expected bbsr, bbs or crr, got 'jr'"},
    {"POST", OPT, CT, "{\"call\": true, \"method\": \"binomial\", \"steps\": 0, " MKT "}", 400, "--steps: expected at least 1 time step, got 0"},
    {"POST", OPT, CT, "{\"put\": true, \"exercise\": \"american\", \"S\": 100, \"K\": 100, \"sigma\": 0, \"T\": 1}", 400, "--sigma"},
    {"POST", OPT, CT, "{\"put\": true, \"exercise\": \"american\", \"steps\": 100001, " MKT "}", 400, "--steps"},
    {"POST", OPT, CT, "{\"put\": true, \"exercise\": \"american\", \"method\": \"lsm\", \"basis-degree\": 9, " MKT "}", 400, "--basis-degree: expected 1 to 8, got 9"},
    {"POST", OPT, CT, "{\"put\": true, \"exercise\": \"american\", \"method\": \"lsm\", \"calibration-paths\": 0, " MKT "}", 400, "--calibration-paths: expected at least 16 paths, got 0"},
    {"POST", OPT, CT, "{\"put\": true, \"exercise\": \"american\", \"method\": \"lsm\", \"fixings\": 4, " MKT "}", 400, "do not apply to --method lsm"},
    {"POST", OPT, CT, "{\"put\": true, \"exercise\": \"american\", \"method\": \"lsm\", \"type\": \"asian\", " MKT "}", 400, "--method lsm prices American options"},
    {"POST", OPT, CT, "{\"call\": true, \"greeks\": \"finite\", \"paths\": 1000, " MKT "}", 400, "--greeks: expected pathwise or lr, got 'finite'"},
    {"POST", OPT, CT, "{\"call\": true, \"greeks\": \"lr\", \"type\": \"asian\", \"paths\": 1000, " MKT "}", 400, "--greeks is for --type european"},
    {"POST", OPT, CT, "{\"call\": true, \"greeks\": true, " MKT "}", 400, "greeks: expected a string, got a boolean"},
    /* option: the other methods' limits on the server */
    {"POST", OPT, CT, "{\"put\": true, \"exercise\": \"american\", \"method\": \"lsm\", \"paths\": 100000001, " MKT "}", 413, "paths: 100000001, more than the 100000000"},
    {"POST", OPT, CT, "{\"put\": true, \"exercise\": \"american\", \"method\": \"lsm\", \"paths\": 10000000, \"steps\": 51, " MKT "}", 413, "(paths 10000000 + calibration-paths 100000) x steps 51 = 515100000 path steps, more than the 500000000"},
    {"POST", OPT, CT, "{\"call\": true, \"barrier\": \"down-and-out:90\", \"method\": \"mc\", \"paths\": 5000001, " MKT "}", 413, "paths: 5000001 x steps 50 = 250000050 path steps, more than the 250000000"},
    {"POST", OPT, CT, "{\"call\": true, \"barrier\": \"down-and-out:90\", \"method\": \"mc\", \"paths\": 100000001, " MKT "}", 413, "paths: 100000001, more than the 100000000"},
    {"POST", OPT, CT, "{\"call\": true, \"greeks\": \"lr\", \"paths\": 100000001, " MKT "}", 413, "paths: 100000001, more than the 100000000"},
    /* implied-vol */
    {"POST", IV_PATH, CT, "{\"price\": 10, \"S\": 100, \"K\": 100, \"T\": 1}", 400, "give exactly one of call and put (or type)"},
    {"POST", IV_PATH, CT, "{\"call\": true, \"type\": \"put\", \"price\": 10, \"S\": 100, \"K\": 100, \"T\": 1}", 400, "type: give either type or call/put, not both"},
    {"POST", IV_PATH, CT, "{\"type\": \"straddle\", \"price\": 10, \"S\": 100, \"K\": 100, \"T\": 1}", 400, "type: expected \"call\" or \"put\""},
    {"POST", IV_PATH, CT, "{\"type\": [\"call\", \"cal\"], \"price\": 10, \"S\": 100, \"K\": 100, \"T\": 1}", 400, "type[1]: expected \"call\" or \"put\""},
    {"POST", IV_PATH, CT, "{\"call\": true, \"S\": 100, \"K\": 100, \"T\": 1}", 400, "price: required (as --price is by fcast quant implied-vol)"},
    {"POST", IV_PATH, CT, "{\"call\": true, \"price\": 10, \"K\": 100, \"T\": 1}", 400, "S: required"},
    {"POST", IV_PATH, CT, "{\"call\": true, \"price\": \"10\", \"S\": 100, \"K\": 100, \"T\": 1}", 400, "price: expected a number or an array of numbers, got a string"},
    {"POST", IV_PATH, CT, "{\"call\": true, \"price\": [10, null], \"S\": 100, \"K\": 100, \"T\": 1}", 400, "price[1]: expected a number, got null"},
    {"POST", IV_PATH, CT, "{\"call\": true, \"price\": [10, 11], \"S\": [100], \"K\": 100, \"T\": 1}", 400, "S: 1 values, but price has 2: one per option"},
    {"POST", IV_PATH, CT, "{\"call\": true, \"price\": [], \"S\": 100, \"K\": 100, \"T\": 1}", 400, "price: an empty array"},
    {"POST", IV_PATH, CT, "{\"call\": true, \"price\": 10, \"S\": 100, \"K\": 100, \"T\": 1, \"sigma\": 0.2}", 400, "sigma: unknown key (known: call, put, type"},
    {"POST", IV_PATH, CT, "{\"call\": true, \"price\": 100, \"S\": 100, \"K\": 100, \"T\": 1}", 400, "price 100 of the call is at or above its upper bound"},
    {"POST", IV_PATH, CT, "{\"call\": true, \"price\": 10, \"S\": -1, \"K\": 100, \"T\": 1}", 400, "--S = -1: must be a positive number"},
    {"POST", IV_PATH, CT, "{\"call\": true, \"price\": [10, 10], \"S\": [100, -1], \"K\": 100, \"T\": 1}", 400, "option 1: S = -1: must be a positive number"},
    {"POST", IV_PATH, CT, "{\"call\": true, \"price\": [10], \"S\": 100, \"K\": 100, \"T\": 1, \"bad-rows\": \"skip\"}", 400, "bad-rows: expected \"fail\" or \"report\""},
    {"POST", IV_PATH, CT, "{\"call\": true, \"price\": 10, \"S\": 100, \"K\": 100, \"T\": 1, \"bad-rows\": \"report\"}", 400, "bad-rows: is for many options"},
    {"GET", IV_PATH, NULL, NULL, 405, "allowed: POST"},
    /* option: method and media type */
    {"GET", OPT, NULL, NULL, 405, "allowed: POST"},
    {"PUT", OPT, CT, "{}", 405, "allowed: POST"},
    {"POST", OPT, "text/csv", "S,K\n1,2\n", 415, "Content-Type text/csv"},
    /* indicators: the body */
    {"POST", IND, CT, "{\"close\": [1, 2,", 400, "line 1, column"},
    {"POST", IND, CT, "\"sma:20\"", 400, "JSON object"},
    {"POST", IND, CT, "{\"ind\": \"sma:2\"}", 400, "close: required"},
    {"POST", IND, CT, "{\"close\": [1, 2, 3]}", 400, "ind: required"},
    {"POST", IND, CT, "{\"close\": {\"a\": 1}, \"ind\": \"sma:2\"}", 400, "close: expected an array of numbers, got an object"},
    {"POST", IND, CT, "{\"close\": [], \"ind\": \"sma:2\"}", 400, "close: no values"},
    {"POST", IND, CT, "{\"close\": [1, \"2\", 3], \"ind\": \"sma:2\"}", 400, "close[1]: expected a number or null, got a string"},
    {"POST", IND, CT, "{\"close\": [1, 2, true], \"ind\": \"sma:2\"}", 400, "close[2]: expected a number or null, got a boolean"},
    {"POST", IND, CT, "{\"close\": [1, 2, 3], \"ind\": 20}", 400, "ind: expected a string"},
    {"POST", IND, CT, "{\"close\": [1, 2, 3], \"ind\": []}", 400, "ind: expected a string (\"sma:20,rsi:14\") or a non-empty array"},
    {"POST", IND, CT, "{\"close\": [1, 2, 3], \"ind\": [\"sma:2\", 3]}", 400, "ind[1]: expected a string, got a number"},
    {"POST", IND, CT, "{\"close\": [1, 2, 3], \"ind\": \"sma:0\"}", 400, "ind: 'sma:0': period must be >= 1"},
    {"POST", IND, CT, "{\"close\": [1, 2, 3], \"ind\": \"foo:3\"}", 400, "ind: 'foo:3': unknown indicator 'foo'"},
    {"POST", IND, CT, "{\"close\": [1, 2, 3], \"ind\": \"sma:2,sma:2\"}", 400, "ind: 'sma:2': given twice"},
    {"POST", IND, CT, "{\"close\": [1, 2, 3], \"ind\": [\"sma:2\", \"SMA:2\"]}", 400, "given twice"},
    {"POST", IND, CT, "{\"close\": [1, 2, 3], \"ind\": \"sma:2,\"}", 400, "ind: empty indicator spec"},
    {"POST", IND, CT, "{\"close\": [1, 2, 3], \"ind\": \"sma:2\", \"nan\": \"bogus\"}", 400, "--nan: expected 'poison' or 'restart'"},
    {"POST", IND, CT, "{\"close\": [1, 2, 3], \"ind\": \"sma:2\", \"nan\": 1}", 400, "nan: expected \"poison\" or \"restart\""},
    {"POST", IND, CT, "{\"close\": [1, 2, 3], \"high\": [2, 3], \"ind\": \"sma:2\"}", 400, "high: 2 values, but close has 3: every price column has one per bar"},
    {"POST", IND, CT, "{\"close\": [1, 2, 3], \"ind\": \"atr:2\"}", 400, "ind: 'atr:2' reads the column 'high', which the request lacks (it has: close)"},
    {"POST", IND, CT, "{\"close\": [1, 2, 3], \"ind\": \"sma:2\", \"window\": 3}", 400, "window: unknown key (known: open, high, low, close, volume, periods, ind, nan)"},
    {"POST", IND, CT, "{\"close\": [1, 2, 3, 4, 5], \"ind\": \"sma:20\"}", 400, "ind: 'sma:20' needs at least 20 points (its lookback, 19, plus one) but close has 5 from its first value"},
    {"POST", IND, CT, "{\"close\": [1, 2, null, 4, 5], \"ind\": \"sma:3\", \"nan\": \"restart\"}", 400, "'sma:3' needs at least 3 values in a row (its lookback, 2, plus one; nan restart starts afresh after each null) but the longest run of values in close has 2"},
    {"POST", IND, CT, "{\"close\": [1, null, 3, null, 5], \"ind\": \"sma:2\", \"nan\": \"restart\"}", 400, "'sma:2' needs at least 2 values in a row (its lookback, 1, plus one; nan restart starts afresh after each null) but the longest run of values in close has 1"},
    {"POST", IND, CT, "{\"close\": [null, null, 3], \"ind\": \"sma:2\"}", 400, "'sma:2' needs at least 2 points (its lookback, 1, plus one) but close has 1 from its first value"},
    {"POST", IND, CT, "{\"close\": [null, null], \"ind\": \"sma:1\"}", 400, "ind: 'sma:1' needs at least 1 point (its lookback, 0, plus one) but close holds only nulls"},
    {"DELETE", IND, NULL, NULL, 405, "allowed: POST"},
    {"POST", IND, "application/xml", "<close/>", 415, "Content-Type application/xml"},
};

static void test_bad_bodies(void) {
    size_t n = sizeof BAD / sizeof *BAD;
    for (size_t i = 0; i < n; i++) {
        const bad_case *b = &BAD[i];
        fc_http_response rs;
        CHECK(call(b->method, b->path, b->content_type, b->body, &rs) == 1);
        CHECK_MSG(rs.status == b->status, "%s %s %s: status %d, want %d (%s)", b->method, b->path, b->body,
                  rs.status, b->status, rs.body);
        json_t *j = rs.body ? json_loads(rs.body, 0, NULL) : NULL;
        const char *msg = json_string_value(json_object_get(j, "error"));
        CHECK_MSG(msg && strstr(msg, b->needle), "%s: message %s lacks '%s'", b->body, rs.body, b->needle);
        json_decref(j);
        free(rs.body);
    }
    printf("%zu bad bodies\n", n);
}

/* Too many specs, also as a huge string of commas (counted, not parsed). */
static void test_too_many(void) {
    char *specs = calloc(1, 2000000), *body;
    fc_http_response rs;
    if (!specs) {
        CHECK(!"memory for the specs");
        return;
    }
    for (int i = 1; i <= 65; i++) sprintf(specs + strlen(specs), "%ssma:%d", i > 1 ? "," : "", i);
    body = format("{\"close\": [1, 2, 3], \"ind\": \"%s\"}", specs);
    CHECK(post(IND, body, &rs) && rs.status == 400 && strstr(rs.body, "ind: at most 64 indicators at once"));
    free(rs.body), free(body);
    memset(specs, ',', 1999999);
    body = format("{\"close\": [1, 2, 3], \"ind\": \"%s\"}", specs);
    CHECK(post(IND, body, &rs) && rs.status == 400 && strstr(rs.body, "at most 64"));
    free(rs.body), free(body), free(specs);
}

/* head, then n times item separated by commas, then "]}". */
static char *array_body(const char *head, const char *item, size_t n) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    fputs(head, f);
    for (size_t i = 0; i < n; i++) fprintf(f, "%s%s", i ? "," : "", item);
    fputs("]}", f);
    fclose(f);
    return text;
}

/* 413 past 10,000,000 values: close's points, and the cells of the answer. */
static void test_value_limits(void) {
    fc_http_response rs = {0};
    /* nulls: jansson shares one null, so the parsed array stays small */
    char *body = array_body("{\"ind\": \"sma:2\", \"close\": [", "null", FC_QUANT_MAX_VALUES + 1);
    CHECK(body && post(IND, body, &rs) && rs.status == 413 &&
          strstr(rs.body, "close: 10000001 values, more than the 10000000"));
    free(rs.body), free(body);
    rs.body = NULL;
    /* 200,000 points x 60 columns = 12,000,000 cells */
    char head[1024] = "{\"ind\": \"";
    for (int i = 1; i <= 60; i++) sprintf(head + strlen(head), "%ssma:%d", i > 1 ? "," : "", i);
    strcat(head, "\", \"close\": [");
    body = array_body(head, "1", 200000);
    CHECK(body && post(IND, body, &rs) && rs.status == 413 && strstr(rs.body, "the answer would hold 12000000 values"));
    free(rs.body), free(body);
    body = array_body("{\"call\": true, \"S\": 100, \"K\": 100, \"T\": 1, \"price\": [", "null", FC_QUANT_MAX_VALUES + 1);
    rs.body = NULL;
    CHECK(body && post(IV_PATH, body, &rs) && rs.status == 413 &&
          strstr(rs.body, "price: 10000001 options, more than the 10000000"));
    free(rs.body), free(body);
}

static void test_not_ours(void) {
    fc_http_response rs;
    const char *paths[] = {"/v1/quant/options", "/v1/quant/option/", "/v1/quant", "/v1/quant/indicators/x",
                           "/v1/models/a/forecast", "/"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        CHECK(call("POST", paths[i], CT, "{}", &rs) == 0);
        CHECK(rs.status == 0 && rs.body == NULL);
    }
}

int main(void) {
    test_option_answers();
    test_american_answers();
    test_barrier_answers();
    test_greeks_answers();
    test_implied_vol_one();
    test_implied_vol_many();
    test_indicators_answers();
    test_indicators_small();
    test_bad_bodies();
    test_too_many();
    test_value_limits();
    test_not_ours();
    return CHECK_DONE();
}
