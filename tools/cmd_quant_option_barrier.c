/* fcast quant option --barrier KIND:LEVEL: single-barrier options, the
 * closed form and (--method mc) Monte Carlo, through the library API
 * (fcast_barrier_price, fcast_barrier_mc_price; --json: fcast_barrier_option_json,
 * the object the service answers too). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "quant_option.h"

#define COMMAND QUANT_OPTION_COMMAND

/* --barrier KIND:LEVEL into o's kind and barrier: 0, or the exit code after the message. */
static int parse_barrier(const char *spec, fcast_barrier_option *o) {
    static const char *const kinds[4] = {"down-and-in", "up-and-in", "down-and-out", "up-and-out"};
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    o->kind = -1;
    for (int k = 0; k < 4; k++)
        if (strlen(kinds[k]) == n && !strncmp(spec, kinds[k], n)) o->kind = k;
    char *end = NULL;
    o->barrier = colon ? strtod(colon + 1, &end) : NAN;
    if (o->kind < 0 || !colon || end == colon + 1 || *end)
        return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--barrier '%s': expected KIND:LEVEL, KIND one of down-and-in, "
                          "up-and-in, down-and-out, up-and-out (e.g. down-and-out:90)", spec);
    return 0;
}

/* --barrier: the closed form, and Monte Carlo too with --method mc. */
int quant_option_barrier(const option_args *a, int mc, const char *device) {
    if (a->type && strcmp(a->type, "european"))
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--barrier prices European barrier options, not --type %s", a->type);
    if (a->antithetic_given || a->fixings_given || a->no_control_variate || a->lsm_flags_given)
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--antithetic, --fixings, --no-control-variate, "
                          "--calibration-paths and --basis-degree do not apply to --barrier");
    if (!mc && (a->paths_given || a->seed_given || a->steps_given))
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--paths, --steps and --seed are for --method mc (the barrier's "
                          "closed form has none)");
    if (a->call == a->put) return cli_refuse(COMMAND, CLI_EXIT_INVALID, "give exactly one of --call and --put");
    fcast_barrier_option o = {.type = a->call ? FCAST_CALL : FCAST_PUT, .spot = a->S, .strike = a->K, .rate = a->r,
                              .div = a->q, .vol = a->sigma, .expiry = a->T, .rebate = a->rebate,
                              .steps = a->steps_given ? a->steps : 50, .paths = a->paths, .seed = a->seed};
    int rc = parse_barrier(a->barrier, &o);
    if (rc) return rc;
    if (mc && (o.steps == 0 || a->paths < 2))
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "%s", o.steps == 0 ? "--steps: expected at least 1 time step, got 0"
                                                                        : "--paths: expected at least 2 paths");
    double exact;
    fcast_mc_result r = {0};
    fc_status st = fcast_barrier_price(&o, &exact);
    if (st == FC_OK && mc) {
        fcast_device *dev = NULL;   /* the CPU, or a GPU with fcast's quant kernels */
        int rc_dev = quant_option_device(a, device, &dev);
        if (rc_dev) return rc_dev;
        st = fcast_barrier_mc_price_on(&o, dev, &r);
        fcast_device_free(dev);
    }
    if (st != FC_OK) return quant_option_fail_in_api_fields(st);
    static const char *const names[4] = {"down-and-in", "up-and-in", "down-and-out", "up-and-out"};
    const char *opt = a->call ? "call" : "put";
    if (a->json) return quant_option_print_json(fcast_barrier_option_json(&o, exact, mc ? &r : NULL));
    printf("%s %s %s at %g (rebate %g): S=%g K=%g r=%g q=%g sigma=%g T=%g\n", names[o.kind], "European", opt, o.barrier,
           o.rebate, o.spot, o.strike, o.rate, o.div, o.vol, o.expiry);
    printf("Closed form     %.8f  (continuous monitoring; Reiner-Rubinstein)\n", exact);
    if (mc)
        printf("Monte Carlo     %.6f  std error %.6f  95%% CI [%.6f, %.6f]\n"
               "                %llu paths, %zu steps with the Brownian-bridge crossing correction, seed %llu\n",
               r.price, r.std_error, r.ci_low, r.ci_high, (unsigned long long)r.paths, o.steps,
               (unsigned long long)a->seed);
    return 0;
}
