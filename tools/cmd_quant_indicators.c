/* fcast quant indicators: TA-Lib's indicators over every series of a long
 * CSV, written as a long CSV (unique_id, ds, one column per output), through
 * the library API (fcast.h: fcast_table_read_csv, fcast_indicator_set_parse,
 * fcast_indicator_set_compute, fcast_device_open). What stays here is the
 * CLI's: the flags, the short-series report, the output path's checks and
 * its atomic write, and the library's words mapped back to the flags. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"

#define COMMAND "quant indicators"

typedef struct {
    const fcast_table *t;
    const fcast_indicator_set *set;
    double **outs;   /* (n_columns) each (n_rows) */
} output_ctx;

/* The price columns TA-Lib's functions read, and the file's column each
 * comes from (--open COL, ...; by default its own name, the close falling
 * back on y). */
#define N_ROLES 6
static const char *const roles[N_ROLES] = {"open", "high", "low", "close", "volume", "periods"};

typedef struct {
    const char *column[N_ROLES];   /* the file's column for each role */
    int renamed;                    /* a flag named one */
} price_columns;

static size_t n_rows(const fcast_table *t) { return (size_t)fcast_table_indptr(t)[fcast_table_n_series(t)]; }

static size_t series_len(const fcast_table *t, size_t s) {
    const int64_t *p = fcast_table_indptr(t);
    return (size_t)(p[s + 1] - p[s]);
}

/* One row per row of the file; an empty cell is NaN. */
static fc_status write_body(FILE *f, void *ctx) {
    const output_ctx *c = ctx;
    const size_t n_cols = fcast_indicator_set_n_columns(c->set);
    fputs("unique_id,ds", f);
    for (size_t k = 0; k < n_cols; k++) fprintf(f, ",%s", fcast_indicator_set_column(c->set, k));
    fputc('\n', f);
    const int64_t *indptr = fcast_table_indptr(c->t);
    char ds[64];
    for (size_t s = 0; s < fcast_table_n_series(c->t); s++)
        for (size_t i = (size_t)indptr[s]; i < (size_t)indptr[s + 1]; i++) {
            fc_status st = fcast_table_ds_text(c->t, i, ds, sizeof ds);
            if (st != FC_OK) return st;
            fcast_csv_write_field(f, fcast_table_id(c->t, s));
            fprintf(f, ",%s", ds);
            for (size_t k = 0; k < n_cols; k++) {
                double v = c->outs[k][i];
                if (isnan(v)) fputc(',', f);
                else if (fcast_indicator_set_column_is_integer(c->set, k)) fprintf(f, ",%.0f", v);
                else fprintf(f, ",%.17g", v);
            }
            fputc('\n', f);
        }
    return FC_OK;   /* a failed write is the atomic writer's to report, with its cause */
}

/* The points of series s a spec can run over, as the library splits it:
 * from its first value to its end (poison), or its longest run without NaN
 * (restart: each run is a series of its own). A spec gives values on a
 * run of more than its lookback points. */
static size_t usable_points(const fcast_table *t, size_t s, fcast_nan_policy nan) {
    const int64_t *p = fcast_table_indptr(t);
    const double *v = fcast_table_values(t);
    size_t i = (size_t)p[s], end = (size_t)p[s + 1], run = 0, longest = 0;
    while (i < end && isnan(v[i])) i++;   /* leading NaNs are skipped under both */
    if (nan == FCAST_NAN_POISON) return end - i;
    for (; i < end; i++) {
        run = isnan(v[i]) ? 0 : run + 1;
        if (run > longest) longest = run;
    }
    return longest;
}

static const char *plural(size_t n) { return n == 1 ? "" : "s"; }

/* The error when spec `text` leaves every series empty. */
static int refuse_spec(const char *text, size_t lookback, const char *data, fcast_nan_policy nan, size_t longest) {
    size_t need = lookback + 1;
    if (longest == 0)
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--ind: '%s' needs at least %zu point%s (its lookback, %zu, plus "
                          "one) but %s holds no value, only NaN", text, need, plural(need), lookback, data);
    if (nan == FCAST_NAN_RESTART)
        return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--ind: '%s' needs at least %zu value%s in a row (its lookback, "
                          "%zu, plus one; --nan restart starts afresh after each NaN) but the longest run of values "
                          "in %s has %zu", text, need, plural(need), lookback, data, longest);
    return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--ind: '%s' needs at least %zu point%s (its lookback, %zu, plus "
                      "one) but the longest series of %s has %zu from its first value", text, need, plural(need),
                      lookback, data, longest);
}

