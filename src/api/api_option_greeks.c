/* Monte Carlo Greeks through the library API (fcast/quant_options.h;
 * quant/mc_greeks.h), messages naming the API's fields. */
#include <math.h>

#include "fcast.h"
#include "api/api_option_names.h"
#include "core/error.h"
#include "kernels/quant_mc_greeks.h"
#include "quant/mc_greeks.h"

fc_status fcast_mc_greeks(const fcast_mc_option *o, int method, fcast_mc_greeks_result *out) {
    static const char fn[] = "fcast_mc_greeks";
    if (!o || !out) return fc_error(FC_ERR_INVALID, "%s: o and out must not be NULL", fn);
    if (o->type != FCAST_CALL && o->type != FCAST_PUT)
        return fc_error(FC_ERR_INVALID, "%s: type = %d: must be FCAST_CALL (1) or FCAST_PUT (0)", fn, o->type);
    if (o->asian) return fc_error(FC_ERR_INVALID, "%s: asian = %d: the Greeks are for European options", fn, o->asian);
    if (method != FCAST_GREEKS_PATHWISE && method != FCAST_GREEKS_LR)
        return fc_error(FC_ERR_INVALID, "%s: method = %d: must be FCAST_GREEKS_PATHWISE (1) or FCAST_GREEKS_LR (2)",
                        fn, method);
    fc_bs_market m = {o->spot, o->strike, o->rate, o->div, o->vol, o->expiry};
    fc_mc_greeks g;
    fc_status st = fc_mc_greeks_price(o->type == FCAST_CALL ? FC_CALL : FC_PUT, &m, method,
                                      o->paths ? o->paths : 1000000, o->antithetic, o->seed, &g);
    if (st != FC_OK) return fc_api_option_renamed(st, fn);
    *out = (fcast_mc_greeks_result){g.delta, g.delta_se, g.gamma, g.gamma_se, g.vega, g.vega_se, g.paths};
    return FC_OK;
}
