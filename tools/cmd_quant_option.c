/* fcast quant option: European and arithmetic-average Asian options by Monte
 * Carlo (standard error, 95% interval), next to Black-Scholes and its Greeks
 * for European options, and their Monte Carlo Greeks (--greeks), through
 * the library API (fcast.h: fcast_device_open, fcast_mc_price_on,
 * fcast_bs_european, fcast_mc_greeks); and the dispatch to the other
 * methods: --method binomial and lsm (cmd_quant_option_american.c),
 * --barrier (cmd_quant_option_barrier.c). What stays here is the CLI's: the
 * flags, the checks only their combination can fail, and the printing. The
 * service's POST /v1/quant/option answers the same JSON object, which the
 * library builds for both (fcast_mc_option_json; tests/cli_serve_quant.sh
 * compares them byte for byte). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"
#include "quant_option.h"

#define COMMAND QUANT_OPTION_COMMAND

/* Whether msg names `word` at i: the prefix "fcast_...: " anywhere, a
 * field as a whole word followed by " =", "^", "|", ":" or "[". */
static int names_at(const char *msg, size_t i, const char *word, size_t n) {
    if (strncmp(msg + i, word, n)) return 0;
    if (!isalpha((unsigned char)word[n - 1])) return 1;   /* the prefix */
    char before = i ? msg[i - 1] : ' ', after = msg[i + n];
    if (isalnum((unsigned char)before) || before == '_' || before == '-') return 0;
    if (!after || !strchr(" ^|:[", after)) return 0;
    return after != ' ' || msg[i + n + 1] == '=';
}

/* The library names the fields of fcast_mc_option ("vol = 0: must be a
 * positive number"); the user typed flags. Each field where a message
 * names it becomes its flag in the message printed, so the CLI's messages
 * name what to fix. */
static int fail_in_flags(fc_status st) {
    static const char *const words[][2] = {
        {"fcast_mc_price_on: ", ""}, {"fcast_bs_european: ", ""}, {"vol", "--sigma"}, {"expiry", "--T"},
        {"spot", "--S"}, {"strike", "--K"}, {"rate", "--r"}, {"div", "--q"}, {"n_fixings", "--fixings"},
        {"paths", "--paths"}, {"steps", "--steps"}, {"[0]", ""}};
    enum { N_WORDS = sizeof words / sizeof *words };
    const char *msg = fc_last_error();
    char out[1024];
    size_t o = 0;
    for (size_t i = 0; msg[i] && o + 16 < sizeof out;) {
        size_t k = 0, n = 0;
        while (k < N_WORDS && !names_at(msg, i, words[k][0], n = strlen(words[k][0]))) k++;
        if (k == N_WORDS) {
            out[o++] = msg[i++];
            continue;
        }
        o += (size_t)snprintf(out + o, sizeof out - o, "%s", words[k][1]);
        i += n;
    }
    out[o < sizeof out ? o : sizeof out - 1] = '\0';
    fprintf(stderr, "fcast " COMMAND ": %s\n", out);
    return cli_exit_code(st);
}

/* What only the combination of flags can get wrong (the API's zero fields
 * mean defaults, so 0 given on the command line is refused here): 0, or the
 * exit code after the message. Fills *o. */
static int option_from_args(const option_args *a, fcast_mc_option *o) {
    memset(o, 0, sizeof *o);
    if (!a->type || !strcmp(a->type, "european")) o->asian = 0;
    else if (!strcmp(a->type, "asian")) o->asian = 1;
    else return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--type: expected european or asian, got '%s'", a->type);
    if (a->call == a->put) return cli_refuse(COMMAND, CLI_EXIT_INVALID, "give exactly one of --call and --put");
    /* A flag of the other option type is refused rather than ignored: a user
     * who sets it expects it to change the price. */
    if (o->asian && a->steps_given)
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--steps does not apply to %s options (%s)", a->type,
                      "Asian paths step from one fixing to the next");
    if (!o->asian && a->fixings_given)
        return cli_refuse(COMMAND, CLI_EXIT_INVALID,
                          "--fixings does not apply to %s options (%s)", a->type, "--fixings is for Asian options");
    if (a->paths < 2) return cli_refuse(COMMAND, CLI_EXIT_INVALID,
                                        "--paths: expected at least 2 paths, got %zu", a->paths);
    if (!o->asian && a->steps == 0) return cli_refuse(COMMAND, CLI_EXIT_INVALID,
                                                      "--steps: expected at least 1 time step, got 0");
    if (o->asian && a->fixings == 0) return cli_refuse(COMMAND, CLI_EXIT_INVALID,
                                                       "--fixings: expected at least 1 fixing, got 0");
    o->type = a->call ? FCAST_CALL : FCAST_PUT;
    o->spot = a->S, o->strike = a->K, o->rate = a->r, o->div = a->q, o->vol = a->sigma, o->expiry = a->T;
    o->steps = o->asian ? 0 : a->steps;
    o->n_fixings = o->asian ? a->fixings : 0;
    o->paths = a->paths;
    o->seed = a->seed;
    o->antithetic = a->antithetic;
    o->no_control_variate = o->asian && a->no_control_variate;   /* a European has none to go without */
    return 0;
}

