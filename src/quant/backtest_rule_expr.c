/* The rule grammar of backtest_rule_expr.h: a recursive-descent parser
 * (the grammar is tiny and fixed; no parser library is worth its weight
 * here) and the bar-by-bar evaluation. */
#include "quant/backtest_rule_expr.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "quant/param_range.h"

typedef struct {
    const char *text, *p;
    fc_rule_expr *e;
} parser;

static fc_status fail(const parser *ps, const char *what) {
    return fc_error(FC_ERR_INVALID, "--rule: %s at character %zu of '%s'", what, (size_t)(ps->p - ps->text) + 1,
                    ps->text);
}

static void skip_space(parser *ps) {
    while (isspace((unsigned char)*ps->p)) ps->p++;
}

/* The word at p ([A-Za-z0-9_:.+-], and anything but ',' and ')' inside
 * braces), its length. */
static size_t word_len(const char *p) {
    size_t n = 0;
    int depth = 0;
    for (;; n++) {
        char c = p[n];
        if (c == '{') depth++;
        else if (c == '}' && depth > 0) depth--;
        else if (depth > 0 && c && c != ',' && c != ')' && !isspace((unsigned char)c)) continue;
        else if (!(isalnum((unsigned char)c) || c == '_' || c == ':' || c == '.' ||
                   ((c == '-' || c == '+') && (n == 0 || p[n - 1] == 'e' || p[n - 1] == 'E' || p[n - 1] == '{' ||
                                               p[n - 1] == ':'))))
            break;
    }
    return n;
}

/* Consumes keyword kw when it is the next whole word. */
static int accept_word(parser *ps, const char *kw) {
    skip_space(ps);
    size_t n = strlen(kw);
    if (strncmp(ps->p, kw, n) || isalnum((unsigned char)ps->p[n]) || ps->p[n] == '_') return 0;
    ps->p += n;
    return 1;
}

static int accept_char(parser *ps, char c) {
    skip_space(ps);
    if (*ps->p != c) return 0;
    ps->p++;
    return 1;
}

static fc_status new_node(parser *ps, fc_rx_op op, int a, int b, int *out) {
    if (ps->e->n_nodes == FC_RX_MAX_NODES) return fail(ps, "more than 64 terms");
    ps->e->nodes[ps->e->n_nodes] = (fc_rx_node){op, a, b};
    *out = (int)ps->e->n_nodes++;
    return FC_OK;
}

static int same_operand(const fc_rx_operand *x, const fc_rx_operand *y) {
    if (x->is_number != y->is_number || x->is_constant || y->is_constant) return 0;   /* each range its own */
    return x->is_number ? x->number == y->number : !strcmp(x->spec, y->spec) && !strcmp(x->output, y->output);
}

/* A number, or a spec with its optional output after the last '.' that a letter follows. */
static fc_status operand(parser *ps, int *out) {
    skip_space(ps);
    size_t n = word_len(ps->p);
    if (n == 0) return fail(ps, "expected a number, a column or an indicator");
    if (n >= FC_RX_SPEC_CAP) return fail(ps, "an operand longer than 63 characters");
    fc_rx_operand o = {0};
    char word[FC_RX_SPEC_CAP];
    memcpy(word, ps->p, n);
    word[n] = '\0';
    if (word[0] == '{') {   /* a number range: a constant per combination */
        o.is_constant = 1;
        snprintf(o.spec, sizeof o.spec, "%s", word);
    } else if (isdigit((unsigned char)word[0]) || word[0] == '-' || word[0] == '+' || word[0] == '.') {
        char *end;
        o.is_number = 1;
        o.number = strtod(word, &end);
        if (*end || !isfinite(o.number)) return fail(ps, "malformed number");
    } else {
        char *dot = strrchr(word, '.');
        if (dot && isalpha((unsigned char)dot[1])) {
            snprintf(o.output, sizeof o.output, "%s", dot + 1);
            *dot = '\0';
        }
        snprintf(o.spec, sizeof o.spec, "%s", word);
    }
    ps->p += n;
    fc_rule_expr *e = ps->e;
    for (size_t k = 0; k < e->n_operands; k++)
        if (same_operand(&e->operands[k], &o)) {
            *out = (int)k;
            return FC_OK;
        }
    if (e->n_operands == FC_RX_MAX_OPERANDS) return fail(ps, "more than 16 distinct operands");
    e->operands[e->n_operands] = o;
    *out = (int)e->n_operands++;
    return FC_OK;
}

static const struct {
    const char *name;
    fc_rx_op op;
} TESTS[] = {{"above", FC_RX_ABOVE}, {"below", FC_RX_BELOW}, {"crossup", FC_RX_CROSSUP},
             {"crossdown", FC_RX_CROSSDOWN}, {"cross", FC_RX_ABOVE}};

static fc_status expr(parser *ps, int *out);

