/* The quant endpoints (see quant_routes.h): JSON bodies read into the
 * requests the CLI builds from its flags (quant/quant_request.h), the
 * service's limits, the computation, the answer. */
#include "json_text.h"
#include "quant_handlers.h"
#include "quant_json.h"
#include "quant_option_methods.h"
#include "quant_routes.h"

#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "api/serve_engine.h"
#include "fcast.h"

#define JSON FC_QUANT_JSON
#define PATH_OPTION "/v1/quant/option"
#define PATH_INDICATORS "/v1/quant/indicators"

/* ---- POST /v1/quant/option ---- */

typedef enum { F_STRING, F_BOOL, F_REAL, F_SIZE } field_kind;

typedef struct {
    const char *name; /* the flag's name, without -- */
    field_kind kind;
    size_t offset;    /* in fc_option_params */
} option_field;

#define FIELD(name, kind, member) {name, kind, offsetof(fc_option_params, member)}
static const option_field OPTION_FIELDS[] = {
    FIELD("type", F_STRING, type),   FIELD("call", F_BOOL, call),
    FIELD("put", F_BOOL, put),       FIELD("S", F_REAL, S),
    FIELD("K", F_REAL, K),           FIELD("r", F_REAL, r),
    FIELD("sigma", F_REAL, sigma),   FIELD("T", F_REAL, T),
    FIELD("q", F_REAL, q),           FIELD("paths", F_SIZE, paths),
    FIELD("steps", F_SIZE, steps),   FIELD("fixings", F_SIZE, fixings),
    FIELD("antithetic", F_BOOL, antithetic),
    FIELD("no-control-variate", F_BOOL, no_control_variate),
    FIELD("seed", F_SIZE, seed),
    FIELD("exercise", F_STRING, exercise), FIELD("method", F_STRING, method),
    FIELD("tree", F_STRING, tree),   FIELD("calibration-paths", F_SIZE, calibration_paths),
    FIELD("basis-degree", F_SIZE, degree),
    FIELD("barrier", F_STRING, barrier), FIELD("rebate", F_REAL, rebate),
    FIELD("greeks", F_STRING, greeks),
};
#undef FIELD
#define N_OPTION_FIELDS (sizeof OPTION_FIELDS / sizeof OPTION_FIELDS[0])
#define OPTION_KEYS \
    "type, call, put, S, K, r, sigma, T, q, paths, steps, fixings, antithetic, no-control-variate, seed, " \
    "exercise, method, tree, calibration-paths, basis-degree, barrier, rebate, greeks"

/* The CLI's flags have no default for these: the request must carry them. */
static const char *const OPTION_REQUIRED[] = {"S", "K", "sigma", "T"};

static fc_status read_option_field(const option_field *f, const json_t *v, fc_option_params *p) {
    char *dest = (char *)p + f->offset;
    switch (f->kind) {
    case F_STRING:
        if (!json_is_string(v))
            return fc_error(FC_ERR_INVALID, "%s: expected a string, got %s", f->name, fc_quant_json_kind(v));
        *(const char **)dest = json_string_value(v);
        return FC_OK;
    case F_BOOL:
        if (!json_is_boolean(v))
            return fc_error(FC_ERR_INVALID, "%s: expected true or false, got %s", f->name, fc_quant_json_kind(v));
        *(int *)dest = json_is_true(v);
        return FC_OK;
    case F_REAL:
        if (!json_is_number(v))
            return fc_error(FC_ERR_INVALID, "%s: expected a number, got %s", f->name, fc_quant_json_kind(v));
        *(double *)dest = json_number_value(v);
        return FC_OK;
    case F_SIZE: return fc_quant_read_size(f->name, v, (size_t *)(void *)dest);
    }
    return FC_OK;
}

static const option_field *find_option_field(const char *key) {
    for (size_t i = 0; i < N_OPTION_FIELDS; i++)
        if (!strcmp(OPTION_FIELDS[i].name, key)) return &OPTION_FIELDS[i];
    return NULL;
}

