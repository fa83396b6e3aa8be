/* Options beyond Black-Scholes and European/Asian Monte Carlo: implied
 * volatility, American options (binomial tree, Longstaff-Schwartz), barrier
 * options and Monte Carlo Greeks (docs/quant-options.md). Included by
 * fcast.h; include that. */
#ifndef FCAST_QUANT_OPTIONS_H
#define FCAST_QUANT_OPTIONS_H

#include "fcast/quant.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Why an option has no implied volatility (fcast_implied_vol's status). */
enum {
    FCAST_IV_OK = 0,             /* solved */
    FCAST_IV_BELOW_LOWER = 1,    /* price below max(+-(S e^{-qT} - K e^{-rT}), 0), the discounted intrinsic value */
    FCAST_IV_ABOVE_UPPER = 2,    /* price at or above S e^{-qT} (call) or K e^{-rT} (put) */
    FCAST_IV_NO_CONVERGENCE = 3  /* the solver's bracket did not close (not seen in testing; please report) */
};

/* Black-Scholes-Merton implied volatilities of o->n European options from
 * their prices price[i] (o->vol is not read and may be NULL; rate and div
 * may be NULL: 0), into vol[i] (sigma, per sqrt(year)). A price equal to
 * the lower bound, or within 4 ulps of S e^{-qT} + K e^{-rT} below it, has
 * volatility 0; one within as much below the upper bound counts as at it. Within 1e-10 of the volatility that made the price, and
 * of QuantLib's blackFormulaImpliedStdDev, wherever the price determines
 * the volatility to that (docs/quant-options.md). Runs over OpenMP.
 * status NULL: the first option (in index order) without a volatility is
 * FC_ERR_INVALID naming it, its price and the bound it breaks
 * ("fcast_implied_vol: option 3: price 61 of the call is at or above its
 * upper bound S e^{-qT} = 60.9"). status non-NULL: status[i] is one of
 * FCAST_IV_*, vol[i] NaN where it is not FCAST_IV_OK, and the call
 * returns FC_OK. Invalid inputs (S, K, T not positive, r, q or a price
 * not finite) are FC_ERR_INVALID either way, naming the option. */
fc_status fcast_implied_vol(const fcast_option_arrays *o, const double *price, double *vol, int *status);

/* Binomial trees of fcast_tree_price (docs/quant-options.md). */
typedef enum {
    FCAST_TREE_BBSR = 0,   /* bbs with Richardson extrapolation (the default) */
    FCAST_TREE_BBS = 1,    /* Black-Scholes at the last step before expiry (Broadie-Detemple) */
    FCAST_TREE_CRR = 2     /* plain Cox-Ross-Rubinstein, equal to QuantLib's BinomialVanillaEngine "crr" */
} fcast_tree_kind;

/* One option on a binomial tree, as `fcast quant option --method binomial`. */
typedef struct {
    int type;                  /* FCAST_CALL or FCAST_PUT */
    int american;              /* 1: American exercise; 0: European */
    double spot, strike, rate, div, vol, expiry;   /* as in fcast_option_arrays */
    size_t steps;              /* time steps; 0: 1000 (bbsr needs 2 or more, at most 100000) */
    int tree;                  /* fcast_tree_kind */
} fcast_tree_option;

/* The option's value on the tree into *price; FC_ERR_INVALID naming the
 * field at fault. */
fc_status fcast_tree_price(const fcast_tree_option *o, double *price);

/* An American option by Longstaff-Schwartz Monte Carlo, as `fcast quant
 * option --exercise american --method lsm` prices it: exercise at the
 * `steps` equal dates T k / steps (a Bermudan stand-in for the American
 * option), the continuation value regressed on 1, x, .., x^degree (x =
 * S / K) over calibration paths in the money, the price from further
 * paths independent of those (a low-biased estimate: no foresight). No
 * path is stored: a Brownian bridge walks the calibration paths back with
 * 16 bytes each (1.6 MB at the default 100000), and the pricing paths,
 * however many, keep nothing. A field left 0 takes the default said. */
typedef struct {
    int type;                    /* FCAST_CALL or FCAST_PUT */
    double spot, strike, rate, div, vol, expiry;   /* as in fcast_option_arrays */
    size_t steps;                /* exercise dates; 0: 50 (2 to 100000) */
    uint64_t paths;              /* pricing paths, each with its mirror (antithetic); 0: 1000000 (a multiple of
                                  * 4 is used: two pairs a draw; paths x steps at most 1e10) */
    uint64_t calibration_paths;  /* regression paths; 0: 100000 (16 to 10^7) */
    int degree;                  /* basis degree; 0: 3 (1 to 8) */
    uint64_t seed;               /* any value (the CLI's default is 42) */
} fcast_lsm_option;

typedef struct {
    double price;              /* max(estimate, exercise today) */
    double std_error;          /* of the estimate */
    double estimate;           /* mean discounted cash flow of the pricing paths */
    double calibration_price;  /* the same on the calibration paths: in-sample, high-biased (a diagnostic) */
    uint64_t paths, calibration_paths;   /* as simulated (rounded up to even) */
} fcast_lsm_result;

fc_status fcast_lsm_price(const fcast_lsm_option *o, fcast_lsm_result *out);
/* The same with the pricing paths on a device (fcast_device_open; NULL: the
 * CPU): a GPU with fcast's quant kernels runs them through the Monte Carlo
 * kernel every option shares, the regression on the host (its 100000
 * calibration paths are the small part). */