static fc_status test(parser *ps, int *out) {
    for (size_t k = 0; k < sizeof TESTS / sizeof *TESTS; k++) {
        if (!accept_word(ps, TESTS[k].name)) continue;
        int a, b;
        if (!accept_char(ps, '(')) return fail(ps, "expected '('");
        FC_TRY(operand(ps, &a));
        if (!accept_char(ps, ',')) return fail(ps, "expected ','");
        FC_TRY(operand(ps, &b));
        if (!accept_char(ps, ')')) return fail(ps, "expected ')'");
        if (ps->e->operands[a].is_number && ps->e->operands[b].is_number)
            return fail(ps, "a test of two numbers");
        return new_node(ps, TESTS[k].op, a, b, out);
    }
    return fail(ps, "expected above, below, cross, crossup, crossdown, not or '('");
}

static fc_status factor(parser *ps, int *out) {
    if (accept_word(ps, "not")) {
        int a;
        FC_TRY(factor(ps, &a));
        return new_node(ps, FC_RX_NOT, a, -1, out);
    }
    if (accept_char(ps, '(')) {
        FC_TRY(expr(ps, out));
        return accept_char(ps, ')') ? FC_OK : fail(ps, "expected ')'");
    }
    return test(ps, out);
}

static fc_status term(parser *ps, int *out) {
    FC_TRY(factor(ps, out));
    while (accept_word(ps, "and")) {
        int b;
        FC_TRY(factor(ps, &b));
        FC_TRY(new_node(ps, FC_RX_AND, *out, b, out));
    }
    return FC_OK;
}

static fc_status expr(parser *ps, int *out) {
    FC_TRY(term(ps, out));
    while (accept_word(ps, "or")) {
        int b;
        FC_TRY(term(ps, &b));
        FC_TRY(new_node(ps, FC_RX_OR, *out, b, out));
    }
    return FC_OK;
}

static fc_status clauses(parser *ps) {
    static const char *const KINDS[3] = {"long", "short", "exit"};
    do {
        int kind = -1;
        for (int k = 0; k < 3 && kind < 0; k++) {
            const char *save = ps->p;
            if (accept_word(ps, KINDS[k]) && accept_char(ps, ':')) kind = k;
            else ps->p = save;
        }
        if (kind < 0) return fail(ps, "expected long:, short: or exit:");
        if (ps->e->root[kind] >= 0) return fail(ps, "a second clause of the same kind");
        FC_TRY(expr(ps, &ps->e->root[kind]));
    } while (accept_char(ps, ';'));
    return FC_OK;
}

int fc_rule_expr_is_expression(const char *text) { return text && strchr(text, '(') != NULL; }

static int starts_with_clause(const char *p) {
    while (isspace((unsigned char)*p)) p++;
    for (const char *k = p; isalpha((unsigned char)*k) || isspace((unsigned char)*k); k++)
        if (k[1] == ':') return !strncmp(p, "long", 4) || !strncmp(p, "short", 5) || !strncmp(p, "exit", 4);
    return 0;
}

fc_status fc_rule_expr_parse(const char *text, int allow_short, fc_rule_expr *out) {
    memset(out, 0, sizeof *out);
    out->root[0] = out->root[1] = out->root[2] = -1;
    parser ps = {text, text, out};
    out->plain = !starts_with_clause(text);
    FC_TRY(out->plain ? expr(&ps, &out->root[FC_RX_LONG]) : clauses(&ps));
    skip_space(&ps);
    if (*ps.p) return fail(&ps, out->plain ? "expected 'and', 'or' or the end" : "expected ';' or the end");
    if (!out->plain && out->root[FC_RX_LONG] < 0 && out->root[FC_RX_SHORT] < 0)
        return fc_error(FC_ERR_INVALID, "--rule: '%s' has no long: or short: clause", text);
    if (!out->plain && out->root[FC_RX_SHORT] >= 0 && !allow_short)
        return fc_error(FC_ERR_INVALID, "--rule: a short: clause needs --short (long-short)");
    return FC_OK;
}

static double value_at(const fc_rule_expr *e, const double *const *ops, int k, size_t t) {
    return e->operands[k].is_number ? e->operands[k].number : ops[k][t];
}

static int eval(const fc_rule_expr *e, const double *const *ops, int node, size_t t) {
    const fc_rx_node *d = &e->nodes[node];
    switch (d->op) {
    case FC_RX_OR: return eval(e, ops, d->a, t) || eval(e, ops, d->b, t);
    case FC_RX_AND: return eval(e, ops, d->a, t) && eval(e, ops, d->b, t);
    case FC_RX_NOT: return !eval(e, ops, d->a, t);
    default: break;
    }
    double a = value_at(e, ops, d->a, t), b = value_at(e, ops, d->b, t);
    if (d->op == FC_RX_ABOVE) return a > b;
    if (d->op == FC_RX_BELOW) return a < b;
    if (t == 0) return 0;
    double pa = value_at(e, ops, d->a, t - 1), pb = value_at(e, ops, d->b, t - 1);
    return d->op == FC_RX_CROSSUP ? a > b && pa <= pb : a < b && pa >= pb;
}

