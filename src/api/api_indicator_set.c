/* fcast_indicator_set (fcast.h): a list of indicator specs, as `fcast quant
 * indicators --ind` takes it, computed in one pass over the data
 * (quant/indicators.h: each series read once for all of them), with the
 * column names and the canonical spec text a caller writes out. Messages
 * name the API's argument: specs, outs[c], indptr[i], o->nan. */
#include <stdlib.h>
#include <string.h>

#include "api/api_quant.h"
#include "core/error.h"
#include "quant/indicators.h"
#include "quant/quant_request.h"

/* The engine keeps its own copy of the public limit (it may not include
 * fcast.h); they must agree. */
_Static_assert(FC_IND_MAX_SPECS == FCAST_INDICATOR_MAX_SPECS, "quant_request.h's FC_IND_MAX_SPECS is fcast/quant.h's limit");

#define COLUMN_CAP 96

struct fcast_indicator_set {
    fc_ind_spec *specs;
    size_t n_specs, n_columns;
    char (*text)[FC_IND_LABEL_CAP];   /* (n_specs) "bbands:20:2" */
    char (*column)[COLUMN_CAP];       /* (n_columns) "bbands_20_2_upper" */
};

void fcast_indicator_set_free(fcast_indicator_set *s) {
    if (!s) return;
    free(s->specs);
    free(s->text);
    free(s->column);
    free(s);
}

static fc_status name_columns(fcast_indicator_set *s) {
    for (size_t j = 0; j < s->n_specs; j++) s->n_columns += (size_t)fc_ind_n_outputs(&s->specs[j]);
    s->text = calloc(s->n_specs + 1, sizeof *s->text);
    s->column = calloc(s->n_columns + 1, sizeof *s->column);
    if (!s->text || !s->column) return fc_error(FC_ERR_MEMORY, "fcast_indicator_set_parse: out of memory");
    size_t c = 0;
    for (size_t j = 0; j < s->n_specs; j++) {
        fc_ind_spec_text(&s->specs[j], s->text[j], sizeof s->text[j]);
        for (int k = 0; k < fc_ind_n_outputs(&s->specs[j]); k++)
            fc_ind_column_name(&s->specs[j], k, s->column[c++], COLUMN_CAP);
    }
    return FC_OK;
}

static fc_status parse(const char *fn, const char *specs, fcast_indicator_set *s) {
    fc_status st = fc_ind_parse_list(specs, &s->specs, &s->n_specs);
    /* the parser quotes the spec ("'sma:0': period must be >= 1") or says it is empty */
    if (st != FC_OK) return fc_error_wrap(st, fc_last_error()[0] == '\'' ? "%s: specs " : "%s: specs: ", fn);
    if (s->n_specs > FCAST_INDICATOR_MAX_SPECS)
        return fc_error(FC_ERR_INVALID, "%s: specs: %zu indicators, at most %d at once", fn, s->n_specs,
                        FCAST_INDICATOR_MAX_SPECS);
    return name_columns(s);
}

fc_status fcast_indicator_set_parse(const char *specs, fcast_indicator_set **out) {
    static const char fn[] = "fcast_indicator_set_parse";
    if (!specs || !out) return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !specs ? "specs" : "out");
    *out = NULL;
    fcast_indicator_set *s = calloc(1, sizeof *s);
    if (!s) return fc_error(FC_ERR_MEMORY, "%s: out of memory", fn);
    fc_status st = parse(fn, specs, s);
    if (st != FC_OK) {
        fcast_indicator_set_free(s);
        return st;
    }
    *out = s;
    return FC_OK;
}

size_t fcast_indicator_set_size(const fcast_indicator_set *s) { return s ? s->n_specs : 0; }

const char *fcast_indicator_set_spec(const fcast_indicator_set *s, size_t j) {
    return s && j < s->n_specs ? s->text[j] : NULL;
}

size_t fcast_indicator_set_n_columns(const fcast_indicator_set *s) { return s ? s->n_columns : 0; }

const char *fcast_indicator_set_column(const fcast_indicator_set *s, size_t c) {
    return s && c < s->n_columns ? s->column[c] : NULL;
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
    for (size_t j = 0, c = 0; j < s->n_specs; c += (size_t)fc_ind_n_outputs(&s->specs[j]), j++) per_spec[j] = outs + c;
    return FC_OK;
}

fc_status fcast_indicator_set_compute(const fcast_indicator_set *s, const fcast_indicator_options *o,
                                      size_t n_series, const int64_t *indptr, const double *values,
                                      double *const *outs, size_t n_outs, uint8_t *too_short) {
    static const char fn[] = "fcast_indicator_set_compute";
    if (!s) return fc_error(FC_ERR_INVALID, "%s: s is NULL", fn);
    if (!values) return fc_error(FC_ERR_INVALID, "%s: values is NULL", fn);
    fc_ind_options eo;
    FC_TRY(engine_options(fn, o, &eo));
    double *const *per_spec[FCAST_INDICATOR_MAX_SPECS];
    FC_TRY(spec_outputs(fn, s, outs, n_outs, per_spec));
    size_t *offsets = NULL;
    FC_TRY(fc_api_offsets_from_indptr(fn, n_series, indptr, &offsets));
    fc_status st = fc_ind_compute_many(s->specs, s->n_specs, values, NULL, offsets, n_series, &eo,
                                       (double *const *const *)per_spec, too_short);
    free(offsets);
    return st == FC_OK ? FC_OK : fc_error_wrap(st, "%s: ", fn);
}
