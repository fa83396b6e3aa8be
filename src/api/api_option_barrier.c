/* Barrier options through the library API (fcast/quant_options.h;
 * quant/barrier.h): the closed form and Monte Carlo, messages naming the
 * API's fields. */
#include <math.h>
#include <string.h>

#include "fcast.h"
#include "api/api_option_names.h"
#include "api/api_quant.h"
#include "core/error.h"
#include "kernels/quant_barrier.h"
#include "quant/barrier.h"

_Static_assert((int)FC_BARRIER_DOWN_IN == (int)FCAST_BARRIER_DOWN_IN &&
               (int)FC_BARRIER_UP_IN == (int)FCAST_BARRIER_UP_IN &&
               (int)FC_BARRIER_DOWN_OUT == (int)FCAST_BARRIER_DOWN_OUT &&
               (int)FC_BARRIER_UP_OUT == (int)FCAST_BARRIER_UP_OUT, "FCAST_BARRIER_* must equal FC_BARRIER_*");

static fc_status from_api(const char *fn, const fcast_barrier_option *o, fc_barrier_option *b) {
    if (!o) return fc_error(FC_ERR_INVALID, "%s: o is NULL", fn);
    if (o->type != FCAST_CALL && o->type != FCAST_PUT)
        return fc_error(FC_ERR_INVALID, "%s: type = %d: must be FCAST_CALL (1) or FCAST_PUT (0)", fn, o->type);
    if (o->kind < FCAST_BARRIER_DOWN_IN || o->kind > FCAST_BARRIER_UP_OUT)
        return fc_error(FC_ERR_INVALID, "%s: kind = %d: must be an fcast_barrier_kind (0 to 3)", fn, o->kind);
    *b = (fc_barrier_option){.type = o->type == FCAST_CALL ? FC_CALL : FC_PUT, .kind = o->kind,
                             .market = {o->spot, o->strike, o->rate, o->div, o->vol, o->expiry},
                             .barrier = o->barrier, .rebate = o->rebate};
    return FC_OK;
}

fc_status fcast_barrier_price(const fcast_barrier_option *o, double *price) {
    static const char fn[] = "fcast_barrier_price";
    fc_barrier_option b;
    FC_TRY(from_api(fn, o, &b));
    if (!price) return fc_error(FC_ERR_INVALID, "%s: price is NULL", fn);
    fc_status st = fc_barrier_price(&b, price);
    return st == FC_OK ? FC_OK : fc_api_option_renamed(st, fn);
}

/* fcast_barrier_mc_price and fcast_barrier_mc_price_on, under the name fn. */
static fc_status barrier_mc(const char *fn, const fcast_barrier_option *o, const fcast_device *dev,
                            fcast_mc_result *out) {
    fc_barrier_option b;
    FC_TRY(from_api(fn, o, &b));
    if (!out) return fc_error(FC_ERR_INVALID, "%s: out is NULL", fn);
    fc_barrier_mc_result r;
    fc_status st = fc_barrier_mc_price(&b, o->steps ? o->steps : 50, o->paths ? o->paths : 1000000, o->seed,
                                       fc_api_device_backend(dev), &r);
    if (st != FC_OK) return fc_api_option_renamed(st, fn);
    const double z95 = 1.959963984540054;
    *out = (fcast_mc_result){r.price, r.std_error, r.price - z95 * r.std_error, r.price + z95 * r.std_error, r.paths};
    return FC_OK;
}

fc_status fcast_barrier_mc_price(const fcast_barrier_option *o, fcast_mc_result *out) {
    return barrier_mc("fcast_barrier_mc_price", o, NULL, out);
}

fc_status fcast_barrier_mc_price_on(const fcast_barrier_option *o, const fcast_device *dev, fcast_mc_result *out) {
    return barrier_mc("fcast_barrier_mc_price_on", o, dev, out);
}
