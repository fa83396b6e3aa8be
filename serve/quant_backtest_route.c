/* POST /v1/quant/backtest (quant_handlers.h): `fcast quant backtest`'s
 * portfolio engine on the request's prices, {"close": {"SYM": [...], ...}}
 * (or one array; null a missing bar, skipped as the CLI skips an empty
 * close), a signal as the caller's positions or a rule (text in the CLI's
 * grammar, or a built-in rule with its range keys), the CLI's cost and
 * sizing flags as keys. The answer is the line `--json` prints, from the
 * same writer (fcast_backtest_json; "data" "request"), plus the trade log
 * and the equity curve of one combination when asked, with the columns of
 * the CLI's --trades and --equity CSVs. */
#include "quant_handlers.h"
#include "quant_json.h"
#include "quant_routes.h"

#include <jansson.h>
#include <math.h>
#include <omp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fcast.h"

#define BACKTEST_KEYS \
    "close, open, high, low, volume, positions, rule, fast, slow, period, lower, upper, k, short, cost-bps, " \
    "slippage-bps, fixed-cost, capital, size, vol-target, vol-window, max-leverage, stop-loss, take-profit, " \
    "periods-per-year, combination, trades, equity"
/* Backtests x bars a request may run: 10^9 bar visits, a few seconds on 2 cores. */
#define MAX_BAR_VISITS 1e9
/* The value the answer names a one-array request's series by. */
#define ONE_SERIES "series"

enum { C_CLOSE, C_OPEN, C_HIGH, C_LOW, C_VOLUME, C_POSITIONS, N_COLUMNS };
static const char *const COLUMN_KEYS[N_COLUMNS] = {"close", "open", "high", "low", "volume", "positions"};
enum { F_FAST, F_SLOW, F_PERIOD, F_LOWER, F_UPPER, F_K, N_RANGES };
static const char *const RANGE_KEYS[N_RANGES] = {"fast", "slow", "period", "lower", "upper", "k"};

typedef struct {
    const json_t *col[N_COLUMNS];
    const char *rule;
    char range_text[N_RANGES][64];
    const char *ranges[N_RANGES];
    int allow_short, trades, equity;
    const json_t *combination;
    fcast_backtest_config c;
} bt_keys;

typedef struct {
    size_t S, rows;
    int one_array;         /* close was one array, not an object of series */
    const char **ids;      /* sorted, as the CLI's series */
    int64_t *indptr;       /* S + 1 */
    double *v[N_COLUMNS];  /* rows each, NaN where null; NULL when not sent */
} bt_data;

static void free_data(bt_data *d) {
    free(d->ids), free(d->indptr);
    for (int c = 0; c < N_COLUMNS; c++) free(d->v[c]);
}

static fc_status read_real(const char *key, const json_t *v, double *out) {
    if (!json_is_number(v)) return fc_error(FC_ERR_INVALID, "%s: expected a number, got %s", key, fc_quant_json_kind(v));
    *out = json_number_value(v);
    return FC_OK;
}

static fc_status read_bool(const char *key, const json_t *v, int *out) {
    if (!json_is_boolean(v))
        return fc_error(FC_ERR_INVALID, "%s: expected true or false, got %s", key, fc_quant_json_kind(v));
    *out = json_is_true(v);
    return FC_OK;
}

/* A range key: the CLI's text ("5:50:5") or one number. */
static fc_status read_range(int f, const json_t *v, bt_keys *k) {
    if (json_is_string(v)) k->ranges[f] = json_string_value(v);
    else if (json_is_number(v)) {
        snprintf(k->range_text[f], sizeof k->range_text[f], "%.17g", json_number_value(v));
        k->ranges[f] = k->range_text[f];
    } else
        return fc_error(FC_ERR_INVALID, "%s: expected a range \"start:stop:step\" or a number, got %s", RANGE_KEYS[f],
                        fc_quant_json_kind(v));
    return FC_OK;
}

