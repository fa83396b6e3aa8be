/* fcast quant option: European and arithmetic-average Asian options by Monte
 * Carlo (standard error, 95% interval), next to Black-Scholes and its Greeks
 * for European options. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"
#include "core/error.h"
#include "quant/black_scholes.h"
#include "quant/mc_options.h"

typedef struct {
    const char *type;
    int call, put, antithetic, json, no_cv, verbose;
    double S, K, r, q, sigma, T;
    size_t paths, steps, fixings, seed;
} option_args;

static fc_status to_option(const option_args *a, const arg_spec *specs, fc_mc_option *o) {
    memset(o, 0, sizeof *o);
    if (!strcmp(a->type, "european")) o->asian = 0;
    else if (!strcmp(a->type, "asian")) o->asian = 1;
    else return fc_error(FC_ERR_INVALID, "--type: expected european or asian, got '%s'", a->type);
    if (a->call == a->put) return fc_error(FC_ERR_INVALID, "give exactly one of --call and --put");
    for (const arg_spec *s = specs; s->name; s++)
        if (s->seen && ((o->asian && !strcmp(s->name, "steps")) || (!o->asian && !strcmp(s->name, "fixings"))))
            return fc_error(FC_ERR_INVALID, "--%s does not apply to %s options (%s)", s->name, a->type,
                            o->asian ? "Asian paths step from one fixing to the next"
                                     : "--fixings is for Asian options");
    o->type = a->call ? FC_CALL : FC_PUT;
    o->market = (fc_bs_market){a->S, a->K, a->r, a->q, a->sigma, a->T};
    o->steps = a->steps;
    o->n_fixings = a->fixings;
    o->paths = a->paths;
    o->antithetic = a->antithetic;
    o->control_variate = !a->no_cv;
    o->seed = a->seed;
    return FC_OK;
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

static void print_json(const fc_mc_option *o, const fc_mc_result *r, const fc_bs_greeks *g) {
    json_t *j = json_object();
    json_object_set_new(j, "type", json_string(o->asian ? "asian" : "european"));
    json_object_set_new(j, "option", json_string(o->type == FC_CALL ? "call" : "put"));
    json_object_set_new(j, "price", json_real(r->price));
    json_object_set_new(j, "stderr", json_real(r->std_error));
    json_object_set_new(j, "ci_low", json_real(r->ci_low));
    json_object_set_new(j, "ci_high", json_real(r->ci_high));
    json_object_set_new(j, "paths", json_integer((json_int_t)r->paths));
    if (o->asian) {
        json_object_set_new(j, "geometric_price", json_real(r->geo_exact));
        json_object_set_new(j, "price_without_control_variate", json_real(r->plain_price));
        json_object_set_new(j, "stderr_without_control_variate", json_real(r->plain_std_error));
    } else {
        json_object_set_new(j, "bs_price", json_real(g->price));
        json_object_set_new(j, "delta", json_real(g->delta));
        json_object_set_new(j, "gamma", json_real(g->gamma));
        json_object_set_new(j, "vega", json_real(g->vega));
        json_object_set_new(j, "theta", json_real(g->theta));
        json_object_set_new(j, "rho", json_real(g->rho));
    }
    char *s = json_dumps(j, JSON_REAL_PRECISION(17));
    if (s) puts(s);
    free(s);
    json_decref(j);
}

int cmd_quant_option(int argc, char **argv, int first) {
    option_args a = {.type = "european", .paths = 1000000, .steps = 1, .fixings = 12, .seed = 42};
    const char *device = NULL;
    arg_spec specs[] = {
        {"type", ARG_STR, &a.type, "KIND", "european or asian (arithmetic average price) (european)", 0, 0},
        {"call", ARG_FLAG, &a.call, NULL, "a call option", 0, 0},
        {"put", ARG_FLAG, &a.put, NULL, "a put option", 0, 0},
        {"S", ARG_DOUBLE, &a.S, "PRICE", "spot price, > 0", 1, 0},
        {"K", ARG_DOUBLE, &a.K, "PRICE", "strike, > 0", 1, 0},
        {"r", ARG_DOUBLE, &a.r, "RATE", "risk-free rate, continuously compounded (0)", 0, 0},
        {"sigma", ARG_DOUBLE, &a.sigma, "VOL", "volatility, > 0 (0.2 = 20% a year)", 1, 0},
        {"T", ARG_DOUBLE, &a.T, "YEARS", "time to expiry in years, > 0", 1, 0},
        {"q", ARG_DOUBLE, &a.q, "RATE", "continuous dividend yield (0)", 0, 0},
        {"paths", ARG_SIZE, &a.paths, "N", "Monte Carlo paths (1000000)", 0, 0},
        {"steps", ARG_SIZE, &a.steps, "N", "European: time steps per path (1; GBM is sampled exactly)", 0, 0},
        {"fixings", ARG_SIZE, &a.fixings, "N", "Asian: averaging dates T*i/N, i = 1..N (12)", 0, 0},
        {"antithetic", ARG_FLAG, &a.antithetic, NULL, "antithetic variates (off)", 0, 0},
        {"no-control-variate", ARG_FLAG, &a.no_cv, NULL, "Asian: no geometric control variate", 0, 0},
        {"seed", ARG_SIZE, &a.seed, "S", "random seed (42)", 0, 0},
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
    fc_mc_option o;
    if (to_option(&a, specs, &o) != FC_OK) return cli_fail("quant option");
    fc_backend *be = NULL;   /* NULL: the draws run on the CPU */
    if (device_quant_open(device, 0, a.verbose, &be) != FC_OK) return cli_fail("quant option");
    o.backend = be;
    fc_mc_result r;
    fc_bs_greeks g = {0};
    fc_status st = fc_mc_price(&o, &r);
    fc_backend_destroy(&be);
    if (st != FC_OK) return cli_fail("quant option");
    if (!o.asian && fc_bs_european(o.type, &o.market, &g) != FC_OK) return cli_fail("quant option");
    if (a.json) print_json(&o, &r, &g);
    else print_text(&o, &r, &g);
    return 0;
}