/* Warns about each series a spec leaves empty; fails when it leaves all
 * empty, since then the spec, not the data, is at fault. 0, or the exit code. */
static int report_short(const output_ctx *c, const char *data, fcast_nan_policy nan, const uint8_t *too_short) {
    const size_t S = fcast_table_n_series(c->t);
    const char *unit = nan == FCAST_NAN_RESTART ? "value" : "point",
               *in_a_row = nan == FCAST_NAN_RESTART ? " in a row" : "";
    size_t longest = 0, lookback = 0;
    for (size_t s = 0; s < S; s++)
        if (usable_points(c->t, s, nan) > longest) longest = usable_points(c->t, s, nan);
    for (size_t j = 0; j < fcast_indicator_set_size(c->set); j++) {
        const uint8_t *none = too_short + j * S;
        const char *text = fcast_indicator_set_spec(c->set, j);
        if (fcast_indicator_lookback(text, &lookback) != FC_OK) return cli_fail(COMMAND);
        size_t empty = 0, need = lookback + 1;
        for (size_t s = 0; s < S; s++) empty += none[s];
        if (S && empty == S) return refuse_spec(text, lookback, data, nan, longest);
        for (size_t s = 0; s < S; s++)
            if (none[s])
                fprintf(stderr, "fcast " COMMAND ": warning: series '%s' (%zu point%s) is too short for '%s' "
                        "(needs at least %zu %s%s%s): its columns are empty\n", fcast_table_id(c->t, s),
                        series_len(c->t, s), plural(series_len(c->t, s)), text, need, unit, plural(need), in_a_row);
    }
    return 0;
}

/* A failure of fcast_indicator_set_compute, without the function's name the library puts first. */
static int fail_compute(void) {
    static const char fn[] = "fcast_indicator_set_compute: ";
    const char *msg = fc_last_error();
    if (strncmp(msg, fn, strlen(fn))) return cli_fail(COMMAND);
    return cli_refuse(COMMAND, cli_exit_code(fc_last_status()), "%s", msg + strlen(fn));
}

/* The arrays of each role present in the file: the close from the file's
 * close (or y), the others from their columns. */
static size_t gather_columns(const fcast_table *t, const price_columns *pc, const char **names,
                             const double **values) {
    size_t n = 0;
    for (int r = 0; r < N_ROLES; r++) {
        const double *v = fcast_table_column(t, pc->column[r]);
        if (!v && r == 3 && !strcmp(pc->column[r], "close")) v = fcast_table_values(t);   /* y */
        if (v) names[n] = roles[r], values[n++] = v;
    }
    return n;
}

/* The library names a role ("reads the column 'high'"); the user's file may
 * call it otherwise (--high). */
static int fail_missing(const char *data, const price_columns *pc) {
    const char *msg = fc_last_error(), *at = strstr(msg, "reads the column '");
    if (!at) return fail_compute();
    char role[32] = "";
    sscanf(at + strlen("reads the column '"), "%31[^']", role);
    const char *spec_at = strstr(msg, ": '");
    char spec[200] = "";
    if (spec_at) sscanf(spec_at + 3, "%199[^']", spec);
    for (int r = 0; r < N_ROLES; r++)
        if (!strcmp(roles[r], role))
            return cli_refuse(COMMAND, CLI_EXIT_INVALID, "--ind: '%s' reads the %s prices, but %s has no column '%s' "
                              "(name it with --%s COLUMN)", spec, role, data, pc->column[r], role);
    return fail_compute();
}

static int compute_and_write(output_ctx *c, const fcast_indicator_options *opt, const char *data,
                             const char *out_path, const price_columns *pc) {
    const size_t S = fcast_table_n_series(c->t), n_cols = fcast_indicator_set_n_columns(c->set);
    uint8_t *none = malloc(fcast_indicator_set_size(c->set) * S + 1);
    if (!none) return cli_refuse(COMMAND, CLI_EXIT_MEMORY, "out of memory (short-series flags)");
    const char *names[N_ROLES];
    const double *values[N_ROLES];
    fcast_columns cols = {gather_columns(c->t, pc, names, values), names, values};
    int rc = 0;
    if (fcast_indicator_set_compute_columns(c->set, opt, S, fcast_table_indptr(c->t), &cols, c->outs, n_cols,
                                            none) != FC_OK)
        rc = fail_missing(data, pc);
    if (!rc) rc = report_short(c, data, opt->nan, none);
    free(none);
    if (!rc && fcast_write_file(out_path, write_body, c) != FC_OK) rc = cli_fail(COMMAND);
    return rc;
}

