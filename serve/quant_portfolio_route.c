/* POST /v1/quant/portfolio (quant_handlers.h): `fcast quant portfolio` on
 * the columns of the request, {"returns": {"DAX": [...], ...}} or
 * {"prices": {...}} (equal lengths, aligned by position, oldest first),
 * with the CLI's flags as keys and its combinations refused with its
 * messages, the keys named instead of the flags. The answer is the
 * library's fcast_portfolio_json, the object `--json` prints, "data"
 * "request". */
#include "quant_handlers.h"
#include "quant_json.h"
#include "quant_routes.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fcast.h"

#define PORTFOLIO_KEYS \
    "returns, prices, target-return, long-only, min-weight, max-weight, bounds, frontier, max-sharpe, " \
    "risk-free, risk-parity, budgets, shrink"

typedef struct {
    const json_t *columns;   /* returns or prices */
    int are_returns;
    const json_t *bounds, *budgets;
    const char *shrink;
    double target, min_weight, max_weight, risk_free;
    size_t frontier;
    int long_only, max_sharpe, risk_parity, target_given, min_given, max_given, frontier_given;
} pf_keys;

typedef struct {
    size_t N, T;             /* assets; returns per asset */
    const char **ids;        /* sorted, as the CLI's series (point into the request) */
    double *R;               /* T x N */
    double *lo, *hi, *budgets;
} pf_data;

static void free_data(pf_data *d) { free(d->ids), free(d->R), free(d->lo); }

static fc_status read_bool(const char *key, const json_t *v, int *out) {
    if (!json_is_boolean(v))
        return fc_error(FC_ERR_INVALID, "%s: expected true or false, got %s", key, fc_quant_json_kind(v));
    *out = json_is_true(v);
    return FC_OK;
}

static fc_status read_real(const char *key, const json_t *v, double *out) {
    if (!json_is_number(v)) return fc_error(FC_ERR_INVALID, "%s: expected a number, got %s", key, fc_quant_json_kind(v));
    *out = json_number_value(v);
    return FC_OK;
}

static fc_status read_key(const char *key, const json_t *v, pf_keys *k) {
    if (!strcmp(key, "returns") || !strcmp(key, "prices")) {
        if (k->columns) return fc_error(FC_ERR_INVALID, "returns and prices: give one of them");
        k->columns = v, k->are_returns = key[0] == 'r';
        return FC_OK;
    }
    if (!strcmp(key, "target-return")) return k->target_given = 1, read_real(key, v, &k->target);
    if (!strcmp(key, "long-only")) return read_bool(key, v, &k->long_only);
    if (!strcmp(key, "min-weight")) return k->min_given = 1, read_real(key, v, &k->min_weight);
    if (!strcmp(key, "max-weight")) return k->max_given = 1, read_real(key, v, &k->max_weight);
    if (!strcmp(key, "frontier")) return k->frontier_given = 1, fc_quant_read_size(key, v, &k->frontier);
    if (!strcmp(key, "max-sharpe")) return read_bool(key, v, &k->max_sharpe);
    if (!strcmp(key, "risk-free")) return read_real(key, v, &k->risk_free);
    if (!strcmp(key, "risk-parity")) return read_bool(key, v, &k->risk_parity);
    if (!strcmp(key, "bounds") || !strcmp(key, "budgets")) {
        if (!json_is_object(v) && !json_is_string(v))
            return fc_error(FC_ERR_INVALID, "%s: expected an object (%s) or the CLI's text (%s), got %s", key,
                            key[1] == 'o' ? "{\"DAX\": [0, 0.5]}" : "{\"DAX\": 2}",
                            key[1] == 'o' ? "\"DAX=0:0.5\"" : "\"DAX=2\"", fc_quant_json_kind(v));
        *(key[1] == 'o' ? &k->bounds : &k->budgets) = v;
        return FC_OK;
    }
    if (!strcmp(key, "shrink")) {
        if (!json_is_string(v))
            return fc_error(FC_ERR_INVALID, "shrink: expected \"sample\" or \"ledoit-wolf\", got %s", fc_quant_json_kind(v));
        k->shrink = json_string_value(v);
        return FC_OK;
    }
    return fc_quant_unknown_key(key, PORTFOLIO_KEYS);
}