/* size: the CLI's "fixed:F", or F. */
static fc_status read_size_key(const json_t *v, bt_keys *k) {
    if (json_is_number(v)) return k->c.size_fraction = json_number_value(v), FC_OK;
    const char *s = json_string_value(v);
    char *end = NULL;
    double f = s && !strncmp(s, "fixed:", 6) ? strtod(s + 6, &end) : NAN;
    if (isnan(f) || end == s + 6 || *end)
        return fc_error(FC_ERR_INVALID, "size: expected fixed:F (or F) with F a fraction of equity, got %s",
                        s ? s : fc_quant_json_kind(v));
    k->c.size_fraction = f;
    return FC_OK;
}

static fc_status read_config_key(const char *key, const json_t *v, bt_keys *k, int *known) {
    static const struct {
        const char *key;
        size_t offset;
    } REALS[] = {{"cost-bps", offsetof(fcast_backtest_config, cost_bps)},
                 {"slippage-bps", offsetof(fcast_backtest_config, slippage_bps)},
                 {"fixed-cost", offsetof(fcast_backtest_config, fixed_cost)},
                 {"capital", offsetof(fcast_backtest_config, capital)},
                 {"vol-target", offsetof(fcast_backtest_config, vol_target)},
                 {"max-leverage", offsetof(fcast_backtest_config, max_leverage)},
                 {"stop-loss", offsetof(fcast_backtest_config, stop_loss)},
                 {"take-profit", offsetof(fcast_backtest_config, take_profit)},
                 {"periods-per-year", offsetof(fcast_backtest_config, periods_per_year)}};
    *known = 1;
    for (size_t i = 0; i < sizeof REALS / sizeof *REALS; i++)
        if (!strcmp(key, REALS[i].key)) return read_real(key, v, (double *)(void *)((char *)&k->c + REALS[i].offset));
    if (!strcmp(key, "vol-window")) return fc_quant_read_size(key, v, &k->c.vol_window);
    if (!strcmp(key, "size")) return read_size_key(v, k);
    *known = 0;
    return FC_OK;
}

static fc_status read_key(const char *key, const json_t *v, bt_keys *k) {
    for (int c = 0; c < N_COLUMNS; c++)
        if (!strcmp(key, COLUMN_KEYS[c])) return k->col[c] = v, FC_OK;
    for (int f = 0; f < N_RANGES; f++)
        if (!strcmp(key, RANGE_KEYS[f])) return read_range(f, v, k);
    if (!strcmp(key, "rule")) {
        if (!json_is_string(v))
            return fc_error(FC_ERR_INVALID, "rule: expected a string (sma-cross, rsi, bbands or a rule such as "
                            "\"cross(sma:10, sma:50)\"), got %s", fc_quant_json_kind(v));
        k->rule = json_string_value(v);
        return FC_OK;
    }
    if (!strcmp(key, "short")) return read_bool(key, v, &k->allow_short);
    if (!strcmp(key, "trades")) return read_bool(key, v, &k->trades);
    if (!strcmp(key, "equity")) return read_bool(key, v, &k->equity);
    if (!strcmp(key, "combination")) return k->combination = v, FC_OK;
    int known = 0;
    fc_status st = read_config_key(key, v, k, &known);
    return known ? st : fc_quant_unknown_key(key, BACKTEST_KEYS);
}

/* The CLI's check_flag_sets, for the keys a request has. */
static fc_status check_keys(const bt_keys *k) {
    if (!k->col[C_CLOSE])
        return fc_error(FC_ERR_INVALID, "close: required ({\"SYM\": [...], ...} or one array, oldest first)");
    if (k->col[C_POSITIONS] && k->rule) return fc_error(FC_ERR_INVALID, "rule and positions are two signals: give one");
    int builtin = !k->col[C_POSITIONS] && !strchr(k->rule ? k->rule : "", '(');
    for (int f = 0; !builtin && f < N_RANGES; f++)
        if (k->ranges[f])
            return fc_error(FC_ERR_INVALID, "%s is a parameter of the built-in rules (sma-cross, rsi, bbands) only",
                            RANGE_KEYS[f]);
    return FC_OK;
}

