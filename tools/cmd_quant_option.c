/* fcast quant option: European and arithmetic-average Asian options by Monte
 * Carlo (standard error, 95% interval), next to Black-Scholes and its Greeks
 * for European options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"
#include "core/error.h"
#include "quant/black_scholes.h"
#include "quant/mc_options.h"
#include "quant/quant_request.h"

/* The flags as the shared request holds them, plus the CLI's own. */
typedef struct {
    fc_option_params p;
    int json, verbose;
} option_args;

/* Which of --steps / --fixings were given, for the check that they fit --type. */
static void note_given(const arg_spec *specs, fc_option_params *p) {
    for (const arg_spec *s = specs; s->name; s++) {
        if (!strcmp(s->name, "steps")) p->steps_given = s->seen != 0;
        if (!strcmp(s->name, "fixings")) p->fixings_given = s->seen != 0;
    }
}

static void print_text(const fc_mc_option *o, const fc_mc_result *r, const fc_bs_greeks *g) {
    const fc_bs_market *m = &o->market;
    printf("%s %s: S=%g K=%g r=%g q=%g sigma=%g T=%g", o->asian ? "Asian (arithmetic average)" : "European",
           o->type == FC_CALL ? "call" : "put", m->spot, m->strike, m->rate, m->div, m->vol, m->expiry);
    if (o->asian) printf(", %zu fixings at T*i/%zu", o->n_fixings, o->n_fixings);
    printf("\nMonte Carlo     %.6f  std error %.6f  95%% CI [%.6f, %.6f]\n", r->price, r->std_error, r->ci_low,
           r->ci_high);
    printf("                %llu paths%s, seed %llu\n", (unsigned long long)r->paths,
           o->antithetic ? " (antithetic)" : "", (unsigned long long)o->seed);
    if (o->asian && o->control_variate)
        printf("                geometric-average control variate: beta %.4f, std error without it %.6f\n"
               "Geometric Asian %.6f (Kemna-Vorst closed form; Monte Carlo %.6f +- %.6f)\n",
               r->cv_beta, r->plain_std_error, r->geo_exact, r->geo_mc, r->geo_mc_std_error);
    if (!o->asian)
        printf("Black-Scholes   %.6f  delta %.6f  gamma %.6f  vega %.6f  theta %.6f  rho %.6f\n", g->price,
               g->delta, g->gamma, g->vega, g->theta, g->rho);
}

/* --json: the object the service answers too (quant/quant_request.h). */
static fc_status print_json(const fc_mc_option *o, const fc_mc_result *r, const fc_bs_greeks *g) {
    char *s = fc_option_json(o, r, g);
    if (!s) return FC_ERR_MEMORY;
    puts(s);
    free(s);
    return FC_OK;
}

int cmd_quant_option(int argc, char **argv, int first) {
    option_args a = {.p = fc_option_params_default()};
    fc_option_params *p = &a.p;
    const char *device = NULL;
    arg_spec specs[] = {
        {"type", ARG_STR, &p->type, "KIND", "european or asian (arithmetic average price) (european)", 0, 0},
        {"call", ARG_FLAG, &p->call, NULL, "a call option", 0, 0},
        {"put", ARG_FLAG, &p->put, NULL, "a put option", 0, 0},
        {"S", ARG_DOUBLE, &p->S, "PRICE", "spot price, > 0", 1, 0},
        {"K", ARG_DOUBLE, &p->K, "PRICE", "strike, > 0", 1, 0},
        {"r", ARG_DOUBLE, &p->r, "RATE", "risk-free rate, continuously compounded (0)", 0, 0},
        {"sigma", ARG_DOUBLE, &p->sigma, "VOL", "volatility, > 0 (0.2 = 20% a year)", 1, 0},
        {"T", ARG_DOUBLE, &p->T, "YEARS", "time to expiry in years, > 0", 1, 0},
        {"q", ARG_DOUBLE, &p->q, "RATE", "continuous dividend yield (0)", 0, 0},
        {"paths", ARG_SIZE, &p->paths, "N", "Monte Carlo paths (1000000)", 0, 0},
        {"steps", ARG_SIZE, &p->steps, "N", "European: time steps per path (1; GBM is sampled exactly)", 0, 0},
        {"fixings", ARG_SIZE, &p->fixings, "N", "Asian: averaging dates T*i/N, i = 1..N (12)", 0, 0},
        {"antithetic", ARG_FLAG, &p->antithetic, NULL, "antithetic variates (off)", 0, 0},
        {"no-control-variate", ARG_FLAG, &p->no_control_variate, NULL, "Asian: no geometric control variate", 0, 0},
        {"seed", ARG_SIZE, &p->seed, "S", "random seed (42)", 0, 0},
        {"json", ARG_FLAG, &a.json, NULL, "print one JSON object", 0, 0},
        {"device", ARG_STR, &device, "DEV", DEVICE_FLAG_HELP, 0, 0},
        {"verbose", ARG_FLAG, &a.verbose, NULL, "say on stderr which device runs", 0, 0},
        {0},
    };
    int rc = args_parse("quant option",
                        "Price a European or arithmetic-average Asian option by Monte Carlo (geometric Brownian\n"
                        "motion, Philox random numbers) with its standard error and 95% interval; European\n"
                        "options also get the Black-Scholes price and Greeks (vega and rho per 1.00, theta per year).",
                        specs, argc, argv, first);
    if (rc) return args_exit(rc);
    note_given(specs, p);
    fc_mc_option o;
    if (fc_option_from_params(p, &o) != FC_OK) return cli_fail("quant option");
    fc_backend *be = NULL;   /* NULL: the draws run on the CPU */
    if (device_quant_open(device, 0, a.verbose, &be) != FC_OK) return cli_fail("quant option");
    o.backend = be;
    fc_mc_result r;
    fc_bs_greeks g;
    fc_status st = fc_option_price(&o, &r, &g);
    fc_backend_destroy(&be);
    if (st != FC_OK) return cli_fail("quant option");
    if (!a.json) print_text(&o, &r, &g);
    else if (print_json(&o, &r, &g) != FC_OK) return cli_fail("quant option");
    return 0;
}
