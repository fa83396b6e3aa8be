/* Exogenous-variable flags (see exog_flags.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "data/exog_data.h"
#include "data/static_table.h"
#include "exog_flags.h"
#include "train/exog_bind.h"

void exog_flags_specs(exog_flags *x, arg_spec out[EXOG_FLAG_COUNT]) {
    arg_spec list[EXOG_FLAG_COUNT] = {
        {"futr-exog", ARG_STR, &x->futr, "LIST", "columns known in the future too (calendar, planned prices): "
                                                 "read over the input window and the horizon; predict needs "
                                                 "their future values (--futr-data)", 0, 0},
        {"hist-exog", ARG_STR, &x->hist, "LIST", "columns known only up to the forecast origin (past prices, "
                                                 "measured weather): read over the input window", 0, 0},
        {"stat-exog-file", ARG_STR, &x->stat_file, "FILE", "static values: CSV of unique_id and one numeric column "
                                                           "per variable, a row per series", 0, 0},
        {"stat-exog", ARG_STR, &x->stat, "LIST", "the static file's columns to use (all of them)", 0, 0},
    };
    memcpy(out, list, sizeof list);
}

fc_status exog_flags_apply(const exog_flags *x, fc_model_config *c) {
    if (x->futr) FC_TRY(fc_exog_list_parse(x->futr, "--futr-exog", &c->futr_exog));
    if (x->hist) FC_TRY(fc_exog_list_parse(x->hist, "--hist-exog", &c->hist_exog));
    if (x->stat && !x->stat_file)
        return fc_error(FC_ERR_INVALID, "--stat-exog names columns of the static file: give it with --stat-exog-file");
    if (x->stat) FC_TRY(fc_exog_list_parse(x->stat, "--stat-exog", &c->stat_exog));
    else if (x->stat_file) FC_TRY(fc_exog_static_columns(x->stat_file, "--stat-exog", &c->stat_exog));
    return FC_OK;
}

int exog_flags_keep_columns(const fc_model_config *c) { return c->futr_exog.n > 0 || c->hist_exog.n > 0; }

/* The words of this tool's messages. */
const fc_exog_words EXOG_FLAG_WORDS = {"--futr-exog", "--hist-exog", "--stat-exog", "--futr-data", "--stat-exog-file"};

fc_status exog_check_columns(const fc_model_config *c, const fc_dataset *ds) {
    return fc_exog_check_columns(c, ds, &EXOG_FLAG_WORDS);
}

void exog_warn_unused(const char *path, const fc_model_config *c, const fc_dataset *ds) {
    fc_exog_warn_unused(path, c, ds, &EXOG_FLAG_WORDS);
}

fc_status exog_flags_bind(const exog_flags *x, const fc_model_config *c, const char *path, fc_dataset *ds) {
    if (x->stat_file) FC_TRY(fc_dataset_attach_static(ds, x->stat_file));
    FC_TRY(exog_check_columns(c, ds));
    exog_warn_unused(path, c, exog_flags_keep_columns(c) ? ds : NULL);
    return FC_OK;
}