static int by_id(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* close's series: their ids (sorted) and lengths, into d->indptr. */
static fc_status layout(const json_t *close, bt_data *d) {
    if (json_is_array(close)) d->S = 1;
    else if (json_is_object(close) && json_object_size(close) > 0) d->S = json_object_size(close);
    else
        return fc_error(FC_ERR_INVALID, "close: expected {\"SYM\": [...], ...} or an array of numbers, got %s",
                        json_is_object(close) ? "an empty object" : fc_quant_json_kind(close));
    d->ids = malloc(d->S * sizeof *d->ids), d->indptr = malloc((d->S + 1) * sizeof *d->indptr);
    if (!d->ids || !d->indptr) return fc_error(FC_ERR_MEMORY, "out of memory (%zu series)", d->S);
    d->one_array = json_is_array(close);
    if (d->one_array) d->ids[0] = ONE_SERIES;
    else {
        const char *id;
        const json_t *v;
        size_t s = 0;
        json_object_foreach((json_t *)close, id, v) d->ids[s++] = id;
        qsort(d->ids, d->S, sizeof *d->ids, by_id);   /* the CLI's order: series sorted by id */
    }
    d->indptr[0] = 0;
    for (size_t s = 0; s < d->S; s++) {
        const json_t *a = json_is_array(close) ? close : json_object_get(close, d->ids[s]);
        if (!json_is_array(a))
            return fc_error(FC_ERR_INVALID, "close.%s: expected an array of numbers, got %s", d->ids[s],
                            fc_quant_json_kind(a));
        d->indptr[s + 1] = d->indptr[s] + (int64_t)json_array_size(a);
    }
    d->rows = (size_t)d->indptr[d->S];
    return FC_OK;
}

/* Column c (close's shape) into d->v[c], NaN for null. */
static fc_status read_column(const json_t *col, int c, bt_data *d) {
    const char *key = COLUMN_KEYS[c];
    const int one = json_is_array(col);
    if (one != d->one_array || (!one && !json_is_object(col)) ||
        (!one && json_object_size(col) != d->S))
        return fc_error(FC_ERR_INVALID, "%s: expected close's shape (%s), got %s", key,
                        d->one_array ? "one array" : "an object of the same series",
                        fc_quant_json_kind(col));
    if (!(d->v[c] = malloc((d->rows + 1) * sizeof *d->v[c]))) return fc_error(FC_ERR_MEMORY, "out of memory (%s)", key);
    for (size_t s = 0; s < d->S; s++) {
        const json_t *a = one ? col : json_object_get(col, d->ids[s]);
        const size_t n = (size_t)(d->indptr[s + 1] - d->indptr[s]);
        if (!a) return fc_error(FC_ERR_INVALID, "%s: no series %s, which close has", key, d->ids[s]);
        if (!json_is_array(a) || json_array_size(a) != n)
            return fc_error(FC_ERR_INVALID, "%s.%s: expected an array of %zu values (one per bar of close), got %s",
                            key, d->ids[s], n, json_is_array(a) ? "another length" : fc_quant_json_kind(a));
        for (size_t i = 0; i < n; i++) {
            const json_t *x = json_array_get(a, i);
            if (!json_is_number(x) && !json_is_null(x))
                return fc_error(FC_ERR_INVALID, "%s.%s[%zu]: expected a number or null, got %s", key, d->ids[s], i,
                                fc_quant_json_kind(x));
            d->v[c][(size_t)d->indptr[s] + i] = json_is_null(x) ? NAN : json_number_value(x);
        }
    }
    return FC_OK;
}

static fc_status read_data(const bt_keys *k, bt_data *d) {
    FC_TRY(layout(k->col[C_CLOSE], d));
    size_t sent = 0;
    for (int c = 0; c < N_COLUMNS; c++) sent += k->col[c] != NULL;
    if ((double)d->rows * (double)sent > FC_QUANT_MAX_VALUES)
        return fc_error(FC_ERR_MEMORY, "close: %zu bars x %zu columns, more than the %u values a request may hold",
                        d->rows, sent, FC_QUANT_MAX_VALUES);
    for (int c = 0; c < N_COLUMNS; c++)
        if (k->col[c]) FC_TRY(read_column(k->col[c], c, d));
    return FC_OK;
}

/* The rule's grid from the range keys; a range key of another rule is refused. */
static fc_status builtin_signal(const bt_keys *k, const char *name, fcast_signal **s, size_t *skipped) {
    fcast_rule rule;
    FC_TRY(fcast_rule_parse(name, &rule));
    const char *ranges[3] = {NULL, NULL, NULL};
    int used[N_RANGES] = {0};
    for (size_t i = 0; i < fcast_rule_n_params(rule); i++)
        for (int f = 0; f < N_RANGES; f++)
            if (!strcmp(RANGE_KEYS[f], fcast_rule_param_name(rule, i))) used[f] = 1, ranges[i] = k->ranges[f];
    for (int f = 0; f < N_RANGES; f++)
        if (!used[f] && k->ranges[f])
            return fc_error(FC_ERR_INVALID, "%s does not apply to rule %s", RANGE_KEYS[f], name);
    fcast_grid *g = NULL;
    FC_TRY(fcast_grid_new(rule, ranges, fcast_rule_n_params(rule), &g));
    fc_status st = fcast_signal_from_grid(g, k->allow_short, s);
    *skipped = fcast_grid_skipped(g);
    fcast_grid_free(g);
    return st;
}

static fc_status make_signal(const bt_keys *k, const bt_data *d, fcast_signal **s, const char **source) {
    size_t skipped = 0;
    if (k->col[C_POSITIONS]) {
        *source = "signal";   /* the caller's positions, as --signal's */
        return fcast_signal_from_positions(d->rows, d->v[C_POSITIONS], s);
    }
    const char *rule = k->rule ? k->rule : "sma-cross";
    if (!strchr(rule, '(')) {
        *source = rule;
        return builtin_signal(k, rule, s, &skipped);
    }
    *source = "rule";
    const char *names[5];
    const double *values[5];
    size_t n = 0;
    for (int c = C_CLOSE; c <= C_VOLUME; c++)
        if (d->v[c]) names[n] = COLUMN_KEYS[c], values[n++] = d->v[c];
    const fcast_columns cols = {n, names, values};
    return fcast_signal_from_rule(rule, k->allow_short, d->S, d->indptr, &cols, s);
}

/* ---- the answer: the library's fcast_backtest_json (the CLI's --json), plus trades and equity ---- */

static json_t *number(double x) { return isfinite(x) ? json_real(x) : json_null(); }

typedef struct {
    const bt_keys *k;
    const bt_data *d;
    const fcast_signal *s;
    const fcast_backtest_stats *out;
    const char *source;
    size_t n;
} bt_run;

/* The best cell by Sharpe (NaN last, ties in grid order), as the CLI ranks. */
static size_t best_combination(const bt_run *r) {
    size_t best = 0, cells = r->n * r->d->S;
    for (size_t i = 1; i < cells; i++) {
        double u = r->out[i].sharpe, v = r->out[best].sharpe;
        if (!isnan(u) && (isnan(v) || u > v)) best = i;
    }
    return best / r->d->S;
}

/* combination: K (1-based) or "best"; needed when the signal holds several. */
static fc_status pick_combination(const bt_run *r, size_t *combo) {
    const json_t *v = r->k->combination;
    *combo = 0;
    if (!v) {
        if (r->n == 1) return FC_OK;
        return fc_error(FC_ERR_INVALID, "trades and equity show one combination, the grid has %zu: pick one with "
                        "combination K (the results' order, from 1) or \"best\"", r->n);
    }
    if (json_is_string(v) && !strcmp(json_string_value(v), "best")) return *combo = best_combination(r), FC_OK;
    size_t k = 0;
    if (json_is_string(v) || fc_quant_read_size("combination", v, &k) != FC_OK || k < 1 || k > r->n)
        return fc_error(FC_ERR_INVALID, "combination: expected \"best\" or 1 to %zu", r->n);
    *combo = k - 1;
    return FC_OK;
}

/* The bar's ds: its index in the request's arrays (the service has no dates). */
static size_t bar_of(const bt_data *d, size_t series, size_t row) { return row - (size_t)d->indptr[series]; }

static fc_status trades_json(const bt_run *r, size_t combo, json_t **out) {
    fcast_backtest_trade *tr = NULL;
    size_t n = 0;
    const bt_data *d = r->d;
    FC_TRY(fcast_backtest_trades(r->s, combo, &r->k->c, d->S, d->indptr, d->v[C_CLOSE], &tr, &n));
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        const fcast_backtest_trade *t = &tr[i];
        json_t *o = json_object();
        json_object_set_new(o, "unique_id", json_string(d->ids[t->series]));
        json_object_set_new(o, "entry_ds", json_integer((json_int_t)bar_of(d, t->series, t->entry_row)));
        json_object_set_new(o, "exit_ds", json_integer((json_int_t)bar_of(d, t->series, t->exit_row)));
        json_object_set_new(o, "direction", json_string(t->direction > 0 ? "long" : "short"));
        json_object_set_new(o, "size", number(t->size));
        json_object_set_new(o, "entry_price", number(t->entry_price));
        json_object_set_new(o, "exit_price", number(t->exit_price));
        json_object_set_new(o, "return", number(t->ret));
        json_object_set_new(o, "pnl", number(t->pnl));
        json_object_set_new(o, "bars", json_integer((json_int_t)t->bars));
        json_object_set_new(o, "exit_reason", json_string(t->exit_reason));
        json_array_append_new(a, o);
    }
    fcast_backtest_trades_free(tr);
    *out = a;
    return FC_OK;
}

