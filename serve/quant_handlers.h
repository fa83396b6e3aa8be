/* The quant endpoints beyond option and indicators, one file each (the
 * route table is quant_routes.c's): the request read under the CLI's flag
 * names, the library's computation, the answer as the CLI's --json
 * fields. POST with a JSON body is checked before they are called. */
#ifndef FC_SERVE_QUANT_HANDLERS_H
#define FC_SERVE_QUANT_HANDLERS_H

#include "http_server.h"

/* POST /v1/quant/implied-vol (quant_implied_vol_route.c): `fcast quant implied-vol`. */
void fc_quant_implied_vol_route(const fc_http_request *rq, fc_http_response *rs);
/* POST /v1/quant/portfolio (quant_portfolio_route.c): `fcast quant portfolio`. */
void fc_quant_portfolio_route(const fc_http_request *rq, fc_http_response *rs);
/* POST /v1/quant/backtest (quant_backtest_route.c): `fcast quant backtest`. */
void fc_quant_backtest_route(const fc_http_request *rq, fc_http_response *rs);

#endif
