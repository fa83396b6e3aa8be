/* Indicator specs: "name[:p1[:p2...]]" -> fc_ind_spec, with TA-Lib 0.8.1's
 * defaults, parameter ranges and lookbacks; output and column names. */
#include "quant/indicators.h"
#include "quant/indicator_exec.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "core/error.h"

/* TA-Lib's upper bound on every period. */
#define PERIOD_MAX 100000

typedef struct {
    const char *name;    /* for messages, e.g. "period", "nbdevup" */
    int is_period;       /* an integer in [min, PERIOD_MAX]; else any finite real */
    int min;
    double fallback;     /* TA-Lib's default */
} param_info;

typedef struct {
    const char *name;
    int n_params;
    param_info params[3];
} kind_info;

/* Defaults and minimums as TA-Lib 0.8.1 reports and enforces them
 * (talib.abstract and TA_*_Lookback); ZSCORE has no TA-Lib counterpart and
 * takes STDDEV's range with BBANDS' default window. */
static const kind_info KINDS[FC_IND_KIND_COUNT] = {
    [FC_IND_SMA] = {"sma", 1, {{"period", 1, 1, 30}}},
    [FC_IND_EMA] = {"ema", 1, {{"period", 1, 1, 30}}},
    [FC_IND_WMA] = {"wma", 1, {{"period", 1, 1, 30}}},
    [FC_IND_BBANDS] = {"bbands", 3, {{"period", 1, 2, 20}, {"nbdevup", 0, 0, 2}, {"nbdevdn", 0, 0, 2}}},
    [FC_IND_RSI] = {"rsi", 1, {{"period", 1, 2, 14}}},
    [FC_IND_MACD] = {"macd", 3, {{"fast period", 1, 2, 12}, {"slow period", 1, 2, 26}, {"signal period", 1, 1, 9}}},
    [FC_IND_MOM] = {"mom", 1, {{"period", 1, 1, 10}}},
    [FC_IND_ROC] = {"roc", 1, {{"period", 1, 1, 10}}},
    [FC_IND_STDDEV] = {"stddev", 2, {{"period", 1, 2, 5}, {"nbdev", 0, 0, 1}}},
    [FC_IND_ZSCORE] = {"zscore", 1, {{"period", 1, 2, 20}}},
};

const char *fc_ind_kind_name(fc_ind_kind kind) {
    return (unsigned)kind < FC_IND_KIND_COUNT ? KINDS[kind].name : "?";
}

static fc_status check_param(const char *quote, const param_info *pi, double v) {
    if (!pi->is_period) {
        if (!isfinite(v)) return fc_error(FC_ERR_INVALID, "'%s': %s must be a finite number", quote, pi->name);
        return FC_OK;
    }
    if (v != floor(v))
        return fc_error(FC_ERR_INVALID, "'%s': %s must be an integer, got %g", quote, pi->name, v);
    if (v < pi->min) return fc_error(FC_ERR_INVALID, "'%s': %s must be >= %d", quote, pi->name, pi->min);
    if (v > PERIOD_MAX)
        return fc_error(FC_ERR_INVALID, "'%s': %s must be <= %d (TA-Lib's limit)", quote, pi->name, PERIOD_MAX);
    return FC_OK;
}

/* Fills spec from kind + values (n given, the rest defaulted) after checking
 * ranges; messages quote `quote`. The label is left to the caller. */
static fc_status build_spec(fc_ind_spec *spec, fc_ind_kind kind, const double *given, int n,
                            const char *quote) {
    const kind_info *ki = &KINDS[kind];
    if (n > ki->n_params)
        return fc_error(FC_ERR_INVALID, "'%s': %s takes at most %d parameter%s, got %d", quote, ki->name,
                        ki->n_params, ki->n_params > 1 ? "s" : "", n);
    double v[3];
    for (int i = 0; i < ki->n_params; i++) {
        v[i] = i < n ? given[i] : ki->params[i].fallback;
        FC_TRY(check_param(quote, &ki->params[i], v[i]));
    }
    memset(spec, 0, sizeof *spec);
    spec->kind = kind;
    spec->period = (int)v[0];
    if (kind == FC_IND_MACD) {
        spec->slow = (int)v[1];
        spec->signal = (int)v[2];
    } else if (kind == FC_IND_BBANDS) {
        spec->dev_up = v[1];
        spec->dev_dn = n == 2 ? v[1] : v[2]; /* "bbands:20:2": both bands at 2 deviations */
    } else if (kind == FC_IND_STDDEV) {
        spec->dev_up = v[1];
    }
    return FC_OK;
}

