/* POST /v1/quant/implied-vol (quant_handlers.h): `fcast quant implied-vol`.
 * Keys are its flags: call/put (or type "call"/"put"), price, S, K, r, q,
 * T. All numbers: one option, answered with the object `fcast quant
 * implied-vol --json` prints (fcast_implied_vol_json). Any of them an
 * array: many options, one per index (a number given for all of them),
 * answered {"implied_vol": [...]}; a price outside the no-arbitrage
 * bounds is an error naming its option, or with "bad-rows": "report" a
 * null there and its reason in a parallel "error" array (null for the
 * options solved), as the CLI's --bad-rows report writes its CSV. */
#include "quant_handlers.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fcast.h"
#include "json_text.h"
#include "quant_json.h"
#include "quant_routes.h"

#define IV_KEYS "call, put, type, price, S, K, r, q, T, bad-rows"

enum { IV_PRICE, IV_S, IV_K, IV_R, IV_Q, IV_T, N_IV };
static const char *const IV_NAMES[N_IV] = {"price", "S", "K", "r", "q", "T"};

typedef struct {
    const json_t *value[N_IV];   /* a number or an array of numbers; NULL: not given */
    const json_t *type;          /* "type": a string or an array of strings */
    int call, put, report;
    size_t n;                    /* options; 0: one, from numbers only */
    int *types;
    double *col[N_IV];
    double *vol;
    int *status;
} iv_request;

static void iv_free(iv_request *q) {
    free(q->types), free(q->vol), free(q->status);
    for (int c = 0; c < N_IV; c++) free(q->col[c]);
}

static int iv_column(const char *key) {
    for (int c = 0; c < N_IV; c++)
        if (!strcmp(key, IV_NAMES[c])) return c;
    return -1;
}

/* The options' count from the arrays given (0 if none): all of one length. */
static fc_status count_options(iv_request *q) {
    const char *first = NULL;
    const json_t *all[N_IV + 1];
    const char *names[N_IV + 1];
    for (int c = 0; c < N_IV; c++) all[c] = q->value[c], names[c] = IV_NAMES[c];
    all[N_IV] = q->type, names[N_IV] = "type";
    for (int c = 0; c <= N_IV; c++) {
        if (!all[c] || !json_is_array(all[c])) continue;
        size_t n = json_array_size(all[c]);
        if (n == 0) return fc_error(FC_ERR_INVALID, "%s: an empty array (no options)", names[c]);
        if (n > FC_QUANT_MAX_VALUES)
            return fc_error(FC_ERR_MEMORY, "%s: %zu options, more than the %u a request may hold", names[c], n,
                            FC_QUANT_MAX_VALUES);
        if (q->n && n != q->n)
            return fc_error(FC_ERR_INVALID, "%s: %zu values, but %s has %zu: one per option", names[c], n, first,
                            q->n);
        if (!q->n) q->n = n, first = names[c];
    }
    return FC_OK;
}

static fc_status read_keys(const json_t *root, iv_request *q) {
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)root, key, v) {
        int c = iv_column(key);
        if (c >= 0) {
            if (!json_is_number(v) && !json_is_array(v))
                return fc_error(FC_ERR_INVALID, "%s: expected a number or an array of numbers, got %s", key,
                                fc_quant_json_kind(v));
            q->value[c] = v;
        } else if (!strcmp(key, "call") || !strcmp(key, "put")) {
            if (!json_is_boolean(v))
                return fc_error(FC_ERR_INVALID, "%s: expected true or false, got %s", key, fc_quant_json_kind(v));
            *(key[0] == 'c' ? &q->call : &q->put) = json_is_true(v);
        } else if (!strcmp(key, "type")) {
            if (!json_is_string(v) && !json_is_array(v))
                return fc_error(FC_ERR_INVALID, "type: expected \"call\", \"put\" or an array of them, got %s",
                                fc_quant_json_kind(v));
            q->type = v;
        } else if (!strcmp(key, "bad-rows")) {
            const char *s = json_is_string(v) ? json_string_value(v) : NULL;
            if (!s || (strcmp(s, "fail") && strcmp(s, "report")))
                return fc_error(FC_ERR_INVALID, "bad-rows: expected \"fail\" or \"report\"%s", s ? "" : " (a string)");
            q->report = !strcmp(s, "report");
        } else {
            return fc_quant_unknown_key(key, IV_KEYS);
        }
    }
    return FC_OK;
}

