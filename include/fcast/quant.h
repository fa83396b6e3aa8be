/* Trading analytics of libfcast.so (docs/c-api.md, "Trading analytics"):
 * indicators, options, risk, portfolios, backtests. Included by fcast.h;
 * include that. */
#ifndef FCAST_QUANT_H
#define FCAST_QUANT_H

#include "fcast/library.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Trading analytics (docs/c-api.md, "Trading analytics"): TA-Lib's     */
/* indicators, options (Black-Scholes, Monte Carlo), risk measures and */
/* portfolio weights over the caller's arrays; nothing to free but a   */
/* device and a file's returns (their _free). Errors name the argument */
/* and the index at fault ("vol[3] = -0.2").                           */
/* ------------------------------------------------------------------ */

/* Indicators, with TA-Lib 0.8.1's values (docs/quant-indicators.md).
 * spec is the text of `fcast quant indicators --ind`: "sma:20", "ema:10",
 * "wma:10", "rsi:14", "mom:10", "roc:10", "stddev:5:1", "bbands:20:2:2",
 * "macd:12:26:9", "zscore:20" (parameters in TA-Lib's order; omitted ones
 * take TA-Lib 0.8.1's defaults: bbands' period is 20, 5 before 0.8.1;
 * zscore, fcast's own, takes 20).
 * Its outputs: 3 for bbands (upper, middle, lower) and macd (macd, signal,
 * hist), 1 otherwise. */
fc_status fcast_indicator_outputs(const char *spec, size_t *n_outputs);
/* TA-Lib's lookback: the NaNs that start the outputs of a series without NaN. */
fc_status fcast_indicator_lookback(const char *spec, size_t *lookback);
/* One series x[0 .. n) into outs[k][0 .. n) for k < n_outs, which must be
 * the spec's number of outputs: NaN for the first lookback values (all of
 * them when n <= lookback) and where the indicator is undefined, as
 * TA-Lib's Python functions return them. Leading NaNs of x are skipped
 * (the series starts at its first number); a later NaN enters the running
 * sums as in TA-Lib. The outputs may not overlap x or each other. */
fc_status fcast_indicator(const char *spec, const double *x, size_t n, double *const *outs, size_t n_outs);
/* The same for n_series series in the grouped layout of
 * fcast_data_from_arrays: series i is values[indptr[i] .. indptr[i+1])
 * (indptr[0] = 0, never decreasing; a series may be empty), each on its
 * own; outs[k] has indptr[n_series] values. Large inputs run on all cores. */
fc_status fcast_indicator_grouped(const char *spec, size_t n_series, const int64_t *indptr, const double *values,
                                  double *const *outs, size_t n_outs);

/* Several indicators computed in one pass over the data (each series read
 * once for all): the comma-separated specs of `fcast quant indicators
 * --ind` ("sma:20,rsi:14,bbands:20:2"), each at most once, at most 64. */
#define FCAST_INDICATOR_MAX_SPECS 64
typedef struct fcast_indicator_set fcast_indicator_set;
fc_status fcast_indicator_set_parse(const char *specs, fcast_indicator_set **out);
size_t fcast_indicator_set_size(const fcast_indicator_set *s);
/* Spec j in its canonical text ("bbands:20:2", what fcast_indicator_lookback
 * takes), NULL past the end. */
const char *fcast_indicator_set_spec(const fcast_indicator_set *s, size_t j);
/* The output columns of all specs, spec by spec, each spec's outputs in
 * fcast_indicator's order: column c's name ("sma_20", "bbands_20_2_upper";
 * the spec with '_' for ':', then the output's name when there are
 * several), NULL past the end. */
size_t fcast_indicator_set_n_columns(const fcast_indicator_set *s);
const char *fcast_indicator_set_column(const fcast_indicator_set *s, size_t c);
void fcast_indicator_set_free(fcast_indicator_set *s);

/* What a NaN inside a series does: POISON, TA-Lib's (it enters the running
 * sums); RESTART, each run between NaNs is a series of its own. */