static fc_status equity_json(const bt_run *r, size_t combo, json_t **out) {
    const bt_data *d = r->d;
    double *buf = malloc((4 * d->rows + 1) * sizeof *buf);
    if (!buf) return fc_error(FC_ERR_MEMORY, "out of memory (equity curve)");
    double *pos = buf, *eq = buf + d->rows, *dd = buf + 2 * d->rows, *ret = buf + 3 * d->rows;
    fc_status st = fcast_backtest_curve(r->s, combo, &r->k->c, d->S, d->indptr, d->v[C_CLOSE], pos, eq, dd, ret);
    json_t *a = json_array();
    for (size_t s = 0; st == FC_OK && s < d->S; s++)
        for (size_t i = (size_t)d->indptr[s]; i < (size_t)d->indptr[s + 1]; i++) {
            if (isnan(eq[i])) continue;   /* a bar without a close */
            json_t *o = json_object();
            json_object_set_new(o, "unique_id", json_string(d->ids[s]));
            json_object_set_new(o, "ds", json_integer((json_int_t)bar_of(d, s, i)));
            json_object_set_new(o, "position", number(pos[i]));
            json_object_set_new(o, "equity", number(eq[i]));
            json_object_set_new(o, "drawdown", number(dd[i]));
            json_object_set_new(o, "returns", number(ret[i]));
            json_array_append_new(a, o);
        }
    free(buf);
    if (st == FC_OK) *out = a;
    else json_decref(a);
    return st;
}

