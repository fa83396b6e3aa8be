/* fcast quant risk: VaR, CVaR, volatility, Sharpe, Sortino and maximum
 * drawdown of every series of a price (or return) file; conventions in
 * src/quant/risk.h. Series are aligned on ds (inner join). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"
#include "io/atomic_file.h"
#include "io/csv_write.h"
#include "io/output_path.h"
#include "core/error.h"
#include "quant/returns.h"
#include "quant/risk.h"

#define MAX_LEVELS 16

static fc_status parse_levels(const char *text, double *levels, size_t *n) {
    const char *p = text;
    *n = 0;
    for (;;) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno || (*end && *end != ','))
            return fc_error(FC_ERR_PARSE, "--level: expected comma-separated levels such as 0.95,0.99, got '%s'", text);
        FC_TRY(fc_risk_check_level(v));
        if (*n == MAX_LEVELS) return fc_error(FC_ERR_INVALID, "--level: at most %d levels", MAX_LEVELS);
        levels[(*n)++] = v;
        if (!*end) return FC_OK;
        p = end + 1;
    }
}

/* Loads the file and turns it into aligned returns. */
static fc_status load_returns(const char *path, int are_returns, fc_dataset **d, fc_panel *p) {
    fc_load_options opt = {0};
    opt.keep_gaps = 1;   /* prices on trading days: a weekend is not a missing value */
    opt.drop_exog = 1;
    FC_TRY(fc_dataset_load_csv(path, &opt, d));
    FC_TRY(fc_panel_align(*d, are_returns ? 2 : 3, p));
    return are_returns ? fc_panel_check_returns(p) : fc_panel_to_returns(p);
}

/* All measures of one series: 5 summary values then 4 per level. */
static fc_status series_measures(const double *r, size_t n, const double *levels, size_t nl, double *out) {
    fc_risk_summary s;
    FC_TRY(fc_risk_summarize(r, n, &s));
    double head[5] = {s.annual_return, s.annual_volatility, s.sharpe, s.sortino, s.max_drawdown};
    memcpy(out, head, sizeof head);
    for (size_t l = 0; l < nl; l++) {
        FC_TRY(fc_var_historical(r, n, levels[l], &out[5 + 4 * l], &out[6 + 4 * l]));
        FC_TRY(fc_var_normal(r, n, levels[l], &out[7 + 4 * l], &out[8 + 4 * l]));
    }
    return FC_OK;
}

static void metric_name(size_t m, const double *levels, char *buf, size_t cap) {
    static const char *head[5] = {"annual_return", "annual_volatility", "sharpe", "sortino", "max_drawdown"};
    static const char *tail[4] = {"hist_var", "hist_cvar", "normal_var", "normal_es"};
    if (m < 5) snprintf(buf, cap, "%s", head[m]);
    else snprintf(buf, cap, "%s_%g", tail[(m - 5) % 4], levels[(m - 5) / 4]);
}

typedef struct {
    const char *path;
    const fc_panel *p;
    const double *v, *levels;
    size_t nm;
    int csv;
} table_ctx;

/* The table (or series,metric,value rows), as a body for
 * fc_write_file_atomic (--out, standard output by default). */
static fc_status write_table(FILE *f, void *ctx) {
    const table_ctx *c = ctx;
    const fc_dataset *d = c->p->source;
    char name[64];
    if (c->csv) {
        fprintf(f, "series,metric,value\n");
        for (size_t s = 0; s < c->p->n_series; s++)
            for (size_t m = 0; m < c->nm; m++) {
                metric_name(m, c->levels, name, sizeof name);
                fc_csv_write_field(f, d->ids[s]);
                fprintf(f, ",%s,%.17g\n", name, c->v[s * c->nm + m]);
            }
        return FC_OK;
    }
    fprintf(f, "%s: %zu series aligned on ds (inner join), %zu returns each; losses positive, 252 periods a year\n",
            c->path, c->p->n_series, c->p->n_rows);
    fprintf(f, "%-22s", "metric");
    for (size_t s = 0; s < c->p->n_series; s++) fprintf(f, " %12.12s", d->ids[s]);
    fprintf(f, "\n");
    for (size_t m = 0; m < c->nm; m++) {
        metric_name(m, c->levels, name, sizeof name);
        fprintf(f, "%-22s", name);
        for (size_t s = 0; s < c->p->n_series; s++) fprintf(f, " %12.6f", c->v[s * c->nm + m]);
        fprintf(f, "\n");
    }
    return FC_OK;
}

static int run(const char *path, const char *out, int are_returns, const double *levels, size_t nl, int csv) {
    fc_dataset *d = NULL;
    fc_panel p = {0};
    double *col = NULL, *v = NULL;
    const size_t nm = 5 + 4 * nl;
    fc_status st = fc_output_check("--out", out, 1, &(fc_input_path){"--data", path}, 1);   /* before any work */
    if (st == FC_OK) st = load_returns(path, are_returns, &d, &p);
    if (st == FC_OK) {
        col = fc_malloc(p.n_rows * sizeof *col, "return column");
        v = fc_malloc(p.n_series * nm * sizeof *v, "risk table");
        if (!col || !v) st = FC_ERR_MEMORY;
    }
    for (size_t s = 0; st == FC_OK && s < p.n_series; s++) {
        fc_panel_column(&p, s, col);
        st = series_measures(col, p.n_rows, levels, nl, v + s * nm);
    }
    if (st == FC_OK) st = fc_write_file_atomic(out, write_table, &(table_ctx){path, &p, v, levels, nm, csv});
    int rc = st == FC_OK ? 0 : cli_fail("quant risk");
    free(col);
    free(v);
    fc_panel_free(&p);
    fc_dataset_free(&d);
    return rc;
}

int cmd_quant_risk(int argc, char **argv, int first) {
    const char *data = NULL, *level_text = "0.95,0.99", *out = "-", *device = NULL;
    int are_returns = 0, csv = 0;
    arg_spec specs[] = {
        {"data", ARG_STR, &data, "FILE", "long CSV (unique_id, ds, y) of prices, or returns with --returns", 1, 0},
        {"returns", ARG_FLAG, &are_returns, NULL, "y holds simple returns, not prices", 0, 0},
        {"level", ARG_STR, &level_text, "A,B", "VaR/CVaR confidence levels (0.95,0.99)", 0, 0},
        {"csv", ARG_FLAG, &csv, NULL, "print series,metric,value rows (%.17g) instead of the table", 0, 0},
        {"out", ARG_STR, &out, "FILE", "where the table goes (-, standard output)", 0, 0},
        {"device", ARG_STR, &device, "DEV", DEVICE_CPU_ONLY_HELP, 0, 0},
        {0},
    };
    int rc = args_parse("quant risk",
                        "Historical VaR and CVaR (QuantLib's percentile, no interpolation), normal VaR and expected\n"
                        "shortfall, annual return and volatility, Sharpe, Sortino and maximum drawdown (empyrical's\n"
                        "definitions) of every series; series are aligned on ds (inner join).",
                        specs, argc, argv, first);
    if (rc) return args_exit(rc);
    if (device_cpu_only("quant risk", device) != FC_OK) return cli_fail("quant risk");
    double levels[MAX_LEVELS];
    size_t nl = 0;
    if (parse_levels(level_text, levels, &nl) != FC_OK) return cli_fail("quant risk");
    return run(data, out, are_returns, levels, nl, csv);
}
