/* Every TA-Lib function fcast computes, against the TA-Lib package's own
 * outputs (tests/fixtures/talib, made by python/make_ta_fixtures.py on
 * real GOOG daily and EUR/USD hourly bars): for each case (defaults on both
 * series, other parameters, every moving-average type, NaNs) every output
 * must equal TA-Lib's bit for bit, or lie within 1e-12 relative of it
 * (FMA and summation-order differences), with NaN at the same bars.
 *
 *     test_ta_fixtures [--verbose] [--markdown FILE] [NAME...]   (default: every function)
 *
 * Prints one line per function: how many outputs matched exactly and the
 * largest relative difference of the rest. A function without a body fails
 * the full run (every one of TA-Lib's 201 is held to it); with --allow-missing,
 * or when names are given, it is listed, not failed. --markdown
 * writes the table of every function and its check (docs/ta-functions.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check.h"
#include "quant/ta.h"

#define FIXTURES FC_SOURCE_DIR "/tests/fixtures/talib/"
#define REL_TOL 1e-12
#define N_COLUMNS 8

static const char *const column_names[N_COLUMNS] = {"open", "high", "low", "close", "volume", "periods", "unit", NULL};

typedef struct {
    char id[16];
    size_t n;
    double *col[N_COLUMNS];
} bars;

#define MAX_SERIES 3   /* GOOG, EURUSD, PLANTED */
static bars series[MAX_SERIES];
static int n_series_read;

static char *next_field(char **p) {
    char *s = *p, *c = strchr(s, ',');
    if (c) *c = 0, *p = c + 1;
    else *p = s + strlen(s);
    char *nl = strchr(s, '\n');
    if (nl) *nl = 0;
    return s;
}

static bars *series_named(const char *id) {
    for (int i = 0; i < n_series_read; i++)
        if (!strcmp(series[i].id, id)) return &series[i];
    return NULL;
}

static int read_input(void) {
    FILE *f = fopen(FIXTURES "input.csv", "r");
    if (!f) return fprintf(stderr, "cannot open " FIXTURES "input.csv\n"), 0;
    char *line = NULL;
    size_t cap = 0;
    if (getline(&line, &cap, f) < 0) return 0;
    while (getline(&line, &cap, f) > 0) {
        char *p = line, *id = next_field(&p);
        bars *b = series_named(id);
        if (!b) {
            if (n_series_read == MAX_SERIES) return fprintf(stderr, "input.csv: more than %d series\n", MAX_SERIES), 0;
            b = &series[n_series_read++];
            snprintf(b->id, sizeof b->id, "%s", id);
        }
        next_field(&p); /* t */
        for (int c = 0; c < N_COLUMNS - 1; c++) {
            b->col[c] = realloc(b->col[c], (b->n + 1) * sizeof(double));
            b->col[c][b->n] = strtod(next_field(&p), NULL);
        }
        b->n++;
    }
    free(line);
    fclose(f);
    return n_series_read == MAX_SERIES;
}

/* TA-Lib's functions that are NaN or infinite on prices read the `unit`
 * column in the fixtures instead of the close. */
static int reads_unit(const char *name) {
    static const char *const unit[] = {"ACOS", "ASIN", "ATAN", "COS", "COSH", "EXP", "SIN", "SINH", "TAN", "TANH"};
    for (size_t i = 0; i < sizeof unit / sizeof unit[0]; i++)
        if (!strcmp(name, unit[i])) return 1;
    return 0;
}

static const double *column(const bars *b, const char *name) {
    for (int c = 0; column_names[c]; c++)
        if (!strcmp(column_names[c], name)) return b->col[c];
    return NULL;
}

