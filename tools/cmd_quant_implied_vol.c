/* fcast quant implied-vol: Black-Scholes-Merton implied volatility of one
 * European option (--price with --S, --K, ...) or of every row of a CSV
 * (--data: columns type,S,K,T,price and optionally r,q, in any order;
 * output: the rows as read plus implied_vol), through the library API
 * (fcast_implied_vol). A row without a volatility stops the run with an
 * error naming FILE:LINE, or, with --bad-rows report, gets an empty
 * implied_vol and its reason in an error column. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"

#define COMMAND "quant implied-vol"

enum { COL_TYPE, COL_S, COL_K, COL_R, COL_Q, COL_T, COL_PRICE, N_COLS };
static const char *const COL_NAMES[N_COLS] = {"type", "S", "K", "r", "q", "T", "price"};

/* The CSV as read: each line kept for the output, the fields parsed. */
typedef struct {
    const char *path;
    char *header;
    char **lines;
    size_t *line_no;   /* the file's line of each row, for messages */
    size_t n, cap;
    int *type;
    double *col[N_COLS];   /* col[COL_TYPE] unused */
    double *vol;
    int *status;
    int report;            /* --bad-rows report */
} iv_table;

static void table_free(iv_table *t) {
    free(t->header);
    for (size_t i = 0; i < t->n; i++) free(t->lines[i]);
    free(t->lines), free(t->line_no), free(t->type), free(t->vol), free(t->status);
    for (int c = 0; c < N_COLS; c++) free(t->col[c]);
}

static int grow(iv_table *t) {
    size_t cap = t->cap ? 2 * t->cap : 1024;
    char **l = realloc(t->lines, cap * sizeof *l);
    if (l) t->lines = l;
    size_t *no = realloc(t->line_no, cap * sizeof *no);
    if (no) t->line_no = no;
    int *ty = realloc(t->type, cap * sizeof *ty);
    if (ty) t->type = ty;
    if (!l || !no || !ty) return 0;
    for (int c = 1; c < N_COLS; c++) {
        double *d = realloc(t->col[c], cap * sizeof *d);
        if (!d) return 0;
        t->col[c] = d;
    }
    t->cap = cap;
    return 1;
}

/* Splits a copy of line at commas (no quoting: the columns are numbers and
 * call/put) into at most cap fields; returns the count. */
