/* Model configurations: neuralforecast's defaults, names and validation. */
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "kernels/loss.h"
#include "models/model.h"

static void set_units(fc_model_config *c, int n, size_t width) {
    c->n_units = n;
    for (int i = 0; i < n; i++) c->mlp_units[i][0] = c->mlp_units[i][1] = width;
}

void fc_model_config_default(fc_model_config *c, fc_model_kind kind, size_t h, size_t L) {
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->h = h;
    c->input_size = L;
    c->n_outputs = 1;
    c->n_harmonics = 2;
    c->n_basis = 2;
    c->hidden_size = 1024;
    c->num_layers = 2;
    set_units(c, 3, 512);                    /* mlp_units = 3 * [[512, 512]] */
    c->n_stacks = 3;
    for (int i = 0; i < 3; i++) c->n_blocks[i] = 1;
    if (kind == FC_MODEL_NHITS) {            /* NHITS(): 3 identity stacks */
        const size_t pool[3] = {2, 2, 1}, down[3] = {4, 2, 1};
        for (int i = 0; i < 3; i++) {
            c->stack_types[i] = FC_STACK_IDENTITY;
            c->n_pool_kernel_size[i] = pool[i];
            c->n_freq_downsample[i] = down[i];
        }
    } else if (kind == FC_MODEL_NBEATS) {    /* NBEATS(): identity, trend, seasonality */
        c->stack_types[0] = FC_STACK_IDENTITY;
        c->stack_types[1] = FC_STACK_TREND;
        c->stack_types[2] = FC_STACK_SEASONALITY;
    }
}

const char *fc_model_kind_name(fc_model_kind k) {
    switch (k) {
    case FC_MODEL_NHITS: return "NHITS";
    case FC_MODEL_NBEATS: return "NBEATS";
    case FC_MODEL_MLP: return "MLP";
    }
    return "?";
}

int fc_model_kind_parse(const char *s, fc_model_kind *out) {
    if (!strcasecmp(s, "nhits")) *out = FC_MODEL_NHITS;
    else if (!strcasecmp(s, "nbeats")) *out = FC_MODEL_NBEATS;
    else if (!strcasecmp(s, "mlp")) *out = FC_MODEL_MLP;
    else return -1;
    return 0;
}

const char *fc_stack_type_name(fc_stack_type t) {
    switch (t) {
    case FC_STACK_IDENTITY: return "identity";
    case FC_STACK_TREND: return "trend";
    case FC_STACK_SEASONALITY: return "seasonality";
    }
    return "?";
}

static fc_status check_stacks(const fc_model_config *c) {
    if (c->n_stacks < 1 || c->n_stacks > FC_MAX_STACKS)
        return fc_error(FC_ERR_INVALID, "model: %d stacks (expected 1 to %d)", c->n_stacks, FC_MAX_STACKS);
    int total = 0;
    for (int i = 0; i < c->n_stacks; i++) {
        if (c->n_blocks[i] < 1 || c->n_blocks[i] > FC_MAX_BLOCKS)
            return fc_error(FC_ERR_INVALID, "model: stack %d has %d blocks (expected 1 to %d)", i, c->n_blocks[i],
                            FC_MAX_BLOCKS);
        total += c->n_blocks[i];
        if (c->kind == FC_MODEL_NHITS) {
            if (c->stack_types[i] != FC_STACK_IDENTITY)
                return fc_error(FC_ERR_INVALID, "NHITS: stack %d is '%s'; NHITS has identity stacks only", i,
                                fc_stack_type_name(c->stack_types[i]));
            if (c->n_pool_kernel_size[i] < 1 || c->n_freq_downsample[i] < 1 ||
                c->n_pool_kernel_size[i] > FC_MAX_DIM || c->n_freq_downsample[i] > FC_MAX_DIM)
                return fc_error(FC_ERR_INVALID, "NHITS: stack %d: pool kernel and freq downsample must be 1 to %zu", i,
                                FC_MAX_DIM);
        }
        if (c->kind == FC_MODEL_NBEATS && c->stack_types[i] != FC_STACK_IDENTITY && c->h < 2)
            return fc_error(FC_ERR_INVALID, "NBEATS: trend and seasonality stacks need h >= 2");
    }
    if (total > FC_MAX_BLOCKS) return fc_error(FC_ERR_INVALID, "model: %d blocks (at most %d)", total, FC_MAX_BLOCKS);
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
    if (c->kind == FC_MODEL_NBEATS && (c->n_harmonics < 1 || c->n_harmonics > FC_MAX_HARMONICS ||
                                       c->n_basis < 0 || c->n_basis > FC_MAX_BASIS))
        return fc_error(FC_ERR_INVALID, "NBEATS: n_harmonics must be 1 to %d and n_basis 0 to %d",
                        FC_MAX_HARMONICS, FC_MAX_BASIS);
    return FC_OK;
}

fc_status fc_model_config_check(const fc_model_config *c) {
    if (c->h < 1 || c->h > FC_MAX_DIM)
        return fc_error(FC_ERR_INVALID, "model: h must be 1 to %zu (got %zu)", FC_MAX_DIM, c->h);
    if (c->input_size < 1 || c->input_size > FC_MAX_DIM)
        return fc_error(FC_ERR_INVALID, "model: input_size must be 1 to %zu (got %zu)", FC_MAX_DIM, c->input_size);
    /* the outputs of a point are the loss's: at most an MQ loss's quantiles */
    if (c->n_outputs < 1 || c->n_outputs > FC_MAX_QUANTILES)
        return fc_error(FC_ERR_INVALID, "model: n_outputs must be 1 to %d (got %zu)", FC_MAX_QUANTILES, c->n_outputs);
    if (c->kind == FC_MODEL_MLP) {
        if (c->num_layers < 1 || c->num_layers > FC_MAX_LINEARS - 1)
            return fc_error(FC_ERR_INVALID, "MLP: num_layers must be 1 to %d (got %d)", FC_MAX_LINEARS - 1, c->num_layers);
        if (c->hidden_size < 1 || c->hidden_size > FC_MAX_DIM)
            return fc_error(FC_ERR_INVALID, "MLP: hidden_size must be 1 to %zu", FC_MAX_DIM);
        return FC_OK;
    }
    return check_stacks(c);
}