/* Backtests x bars within MAX_BAR_VISITS: beyond, seconds of cores per request. */
static fc_status check_work(const bt_data *d, size_t n) {
    if ((double)n * (double)d->rows > MAX_BAR_VISITS)
        return fc_error(FC_ERR_MEMORY, "%zu combinations x %zu bars = %.3g bar visits, more than the %.0e a request "
                        "may take on the server: narrow the ranges or step them more coarsely", n, d->rows,
                        (double)n * (double)d->rows, MAX_BAR_VISITS);
    return FC_OK;
}

/* text (the library's line, "}" last) with ,"key":value before that "}"; takes text. */
static fc_status append_field(char **text, const char *key, json_t *value) {
    char *v = value ? json_dumps(value, JSON_COMPACT) : NULL;
    json_decref(value);
    size_t n = strlen(*text);
    char *joined = v ? malloc(n + strlen(key) + strlen(v) + 8) : NULL;
    if (joined) sprintf(joined, "%.*s,\"%s\":%s}", (int)(n - 1), *text, key, v);
    free(v);
    if (!joined) return fc_error(FC_ERR_MEMORY, "out of memory writing the %s", key);
    free(*text);
    *text = joined;
    return FC_OK;
}

static fc_status run_backtest(const bt_keys *k, const bt_data *d, char **text) {
    fcast_signal *s = NULL;
    const char *source = NULL;
    FC_TRY(make_signal(k, d, &s, &source));
    const size_t n = fcast_signal_n_combinations(s);
    fcast_backtest_stats *out = NULL;
    fc_status st = check_work(d, n);
    if (st == FC_OK && !(out = malloc((n * d->S + 1) * sizeof *out)))
        st = fc_error(FC_ERR_MEMORY, "out of memory (backtest results)");
    double t0 = omp_get_wtime();
    if (st == FC_OK) st = fcast_backtest_signal(s, &k->c, d->S, d->indptr, d->v[C_CLOSE], d->ids, out);
    const bt_run r = {k, d, s, out, source, n};
    size_t combo = 0;
    if (st == FC_OK && (k->trades || k->equity)) st = pick_combination(&r, &combo);
    const fcast_backtest_run run = {"request", source, s, &k->c, k->allow_short, d->S, d->ids, out,
                                    omp_get_wtime() - t0};
    if (st == FC_OK) st = fcast_backtest_json(&run, text);
    json_t *extra = NULL;
    if (st == FC_OK && k->trades && (st = trades_json(&r, combo, &extra)) == FC_OK)
        st = append_field(text, "trades", extra);
    if (st == FC_OK && k->equity && (st = equity_json(&r, combo, &extra)) == FC_OK)
        st = append_field(text, "equity", extra);
    free(out);
    fcast_signal_free(s);
    return st;
}

static fc_status backtest_answer(const json_t *root, char **text) {
    bt_keys k = {0};
    bt_data d = {0};
    fcast_backtest_config_init(&k.c);
    const char *key;
    json_t *v;
    fc_status st = FC_OK;
    json_object_foreach((json_t *)root, key, v) if (st == FC_OK) st = read_key(key, v, &k);
    if (st == FC_OK) st = check_keys(&k);
    if (st == FC_OK) st = read_data(&k, &d);
    if (st == FC_OK && (st = run_backtest(&k, &d, text)) != FC_OK) st = fc_quant_keys_not_flags(st);
    free_data(&d);
    return st;
}

void fc_quant_backtest_route(const fc_http_request *rq, fc_http_response *rs) {
    json_t *root = NULL;
    char *text = NULL;
    fc_status st = fc_quant_load_object(rq, &root);
    if (st == FC_OK) st = backtest_answer(root, &text);
    json_decref(root);   /* after the answer: the ids point into it */
    if (st != FC_OK) {
        free(text);
        fc_quant_reply_failure(rs, st);
    } else {
        fc_quant_reply_line(rs, text);
    }
}
