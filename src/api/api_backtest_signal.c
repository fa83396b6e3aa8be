/* fcast_signal (fcast.h) from a built-in rule's grid, the caller's
 * positions or a rule written as text (quant/backtest_rule_expr.h, its
 * indicators computed by fcast_indicator_set_compute_columns). */
#include "api/api_backtest_signal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "quant/backtest_rule_expr.h"

fcast_signal *fc_api_signal_new(const char *fn, fc_signal_kind kind) {
    fcast_signal *s = calloc(1, sizeof *s);
    if (!s) fc_error(FC_ERR_MEMORY, "%s: out of memory", fn);
    else s->kind = kind;
    return s;
}

size_t fc_api_signal_arrays(const fcast_signal *s, double *const **arrays) {
    if (s->kind == FC_SIG_RULE) {
        *arrays = s->arrays;
        return s->n_arrays;
    }
    *arrays = &s->rows;
    return s->kind == FC_SIG_GRID ? 0 : 1;
}

void fcast_signal_free(fcast_signal *s) {
    if (!s) return;
    for (size_t a = 0; s->arrays && a < s->n_arrays; a++) free(s->arrays[a]);
    free(s->arrays);
    free(s->expr);
    free(s->grid);
    free(s->params);
    free(s->combos);
    free(s->rows);
    free(s->long_above);
    free(s->short_below);
    free(s->model);
    free(s);
}

size_t fcast_signal_n_combinations(const fcast_signal *s) { return s ? s->n_combos : 0; }
size_t fcast_signal_n_params(const fcast_signal *s) { return s ? s->n_params : 0; }
const char *fcast_signal_param_name(const fcast_signal *s, size_t i) {
    return s && i < s->n_params ? s->param_names[i] : NULL;
}
const double *fcast_signal_params(const fcast_signal *s, size_t c) {
    return s && c < s->n_combos && s->n_params ? s->params + c * s->n_params : NULL;
}
const char *fcast_signal_model(const fcast_signal *s) { return s ? s->model : NULL; }

fc_status fcast_signal_from_grid(const fcast_grid *g, int allow_short, fcast_signal **out) {
    static const char fn[] = "fcast_signal_from_grid";
    if (!g || !out) return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !g ? "g" : "out");
    *out = NULL;
    fcast_signal *s = fc_api_signal_new(fn, FC_SIG_GRID);
    if (!s) return FC_ERR_MEMORY;
    const size_t n = fcast_grid_size(g);
    const fcast_rule rule = fcast_grid_rule(g);
    s->n_combos = n;
    s->n_params = fcast_rule_n_params(rule);
    s->allow_short = allow_short != 0;
    for (size_t i = 0; i < s->n_params; i++) s->param_names[i] = fcast_rule_param_name(rule, i);
    s->combos = malloc((n + 1) * sizeof *s->combos);
    s->params = malloc((n * s->n_params + 1) * sizeof *s->params);
    if (!s->combos || !s->params) {
        fcast_signal_free(s);
        return fc_error(FC_ERR_MEMORY, "%s: out of memory", fn);
    }
    for (size_t k = 0; k < n; k++) {
        s->combos[k].rule = (fc_rule_kind)rule;
        memcpy(s->combos[k].p, fcast_grid_params(g, k), sizeof s->combos[k].p);
        memcpy(s->params + k * s->n_params, fcast_grid_params(g, k), s->n_params * sizeof(double));
    }
    *out = s;
    return FC_OK;
}

static fc_status check_positions(const char *fn, const double *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isnan(p[i]) && !(p[i] >= -1.0 && p[i] <= 1.0))
            return fc_error(FC_ERR_INVALID, "%s: positions[%zu] = %g: a position lies in [-1, 1] (NaN: flat)", fn, i,
                            p[i]);
    return FC_OK;
}

/* A POSITIONS signal owning rows (n of them). */
static fc_status positions_signal(const char *fn, double *rows, size_t n, fcast_signal **out) {
    fcast_signal *s = fc_api_signal_new(fn, FC_SIG_POSITIONS);
    if (!s) {
        free(rows);
        return FC_ERR_MEMORY;
    }
    s->n_combos = 1;
    s->n_rows = n;
    s->rows = rows;
    *out = s;
    return FC_OK;
}

