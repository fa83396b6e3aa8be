/* POST /v1/quant/portfolio (quant_handlers.h): not answered yet. */
#include "quant_handlers.h"

void fc_quant_portfolio_route(const fc_http_request *rq, fc_http_response *rs) {
    (void)rq;
    fc_http_reply_error(rs, 501, "/v1/quant/portfolio: not implemented yet");
}
