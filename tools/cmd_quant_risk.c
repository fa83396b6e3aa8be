/* fcast quant risk: VaR, CVaR, volatility, Sharpe, Sortino and maximum
 * drawdown of every series of a price (or return) file, through the library
 * API (fcast.h: fcast_returns_read_csv, fcast_risk_summary,
 * fcast_var_historical, fcast_var_normal; conventions in docs/c-api.md).
 * Series are aligned on ds (inner join). What stays here is the CLI's:
 * flags, the output path's checks and its atomic write. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"

#define COMMAND "quant risk"
#define MAX_LEVELS 16

/* 0, or the exit code after the message. */
static int parse_levels(const char *text, double *levels, size_t *n) {
    const char *p = text;
    *n = 0;
    for (;;) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno || (*end && *end != ','))
            return cli_refuse(COMMAND, CLI_EXIT_PARSE,
                              "--level: expected comma-separated levels such as 0.95,0.99, got '%s'", text);
        if (!(v > 0.0 && v < 1.0))
            return cli_refuse(COMMAND, CLI_EXIT_INVALID,
                              "--level: expected confidence levels in (0, 1) such as 0.95, got %g", v);
        if (*n == MAX_LEVELS) return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--level: at most %d levels", MAX_LEVELS);
        levels[(*n)++] = v;
        if (!*end) return 0;
        p = end + 1;
    }
}

/* A failure of fcast_returns_read_csv, its hint for a file of returns
 * ("are_returns = 1 reads a file of returns") naming the flag. */
static int fail_read(void) {
    const char *msg = fc_last_error(), *arg = "are_returns = 1", *at = strstr(msg, arg);
    if (!at) return cli_fail(COMMAND);
    fprintf(stderr, "fcast " COMMAND ": %.*s--returns%s\n", (int)(at - msg), msg, at + strlen(arg));
    return cli_exit_code(fc_last_status());
}

/* All measures of one series: 5 summary values then 4 per level. */
static fc_status series_measures(const double *r, size_t n, const double *levels, size_t nl, double *out) {
    fcast_risk s;
    fc_status st = fcast_risk_summary(r, n, &s);
    if (st != FC_OK) return st;
    double head[5] = {s.annual_return, s.annual_volatility, s.sharpe, s.sortino, s.max_drawdown};
    memcpy(out, head, sizeof head);
    for (size_t l = 0; st == FC_OK && l < nl; l++) {
        st = fcast_var_historical(r, n, levels[l], &out[5 + 4 * l], &out[6 + 4 * l]);
        if (st == FC_OK) st = fcast_var_normal(r, n, levels[l], &out[7 + 4 * l], &out[8 + 4 * l]);
    }
    return st;
}

static void metric_name(size_t m, const double *levels, char *buf, size_t cap) {
    static const char *head[5] = {"annual_return", "annual_volatility", "sharpe", "sortino", "max_drawdown"};
    static const char *tail[4] = {"hist_var", "hist_cvar", "normal_var", "normal_es"};
    if (m < 5) snprintf(buf, cap, "%s", head[m]);
    else snprintf(buf, cap, "%s_%g", tail[(m - 5) % 4], levels[(m - 5) / 4]);
}

typedef struct {
    const char *path;
    const fcast_returns *r;
    const double *v, *levels;
    size_t nm;
    int csv;
} table_ctx;

/* The table (or series,metric,value rows), as a body for
 * fc_write_file_atomic (--out, standard output by default). */
static fc_status write_table(FILE *f, void *ctx) {
    const table_ctx *c = ctx;
    const size_t n_series = fcast_returns_n_assets(c->r);
    char name[64];
    if (c->csv) {
        fprintf(f, "series,metric,value\n");
        for (size_t s = 0; s < n_series; s++)
            for (size_t m = 0; m < c->nm; m++) {
                metric_name(m, c->levels, name, sizeof name);
                double v = c->v[s * c->nm + m];
                fcast_csv_write_field(f, fcast_returns_id(c->r, s));
                fprintf(f, ",%s,", name);
                if (!isnan(v)) fprintf(f, "%.17g", v + 0.0);   /* + 0.0: -0 (a VaR of -(0)) is 0 */
                fputc('\n', f);   /* NaN: an empty field, as fcast's CSVs write a missing value */
            }
        return FC_OK;
    }
    fprintf(f, "%s: %zu series aligned on ds (inner join), %zu returns each; losses positive, 252 periods a year\n",
            c->path, n_series, fcast_returns_n_periods(c->r));
    fprintf(f, "%-22s", "metric");
    for (size_t s = 0; s < n_series; s++) fprintf(f, " %12.12s", fcast_returns_id(c->r, s));
    fprintf(f, "\n");
    for (size_t m = 0; m < c->nm; m++) {
        metric_name(m, c->levels, name, sizeof name);
        fprintf(f, "%-22s", name);
        for (size_t s = 0; s < n_series; s++) {
            double v = c->v[s * c->nm + m];
            if (isnan(v)) fprintf(f, " %12s", "nan");   /* not glibc's "-nan" of 0/0 */
            else fprintf(f, " %12.6f", v + 0.0);
        }
        fprintf(f, "\n");
    }
    return FC_OK;
}