/* The body into the CLI's parameters (strings point into root). */
static fc_status read_option(const json_t *root, fc_option_params *p) {
    *p = fc_option_params_default();
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)root, key, v) {
        const option_field *f = find_option_field(key);
        if (!f) return fc_quant_unknown_key(key, OPTION_KEYS);
        FC_TRY(read_option_field(f, v, p));
    }
    for (size_t i = 0; i < sizeof OPTION_REQUIRED / sizeof *OPTION_REQUIRED; i++)
        if (!json_object_get(root, OPTION_REQUIRED[i]))
            return fc_error(FC_ERR_INVALID, "%s: required (as --%s is by fcast quant option)", OPTION_REQUIRED[i],
                            OPTION_REQUIRED[i]);
    p->steps_given = json_object_get(root, "steps") != NULL;
    p->fixings_given = json_object_get(root, "fixings") != NULL;
    p->paths_given = json_object_get(root, "paths") != NULL;
    p->seed_given = json_object_get(root, "seed") != NULL;
    p->tree_given = json_object_get(root, "tree") != NULL;
    p->rebate_given = json_object_get(root, "rebate") != NULL;
    p->lsm_flags_given = json_object_get(root, "calibration-paths") || json_object_get(root, "basis-degree");
    return FC_OK;
}

/* mc_options.c's bound on steps and fixings: beyond it, its message. */
#define LIBRARY_MAX_STEPS 100000

/* The service's bounds, tighter than the CLI's (minutes of work there):
 * a request holds a connection thread and its cores while it runs. Steps
 * or fixings outside the library's range are left to its message. */
static fc_status check_work(const fc_mc_option *o) {
    if (o->paths > FC_QUANT_MAX_PATHS)
        return fc_error(FC_ERR_MEMORY, "paths: %llu, more than the %llu paths a request may take on the server "
                        "(fcast quant option takes more)", (unsigned long long)o->paths, FC_QUANT_MAX_PATHS);
    unsigned long long per_path = o->asian ? o->n_fixings : o->steps;
    if (per_path < 1 || per_path > LIBRARY_MAX_STEPS) return FC_OK;
    if ((unsigned long long)o->paths * per_path > FC_QUANT_MAX_PATH_STEPS)
        return fc_error(FC_ERR_MEMORY, "paths: %llu x %s %llu = %.3g path steps, more than the %.0e a request may "
                        "take on the server: use fewer paths or %s", (unsigned long long)o->paths,
                        o->asian ? "fixings" : "steps", per_path, (double)o->paths * (double)per_path,
                        (double)FC_QUANT_MAX_PATH_STEPS, o->asian ? "fixings" : "steps");
    return FC_OK;
}

/* *text is NULL when the JSON could not be written (out of memory). The
 * European and Asian Monte Carlo here, the other methods in
 * quant_option_methods.c, after the CLI's checks of the combination. */
static fc_status option_answer(const json_t *root, char **text) {
    fc_option_params p;
    fc_mc_option o;
    fc_mc_result r;
    fc_bs_greeks g;
    FC_TRY(read_option(root, &p));
    FC_TRY(fc_quant_option_other(&p, text));   /* trees, LSM, barriers: answered there */
    if (*text) return FC_OK;
    FC_TRY(fc_option_from_params(&p, &o));   /* backend NULL: the CPU */
    FC_TRY(check_work(&o));
    FC_TRY(fc_option_price(&o, &r, &g));
    if (p.greeks) return fc_quant_option_greeks(&p, &o, &r, &g, text);
    *text = fc_option_json(&o, &r, &g);
    return FC_OK;
}

static void option(const fc_http_request *rq, fc_http_response *rs) {
    json_t *root = NULL;
    char *text = NULL;
    fc_status st = fc_quant_load_object(rq, &root);
    if (st == FC_OK) st = option_answer(root, &text);
    json_decref(root);
    if (st != FC_OK) fc_quant_reply_failure(rs, st);
    else if (!text) fc_http_reply_error(rs, 500, fc_last_error());
    else fc_quant_reply_line(rs, text);
}

/* ---- POST /v1/quant/indicators ---- */

/* The price columns a request may send, as the CLI's OHLCV columns. */
#define N_PRICES 6
static const char *const price_keys[N_PRICES] = {"open", "high", "low", "close", "volume", "periods"};
#define INDICATOR_KEYS "open, high, low, close, volume, periods, ind, nan"

typedef struct {
    double *col[N_PRICES];   /* NaN where the request has null */
    size_t n;                /* values in every column sent */
    int first;               /* the first column sent, for messages */
    size_t n_null_close;
    fcast_indicator_set *set;
    fcast_indicator_options opt;
    double **outs;           /* (n_columns) each (n) */
    size_t n_columns;
} ind_request;

static void ind_free(ind_request *q) {
    for (size_t c = 0; q->outs && c < q->n_columns; c++) free(q->outs[c]);
    free(q->outs);
    for (int r = 0; r < N_PRICES; r++) free(q->col[r]);
    fcast_indicator_set_free(q->set);
}

