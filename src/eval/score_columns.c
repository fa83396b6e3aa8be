/* Header of a cross-validation or forecast file (see score_columns.h). */
#include "eval/score_columns.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "core/error.h"
#include "data/number_parse.h"
#include "eval/scores.h"

/* The number after a suffix, when all the rest of the name is one. */
static int tail_number(const char *text, double lo, double hi, double *out) {
    size_t len = strlen(text);
    return len && fc_parse_number(text, len, out) == FC_NUM_OK && *out > lo && *out < hi;
}

/* Last occurrence of `mark` in name, not at its start. */
static const char *last_mark(const char *name, const char *mark) {
    const char *hit = NULL;
    for (const char *p = strstr(name + 1, mark); p; p = strstr(p + 1, mark)) hit = p;
    return hit;
}

fc_col_role fc_score_column_role(const char *name, size_t *base_len, double *value) {
    size_t len = strlen(name);
    *base_len = len;
    *value = 0.0;
    if (len > 7 && strcmp(name + len - 7, "-median") == 0) {
        *base_len = len - 7;
        *value = 0.5;
        return FC_ROLE_MEDIAN;
    }
    const char *p;
    double v;
    if ((p = last_mark(name, "-lo-")) && tail_number(p + 4, 0.0, 100.0, &v)) {
        *base_len = (size_t)(p - name);
        *value = v;
        return FC_ROLE_LO;
    }
    if ((p = last_mark(name, "-hi-")) && tail_number(p + 4, 0.0, 100.0, &v)) {
        *base_len = (size_t)(p - name);
        *value = v;
        return FC_ROLE_HI;
    }
    if ((p = last_mark(name, "_ql")) && tail_number(p + 3, 0.0, 1.0, &v)) {
        *base_len = (size_t)(p - name);
        *value = v;
        return FC_ROLE_QL;
    }
    return FC_ROLE_POINT;
}

ssize_t fc_score_layout_find(const fc_score_layout *l, const char *name) {
    for (size_t i = 0; i < l->n_models; i++)
        if (strcmp(l->models[i].name, name) == 0) return (ssize_t)i;
    return -1;
}

/* The model named name[0..len), added when new. */
static fc_score_model *model_of(fc_score_layout *l, const char *name, size_t len) {
    for (size_t i = 0; i < l->n_models; i++)
        if (strlen(l->models[i].name) == len && memcmp(l->models[i].name, name, len) == 0) return &l->models[i];
    fc_score_model *m = fc_realloc(l->models, (l->n_models + 1) * sizeof *m, "model list");
    if (!m) return NULL;
    l->models = m;
    m = &l->models[l->n_models];
    memset(m, 0, sizeof *m);
    m->point_col = FC_EVAL_NO_COLUMN;
    m->name = fc_malloc(len + 1, "model name");
    if (!m->name) return NULL;
    memcpy(m->name, name, len);
    m->name[len] = '\0';
    l->n_models++;
    return m;
}

/* Inserts quantile q read from column col, keeping q sorted; a quantile
 * already present keeps its first column. */
static int add_quantile(fc_score_model *m, double q, size_t col) {
    size_t at = 0;
    while (at < m->n_q && m->q[at] < q) at++;
    if (at < m->n_q && m->q[at] == q) return 1;
    double *qs = fc_realloc(m->q, (m->n_q + 1) * sizeof *qs, "quantile list");
    if (!qs) return 0;
    m->q = qs;
    size_t *cs = fc_realloc(m->q_col, (m->n_q + 1) * sizeof *cs, "quantile list");
    if (!cs) return 0;
    m->q_col = cs;
    memmove(m->q + at + 1, m->q + at, (m->n_q - at) * sizeof *m->q);
    memmove(m->q_col + at + 1, m->q_col + at, (m->n_q - at) * sizeof *m->q_col);
    m->q[at] = q;
    m->q_col[at] = col;
    m->n_q++;
    return 1;
}