/* The measures of every column of r into v (n_assets x nm): 0, or the
 * exit code after the message. */
static int measure_all(const fcast_returns *r, const double *levels, size_t nl, size_t nm, double *v) {
    const size_t T = fcast_returns_n_periods(r), N = fcast_returns_n_assets(r);
    const double *R = fcast_returns_values(r);
    double *col = malloc((T ? T : 1) * sizeof *col);
    if (!col) return cli_refuse(COMMAND, CLI_EXIT_MEMORY, "out of memory (a return column of %zu values)", T);
    fc_status st = FC_OK;
    for (size_t s = 0; st == FC_OK && s < N; s++) {
        for (size_t t = 0; t < T; t++) col[t] = R[t * N + s];
        st = series_measures(col, T, levels, nl, v + s * nm);
    }
    free(col);
    return st == FC_OK ? 0 : cli_fail(COMMAND);
}

static int run(const char *path, const char *out, int are_returns, const double *levels, size_t nl, int csv) {
    fcast_returns *r = NULL;
    const size_t nm = 5 + 4 * nl;
    const fcast_path_use files[] = {{"--data", path, FCAST_PATH_IN, 0, NULL},
                                    {"--out", out, FCAST_PATH_OUT_STDOUT, 0, NULL}};
    fc_status st = fcast_paths_check(files, 2);   /* before any work */
    if (st == FC_OK) st = fcast_returns_read_csv(path, are_returns, &r);
    if (st != FC_OK) return fail_read();
    double *v = malloc(fcast_returns_n_assets(r) * nm * sizeof *v);
    int rc = v ? measure_all(r, levels, nl, nm, v) : cli_refuse(COMMAND, CLI_EXIT_MEMORY,
                                                                "out of memory (the risk table)");
    if (!rc && fcast_write_file(out, write_table, &(table_ctx){path, r, v, levels, nm, csv}) != FC_OK)
        rc = cli_fail(COMMAND);
    free(v);
    fcast_returns_free(r);
    return rc;
}

int cmd_quant_risk(int argc, char **argv, int first) {
    const char *data = NULL, *level_text = "0.95,0.99", *out = "-", *device = NULL;
    int are_returns = 0, csv = 0;
    arg_spec specs[] = {
        {"data", ARG_IN, &data, "FILE", "long CSV (unique_id, ds, y) of prices, or returns with --returns", 1, 0},
        {"returns", ARG_FLAG, &are_returns, NULL, "y holds simple returns, not prices", 0, 0},
        {"level", ARG_STR, &level_text, "A,B", "VaR/CVaR confidence levels (0.95,0.99)", 0, 0},
        {"csv", ARG_FLAG, &csv, NULL, "print series,metric,value rows (%.17g) instead of the table", 0, 0},
        {"out", ARG_OUT, &out, "FILE", "where the table goes (-, standard output)", 0, 0},
        {"device", ARG_STR, &device, "DEV", DEVICE_CPU_ONLY_HELP, 0, 0},
        {0},
    };
    int rc = args_parse(COMMAND,
                        "Historical VaR and CVaR (QuantLib's percentile, no interpolation), normal VaR and expected\n"
                        "shortfall, annual return and volatility, Sharpe, Sortino and maximum drawdown (empyrical's\n"
                        "definitions) of every series; series are aligned on ds (inner join).",
                        specs, argc, argv, first);
    if (rc) return args_exit(rc);
    if ((rc = device_cpu_only(COMMAND, device))) return rc;
    double levels[MAX_LEVELS];
    size_t nl = 0;
    if ((rc = parse_levels(level_text, levels, &nl)) != 0) return rc;
    return run(data, out, are_returns, levels, nl, csv);
}
