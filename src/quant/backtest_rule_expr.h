/* Trading rules written as text over any indicator (`fcast quant backtest
 * --rule "cross(sma:10, sma:50)"`), parsed once and evaluated bar by bar.
 *
 * Grammar (whitespace between tokens is free; keywords in lower case):
 *   rule    := expr | clause { ';' clause }
 *   clause  := ( 'long' | 'short' | 'exit' ) ':' expr
 *   expr    := term { 'or' term }
 *   term    := factor { 'and' factor }
 *   factor  := 'not' factor | '(' expr ')' | test
 *   test    := name '(' operand ',' operand ')'   name: above, below, cross, crossup, crossdown
 *   operand := number | column | spec [ '.' output ]
 * column is close, open, high, low or volume; spec is an indicator as
 * `fcast quant indicators --ind` takes it (TA-Lib's names and parameter
 * order: sma:10, rsi:14, bbands:20:2:2, atr:14); output picks one output
 * of a multi-output indicator by its name, as `fcast quant indicators`
 * names its column (bbands:20:2:2.lower, macd.signal, stoch.slowd; the
 * first output without one).
 *
 * Tests at bar t: above(a, b) is a_t > b_t; below(a, b) is a_t < b_t;
 * cross(a, b) is above(a, b) (a state: the first above the second);
 * crossup(a, b) is a_t > b_t after a_{t-1} <= b_{t-1}, crossdown the
 * reverse (events, for clauses). A test on a NaN (an indicator's
 * lookback) is false.
 *
 * Grids: a parameter of an indicator, or a number operand, may be a range
 * in braces, {start:stop:step} (inclusive), {start:stop} or {v}:
 * cross(sma:{5:50:5}, sma:{20:200:10}), above(rsi:14, {60:80:10}). Each
 * group is a grid parameter, named p1, p2, ... in the order of the text;
 * the rule's combinations are their product (the last varying fastest),
 * and each distinct indicator is computed once per value of its own
 * groups, not once per combination.
 *
 * Positions: a plain expr is long while true, else short (allow_short)
 * or flat, and flat while any of its operands is NaN. Clauses hold a
 * position: at each bar exit (when true) goes flat; else long goes long
 * and short goes short when only one of them is true; else the position
 * is kept. A short clause needs allow_short. */
#ifndef FC_QUANT_BACKTEST_RULE_EXPR_H
#define FC_QUANT_BACKTEST_RULE_EXPR_H

#include <stddef.h>
#include "fcast/status.h"

#define FC_RX_MAX_NODES 64
#define FC_RX_MAX_OPERANDS 16
#define FC_RX_SPEC_CAP 64

typedef enum { FC_RX_OR, FC_RX_AND, FC_RX_NOT, FC_RX_ABOVE, FC_RX_BELOW, FC_RX_CROSSUP, FC_RX_CROSSDOWN } fc_rx_op;

typedef struct {
    fc_rx_op op;
    int a, b;   /* logic: child nodes (NOT: a); tests: operand indices */
} fc_rx_node;

typedef struct {
    int is_number;       /* a fixed number */
    int is_constant;     /* a number range in braces: a constant per combination */
    double number;
    char spec[FC_RX_SPEC_CAP];     /* "sma:10", "close" */
    char output[FC_RX_SPEC_CAP];   /* "" for the first output */
} fc_rx_operand;

enum { FC_RX_LONG = 0, FC_RX_SHORT, FC_RX_EXIT };

typedef struct {
    fc_rx_node nodes[FC_RX_MAX_NODES];
    size_t n_nodes;
    fc_rx_operand operands[FC_RX_MAX_OPERANDS];   /* each distinct (spec, output, number) once */
    size_t n_operands;
    int plain;        /* 1: one expr, root[FC_RX_LONG] */
    int root[3];      /* clauses' nodes, -1 when absent */
} fc_rule_expr;

#define FC_RX_MAX_PARAMS 8

/* The grid of a rule's {...} groups. */
typedef struct {
    size_t n_params;
    double start[FC_RX_MAX_PARAMS], step[FC_RX_MAX_PARAMS];
    size_t count[FC_RX_MAX_PARAMS];
    int operand_of[FC_RX_MAX_PARAMS];          /* the operand each group is in */
    size_t n_instances[FC_RX_MAX_OPERANDS];    /* values of an operand: the product of its groups' counts */
    size_t n_combos;
} fc_rx_grid;

/* The grid of e (1 combination without groups). Messages name --rule. */
fc_status fc_rule_expr_grid(const fc_rule_expr *e, fc_rx_grid *g);
/* Grid parameter p's value in combination c. */
double fc_rule_expr_param(const fc_rx_grid *g, size_t p, size_t c);
/* Which value (0 .. n_instances[k]) of operand k combination c takes. */
size_t fc_rule_expr_instance(const fc_rx_grid *g, size_t k, size_t c);
/* Operand k's text at its value `inst`: the spec with each group replaced
 * by its value ("sma:15"), or a constant's number ("70"). */
void fc_rule_expr_instance_text(const fc_rule_expr *e, const fc_rx_grid *g, size_t k, size_t inst, char *buf,
                                size_t cap);

/* Whether text is a rule expression rather than a built-in rule's name
 * (it holds a '('). */
int fc_rule_expr_is_expression(const char *text);

/* Messages name --rule, the text and the character at fault. */
fc_status fc_rule_expr_parse(const char *text, int allow_short, fc_rule_expr *out);

/* Positions on n bars from the operands' values (operands[k][0 .. n), the
 * number operands' arrays unused, may be NULL). */
void fc_rule_expr_positions(const fc_rule_expr *e, const double *const *operands, size_t n, int allow_short,
                            double *positions);

#endif