fc_status fcast_signal_from_positions(size_t n_rows, const double *positions, fcast_signal **out) {
    static const char fn[] = "fcast_signal_from_positions";
    if (!out || (!positions && n_rows))
        return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !out ? "out" : "positions");
    *out = NULL;
    FC_TRY(check_positions(fn, positions, n_rows));
    double *rows = malloc((n_rows + 1) * sizeof *rows);
    if (!rows) return fc_error(FC_ERR_MEMORY, "%s: out of memory", fn);
    if (n_rows) memcpy(rows, positions, n_rows * sizeof *rows);
    return positions_signal(fn, rows, n_rows, out);
}

/* The column of cols named name, or NULL. */
static const double *column_named(const fcast_columns *cols, const char *name) {
    for (size_t i = 0; i < cols->n; i++)
        if (!strcmp(cols->names[i], name)) return cols->values[i];
    return NULL;
}

/* The output column of an indicator operand: named by its output (a
 * column name ending "_<output>"), the first without one. */
static fc_status operand_output(const fcast_indicator_set *set, const fc_rx_operand *o, size_t *col) {
    size_t n = fcast_indicator_set_n_columns(set);
    if (!o->output[0]) {
        *col = 0;
        return FC_OK;
    }
    size_t len = strlen(o->output);
    for (size_t c = 0; c < n; c++) {
        const char *name = fcast_indicator_set_column(set, c);
        size_t nl = strlen(name);
        if (nl > len && name[nl - len - 1] == '_' && !strcmp(name + nl - len, o->output)) {
            *col = c;
            return FC_OK;
        }
    }
    return fc_error(FC_ERR_INVALID, "--rule: %s has no output '%s' (its columns: %s%s)", o->spec, o->output,
                    fcast_indicator_set_column(set, 0), n > 1 ? ", ..." : "");
}

/* One indicator operand (its text at one grid value) over every series into values (indptr[n_series]). */
static fc_status indicator_operand(const char *spec, const fc_rx_operand *o, size_t n_series, const int64_t *indptr,
                                   const fcast_columns *cols, double *values) {
    fcast_indicator_set *set = NULL;
    fc_status st = fcast_indicator_set_parse(spec, &set);
    if (st != FC_OK) return fc_error_wrap(st, "--rule: operand %s: ", spec);
    size_t n_cols = fcast_indicator_set_n_columns(set), want = 0, rows = (size_t)indptr[n_series];
    double **outs = calloc(n_cols, sizeof *outs);
    st = outs ? operand_output(set, o, &want) : fc_error(FC_ERR_MEMORY, "--rule: out of memory");
    for (size_t c = 0; st == FC_OK && c < n_cols; c++) {
        outs[c] = c == want ? values : malloc((rows + 1) * sizeof(double));
        if (!outs[c]) st = fc_error(FC_ERR_MEMORY, "--rule: out of memory");
    }
    if (st == FC_OK) {
        st = fcast_indicator_set_compute_columns(set, NULL, n_series, indptr, cols, outs, n_cols, NULL);
        if (st != FC_OK) st = fc_error_wrap(st, "--rule: operand %s: ", spec);
    }
    for (size_t c = 0; outs && c < n_cols; c++)
        if (c != want) free(outs[c]);
    free(outs);
    fcast_indicator_set_free(set);
    return st;
}

/* Operand k at its grid value inst into values: a constant, a column or an indicator. */
static fc_status operand_values(const fcast_signal *s, size_t k, size_t inst, size_t n_series, const int64_t *indptr,
                                const fcast_columns *cols, double *values) {
    const fc_rx_operand *o = &s->expr->operands[k];
    const size_t rows = (size_t)indptr[n_series];
    char text[2 * FC_RX_SPEC_CAP];
    fc_rule_expr_instance_text(s->expr, s->grid, k, inst, text, sizeof text);
    if (o->is_constant) {
        double v = strtod(text, NULL);
        for (size_t i = 0; i < rows; i++) values[i] = v;
        return FC_OK;
    }
    const double *raw = column_named(cols, text);
    if (raw && !o->output[0]) {
        memcpy(values, raw, rows * sizeof(double));
        return FC_OK;
    }
    return indicator_operand(text, o, n_series, indptr, cols, values);
}

