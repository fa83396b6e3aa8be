/* Technical indicators over many series at once, with TA-Lib's values.
 *
 * SMA, EMA, WMA, BBANDS, RSI, MACD, MOM, ROC, STDDEV and a rolling z-score,
 * computed as TA-Lib 0.8.1 computes them in its default mode (bit-identical on
 * the committed fixtures), with TA-Lib's defaults, parameter ranges and
 * lookbacks. Series are stored back to back, as in fc_dataset: series s holds
 * y[offsets[s] .. offsets[s+1]); every output array has one value per input
 * point, NaN for the first `lookback` points of a series and wherever the
 * indicator is undefined.
 *
 * Typical use (the backtester):
 *
 *     fc_ind_spec sma;
 *     FC_TRY(fc_ind_parse("sma:20", &sma));               // or fc_ind_spec_init
 *     double *out[1] = { sma20 };                          // n_rows doubles
 *     FC_TRY(fc_ind_compute(&sma, y, NULL, offsets, n_series, NULL, out, NULL));
 */
#ifndef FC_QUANT_INDICATORS_H
#define FC_QUANT_INDICATORS_H

#include <stddef.h>
#include <stdint.h>
#include "fcast/status.h"
#include "kernels/indicators.h"   /* fc_ind_kind, FC_IND_MAX_OUTPUTS */

#define FC_IND_LABEL_CAP 64

typedef struct {
    fc_ind_kind kind;
    int period;     /* timeperiod; MACD: the fast period as given */
    int slow;       /* MACD slow period as given (TA-Lib swaps fast/slow if slow < fast) */
    int signal;     /* MACD signal period */
    double dev_up;  /* BBANDS nbdevup; STDDEV nbdev */
    double dev_dn;  /* BBANDS nbdevdn */
    char label[FC_IND_LABEL_CAP]; /* column prefix: the spec as written, ':' -> '_' */
} fc_ind_spec;

/* What a NaN (or masked point) inside a series does.
 * POISON (default, TA-Lib's behaviour): the NaN enters the running sums as it
 *   does in TA-Lib; see docs/quant-indicators.md for what follows, per
 *   indicator. Leading NaNs are skipped, as the ta-lib Python package does.
 * RESTART: each run of values between NaNs is a series of its own: outputs are
 *   NaN at the gap and for `lookback` points after it. */
typedef enum { FC_NAN_POISON = 0, FC_NAN_RESTART } fc_nan_policy;

struct fc_backend;

typedef struct {
    fc_nan_policy nan;
    int threads;   /* 0: OpenMP's default */
    int streaming; /* -1: auto (large outputs bypass the cache), 0: never, 1: always */
    /* Where the segments run: NULL, or a backend without indicator_segments
     * (the CPU), runs them on the host; a GPU backend runs the same kernels
     * (kernels/indicators.h) one segment per thread, with the same bits. The
     * split into segments and the NaN policy stay on the host. */
    struct fc_backend *backend;
} fc_ind_options;

/* fc_ind_options with the defaults above. */
fc_ind_options fc_ind_options_default(void);

/* Parses one spec, "name[:p1[:p2...]]" (name case-insensitive), with TA-Lib's
 * defaults for omitted parameters. Errors (FC_ERR_PARSE / FC_ERR_INVALID) quote
 * the spec and say what was expected: "'sma:0': period must be >= 1". */
fc_status fc_ind_parse(const char *text, fc_ind_spec *out);

/* Parses a comma-separated list; *specs is fc_malloc'ed (free() it). Errors
 * name the offending spec; a spec given twice is an error. */
fc_status fc_ind_parse_list(const char *text, fc_ind_spec **specs, size_t *n);

/* Builds a spec from numbers: params[0..n_params) in TA-Lib's order
 * (timeperiod, nbdevup, nbdevdn / fast, slow, signal / timeperiod, nbdev);
 * missing ones take TA-Lib's defaults. Validates ranges. */
fc_status fc_ind_spec_init(fc_ind_spec *spec, fc_ind_kind kind, const double *params,
                           int n_params);

/* TA-Lib's lookback: the number of leading NaN outputs of a clean series. */
int fc_ind_lookback(const fc_ind_spec *spec);

int fc_ind_n_outputs(const fc_ind_spec *spec);

/* "upper"/"middle"/"lower", "macd"/"signal"/"hist", or NULL for a single output. */
const char *fc_ind_output_name(const fc_ind_spec *spec, int k);

/* Column name of output k: the label, plus "_" and the output name when there
 * are several ("bbands_20_2_upper"). */
void fc_ind_column_name(const fc_ind_spec *spec, int k, char *buf, size_t cap);

const char *fc_ind_kind_name(fc_ind_kind kind);

/* The spec as written ("bbands:20:2"), for messages. */
void fc_ind_spec_text(const fc_ind_spec *spec, char *buf, size_t cap);

/* Computes one indicator for every series. y: (n_rows) values; mask: NULL or
 * (n_rows) with 0 for a missing point (treated as NaN; y's value ignored);
 * offsets: (n_series + 1); out[k]: (n_rows) for k < fc_ind_n_outputs(spec).
 * no_output: NULL or (n_series), set to 1 for a series too short (after its
 * gaps, under RESTART) to produce a single value, 0 otherwise.
 * opt: NULL for the defaults. */
fc_status fc_ind_compute(const fc_ind_spec *spec, const double *y, const uint8_t *mask,
                         const size_t *offsets, size_t n_series, const fc_ind_options *opt,
                         double *const *out, uint8_t *no_output);

/* Several indicators in one pass over the data (each series is read from memory
 * once for all of them). outs[j][k] is output k of specs[j]; no_output: NULL or
 * (n_specs, n_series) row-major. */
fc_status fc_ind_compute_many(const fc_ind_spec *specs, size_t n_specs, const double *y,
                              const uint8_t *mask, const size_t *offsets, size_t n_series,
                              const fc_ind_options *opt, double *const *const *outs,
                              uint8_t *no_output);

#endif