static int find_kind(const char *name, size_t len) {
    for (int k = 0; k < FC_IND_KIND_COUNT; k++)
        if (strlen(KINDS[k].name) == len && strncasecmp(KINDS[k].name, name, len) == 0) return k;
    return -1;
}

static fc_status unknown_kind(const char *quote, const char *name, size_t len) {
    char known[128] = "";
    for (int k = 0; k < FC_IND_KIND_COUNT; k++) {
        strcat(known, k ? ", " : "");
        strcat(known, KINDS[k].name);
    }
    return fc_error(FC_ERR_INVALID, "'%s': unknown indicator '%.*s' (known: %s)", quote, (int)len, name, known);
}

/* One ':'-separated parameter field -> number, with the field named on error. */
static fc_status parse_param(const char *quote, const kind_info *ki, int i, const char *s, size_t len,
                             double *out) {
    const char *what = i < ki->n_params ? ki->params[i].name : "parameter";
    if (len == 0) return fc_error(FC_ERR_PARSE, "'%s': %s %d is empty", quote, what, i + 1);
    char buf[64];
    if (len >= sizeof buf) return fc_error(FC_ERR_PARSE, "'%s': %s is too long", quote, what);
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end = NULL;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || *end || errno == ERANGE || isnan(v)) {
        int is_period = i < ki->n_params && ki->params[i].is_period;
        return fc_error(FC_ERR_PARSE, "'%s': %s must be %s, got '%s'", quote, what,
                        is_period ? "an integer" : "a number", buf);
    }
    *out = v;
    return FC_OK;
}

/* The column prefix: lower-case name and the parameters as written, ':' -> '_'. */
static fc_status make_label(fc_ind_spec *spec, const char *text, size_t len) {
    if (len >= FC_IND_LABEL_CAP)
        return fc_error(FC_ERR_PARSE, "'%.*s': spec longer than %d characters", (int)len, text,
                        FC_IND_LABEL_CAP - 1);
    for (size_t i = 0; i < len; i++)
        spec->label[i] = text[i] == ':' ? '_' : (char)tolower((unsigned char)text[i]);
    spec->label[len] = '\0';
    return FC_OK;
}

/* Parses text[0..len) (already trimmed); `quote` is that text, NUL-terminated. */
static fc_status parse_one(const char *text, size_t len, const char *quote, fc_ind_spec *out) {
    if (len == 0) return fc_error(FC_ERR_PARSE, "empty indicator spec (expected name[:p1[:p2...]], e.g. sma:20)");
    const char *colon = memchr(text, ':', len);
    size_t name_len = colon ? (size_t)(colon - text) : len;
    int kind = find_kind(text, name_len);
    if (kind < 0) return unknown_kind(quote, text, name_len);
    const kind_info *ki = &KINDS[kind];
    int n_fields = 0;
    for (size_t i = 0; i < len; i++) n_fields += text[i] == ':';
    if (n_fields > ki->n_params)
        return fc_error(FC_ERR_INVALID, "'%s': %s takes at most %d parameter%s, got %d", quote, ki->name,
                        ki->n_params, ki->n_params > 1 ? "s" : "", n_fields);
    double given[3];
    int n = 0;
    const char *p = colon, *end = text + len;
    while (p && p < end) {
        const char *field = p + 1, *next = memchr(field, ':', (size_t)(end - field));
        size_t flen = next ? (size_t)(next - field) : (size_t)(end - field);
        FC_TRY(parse_param(quote, ki, n, field, flen, &given[n]));
        n++;
        p = next;
    }
    FC_TRY(build_spec(out, kind, given, n, quote));
    return make_label(out, text, len);
}

fc_status fc_ind_parse(const char *text, fc_ind_spec *out) {
    if (!text || !out) return fc_error(FC_ERR_INVALID, "fc_ind_parse: NULL argument");
    while (isspace((unsigned char)*text)) text++;
    size_t len = strlen(text);
    while (len && isspace((unsigned char)text[len - 1])) len--;
    char quote[FC_IND_LABEL_CAP * 2];
    snprintf(quote, sizeof quote, "%.*s", (int)len, text);
    return parse_one(text, len, quote, out);
}

