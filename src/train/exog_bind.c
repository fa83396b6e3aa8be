/* Exogenous lists against data (see exog_bind.h). */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "data/exog_data.h"
#include "train/exog_bind.h"

fc_status fc_exog_list_parse(const char *text, const char *what, fc_exog_list *l) {
    l->n = 0;
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, ",");
        if (!len || len >= FC_EXOG_NAME_MAX)
            return fc_error(FC_ERR_INVALID, "%s '%s': expected column names separated by commas, each 1 to %d bytes",
                            what, text, FC_EXOG_NAME_MAX - 1);
        if (l->n == FC_MAX_EXOG) return fc_error(FC_ERR_INVALID, "%s: at most %d columns", what, FC_MAX_EXOG);
        memcpy(l->name[l->n], p, len);
        l->name[l->n++][len] = '\0';
        p += len + (p[len] == ',');
    }
    return FC_OK;
}

static fc_status check_list(const fc_exog_list *l, const char *what, const fc_dataset *ds) {
    const char *names[FC_MAX_EXOG];
    size_t cols[FC_MAX_EXOG];
    if (!l->n) return FC_OK;
    fc_exog_list_names(l, names);
    FC_TRY(fc_exog_columns(ds, names, (size_t)l->n, what, cols));
    return fc_exog_check_finite(ds, cols, names, (size_t)l->n, what);
}

static fc_status check_static(const fc_exog_list *l, const fc_dataset *ds, const fc_exog_words *w) {
    for (int i = 0; i < l->n; i++) {
        size_t k = 0;
        while (k < ds->n_static && strcmp(ds->static_names[k], l->name[i])) k++;
        if (k < ds->n_static) continue;
        if (!ds->n_static)
            return fc_error(FC_ERR_INVALID, "the model reads static exogenous values ('%s', %s): give them with %s",
                            l->name[i], w->stat, w->stat_data);
        char names[400];
        fc_names_join((const char *const *)ds->static_names, NULL, ds->n_static, names, sizeof names);
        return fc_error(FC_ERR_INVALID, "the static values (%s) have no column '%s', which %s names; they have %s",
                        w->stat_data, l->name[i], w->stat, names);
    }
    return FC_OK;
}

fc_status fc_exog_check_columns(const fc_model_config *c, const fc_dataset *ds, const fc_exog_words *w) {
    FC_TRY(check_list(&c->futr_exog, w->futr, ds));
    FC_TRY(check_list(&c->hist_exog, w->hist, ds));
    return check_static(&c->stat_exog, ds, w);
}

fc_status fc_dataset_copy_static(fc_dataset *dst, const fc_dataset *src) {
    size_t n = src->n_static, rows = src->n_series * n;
    if (!n) return FC_OK;
    char **names = calloc(n, sizeof *names);
    double *values = malloc(rows * sizeof *values);
    fc_status st = names && values ? FC_OK : fc_error(FC_ERR_MEMORY, "out of memory: static values");
    for (size_t j = 0; st == FC_OK && j < n; j++)
        if (!(names[j] = strdup(src->static_names[j]))) st = fc_error(FC_ERR_MEMORY, "out of memory: static names");
    if (st != FC_OK) {
        for (size_t j = 0; names && j < n; j++) free(names[j]);
        free(names);
        free(values);
        return st;
    }
    memcpy(values, src->static_values, rows * sizeof *values);
    dst->n_static = n, dst->static_names = names, dst->static_values = values;
    return FC_OK;
}

fc_status fc_exog_extend(const fc_model_config *c, const fc_dataset *ds, const fc_dataset *futr, size_t h,
                         const fc_exog_words *w, fc_dataset **ext) {
    const char *names[FC_MAX_EXOG];
    size_t hist_cols[FC_MAX_EXOG], futr_cols[FC_MAX_EXOG], n = (size_t)c->futr_exog.n;
    fc_exog_list_names(&c->futr_exog, names);
    *ext = NULL;
    FC_TRY(fc_exog_columns(ds, names, n, w->futr, hist_cols));
    FC_TRY(fc_exog_columns(futr, names, n, w->futr_data, futr_cols));
    FC_TRY(fc_futr_extend(ds, futr, hist_cols, futr_cols, n, h, ext));
    fc_status st = fc_dataset_copy_static(*ext, ds);
    if (st != FC_OK) fc_dataset_free(ext);
    return st;
}
