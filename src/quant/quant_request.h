/* The quant commands' requests as `fcast quant option|indicators` and the
 * service's POST /v1/quant/option|indicators both take them, so that the
 * CLI and the endpoints cannot drift apart:
 *   - options: the parameters under the CLI's flag names, their defaults and
 *     validation, the pricing (Monte Carlo, plus Black-Scholes and its
 *     Greeks for European options) and the JSON object of the answer;
 *   - indicators: the NaN policy's names and the number of specs one run
 *     takes. */
#ifndef FC_QUANT_QUANT_REQUEST_H
#define FC_QUANT_QUANT_REQUEST_H

#include <stddef.h>
#include "fcast/status.h"
#include "quant/black_scholes.h"
#include "quant/indicators.h"
#include "quant/mc_options.h"

/* One field per flag of `fcast quant option` (the types args.h stores). */
typedef struct {
    const char *type;                 /* --type: "european" or "asian" */
    int call, put;                    /* --call, --put: exactly one */
    double S, K, r, q, sigma, T;      /* --S, --K, --r, --q, --sigma, --T */
    size_t paths, steps, fixings, seed;
    int antithetic;                   /* --antithetic */
    int no_control_variate;           /* --no-control-variate */
    int steps_given, fixings_given;   /* the flag was given, not defaulted: it must fit --type */
    /* The other methods (tools/quant_option.h's flags, checked in the
     * service by serve/quant_option_methods.c as the CLI checks them). */
    const char *exercise, *method, *tree;   /* --exercise, --method (NULL: by exercise), --tree */
    const char *barrier, *greeks;           /* --barrier KIND:LEVEL, --greeks (NULL: none) */
    double rebate;                          /* --rebate */
    size_t calibration_paths, degree;       /* --calibration-paths, --basis-degree */
    int paths_given, seed_given, tree_given, rebate_given, lsm_flags_given;
} fc_option_params;

/* The CLI's defaults: european, 1000000 paths, 1 step, 12 fixings, seed 42,
 * r = q = 0, exercise european, tree bbsr, 100000 calibration paths, basis
 * degree 3; S, K, sigma and T have none (required). */
fc_option_params fc_option_params_default(void);

/* Checks what only the combination of flags can get wrong (--type, one of
 * --call/--put, --steps or --fixings for the other type) and fills *o
 * (backend NULL: the CPU). Market values and sizes are checked by
 * fc_mc_price. Messages name the flag ("--type: expected ..."). */
fc_status fc_option_from_params(const fc_option_params *p, fc_mc_option *o);

/* Prices o: Monte Carlo into *r, and for a European option the
 * Black-Scholes price and Greeks into *g (zeroed for an Asian one). */
fc_status fc_option_price(const fc_mc_option *o, fc_mc_result *r, fc_bs_greeks *g);

/* The answer as one line of JSON, without a newline (`fcast quant option
 * --json` prints it and a newline): malloc'd, NULL (FC_ERR_MEMORY) when
 * out of memory. */
char *fc_option_json(const fc_mc_option *o, const fc_mc_result *r, const fc_bs_greeks *g);

/* Indicators one run computes at most (--ind). */
#define FC_IND_MAX_SPECS 64   /* fcast/quant.h's FCAST_INDICATOR_MAX_SPECS: api_indicator_set.c asserts they agree */

/* "poison" or "restart" (--nan); FC_ERR_PARSE naming --nan otherwise. */
fc_status fc_ind_parse_nan_policy(const char *text, fc_nan_policy *out);

#endif