/* One price column: numbers or null, as long as the others. */
static fc_status read_prices(const char *key, int role, const json_t *v, ind_request *q) {
    if (!json_is_array(v)) return fc_error(FC_ERR_INVALID, "%s: expected an array of numbers, got %s", key, fc_quant_json_kind(v));
    size_t n = json_array_size(v);
    if (n == 0) return fc_error(FC_ERR_INVALID, "%s: no values", key);
    if (n > FC_QUANT_MAX_VALUES)
        return fc_error(FC_ERR_MEMORY, "%s: %zu values, more than the %u a request may hold", key, n,
                        FC_QUANT_MAX_VALUES);
    if (q->n && n != q->n)
        return fc_error(FC_ERR_INVALID, "%s: %zu values, but %s has %zu: every price column has one per bar", key, n,
                        price_keys[q->first], q->n);
    if (!q->n) q->n = n, q->first = role;
    if (!(q->col[role] = fc_malloc(n * sizeof(double), key))) return FC_ERR_MEMORY;
    for (size_t i = 0; i < n; i++) {
        const json_t *x = json_array_get(v, i);
        if (!json_is_number(x) && !json_is_null(x))
            return fc_error(FC_ERR_INVALID, "%s[%zu]: expected a number or null, got %s", key, i, fc_quant_json_kind(x));
        q->col[role][i] = json_is_null(x) ? NAN : json_number_value(x);
        if (role == 3) q->n_null_close += json_is_null(x);
    }
    return FC_OK;
}

/* Specs in a string: one per comma-separated item, as --ind counts them. */
static size_t count_items(const char *s) {
    size_t n = 1;
    for (; *s; s++) n += *s == ',';
    return n;
}

/* "ind" as --ind's text: a string, or an array of strings joined by commas
 * (then a spec given twice across them is caught as in one string).
 * Counted before parsing: a string of a million commas must not make
 * the parser allocate a million specs. */
static fc_status ind_text(const json_t *v, char **text) {
    if (json_is_string(v)) {
        if (count_items(json_string_value(v)) > FC_IND_MAX_SPECS)
            return fc_error(FC_ERR_INVALID, "ind: at most %d indicators at once", FC_IND_MAX_SPECS);
        *text = strdup(json_string_value(v));
        return *text ? FC_OK : fc_error(FC_ERR_MEMORY, "out of memory reading ind");
    }
    if (!json_is_array(v) || json_array_size(v) == 0)
        return fc_error(FC_ERR_INVALID, "ind: expected a string (\"sma:20,rsi:14\") or a non-empty array of "
                        "strings, got %s", json_is_array(v) ? "an empty array" : fc_quant_json_kind(v));
    size_t items = 0, len = 0;
    for (size_t i = 0; i < json_array_size(v); i++) {
        const json_t *s = json_array_get(v, i);
        if (!json_is_string(s)) return fc_error(FC_ERR_INVALID, "ind[%zu]: expected a string, got %s", i, fc_quant_json_kind(s));
        items += count_items(json_string_value(s));
        len += json_string_length(s) + 1;
        if (items > FC_IND_MAX_SPECS)
            return fc_error(FC_ERR_INVALID, "ind: at most %d indicators at once", FC_IND_MAX_SPECS);
    }
    *text = fc_malloc(len, "ind");
    if (!*text) return FC_ERR_MEMORY;
    (*text)[0] = '\0';
    for (size_t i = 0; i < json_array_size(v); i++) {
        if (i) strcat(*text, ",");
        strcat(*text, json_string_value(json_array_get(v, i)));
    }
    return FC_OK;
}

/* The specs, with the library's messages behind "ind: " as --ind's are. */
static fc_status read_ind(const json_t *v, ind_request *q) {
    char *text = NULL;
    FC_TRY(ind_text(v, &text));
    fc_status st = fcast_indicator_set_parse(text, &q->set);
    free(text);
    if (st != FC_OK) {
        /* "fcast_indicator_set_parse: specs 'sma:0': ..." -> "ind: 'sma:0': ..." */
        const char *msg = fc_last_error(), *at = strstr(msg, "specs");
        const char *rest = at ? at + strlen("specs") : msg;
        return fc_error(st, rest[0] == ':' ? "ind%s" : "ind: %s", rest[0] == ' ' ? rest + 1 : rest);
    }
    q->n_columns = fcast_indicator_set_n_columns(q->set);
    return FC_OK;
}

