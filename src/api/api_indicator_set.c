/* fcast_indicator_set (fcast.h): a list of indicator specs, as `fcast quant
 * indicators --ind` takes it, with the column names and the canonical spec
 * text a caller writes out. A spec is one of the engine's batched close-price
 * indicators (quant/indicators.h: SMA, EMA, ..., computed in one pass over
 * the data, each series read once for all of them) or any other of TA-Lib's
 * functions (quant/ta.h), over the columns it reads (high, low, close, ...).
 * Messages name the API's argument: specs, outs[c], indptr[i], o->nan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/api_quant.h"
#include "core/error.h"
#include "quant/indicators.h"
#include "quant/quant_request.h"
#include "quant/ta.h"

/* The engine keeps its own copy of the public limit (it may not include
 * fcast.h); they must agree. */
_Static_assert(FC_IND_MAX_SPECS == FCAST_INDICATOR_MAX_SPECS, "quant_request.h's FC_IND_MAX_SPECS is fcast/quant.h's limit");

#define COLUMN_CAP (FC_TA_SPEC_CAP + 32)   /* the label and an output's name */

typedef struct {
    int is_ta;          /* 0: fast (the batched close-price engine), 1: ta */
    fc_ind_spec fast;
    fc_ta_spec ta;
} set_spec;

struct fcast_indicator_set {
    set_spec *specs;
    size_t n_specs, n_columns;
    char (*text)[FC_TA_SPEC_CAP];     /* (n_specs) "bbands:20:2" */
    char (*column)[COLUMN_CAP];       /* (n_columns) "bbands_20_2_upper" */
    uint8_t *integer;                 /* (n_columns) 1: whole numbers (patterns, indices) */
};

void fcast_indicator_set_free(fcast_indicator_set *s) {
    if (!s) return;
    free(s->specs);
    free(s->text);
    free(s->column);
    free(s->integer);
    free(s);
}

static int spec_outputs_count(const set_spec *sp) {
    return sp->is_ta ? sp->ta.f->desc.n_outputs : fc_ind_n_outputs(&sp->fast);
}

static fc_status name_columns(fcast_indicator_set *s) {
    for (size_t j = 0; j < s->n_specs; j++) s->n_columns += (size_t)spec_outputs_count(&s->specs[j]);
    s->column = calloc(s->n_columns + 1, sizeof *s->column);
    s->integer = calloc(s->n_columns + 1, 1);
    if (!s->column || !s->integer) return fc_error(FC_ERR_MEMORY, "fcast_indicator_set_parse: out of memory");
    size_t c = 0;
    for (size_t j = 0; j < s->n_specs; j++) {
        const set_spec *sp = &s->specs[j];
        for (int k = 0; k < spec_outputs_count(sp); k++, c++) {
            if (!sp->is_ta) {
                fc_ind_column_name(&sp->fast, k, s->column[c], COLUMN_CAP);
                continue;
            }
            fc_ta_spec_column(&sp->ta, k, s->column[c], COLUMN_CAP);
            s->integer[c] = (uint8_t)((sp->ta.f->desc.int_outputs >> k) & 1u);
        }
    }
    return FC_OK;
}

/* Whether the spec's name is one of the batched engine's (sma, rsi, ...). */
static int fast_name(const char *item) {
    size_t len = strcspn(item, ":");
    while (*item == ' ' || *item == '\t') item++, len--;
    for (int k = 0; k < FC_IND_KIND_COUNT; k++)
        if (strlen(fc_ind_kind_name((fc_ind_kind)k)) == len && !strncasecmp(item, fc_ind_kind_name((fc_ind_kind)k), len))
            return 1;
    return 0;
}

/* One spec: the batched engine's when it takes it (TA-Lib's values, faster,
 * on the GPU), else TA-Lib's function of that name (bbands with a matype,
 * atr, ...). For an engine name both refuse, the engine's message stands. */
static fc_status parse_spec(const char *item, set_spec *out, char *text, int prefer_ta) {
    memset(out, 0, sizeof *out);
    if (fast_name(item) && !prefer_ta) {
        fc_status st = fc_ind_parse(item, &out->fast);
        if (st == FC_OK) {
            fc_ind_spec_text(&out->fast, text, FC_TA_SPEC_CAP);
            return FC_OK;
        }
        char fast_msg[FC_ERROR_CAP];
        snprintf(fast_msg, sizeof fast_msg, "%s", fc_last_error());
        if (fc_ta_spec_parse(item, &out->ta) == FC_OK && out->ta.f->impl) {
            out->is_ta = 1;
            snprintf(text, FC_TA_SPEC_CAP, "%s", out->ta.text);
            return FC_OK;
        }
        return fc_error(st, "%s", fast_msg);
    }
    FC_TRY(fc_ta_spec_parse(item, &out->ta));
    if (!out->ta.f->impl)
        return fc_error(FC_ERR_INVALID, "'%s': TA-Lib's %s is not in fcast yet", out->ta.text, out->ta.f->desc.name);
    out->is_ta = 1;
    snprintf(text, FC_TA_SPEC_CAP, "%s", out->ta.text);
    return FC_OK;
}

