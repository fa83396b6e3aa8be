/* Exogenous-variable flags (see exog_flags.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exog_flags.h"

void exog_flags_specs(exog_flags *x, arg_spec out[EXOG_FLAG_COUNT]) {
    arg_spec list[EXOG_FLAG_COUNT] = {
        {"futr-exog", ARG_STR, &x->futr, "LIST", "columns known in the future too (calendar, planned prices): "
                                                 "read over the input window and the horizon; predict needs "
                                                 "their future values (--futr-data)", 0, 0},
        {"hist-exog", ARG_STR, &x->hist, "LIST", "columns known only up to the forecast origin (past prices, "
                                                 "measured weather): read over the input window", 0, 0},
        {"stat-exog-file", ARG_IN, &x->stat_file, "FILE", "static values: CSV of unique_id and one numeric column "
                                                           "per variable, a row per series", 0, 0},
        {"stat-exog", ARG_STR, &x->stat, "LIST", "the static file's columns to use (all of them)", 0, 0},
    };
    memcpy(out, list, sizeof list);
}
