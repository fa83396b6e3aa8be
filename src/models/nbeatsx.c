/* NBEATSx (Olivares et al., 2022) with neuralforecast's NBEATSx layout:
 * N-BEATS's blocks (nbeats.c, block_stack.c) whose MLPs also read the
 * exogenous inputs [y | hist | futr | stat] (exog_inputs.c), plus an
 * 'exogenous' stack type whose basis is the window's own future and static
 * values (exog_basis.c). Its trend basis is N-BEATS's polynomial one, sized
 * by n_polynomials (N-BEATS's n_basis). This file is NBEATSx's row of the
 * kind table (model_kinds.h). */
#include <jansson.h>

#include "core/error.h"
#include "models/model_kinds.h"

/* NBEATSx(): identity, trend and seasonality stacks of 1 block,
 * n_harmonics = 2, n_polynomials = 2. */
void fc_nbeatsx_defaults(fc_model_config *c) { fc_nbeats_defaults(c); }

static fc_status check_stack(const fc_model_config *c, int i) {
    if (c->stack_types[i] == FC_STACK_EXOGENOUS && c->futr_exog.n + c->stat_exog.n == 0)
        return fc_error(FC_ERR_INVALID, "NBEATSx: stack %d is 'exogenous', whose basis is made of the future "
                        "and static exogenous columns: give --futr-exog or --stat-exog-file", i);
    if (c->stack_types[i] != FC_STACK_IDENTITY && c->stack_types[i] != FC_STACK_EXOGENOUS && c->h < 2)
        return fc_error(FC_ERR_INVALID, "NBEATSx: trend and seasonality stacks need h >= 2");
    return FC_OK;
}

fc_status fc_nbeatsx_check_config(const fc_model_config *c) {
    FC_TRY(fc_blocks_check_config(c, check_stack));
    if (c->n_harmonics < 1 || c->n_harmonics > FC_MAX_HARMONICS || c->n_basis < 0 || c->n_basis > FC_MAX_BASIS)
        return fc_error(FC_ERR_INVALID, "NBEATSx: n_harmonics must be 1 to %d and n_polynomials 0 to %d",
                        FC_MAX_HARMONICS, FC_MAX_BASIS);
    return FC_OK;
}

fc_status fc_nbeatsx_build(fc_model *m) { return fc_blocks_build(m, fc_nbeats_describe_block); }

fc_status fc_nbeatsx_forward(fc_model *m, float *forecast, const float *insample, const float *insample_mask,
                             size_t B) {
    return fc_blocks_forward(m, forecast, insample, insample_mask, B);
}

fc_status fc_nbeatsx_backward(fc_model *m, float *dforecast, size_t B) { return fc_blocks_backward(m, dforecast, B); }

fc_status fc_nbeatsx_fill_buffers(fc_model *m) { return fc_nbeats_fill_buffers(m); }

void fc_nbeatsx_config_to_json(const fc_model_config *c, json_t *o) { fc_nbeats_fields_to_json(c, o, "n_polynomials"); }

fc_status fc_nbeatsx_config_from_json(json_t *o, fc_model_config *c, const char *where) {
    return fc_nbeats_fields_from_json(o, c, "n_polynomials", where);
}

/* N-BEATS's flags and the block stacks' are its own (nbeats.c, nhits.c). */
const fc_arch_option_rows fc_nbeatsx_arch_options = {NULL, 0};