static size_t split(char *line, char **f, size_t cap) {
    size_t n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line; n < cap;) {
        f[n++] = p;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

#define MAX_FIELDS 256

/* The header's column of each name (-1: absent); r and q may be absent. */
static int read_header(iv_table *t, int *at) {
    char *copy = strdup(t->header), *f[MAX_FIELDS];
    if (!copy) return cli_refuse(COMMAND, CLI_EXIT_MEMORY, "out of memory reading %s", t->path);
    size_t n = split(copy, f, MAX_FIELDS);
    for (int c = 0; c < N_COLS; c++) {
        at[c] = -1;
        for (size_t k = 0; k < n; k++)
            if (!strcmp(f[k], COL_NAMES[c])) at[c] = (int)k;
        if (at[c] < 0 && c != COL_R && c != COL_Q) {
            free(copy);
            return cli_refuse(COMMAND, CLI_EXIT_PARSE, "%s:1: no column '%s' (needs type,S,K,T,price; r,q optional)",
                              t->path, COL_NAMES[c]);
        }
    }
    free(copy);
    return 0;
}

/* One data line into row t->n: 0, or the exit code after the message. */
static int read_row(iv_table *t, const char *line, size_t line_no, const int *at) {
    char *copy = strdup(line), *f[MAX_FIELDS];
    if (!copy || (t->n == t->cap && !grow(t))) {
        free(copy);
        return cli_refuse(COMMAND, CLI_EXIT_MEMORY, "out of memory reading %s", t->path);
    }
    size_t n = split(copy, f, MAX_FIELDS), i = t->n;
    int rc = 0;
    for (int c = 0; c < N_COLS && !rc; c++) {
        if (at[c] < 0) {
            t->col[c][i] = 0.0;
            continue;
        }
        const char *v = (size_t)at[c] < n ? f[at[c]] : "";
        if (c == COL_TYPE) {
            t->type[i] = !strcmp(v, "call") ? 1 : !strcmp(v, "put") ? 0 : -1;
            if (t->type[i] < 0)
                rc = cli_refuse(COMMAND, CLI_EXIT_PARSE, "%s:%zu: type '%s': expected call or put", t->path,
                                line_no, v);
            continue;
        }
        char *end;
        t->col[c][i] = strtod(v, &end);
        if (!*v || *end)
            rc = cli_refuse(COMMAND, CLI_EXIT_PARSE, "%s:%zu: %s '%s': not a number", t->path, line_no,
                            COL_NAMES[c], v);
    }
    free(copy);
    if (rc) return rc;
    t->lines[i] = strdup(line);
    if (!t->lines[i]) return cli_refuse(COMMAND, CLI_EXIT_MEMORY, "out of memory reading %s", t->path);
    t->lines[i][strcspn(t->lines[i], "\r\n")] = '\0';
    t->line_no[i] = line_no;
    t->n++;
    return 0;
}

static int read_table(iv_table *t) {
    FILE *f = fopen(t->path, "r");
    if (!f) return cli_refuse(COMMAND, CLI_EXIT_IO, "%s: cannot open: %s", t->path, strerror(errno));
    char *line = NULL;
    size_t cap = 0, line_no = 0;
    int at[N_COLS], rc = 0;
    ssize_t len;
    while (!rc && (len = getline(&line, &cap, f)) >= 0) {
        line_no++;
        if (line_no == 1) {
            line[strcspn(line, "\r\n")] = '\0';
            t->header = strdup(line);
            rc = t->header ? read_header(t, at) : cli_refuse(COMMAND, CLI_EXIT_MEMORY, "out of memory");
            continue;
        }
        if (line[strspn(line, " \t\r\n")] == '\0') continue;   /* a blank line */
        rc = read_row(t, line, line_no, at);
    }
    free(line);
    fclose(f);
    if (!rc && line_no == 0) rc = cli_refuse(COMMAND, CLI_EXIT_PARSE, "%s: empty file (no header)", t->path);
    return rc;
}

/* The arrays for the API: one row's inputs checked with the file's line
 * in the message (the API's would name the row's index). */
static int solve_table(iv_table *t) {
    t->vol = malloc((t->n ? t->n : 1) * sizeof *t->vol);
    t->status = malloc((t->n ? t->n : 1) * sizeof *t->status);
    if (!t->vol || !t->status) return cli_refuse(COMMAND, CLI_EXIT_MEMORY, "out of memory");
    fcast_option_arrays o = {t->n, t->type, t->col[COL_S], t->col[COL_K], t->col[COL_R], t->col[COL_Q], NULL,
                             t->col[COL_T]};
    if (fcast_implied_vol(&o, t->col[COL_PRICE], t->vol, t->status) == FC_OK) return 0;
    /* the option the API names: rewrite "option I" as FILE:LINE */
    const char *msg = fc_last_error(), *p = strstr(msg, "option ");
    size_t i = p ? strtoul(p + 7, NULL, 10) : 0;
    const char *rest = p ? strchr(p, ':') : NULL;
    if (p && rest && i < t->n)
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "%s:%zu%s", t->path, t->line_no[i], rest);
    return cli_refuse(COMMAND, CLI_EXIT_INVALID, "%s", msg);
}

static const char *reason(int status) {
    switch (status) {
    case FCAST_IV_BELOW_LOWER: return "price below the lower bound (discounted intrinsic value)";
    case FCAST_IV_ABOVE_UPPER: return "price at or above the upper bound";
    default: return "no convergence";
    }
}

static fc_status write_table(FILE *f, void *ctx) {
    const iv_table *t = ctx;
    fprintf(f, "%s,implied_vol%s\n", t->header, t->report ? ",error" : "");
    for (size_t i = 0; i < t->n; i++) {
        fprintf(f, "%s,", t->lines[i]);
        if (t->status[i] == FCAST_IV_OK) fprintf(f, "%.17g", t->vol[i]);
        if (t->report) fprintf(f, ",%s", t->status[i] == FCAST_IV_OK ? "" : reason(t->status[i]));
        fputc('\n', f);
    }
    return FC_OK;
}

/* Without --report, the first bad row (in file order) stops the run. */
static int first_bad_row(const iv_table *t) {
    for (size_t i = 0; i < t->n; i++) {
        if (t->status[i] == FCAST_IV_OK) continue;
        double lower, upper;
        double S = t->col[COL_S][i], K = t->col[COL_K][i], r = t->col[COL_R][i], q = t->col[COL_Q][i];
        double T = t->col[COL_T][i];
        lower = fmax(t->type[i] ? S * exp(-q * T) - K * exp(-r * T) : K * exp(-r * T) - S * exp(-q * T), 0.0);
        upper = t->type[i] ? S * exp(-q * T) : K * exp(-r * T);
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "%s:%zu: price %.17g of the %s: %s (lower %.17g, upper %.17g)%s",
                          t->path, t->line_no[i], t->col[COL_PRICE][i], t->type[i] ? "call" : "put",
                          reason(t->status[i]), lower, upper, "; --bad-rows report writes such rows with the reason");
    }
    return 0;
}

