/* N-BEATS (Oreshkin et al., ICLR 2020) with neuralforecast's NBEATS layout:
 * identity blocks emit [backcast L | forecast (H, Q)]; trend blocks project
 * theta on a polynomial basis (t/len)^i, i = 0..n_basis; seasonality blocks
 * on a Fourier basis. The basis matrices are non-trainable tensors of the
 * model (blocks.<i>.basis.backcast_basis (P, L), forecast_basis (P, H)), as
 * in the PyTorch state_dict. This file is N-BEATS's row of the kind table
 * (model_kinds.h). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "core/error.h"
#include "models/model_kinds.h"

/* NBEATS(): identity, trend and seasonality stacks of 1 block,
 * n_harmonics = 2, n_polynomials (n_basis) = 2. */
void fc_nbeats_defaults(fc_model_config *c) {
    fc_blocks_defaults(c);
    c->stack_types[0] = FC_STACK_IDENTITY;
    c->stack_types[1] = FC_STACK_TREND;
    c->stack_types[2] = FC_STACK_SEASONALITY;
    c->n_harmonics = 2;
    c->n_basis = 2;
}

static fc_status check_stack(const fc_model_config *c, int i) {
    if (c->stack_types[i] == FC_STACK_EXOGENOUS)
        return fc_error(FC_ERR_INVALID, "NBEATS: stack %d is 'exogenous'; that stack is NBEATSx's "
                        "(--model nbeatsx)", i);
    if (c->stack_types[i] != FC_STACK_IDENTITY && c->h < 2)
        return fc_error(FC_ERR_INVALID, "NBEATS: trend and seasonality stacks need h >= 2");
    return FC_OK;
}

fc_status fc_nbeats_check_config(const fc_model_config *c) {
    FC_TRY(fc_blocks_check_config(c, check_stack));
    if (c->dropout_prob_theta > 0.0)   /* its NBEATSBlock raises NotImplementedError("dropout") */
        return fc_error(FC_ERR_INVALID, "NBEATS: dropout_prob_theta %g: neuralforecast's NBEATS has no dropout "
                        "(it raises NotImplementedError) and neither has fcast's; NHITS and NBEATSx have it",
                        c->dropout_prob_theta);
    if (c->n_harmonics < 1 || c->n_harmonics > FC_MAX_HARMONICS || c->n_basis < 0 || c->n_basis > FC_MAX_BASIS)
        return fc_error(FC_ERR_INVALID, "NBEATS: n_harmonics must be 1 to %d and n_basis 0 to %d",
                        FC_MAX_HARMONICS, FC_MAX_BASIS);
    return FC_OK;
}

/* Number of Fourier frequencies: 1 + len(np.arange(n, n / 2 * H)). */
static size_t n_frequencies(int harmonics, size_t H) {
    double start = harmonics, stop = harmonics / 2.0 * (double)H;
    return 1 + (stop > start ? (size_t)ceil(stop - start) : 0);
}

static size_t basis_rows(const fc_model_config *c, fc_stack_type t) {
    if (t == FC_STACK_TREND) return (size_t)c->n_basis + 1;
    return 2 * n_frequencies(c->n_harmonics, c->h);
}

static void add_basis_tensors(fc_model *m, fc_block *b, int bi, size_t rows) {
    char name[64];
    b->P = rows;
    snprintf(name, sizeof name, "blocks.%d.basis.backcast_basis", bi);
    b->basis_back = fc_model_add_tensor(m, name, 2, (int64_t)rows, (int64_t)m->cfg.input_size, 0);
    snprintf(name, sizeof name, "blocks.%d.basis.forecast_basis", bi);
    b->basis_fore = fc_model_add_tensor(m, name, 2, (int64_t)rows, (int64_t)m->cfg.h, 0);
}

/* NBEATSx's exogenous stack: theta = [forecast C | backcast C] over the
 * C = F + S exogenous channels (exog_basis.c). */
static void describe_exog_block(fc_model *m, fc_block *b, int bi) {
    size_t C = (size_t)(m->cfg.futr_exog.n + m->cfg.stat_exog.n);
    b->basis = FC_BASIS_EXOG;
    fc_block_add_mlp(m, b, bi, m->cfg.input_size, 2 * C);
}

void fc_nbeats_describe_block(fc_model *m, fc_block *b, int s, int bi) {
    const fc_model_config *c = &m->cfg;
    fc_stack_type t = c->stack_types[s];
    b->pool_k = 1;
    b->stack = t;
    if (t == FC_STACK_EXOGENOUS) {
        describe_exog_block(m, b, bi);
    } else if (t == FC_STACK_IDENTITY) {
        b->basis = FC_BASIS_IDENTITY;
        fc_block_add_mlp(m, b, bi, c->input_size, c->input_size + c->n_outputs * c->h);
    } else {
        size_t rows = basis_rows(c, t);
        b->basis = FC_BASIS_MATRIX;
        /* one row of P coefficients for the backcast, Q for the forecast:
         * neuralforecast's (Q + 1) * (n_basis + 1) and, since
         * F = ceil(n_harmonics / 2 * h) - (n_harmonics - 1), 2 (Q + 1) F */
        fc_block_add_mlp(m, b, bi, c->input_size, (c->n_outputs + 1) * rows);
        add_basis_tensors(m, b, bi, rows);
    }
}

