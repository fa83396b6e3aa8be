/* Model configurations: the fields every kind has (h, input_size,
 * n_outputs) and those N-HiTS and N-BEATS share (stacks, blocks,
 * mlp_units); each kind's own live in its file (model_kinds.h). */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "kernels/loss.h"
#include "models/model_kinds.h"

static void set_units(fc_model_config *c, int n, size_t width) {
    c->n_units = n;
    for (int i = 0; i < n; i++) c->mlp_units[i][0] = c->mlp_units[i][1] = width;
}

void fc_blocks_defaults(fc_model_config *c) {
    set_units(c, 3, 512);                    /* mlp_units = 3 * [[512, 512]] */
    c->n_stacks = 3;
    for (int i = 0; i < 3; i++) c->n_blocks[i] = 1;
}

/* Every kind's defaults first, the chosen kind's last: the fields of other
 * kinds hold neuralforecast's values too, so that a flag meant for another
 * kind (--n-blocks 1,1,1 on an MLP) parses and is ignored, as it always did. */
void fc_model_config_default(fc_model_config *c, fc_model_kind kind, size_t h, size_t L) {
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->h = h;
    c->input_size = L;
    c->n_outputs = 1;
    for (int k = 0; k < FC_MODEL_KIND_COUNT; k++) {
        const fc_model_kind_ops *r = fc_model_kind_row((fc_model_kind)k);
        if (k != (int)kind && r->defaults) r->defaults(c);
    }
    c->dropout = 0.0;   /* meaningful where a kind has dropout: none unless its own defaults say so */
    const fc_model_kind_ops *own = fc_model_kind_row(kind);   /* NULL: refused by fc_model_config_check */
    if (own && own->defaults) own->defaults(c);
}

int fc_model_has_dropout(const fc_model_config *c) {
    if (c->iq_dim) return 1;   /* IQLoss's training quantiles are drawn from the step's seed too */
    return c->dropout > 0.0 || (c->kind == FC_MODEL_PATCHTST && (c->attn_dropout > 0.0 || c->head_dropout > 0.0));
}

const char *fc_stack_type_name(fc_stack_type t) {
    switch (t) {
    case FC_STACK_IDENTITY: return "identity";
    case FC_STACK_TREND: return "trend";
    case FC_STACK_SEASONALITY: return "seasonality";
    case FC_STACK_EXOGENOUS: return "exogenous";
    }
    return "?";
}

int fc_stack_type_parse(const char *s, fc_stack_type *out) {
    for (int t = FC_STACK_IDENTITY; t <= FC_STACK_EXOGENOUS; t++)
        if (!strcmp(s, fc_stack_type_name((fc_stack_type)t))) {
            *out = (fc_stack_type)t;
            return 0;
        }
    return -1;
}

static fc_status check_units(const fc_model_config *c) {
    if (c->n_units < 1 || c->n_units > FC_MAX_UNITS)
        return fc_error(FC_ERR_INVALID, "model: %d mlp_units entries (expected 1 to %d)", c->n_units, FC_MAX_UNITS);
    for (int i = 0; i < c->n_units; i++) {
        if (!c->mlp_units[i][0] || !c->mlp_units[i][1] || c->mlp_units[i][0] > FC_MAX_DIM || c->mlp_units[i][1] > FC_MAX_DIM)
            return fc_error(FC_ERR_INVALID, "model: mlp_units[%d] widths must be 1 to %zu", i, FC_MAX_DIM);
        /* each layer reads what the previous one wrote (neuralforecast refuses the rest too) */
        if (i > 0 && c->mlp_units[i][0] != c->mlp_units[i - 1][1])
            return fc_error(FC_ERR_INVALID, "model: mlp_units[%d] takes %zu inputs but mlp_units[%d] gives %zu",
                            i, c->mlp_units[i][0], i - 1, c->mlp_units[i - 1][1]);
    }
    return FC_OK;
}

fc_status fc_blocks_check_config(const fc_model_config *c, fc_stack_check check_stack) {
    if (c->n_stacks < 1 || c->n_stacks > FC_MAX_STACKS)
        return fc_error(FC_ERR_INVALID, "model: %d stacks (expected 1 to %d)", c->n_stacks, FC_MAX_STACKS);
    int total = 0;
    for (int i = 0; i < c->n_stacks; i++) {
        if (c->n_blocks[i] < 1 || c->n_blocks[i] > FC_MAX_BLOCKS)
            return fc_error(FC_ERR_INVALID, "model: stack %d has %d blocks (expected 1 to %d)", i, c->n_blocks[i],
                            FC_MAX_BLOCKS);
        total += c->n_blocks[i];
        if (check_stack) FC_TRY(check_stack(c, i));
    }
    if (total > FC_MAX_BLOCKS) return fc_error(FC_ERR_INVALID, "model: %d blocks (at most %d)", total, FC_MAX_BLOCKS);
    if (!(c->dropout_prob_theta >= 0.0 && c->dropout_prob_theta < 1.0))
        return fc_error(FC_ERR_INVALID, "model: dropout_prob_theta must be in [0, 1) (got %g)", c->dropout_prob_theta);
    return check_units(c);
}

