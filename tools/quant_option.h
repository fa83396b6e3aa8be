/* What `fcast quant option`'s files share (cmd_quant_option.c: the flags,
 * the European and Asian Monte Carlo and its Greeks; cmd_quant_option_american.c:
 * binomial trees and Longstaff-Schwartz; cmd_quant_option_barrier.c:
 * barrier options): the parsed flags and the runners of each method. */
#ifndef FC_TOOLS_QUANT_OPTION_H
#define FC_TOOLS_QUANT_OPTION_H

#include <stddef.h>
#include "fcast.h"

#define QUANT_OPTION_COMMAND "quant option"

/* The flags, at the CLI's defaults. */
typedef struct {
    const char *type;                 /* --type: "european" or "asian" */
    int call, put;                    /* --call, --put: exactly one */
    double S, K, r, q, sigma, T;
    size_t paths, steps, fixings, seed;
    int antithetic, no_control_variate, json, verbose;
    int steps_given, fixings_given;   /* the flag was given, not defaulted: it must fit --type */
    const char *exercise, *method, *tree;   /* --exercise, --method, --tree */
    int paths_given, antithetic_given, seed_given;
    size_t calibration_paths, degree;   /* --calibration-paths, --basis-degree (lsm) */
    int lsm_flags_given;                /* either of those was given */
    const char *greeks;                 /* --greeks pathwise|lr */
    const char *barrier;                /* --barrier KIND:LEVEL */
    double rebate;                      /* --rebate */
    int rebate_given;
    int tree_given;                     /* --tree was given: it must fit --method binomial */
} option_args;

/* Each runs one method from the flags and prints its result: 0, or the
 * exit code after the message on stderr. */
int quant_option_tree(const option_args *a, int american);   /* --method binomial */
int quant_option_lsm(const option_args *a, const char *device);               /* --method lsm */
int quant_option_barrier(const option_args *a, int mc, const char *device);   /* --barrier (mc: --method mc too) */

/* The device of --device (NULL: auto) for a Monte Carlo price, said on
 * stderr with --verbose: 0, or the exit code after the message. */
int quant_option_device(const option_args *a, const char *device, fcast_device **dev);

/* --json: prints json (from a fcast_*_option_json writer) and a newline and
 * frees it; NULL (out of memory) is the exit code after the message. */
int quant_option_print_json(char *json);

/* The message of a failed fcast_tree_price, fcast_lsm_price,
 * fcast_barrier_*, fcast_mc_greeks (which name their structs' fields)
 * printed with the flags instead; returns the exit code for st. */
int quant_option_fail_in_api_fields(fc_status st);

#endif