/* Pairs each -lo-L column with its -hi-L column (the same L) as an interval. */
static int add_intervals(fc_score_model *m, char *const *names, size_t n) {
    for (size_t c = 0; c < n; c++) {
        size_t base;
        double lv;
        if (fc_score_column_role(names[c], &base, &lv) != FC_ROLE_LO || strlen(m->name) != base ||
            memcmp(names[c], m->name, base) != 0)
            continue;
        for (size_t d = 0; d < n; d++) {
            size_t b2;
            double l2;
            if (fc_score_column_role(names[d], &b2, &l2) != FC_ROLE_HI || b2 != base || l2 != lv ||
                memcmp(names[d], m->name, base) != 0)
                continue;
            size_t at = 0;
            while (at < m->n_lv && m->level[at] < lv) at++;
            if (at < m->n_lv && m->level[at] == lv) break;   /* "80" and "80.0": the first */
            double *ls = fc_realloc(m->level, (m->n_lv + 1) * sizeof *ls, "interval list");
            if (ls) m->level = ls;
            size_t *lo = ls ? fc_realloc(m->lo_col, (m->n_lv + 1) * sizeof *lo, "interval list") : NULL;
            if (lo) m->lo_col = lo;
            size_t *hi = lo ? fc_realloc(m->hi_col, (m->n_lv + 1) * sizeof *hi, "interval list") : NULL;
            if (!hi) return 0;
            m->hi_col = hi;
            memmove(m->level + at + 1, m->level + at, (m->n_lv - at) * sizeof *m->level);
            memmove(m->lo_col + at + 1, m->lo_col + at, (m->n_lv - at) * sizeof *m->lo_col);
            memmove(m->hi_col + at + 1, m->hi_col + at, (m->n_lv - at) * sizeof *m->hi_col);
            m->level[at] = lv;
            m->lo_col[at] = c;
            m->hi_col[at] = d;
            m->n_lv++;
            break;
        }
    }
    return 1;
}

static size_t find_name(char *const *names, size_t n, const char *want) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], want) == 0) return i;
    return FC_EVAL_NO_COLUMN;
}

static fc_status locate_keys(const char *source, char *const *names, size_t n, int cv, fc_score_layout *l) {
    const char *want[4] = {"unique_id", "ds", "cutoff", "y"};
    size_t *slot[4] = {&l->col_id, &l->col_ds, &l->col_cutoff, &l->col_y};
    for (int k = 0; k < 4; k++) {
        *slot[k] = find_name(names, n, want[k]);
        if (*slot[k] == FC_EVAL_NO_COLUMN && (k < 2 || cv))
            return fc_error(FC_ERR_PARSE, "%s:1: missing column '%s': expected %s and model columns", source,
                            want[k], cv ? "unique_id, ds, cutoff, y" : "unique_id, ds");
    }
    return FC_OK;
}

static int is_key(const fc_score_layout *l, size_t c) {
    return c == l->col_id || c == l->col_ds || c == l->col_cutoff || c == l->col_y;
}

/* One model column into its model. */
static fc_status add_column(fc_score_layout *l, const char *name, size_t c) {
    size_t base;
    double v;
    fc_col_role role = fc_score_column_role(name, &base, &v);
    fc_score_model *m = model_of(l, name, base);
    if (!m) return FC_ERR_MEMORY;
    int ok = 1;
    if (role == FC_ROLE_POINT) m->point_col = c;
    else if (role == FC_ROLE_LO) ok = add_quantile(m, fc_level_lo_quantile(v), c);
    else if (role == FC_ROLE_HI) ok = add_quantile(m, fc_level_hi_quantile(v), c);
    else ok = add_quantile(m, v, c);
    return ok ? FC_OK : FC_ERR_MEMORY;
}

/* A model without a bare column forecasts its points with its median. */
static void point_from_median(fc_score_model *m) {
    for (size_t i = 0; i < m->n_q && m->point_col == FC_EVAL_NO_COLUMN; i++)
        if (m->q[i] == 0.5) m->point_col = m->q_col[i];
}

fc_status fc_score_layout_build(const char *source, char *const *names, size_t n, int cv, fc_score_layout *out) {
    memset(out, 0, sizeof *out);
    out->n_cols = n;
    fc_status st = locate_keys(source, names, n, cv, out);
    for (size_t c = 0; st == FC_OK && c < n; c++)
        if (!is_key(out, c)) st = add_column(out, names[c], c);
    for (size_t i = 0; st == FC_OK && i < out->n_models; i++) {
        if (!add_intervals(&out->models[i], names, n)) st = FC_ERR_MEMORY;
        point_from_median(&out->models[i]);
    }
    if (st == FC_OK && out->n_models == 0)
        st = fc_error(FC_ERR_PARSE, "%s:1: no model column: expected columns such as NHITS (and NHITS-lo-80, "
                      "NHITS-hi-80, NHITS_ql0.9, ...) after the key columns", source);
    if (st != FC_OK) fc_score_layout_free(out);
    return st;
}

fc_status fc_score_layout_add_point(fc_score_layout *l, const char *name, size_t col) {
    fc_score_model *m = model_of(l, name, strlen(name));
    if (!m) return FC_ERR_MEMORY;
    m->point_col = col;
    return FC_OK;
}

void fc_score_layout_free(fc_score_layout *l) {
    for (size_t i = 0; i < l->n_models; i++) {
        fc_score_model *m = &l->models[i];
        free(m->name);
        free(m->q);
        free(m->q_col);
        free(m->level);
        free(m->lo_col);
        free(m->hi_col);
    }
    free(l->models);
    memset(l, 0, sizeof *l);
}