typedef enum { FCAST_NAN_POISON = 0, FCAST_NAN_RESTART = 1 } fcast_nan_policy;
typedef struct fcast_device fcast_device;   /* where the work runs: fcast_device_open below */
typedef struct {
    fcast_nan_policy nan;
    int threads;                  /* 0: all cores */
    const fcast_device *device;   /* NULL: the CPU */
} fcast_indicator_options;
/* Every spec of s over the series of fcast_indicator_grouped's layout
 * (o NULL: POISON, all cores, the CPU): outs[c] (indptr[n_series] values)
 * for each of the n_outs = fcast_indicator_set_n_columns(s) columns.
 * too_short (may be NULL): (size(s), n_series) row-major, 1 where a series
 * is too short (under RESTART, after its gaps) for spec j to give a value. */
fc_status fcast_indicator_set_compute(const fcast_indicator_set *s, const fcast_indicator_options *o,
                                      size_t n_series, const int64_t *indptr, const double *values,
                                      double *const *outs, size_t n_outs, uint8_t *too_short);

/* Any of TA-Lib's functions in a set ("atr:14,adx,stoch:5:3:0:3:0,
 * cdlengulfing": TA-Lib's names and parameter order, its defaults for the
 * rest; `fcast quant indicators --list` lists them) reads the columns
 * TA-Lib's abstract API names for it (open, high, low, close, volume; MAVP
 * also periods): cols->names[i] names cols->values[i] (indptr[n_series]
 * values each, NaN where missing). The engine's own specs (sma, ema, wma,
 * bbands, rsi, macd, mom, roc, stddev, zscore) read the close.
 * fcast_indicator_set_compute is this with one column, the close. */
typedef struct {
    size_t n;
    const char *const *names;
    const double *const *values;
} fcast_columns;
fc_status fcast_indicator_set_compute_columns(const fcast_indicator_set *s, const fcast_indicator_options *o,
                                              size_t n_series, const int64_t *indptr, const fcast_columns *cols,
                                              double *const *outs, size_t n_outs, uint8_t *too_short);
/* One spec, fcast_indicator's or any of TA-Lib's, over its inputs in
 * TA-Lib's order (fcast_ta_describe's inputs: high, low, close for "atr";
 * the close alone for "sma"), n_inputs of them, each indptr[n_series]
 * values in fcast_indicator_grouped's layout; outs[k] for k < n_outs, the
 * function's outputs in TA-Lib's order. TA-Lib's own arithmetic runs even
 * for the engine's names (the drop-in's promise: RSI after a NaN is 0, as
 * in TA-Lib, where fcast_indicator's stays NaN). */
fc_status fcast_indicator_inputs(const char *spec, size_t n_series, const int64_t *indptr,
                                 const double *const *inputs, size_t n_inputs, double *const *outs, size_t n_outs);
/* Input i of spec j: the column it reads ("high"), NULL past the end. */
const char *fcast_indicator_set_input(const fcast_indicator_set *s, size_t j, size_t i);
/* 1 when column c holds whole numbers (patterns' -100/0/100, indices). */
int fcast_indicator_set_column_is_integer(const fcast_indicator_set *s, size_t c);
/* TA-Lib's functions as JSON, as talib.abstract describes them: an array of
 * {"name", "group", "display_name", "inputs": [{"role", "column"}],
 * "parameters": [{"name", "type" ("integer", "real", "matype"),
 * "default", "min", "max"}], "outputs": [...], "integer_outputs": [...],
 * "lookback" (at the defaults), "unstable_period", "available"}. Static. */