/* One type string: 1 call, 0 put, -1 neither. */
static int type_of(const json_t *s) {
    const char *t = json_is_string(s) ? json_string_value(s) : "";
    return !strcmp(t, "call") ? FCAST_CALL : !strcmp(t, "put") ? FCAST_PUT : -1;
}

/* The options' types: call/put for all, or "type" (one, or one each). */
static fc_status read_types(iv_request *q, size_t n) {
    if (q->type && (q->call || q->put))
        return fc_error(FC_ERR_INVALID, "type: give either type or call/put, not both");
    if (!q->type && q->call == q->put)
        return fc_error(FC_ERR_INVALID, "give exactly one of call and put (or type)");
    if (!(q->types = fc_malloc(n * sizeof *q->types, "type"))) return FC_ERR_MEMORY;
    for (size_t i = 0; i < n; i++) {
        const json_t *t = q->type && json_is_array(q->type) ? json_array_get(q->type, i) : q->type;
        q->types[i] = t ? type_of(t) : q->call ? FCAST_CALL : FCAST_PUT;
        if (q->types[i] < 0 && json_is_array(q->type))
            return fc_error(FC_ERR_INVALID, "type[%zu]: expected \"call\" or \"put\"", i);
        if (q->types[i] < 0) return fc_error(FC_ERR_INVALID, "type: expected \"call\" or \"put\"");
    }
    return FC_OK;
}

/* Each column as n numbers: an array's, or a number's for every option;
 * r and q default to 0, price, S, K and T are required. */
static fc_status read_columns(iv_request *q, size_t n) {
    for (int c = 0; c < N_IV; c++) {
        const json_t *v = q->value[c];
        if (!v && c != IV_R && c != IV_Q)
            return fc_error(FC_ERR_INVALID, "%s: required (as --%s is by fcast quant implied-vol)", IV_NAMES[c],
                            IV_NAMES[c]);
        if (!(q->col[c] = fc_malloc(n * sizeof(double), IV_NAMES[c]))) return FC_ERR_MEMORY;
        for (size_t i = 0; i < n; i++) {
            const json_t *x = v && json_is_array(v) ? json_array_get(v, i) : v;
            if (x && !json_is_number(x))
                return fc_error(FC_ERR_INVALID, "%s[%zu]: expected a number, got %s", IV_NAMES[c], i,
                                fc_quant_json_kind(x));
            q->col[c][i] = x ? json_number_value(x) : 0.0;
        }
    }
    return FC_OK;
}

static fc_status read_request(const json_t *root, iv_request *q) {
    FC_TRY(read_keys(root, q));
    FC_TRY(count_options(q));
    if (!q->n && q->report)
        return fc_error(FC_ERR_INVALID, "bad-rows: is for many options (arrays); one option's bad price is an error");
    size_t n = q->n ? q->n : 1;
    FC_TRY(read_types(q, n));
    return read_columns(q, n);
}

/* One option: the CLI's message (run_one: "option 0: " dropped, a field
 * named as its flag), and its --json object. */
static fc_status solve_one(iv_request *q, char **text) {
    double vol;
    fcast_option_arrays o = {1, q->types, q->col[IV_S], q->col[IV_K], q->col[IV_R], q->col[IV_Q], NULL, q->col[IV_T]};
    if (fcast_implied_vol(&o, q->col[IV_PRICE], &vol, NULL) != FC_OK) {
        const char *msg = fc_last_error(), *rest = strstr(msg, "option 0: ");
        rest = rest ? rest + 10 : msg;
        int field = strchr("SKrqT", rest[0]) && rest[0] && rest[1] == ' ';   /* "T = -1: ..." names --T */
        if (!strncmp(rest, "price =", 7)) field = 1;
        return fc_error(FC_ERR_INVALID, "%s%s", field ? "--" : "", rest);
    }
    *text = fcast_implied_vol_json(q->types[0], q->col[IV_S][0], q->col[IV_K][0], q->col[IV_R][0], q->col[IV_Q][0],
                                   q->col[IV_T][0], q->col[IV_PRICE][0], vol);
    return *text ? FC_OK : FC_ERR_MEMORY;
}