fc_status fc_nbeats_build(fc_model *m) { return fc_blocks_build(m, fc_nbeats_describe_block); }

fc_status fc_nbeats_forward(fc_model *m, float *forecast, const float *insample, const float *insample_mask,
                            size_t B) {
    return fc_blocks_forward(m, forecast, insample, insample_mask, B);
}

fc_status fc_nbeats_backward(fc_model *m, float *dforecast, size_t B) { return fc_blocks_backward(m, dforecast, B); }

/* Polynomial basis (rows, len): (t / len)^i, as generate_polynomial_basis. */
static void polynomial_basis(float *out, size_t rows, size_t len) {
    for (size_t i = 0; i < rows; i++)
        for (size_t t = 0; t < len; t++) out[i * len + t] = (float)pow((double)t / (double)len, (double)i);
}

/* Fourier basis (2F, len) = [cos(grid)^T ; sin(grid)^T] with
 * grid[t][j] = sign * 2 pi (t / H) f_j, f = [0, n/n, (n+1)/n, ...]. */
static void fourier_basis(float *out, int harmonics, size_t H, size_t len, double sign) {
    size_t F = n_frequencies(harmonics, H);
    for (size_t j = 0; j < F; j++) {
        double f = j == 0 ? 0.0 : (double)(harmonics + (int)j - 1) / harmonics;
        for (size_t t = 0; t < len; t++) {
            double g = sign * 2.0 * M_PI * ((double)t / (double)H) * f;
            out[j * len + t] = (float)cos(g);
            out[(F + j) * len + t] = (float)sin(g);
        }
    }
}

/* The basis matrices of the trend and seasonality blocks. */
fc_status fc_nbeats_fill_buffers(fc_model *m) {
    size_t L = m->cfg.input_size, H = m->cfg.h;
    for (int i = 0; i < m->n_blocks; i++) {
        fc_block *b = &m->blocks[i];
        if (b->basis != FC_BASIS_MATRIX) continue;
        float *host = fc_malloc(b->P * (L + H) * sizeof(float), "N-BEATS basis");
        if (!host) return FC_ERR_MEMORY;
        float *back = host, *fore = host + b->P * L;
        if (b->stack == FC_STACK_TREND) {
            polynomial_basis(back, b->P, L);
            polynomial_basis(fore, b->P, H);
        } else {
            fourier_basis(back, m->cfg.n_harmonics, H, L, -1.0);
            fourier_basis(fore, m->cfg.n_harmonics, H, H, 1.0);
        }
        fc_backend *be = m->be;
        be->to_device(be, m->params + m->tensors[b->basis_back].offset, back, b->P * L * sizeof(float));
        be->to_device(be, m->params + m->tensors[b->basis_fore].offset, fore, b->P * H * sizeof(float));
        free(host);
    }
    return FC_OK;
}

/* N-BEATS and NBEATSx: the stacks, n_harmonics, and the trend degree under
 * the kind's name for it (N-BEATS's n_basis, NBEATSx's n_polynomials). */
void fc_nbeats_fields_to_json(const fc_model_config *c, json_t *o, const char *degree_key) {
    fc_stacks_to_json(c, o);
    json_object_set_new(o, "n_harmonics", json_integer(c->n_harmonics));
    json_object_set_new(o, degree_key, json_integer(c->n_basis));
}

/* n_harmonics and the degree are optional (absent: the defaults), as they always were. */
fc_status fc_nbeats_fields_from_json(json_t *o, fc_model_config *c, const char *degree_key, const char *where) {
    FC_TRY(fc_stacks_from_json(o, c, where));
    size_t harmonics = (size_t)c->n_harmonics, degree = (size_t)c->n_basis;
    FC_TRY(fc_json_get_size(o, "n_harmonics", &harmonics, 0, where));
    FC_TRY(fc_json_get_size(o, degree_key, &degree, 0, where));
    c->n_harmonics = (int)harmonics;
    c->n_basis = (int)degree;
    return FC_OK;
}

void fc_nbeats_config_to_json(const fc_model_config *c, json_t *o) { fc_nbeats_fields_to_json(c, o, "n_basis"); }

fc_status fc_nbeats_config_from_json(json_t *o, fc_model_config *c, const char *where) {
    return fc_nbeats_fields_from_json(o, c, "n_basis", where);
}

/* Its flags (NBEATSx's too: its n_polynomials is --n-basis). */
static const fc_arch_option ARCH[] = {
    FC_ARCH_SIZE("n-harmonics", n_harmonics, 1, FC_MAX_HARMONICS, "N", "N-BEATS seasonality harmonics (2)"),
    FC_ARCH_SIZE("n-basis", n_basis, 0, FC_MAX_BASIS, "N",
                 "N-BEATS trend polynomial degree (2; 0 = constant; NBEATSx's n_polynomials)"),
};
const fc_arch_option_rows fc_nbeats_arch_options = FC_ARCH_ROWS(ARCH);
