/* Exogenous lists against data (see exog_bind.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "data/exog_data.h"
#include "data/static_table.h"
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

fc_status fc_exog_static_columns(const char *path, const char *choose, fc_exog_list *l) {
    fc_static_table *t = NULL;
    FC_TRY(fc_static_table_load(path, &t));
    const char *const *names;
    size_t n;
    fc_static_table_columns(t, &names, &n);
    fc_status st = FC_OK;
    l->n = 0;
    for (size_t i = 0; i < n && st == FC_OK; i++) {
        if (l->n == FC_MAX_EXOG || strlen(names[i]) >= FC_EXOG_NAME_MAX)
            st = fc_error(FC_ERR_INVALID, "%s: more than %d columns or a name over %d bytes; choose some with "
                          "%s", path, FC_MAX_EXOG, FC_EXOG_NAME_MAX - 1, choose);
        else
            snprintf(l->name[l->n++], FC_EXOG_NAME_MAX, "%s", names[i]);
    }
    fc_static_table_free(&t);
    return st;
}

static int named_in(const fc_exog_list *l, const char *name) {
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->name[i], name)) return 1;
    return 0;
}

void fc_exog_warn_unused(const char *path, const fc_model_config *c, const fc_dataset *ds, const fc_exog_words *w) {
    char names[512];
    size_t n;
    if (!ds) {
        n = fc_data_unused_columns(path, names, sizeof names);
    } else {
        enum { SHOWN = 32 };   /* the message is cut long before */
        size_t pick[SHOWN] = {0};
        n = 0;
        for (size_t j = 0; j < ds->n_exog; j++)
            if (!named_in(&c->futr_exog, ds->exog_names[j]) && !named_in(&c->hist_exog, ds->exog_names[j])) {
                if (n < SHOWN) pick[n] = j;
                n++;
            }
        fc_names_join((const char *const *)ds->exog_names, pick, n < SHOWN ? n : SHOWN, names, sizeof names);
    }
    if (n)
        fprintf(stderr, "fcast: warning: %s: column%s %s %s not used: only unique_id, ds, y and the columns named "
                "by %s or %s are read\n", path, n > 1 ? "s" : "", names, n > 1 ? "are" : "is", w->futr, w->hist);
}