static int bounded(const pf_keys *k) { return k->long_only || k->min_given || k->max_given || k->bounds; }

/* The CLI's check_flags, its messages with the keys for the flags. */
static fc_status check_keys(const pf_keys *k) {
    if (!k->columns)
        return fc_error(FC_ERR_INVALID, "returns or prices: required ({\"DAX\": [...], \"SMI\": [...]}, oldest first)");
    if (k->long_only && k->min_given) return fc_error(FC_ERR_INVALID, "long-only is min-weight 0: give one of them");
    if (!bounded(k) && (k->frontier_given || k->max_sharpe))
        return fc_error(FC_ERR_INVALID, "%s needs bounds on the weights: add long-only (or min-weight, max-weight, "
                        "bounds)", k->frontier_given ? "frontier" : "max-sharpe");
    if (k->frontier_given && (k->frontier < 2 || k->frontier > FCAST_PORTFOLIO_MAX_FRONTIER))
        return fc_error(FC_ERR_INVALID, "frontier %zu: expected 2 to %d points", k->frontier,
                        FCAST_PORTFOLIO_MAX_FRONTIER);
    if (k->budgets && !k->risk_parity) return fc_error(FC_ERR_INVALID, "budgets needs risk-parity");
    if (strcmp(k->shrink, "sample") && strcmp(k->shrink, "ledoit-wolf"))
        return fc_error(FC_ERR_INVALID, "shrink %s: expected sample or ledoit-wolf", k->shrink);
    return FC_OK;   /* JSON has no NaN or infinity: the CLI's finiteness checks hold already */
}

