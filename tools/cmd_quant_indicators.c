/* fcast quant indicators: TA-Lib's indicators over every series of a long
 * CSV, written as a long CSV (unique_id, ds, one column per output). The
 * computation is src/quant/indicators.h; this file parses the flags, loads
 * the data, reports short series and writes the file atomically. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"
#include "io/csv_write.h"
#include "core/error.h"
#include "data/dataset.h"
#include "io/atomic_file.h"
#include "io/output_path.h"
#include "quant/indicators.h"
#include "quant/quant_request.h"

#define COMMAND "quant indicators"

typedef struct {
    const fc_dataset *d;
    const fc_ind_spec *specs;
    size_t n_specs;
    double **outs[FC_IND_MAX_SPECS]; /* outs[j][k]: (n_rows) */
} output_ctx;

static fc_status write_header(FILE *f, const output_ctx *c) {
    fputs("unique_id,ds", f);
    for (size_t j = 0; j < c->n_specs; j++)
        for (int k = 0; k < fc_ind_n_outputs(&c->specs[j]); k++) {
            char name[96];
            fc_ind_column_name(&c->specs[j], k, name, sizeof name);
            fprintf(f, ",%s", name);
        }
    fputc('\n', f);
    return FC_OK;
}

/* One row per point of the dataset; an empty cell is NaN. */
static fc_status write_body(FILE *f, void *ctx) {
    const output_ctx *c = ctx;
    const fc_dataset *d = c->d;
    FC_TRY(write_header(f, c));
    char ds[64];
    for (size_t s = 0; s < d->n_series; s++)
        for (size_t i = d->offsets[s]; i < d->offsets[s + 1]; i++) {
            fc_ds_format(d->ds_kind, d->ds[i], ds, sizeof ds);
            fc_csv_write_field(f, d->ids[s]);
            fprintf(f, ",%s", ds);
            for (size_t j = 0; j < c->n_specs; j++)
                for (int k = 0; k < fc_ind_n_outputs(&c->specs[j]); k++) {
                    double v = c->outs[j][k][i];
                    if (isnan(v)) fputc(',', f);
                    else fprintf(f, ",%.17g", v);
                }
            fputc('\n', f);
        }
    return FC_OK;   /* a failed write is the atomic writer's to report, with its cause */
}

/* Warns about each series a spec leaves empty; fails when it leaves all
 * empty, since then the spec, not the data, is at fault. */
static fc_status report_short(const output_ctx *c, const uint8_t *no_output) {
    const fc_dataset *d = c->d;
    size_t longest = 0;
    for (size_t s = 0; s < d->n_series; s++)
        if (fc_dataset_len(d, s) > longest) longest = fc_dataset_len(d, s);
    for (size_t j = 0; j < c->n_specs; j++) {
        const uint8_t *none = no_output + j * d->n_series;
        char text[FC_IND_LABEL_CAP];
        fc_ind_spec_text(&c->specs[j], text, sizeof text);
        int lookback = fc_ind_lookback(&c->specs[j]);
        size_t empty = 0;
        for (size_t s = 0; s < d->n_series; s++) empty += none[s];
        if (d->n_series && empty == d->n_series)
            return fc_error(FC_ERR_INVALID, "--ind: '%s' needs more than %d points (its lookback) but the longest "
                            "series of %s has %zu", text, lookback, d->source, longest);
        for (size_t s = 0; s < d->n_series; s++)
            if (none[s])
                fprintf(stderr, "fcast " COMMAND ": warning: series '%s' (%zu point%s) is too short for '%s' "
                        "(needs more than %d): its columns are empty\n", d->ids[s], fc_dataset_len(d, s),
                        fc_dataset_len(d, s) == 1 ? "" : "s", text, lookback);
    }
    return FC_OK;
}

static fc_status alloc_outputs(output_ctx *c, size_t n_rows) {
    for (size_t j = 0; j < c->n_specs; j++) {
        c->outs[j] = fc_calloc(FC_IND_MAX_OUTPUTS, sizeof(double *), "output columns");
        if (!c->outs[j]) return FC_ERR_MEMORY;
        for (int k = 0; k < fc_ind_n_outputs(&c->specs[j]); k++) {
            c->outs[j][k] = fc_malloc((n_rows ? n_rows : 1) * sizeof(double), "indicator output");
            if (!c->outs[j][k]) return FC_ERR_MEMORY;
        }
    }
    return FC_OK;
}

static void free_outputs(output_ctx *c) {
    for (size_t j = 0; j < c->n_specs; j++) {
        if (!c->outs[j]) continue;
        for (int k = 0; k < FC_IND_MAX_OUTPUTS; k++) free(c->outs[j][k]);
        free(c->outs[j]);
    }
}

