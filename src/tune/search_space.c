/* The search space's grammar (see search_space.h). */
#include "tune/search_space.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/config_yaml.h"

static const char *skip_space(const char *p) {
    while (*p == ' ' || *p == '\t') p++;
    return p;
}

/* One item of an argument list at *pp: quoted, or bare up to ',' or ')'. */
static fc_status read_item(const char *where, const char **pp, char out[FC_TUNE_VALUE_MAX]) {
    const char *p = skip_space(*pp);
    size_t n = 0;
    if (*p == '"' || *p == '\'') {
        char q = *p++;
        while (*p && *p != q && n + 1 < FC_TUNE_VALUE_MAX) out[n++] = *p++;
        if (*p != q) return fc_error(FC_ERR_PARSE, "%s: an unterminated or overlong quoted item", where);
        p++;
    } else {
        while (*p && !strchr(",()\"'", *p) && n + 1 < FC_TUNE_VALUE_MAX) out[n++] = *p++;
        while (n && (out[n - 1] == ' ' || out[n - 1] == '\t')) n--;
        if (*p && !strchr(",)", *p))
            return fc_error(FC_ERR_PARSE, "%s: unexpected '%c' in an item (quote items holding it)", where, *p);
    }
    out[n] = 0;
    if (!n) return fc_error(FC_ERR_PARSE, "%s: an empty item", where);
    *pp = skip_space(p);
    return FC_OK;
}

/* The items between "name(" and ")" into items (at most max); *n their count. */
static fc_status read_items(const char *where, const char *p, char (*items)[FC_TUNE_VALUE_MAX], size_t max,
                            size_t *n) {
    *n = 0;
    for (;;) {
        if (*n == max) return fc_error(FC_ERR_PARSE, "%s: more than %zu items", where, max);
        FC_TRY(read_item(where, &p, items[(*n)++]));
        if (*p == ')') break;
        if (*p != ',') return fc_error(FC_ERR_PARSE, "%s: expected ',' or ')' after an item", where);
        p++;
    }
    if (*skip_space(p + 1))
        return fc_error(FC_ERR_PARSE, "%s: unexpected text after the closing parenthesis", where);
    return FC_OK;
}

static fc_status number(const char *where, const char *t, int integer, double *x) {
    char *end;
    *x = strtod(t, &end);
    if (end == t || *end || !isfinite(*x) || (integer && *x != floor(*x)))
        return fc_error(FC_ERR_PARSE, "%s: '%s' is not %s", where, t, integer ? "an integer" : "a finite number");
    if (integer && fabs(*x) > 9007199254740992.0)
        return fc_error(FC_ERR_INVALID, "%s: %s is too large an integer", where, t);
    return FC_OK;
}

static fc_status range(const char *where, const char *fn, char (*it)[FC_TUNE_VALUE_MAX], size_t n, fc_param *p) {
    int integer = p->kind == FC_PARAM_INT;
    if (integer && n == 3 && !strcmp(it[2], "log")) p->log = 1;
    else if (n != 2)
        return fc_error(FC_ERR_PARSE, "%s: %s takes two bounds%s", where, fn, integer ? " (and optionally log)" : "");
    FC_TRY(number(where, it[0], integer, &p->low));
    FC_TRY(number(where, it[1], integer, &p->high));
    if (!(p->low < p->high))
        return fc_error(FC_ERR_INVALID, "%s: %s(%s, %s): the low bound must be below the high bound "
                        "(a fixed value goes on the command line)", where, fn, it[0], it[1]);
    if (p->log && p->kind == FC_PARAM_LOGUNIFORM && !(p->low > 0))
        return fc_error(FC_ERR_INVALID, "%s: loguniform needs a low bound above 0, got %s", where, it[0]);
    if (p->log && integer && p->low < 1)
        return fc_error(FC_ERR_INVALID, "%s: int(..., log) needs a low bound of at least 1, got %s", where, it[0]);
    return FC_OK;
}

static fc_status choices(const char *where, char (*it)[FC_TUNE_VALUE_MAX], size_t n, fc_param *p) {
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(it[i], it[j])) return fc_error(FC_ERR_INVALID, "%s: '%s' is a choice twice", where, it[i]);
    if (!(p->choices = fc_calloc(n, sizeof *p->choices, "search space choices"))) return FC_ERR_MEMORY;
    p->n_choices = n;
    for (size_t i = 0; i < n; i++)
        if (!(p->choices[i] = strdup(it[i]))) return fc_error(FC_ERR_MEMORY, "out of memory");
    return FC_OK;
}

