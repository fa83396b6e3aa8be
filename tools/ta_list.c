/* `fcast quant indicators --list`: TA-Lib's functions as talib.abstract
 * shows them (group, inputs, parameters with defaults and ranges, outputs,
 * lookback), from the library's registry (fcast_ta_describe). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void put_limit(FILE *f, double v) {
    if (fabs(v) >= 1e30) fprintf(f, "%s3e37", v < 0 ? "-" : "");
    else fprintf(f, "%g", v);
}

static void put_function(FILE *f, const fcast_ta_info *t) {
    fprintf(f, "  %-20s %s%s\n", t->name, t->display_name, t->available ? "" : " (not in fcast yet)");
    fprintf(f, "  %-20s inputs ", "");
    for (size_t i = 0; i < t->n_inputs; i++) fprintf(f, "%s%s", i ? ", " : "", t->inputs[i]);
    fputs("; parameters ", f);
    if (!t->n_params) fputs("none", f);
    for (size_t i = 0; i < t->n_params; i++) {
        fprintf(f, "%s%s=%g [", i ? ", " : "", t->param_names[i], t->param_defaults[i]);
        put_limit(f, t->param_min[i]);
        fputs("..", f);
        put_limit(f, t->param_max[i]);
        fputc(']', f);
    }
    fputs("; outputs ", f);
    for (size_t k = 0; k < t->n_outputs; k++)
        fprintf(f, "%s%s%s", k ? ", " : "", t->outputs[k], (t->integer_outputs >> k) & 1u ? " (integer)" : "");
    fprintf(f, "; lookback %zu%s\n", t->lookback, t->unstable_period ? ", unstable period" : "");
}

int cli_ta_list(FILE *f) {
    size_t n = fcast_ta_count(), available = 0;
    fcast_ta_info t;
    for (size_t i = 0; i < n; i++) available += fcast_ta_describe(i, &t) == FC_OK && t.available;
    fprintf(f, "TA-Lib's %zu functions; fcast computes %zu. Name one as --ind name[:p1[:p2...]], the parameters in "
               "the order below, TA-Lib's defaults for those left out (e.g. --ind atr:14,stoch:5:3:0:3:0).\n",
            n, available);
    const char *group = "";
    for (size_t i = 0; i < n; i++) {
        if (fcast_ta_describe(i, &t) != FC_OK) return 1;
        if (strcmp(group, t.group)) fprintf(f, "\n%s\n", group = t.group);
        put_function(f, &t);
    }
    return 0;
}
