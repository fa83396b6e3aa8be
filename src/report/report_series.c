/* The growable containers of a run log: curves (fc_xy) and display tables
 * (fc_kv_list). Both double their capacity, so a log of a million steps
 * costs about twenty reallocations per curve. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "report/run_log.h"

fc_status fc_xy_push(fc_xy *c, double x, double y) {
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        double *nx = fc_realloc(c->x, cap * sizeof *nx, "run log curve");
        if (!nx) return FC_ERR_MEMORY;
        c->x = nx;
        double *ny = fc_realloc(c->y, cap * sizeof *ny, "run log curve");
        if (!ny) return FC_ERR_MEMORY;
        c->y = ny;
        c->cap = cap;
    }
    c->x[c->n] = x;
    c->y[c->n] = y;
    c->n++;
    return FC_OK;
}

void fc_xy_free(fc_xy *c) {
    free(c->x);
    free(c->y);
    memset(c, 0, sizeof *c);
}

static char *dup_text(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = fc_malloc(n, "run log text");
    if (d) memcpy(d, s, n);
    return d;
}

fc_status fc_kv_push(fc_kv_list *l, const char *key, const char *value) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        fc_kv *items = fc_realloc(l->items, cap * sizeof *items, "run log table");
        if (!items) return FC_ERR_MEMORY;
        l->items = items;
        l->cap = cap;
    }
    char *k = dup_text(key), *v = dup_text(value);
    if (!k || !v) { free(k); free(v); return FC_ERR_MEMORY; }
    l->items[l->n++] = (fc_kv){k, v};
    return FC_OK;
}

void fc_kv_list_free(fc_kv_list *l) {
    for (size_t i = 0; i < l->n; i++) {
        free(l->items[i].key);
        free(l->items[i].value);
    }
    free(l->items);
    memset(l, 0, sizeof *l);
}