static fc_status read_nan(const json_t *v, ind_request *q) {
    if (!json_is_string(v))
        return fc_error(FC_ERR_INVALID, "nan: expected \"poison\" or \"restart\", got %s", fc_quant_json_kind(v));
    fc_nan_policy p;
    FC_TRY(fc_ind_parse_nan_policy(json_string_value(v), &p));   /* the message names --nan */
    q->opt.nan = p == FC_NAN_RESTART ? FCAST_NAN_RESTART : FCAST_NAN_POISON;
    return FC_OK;
}

static int price_role(const char *key) {
    for (int r = 0; r < N_PRICES; r++)
        if (!strcmp(key, price_keys[r])) return r;
    return -1;
}

static fc_status read_indicators(const json_t *root, ind_request *q) {
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)root, key, v) {
        int role = price_role(key);
        if (role >= 0) FC_TRY(read_prices(key, role, v, q));
        else if (!strcmp(key, "ind")) FC_TRY(read_ind(v, q));
        else if (!strcmp(key, "nan")) FC_TRY(read_nan(v, q));
        else return fc_quant_unknown_key(key, INDICATOR_KEYS);
    }
    if (!q->n) return fc_error(FC_ERR_INVALID, "close: required (the prices, oldest first; open, high, low, volume "
                               "as TA-Lib's functions need them)");
    if (!q->set) return fc_error(FC_ERR_INVALID, "ind: required (e.g. \"sma:20,rsi:14,atr:14\", as --ind)");
    if (q->n > FC_QUANT_MAX_VALUES / q->n_columns)
        return fc_error(FC_ERR_MEMORY, "the answer would hold %zu values (%zu points x %zu columns), more than the "
                        "%u a request may hold", q->n * q->n_columns, q->n, q->n_columns, FC_QUANT_MAX_VALUES);
    return FC_OK;
}

/* The bars of close a spec runs over, as the library splits them: from
 * the first value to the end (poison), or the longest run between nulls
 * (restart). A spec gives values on more than its lookback points. */
static size_t usable_points(const ind_request *q) {
    const double *y = q->col[3] ? q->col[3] : q->col[q->first];
    size_t i = 0, run = 0, longest = 0;
    while (i < q->n && isnan(y[i])) i++;   /* leading nulls are skipped under both */
    if (q->opt.nan != FCAST_NAN_RESTART) return q->n - i;
    for (; i < q->n; i++) {
        run = isnan(y[i]) ? 0 : run + 1;
        if (run > longest) longest = run;
    }
    return longest;
}

/* A spec that leaves the series without a single value is an error, as in
 * the CLI when it leaves every series empty: the spec asks too much of the data. */
static fc_status report_short(const ind_request *q, const uint8_t *none) {
    for (size_t j = 0; j < fcast_indicator_set_size(q->set); j++) {
        if (!none[j]) continue;
        const char *text = fcast_indicator_set_spec(q->set, j);
        size_t lookback = 0;
        FC_TRY(fcast_indicator_lookback(text, &lookback));
        const char *s = lookback ? "s" : "";
        if (q->col[3] && q->n_null_close == q->n)
            return fc_error(FC_ERR_INVALID, "ind: '%s' needs at least %zu point%s (its lookback, %zu, plus one) but "
                            "close holds only nulls", text, lookback + 1, s, lookback);
        if (q->opt.nan == FCAST_NAN_RESTART)
            return fc_error(FC_ERR_INVALID, "ind: '%s' needs at least %zu value%s in a row (its lookback, %zu, plus "
                            "one; nan restart starts afresh after each null) but the longest run of values in close "
                            "has %zu", text, lookback + 1, s, lookback, usable_points(q));
        return fc_error(FC_ERR_INVALID, "ind: '%s' needs at least %zu point%s (its lookback, %zu, plus one) but close "
                        "has %zu from its first value", text, lookback + 1, s, lookback, usable_points(q));
    }
    return FC_OK;
}

/* "fcast_indicator_set_compute: 'atr:14' reads the column 'high', which
 * the data lacks" -> "ind: 'atr:14' reads the column 'high', which the
 * request lacks" */
static fc_status compute_failed(fc_status st) {
    const char *msg = fc_last_error(), *colon = strchr(msg, ':');
    char text[FC_ERROR_CAP];
    snprintf(text, sizeof text, "%s", colon ? colon + 2 : msg);
    char *data = strstr(text, "the data lacks");
    if (!data) return fc_error(st, "ind: %s", text);
    *data = '\0';
    return fc_error(st, "ind: %sthe request lacks%s", text, data + strlen("the data lacks"));
}