static int any_nan(const fc_rule_expr *e, const double *const *ops, size_t t) {
    for (size_t k = 0; k < e->n_operands; k++)
        if (!e->operands[k].is_number && isnan(ops[k][t])) return 1;
    return 0;
}

void fc_rule_expr_positions(const fc_rule_expr *e, const double *const *operands, size_t n, int allow_short,
                            double *positions) {
    double pos = 0.0;
    for (size_t t = 0; t < n; t++) {
        if (e->plain) {
            pos = any_nan(e, operands, t) ? 0.0
                  : eval(e, operands, e->root[FC_RX_LONG], t) ? 1.0
                  : allow_short ? -1.0 : 0.0;
        } else if (e->root[FC_RX_EXIT] >= 0 && eval(e, operands, e->root[FC_RX_EXIT], t)) {
            pos = 0.0;
        } else {
            int go_long = e->root[FC_RX_LONG] >= 0 && eval(e, operands, e->root[FC_RX_LONG], t);
            int go_short = e->root[FC_RX_SHORT] >= 0 && eval(e, operands, e->root[FC_RX_SHORT], t);
            if (go_long != go_short) pos = go_long ? 1.0 : -1.0;
        }
        positions[t] = pos;
    }
}

/* ------------------------------------------------------------ grids */

/* The groups of operand k, appended to g. */
static fc_status operand_groups(const fc_rule_expr *e, size_t k, fc_rx_grid *g) {
    const char *spec = e->operands[k].spec;
    g->n_instances[k] = 1;
    for (const char *p = strchr(spec, '{'); p; p = strchr(p + 1, '{')) {
        const char *end = strchr(p, '}');
        if (!end) return fc_error(FC_ERR_INVALID, "--rule: operand '%s': a '{' without its '}'", spec);
        if (g->n_params == FC_RX_MAX_PARAMS)
            return fc_error(FC_ERR_INVALID, "--rule: more than %d {...} ranges", FC_RX_MAX_PARAMS);
        char text[FC_RX_SPEC_CAP], flag[16];
        snprintf(text, sizeof text, "%.*s", (int)(end - p - 1), p + 1);
        snprintf(flag, sizeof flag, "--rule: p%zu", g->n_params + 1);
        fc_range r;
        FC_TRY(fc_range_parse(flag, text, 0, &r));
        size_t i = g->n_params++;
        g->start[i] = r.start;
        g->step[i] = r.step;
        g->count[i] = r.count;
        g->operand_of[i] = (int)k;
        g->n_instances[k] *= r.count;
    }
    return FC_OK;
}

#define GRID_MAX_COMBINATIONS 10000000.0

fc_status fc_rule_expr_grid(const fc_rule_expr *e, fc_rx_grid *g) {
    memset(g, 0, sizeof *g);
    for (size_t k = 0; k < e->n_operands; k++) FC_TRY(operand_groups(e, k, g));
    double combos = 1;
    for (size_t i = 0; i < g->n_params; i++) combos *= (double)g->count[i];
    if (combos > GRID_MAX_COMBINATIONS)
        return fc_error(FC_ERR_INVALID, "--rule: the ranges make %.0f combinations (at most %.0f)", combos,
                        GRID_MAX_COMBINATIONS);
    g->n_combos = (size_t)combos;
    return FC_OK;
}

/* Index of parameter p in combination c: the last parameter varies fastest. */
static size_t param_index(const fc_rx_grid *g, size_t p, size_t c) {
    for (size_t i = g->n_params; i-- > p + 1;) c /= g->count[i];
    return c % g->count[p];
}

double fc_rule_expr_param(const fc_rx_grid *g, size_t p, size_t c) {
    return g->start[p] + (double)param_index(g, p, c) * g->step[p];
}

size_t fc_rule_expr_instance(const fc_rx_grid *g, size_t k, size_t c) {
    size_t inst = 0;
    for (size_t p = 0; p < g->n_params; p++)
        if (g->operand_of[p] == (int)k) inst = inst * g->count[p] + param_index(g, p, c);
    return inst;
}

void fc_rule_expr_instance_text(const fc_rule_expr *e, const fc_rx_grid *g, size_t k, size_t inst, char *buf,
                                size_t cap) {
    size_t idx[FC_RX_MAX_PARAMS] = {0}, rest = inst;
    for (size_t p = g->n_params; p-- > 0;)   /* inst's digits, the operand's last group fastest */
        if (g->operand_of[p] == (int)k) {
            idx[p] = rest % g->count[p];
            rest /= g->count[p];
        }
    const char *s = e->operands[k].spec;
    size_t used = 0, p = 0;
    while (*s && used + 1 < cap) {
        if (*s != '{') {
            buf[used++] = *s++;
            continue;
        }
        while (p < g->n_params && g->operand_of[p] != (int)k) p++;
        used += (size_t)snprintf(buf + used, cap - used, "%.17g", g->start[p] + (double)idx[p] * g->step[p]);
        if (used >= cap) {
            used = cap - 1;
            break;
        }
        p++;
        s = strchr(s, '}') + 1;
    }
    buf[used < cap ? used : cap - 1] = '\0';
}