/* The CLI's reasons (cmd_quant_implied_vol.c), for report and for errors. */
static const char *reason(int status) {
    switch (status) {
    case FCAST_IV_BELOW_LOWER: return "price below the lower bound (discounted intrinsic value)";
    case FCAST_IV_ABOVE_UPPER: return "price at or above the upper bound";
    default: return "no convergence";
    }
}

/* Without report, the first option without a volatility is the error. */
static fc_status first_bad(const iv_request *q) {
    for (size_t i = 0; i < q->n; i++) {
        if (q->status[i] == FCAST_IV_OK) continue;
        double S = q->col[IV_S][i], K = q->col[IV_K][i], r = q->col[IV_R][i], d = q->col[IV_Q][i], T = q->col[IV_T][i];
        int call = q->types[i] == FCAST_CALL;
        double lower = fmax(call ? S * exp(-d * T) - K * exp(-r * T) : K * exp(-r * T) - S * exp(-d * T), 0.0);
        double upper = call ? S * exp(-d * T) : K * exp(-r * T);
        return fc_error(FC_ERR_INVALID, "option %zu: price %.17g of the %s: %s (lower %.17g, upper %.17g); "
                        "\"bad-rows\": \"report\" answers such options with null and the reason", i,
                        q->col[IV_PRICE][i], call ? "call" : "put", reason(q->status[i]), lower, upper);
    }
    return FC_OK;
}

/* {"implied_vol": [...]} (%.17g, null where none), with "error" too under report. */
static char *render(const iv_request *q) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    fputs("{\"implied_vol\": [", f);
    for (size_t i = 0; i < q->n; i++) {
        fputs(i ? ", " : "", f);
        if (q->status[i] == FCAST_IV_OK) fprintf(f, "%.17g", q->vol[i]);
        else fputs("null", f);
    }
    if (q->report) {
        fputs("], \"error\": [", f);
        for (size_t i = 0; i < q->n; i++) {
            fputs(i ? ", " : "", f);
            if (q->status[i] == FCAST_IV_OK) fputs("null", f);
            else fc_json_put_string(f, reason(q->status[i]));
        }
    }
    fputs("]}", f);
    if (fclose(f) != 0 || !text) {
        free(text);
        return NULL;
    }
    return text;
}

static fc_status solve_many(iv_request *q, char **text) {
    q->vol = fc_malloc(q->n * sizeof *q->vol, "implied_vol");
    q->status = fc_malloc(q->n * sizeof *q->status, "implied_vol");
    if (!q->vol || !q->status) return FC_ERR_MEMORY;
    fcast_option_arrays o = {q->n, q->types, q->col[IV_S], q->col[IV_K], q->col[IV_R], q->col[IV_Q], NULL,
                             q->col[IV_T]};
    if (fcast_implied_vol(&o, q->col[IV_PRICE], q->vol, q->status) != FC_OK) {
        /* "fcast_implied_vol: option 3: S = -1: ..." -> "option 3: S = -1: ..." */
        const char *msg = fc_last_error(), *at = strstr(msg, "option ");
        return fc_error(FC_ERR_INVALID, "%s", at ? at : msg);
    }
    if (!q->report) FC_TRY(first_bad(q));
    *text = render(q);
    return *text ? FC_OK : fc_error(FC_ERR_MEMORY, "out of memory writing the answer");
}

void fc_quant_implied_vol_route(const fc_http_request *rq, fc_http_response *rs) {
    json_t *root = NULL;
    iv_request q = {0};
    char *text = NULL;
    fc_status st = fc_quant_load_object(rq, &root);
    if (st == FC_OK) st = read_request(root, &q);
    json_decref(root);   /* the values are copied */
    if (st == FC_OK) st = q.n ? solve_many(&q, &text) : solve_one(&q, &text);
    iv_free(&q);
    if (st != FC_OK) fc_quant_reply_failure(rs, st);
    else fc_quant_reply_line(rs, text);
}