const char *fcast_ta_functions_json(void);
/* The same, function by function (i < fcast_ta_count()), for C callers. */
#define FCAST_TA_MAX_INPUTS 5
#define FCAST_TA_MAX_PARAMS 8
#define FCAST_TA_MAX_OUTPUTS 4
typedef struct {
    const char *name, *group, *display_name;
    size_t n_inputs;
    const char *inputs[FCAST_TA_MAX_INPUTS];        /* the columns read: "high", "close", "periods" */
    size_t n_params;
    const char *param_names[FCAST_TA_MAX_PARAMS];
    const char *param_types[FCAST_TA_MAX_PARAMS];   /* "integer", "real", "matype" */
    double param_defaults[FCAST_TA_MAX_PARAMS], param_min[FCAST_TA_MAX_PARAMS], param_max[FCAST_TA_MAX_PARAMS];
    size_t n_outputs;
    const char *outputs[FCAST_TA_MAX_OUTPUTS];
    unsigned integer_outputs;                       /* bit k: output k holds whole numbers */
    size_t lookback;                                /* at the defaults */
    int unstable_period, available;
} fcast_ta_info;
size_t fcast_ta_count(void);
fc_status fcast_ta_describe(size_t i, fcast_ta_info *out);
/* TA-Lib's TA_SetUnstablePeriod, process-wide as in TA-Lib: a function with
 * an unstable period (fcast_ta_info.unstable_period: ADX, ATR, EMA, RSI,
 * the HT_ functions, ...) drops its first `period` values, its outputs
 * starting that many bars later; name "ALL" sets every one. A function
 * that TA-Lib feeds such a period into (MACD, STOCHRSI, any with a matype)
 * is refused while one is set, rather than computed otherwise than TA-Lib. */
fc_status fcast_ta_set_unstable_period(const char *name, size_t period);
fc_status fcast_ta_unstable_period(const char *name, size_t *period);

typedef enum { FCAST_PUT = 0, FCAST_CALL = 1 } fcast_option_type;

/* n options on a stock with a continuous dividend yield, one value per
 * option in each array: type[i] (FCAST_CALL or FCAST_PUT), spot[i] > 0,
 * strike[i] > 0, rate[i] (continuously compounded) and div[i] finite,
 * vol[i] > 0, expiry[i] > 0 in years. rate and div may be NULL: 0. */
typedef struct {
    size_t n;
    const int *type;
    const double *spot, *strike, *rate, *div, *vol, *expiry;
} fcast_option_arrays;

/* European prices and Greeks under Black-Scholes-Merton into arrays of
 * o->n values, any of them NULL when not wanted. QuantLib's units: vega
 * and rho per 1.00 of volatility and rate, theta per year. */
fc_status fcast_bs_european(const fcast_option_arrays *o, double *price, double *delta, double *gamma,
                            double *vega, double *theta, double *rho);
/* Discrete geometric-average-price Asian options in closed form (Kemna and
 * Vorst; QuantLib's AnalyticDiscreteGeometricAveragePriceAsianEngine):
 * the average of n_fixings prices at fixing_times[0 .. n_fixings), sorted
 * and within [0, expiry[i]] for every option (0: today's spot is one), or,
 * fixing_times NULL, at expiry[i] j / n_fixings for j = 1 .. n_fixings. */
fc_status fcast_asian_geometric(const fcast_option_arrays *o, const double *fixing_times, size_t n_fixings,
                                double *price);

/* One option priced by Monte Carlo as `fcast quant option` does: exact
 * lognormal paths from counter-based draws, so that a seed gives the same
 * price on any number of threads. A field left 0 takes the default said. */
typedef struct {
    int type;                   /* FCAST_CALL or FCAST_PUT */
    int asian;                  /* 0: European; 1: arithmetic-average-price Asian */
    double spot, strike, rate, div, vol, expiry;   /* as in fcast_option_arrays */
    const double *fixing_times; /* Asian: n_fixings sorted times in [0, expiry]; NULL: expiry j / n_fixings */
    size_t n_fixings;           /* Asian: fixings of the average; 0: 12 */
    size_t steps;               /* European: time steps per path; 0: 1 (the paths are exact) */
    uint64_t paths;             /* 0: 1000000; rounded up to whole draws (2 paths, 4 with antithetic) */
    uint64_t seed;              /* any value (the CLI's default is 42) */
    int antithetic;             /* 1: each path with its mirror */
    int no_control_variate;     /* Asian: 1 to go without the geometric-average control variate */
} fcast_mc_option;

typedef struct {
    double price, std_error;    /* the estimate and its standard error */
    double ci_low, ci_high;     /* 95%: price -+ 1.959964 std_error */
    uint64_t paths;             /* paths simulated */
} fcast_mc_result;

fc_status fcast_mc_price(const fcast_mc_option *o, fcast_mc_result *out);

