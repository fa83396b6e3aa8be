/* fcast: neural time-series forecasting and trading analytics in C.
 *
 * The one public header, by audience in four parts (include this one):
 *   fcast/status.h   status codes and error messages (what the engine's own
 *                    files include);
 *   fcast/library.h  the library API: data, configurations, training,
 *                    forecasting, model, output and settings files;
 *   fcast/runs.h     one whole-run call per command of the fcast CLI;
 *   fcast/quant.h    trading analytics, with its parts quant_options.h
 *                    (American, barrier, implied volatility) and
 *                    quant_portfolio.h (constrained portfolios).
 * Structures are opaque; every fallible call returns an fc_status and, on
 * failure, fc_last_error() says what failed, where and with which input
 * (file, line, column, series id, field). */
#ifndef FCAST_H
#define FCAST_H

#include "fcast/status.h"
#include "fcast/library.h"
#include "fcast/runs.h"
#include "fcast/quant.h"
#include "fcast/quant_options.h"
#include "fcast/quant_portfolio.h"

#endif