static fc_status compute(ind_request *q) {
    q->outs = fc_calloc(q->n_columns, sizeof *q->outs, "output columns");
    if (!q->outs) return FC_ERR_MEMORY;
    for (size_t c = 0; c < q->n_columns; c++)
        if (!(q->outs[c] = fc_malloc(q->n * sizeof(double), "indicator output"))) return FC_ERR_MEMORY;
    const char *names[N_PRICES];
    const double *values[N_PRICES];
    size_t n_cols = 0;
    for (int r = 0; r < N_PRICES; r++)
        if (q->col[r]) names[n_cols] = price_keys[r], values[n_cols++] = q->col[r];
    fcast_columns cols = {n_cols, names, values};
    uint8_t none[FCAST_INDICATOR_MAX_SPECS];
    int64_t indptr[2] = {0, (int64_t)q->n};
    fc_status st = fcast_indicator_set_compute_columns(q->set, &q->opt, 1, indptr, &cols, q->outs, q->n_columns, none);
    if (st != FC_OK) return compute_failed(st);
    return report_short(q, none);
}

/* {"column": [v, ...], ...} in the CLI's column order; each number as the
 * CLI writes its CSV cell (%.17g: the same bits read back; a pattern's or
 * an index's whole numbers as integers), null where the cell is empty
 * (NaN) or where JSON has no number (infinite). */
static char *render(const ind_request *q, size_t *len) {
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f) return NULL;
    fputc('{', f);
    for (size_t c = 0; c < q->n_columns; c++) {
        fputs(c ? ", " : "", f);
        fc_json_put_string(f, fcast_indicator_set_column(q->set, c));
        fputs(": [", f);
        const char *fmt = fcast_indicator_set_column_is_integer(q->set, c) ? "%.0f" : "%.17g";
        for (size_t i = 0; i < q->n; i++) {
            double v = q->outs[c][i];
            if (i) fputs(", ", f);
            if (isfinite(v)) fprintf(f, fmt, v);
            else fputs("null", f);
        }
        fputc(']', f);
    }
    fputs("}\n", f);
    if (fclose(f) != 0 || !text) {
        free(text);
        return NULL;
    }
    return text;
}

static void indicators(const fc_http_request *rq, fc_http_response *rs) {
    json_t *root = NULL;
    ind_request q = {.opt = {FCAST_NAN_POISON, 0, NULL}};   /* device NULL: the CPU */
    fc_status st = fc_quant_load_object(rq, &root);
    if (st == FC_OK) st = read_indicators(root, &q);
    json_decref(root);   /* before computing: the values are copied */
    if (st == FC_OK) st = compute(&q);
    size_t len = 0;
    char *text = st == FC_OK ? render(&q, &len) : NULL;
    ind_free(&q);
    if (st != FC_OK) fc_quant_reply_failure(rs, st);
    else if (!text) fc_http_reply_error(rs, 500, "out of memory writing the answer");
    else *rs = (fc_http_response){.status = 200, .content_type = JSON, .body = text, .len = len};
}

/* ---- routing ---- */

typedef void (*quant_handler)(const fc_http_request *rq, fc_http_response *rs);

static const struct {
    const char *path;
    quant_handler answer;
} ROUTES[] = {
    {PATH_OPTION, option},
    {PATH_INDICATORS, indicators},
    {"/v1/quant/implied-vol", fc_quant_implied_vol_route},
    {"/v1/quant/portfolio", fc_quant_portfolio_route},
    {"/v1/quant/backtest", fc_quant_backtest_route},
};

int fc_quant_route(const fc_http_request *rq, fc_http_response *rs) {
    quant_handler answer = NULL;
    for (size_t i = 0; i < sizeof ROUTES / sizeof *ROUTES && !answer; i++)
        if (!strcmp(rq->path, ROUTES[i].path)) answer = ROUTES[i].answer;
    if (!answer) return 0;
    if (strcmp(rq->method, "POST") != 0) {
        fc_http_method_not_allowed(rs, "POST");
    } else if (!fc_http_json_body(rq)) {
        char msg[160];
        snprintf(msg, sizeof msg, "Content-Type %.100s: send application/json", rq->content_type);
        fc_http_reply_error(rs, 415, msg);
    } else {
        answer(rq, rs);
    }
    return 1;
}