/* Where Monte Carlo prices run, as `fcast quant option --device` says:
 * "auto" (NULL too: GPU 0 when one with fcast's quant kernels is usable,
 * else the CPU), "cpu", "cuda" or "cuda:N". A GPU runs the CPU's draws in
 * the same order (equal but for the last bits of exp, log, sin, cos).
 * cuda without a usable GPU is FC_ERR_BACKEND naming the device and the
 * check that failed ("device cuda:0: no CUDA backend: ..."); a name that
 * is none of these forms is FC_ERR_INVALID. */
fc_status fcast_device_open(const char *device, fcast_device **out);
/* One line saying which device runs and, under auto, why not a GPU:
 * "device: cpu", "device: cpu (no GPU: ...)", "device: cuda:0 (...)". */
const char *fcast_device_note(const fcast_device *d);
/* The forms of a device name, for help texts. */
#define FCAST_DEVICE_FORMS "auto | cpu | cuda | cuda:N"
/* *gpu 1 when device names a GPU (cuda, cuda:N), 0 for auto (NULL too) and
 * cpu; FC_ERR_INVALID naming the forms for any other text. */
fc_status fcast_device_is_gpu(const char *device, int *gpu);
void fcast_device_free(fcast_device *d);

/* What a Monte Carlo estimate is made of (`fcast quant option` prints it). */
typedef struct {
    uint64_t samples;                    /* independent samples (an antithetic pair counts once) */
    double plain_price, plain_std_error; /* without the control variate (else price and std_error) */
    double geo_mc, geo_mc_std_error;     /* Asian: Monte Carlo mean of the geometric-average payoff */
    double geo_exact;                    /* Asian: its closed form (Kemna-Vorst) */
    double cv_beta;                      /* the control variate's coefficient; 0 when not used */
} fcast_mc_detail;

/* fcast_mc_price on dev (NULL: the CPU), the same price for a seed, with
 * *detail (may be NULL) filled too. */
fc_status fcast_mc_price_on(const fcast_mc_option *o, const fcast_device *dev, fcast_mc_result *out,
                            fcast_mc_detail *detail);
/* A priced option as the one-line JSON object that `fcast quant option
 * --json` prints and the service's POST /v1/quant/option answers (keys in
 * a fixed order, 17 digits, so every double reads back as the same bits):
 * type, option, price, stderr, ci_low, ci_high, paths, then for an Asian
 * option geometric_price and the price and stderr without the control
 * variate (from detail), for a European one bs_price and the Greeks
 * (greeks[6]: price, delta, gamma, vega, theta, rho, as fcast_bs_european
 * gives them). malloc'ed (free it); NULL when out of memory. */
char *fcast_mc_option_json(const fcast_mc_option *o, const fcast_mc_result *r, const fcast_mc_detail *detail,
                           const double greeks[6]);

/* Risk of n simple returns per period (252 periods a year; returns finite
 * and not below -1), with empyrical's conventions: volatility and Sharpe
 * from the ddof-1 standard deviation, risk-free rate and required return 0. */
typedef struct {
    size_t n;
    double mean;                /* per period */
    double annual_return;       /* CAGR: prod(1 + r)^(252 / n) - 1 */
    double annual_volatility;   /* std(r) sqrt(252) */
    double sharpe;              /* mean / std sqrt(252); NaN when the returns are constant */
    double sortino;             /* downside deviation over all periods; +inf when none lost */
    double max_drawdown;        /* <= 0, of the wealth prod(1 + r) from 1 */
} fcast_risk;

/* n >= 2. */
fc_status fcast_risk_summary(const double *returns, size_t n, fcast_risk *out);
/* One-period value at risk and expected shortfall at a confidence level in
 * (0, 1), losses positive. Historical (n >= 1): the k-th worst return,
 * k = ceil((1 - level) n) (QuantLib's percentile), and the mean of the k
 * worst. Normal (n >= 2): from the mean and the ddof-1 standard deviation. */
fc_status fcast_var_historical(const double *returns, size_t n, double level, double *var, double *cvar);
fc_status fcast_var_normal(const double *returns, size_t n, double level, double *var, double *es);

