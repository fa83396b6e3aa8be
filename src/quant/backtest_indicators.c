/* The backtest rules' indicators from the project's indicator library
 * (quant/indicators.h, TA-Lib's arithmetic), one series at a time: the
 * backtester already runs one (combination, symbol) pair per thread, so the
 * library is asked for one thread. */
#include "quant/backtest_indicators.h"

#include "core/error.h"
#include "quant/indicators.h"

static fc_status compute(fc_ind_kind kind, const double *params, int n_params, const double *close, size_t n,
                         double *const *out) {
    fc_ind_spec spec;
    FC_TRY(fc_ind_spec_init(&spec, kind, params, n_params));
    const size_t offsets[2] = {0, n};
    fc_ind_options opt = fc_ind_options_default();
    opt.threads = 1;
    opt.streaming = 0;
    return fc_ind_compute(&spec, close, NULL, offsets, 1, &opt, out, NULL);
}

fc_status fc_bt_compute_sma(const double *close, size_t n, size_t period, double *out) {
    const double p[1] = {(double)period};
    double *outs[1] = {out};
    return compute(FC_IND_SMA, p, 1, close, n, outs);
}

fc_status fc_bt_compute_rsi(const double *close, size_t n, size_t period, double *out) {
    const double p[1] = {(double)period};
    double *outs[1] = {out};
    return compute(FC_IND_RSI, p, 1, close, n, outs);
}

fc_status fc_bt_compute_bbands(const double *close, size_t n, size_t period, double k, double *upper,
                               double *middle, double *lower) {
    const double p[3] = {(double)period, k, k};
    double *outs[3] = {upper, middle, lower};
    return compute(FC_IND_BBANDS, p, 3, close, n, outs);
}
