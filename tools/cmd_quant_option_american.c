/* fcast quant option --method binomial | lsm: European and American options
 * on a binomial tree (fcast_tree_price) and American options by
 * Longstaff-Schwartz (fcast_lsm_price), through the library API (their
 * --json objects: fcast_tree_option_json, fcast_lsm_option_json, which the
 * service answers too); the printing of those objects and the
 * renaming of the API's field names to flags in their messages, which
 * the barrier and Greeks runners share. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "quant_option.h"

#define COMMAND QUANT_OPTION_COMMAND

#define TREE_DEFAULT_STEPS 1000
#define LSM_DEFAULT_STEPS 50

/* Whether msg names the field `word` at i: the whole word followed by ":",
 * " =" or " " and a number ("steps 50"), not the word in prose ("time
 * steps"); or the prefix, for a word that ends in ": ". */
static int word_at(const char *msg, size_t i, const char *word, size_t n) {
    if (strncmp(msg + i, word, n)) return 0;
    if (!isalpha((unsigned char)word[n - 1])) return 1;
    char before = i ? msg[i - 1] : ' ', after = msg[i + n], next = after ? msg[i + n + 1] : '\0';
    if (isalnum((unsigned char)before) || before == '_' || before == '-') return 0;
    return after == ':' || (after == ' ' && (next == '=' || isdigit((unsigned char)next) || next == '-'));
}

/* The option API's messages name their structs' fields ("vol"): printed
 * with the flags instead ("--sigma"). */
int quant_option_fail_in_api_fields(fc_status st) {
    static const char *const words[][2] = {
        {"fcast_tree_price: ", ""}, {"fcast_lsm_price: ", ""}, {"fcast_lsm_price_on: ", ""}, {"fcast_barrier_mc_price_on: ", ""}, {"fcast_barrier_price: ", ""},
        {"fcast_barrier_mc_price: ", ""}, {"fcast_mc_greeks: ", ""}, {"barrier", "--barrier"}, {"rebate", "--rebate"}, {"vol", "--sigma"},
        {"expiry", "--T"},
        {"spot", "--S"}, {"strike", "--K"}, {"rate", "--r"}, {"div", "--q"}, {"steps", "--steps"},
        {"calibration_paths", "--calibration-paths"}, {"paths", "--paths"}, {"degree", "--basis-degree"}};
    enum { N_WORDS = sizeof words / sizeof *words };
    char out[1024];
    const char *msg = fc_last_error();
    size_t o = 0;
    for (size_t i = 0; msg[i] && o + 24 < sizeof out;) {
        size_t k = 0, n = 0;
        while (k < N_WORDS && !word_at(msg, i, words[k][0], n = strlen(words[k][0]))) k++;
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

int quant_option_print_json(char *json) {
    if (!json) return cli_refuse(COMMAND, CLI_EXIT_MEMORY, "out of memory writing the option's JSON");
    puts(json);
    free(json);
    return 0;
}

int quant_option_device(const option_args *a, const char *device, fcast_device **dev) {
    if (fcast_device_open(device, dev) != FC_OK) return cli_fail(COMMAND);
    if (a->verbose) fprintf(stderr, "%s\n", fcast_device_note(*dev));
    return 0;
}

/* --method lsm: an American option by Longstaff-Schwartz. */
int quant_option_lsm(const option_args *a, const char *device) {
    if (a->type && strcmp(a->type, "european"))
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--method lsm prices American options (--exercise american), "
                          "not --type %s", a->type);
    if (a->antithetic_given || a->fixings_given || a->no_control_variate)
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--antithetic, --fixings and --no-control-variate do not "
                          "apply to --method lsm");
    if (a->call == a->put) return cli_refuse(COMMAND, CLI_EXIT_INVALID, "give exactly one of --call and --put");
    if ((a->steps_given && a->steps == 0) || a->paths < 2 || a->calibration_paths == 0 || a->degree == 0)
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "%s", a->paths < 2 ? "--paths: expected at least 2 paths"
                          : a->calibration_paths == 0 ? "--calibration-paths: expected at least 16 paths, got 0"
                          : a->degree == 0 ? "--basis-degree: expected 1 to 8, got 0"
                          : "--steps: expected at least 2 exercise dates, got 0");
    if (a->degree > 8) return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--basis-degree: expected 1 to 8, got %zu",
                                         a->degree);
    fcast_lsm_option o = {.type = a->call ? FCAST_CALL : FCAST_PUT, .spot = a->S, .strike = a->K, .rate = a->r,
                          .div = a->q, .vol = a->sigma, .expiry = a->T,
                          .steps = a->steps_given ? a->steps : LSM_DEFAULT_STEPS, .paths = a->paths,
                          .calibration_paths = a->calibration_paths, .degree = (int)a->degree, .seed = a->seed};
    fcast_lsm_result r;
    fcast_device *dev = NULL;   /* the pricing paths on the CPU, or a GPU with fcast's quant kernels */
    int rc = quant_option_device(a, device, &dev);
    if (rc) return rc;
    fc_status st = fcast_lsm_price_on(&o, dev, &r);
    fcast_device_free(dev);
    if (st != FC_OK) return quant_option_fail_in_api_fields(FC_ERR_INVALID);
    const char *opt = a->call ? "call" : "put";
    if (a->json) return quant_option_print_json(fcast_lsm_option_json(&o, &r));
    printf("American %s: S=%g K=%g r=%g q=%g sigma=%g T=%g\n", opt, o.spot, o.strike, o.rate, o.div, o.vol, o.expiry);
    printf("Longstaff-Schwartz %.6f  std error %.6f  95%% CI [%.6f, %.6f]\n", r.price, r.std_error,
           r.price - 1.959963984540054 * r.std_error, r.price + 1.959963984540054 * r.std_error);
    printf("                   %zu exercise dates, basis degree %d, %llu pricing paths, %llu calibration paths "
           "(in-sample %.6f), seed %llu\n", o.steps, o.degree, (unsigned long long)r.paths,
           (unsigned long long)r.calibration_paths, r.calibration_price, (unsigned long long)a->seed);
    return 0;
}