fc_status fcast_lsm_price_on(const fcast_lsm_option *o, const fcast_device *dev, fcast_lsm_result *out);

/* Single-barrier options (`fcast quant option --barrier KIND:LEVEL`). */
typedef enum {
    FCAST_BARRIER_DOWN_IN = 0, FCAST_BARRIER_UP_IN = 1, FCAST_BARRIER_DOWN_OUT = 2, FCAST_BARRIER_UP_OUT = 3
} fcast_barrier_kind;

/* A European option with one barrier, monitored continuously: knocked in
 * (alive only once the spot has touched the barrier) or out (dead from
 * then on); down barriers below the spot, up barriers above it (else
 * FC_ERR_INVALID: it has knocked in or out today). The rebate, >= 0, is
 * paid at expiry for a knock-in never knocked in, at the touch for a
 * knock-out. A Monte Carlo field left 0 takes the default said. */
typedef struct {
    int type;                    /* FCAST_CALL or FCAST_PUT */
    int kind;                    /* fcast_barrier_kind */
    double spot, strike, rate, div, vol, expiry;   /* as in fcast_option_arrays */
    double barrier, rebate;
    size_t steps;                /* Monte Carlo: time steps; 0: 50 */
    uint64_t paths;              /* Monte Carlo: 0: 1000000 (rounded up to even) */
    uint64_t seed;               /* Monte Carlo: any value (the CLI's default is 42) */
} fcast_barrier_option;

/* The closed form (Reiner-Rubinstein / Haug, as QuantLib's
 * AnalyticBarrierEngine: equal to 1e-10 relative on the tests' grid). */
fc_status fcast_barrier_price(const fcast_barrier_option *o, double *price);
/* Monte Carlo on `steps` equal steps with the Brownian-bridge crossing
 * probability between steps, which prices continuous monitoring (each
 * path weighted by its survival); the same for a seed on any number of
 * threads. out->ci_* are price -+ 1.959964 std_error. */
fc_status fcast_barrier_mc_price(const fcast_barrier_option *o, fcast_mc_result *out);
/* The same on a device (fcast_device_open: "auto", "cpu", "cuda", "cuda:N";
 * NULL: the CPU): a GPU with fcast's quant kernels runs the same draws in
 * the same order through the Monte Carlo kernel every option shares, so
 * its figures equal the CPU's but for the last bits of exp and log. */
fc_status fcast_barrier_mc_price_on(const fcast_barrier_option *o, const fcast_device *dev, fcast_mc_result *out);

/* Monte Carlo Greeks of a European option (`fcast quant option --greeks`). */
enum { FCAST_GREEKS_PATHWISE = 1, FCAST_GREEKS_LR = 2 };

typedef struct {
    double delta, delta_std_error;
    double gamma, gamma_std_error;   /* likelihood ratio only; NaN for pathwise */
    double vega, vega_std_error;     /* per 1.00 of volatility, as fcast_bs_european */
    uint64_t paths;
} fcast_mc_greeks_result;

/* The Greeks of o (a European option: o->asian 0; o->steps and
 * o->no_control_variate are not read: the paths are exact in one step)
 * by the pathwise method (FCAST_GREEKS_PATHWISE: delta and vega) or the
 * likelihood ratio (FCAST_GREEKS_LR: delta, gamma and vega), each with
 * its standard error, from the paths of fcast_mc_price's one-step price
 * for the same seed and antithetic setting. */
fc_status fcast_mc_greeks(const fcast_mc_option *o, int method, fcast_mc_greeks_result *out);

/* The one-line JSON objects `fcast quant option --json` and `fcast quant
 * implied-vol --json` print, and fcast serve's POST /v1/quant/option and
 * /v1/quant/implied-vol answer (numbers as %.17g: every double reads back
 * as the same bits; no newline). Each is malloc'ed (free it); NULL when
 * out of memory or given NULL (FC_ERR_INVALID).
 *   tree:    type ("european"/"american"), option, method "binomial", tree,
 *            steps, price, and for European exercise bs_price;
 *   lsm:     type "american", option, method "lsm", price, stderr, ci_low,
 *            ci_high (price -+ 1.959964 stderr), paths, calibration_paths,
 *            steps, basis_degree, calibration_price;
 *   barrier: type "barrier", option, barrier (its kind), level, rebate,
 *            price (the closed form), and with mc (NULL: none) mc_price,
 *            stderr, ci_low, ci_high, paths, steps;
 *   greeks:  fcast_mc_option_json's object followed by greeks_method
 *            ("pathwise"/"lr"), mc_delta, mc_delta_stderr, for lr mc_gamma
 *            and mc_gamma_stderr, mc_vega, mc_vega_stderr, greeks_paths;
 *   implied vol: type ("call"/"put"), S, K, r, q, T, price, implied_vol. */
char *fcast_tree_option_json(const fcast_tree_option *o, double price, double bs_price);
char *fcast_lsm_option_json(const fcast_lsm_option *o, const fcast_lsm_result *r);
char *fcast_barrier_option_json(const fcast_barrier_option *o, double price, const fcast_mc_result *mc);
char *fcast_mc_greeks_json(const fcast_mc_option *o, const fcast_mc_result *r, const fcast_mc_detail *detail,
                           const double greeks[6], int method, const fcast_mc_greeks_result *k);
char *fcast_implied_vol_json(int type, double S, double K, double r, double q, double T, double price, double vol);

#ifdef __cplusplus
}
#endif
#endif
