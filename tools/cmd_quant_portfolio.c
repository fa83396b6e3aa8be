/* fcast quant portfolio: fully invested portfolios of the series of a price
 * (or return) file through the library API (fcast.h: fcast_returns_read_csv,
 * fcast_portfolio_*): minimum variance and (--target-return) mean-variance
 * weights, shorts allowed in closed form, or within bounds (--long-only,
 * --min-weight, --max-weight, --bounds) as exact quadratic programmes; the
 * efficient frontier, the maximum-Sharpe portfolio, risk parity; the sample
 * or the Ledoit-Wolf covariance (docs/quant-portfolio.md). Series are
 * aligned on ds (inner join) before returns are taken. What stays here is
 * the CLI's: flags, lists of ID=value, where the output goes
 * (the library's fcast_portfolio_answer solves and writes the table, the CSV
 * or the JSON; fcast serve
 * answers with its JSON). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"

#define COMMAND "quant portfolio"
#define MAX_ASSETS FCAST_PORTFOLIO_MAX_ASSETS
#define MAX_FRONTIER FCAST_PORTFOLIO_MAX_FRONTIER

typedef struct {
    const char *data, *out, *bounds, *budgets, *shrink;
    double target, min_weight, max_weight, risk_free;
    size_t frontier;
    int are_returns, long_only, max_sharpe, risk_parity, json, csv;
    int target_given, min_given, max_given, frontier_given;
} pf_args;

/* The run's file and the bounds and budgets its flags give. */
typedef struct {
    const fcast_returns *r;
    size_t N, T;
    double *lo, *hi, *budgets;
} pf_run;

/* A failure of fcast_returns_read_csv, its hint for a file of returns
 * naming the flag (as fcast quant risk does). */
static int fail_read(void) {
    const char *msg = fc_last_error(), *arg = "are_returns = 1", *at = strstr(msg, arg);
    if (!at) return cli_fail(COMMAND);
    fprintf(stderr, "fcast " COMMAND ": %.*s--returns%s\n", (int)(at - msg), msg, at + strlen(arg));
    return cli_exit_code(fc_last_status());
}

static ssize_t asset_index(const fcast_returns *r, const char *id, size_t len) {
    for (size_t j = 0; j < fcast_returns_n_assets(r); j++) {
        const char *name = fcast_returns_id(r, j);
        if (strlen(name) == len && !strncmp(name, id, len)) return (ssize_t)j;
    }
    return -1;
}

/* Comma-separated "ID=A" items (pairs: "ID=A:B") into first[j] (and
 * second[j]) of the asset j named. 0, or the exit code after the message. */
static int parse_id_list(const char *flag, const char *text, const fcast_returns *r, int pairs, double *first,
                         double *second) {
    const char *p = text, *example = pairs ? "DAX=0:0.5,FTSE=0.1:1" : "DAX=2,FTSE=1";
    for (;;) {
        const char *eq = strchr(p, '='), *comma = strchr(p, ',');
        if (!eq || (comma && comma < eq))
            return cli_refuse(COMMAND, CLI_EXIT_PARSE, "%s: expected ID=%s items such as %s, got '%s'", flag,
                              pairs ? "LO:HI" : "B", example, text);
        ssize_t j = asset_index(r, p, (size_t)(eq - p));
        if (j < 0)
            return cli_refuse(COMMAND, CLI_EXIT_INVALID, "%s: '%.*s' is not a series of the data file", flag,
                              (int)(eq - p), p);
        char *end;
        errno = 0;
        double a = strtod(eq + 1, &end), b = NAN;
        int bad = end == eq + 1 || errno;
        if (pairs && !bad) {
            bad = *end != ':';
            if (!bad) {
                const char *q = end + 1;
                b = strtod(q, &end);
                bad = end == q;
            }
        }
        if (bad || (*end && *end != ','))
            return cli_refuse(COMMAND, CLI_EXIT_PARSE, "%s: expected ID=%s items such as %s, got '%s'", flag,
                              pairs ? "LO:HI" : "B", example, text);
        first[j] = a;
        if (pairs) second[j] = b;
        if (!*end) return 0;
        p = end + 1;
    }
}

static int bounded(const pf_args *a) { return a->long_only || a->min_given || a->max_given || a->bounds; }