static int by_id(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The column of asset id, checked: numbers, as many as the others. */
static fc_status read_column(const pf_keys *k, const char *id, pf_data *d, size_t j) {
    const char *key = k->are_returns ? "returns" : "prices";
    const json_t *col = json_object_get(k->columns, id);
    const size_t n = json_array_size(col);
    for (size_t i = 0; i < n; i++) {
        const json_t *x = json_array_get(col, i);
        double v = json_number_value(x);
        if (!json_is_number(x))
            return fc_error(FC_ERR_INVALID, "%s.%s[%zu]: expected a number, got %s", key, id, i, fc_quant_json_kind(x));
        if (k->are_returns && !(v > -1.0))
            return fc_error(FC_ERR_INVALID, "%s.%s[%zu]: a return must be finite and > -1, got %.17g", key, id, i, v);
        if (!k->are_returns && !(v > 0.0))
            return fc_error(FC_ERR_INVALID, "%s.%s[%zu]: returns need positive prices (send \"returns\" if these are "
                            "returns); got %.17g", key, id, i, v);
        if (k->are_returns) d->R[i * d->N + j] = v;
        else if (i) d->R[(i - 1) * d->N + j] = v / json_number_value(json_array_get(col, i - 1)) - 1.0;
    }
    return FC_OK;
}

/* The columns' shape, then their values as the CLI's returns matrix. */
static fc_status read_columns(const pf_keys *k, pf_data *d) {
    const char *key = k->are_returns ? "returns" : "prices", *id, *first = NULL;
    const json_t *col;
    if (!json_is_object(k->columns) || json_object_size(k->columns) == 0)
        return fc_error(FC_ERR_INVALID, "%s: expected an object of columns {\"DAX\": [...], ...}, got %s", key,
                        json_is_object(k->columns) ? "an empty object" : fc_quant_json_kind(k->columns));
    d->N = json_object_size(k->columns);
    if (d->N > FCAST_PORTFOLIO_MAX_ASSETS)
        return fc_error(FC_ERR_MEMORY, "%s: %zu series; a portfolio takes 1 to %d assets", key, d->N,
                        FCAST_PORTFOLIO_MAX_ASSETS);
    size_t n = 0, total = 0;
    json_object_foreach((json_t *)k->columns, id, col) {
        if (!json_is_array(col))
            return fc_error(FC_ERR_INVALID, "%s.%s: expected an array of numbers, got %s", key, id, fc_quant_json_kind(col));
        if (first && json_array_size(col) != n)
            return fc_error(FC_ERR_INVALID, "%s.%s: %zu values, but %s has %zu: the columns are aligned by position",
                            key, id, json_array_size(col), first, n);
        if (!first) first = id, n = json_array_size(col);
        total += n;
        if (total > FC_QUANT_MAX_VALUES)
            return fc_error(FC_ERR_MEMORY, "%s: more than the %u values a request may hold", key, FC_QUANT_MAX_VALUES);
    }
    const size_t need = k->are_returns ? 2 : 3;
    if (n < need)
        return fc_error(FC_ERR_INVALID, "%s: %zu values per series, a covariance needs at least %zu %s", key, n, need,
                        k->are_returns ? "returns" : "prices (2 returns)");
    d->T = n - !k->are_returns;
    d->ids = malloc(d->N * sizeof *d->ids), d->R = malloc(d->T * d->N * sizeof *d->R);
    d->lo = malloc(3 * d->N * sizeof *d->lo);
    if (!d->ids || !d->R || !d->lo) return fc_error(FC_ERR_MEMORY, "out of memory (%zu series)", d->N);
    d->hi = d->lo + d->N, d->budgets = d->hi + d->N;
    size_t j = 0;
    json_object_foreach((json_t *)k->columns, id, col) d->ids[j++] = id;
    qsort(d->ids, d->N, sizeof *d->ids, by_id);   /* the CLI's order: series sorted by id */
    for (j = 0; j < d->N; j++) FC_TRY(read_column(k, d->ids[j], d, j));
    return FC_OK;
}

static long asset_of(const pf_data *d, const char *id, size_t len) {
    for (size_t j = 0; j < d->N; j++)
        if (strlen(d->ids[j]) == len && !strncmp(d->ids[j], id, len)) return (long)j;
    return -1;
}

/* bounds or budgets as the CLI's text "ID=LO:HI,..." / "ID=B,..." (its parser's rules). */
static fc_status parse_id_text(const char *key, const char *text, const pf_data *d, int pairs, double *first,
                               double *second) {
    const char *p = text, *example = pairs ? "DAX=0:0.5,FTSE=0.1:1" : "DAX=2,FTSE=1";
    for (;;) {
        const char *eq = strchr(p, '='), *comma = strchr(p, ',');
        if (!eq || (comma && comma < eq))
            return fc_error(FC_ERR_INVALID, "%s: expected ID=%s items such as %s, got '%s'", key, pairs ? "LO:HI" : "B",
                            example, text);
        long j = asset_of(d, p, (size_t)(eq - p));
        if (j < 0) return fc_error(FC_ERR_INVALID, "%s: '%.*s' is not a series of the request", key, (int)(eq - p), p);
        char *end;
        double a = strtod(eq + 1, &end), b = NAN;
        int bad = end == eq + 1;
        if (pairs && !bad) {
            bad = *end != ':';
            if (!bad) {
                const char *q = end + 1;
                b = strtod(q, &end);
                bad = end == q;
            }
        }
        if (bad || (*end && *end != ','))
            return fc_error(FC_ERR_INVALID, "%s: expected ID=%s items such as %s, got '%s'", key, pairs ? "LO:HI" : "B",
                            example, text);
        first[j] = a;
        if (pairs) second[j] = b;
        if (!*end) return FC_OK;
        p = end + 1;
    }
}

/* bounds or budgets as an object: {"DAX": [lo, hi]} / {"DAX": 2}. */
static fc_status parse_id_object(const char *key, const json_t *o, const pf_data *d, int pairs, double *first,
                                 double *second) {
    const char *id;
    const json_t *v;
    json_object_foreach((json_t *)o, id, v) {
        long j = asset_of(d, id, strlen(id));
        if (j < 0) return fc_error(FC_ERR_INVALID, "%s: '%s' is not a series of the request", key, id);
        if (!pairs) {
            if (!json_is_number(v))
                return fc_error(FC_ERR_INVALID, "%s.%s: expected a number, got %s", key, id, fc_quant_json_kind(v));
            first[j] = json_number_value(v);
            continue;
        }
        const json_t *a = json_array_get(v, 0), *b = json_array_get(v, 1);
        if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_number(a) || !(json_is_number(b) || json_is_null(b)))
            return fc_error(FC_ERR_INVALID, "%s.%s: expected [lower, upper] (numbers; upper null: none), got %s", key,
                            id, json_is_array(v) ? "another array" : fc_quant_json_kind(v));
        first[j] = json_number_value(a);
        second[j] = json_is_null(b) ? INFINITY : json_number_value(b);
    }
    return FC_OK;
}

