/* Static exogenous values attached to a dataset (fc_dataset.static_*):
 * every column of a static file, in the dataset's series order, so that
 * each model picks the columns it reads by name. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "data/static_table.h"

static void free_names(char **names, size_t n) {
    for (size_t i = 0; names && i < n; i++) free(names[i]);
    free(names);
}

fc_status fc_dataset_attach_static_table(fc_dataset *d, const fc_static_table *t) {
    const char *const *names;
    size_t n;
    fc_static_table_columns(t, &names, &n);
    double *values = NULL;
    char **copy = calloc(n ? n : 1, sizeof *copy);
    fc_status st = copy ? fc_static_values(t, d, names, n, NULL, &values) : FC_ERR_MEMORY;
    for (size_t i = 0; st == FC_OK && i < n; i++)
        if (!(copy[i] = strdup(names[i]))) st = fc_error(FC_ERR_MEMORY, "out of memory: static column names");
    if (st == FC_OK) {
        free_names(d->static_names, d->n_static);
        free(d->static_values);
        d->n_static = n;
        d->static_names = copy;
        d->static_values = values;
    } else {
        free_names(copy, n);
        free(values);
    }
    return st;
}

fc_status fc_dataset_attach_static(fc_dataset *d, const char *path) {
    fc_static_table *t = NULL;
    FC_TRY(fc_static_table_load(path, &t));
    fc_status st = fc_dataset_attach_static_table(d, t);
    fc_static_table_free(&t);
    return st;
}
