/* POST /v1/quant/option's methods beyond the European and Asian Monte
 * Carlo (quant_routes.c): binomial trees, Longstaff-Schwartz, barriers and
 * Monte Carlo Greeks, with `fcast quant option`'s checks of its flags in
 * the CLI's order and its messages, and its --json objects (the library's
 * fcast_*_json writers, which the CLI prints too). */
#ifndef FC_SERVE_QUANT_OPTION_METHODS_H
#define FC_SERVE_QUANT_OPTION_METHODS_H

#include "fcast/status.h"
#include "quant/quant_request.h"

/* The service's bounds on the work of these methods (413 beyond them),
 * with FC_QUANT_MAX_PATHS and FC_QUANT_MAX_PATH_STEPS (quant_routes.h)
 * for their Monte Carlo: LSM (paths + calibration paths) x steps, barrier
 * paths x steps. A binomial tree does steps^2 / 2 node updates: 20000
 * steps take about a second on this project's 2 cores (the library's
 * bound, 100000, 25 times as long). */
#define FC_QUANT_MAX_TREE_STEPS 20000u

/* The CLI's checks of what only the combination of keys can get wrong,
 * then, for a tree, LSM or barrier request, the price as the CLI's JSON
 * in *text (malloc'd). *text NULL and FC_OK: the European or Asian Monte
 * Carlo, which the caller prices (and then fc_quant_option_greeks when
 * p->greeks). */
fc_status fc_quant_option_other(const fc_option_params *p, char **text);

/* --greeks for the priced European option o (r and g as fc_option_price
 * gave them): the CLI's checks, fcast_mc_greeks, and the JSON of
 * fcast_mc_greeks_json into *text. */
fc_status fc_quant_option_greeks(const fc_option_params *p, const fc_mc_option *o, const fc_mc_result *r,
                                 const fc_bs_greeks *g, char **text);

#endif