static int parse_params(const fc_ta_func *f, char *text, double *par) {
    for (int i = 0; i < f->desc.n_params; i++) par[i] = f->desc.params[i].def;
    for (char *tok = strtok(text, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        if (!eq) return 0;
        *eq = 0;
        int found = 0;
        for (int i = 0; i < f->desc.n_params; i++)
            if (!strcmp(f->desc.params[i].name, tok)) par[i] = strtod(eq + 1, NULL), found = 1;
        if (!found) return fprintf(stderr, "%s: unknown parameter %s\n", f->desc.name, tok), 0;
    }
    return 1;
}

typedef struct {
    int outputs, exact, failed;
    double worst;   /* largest relative difference among the non-exact */
    long signals;   /* non-zero values of integer outputs (patterns): how much the data exercises them */
    int cases;
    char case_names[256];
} tally;

static void compare(const fc_ta_func *f, const char *what, const double *got, const double *want,
                    size_t n, tally *t, int verbose) {
    int exact = 1;
    for (size_t i = 0; i < n; i++) {
        if (isnan(want[i]) && isnan(got[i])) continue;
        if (got[i] == want[i]) continue;
        exact = 0;
        double rel = fabs(got[i] - want[i]) / fmax(fabs(want[i]), 1e-300);
        if (isnan(want[i]) || isnan(got[i]) || !(rel <= REL_TOL)) {
            if (!t->failed || verbose)
                fprintf(stderr, "%s %s: bar %zu: got %.17g, TA-Lib %.17g\n", f->desc.name, what, i, got[i],
                        want[i]);
            t->failed++;
            return;
        }
        if (rel > t->worst) t->worst = rel;
    }
    t->exact += exact;
    if (f->desc.int_outputs)
        for (size_t i = 0; i < n; i++) t->signals += !isnan(want[i]) && want[i] != 0.0;
}

/* One fixture line: case, series, length, params, output, values... */
static void run_line(const fc_ta_func *f, char *line, double *want, tally *t, int verbose) {
    char *p = line;
    char *cas = next_field(&p), *id = next_field(&p);
    size_t n = strtoul(next_field(&p), NULL, 10);
    char *ptext = next_field(&p), *oname = next_field(&p);
    bars *b = series_named(id);
    double par[FC_TA_MAX_PARAMS];
    if (!b || n > b->n || !parse_params(f, ptext, par)) {
        fprintf(stderr, "%s: bad fixture line (case %s)\n", f->desc.name, cas);
        t->failed++;
        return;
    }
    for (size_t i = 0; i < n; i++) want[i] = strtod(next_field(&p), NULL);
    if (!strstr(t->case_names, cas) && strlen(t->case_names) + strlen(cas) + 3 < sizeof t->case_names) {
        if (strncmp(cas, "matype", 6) || !strstr(t->case_names, "matype"))
            snprintf(t->case_names + strlen(t->case_names), sizeof t->case_names - strlen(t->case_names), "%s%s",
                     t->case_names[0] ? ", " : "", strncmp(cas, "matype", 6) ? cas : "matype 0-13");
    }
    int k = 0;
    while (k < f->desc.n_outputs && strcmp(f->desc.outputs[k], oname)) k++;
    if (k == f->desc.n_outputs) {
        fprintf(stderr, "%s: fixture output %s unknown\n", f->desc.name, oname);
        t->failed++;
        return;
    }
    double *in[FC_TA_MAX_INPUTS] = {0}, *out[FC_TA_MAX_OUTPUTS] = {0};
    for (int i = 0; i < f->desc.n_inputs; i++) {
        const char *col = f->desc.inputs[i].column;
        if (reads_unit(f->desc.name) && !strcmp(col, "close")) col = "unit";
        const double *src = column(b, col);
        in[i] = malloc(n * sizeof(double));
        memcpy(in[i], src, n * sizeof(double));
        if (!strcmp(cas, "nan")) in[i][0] = in[i][1] = in[i][2] = in[i][150] = NAN;
    }
    for (int o = 0; o < f->desc.n_outputs; o++) out[o] = malloc(n * sizeof(double));
    size_t offsets[2] = {0, n};
    int unstable = !strcmp(cas, "unstable");   /* talib.set_unstable_period(NAME, 25) */
    if (unstable) CHECK(fc_ta_set_unstable_period(f->desc.name, 25) == FC_OK);
    fc_status st = fc_ta_compute(f, par, (const double *const *)in, NULL, offsets, 1, NULL, out, NULL);
    if (unstable) CHECK(fc_ta_set_unstable_period("ALL", 0) == FC_OK);
    if (st != FC_OK) {
        fprintf(stderr, "%s %s: %s\n", f->desc.name, cas, fc_last_error());
        t->failed++;
    } else {
        char what[96];
        snprintf(what, sizeof what, "case %s %s output %s", cas, id, oname);
        compare(f, what, out[k], want, n, t, verbose);
    }
    t->outputs++;
    for (int i = 0; i < FC_TA_MAX_INPUTS; i++) free(in[i]);
    for (int o = 0; o < FC_TA_MAX_OUTPUTS; o++) free(out[o]);
}

static void markdown_row(FILE *md, const fc_ta_func *f, const tally *t) {
    if (!md) return;
    fprintf(md, "| %s | %s | ", f->desc.name, f->desc.group);
    for (int i = 0; i < f->desc.n_inputs; i++) fprintf(md, "%s%s", i ? ", " : "", f->desc.inputs[i].column);
    fprintf(md, " | %s | %d | ", t->case_names, t->outputs);
    if (t->failed) fprintf(md, "**differs** (%d)", t->failed);
    else if (t->exact == t->outputs) fputs("bit for bit", md);
    else fprintf(md, "%d bit for bit, the rest within %.1e", t->exact, t->worst);
    if (f->desc.int_outputs) fprintf(md, "; %ld signals", t->signals);
    fputs(" |\n", md);
}

static int check_function(const fc_ta_func *f, int verbose, FILE *md) {
    char path[512];
    snprintf(path, sizeof path, FIXTURES "out/%s.csv", f->desc.name);
    FILE *fp = fopen(path, "r");
    if (!fp) return fprintf(stderr, "cannot open %s\n", path), 0;
    char *line = NULL;
    size_t cap = 0;
    double *want = malloc(8192 * sizeof(double));
    tally t = {0};
    while (getline(&line, &cap, fp) > 0) run_line(f, line, want, &t, verbose);
    free(line);
    free(want);
    fclose(fp);
    if (t.failed) printf("%-20s FAIL  %d of %d outputs differ\n", f->desc.name, t.failed, t.outputs);
    else if (t.exact == t.outputs) printf("%-20s exact %d of %d outputs\n", f->desc.name, t.exact, t.outputs);
    else printf("%-20s close %d of %d exact, the rest within %.1e relative\n", f->desc.name, t.exact, t.outputs, t.worst);
    CHECK_MSG(!t.failed && t.outputs > 0, "%s matches TA-Lib", f->desc.name);
    markdown_row(md, f, &t);
    return 1;
}

int main(int argc, char **argv) {
    int verbose = 0, allow_missing = 0, named = 0;
    FILE *md = NULL;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--verbose")) verbose = 1;
        else if (!strcmp(argv[a], "--allow-missing")) allow_missing = 1;
        else if (!strcmp(argv[a], "--markdown") && a + 1 < argc) {
            if (!(md = fopen(argv[++a], "w"))) return fprintf(stderr, "cannot write %s\n", argv[a]), 1;
            argv[a] = argv[a - 1] = "";
        } else named++;
    }
    if (md)
        fputs("# Every TA-Lib function and its check\n\n"
              "Written by `test_ta_fixtures --markdown docs/ta-functions.md` (tests/test_ta_fixtures.c): each of\n"
              "TA-Lib 0.8.1's functions run by fcast on the cases of its fixture (tests/fixtures/talib/out, made\n"
              "by the ta-lib 0.8.2 package with python/make_ta_fixtures.py on real GOOG daily and EUR/USD hourly\n"
              "bars) and compared with TA-Lib's outputs. Cases: `default` on both series (300 bars; patterns\n"
              "2148 and 2500), `alt` other parameters, `matype 0-13` every moving-average type, `nan` three\n"
              "leading NaNs and one inside, and for the patterns `planted`: random bars with the rare patterns\n"
              "set into them. *Signals*: the non-zero values of a pattern's (or index's) fixture, how much the\n"
              "bars exercise it.\n\n"
              "| function | group | inputs | cases | outputs compared | check |\n| --- | --- | --- | --- | --- | --- |\n",
              md);
    CHECK(read_input());
    if (check_failures) return 1;
    int written = 0, missing = 0;
    for (size_t i = 0; i < fc_ta_count(); i++) {
        const fc_ta_func *f = fc_ta_at(i);
        int wanted = !named;
        for (int a = 1; a < argc; a++)
            if (!strcasecmp(argv[a], f->desc.name)) wanted = 1;
        if (!wanted) continue;
        if (!f->impl) {
            if (named) printf("%-20s not written yet\n", f->desc.name);
            missing++;
            continue;
        }
        written++;
        CHECK(check_function(f, verbose, md));
        double par[FC_TA_MAX_PARAMS];
        CHECK(fc_ta_params(f, NULL, 0, par) == FC_OK);
        CHECK_MSG(fc_ta_lookback(f, par) == f->desc.default_lookback, "%s lookback %d, TA-Lib %d", f->desc.name,
                  fc_ta_lookback(f, par), f->desc.default_lookback);
    }
    printf("%d of %zu TA-Lib functions written and checked; %d not written yet\n", written, fc_ta_count(), missing);
    if (!named && !allow_missing) CHECK_MSG(missing == 0, "%d of TA-Lib's functions have no body", missing);
    if (md) fclose(md);
    printf("%d checks, %d failures\n", check_count, check_failures);
    return check_failures != 0;
}
