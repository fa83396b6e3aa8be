/* Indicators through the library API (fcast.h): the spec text parsed as
 * `fcast quant indicators --ind` parses it, the caller's arrays computed
 * by the engine's batched indicator code (quant/indicators.h) with its
 * defaults (TA-Lib's NaN semantics, OpenMP threads for large inputs).
 * Messages name the API's argument: spec, x, outs[k], indptr[i]. */
#include <stdint.h>
#include <stdlib.h>

#include "api/api_quant.h"
#include "core/error.h"
#include "quant/indicators.h"

static fc_status parse_spec(const char *fn, const char *spec, fc_ind_spec *out) {
    if (!spec) return fc_error(FC_ERR_INVALID, "%s: spec is NULL (expected text such as \"sma:20\")", fn);
    fc_status st = fc_ind_parse(spec, out);
    if (st == FC_OK) return FC_OK;
    /* the parser quotes the spec ("'sma:0': period must be >= 1") or says it is empty */
    return fc_error_wrap(st, spec[0] && fc_last_error()[0] == '\'' ? "%s: spec " : "%s: spec: ", fn);
}

/* Any spec, the batched engine's or TA-Lib's other functions' ("atr:14",
 * "bbands:20:2:2:1"), parsed as the indicator set parses it. */
fc_status fcast_indicator_outputs(const char *spec, size_t *n_outputs) {
    static const char fn[] = "fcast_indicator_outputs";
    fcast_indicator_set *s = NULL;
    FC_TRY(fc_api_indicator_one(fn, spec, 0, &s));
    if (n_outputs) *n_outputs = fcast_indicator_set_n_columns(s);
    fcast_indicator_set_free(s);
    return n_outputs ? FC_OK : fc_error(FC_ERR_INVALID, "%s: n_outputs is NULL", fn);
}

fc_status fcast_indicator_lookback(const char *spec, size_t *lookback) {
    static const char fn[] = "fcast_indicator_lookback";
    fcast_indicator_set *s = NULL;
    FC_TRY(fc_api_indicator_one(fn, spec, 0, &s));
    if (lookback) *lookback = fc_api_indicator_lookback(s, 0);
    fcast_indicator_set_free(s);
    return lookback ? FC_OK : fc_error(FC_ERR_INVALID, "%s: lookback is NULL", fn);
}

/* [a, a + n) and [b, b + n) doubles share memory. */
static int overlap(const double *a, const double *b, size_t n) {
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b, len = (uintptr_t)n * sizeof(double);
    return n && x < y + len && y < x + len;
}

static const char *output_names(const fc_ind_spec *s) {
    return s->kind == FC_IND_BBANDS ? " (upper, middle, lower)" : s->kind == FC_IND_MACD ? " (macd, signal, hist)" : "";
}

/* outs: the spec's number of arrays, none NULL, none sharing memory with x
 * (which is read behind the point written) or with another output. */
static fc_status check_outs(const char *fn, const char *spec, const fc_ind_spec *s, const double *x, size_t n,
                            double *const *outs, size_t n_outs) {
    size_t want = (size_t)fc_ind_n_outputs(s);
    if (n_outs != want)
        return fc_error(FC_ERR_INVALID, "%s: n_outs = %zu, but '%s' has %zu output%s%s", fn, n_outs, spec, want,
                        want > 1 ? "s" : "", output_names(s));
    if (!outs) return fc_error(FC_ERR_INVALID, "%s: outs is NULL (expected %zu output array%s)", fn, want,
                               want > 1 ? "s" : "");
    for (size_t k = 0; k < want; k++) {
        if (!outs[k]) return fc_error(FC_ERR_INVALID, "%s: outs[%zu] is NULL", fn, k);
        if (overlap(outs[k], x, n))
            return fc_error(FC_ERR_INVALID, "%s: outs[%zu] overlaps the input: outputs need arrays of their own", fn,
                            k);
        for (size_t j = 0; j < k; j++)
            if (overlap(outs[k], outs[j], n))
                return fc_error(FC_ERR_INVALID, "%s: outs[%zu] overlaps outs[%zu]", fn, k, j);
    }
    return FC_OK;
}

static fc_status compute(const char *fn, const fc_ind_spec *s, const double *x, const size_t *offsets,
                         size_t n_series, double *const *outs) {
    fc_status st = fc_ind_compute(s, x, NULL, offsets, n_series, NULL, outs, NULL);
    return st == FC_OK ? FC_OK : fc_error_wrap(st, "%s: ", fn);
}

fc_status fcast_indicator(const char *spec, const double *x, size_t n, double *const *outs, size_t n_outs) {
    static const char fn[] = "fcast_indicator";
    fc_ind_spec s;
    FC_TRY(parse_spec(fn, spec, &s));
    if (!x) return fc_error(FC_ERR_INVALID, "%s: x is NULL", fn);
    FC_TRY(check_outs(fn, spec, &s, x, n, outs, n_outs));
    const size_t offsets[2] = {0, n};
    return compute(fn, &s, x, offsets, 1, outs);
}

/* indptr -> the engine's offsets, checked: starts at 0, never decreases (api_quant.h). */
fc_status fc_api_offsets_from_indptr(const char *fn, size_t n_series, const int64_t *indptr, size_t **out) {
    if (!indptr) return fc_error(FC_ERR_INVALID, "%s: indptr is NULL (expected n_series + 1 offsets)", fn);
    if (indptr[0] != 0) return fc_error(FC_ERR_INVALID, "%s: indptr[0] = %lld: must be 0", fn, (long long)indptr[0]);
    for (size_t i = 0; i < n_series; i++)
        if (indptr[i + 1] < indptr[i])
            return fc_error(FC_ERR_INVALID, "%s: indptr[%zu] = %lld < indptr[%zu] = %lld: offsets may not decrease",
                            fn, i + 1, (long long)indptr[i + 1], i, (long long)indptr[i]);
    size_t *off = fc_malloc((n_series + 1) * sizeof *off, "indicator offsets");
    if (!off) return fc_error_wrap(FC_ERR_MEMORY, "%s: ", fn);
    for (size_t i = 0; i <= n_series; i++) off[i] = (size_t)indptr[i];
    *out = off;
    return FC_OK;
}

fc_status fcast_indicator_grouped(const char *spec, size_t n_series, const int64_t *indptr, const double *values,
                                  double *const *outs, size_t n_outs) {
    static const char fn[] = "fcast_indicator_grouped";
    fc_ind_spec s;
    FC_TRY(parse_spec(fn, spec, &s));
    size_t *offsets = NULL;
    FC_TRY(fc_api_offsets_from_indptr(fn, n_series, indptr, &offsets));
    size_t n = offsets[n_series];
    fc_status st = values ? check_outs(fn, spec, &s, values, n, outs, n_outs)
                          : fc_error(FC_ERR_INVALID, "%s: values is NULL", fn);
    if (st == FC_OK) st = compute(fn, &s, values, offsets, n_series, outs);
    free(offsets);
    return st;
}