/* Black-Scholes price and Greeks of a European option (g[6]: price, delta,
 * gamma, vega, theta, rho). */
static fc_status black_scholes(const fcast_mc_option *o, double g[6]) {
    const fcast_option_arrays one = {1, &o->type, &o->spot, &o->strike, &o->rate, &o->div, &o->vol, &o->expiry};
    return fcast_bs_european(&one, &g[0], &g[1], &g[2], &g[3], &g[4], &g[5]);
}

static void print_text(const fcast_mc_option *o, const fcast_mc_result *r, const fcast_mc_detail *d,
                       const double *g) {
    printf("%s %s: S=%g K=%g r=%g q=%g sigma=%g T=%g", o->asian ? "Asian (arithmetic average)" : "European",
           o->type == FCAST_CALL ? "call" : "put", o->spot, o->strike, o->rate, o->div, o->vol, o->expiry);
    if (o->asian) printf(", %zu fixings at T*i/%zu", o->n_fixings, o->n_fixings);
    printf("\nMonte Carlo     %.6f  std error %.6f  95%% CI [%.6f, %.6f]\n", r->price, r->std_error, r->ci_low,
           r->ci_high);
    printf("                %llu paths%s, seed %llu\n", (unsigned long long)r->paths,
           o->antithetic ? " (antithetic)" : "", (unsigned long long)o->seed);
    if (o->asian && !o->no_control_variate)
        printf("                geometric-average control variate: beta %.4f, std error without it %.6f\n"
               "Geometric Asian %.6f (Kemna-Vorst closed form; Monte Carlo %.6f +- %.6f)\n",
               d->cv_beta, d->plain_std_error, d->geo_exact, d->geo_mc, d->geo_mc_std_error);
    if (!o->asian)
        printf("Black-Scholes   %.6f  delta %.6f  gamma %.6f  vega %.6f  theta %.6f  rho %.6f\n", g[0], g[1], g[2],
               g[3], g[4], g[5]);
}

/* --json: one line, the object the service answers too (the library's:
 * fcast_mc_option_json). 0, or the exit code after the message. */
static int print_json(const fcast_mc_option *o, const fcast_mc_result *r, const fcast_mc_detail *d,
                      const double *g) {
    char *s = fcast_mc_option_json(o, r, d, g);
    if (!s) {
        fprintf(stderr, "fcast " COMMAND ": out of memory writing the option's JSON\n");
        return CLI_EXIT_MEMORY;
    }
    puts(s);
    free(s);
    return 0;
}

/* --greeks: the Monte Carlo Greeks next to the price (text), or added to
 * the price's JSON object as mc_delta, mc_delta_stderr, ... (fcast_mc_greeks_json) */