static fc_status parse_list(const char *specs, fcast_indicator_set *s, int prefer_ta) {
    size_t cap = 1;
    for (const char *p = specs; *p; p++) cap += *p == ',';
    if (cap > FCAST_INDICATOR_MAX_SPECS)
        return fc_error(FC_ERR_INVALID, "%zu indicators, at most %d at once", cap, FCAST_INDICATOR_MAX_SPECS);
    s->specs = calloc(cap, sizeof *s->specs);
    s->text = calloc(cap + 1, sizeof *s->text);
    if (!s->specs || !s->text) return fc_error(FC_ERR_MEMORY, "out of memory");
    const char *p = specs;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[FC_TA_SPEC_CAP + 64];
        if (len >= sizeof item) return fc_error(FC_ERR_PARSE, "'%.40s...': spec too long", p);
        memcpy(item, p, len);
        item[len] = '\0';
        FC_TRY(parse_spec(item, &s->specs[s->n_specs], s->text[s->n_specs], prefer_ta));
        for (size_t j = 0; j < s->n_specs; j++)
            if (!strcmp(s->text[j], s->text[s->n_specs]))
                return fc_error(FC_ERR_INVALID, "'%s': given twice", s->text[j]);
        s->n_specs++;
        if (!comma) return FC_OK;
        p = comma + 1;
    }
}

/* prefer_ta: TA-Lib's own body even for the batched engine's names (RSI
 * after a NaN is 0 in TA-Lib, NaN in the engine). */
static fc_status parse_set(const char *specs, int prefer_ta, fcast_indicator_set **out) {
    static const char fn[] = "fcast_indicator_set_parse";
    if (!specs || !out) return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !specs ? "specs" : "out");
    *out = NULL;
    fcast_indicator_set *s = calloc(1, sizeof *s);
    if (!s) return fc_error(FC_ERR_MEMORY, "%s: out of memory", fn);
    fc_status st = parse_list(specs, s, prefer_ta);
    /* the parser quotes the spec ("'sma:0': period must be >= 1") or says it is empty */
    if (st != FC_OK) st = fc_error_wrap(st, fc_last_error()[0] == '\'' ? "%s: specs " : "%s: specs: ", fn);
    if (st == FC_OK) st = name_columns(s);
    if (st != FC_OK) {
        fcast_indicator_set_free(s);
        return st;
    }
    *out = s;
    return FC_OK;
}

fc_status fcast_indicator_set_parse(const char *specs, fcast_indicator_set **out) {
    return parse_set(specs, 0, out);
}

size_t fcast_indicator_set_size(const fcast_indicator_set *s) { return s ? s->n_specs : 0; }

const char *fcast_indicator_set_spec(const fcast_indicator_set *s, size_t j) {
    return s && j < s->n_specs ? s->text[j] : NULL;
}

size_t fcast_indicator_set_n_columns(const fcast_indicator_set *s) { return s ? s->n_columns : 0; }

const char *fcast_indicator_set_column(const fcast_indicator_set *s, size_t c) {
    return s && c < s->n_columns ? s->column[c] : NULL;
}

int fcast_indicator_set_column_is_integer(const fcast_indicator_set *s, size_t c) {
    return s && c < s->n_columns ? s->integer[c] : 0;
}

const char *fcast_indicator_set_input(const fcast_indicator_set *s, size_t j, size_t i) {
    if (!s || j >= s->n_specs) return NULL;
    const set_spec *sp = &s->specs[j];
    if (!sp->is_ta) return i == 0 ? "close" : NULL;
    return i < (size_t)sp->ta.f->desc.n_inputs ? sp->ta.f->desc.inputs[i].column : NULL;
}

static fc_status engine_options(const char *fn, const fcast_indicator_options *o, fc_ind_options *eo) {
    *eo = fc_ind_options_default();
    if (!o) return FC_OK;
    if (o->nan != FCAST_NAN_POISON && o->nan != FCAST_NAN_RESTART)
        return fc_error(FC_ERR_INVALID, "%s: o->nan = %d: must be FCAST_NAN_POISON or FCAST_NAN_RESTART", fn,
                        (int)o->nan);
    if (o->threads < 0) return fc_error(FC_ERR_INVALID, "%s: o->threads = %d: must be >= 0", fn, o->threads);
    eo->nan = o->nan == FCAST_NAN_RESTART ? FC_NAN_RESTART : FC_NAN_POISON;
    eo->threads = o->threads;
    eo->backend = fc_api_device_backend(o->device);
    return FC_OK;
}

