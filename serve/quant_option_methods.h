/* POST /v1/quant/option's methods beyond the European and Asian Monte
 * Carlo (quant_routes.c): binomial trees, Longstaff-Schwartz, barriers and
 * Monte Carlo Greeks, with `fcast quant option`'s checks of its flags in
 * the CLI's order and its messages, and its --json objects (the library's
 * fcast_*_json writers, which the CLI prints too). */
#ifndef FC_SERVE_QUANT_OPTION_METHODS_H
#define FC_SERVE_QUANT_OPTION_METHODS_H

#include "fcast/status.h"
#include "api/serve_engine.h"   /* the engine's option requests (quant/quant_request.h) */

/* The service's bounds on the work of these methods (413 beyond them),
 * besides FC_QUANT_MAX_PATHS (quant_routes.h) on every Monte Carlo's
 * paths: each about the 18 s of the Asian bound on this project's 2 cores
 * (AMD EPYC), measured with the CLI: LSM 1e7 paths x 50 dates (5e8 path
 * steps with the calibration paths) 17 s; barrier Monte Carlo 1e6 paths
 * x 50 steps 3.6 s. A binomial tree keeps the library's own bound,
 * 100000 steps: 4.0 s (steps^2 / 2 node updates; 1000, the default,
 * 0.03 s). */
#define FC_QUANT_MAX_LSM_PATH_STEPS 500000000ull       /* (paths + calibration paths) x steps */
#define FC_QUANT_MAX_BARRIER_PATH_STEPS 250000000ull   /* paths x steps */

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