static int alloc_outputs(output_ctx *c) {
    const size_t n_cols = fcast_indicator_set_n_columns(c->set), n = n_rows(c->t);
    c->outs = calloc(n_cols + 1, sizeof *c->outs);
    for (size_t k = 0; c->outs && k < n_cols; k++)
        if (!(c->outs[k] = malloc((n ? n : 1) * sizeof(double))))
            return cli_refuse(COMMAND, CLI_EXIT_MEMORY, "out of memory (indicator output)");
    return c->outs ? 0 : cli_refuse(COMMAND, CLI_EXIT_MEMORY, "out of memory (output columns)");
}

/* Whether the specs read any price but the close, or a flag renamed one:
 * then the file's other columns are kept (fcast_table_read_prices). */
static int needs_columns(const fcast_indicator_set *set, const price_columns *pc) {
    if (pc->renamed) return 1;
    for (size_t j = 0; j < fcast_indicator_set_size(set); j++)
        for (size_t i = 0; fcast_indicator_set_input(set, j, i); i++)
            if (strcmp(fcast_indicator_set_input(set, j, i), "close")) return 1;
    return 0;
}

/* Close-only specs read y as before; a file without y (open, high, low,
 * close, ...) is read with its columns. */
static fc_status read_data(const char *data, int columns, fcast_table **t) {
    if (columns) return fcast_table_read_prices(data, t);
    fc_status st = fcast_table_read_csv(data, t);
    if (st == FC_OK || !strstr(fc_last_error(), "missing column 'y'")) return st;
    return fcast_table_read_prices(data, t);
}

static int run(const char *data, const char *out_path, const fcast_indicator_set *set,
               const fcast_indicator_options *opt, const price_columns *pc) {
    fcast_table *t = NULL;
    output_ctx c = {NULL, set, NULL};
    const fcast_path_use files[] = {{"--data", data, FCAST_PATH_IN, 0, NULL},
                                    {"--out", out_path, FCAST_PATH_OUT_STDOUT, 0, NULL}};
    fc_status st = fcast_paths_check(files, 2);   /* before any work */
    if (st == FC_OK) st = read_data(data, needs_columns(set, pc), &t);
    int rc = st == FC_OK ? 0 : cli_fail(COMMAND);
    c.t = t;
    if (!rc) rc = alloc_outputs(&c);
    if (!rc) rc = compute_and_write(&c, opt, data, out_path, pc);
    for (size_t k = 0; c.outs && k < fcast_indicator_set_n_columns(set); k++) free(c.outs[k]);
    free(c.outs);
    fcast_table_free(t);
    return rc;
}

/* The library names the argument ("fcast_indicator_set_parse: specs 'sma:0': ...",
 * "device 'gpu' is not a device"); the user typed --ind and --device. */
static const char *in_flags(const char *msg, char *buf, size_t cap) {
    static const char fn[] = "fcast_indicator_set_parse: specs";
    if (!strncmp(msg, fn, strlen(fn))) {
        msg += strlen(fn);
        msg += strspn(msg, ": ");
        snprintf(buf, cap, "--ind: %s", msg);
    } else if (!strncmp(msg, "device '", 8)) {
        snprintf(buf, cap, "--%s", msg);
    } else {
        snprintf(buf, cap, "%s", msg);
    }
    return buf;
}

/* --nan and --ind (exit 2 when bad; threads are checked before a list's length). */
static int parse_flags(const char *nan, const char *ind, long threads, fcast_indicator_options *opt,
                       fcast_indicator_set **set) {
    char msg[1100];
    if (!strcmp(nan, "poison") || !strcmp(nan, "restart"))
        opt->nan = !strcmp(nan, "restart") ? FCAST_NAN_RESTART : FCAST_NAN_POISON;
    else return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--nan: expected 'poison' or 'restart', got '%s'", nan);
    if (threads < 0 || threads > 1024)
        return cli_refuse(COMMAND, CLI_EXIT_USAGE, "--threads: expected 0 (all cores) to 1024");
    if (fcast_indicator_set_parse(ind, set) != FC_OK)
        return cli_refuse(COMMAND, CLI_EXIT_USAGE, "%s", in_flags(fc_last_error(), msg, sizeof msg));
    opt->threads = (int)threads;
    return 0;
}