/* outs: one array per column, none NULL; *per_spec[j] points at spec j's. */
static fc_status spec_outputs(const char *fn, const fcast_indicator_set *s, double *const *outs, size_t n_outs,
                              double *const **per_spec) {
    if (n_outs != s->n_columns)
        return fc_error(FC_ERR_INVALID, "%s: n_outs = %zu, but the set has %zu columns", fn, n_outs, s->n_columns);
    if (!outs) return fc_error(FC_ERR_INVALID, "%s: outs is NULL (expected %zu arrays)", fn, s->n_columns);
    for (size_t c = 0; c < n_outs; c++)
        if (!outs[c]) return fc_error(FC_ERR_INVALID, "%s: outs[%zu] is NULL", fn, c);
    for (size_t j = 0, c = 0; j < s->n_specs; c += (size_t)spec_outputs_count(&s->specs[j]), j++)
        per_spec[j] = outs + c;
    return FC_OK;
}

static const double *find_column(const fcast_columns *cols, const char *name) {
    for (size_t i = 0; i < cols->n; i++)
        if (cols->names[i] && !strcmp(cols->names[i], name)) return cols->values[i];
    return NULL;
}

static fc_status missing_column(const char *fn, const char *spec, const char *name, const fcast_columns *cols) {
    char have[256] = "";
    for (size_t i = 0, len = 0; i < cols->n && len + 40 < sizeof have; i++)
        len += (size_t)snprintf(have + len, sizeof have - len, "%s%s", i ? ", " : "", cols->names[i]);
    return fc_error(FC_ERR_INVALID, "%s: '%s' reads the column '%s', which the data lacks (it has: %s)", fn, spec,
                    name, cols->n ? have : "nothing");
}

/* The batched engine's specs, in one pass over the close. */
static fc_status compute_fast(const char *fn, const fcast_indicator_set *s, const fc_ind_options *eo,
                              const size_t *offsets, size_t n_series, const fcast_columns *cols,
                              double *const *const *per_spec, uint8_t *too_short) {
    fc_ind_spec fast[FCAST_INDICATOR_MAX_SPECS];
    double *const *outs[FCAST_INDICATOR_MAX_SPECS];
    size_t n = 0, where[FCAST_INDICATOR_MAX_SPECS];
    for (size_t j = 0; j < s->n_specs; j++)
        if (!s->specs[j].is_ta) fast[n] = s->specs[j].fast, outs[n] = per_spec[j], where[n++] = j;
    if (!n) return FC_OK;
    const double *close = find_column(cols, "close");
    if (!close) return missing_column(fn, s->text[where[0]], "close", cols);
    uint8_t *none = too_short ? malloc(n * n_series + 1) : NULL;
    if (too_short && !none) return fc_error(FC_ERR_MEMORY, "%s: out of memory", fn);
    fc_status st = fc_ind_compute_many(fast, n, close, NULL, offsets, n_series, eo, outs, none);
    for (size_t i = 0; none && st == FC_OK && i < n; i++)
        memcpy(too_short + where[i] * n_series, none + i * n_series, n_series);
    free(none);
    return st;
}

static fc_status compute_ta(const char *fn, const fcast_indicator_set *s, size_t j, const fc_ind_options *eo,
                            const size_t *offsets, size_t n_series, const fcast_columns *cols,
                            double *const *outs, uint8_t *too_short) {
    const fc_ta_spec *sp = &s->specs[j].ta;
    const double *in[FC_TA_MAX_INPUTS] = {0};
    for (int i = 0; i < sp->f->desc.n_inputs; i++)
        if (!(in[i] = find_column(cols, sp->f->desc.inputs[i].column)))
            return missing_column(fn, s->text[j], sp->f->desc.inputs[i].column, cols);
    return fc_ta_compute(sp->f, sp->par, in, NULL, offsets, n_series, eo, outs,
                         too_short ? too_short + j * n_series : NULL);
}