fc_status fc_param_parse(const char *where, const char *text, fc_param *p) {
    static const struct { const char *name; fc_param_kind kind; int log; } fns[] = {
        {"uniform", FC_PARAM_UNIFORM, 0}, {"loguniform", FC_PARAM_LOGUNIFORM, 1},
        {"int", FC_PARAM_INT, 0}, {"choice", FC_PARAM_CHOICE, 0}};
    const char *s = skip_space(text);
    size_t len = 0;
    while (isalpha((unsigned char)s[len])) len++;
    for (size_t f = 0; f < sizeof fns / sizeof *fns; f++) {
        if (strlen(fns[f].name) != len || strncmp(s, fns[f].name, len)) continue;
        const char *open = skip_space(s + len);
        if (*open != '(') break;
        char items[FC_TUNE_MAX_CHOICES][FC_TUNE_VALUE_MAX];
        size_t n;
        FC_TRY(read_items(where, open + 1, items, FC_TUNE_MAX_CHOICES, &n));
        p->kind = fns[f].kind;
        p->log = fns[f].log;
        return p->kind == FC_PARAM_CHOICE ? choices(where, items, n, p) : range(where, fns[f].name, items, n, p);
    }
    return fc_error(FC_ERR_PARSE, "%s: '%s' is not uniform(low, high), loguniform(low, high), int(low, high[, log]) "
                    "or choice(a, b, ...)", where, text);
}

static fc_status parse_entries(const fc_config *c, fc_search_space *out) {
    if (!c->n) return fc_error(FC_ERR_INVALID, "%s: the search space is empty", c->path);
    if (c->n > FC_TUNE_MAX_PARAMS)
        return fc_error(FC_ERR_INVALID, "%s: more than %d parameters", c->path, FC_TUNE_MAX_PARAMS);
    for (size_t i = 0; i < c->n; i++) {
        const fc_config_entry *e = &c->entries[i];
        fc_param *p = &out->params[out->n++];
        char where[512];
        snprintf(where, sizeof where, "%s:%zu: %s", c->path, e->line, e->key);
        p->line = e->line;
        if (!(p->name = strdup(e->key))) return fc_error(FC_ERR_MEMORY, "out of memory");
        if (e->is_null) return fc_error(FC_ERR_PARSE, "%s: no value (give a distribution)", where);
        FC_TRY(fc_param_parse(where, e->value, p));
    }
    return FC_OK;
}

static fc_status take_config(fc_status st, fc_config *c, fc_search_space *out) {
    if (st == FC_OK && !(out->path = strdup(c->path))) st = fc_error(FC_ERR_MEMORY, "out of memory");
    if (st == FC_OK) st = parse_entries(c, out);
    fc_config_free(c);
    return st;
}

fc_status fc_space_load(const char *path, fc_search_space *out) {
    fc_config c;
    memset(out, 0, sizeof *out);
    return take_config(fc_config_load(path, &c), &c, out);
}

fc_status fc_space_parse(const char *name, const char *text, size_t len, fc_search_space *out) {
    fc_config c;
    memset(out, 0, sizeof *out);
    return take_config(fc_config_parse(name, text, len, &c), &c, out);
}

void fc_space_free(fc_search_space *s) {
    for (size_t i = 0; i < s->n; i++) {
        for (size_t j = 0; j < s->params[i].n_choices; j++) free(s->params[i].choices[j]);
        free(s->params[i].choices);
        free(s->params[i].name);
    }
    free(s->path);
    memset(s, 0, sizeof *s);
}

void fc_param_text(const fc_param *p, double x, char buf[FC_TUNE_VALUE_MAX]) {
    if (p->kind == FC_PARAM_CHOICE) {
        snprintf(buf, FC_TUNE_VALUE_MAX, "%s", p->choices[(size_t)x]);
    } else if (p->kind == FC_PARAM_INT) {
        snprintf(buf, FC_TUNE_VALUE_MAX, "%.0f", x);
    } else {   /* 6 significant digits are plenty for a hyperparameter, and read well in logs */
        snprintf(buf, FC_TUNE_VALUE_MAX, "%.6g", x);
        double back = strtod(buf, NULL);
        if (!(back >= p->low && back <= p->high)) snprintf(buf, FC_TUNE_VALUE_MAX, "%.17g", x);
    }
}

double fc_param_snap(const fc_param *p, double x) {
    char buf[FC_TUNE_VALUE_MAX];
    if (p->kind == FC_PARAM_CHOICE) return x;
    fc_param_text(p, x, buf);
    return strtod(buf, NULL);
}

double fc_param_from_unit(const fc_param *p, double u) {
    if (p->kind == FC_PARAM_CHOICE) {
        size_t i = (size_t)(u * (double)p->n_choices);
        return (double)(i < p->n_choices ? i : p->n_choices - 1);
    }
    int integer = p->kind == FC_PARAM_INT;
    double lo = p->low - (integer ? 0.5 : 0), hi = p->high + (integer ? 0.5 : 0), x;
    if (p->log) x = exp(log(lo) + u * (log(hi) - log(lo)));
    else x = lo + u * (hi - lo);
    if (integer) x = round(x);
    return x < p->low ? p->low : x > p->high ? p->high : x;
}