static int run_greeks(const option_args *a, const fcast_mc_option *o, const fcast_mc_result *r,
                      const fcast_mc_detail *d, const double *g) {
    int method = !strcmp(a->greeks, "pathwise") ? FCAST_GREEKS_PATHWISE : !strcmp(a->greeks, "lr") ? FCAST_GREEKS_LR : 0;
    if (!method) return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--greeks: expected pathwise or lr, got '%s'", a->greeks);
    if (o->asian) return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--greeks is for --type european");
    fcast_mc_greeks_result k;
    if (fcast_mc_greeks(o, method, &k) != FC_OK) return quant_option_fail_in_api_fields(FC_ERR_INVALID);
    if (!a->json) {
        print_text(o, r, d, g);
        printf("MC Greeks (%s, %llu paths): delta %.6f +- %.6f", a->greeks, (unsigned long long)k.paths, k.delta,
               k.delta_std_error);
        if (method == FCAST_GREEKS_LR) printf("  gamma %.6f +- %.6f", k.gamma, k.gamma_std_error);
        printf("  vega %.6f +- %.6f\n", k.vega, k.vega_std_error);
        return 0;
    }
    return quant_option_print_json(fcast_mc_greeks_json(o, r, d, g, method, &k));
}

int cmd_quant_option(int argc, char **argv, int first) {
    option_args a = {.type = "european", .paths = 1000000, .steps = 1, .fixings = 12, .seed = 42,
                     .exercise = "european", .method = NULL, .tree = "bbsr", .calibration_paths = 100000,
                     .degree = 3};
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
        {"steps", ARG_SIZE, &a.steps, "N", "time steps: Monte Carlo European per path (1; GBM is sampled "
                                           "exactly); binomial tree (1000); lsm exercise dates (50); barrier "
                                           "Monte Carlo (50)", 0, 0},
        {"exercise", ARG_STR, &a.exercise, "KIND", "european or american (american: --method binomial) (european)",
         0, 0},
        {"method", ARG_STR, &a.method, "M", "mc (Monte Carlo), binomial, or lsm (Longstaff-Schwartz, American) "
                                            "(mc; binomial for american)", 0, 0},
        {"greeks", ARG_STR, &a.greeks, "HOW", "European Monte Carlo: also its Greeks, pathwise (delta, vega) or lr "
                                             "(likelihood ratio: delta, gamma, vega), with standard errors", 0, 0},
        {"barrier", ARG_STR, &a.barrier, "KIND:LEVEL", "a barrier option: down-and-in, up-and-in, down-and-out or "
                                                    "up-and-out, e.g. down-and-out:90", 0, 0},
        {"rebate", ARG_DOUBLE, &a.rebate, "R", "--barrier: rebate, at expiry (knock-in) or at the touch "
                                             "(knock-out) (0)", 0, 0},
        {"calibration-paths", ARG_SIZE, &a.calibration_paths, "N", "lsm: regression paths (100000)", 0, 0},
        {"basis-degree", ARG_SIZE, &a.degree, "D", "lsm: polynomial degree of the regression basis (3)", 0, 0},
        {"tree", ARG_STR, &a.tree, "T", "binomial: bbsr (Black-Scholes last step + Richardson), bbs, or crr "
                                        "(plain, as QuantLib's) (bbsr)", 0, 0},
        {"fixings", ARG_SIZE, &a.fixings, "N", "Asian: averaging dates T*i/N, i = 1..N (12)", 0, 0},
        {"antithetic", ARG_FLAG, &a.antithetic, NULL, "antithetic variates (off)", 0, 0},
        {"no-control-variate", ARG_FLAG, &a.no_control_variate, NULL, "Asian: no geometric control variate", 0, 0},
        {"seed", ARG_SIZE, &a.seed, "S", "random seed (42)", 0, 0},
        {"json", ARG_FLAG, &a.json, NULL, "print one JSON object", 0, 0},
        {"device", ARG_STR, &device, "DEV", DEVICE_FLAG_HELP, 0, 0},
        {"verbose", ARG_FLAG, &a.verbose, NULL, "say on stderr which device runs", 0, 0},
        {0},
    };
    int rc = args_parse(COMMAND,
                        "Price a European or arithmetic-average Asian option by Monte Carlo (geometric Brownian\n"
                        "motion, Philox random numbers) with its standard error and 95% interval; European\n"
                        "options also get the Black-Scholes price and Greeks (vega and rho per 1.00, theta per year).\n"
                        "--method binomial prices European or American (--exercise) options on a binomial tree,\n"
                        "--method lsm American options by Longstaff-Schwartz; --barrier KIND:LEVEL prices barrier\n"
                        "options (closed form; --method mc adds Monte Carlo); --greeks adds Monte Carlo Greeks\n"
                        "(docs/quant-options.md).",
                        specs, argc, argv, first);
    if (rc) return args_exit(rc);
    for (const arg_spec *s = specs; s->name; s++) {
        if (!strcmp(s->name, "steps")) a.steps_given = s->seen != 0;
        if (!strcmp(s->name, "fixings")) a.fixings_given = s->seen != 0;
        if (!strcmp(s->name, "paths")) a.paths_given = s->seen != 0;
        if (!strcmp(s->name, "antithetic")) a.antithetic_given = s->seen != 0;
        if (!strcmp(s->name, "seed")) a.seed_given = s->seen != 0;
        if (!strcmp(s->name, "rebate")) a.rebate_given = s->seen != 0;
        if (!strcmp(s->name, "calibration-paths") || !strcmp(s->name, "basis-degree")) a.lsm_flags_given |= s->seen != 0;
        if (!strcmp(s->name, "tree")) a.tree_given = s->seen != 0;
    }
    int american = !strcmp(a.exercise, "american");
    /* --tree and --greeks are refused where they would be ignored (the
     * service's quant_option_methods.c refuses them alike) */
    int binomial = a.method ? !strcmp(a.method, "binomial") : american && !a.barrier;
    if (a.tree_given && !binomial) return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--tree is for --method binomial");
    if (a.greeks && (a.barrier || american || (a.method && strcmp(a.method, "mc"))))
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--greeks is for the European Monte Carlo price (--method mc), "
                          "not %s", a.barrier ? "--barrier" : american ? "--exercise american" : "--method binomial");
    /* only Monte Carlo runs on a device (European, Asian, barrier, Longstaff-Schwartz's pricing paths):
     * elsewhere the flag would be ignored */
    int mc = a.method && !strcmp(a.method, "mc"), lsm = a.method && !strcmp(a.method, "lsm");
    int on_host = a.barrier ? !mc : american ? !lsm : (a.method && !mc) || a.greeks;
    if (on_host && (device || a.verbose))
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--device and --verbose are for the Monte Carlo prices: %s runs "
                          "on the CPU", a.barrier ? "the barrier's closed form" : american ? "--method binomial"
                          : a.greeks ? "--greeks" : "--method binomial");
    if (!american && strcmp(a.exercise, "european"))
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--exercise: expected european or american, got '%s'",
                          a.exercise);
    if (a.rebate_given && !a.barrier) return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--rebate is for --barrier");
    if (a.barrier) {
        if (american) return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--barrier options are European here: drop "
                                        "--exercise american");
        if (a.method && strcmp(a.method, "mc") && strcmp(a.method, "analytic"))
            return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--barrier: --method analytic (the default) or mc, got '%s'",
                              a.method);
        return quant_option_barrier(&a, a.method && !strcmp(a.method, "mc"), device);
    }
    const char *method = a.method ? a.method : american ? "binomial" : "mc";
    if (!strcmp(method, "binomial")) return quant_option_tree(&a, american);
    if (!strcmp(method, "lsm")) {
        if (!american) return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--method lsm needs --exercise american");
        return quant_option_lsm(&a, device);
    }
    if (a.lsm_flags_given)
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--calibration-paths and --basis-degree are for --method lsm");
    if (strcmp(method, "mc"))
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--method: expected mc, binomial or lsm, got '%s'", method);
    if (american)
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--exercise american: Monte Carlo is --method lsm "
                          "(Longstaff-Schwartz); or --method binomial");
    fcast_mc_option o;
    if ((rc = option_from_args(&a, &o)) != 0) return rc;
    fcast_device *dev = NULL;   /* the CPU, or a GPU with fcast's quant kernels */
    if ((rc = quant_option_device(&a, device, &dev)) != 0) return rc;
    fcast_mc_result r;
    fcast_mc_detail d;
    double g[6] = {0};
    fc_status st = fcast_mc_price_on(&o, dev, &r, &d);
    fcast_device_free(dev);
    if (st == FC_OK && !o.asian) st = black_scholes(&o, g);
    if (st != FC_OK) return fail_in_flags(st);
    if (a.greeks) return run_greeks(&a, &o, &r, &d, g);
    return a.json ? print_json(&o, &r, &d, g) : (print_text(&o, &r, &d, g), 0);
}