/* The flags that go together or not, before any file is read. */
static int check_flags(const pf_args *a) {
    if (a->json && a->csv) return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--json and --csv: choose one output");
    if (a->long_only && a->min_given)
        return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--long-only is --min-weight 0: give one of them");
    if (!bounded(a) && (a->frontier_given || a->max_sharpe))
        return cli_refuse(COMMAND, CLI_EXIT_USAGE, "%s needs bounds on the weights: add --long-only (or --min-weight, "
                          "--max-weight, --bounds)", a->frontier_given ? "--frontier" : "--max-sharpe");
    if (a->frontier_given && (a->frontier < 2 || a->frontier > MAX_FRONTIER))
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--frontier %zu: expected 2 to %d points", a->frontier,
                          MAX_FRONTIER);
    if (a->budgets && !a->risk_parity) return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--budgets needs --risk-parity");
    if (strcmp(a->shrink, "sample") && strcmp(a->shrink, "ledoit-wolf"))
        return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--shrink %s: expected sample or ledoit-wolf", a->shrink);
    double checks[3] = {a->min_weight, a->max_weight, a->risk_free};
    const char *names[3] = {"--min-weight", "--max-weight", "--risk-free"};
    for (int i = 0; i < 3; i++)
        if (isnan(checks[i]) || (i != 1 && isinf(checks[i])))
            return cli_refuse(COMMAND, CLI_EXIT_INVALID, "%s %g: expected a finite number", names[i], checks[i]);
    return 0;
}

/* Bounds and budgets from the flags into run (lo, hi; budgets). */
static int fill_lists(const pf_args *a, pf_run *run) {
    const size_t N = run->N;
    for (size_t j = 0; j < N; j++) {
        run->lo[j] = a->min_given ? a->min_weight : 0.0;
        run->hi[j] = a->max_given ? a->max_weight : INFINITY;
        run->budgets[j] = 1.0;
    }
    int rc = a->bounds ? parse_id_list("--bounds", a->bounds, run->r, 1, run->lo, run->hi) : 0;
    for (size_t j = 0; !rc && j < N; j++)   /* the asset named here; the library checks the rest */
        if (run->lo[j] > run->hi[j])
            rc = cli_refuse(COMMAND, CLI_EXIT_INVALID, "%s: lower bound %g > upper bound %g (--min-weight, "
                            "--max-weight, --bounds)", fcast_returns_id(run->r, j), run->lo[j], run->hi[j]);
    if (!rc && a->budgets) rc = parse_id_list("--budgets", a->budgets, run->r, 0, run->budgets, NULL);
    return rc;
}

static int alloc_run(pf_run *run) {
    const size_t N = run->N;
    run->lo = malloc(3 * N * sizeof *run->lo);
    if (!run->lo) return cli_refuse(COMMAND, CLI_EXIT_MEMORY, "out of memory (the bounds of %zu assets)", N);
    run->hi = run->lo + N, run->budgets = run->hi + N;
    return 0;
}

static void free_run(pf_run *run) { free(run->lo); }

static fc_status put_text(FILE *f, void *text) {
    fputs(text, f);
    return FC_OK;
}

/* The JSON object is one line without its newline. */
static fc_status put_line(FILE *f, void *text) {
    fputs(text, f);
    fputc('\n', f);
    return FC_OK;
}

/* The library solves and writes (fcast_portfolio_answer): the table, the
 * CSV or the JSON, the last what fcast serve answers too. */
static int solve_and_print(const pf_args *a, pf_run *run) {
    int rc = fill_lists(a, run);
    const char **ids = rc ? NULL : malloc(run->N * sizeof *ids);
    if (!rc && !ids) rc = cli_refuse(COMMAND, CLI_EXIT_MEMORY, "out of memory (the ids of %zu assets)", run->N);
    for (size_t j = 0; !rc && j < run->N; j++) ids[j] = fcast_returns_id(run->r, j);
    const fcast_portfolio_request q = {
        .data = a->data, .returns = fcast_returns_values(run->r), .n_periods = run->T, .n_assets = run->N,
        .ids = ids, .target_given = a->target_given, .target_return = a->target,
        .lower = bounded(a) ? run->lo : NULL, .upper = bounded(a) ? run->hi : NULL,
        .frontier = a->frontier_given ? a->frontier : 0, .max_sharpe = a->max_sharpe, .risk_free = a->risk_free,
        .risk_parity = a->risk_parity, .budgets = a->budgets ? run->budgets : NULL,
        .ledoit_wolf = !strcmp(a->shrink, "ledoit-wolf")};
    const fcast_portfolio_format format = a->json ? FCAST_PORTFOLIO_JSON : a->csv ? FCAST_PORTFOLIO_CSV
                                                                                  : FCAST_PORTFOLIO_TABLE;
    char *text = NULL;
    if (!rc && fcast_portfolio_answer(&q, format, &text) != FC_OK) rc = cli_fail(COMMAND);
    if (!rc && fcast_write_file(a->out, a->json ? put_line : put_text, text) != FC_OK) rc = cli_fail(COMMAND);
    free(text);
    free(ids);
    return rc;
}