static fc_status compute_and_write(output_ctx *c, const fc_ind_options *opt, const char *out_path) {
    const fc_dataset *d = c->d;
    FC_TRY(alloc_outputs(c, d->n_rows));
    uint8_t *none = fc_malloc(c->n_specs * d->n_series + 1, "short-series flags");
    if (!none) return FC_ERR_MEMORY;
    fc_status st = fc_ind_compute_many(c->specs, c->n_specs, d->y, d->mask, d->offsets, d->n_series, opt,
                                       (double *const *const *)c->outs, none);
    if (st == FC_OK) st = report_short(c, none);
    free(none);
    if (st == FC_OK) st = fc_write_file_atomic(out_path, write_body, c);
    return st;
}

static int run(const char *data, const char *out_path, fc_ind_spec *specs, size_t n_specs, const fc_ind_options *opt) {
    fc_dataset *d = NULL;
    fc_load_options lo = {0};
    lo.drop_exog = 1;
    lo.keep_gaps = 1;   /* prices on trading days: a weekend is not a missing value */
    output_ctx c = {0};
    c.specs = specs;
    c.n_specs = n_specs;
    fc_status st = fc_output_check("--out", out_path, 1, &(fc_input_path){"--data", data}, 1);
    if (st == FC_OK) st = fc_dataset_load_csv(data, &lo, &d);
    if (st == FC_OK) {
        c.d = d;
        st = compute_and_write(&c, opt, out_path);
    }
    int rc = st == FC_OK ? 0 : cli_fail(COMMAND);
    free_outputs(&c);
    fc_dataset_free(&d);
    return rc;
}

int cmd_quant_indicators(int argc, char **argv, int first) {
    const char *data = NULL, *ind = NULL, *out_path = NULL, *nan = "poison", *device = NULL;
    long threads = 0;
    int verbose = 0;
    arg_spec args[] = {
        {"data", ARG_STR, &data, "FILE", "long CSV with unique_id, ds, y (empty y = missing)", 1, 0},
        {"ind", ARG_STR, &ind, "SPECS",
         "indicators, e.g. sma:20,rsi:14,bbands:20:2,macd:12:26:9 (name[:p1[:p2...]], TA-Lib's defaults)", 1, 0},
        {"out", ARG_STR, &out_path, "FILE", "output CSV: unique_id, ds, one column per output; - for standard output", 1, 0},
        {"nan", ARG_STR, &nan, "POLICY", "poison (TA-Lib's behaviour, default) or restart (after each gap)", 0, 0},
        {"threads", ARG_INT, &threads, "N", "threads (default: all cores)", 0, 0},
        {"device", ARG_STR, &device, "DEV", DEVICE_FLAG_HELP, 0, 0},
        {"verbose", ARG_FLAG, &verbose, NULL, "say on stderr which device runs", 0, 0},
        {NULL, 0, NULL, NULL, NULL, 0, 0},
    };
    int rc = args_parse(COMMAND,
                        "SMA, EMA, WMA, BBANDS, RSI, MACD, MOM, ROC, STDDEV and a rolling z-score over every "
                        "series, with TA-Lib's values (docs/quant-indicators.md).",
                        args, argc, argv, first);
    if (rc) return args_exit(rc);
    fc_ind_options opt = fc_ind_options_default();
    fc_ind_spec *specs = NULL;
    size_t n_specs = 0;
    if (fc_ind_parse_nan_policy(nan, &opt.nan) != FC_OK || fc_ind_parse_list(ind, &specs, &n_specs) != FC_OK) {
        fprintf(stderr, "fcast " COMMAND ": %s%s\n", strncmp(fc_last_error(), "--", 2) ? "--ind: " : "",
                fc_last_error());
        return 2;
    }
    if (threads < 0 || threads > 1024 || n_specs > FC_IND_MAX_SPECS) {
        fprintf(stderr, "fcast " COMMAND ": %s\n",
                threads < 0 || threads > 1024 ? "--threads: expected 0 (all cores) to 1024" : "--ind: at most 64 indicators at once");
        free(specs);
        return 2;
    }
    opt.threads = (int)threads;
    /* the device before the data: a GPU that cannot run fails before anything is read */
    if (device_quant_open(device, (size_t)threads, verbose, &opt.backend) != FC_OK) {
        free(specs);
        return cli_fail(COMMAND);
    }
    rc = run(data, out_path, specs, n_specs, &opt);
    fc_backend_destroy(&opt.backend);
    free(specs);
    return rc;
}