/* Portfolios of n_assets from n_periods returns of each, row-major:
 * returns[t * n_assets + j] (a DataFrame's values); every value finite,
 * n_periods >= 2, 1 <= n_assets <= 4096. The sample mean (n_assets) and
 * covariance (n_assets x n_assets, ddof 1) per period: */
fc_status fcast_portfolio_moments(const double *returns, size_t n_periods, size_t n_assets, double *mean,
                                  double *cov);
/* Fully invested weights (summing to 1, shorts allowed, closed form): of
 * least variance, and of least variance earning `target` per period
 * (mean'w = target; n_assets >= 2). */
fc_status fcast_portfolio_min_variance(const double *returns, size_t n_periods, size_t n_assets, double *weights);
fc_status fcast_portfolio_target_return(const double *returns, size_t n_periods, size_t n_assets, double target,
                                        double *weights);

/* The returns matrix of a long CSV file (unique_id, ds, y; other columns
 * ignored), as `fcast quant risk` and `fcast quant portfolio` read --data:
 * rows as given (no frequency grid: trading days leave weekends out), the
 * series aligned on ds by an inner join (the ds where every series has a
 * value), then simple returns p_t / p_{t-1} - 1 between consecutive kept
 * ds of prices (all > 0, at least 3 common ds), or, are_returns 1, y as
 * given (finite and above -1, at least 2 common ds). Errors name the
 * file, the line, the series and the ds. Series in sorted id order. */
typedef struct fcast_returns fcast_returns;
fc_status fcast_returns_read_csv(const char *path, int are_returns, fcast_returns **out);
size_t fcast_returns_n_periods(const fcast_returns *r);
size_t fcast_returns_n_assets(const fcast_returns *r);
/* The id of series j, NULL past the end. */
const char *fcast_returns_id(const fcast_returns *r, size_t j);
/* returns[t * n_assets + j]: the matrix fcast_risk_summary's columns and
 * fcast_portfolio_*'s returns come from, owned by r. */
const double *fcast_returns_values(const fcast_returns *r);
void fcast_returns_free(fcast_returns *r);

/* A long CSV file (unique_id, ds, y; other columns ignored) with its rows
 * as given, as `fcast quant indicators` and `fcast quant backtest` read
 * --data: no frequency grid (trading days leave weekends out), series in
 * sorted id order, each in ds order, an empty y missing (NaN). Errors name
 * the file, the line and the series. */
typedef struct fcast_table fcast_table;
fc_status fcast_table_read_csv(const char *path, fcast_table **out);
size_t fcast_table_n_series(const fcast_table *t);
/* The id of series i, NULL past the end. */
const char *fcast_table_id(const fcast_table *t, size_t i);
/* The grouped layout (fcast_indicator_grouped's), owned by t: series i is
 * values[indptr[i] .. indptr[i+1]), NaN where missing. */
const int64_t *fcast_table_indptr(const fcast_table *t);
const double *fcast_table_values(const fcast_table *t);
/* The ds of row `row` as fcast writes it ("2024-01-31", "2024-01-31
 * 09:30:00", "17") into buf, cap >= 48. */
fc_status fcast_table_ds_text(const fcast_table *t, size_t row, char *buf, size_t cap);
void fcast_table_free(fcast_table *t);
/* The same, keeping the file's other columns (open, high, low, close,
 * volume, ...: numbers, an empty cell missing) for TA-Lib's functions, y
 * optional: without a y column the close stands for it in
 * fcast_table_values. */
fc_status fcast_table_read_prices(const char *path, fcast_table **out);
/* The columns besides unique_id, ds and y (0 from fcast_table_read_csv). */
size_t fcast_table_n_columns(const fcast_table *t);
const char *fcast_table_column_name(const fcast_table *t, size_t k);
/* Column `name` (fcast_table_indptr's layout, NaN where missing), NULL if
 * the file has none. */
const double *fcast_table_column(const fcast_table *t, const char *name);

