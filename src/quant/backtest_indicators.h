/* The indicators the backtest rules read, on one price series, computed by
 * the project's indicator library (quant/indicators.h). A thin adapter, so
 * the rules depend on three calls only. Outputs are NaN before the
 * indicator's lookback. */
#ifndef FC_QUANT_BACKTEST_INDICATORS_H
#define FC_QUANT_BACKTEST_INDICATORS_H

#include <stddef.h>
#include "fcast/status.h"

fc_status fc_bt_compute_sma(const double *close, size_t n, size_t period, double *out);
fc_status fc_bt_compute_rsi(const double *close, size_t n, size_t period, double *out);
fc_status fc_bt_compute_bbands(const double *close, size_t n, size_t period, double k, double *upper,
                               double *middle, double *lower);

#endif