/* `--list` alone lists TA-Lib's functions; with other flags it is theirs to parse. */
static int list_only(int argc, char **argv, int first) {
    return argc == first + 1 && !strcmp(argv[first], "--list");
}

int cmd_quant_indicators(int argc, char **argv, int first) {
    const char *data = NULL, *ind = NULL, *out_path = NULL, *nan = "poison", *device = NULL;
    long threads = 0;
    int verbose = 0, list = 0;
    if (list_only(argc, argv, first)) return cli_ta_list(stdout) ? cli_fail(COMMAND) : 0;
    price_columns pc = {{"open", "high", "low", "close", "volume", "periods"}, 0};
    const char *named[N_ROLES] = {NULL};
    arg_spec args[] = {
        {"data", ARG_IN, &data, "FILE",
         "long CSV: unique_id, ds and y (the close), or open, high, low, close, volume (empty = missing)", 1, 0},
        {"ind", ARG_STR, &ind, "SPECS",
         "indicators, e.g. sma:20,rsi:14,atr:14,stoch:5:3:0:3:0,cdlengulfing (name[:p1[:p2...]], TA-Lib's "
         "names, parameter order and defaults; --list lists them)", 1, 0},
        {"out", ARG_OUT, &out_path, "FILE",
         "output CSV: unique_id, ds, one column per output; - for standard output", 1, 0},
        {"list", ARG_FLAG, &list, NULL, "alone: list TA-Lib's functions (inputs, parameters, defaults, outputs)", 0, 0},
        {"open", ARG_STR, &named[0], "COL", "the column of the open prices (default: open)", 0, 0},
        {"high", ARG_STR, &named[1], "COL", "the column of the highs (default: high)", 0, 0},
        {"low", ARG_STR, &named[2], "COL", "the column of the lows (default: low)", 0, 0},
        {"close", ARG_STR, &named[3], "COL", "the column of the closes, e.g. adj_close (default: close, else y)", 0, 0},
        {"volume", ARG_STR, &named[4], "COL", "the column of the volumes (default: volume)", 0, 0},
        {"periods", ARG_STR, &named[5], "COL", "MAVP's column of periods (default: periods)", 0, 0},
        {"nan", ARG_STR, &nan, "POLICY", "poison (TA-Lib's behaviour, default) or restart (after each gap)", 0, 0},
        {"threads", ARG_INT, &threads, "N", "threads (default: all cores)", 0, 0},
        {"device", ARG_STR, &device, "DEV", DEVICE_FLAG_HELP, 0, 0},
        {"verbose", ARG_FLAG, &verbose, NULL, "say on stderr which device runs", 0, 0},
        {NULL, 0, NULL, NULL, NULL, 0, 0},
    };
    int rc = args_parse(COMMAND,
                        "Any of TA-Lib's 201 functions over every series, with TA-Lib's values "
                        "(docs/quant-indicators.md).",
                        args, argc, argv, first);
    if (rc) return args_exit(rc);
    if (list) return cli_ta_list(stdout) ? cli_fail(COMMAND) : 0;
    for (int r = 0; r < N_ROLES; r++)
        if (named[r]) pc.column[r] = named[r], pc.renamed = 1;
    fcast_indicator_options opt = {FCAST_NAN_POISON, 0, NULL};
    fcast_indicator_set *set = NULL;
    if ((rc = parse_flags(nan, ind, threads, &opt, &set)) != 0) {
        fcast_indicator_set_free(set);
        return rc;
    }
    /* the device before the data: a GPU that cannot run fails before anything is read */
    fcast_device *dev = NULL;
    char msg[1100];
    if (fcast_device_open(device, &dev) != FC_OK) {
        fcast_indicator_set_free(set);
        return cli_refuse(COMMAND, cli_exit_code(fc_last_status()), "%s", in_flags(fc_last_error(), msg, sizeof msg));
    }
    if (verbose) fprintf(stderr, "%s\n", fcast_device_note(dev));
    opt.device = dev;
    rc = run(data, out_path, set, &opt, &pc);
    fcast_device_free(dev);
    fcast_indicator_set_free(set);
    return rc;
}