static const char *const EXOG_FLAGS[3] = {"--futr-exog", "--hist-exog", "--stat-exog"};

static const fc_exog_list *exog_list(const fc_model_config *c, int kind) {
    return kind == 0 ? &c->futr_exog : kind == 1 ? &c->hist_exog : &c->stat_exog;
}

/* Names: not empty, NUL-terminated in their slot, and each column in one
 * role only (a future column is already seen over the past). */
static fc_status check_exog_names(const fc_model_config *c) {
    for (int k = 0; k < 3; k++) {
        const fc_exog_list *l = exog_list(c, k);
        if (l->n < 0 || l->n > FC_MAX_EXOG)
            return fc_error(FC_ERR_INVALID, "model: %d columns for %s (at most %d)", l->n, EXOG_FLAGS[k], FC_MAX_EXOG);
        for (int i = 0; i < l->n; i++) {
            if (!l->name[i][0] || !memchr(l->name[i], '\0', FC_EXOG_NAME_MAX))
                return fc_error(FC_ERR_INVALID, "model: %s names an empty or overlong column", EXOG_FLAGS[k]);
            for (int k2 = 0; k2 <= k; k2++)
                for (int j = 0; j < (k2 == k ? i : exog_list(c, k2)->n); j++)
                    if (!strcmp(l->name[i], exog_list(c, k2)->name[j]))
                        return fc_error(FC_ERR_INVALID, "model: column '%s' is named twice (%s and %s); "
                                        "each exogenous column has one role", l->name[i], EXOG_FLAGS[k2],
                                        EXOG_FLAGS[k]);
        }
    }
    return FC_OK;
}

/* "NHITS, MLP, NBEATSx, LSTM and TiDE": the kinds whose row takes `bit`,
 * from the table, so the message names every kind that does. */
static void kinds_taking(unsigned bit, char *buf, size_t cap) {
    const char *names[FC_MODEL_KIND_COUNT];
    size_t n = 0, at = 0;
    for (int k = 0; k < FC_MODEL_KIND_COUNT; k++) {
        const fc_model_kind_ops *row;
        if (fc_model_kind_lookup((fc_model_kind)k, &row) == FC_OK && (row->exog & bit)) names[n++] = row->name;
    }
    buf[0] = 0;
    for (size_t i = 0; i < n && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", names[i]);
}

fc_status fc_model_kind_check_exog(const fc_model_kind_ops *row, const fc_model_config *c) {
    static const unsigned bit[3] = {FC_EXOG_FUTR, FC_EXOG_HIST, FC_EXOG_STAT};
    static const char *const what[3] = {"future", "past (historical)", "static"};
    for (int k = 0; k < 3; k++)
        if (exog_list(c, k)->n > 0 && !(row->exog & bit[k])) {
            char others[256];
            kinds_taking(bit[k], others, sizeof others);
            return fc_error(FC_ERR_INVALID, "%s takes no %s exogenous inputs (%s %s), as neuralforecast's %s; "
                            "%s do", row->name, what[k], EXOG_FLAGS[k], exog_list(c, k)->name[0], row->name,
                            others);
        }
    return check_exog_names(c);
}

fc_status fc_model_config_check(const fc_model_config *c) {
    const fc_model_kind_ops *ops;
    FC_TRY(fc_model_kind_lookup(c->kind, &ops));
    if (c->h < 1 || c->h > FC_MAX_DIM)
        return fc_error(FC_ERR_INVALID, "model: h must be 1 to %zu (got %zu)", FC_MAX_DIM, c->h);
    if (c->input_size < 1 || c->input_size > FC_MAX_DIM)
        return fc_error(FC_ERR_INVALID, "model: input_size must be 1 to %zu (got %zu)", FC_MAX_DIM, c->input_size);
    /* the outputs of a point are the loss's: at most an MQ loss's quantiles */
    if (c->n_outputs < 1 || c->n_outputs > FC_MAX_QUANTILES)
        return fc_error(FC_ERR_INVALID, "model: n_outputs must be 1 to %d (got %zu)", FC_MAX_QUANTILES, c->n_outputs);
    FC_TRY(fc_model_kind_check_exog(ops, c));
    return ops->check_config(c);
}