static fc_status parse_list_into(const char *text, fc_ind_spec *specs, size_t cap, size_t *n) {
    *n = 0;
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[FC_IND_LABEL_CAP * 2];
        if (len >= sizeof item) return fc_error(FC_ERR_PARSE, "'%.40s...': spec too long", p);
        memcpy(item, p, len);
        item[len] = '\0';
        FC_ASSERT(*n < cap);
        FC_TRY(fc_ind_parse(item, &specs[*n]));
        for (size_t j = 0; j < *n; j++)
            if (strcmp(specs[j].label, specs[*n].label) == 0) {
                char text[FC_IND_LABEL_CAP];
                fc_ind_spec_text(&specs[*n], text, sizeof text);
                return fc_error(FC_ERR_INVALID, "'%s': given twice", text);
            }
        (*n)++;
        if (!comma) return FC_OK;
        p = comma + 1;
    }
}

fc_status fc_ind_parse_list(const char *text, fc_ind_spec **specs, size_t *n) {
    if (!text || !specs || !n) return fc_error(FC_ERR_INVALID, "fc_ind_parse_list: NULL argument");
    size_t cap = 1;
    for (const char *p = text; *p; p++) cap += *p == ',';
    fc_ind_spec *s = fc_malloc(cap * sizeof *s, "indicator specs");
    if (!s) return FC_ERR_MEMORY;
    fc_status st = parse_list_into(text, s, cap, n);
    if (st != FC_OK) {
        free(s);
        return st;
    }
    *specs = s;
    return FC_OK;
}

fc_status fc_ind_spec_init(fc_ind_spec *spec, fc_ind_kind kind, const double *params, int n_params) {
    if (!spec || (unsigned)kind >= FC_IND_KIND_COUNT || n_params < 0 || (n_params && !params))
        return fc_error(FC_ERR_INVALID, "fc_ind_spec_init: bad arguments");
    char quote[FC_IND_LABEL_CAP * 2];
    int len = snprintf(quote, sizeof quote, "%s", KINDS[kind].name);
    for (int i = 0; i < n_params && len < (int)sizeof quote; i++) {
        /* The shortest of %.15g / %.17g that reads back as the same number. */
        char num[32];
        snprintf(num, sizeof num, "%.15g", params[i]);
        if (strtod(num, NULL) != params[i]) snprintf(num, sizeof num, "%.17g", params[i]);
        len += snprintf(quote + len, sizeof quote - (size_t)len, ":%s", num);
    }
    FC_TRY(build_spec(spec, kind, params, n_params, quote));
    return make_label(spec, quote, strlen(quote));
}

fc_status fc_ind_spec_check(const fc_ind_spec *spec) {
    if (!spec || (unsigned)spec->kind >= FC_IND_KIND_COUNT)
        return fc_error(FC_ERR_INVALID, "indicator spec: unknown kind");
    double v[3] = {spec->period, spec->dev_up, spec->dev_dn};
    if (spec->kind == FC_IND_MACD) v[1] = spec->slow, v[2] = spec->signal;
    const char *quote = spec->label[0] ? spec->label : KINDS[spec->kind].name;
    for (int i = 0; i < KINDS[spec->kind].n_params; i++)
        FC_TRY(check_param(quote, &KINDS[spec->kind].params[i], v[i]));
    return FC_OK;
}

int fc_ind_lookback(const fc_ind_spec *spec) {
    switch (spec->kind) {
    case FC_IND_RSI:
    case FC_IND_MOM:
    case FC_IND_ROC: return spec->period;
    case FC_IND_MACD: {
        int slow = spec->slow > spec->period ? spec->slow : spec->period;
        return (slow - 1) + (spec->signal - 1);
    }
    default: return spec->period - 1;
    }
}

int fc_ind_n_outputs(const fc_ind_spec *spec) {
    return spec->kind == FC_IND_BBANDS || spec->kind == FC_IND_MACD ? 3 : 1;
}

const char *fc_ind_output_name(const fc_ind_spec *spec, int k) {
    static const char *const BANDS[3] = {"upper", "middle", "lower"};
    static const char *const MACD[3] = {"macd", "signal", "hist"};
    if (k < 0 || k >= fc_ind_n_outputs(spec)) return NULL;
    if (spec->kind == FC_IND_BBANDS) return BANDS[k];
    if (spec->kind == FC_IND_MACD) return MACD[k];
    return NULL;
}

void fc_ind_spec_text(const fc_ind_spec *spec, char *buf, size_t cap) {
    /* The label is the text with ':' -> '_'; names and numbers hold no '_'. */
    snprintf(buf, cap, "%s", spec->label);
    for (char *p = buf; *p; p++)
        if (*p == '_') *p = ':';
}

void fc_ind_column_name(const fc_ind_spec *spec, int k, char *buf, size_t cap) {
    const char *suffix = fc_ind_output_name(spec, k);
    if (suffix) snprintf(buf, cap, "%s_%s", spec->label, suffix);
    else snprintf(buf, cap, "%s", spec->label);
}