static const char *const TREE_NAMES[3] = {"bbsr", "bbs", "crr"};   /* by fcast_tree_kind */

/* --method binomial: the flags that fit a tree, into *o. 0, or the exit code after the message. */
static int tree_from_args(const option_args *a, int american, fcast_tree_option *o) {
    if (a->type && strcmp(a->type, "european"))
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--method binomial prices --type european options (with "
                          "--exercise european or american), not %s", a->type);
    if (a->paths_given || a->antithetic_given || a->seed_given || a->fixings_given || a->no_control_variate ||
        a->lsm_flags_given)
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--paths, --antithetic, --seed, --fixings, "
                          "--no-control-variate, --calibration-paths and --basis-degree are Monte Carlo's: they do not apply to --method binomial");
    if (a->call == a->put) return cli_refuse(COMMAND, CLI_EXIT_INVALID, "give exactly one of --call and --put");
    int tree = -1;
    for (int k = 0; k < 3; k++)
        if (a->tree && !strcmp(a->tree, TREE_NAMES[k])) tree = k;
    if (tree < 0) return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--tree: expected bbsr, bbs or crr, got '%s'", a->tree);
    if (a->steps_given && a->steps == 0)
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--steps: expected at least 1 time step, got 0");
    *o = (fcast_tree_option){.type = a->call ? FCAST_CALL : FCAST_PUT, .american = american, .spot = a->S,
                             .strike = a->K, .rate = a->r, .div = a->q, .vol = a->sigma, .expiry = a->T,
                             .steps = a->steps_given ? a->steps : TREE_DEFAULT_STEPS, .tree = tree};
    return 0;
}

/* The tree's value; for European exercise, Black-Scholes next to it. */
int quant_option_tree(const option_args *a, int american) {
    fcast_tree_option o;
    int rc = tree_from_args(a, american, &o);
    if (rc) return rc;
    double price, bs = 0.0;
    fc_status st = fcast_tree_price(&o, &price);
    if (st == FC_OK && !american) {
        const fcast_option_arrays one = {1, &o.type, &o.spot, &o.strike, &o.rate, &o.div, &o.vol, &o.expiry};
        st = fcast_bs_european(&one, &bs, NULL, NULL, NULL, NULL, NULL);
    }
    if (st != FC_OK) return quant_option_fail_in_api_fields(st);
    const char *opt = a->call ? "call" : "put";
    if (a->json) return quant_option_print_json(fcast_tree_option_json(&o, price, bs));
    printf("%s %s: S=%g K=%g r=%g q=%g sigma=%g T=%g\n", american ? "American" : "European", opt, o.spot, o.strike,
           o.rate, o.div, o.vol, o.expiry);
    printf("Binomial (%s, %zu steps) %.8f\n", TREE_NAMES[o.tree], o.steps, price);
    if (!american) printf("Black-Scholes   %.8f\n", bs);
    return 0;
}