fc_status fcast_indicator_set_compute_columns(const fcast_indicator_set *s, const fcast_indicator_options *o,
                                              size_t n_series, const int64_t *indptr, const fcast_columns *cols,
                                              double *const *outs, size_t n_outs, uint8_t *too_short) {
    static const char fn[] = "fcast_indicator_set_compute";
    if (!s) return fc_error(FC_ERR_INVALID, "%s: s is NULL", fn);
    if (!cols || (cols->n && (!cols->names || !cols->values)))
        return fc_error(FC_ERR_INVALID, "%s: cols is NULL", fn);
    for (size_t i = 0; i < cols->n; i++)
        if (!cols->names[i] || !cols->values[i])
            return fc_error(FC_ERR_INVALID, "%s: cols->%s[%zu] is NULL", fn, !cols->names[i] ? "names" : "values", i);
    fc_ind_options eo;
    FC_TRY(engine_options(fn, o, &eo));
    double *const *per_spec[FCAST_INDICATOR_MAX_SPECS];
    FC_TRY(spec_outputs(fn, s, outs, n_outs, per_spec));
    size_t *offsets = NULL;
    FC_TRY(fc_api_offsets_from_indptr(fn, n_series, indptr, &offsets));
    fc_status st = compute_fast(fn, s, &eo, offsets, n_series, cols, (double *const *const *)per_spec, too_short);
    for (size_t j = 0; st == FC_OK && j < s->n_specs; j++)
        if (s->specs[j].is_ta) st = compute_ta(fn, s, j, &eo, offsets, n_series, cols, per_spec[j], too_short);
    free(offsets);
    if (st == FC_OK) return FC_OK;
    return strncmp(fc_last_error(), fn, strlen(fn)) ? fc_error_wrap(st, "%s: ", fn) : st;
}

fc_status fcast_indicator_set_compute(const fcast_indicator_set *s, const fcast_indicator_options *o,
                                      size_t n_series, const int64_t *indptr, const double *values,
                                      double *const *outs, size_t n_outs, uint8_t *too_short) {
    if (!values) return fc_error(FC_ERR_INVALID, "fcast_indicator_set_compute: values is NULL");
    const char *names[] = {"close"};
    const double *columns[] = {values};
    fcast_columns cols = {1, names, columns};
    return fcast_indicator_set_compute_columns(s, o, n_series, indptr, &cols, outs, n_outs, too_short);
}

fc_status fc_api_indicator_one(const char *fn, const char *spec, int prefer_ta, fcast_indicator_set **out) {
    *out = NULL;
    if (!spec) return fc_error(FC_ERR_INVALID, "%s: spec is NULL (expected text such as \"sma:20\")", fn);
    if (strchr(spec, ',')) return fc_error(FC_ERR_INVALID, "%s: spec '%s': one spec, not a list", fn, spec);
    fc_status st = parse_set(spec, prefer_ta, out);
    if (st == FC_OK) return FC_OK;
    /* "fcast_indicator_set_parse: specs 'sma:0': ..." -> "fn: spec 'sma:0': ..." */
    const char *msg = strstr(fc_last_error(), "specs");
    return fc_error(st, "%s: spec%s", fn, msg ? msg + 5 : fc_last_error());
}

size_t fc_api_indicator_lookback(const fcast_indicator_set *s, size_t j) {
    const set_spec *sp = &s->specs[j];
    return sp->is_ta ? (size_t)fc_ta_lookback(sp->ta.f, sp->ta.par) : (size_t)fc_ind_lookback(&sp->fast);
}

fc_status fcast_indicator_inputs(const char *spec, size_t n_series, const int64_t *indptr,
                                 const double *const *inputs, size_t n_inputs, double *const *outs, size_t n_outs) {
    static const char fn[] = "fcast_indicator_inputs";
    fcast_indicator_set *s = NULL;
    fc_status st = fc_api_indicator_one(fn, spec, 1, &s);
    if (st != FC_OK) return st;
    const char *names[FC_TA_MAX_INPUTS];
    size_t want = 0;
    while (want < FC_TA_MAX_INPUTS && fcast_indicator_set_input(s, 0, want)) names[want] = fcast_indicator_set_input(s, 0, want), want++;
    if (n_inputs != want || (want && !inputs)) {
        st = fc_error(FC_ERR_INVALID, "%s: n_inputs = %zu, but '%s' reads %zu (%s%s%s%s)", fn, n_inputs, spec, want,
                      names[0], want > 1 ? ", " : "", want > 1 ? names[1] : "", want > 2 ? ", ..." : "");
    } else {
        fcast_columns cols = {want, names, inputs};
        st = fcast_indicator_set_compute_columns(s, NULL, n_series, indptr, &cols, outs, n_outs, NULL);
        if (st != FC_OK) {
            const char *msg = fc_last_error(), *colon = strchr(msg, ':');
            st = fc_error(st, "%s%s", fn, colon ? colon : msg);
        }
    }
    fcast_indicator_set_free(s);
    return st;
}