/* Operand values kept at most (doubles): beyond, a grid of indicators takes gigabytes. */
#define MAX_OPERAND_VALUES 50000000.0   /* 400 MB, and as much again for the run's per-series copy */

static fc_status rule_arrays(fcast_signal *s, size_t n_series, const int64_t *indptr, const fcast_columns *cols) {
    const size_t rows = (size_t)indptr[n_series];
    for (size_t k = 0; k < s->expr->n_operands; k++) {
        s->base[k] = s->n_arrays;
        if (!s->expr->operands[k].is_number) s->n_arrays += s->grid->n_instances[k];
    }
    if ((double)s->n_arrays * (double)rows > MAX_OPERAND_VALUES)
        return fc_error(FC_ERR_INVALID, "--rule: %zu indicator values x %zu rows is more than one run may hold (%.0e "
                        "values): narrow the ranges", s->n_arrays, rows, MAX_OPERAND_VALUES);
    if (!(s->arrays = calloc(s->n_arrays + 1, sizeof *s->arrays)))
        return fc_error(FC_ERR_MEMORY, "--rule: out of memory");
    for (size_t k = 0; k < s->expr->n_operands; k++)
        for (size_t i = 0; !s->expr->operands[k].is_number && i < s->grid->n_instances[k]; i++) {
            double **a = &s->arrays[s->base[k] + i];
            if (!(*a = malloc((rows + 1) * sizeof(double)))) return fc_error(FC_ERR_MEMORY, "--rule: out of memory");
            FC_TRY(operand_values(s, k, i, n_series, indptr, cols, *a));
        }
    return FC_OK;
}

static const char *const PARAM_NAMES[FC_RX_MAX_PARAMS] = {"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"};

static fc_status rule_grid(fcast_signal *s, int allow_short, const char *rule) {
    FC_TRY(fc_rule_expr_parse(rule, allow_short, s->expr));
    FC_TRY(fc_rule_expr_grid(s->expr, s->grid));
    s->n_combos = s->grid->n_combos;
    s->n_params = s->grid->n_params;
    for (size_t p = 0; p < s->n_params; p++) s->param_names[p] = PARAM_NAMES[p];
    if (!(s->params = malloc((s->n_combos * s->n_params + 1) * sizeof *s->params)))
        return fc_error(FC_ERR_MEMORY, "--rule: out of memory");
    for (size_t c = 0; c < s->n_combos; c++)
        for (size_t p = 0; p < s->n_params; p++) s->params[c * s->n_params + p] = fc_rule_expr_param(s->grid, p, c);
    return FC_OK;
}

fc_status fcast_signal_from_rule(const char *rule, int allow_short, size_t n_series, const int64_t *indptr,
                                 const fcast_columns *cols, fcast_signal **out) {
    static const char fn[] = "fcast_signal_from_rule";
    if (!rule || !indptr || !cols || !out)
        return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn,
                        !rule ? "rule" : !indptr ? "indptr" : !cols ? "cols" : "out");
    *out = NULL;
    fcast_signal *s = fc_api_signal_new(fn, FC_SIG_RULE);
    if (!s) return FC_ERR_MEMORY;
    s->allow_short = allow_short != 0;
    s->n_rows = (size_t)indptr[n_series];
    s->expr = malloc(sizeof *s->expr);
    s->grid = malloc(sizeof *s->grid);
    fc_status st = s->expr && s->grid ? rule_grid(s, allow_short, rule)
                                      : fc_error(FC_ERR_MEMORY, "%s: out of memory", fn);
    if (st == FC_OK) st = rule_arrays(s, n_series, indptr, cols);
    if (st != FC_OK) {
        fcast_signal_free(s);
        return st;
    }
    *out = s;
    return FC_OK;
}