/* Backtests of a trading rule over a grid of its parameters, as `fcast
 * quant backtest` runs them (docs/quant-analytics.md): a position decided
 * on the close of bar t earns the return of bar t+1; costs are cost_bps
 * basis points per unit of turnover. Rules and their parameters:
 * "sma-cross" (fast, slow), "rsi" (period, lower, upper), "bbands"
 * (period, k). Messages name a parameter by these names. */
typedef enum { FCAST_RULE_SMA_CROSS = 0, FCAST_RULE_RSI = 1, FCAST_RULE_BBANDS = 2 } fcast_rule;
fc_status fcast_rule_parse(const char *name, fcast_rule *out);
/* The rule's name and its parameters' (NULL past the end or for no rule). */
const char *fcast_rule_name(fcast_rule r);
size_t fcast_rule_n_params(fcast_rule r);
const char *fcast_rule_param_name(fcast_rule r, size_t i);
/* The product of one range per parameter: ranges[i] for parameter i,
 * "start:stop:step" (inclusive), "start:stop" (step 1) or one value; NULL
 * (or i >= n_ranges) takes the default (fast 5:50:5, slow 20:200:10;
 * period 14, lower 30, upper 70; period 20, k 2). Combinations with fast
 * >= slow or lower >= upper are skipped; every one kept is checked
 * (periods whole numbers from 1, 2 for rsi and bbands, to 100000; RSI
 * thresholds in [0, 100]; k > 0). A grid with none left is FC_ERR_INVALID. */
typedef struct fcast_grid fcast_grid;
fc_status fcast_grid_new(fcast_rule rule, const char *const *ranges, size_t n_ranges, fcast_grid **out);
size_t fcast_grid_size(const fcast_grid *g);
size_t fcast_grid_skipped(const fcast_grid *g);
fcast_rule fcast_grid_rule(const fcast_grid *g);
/* The fcast_rule_n_params values of combination c, NULL past the end. */
const double *fcast_grid_params(const fcast_grid *g, size_t c);
void fcast_grid_free(fcast_grid *g);

typedef struct {
    double cost_bps;   /* in [0, 10000) */
    int allow_short;   /* 1: long-short; 0: long-only */
} fcast_backtest_options;
/* Of one combination on one series: total return; CAGR (252 bars a year);
 * Sharpe (ddof 1, sqrt(252); NaN if the strategy never moves); maximum
 * drawdown (<= 0); trades opened, trades closed and the fraction of closed
 * trades that gained (NaN when none closed). */
typedef struct {
    double total_return, cagr, sharpe, max_drawdown, hit_rate;
    size_t trades, closed_trades;
} fcast_backtest_metrics;
/* Every combination of g on every series of closes in the grouped layout
 * (NaN closes skipped; at least 2 left, all > 0, each period no longer than
 * the series): out (fcast_grid_size(g), n_series) row-major. ids (may be
 * NULL) name the series in messages. */
fc_status fcast_backtest(const fcast_grid *g, const fcast_backtest_options *o, size_t n_series, const int64_t *indptr,
                         const double *close, const char *const *ids, fcast_backtest_metrics *out);

/* Portfolio backtests (docs/quant-analytics.md, "fcast quant backtest"):
 * a signal, a target position per bar in [-1, 1] (a fraction of equity,
 * negative short), decided on the close of bar t and traded at that close,
 * in a cash account with vectorbt's arithmetic (Portfolio.from_orders with
 * size_type 'targetpercent'): fees and slippage, sizing, a volatility
 * target, stops, then vectorbt's metrics. An order goes out only when the
 * target changes (by more than 1e-9 relative); between orders the shares
 * are held. A signal comes from a built-in rule's grid, a rule written as
 * text over any indicator, a signal file, a forecast file, or the
 * caller's positions; a signal may hold several combinations (a grid),
 * each run on every series in one pass on all cores. */
