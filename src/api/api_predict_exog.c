/* Exogenous inputs of a forecast over files (see api_predict_exog.h). */
#include <stdio.h>
#include <string.h>

#include "api/api_predict.h"
#include "api/api_predict_exog.h"
#include "core/error.h"
#include "data/exog_data.h"

/* The words of the messages: the flags of `fcast predict` and `fcast
 * train` under FCAST_NAMES_FLAGS, else the keys that set the same. */
static const fc_exog_words *words(void) {
    static const fc_exog_words flags = {"--futr-exog", "--hist-exog", "--stat-exog", "--futr-data",
                                        "--stat-exog-file"};
    static const fc_exog_words keys = {"futr-exog", "hist-exog", "stat-exog", "futr-data", "stat-exog-file"};
    return fc_api_names_flags() ? &flags : &keys;
}

static void merge(fc_exog_list *into, const fc_exog_list *from) {
    for (int i = 0; i < from->n; i++) {
        int seen = 0;
        for (int j = 0; j < into->n && !seen; j++) seen = !strcmp(into->name[j], from->name[i]);
        if (!seen && into->n < FC_MAX_EXOG) memcpy(into->name[into->n++], from->name[i], FC_EXOG_NAME_MAX);
    }
}

void fc_predict_exog_union_add(fc_model_config *u, const fc_model_config *c) {
    merge(&u->futr_exog, &c->futr_exog);
    merge(&u->hist_exog, &c->hist_exog);
    merge(&u->stat_exog, &c->stat_exog);
}

int fc_predict_exog_keeps_columns(const fc_model_config *u) { return u->futr_exog.n > 0 || u->hist_exog.n > 0; }

/* The future file's values of u's future columns over the next h points
 * (the static values come along from ds). */
static fc_status extend(const fc_predict_exog_files *files, const fc_model_config *u, size_t h, const fc_dataset *ds,
                        fc_dataset **ext) {
    fc_dataset *futr = NULL;
    fc_load_options lo = {.y_optional = 1, .keep_gaps = 1};
    fc_exog_words w = *words();
    w.futr_data = "the model's future inputs";
    fc_status st = fc_dataset_load_csv(files->futr_file, &lo, &futr);
    if (st == FC_OK) st = fc_exog_extend(u, ds, futr, h, &w, ext);
    fc_dataset_free(&futr);
    return st;
}

/* The files the models need, given; those given and not read, named. */
static fc_status check_files(const fc_predict_exog_files *files, const fc_model_config *u) {
    if (u->stat_exog.n && !files->stat_file)
        return fc_error(FC_ERR_INVALID, "the model reads static exogenous values ('%s'%s): give the file that "
                        "holds them with --stat-exog-file", u->stat_exog.name[0], u->stat_exog.n > 1 ? ", ..." : "");
    if (u->futr_exog.n && !files->futr_file)
        return fc_error(FC_ERR_INVALID, "the model reads future exogenous columns ('%s'%s): give their values "
                        "over the horizon with --futr-data (unique_id, ds and those columns; no y)",
                        u->futr_exog.name[0], u->futr_exog.n > 1 ? ", ..." : "");
    if (files->futr_file && !u->futr_exog.n)
        fprintf(stderr, "fcast: warning: %s %s is not read: no model takes future exogenous inputs\n",
                fc_predict_word("--futr-data"), files->futr_file);
    if (files->stat_file && !u->stat_exog.n)
        fprintf(stderr, "fcast: warning: %s %s is not read: no model takes static exogenous inputs\n",
                fc_predict_word("--stat-exog-file"), files->stat_file);
    return FC_OK;
}

fc_status fc_predict_exog_prepare(const fc_predict_exog_files *files, const fc_model_config *u, size_t h,
                                  fc_dataset *ds, fc_dataset **ext) {
    *ext = NULL;
    FC_TRY(check_files(files, u));
    if (u->stat_exog.n) FC_TRY(fc_dataset_attach_static(ds, files->stat_file));
    FC_TRY(fc_exog_check_columns(u, ds, words()));
    fc_exog_warn_unused(files->data, u, fc_predict_exog_keeps_columns(u) ? ds : NULL, words());
    return u->futr_exog.n ? extend(files, u, h, ds, ext) : FC_OK;
}
