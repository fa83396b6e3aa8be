/* The parameter grid of a rule: the product of its ranges, valid
 * combinations only (see backtest.h). */
#include "quant/backtest.h"

#include "core/error.h"
#include "quant/param_range.h"

#define GRID_MAX_COMBINATIONS 10000000u

fc_status fc_rule_grid_build(fc_rule_kind rule, const fc_range *ranges, fc_rule_params **out,
                             size_t *n_combos, size_t *skipped) {
    size_t np = fc_rule_param_count(rule), total = 1;
    for (size_t i = 0; i < np; i++) {
        if (ranges[i].count == 0 || total > GRID_MAX_COMBINATIONS / ranges[i].count)
            return fc_error(FC_ERR_INVALID, "the parameter grid has more than %u combinations",
                            GRID_MAX_COMBINATIONS);
        total *= ranges[i].count;
    }
    fc_rule_params *g = fc_malloc(total * sizeof *g, "parameter grid");
    if (!g) return FC_ERR_MEMORY;
    size_t kept = 0;
    for (size_t flat = 0; flat < total; flat++) {
        fc_rule_params p = {.rule = rule};
        size_t rest = flat;
        for (size_t i = np; i-- > 0;) { /* the last parameter varies fastest */
            p.p[i] = fc_range_value(&ranges[i], rest % ranges[i].count);
            rest /= ranges[i].count;
        }
        if (fc_rule_is_valid_combination(&p)) g[kept++] = p;
    }
    *out = g;
    *n_combos = kept;
    *skipped = total - kept;
    return FC_OK;
}