static fc_status parse_ids(const char *key, const json_t *v, const pf_data *d, int pairs, double *first,
                           double *second) {
    return json_is_string(v) ? parse_id_text(key, json_string_value(v), d, pairs, first, second)
                             : parse_id_object(key, v, d, pairs, first, second);
}

/* The CLI's fill_lists: bounds from min-weight, max-weight and bounds; budgets. */
static fc_status fill_lists(const pf_keys *k, pf_data *d) {
    for (size_t j = 0; j < d->N; j++) {
        d->lo[j] = k->min_given ? k->min_weight : 0.0;
        d->hi[j] = k->max_given ? k->max_weight : INFINITY;
        d->budgets[j] = 1.0;
    }
    if (k->bounds) FC_TRY(parse_ids("bounds", k->bounds, d, 1, d->lo, d->hi));
    for (size_t j = 0; j < d->N; j++)
        if (d->lo[j] > d->hi[j])
            return fc_error(FC_ERR_INVALID, "%s: lower bound %g > upper bound %g (min-weight, max-weight, bounds)",
                            d->ids[j], d->lo[j], d->hi[j]);
    if (k->budgets) FC_TRY(parse_ids("budgets", k->budgets, d, 0, d->budgets, NULL));
    return FC_OK;
}

static fc_status portfolio_answer(const json_t *root, char **text) {
    pf_keys k = {.shrink = "sample", .max_weight = INFINITY};
    pf_data d = {0};
    const char *key;
    json_t *v;
    fc_status st = FC_OK;
    json_object_foreach((json_t *)root, key, v) if (st == FC_OK) st = read_key(key, v, &k);
    if (k.long_only) k.min_weight = 0.0;
    if (st == FC_OK) st = check_keys(&k);
    if (st == FC_OK) st = read_columns(&k, &d);
    if (st == FC_OK) st = fill_lists(&k, &d);
    const int b = bounded(&k);
    const fcast_portfolio_request q = {
        .data = "request", .returns = d.R, .n_periods = d.T, .n_assets = d.N, .ids = d.ids,
        .target_given = k.target_given, .target_return = k.target, .lower = b ? d.lo : NULL,
        .upper = b ? d.hi : NULL, .frontier = k.frontier_given ? k.frontier : 0, .max_sharpe = k.max_sharpe,
        .risk_free = k.risk_free, .risk_parity = k.risk_parity, .budgets = k.budgets ? d.budgets : NULL,
        .ledoit_wolf = !strcmp(k.shrink, "ledoit-wolf")};
    if (st == FC_OK && (st = fcast_portfolio_json(&q, text)) != FC_OK) st = fc_quant_keys_not_flags(st);
    free_data(&d);
    return st;
}

void fc_quant_portfolio_route(const fc_http_request *rq, fc_http_response *rs) {
    json_t *root = NULL;
    char *text = NULL;
    fc_status st = fc_quant_load_object(rq, &root);
    if (st == FC_OK) st = portfolio_answer(root, &text);
    json_decref(root);
    if (st != FC_OK) fc_quant_reply_failure(rs, st);
    else fc_quant_reply_line(rs, text);
}