typedef struct {
    double cost_bps;          /* fees per traded value, basis points, in [0, 9999] */
    double slippage_bps;      /* fill price moved against each order, basis points, in [0, 9999] */
    double fixed_cost;        /* currency per order, in [0, capital] */
    double capital;           /* starting cash (init: 1e6) */
    double size_fraction;     /* every target times this, in [0, 1] (init: 1) */
    double vol_target;        /* > 0: targets scaled to this annualised volatility (init: 0, off) */
    size_t vol_window;        /* returns of the realised volatility, 2 to 512 (init: 20) */
    double max_leverage;      /* the volatility scale's cap, in [0, 100] (init: 1) */
    double stop_loss;         /* > 0: flat when a trade loses this fraction of its entry close (init: 0) */
    double take_profit;       /* > 0: flat when it gains this fraction (init: 0) */
    double periods_per_year;  /* bars a year for the annualised metrics (init: 252) */
} fcast_backtest_config;
void fcast_backtest_config_init(fcast_backtest_config *c);

/* Of one combination on one series, over its n bar returns r_0 = E_0 /
 * capital - 1, r_t = E_t / E_{t-1} - 1 (E_t: equity after the close of t),
 * ppy = periods_per_year; each is vectorbt's (the docs give the call):
 * total_return; annual_return (1 + total)^(ppy / n) - 1; annual_volatility
 * std(r, ddof 1) sqrt(ppy); sharpe mean / std sqrt(ppy) (NaN when
 * constant); sortino mean ppy / (sqrt(mean(min(r, 0)^2)) sqrt(ppy)) (inf
 * when no bar lost); calmar annual / |max_drawdown| (NaN without a
 * drawdown); max_drawdown (<= 0, from the running peak of E_0 .. E_t);
 * max_drawdown_bars, the longest run of bars below that peak; turnover,
 * the sum over orders of traded value / equity before the order; trades
 * (positions opened, one still open included) and closed_trades; hit_rate,
 * the share of closed trades whose PnL (fees included) is > 0 (NaN when
 * none closed); end_equity, E_{n-1}. */
typedef struct {
    double total_return, annual_return, annual_volatility, sharpe, sortino, calmar, max_drawdown;
    size_t max_drawdown_bars;
    double turnover, hit_rate;
    size_t trades, closed_trades;
    double end_equity;
} fcast_backtest_stats;

typedef struct fcast_signal fcast_signal;
/* A built-in rule's grid (fcast_grid_new): positions -1, 0, 1 as
 * fcast_backtest computes them. */
fc_status fcast_signal_from_grid(const fcast_grid *g, int allow_short, fcast_signal **out);
/* The caller's positions, one combination: positions[i] for row i of the
 * grouped layout that will be run (finite in [-1, 1]; NaN: flat). */
fc_status fcast_signal_from_positions(size_t n_rows, const double *positions, fcast_signal **out);
/* A rule as text (the grammar in docs/quant-analytics.md: "cross(sma:10,
 * sma:50)", "long: crossup(close, bbands:20:2:2.lower); exit:
 * above(rsi:14, 70)"), its indicators computed on cols (close and, for
 * TA-Lib's functions that read them, open, high, low, volume) in the
 * grouped layout; one combination. Messages name --rule. */
fc_status fcast_signal_from_rule(const char *rule, int allow_short, size_t n_series, const int64_t *indptr,
                                 const fcast_columns *cols, fcast_signal **out);
/* A signal file: unique_id, ds and the position column `column` (NULL:
 * "position"), values finite in [-1, 1], each (unique_id, ds) at most
 * once and among the prices' rows. A price row without a signal holds the
 * last one before it (forward fill); rows before a series' first signal
 * are flat. Messages name --signal, the file, the line and the column. */
fc_status fcast_signal_read_csv(const char *path, const char *column, const fcast_table *prices, fcast_signal **out);
/* A forecast file of `fcast cv` (unique_id, ds, cutoff, y, models) or
 * `fcast predict` (unique_id, ds, models; its cutoff: the last price row
 * before the series' first forecast ds) turned into positions: at each
 * cutoff c, the forecast return f(c) = yhat(c, h) / y(c) - 1 of step h
 * (the h-th forecast ds after c; horizon 0: the last) over the price at c;
 * a price row t holds f of the latest cutoff <= t (flat before the first)
 * and goes long when f > long_above, short when f < short_below (with
 * allow_short), else flat. long_above and short_below are ranges
 * ("start:stop:step", one value; NULL: "0"): one combination per pair. */