static int run_command(const pf_args *a) {
    fcast_returns *r = NULL;
    const fcast_path_use files[] = {{"--data", a->data, FCAST_PATH_IN, 0, NULL},
                                    {"--out", a->out, FCAST_PATH_OUT_STDOUT, 0, NULL}};
    fc_status st = fcast_paths_check(files, 2);   /* before any work */
    if (st == FC_OK) st = fcast_returns_read_csv(a->data, a->are_returns, &r);
    if (st != FC_OK) return fail_read();
    pf_run run = {.r = r, .N = fcast_returns_n_assets(r), .T = fcast_returns_n_periods(r)};
    int rc = 0;
    if (run.N > MAX_ASSETS)
        rc = cli_refuse(COMMAND, CLI_EXIT_INVALID, "%s: %zu series; a portfolio takes 1 to %d assets", a->data,
                        run.N, MAX_ASSETS);
    if (!rc) rc = alloc_run(&run);
    if (!rc) rc = solve_and_print(a, &run);
    free_run(&run);
    fcast_returns_free(r);
    return rc;
}

int cmd_quant_portfolio(int argc, char **argv, int first) {
    const char *device = NULL;
    pf_args a = {.out = "-", .shrink = "sample", .max_weight = INFINITY};
    arg_spec specs[] = {
        {"data", ARG_IN, &a.data, "FILE", "long CSV (unique_id, ds, y) of prices, or returns with --returns", 1, 0},
        {"returns", ARG_FLAG, &a.are_returns, NULL, "y holds simple returns, not prices", 0, 0},
        {"target-return", ARG_DOUBLE, &a.target, "R",
         "also the minimum-variance portfolio earning R a year (mean return x 252)", 0, 0},
        {"long-only", ARG_FLAG, &a.long_only, NULL, "weights >= 0 (a quadratic programme)", 0, 0},
        {"min-weight", ARG_DOUBLE, &a.min_weight, "A", "every weight >= A (finite; -0.2 allows 20% shorts)", 0, 0},
        {"max-weight", ARG_DOUBLE, &a.max_weight, "B", "every weight <= B (0.25: at most a quarter in one asset)", 0,
         0},
        {"bounds", ARG_STR, &a.bounds, "ID=LO:HI,..", "per-asset bounds, over --min-weight/--max-weight", 0, 0},
        {"frontier", ARG_SIZE, &a.frontier, "N",
         "N efficient portfolios, from the minimum-variance return to the highest reachable", 0, 0},
        {"max-sharpe", ARG_FLAG, &a.max_sharpe, NULL, "also the maximum-Sharpe (tangency) portfolio", 0, 0},
        {"risk-free", ARG_DOUBLE, &a.risk_free, "R", "risk-free return a year, for Sharpe ratios (0)", 0, 0},
        {"risk-parity", ARG_FLAG, &a.risk_parity, NULL, "also the long-only equal-risk-contribution portfolio", 0, 0},
        {"budgets", ARG_STR, &a.budgets, "ID=B,..", "risk budgets for --risk-parity (others 1; normalised)", 0, 0},
        {"shrink", ARG_STR, &a.shrink, "METHOD", "covariance: sample (ddof 1) or ledoit-wolf (scikit-learn's)", 0, 0},
        {"json", ARG_FLAG, &a.json, NULL, "print one JSON object", 0, 0},
        {"csv", ARG_FLAG, &a.csv, NULL, "print one CSV row per portfolio (%.17g)", 0, 0},
        {"out", ARG_OUT, &a.out, "FILE", "where the output goes (-, standard output)", 0, 0},
        {"device", ARG_STR, &device, "DEV", DEVICE_CPU_ONLY_HELP, 0, 0},
        {0},
    };
    int rc = args_parse(COMMAND,
                        "Fully invested portfolios from the sample (or Ledoit-Wolf) covariance of simple returns:\n"
                        "minimum variance and a target return (closed form, shorts allowed; within bounds, an exact\n"
                        "quadratic programme), the efficient frontier, maximum Sharpe and risk parity.",
                        specs, argc, argv, first);
    if (rc) return args_exit(rc);
    if ((rc = device_cpu_only(COMMAND, device))) return rc;
    a.target_given = specs[2].seen, a.min_given = specs[4].seen, a.max_given = specs[5].seen;
    a.frontier_given = specs[7].seen;
    if (a.long_only) a.min_weight = 0.0;
    if ((rc = check_flags(&a))) return rc;
    return run_command(&a);
}
