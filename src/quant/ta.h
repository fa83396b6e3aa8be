/* Every TA-Lib function (201, TA-Lib 0.8.1's set), over many series at
 * once, with TA-Lib's names, parameters, defaults, outputs and values.
 *
 * The registry describes each function as talib.abstract does (group,
 * inputs, parameters, outputs, lookback); fc_ta_compute runs one over
 * series stored back to back (series s holds rows offsets[s] ..
 * offsets[s+1]), one series per thread, or one per GPU thread on a backend
 * that has ta_segments. The bodies are kernels/ta/ta_<group>.h.
 *
 *     const fc_ta_func *atr = fc_ta_find("atr");
 *     double par[FC_TA_MAX_PARAMS];
 *     FC_TRY(fc_ta_params(atr, NULL, 0, par));                 // the defaults
 *     const double *in[] = { high, low, close };              // atr->inputs order
 *     double *out[] = { atr14 };
 *     FC_TRY(fc_ta_compute(atr, par, in, NULL, offsets, n_series, NULL, out, NULL));
 */
#ifndef FC_QUANT_TA_H
#define FC_QUANT_TA_H

#include <stddef.h>
#include <stdint.h>
#include "fcast/status.h"
#include "kernels/ta/ta_call.h"
#include "quant/indicators.h"   /* fc_ind_options: NaN policy, threads, backend */

typedef enum { FC_TA_PARAM_INT = 0, FC_TA_PARAM_REAL, FC_TA_PARAM_MATYPE } fc_ta_param_type;

typedef struct {
    const char *name;        /* "timeperiod" */
    fc_ta_param_type type;
    double def, min, max;    /* TA-Lib's default and accepted range */
} fc_ta_param;

typedef struct {
    const char *role;        /* "high", "real", "real0", "periods", ... */
    const char *column;      /* the column it reads by default: "high", "close", ... */
} fc_ta_input;

typedef struct {
    const char *name;        /* "ATR" */
    const char *group;       /* "Volatility Indicators" */
    const char *display;     /* "Average True Range" */
    int n_inputs;
    fc_ta_input inputs[FC_TA_MAX_INPUTS];
    int n_params;
    fc_ta_param params[FC_TA_MAX_PARAMS];
    int n_outputs;
    const char *outputs[FC_TA_MAX_OUTPUTS];
    unsigned int_outputs;    /* bit k: output k is an integer (patterns, indices) */
    int unstable;            /* TA-Lib flags an unstable period (one can set it: fc_ta_set_unstable_period) */
    int unstable_affected;   /* TA-Lib changes its values when another function's unstable period is set */
    int default_lookback;    /* TA-Lib's, at the defaults (from the inventory) */
} fc_ta_desc;

typedef struct {
    fc_ta_desc desc;
    const fc_ta_impl *impl;  /* NULL: not written yet */
} fc_ta_func;

size_t fc_ta_count(void);
const fc_ta_func *fc_ta_at(size_t i);
/* By name, case-insensitive ("atr", "CDLDOJI"); NULL if TA-Lib has none. */
const fc_ta_func *fc_ta_find(const char *name);

/* TA-Lib's TA_SetUnstablePeriod: the first `period` values a function with
 * an unstable period (desc.unstable) would give are dropped, its outputs
 * start `period` bars later (name "ALL": every such function). Global, as
 * in TA-Lib. FC_ERR_INVALID for a function without one. */
fc_status fc_ta_set_unstable_period(const char *name, int period);
int fc_ta_unstable_period(const fc_ta_func *f);
/* Some function's unstable period is not 0. */
int fc_ta_any_unstable_period(void);

/* Bit k: output k of f is a bar's index in its series (MAXINDEX, MININDEX,
 * MINMAXINDEX), counted from the series' first row as TA-Lib's Python
 * package counts them (leading NaNs included). */
unsigned fc_ta_index_outputs(const fc_ta_func *f);

/* Fills par[0..n_params) from given[0..n_given) in TA-Lib's order, the
 * defaults for the rest; checks types (integers whole) and ranges. Errors
 * name the function, the parameter and the range. */
fc_status fc_ta_params(const fc_ta_func *f, const double *given, int n_given, double *par);

/* TA-Lib's lookback at these parameters; -1 for a function without a body
 * (none: test_ta_fixtures fails on one). */
int fc_ta_lookback(const fc_ta_func *f, const double *par);

/* Computes f on every series. in[i]: (n_rows) values of input i (the
 * desc's order); mask: NULL or (n_rows), 0 for a missing row (NaN in every
 * input); out[k]: (n_rows) for k < n_outputs: NaN for the lookback and
 * where TA-Lib gives nothing. A bar is missing when any input is NaN there.
 * Leading missing bars are skipped (as the ta-lib package does); later ones
 * follow opt->nan: POISON runs them through TA-Lib's arithmetic, RESTART
 * starts a new segment after each. no_output: NULL or (n_series), 1 for a
 * series with no value. */
fc_status fc_ta_compute(const fc_ta_func *f, const double *par, const double *const *in,
                        const uint8_t *mask, const size_t *offsets, size_t n_series,
                        const fc_ind_options *opt, double *const *out, uint8_t *no_output);

/* A spec's text: SAREXT's eight reals as written take ~100 characters. */
#define FC_TA_SPEC_CAP 192

/* A function with its parameters, as `--ind atr:14` names it. */
typedef struct {
    const fc_ta_func *f;
    double par[FC_TA_MAX_PARAMS];
    int n_given;                      /* parameters written in the spec */
    char text[FC_TA_SPEC_CAP];        /* "atr:14": lower-case name, the given parameters */
    char label[FC_TA_SPEC_CAP];       /* "atr_14": the column prefix */
} fc_ta_spec;

/* Parses "name[:p1[:p2...]]" (name case-insensitive, TA-Lib's parameter
 * order, TA-Lib's defaults for the rest). Errors quote the spec:
 * "'atr:0': ATR: timeperiod must be in [1, 100000], got 0". FC_ERR_INVALID
 * with "unknown" in the message when TA-Lib has no such function. */
fc_status fc_ta_spec_parse(const char *text, fc_ta_spec *out);

/* Column name of output k: the label, plus "_" and TA-Lib's output name
 * when there are several ("stoch_slowk"). */
void fc_ta_spec_column(const fc_ta_spec *s, int k, char *buf, size_t cap);

#endif