typedef struct {
    const char *model;          /* the model column; NULL: the first */
    size_t horizon;             /* 1 .. h; 0: the last step */
    const char *long_above, *short_below;
    int allow_short;
} fcast_forecast_rule;
fc_status fcast_signal_from_forecast_csv(const char *path, const fcast_forecast_rule *r, const fcast_table *prices,
                                         fcast_signal **out);
size_t fcast_signal_n_combinations(const fcast_signal *s);
/* The parameters that tell combinations apart (a grid's rule parameters;
 * long_above, short_below), their names and combination c's values (NULL
 * past the end). */
size_t fcast_signal_n_params(const fcast_signal *s);
const char *fcast_signal_param_name(const fcast_signal *s, size_t i);
const double *fcast_signal_params(const fcast_signal *s, size_t c);
/* The model column a forecast signal read, else NULL. */
const char *fcast_signal_model(const fcast_signal *s);
void fcast_signal_free(fcast_signal *s);

/* Every combination of s on every series of closes in the grouped layout
 * (NaN closes skipped with their signal; the rest > 0): out
 * (fcast_signal_n_combinations(s), n_series) row-major. A signal read
 * against a price table runs on that table's layout. ids (may be NULL)
 * name the series in messages. c NULL: the defaults. */
fc_status fcast_backtest_signal(const fcast_signal *s, const fcast_backtest_config *c, size_t n_series,
                                const int64_t *indptr, const double *close, const char *const *ids,
                                fcast_backtest_stats *out);
/* Combination `combo`'s equity curve, row by row of the layout (NaN at a
 * skipped row): the exposure after the close (shares x close / equity),
 * the equity, its drawdown from the running peak (<= 0) and the bar's
 * return; any of the four may be NULL. */
fc_status fcast_backtest_curve(const fcast_signal *s, size_t combo, const fcast_backtest_config *c, size_t n_series,
                               const int64_t *indptr, const double *close, double *position, double *equity,
                               double *drawdown, double *returns);
/* Combination `combo`'s trades (positions, as vectorbt's
 * Portfolio.positions): series, the rows of the entry and exit fills,
 * direction (1 long, -1 short), size (shares), the size-weighted entry and
 * exit prices (slippage included), pnl (fees included), return = pnl /
 * (size x entry price), bars = exit row - entry row (in bars of the
 * series), and exit_reason: "signal", "stop_loss", "take_profit", or
 * "open" (still held: valued at the last close, no exit fee). *trades
 * malloc'd, fcast_backtest_trades_free it. */
typedef struct {
    size_t series, entry_row, exit_row, bars;
    int direction;
    double size, entry_price, exit_price, pnl, ret;
    const char *exit_reason;
} fcast_backtest_trade;
fc_status fcast_backtest_trades(const fcast_signal *s, size_t combo, const fcast_backtest_config *c, size_t n_series,
                                const int64_t *indptr, const double *close, fcast_backtest_trade **trades,
                                size_t *n_trades);
void fcast_backtest_trades_free(fcast_backtest_trade *trades);

/* `fcast quant backtest --json`'s line as a call, the CLI's and fcast
 * serve's POST /v1/quant/backtest's one writer: a run's signal, its
 * configuration and fcast_backtest_signal's stats (n_combinations x
 * n_series) into *json (malloc'd, compact, no trailing newline; free it):
 * {"data", "source", "model" (a forecast signal's), "combinations",
 * "symbols", "seconds", "config": {...}, "results": [{the stats' fields,
 * "symbol", "combination" (from 1), "params": {...}}, ...]}, reals as
 * %.17g, null where not finite. */
typedef struct {
    const char *data;                    /* the answer's "data": the prices' file (or source); NULL: "" */
    const char *source;                  /* "signal", "forecast", "rule" or a built-in rule's name */
    const fcast_signal *signal;
    const fcast_backtest_config *config;
    int allow_short;
    size_t n_series;
    const char *const *ids;              /* the series' names */
    const fcast_backtest_stats *stats;
    double seconds;                      /* the backtests' wall time */
} fcast_backtest_run;
fc_status fcast_backtest_json(const fcast_backtest_run *run, char **json);

#ifdef __cplusplus
}
#endif
#endif