static int run_file(const char *path, const char *out, int report) {
    iv_table t = {.path = path, .report = report};
    int rc = read_table(&t);
    if (!rc) rc = solve_table(&t);
    if (!rc && !report) rc = first_bad_row(&t);
    if (!rc && fcast_write_file(out ? out : "-", write_table, &t) != FC_OK) rc = cli_fail(COMMAND);
    table_free(&t);
    return rc;
}

/* One option from the flags. */
static int run_one(int call, double S, double K, double r, double q, double T, double price, int json) {
    int type = call ? FCAST_CALL : FCAST_PUT;
    double vol;
    fcast_option_arrays o = {1, &type, &S, &K, &r, &q, NULL, &T};
    if (fcast_implied_vol(&o, &price, &vol, NULL) != FC_OK) {
        /* the flags, not the API's option index */
        const char *msg = fc_last_error(), *rest = strstr(msg, "option 0: ");
        rest = rest ? rest + 10 : msg;
        int field = strchr("SKrqT", rest[0]) && rest[0] && rest[1] == ' ';   /* "T = -1: ..." names --T */
        if (!strncmp(rest, "price =", 7)) field = 1;
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "%s%s", field ? "--" : "", rest);
    }
    if (json) {   /* the object the service's POST /v1/quant/implied-vol answers too */
        char *s = fcast_implied_vol_json(type, S, K, r, q, T, price, vol);
        if (!s) return cli_refuse(COMMAND, CLI_EXIT_MEMORY, "out of memory writing the JSON");
        puts(s);
        free(s);
    } else
        printf("implied volatility %.12g (European %s: S=%g K=%g r=%g q=%g T=%g price=%.10g)\n", vol,
               call ? "call" : "put", S, K, r, q, T, price);
    return 0;
}

int cmd_quant_implied_vol(int argc, char **argv, int first) {
    int call = 0, put = 0, json = 0;
    double S = NAN, K = NAN, r = 0, q = 0, T = NAN, price = NAN;
    const char *data = NULL, *out = NULL, *bad_rows = "fail";
    arg_spec specs[] = {
        {"price", ARG_DOUBLE, &price, "P", "the option's price (one option; or --data)", 0, 0},
        {"call", ARG_FLAG, &call, NULL, "a call option", 0, 0},
        {"put", ARG_FLAG, &put, NULL, "a put option", 0, 0},
        {"S", ARG_DOUBLE, &S, "PRICE", "spot price, > 0", 0, 0},
        {"K", ARG_DOUBLE, &K, "PRICE", "strike, > 0", 0, 0},
        {"r", ARG_DOUBLE, &r, "RATE", "risk-free rate, continuously compounded (0)", 0, 0},
        {"q", ARG_DOUBLE, &q, "RATE", "continuous dividend yield (0)", 0, 0},
        {"T", ARG_DOUBLE, &T, "YEARS", "time to expiry in years, > 0", 0, 0},
        {"json", ARG_FLAG, &json, NULL, "one option: print one JSON object", 0, 0},
        {"data", ARG_IN, &data, "FILE", "CSV of options: type,S,K,T,price (r,q optional), any order", 0, 0},
        {"out", ARG_OUT, &out, "FILE", "--data: where the CSV with implied_vol goes (-, standard output)", 0, 0},
        {"bad-rows", ARG_STR, &bad_rows, "HOW", "--data: fail (stop at the first, naming FILE:LINE) or report "
                                                "(an error column) (fail)", 0, 0},
        {0},
    };
    int rc = args_parse(COMMAND,
                        "Black-Scholes-Merton implied volatility of European options (continuous dividend\n"
                        "yield q), one from the flags or a CSV of them (docs/quant-options.md).",
                        specs, argc, argv, first);
    if (rc) return args_exit(rc);
    int report = !strcmp(bad_rows, "report");
    if (!report && strcmp(bad_rows, "fail"))
        return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--bad-rows: expected fail or report, got '%s'", bad_rows);
    if (data) {
        if (call || put || !isnan(price) || json)
            return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--data takes the options from the file: drop --call, "
                              "--put, --price and --json");
        return run_file(data, out, report);
    }
    if (out) return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--out is for --data");
    if (call == put) return cli_refuse(COMMAND, CLI_EXIT_USAGE, "give exactly one of --call and --put (or --data)");
    const char *missing = isnan(price) ? "--price" : isnan(S) ? "--S" : isnan(K) ? "--K" : isnan(T) ? "--T" : NULL;
    if (missing) return cli_refuse(COMMAND, CLI_EXIT_USAGE, "missing %s (one option needs --price, --S, --K, --T)",
                                   missing);
    return run_one(call, S, K, r, q, T, price, json);
}
