/* Whole-model gradient checks by central finite differences: for N-HiTS
 * (pooling, interpolation, doubly residual links), N-BEATS (identity, trend
 * and seasonality bases) and MLP, the gradient that backward accumulates
 * for every parameter must match (f(p + e) - f(p - e)) / 2e of the scalar
 * f = sum(forecast * R) for a fixed random R. Each kind also with Q = 3
 * outputs per point (forecast (B, H, Q)): N-HiTS's quantile-major knots,
 * N-BEATS's (P, Q) basis coefficients and the transposes between them; and
 * with exogenous inputs (pooled channels, NBEATSx's exogenous basis); and
 * LSTM (the recurrence through time, upsampling, its decoder); and TiDE
 * (residual blocks, layer norm, dropout), N-HiTS's dropout_prob_theta; and PatchTST (RevIN, patches,
 * attention with residual scores, BatchNorm over the batch, GELU). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/error.h"
#include "core/rng.h"
#include "models/model.h"

enum { B = 3 };

static float uniform(uint64_t i) { return 2.0f * fc_u32_to_unit_float(fc_rng_block(99, 7, i).v[0]) - 1.0f; }

static double objective(fc_model *m, float *fc, const float *x, const float *mask, const float *R) {
    FC_ASSERT(fc_model_forward(m, fc, x, mask, B) == FC_OK);
    double s = 0.0;
    for (size_t i = 0; i < B * m->cfg.h * m->cfg.n_outputs; i++) s += (double)fc[i] * R[i];
    return s;
}

/* Left, central and right difference quotients of the objective in parameter k. */
static void differences(fc_model *m, size_t k, float eps, float *fc, const float *x, const float *mask,
                        const float *R, double q[3]) {
    float keep = m->params[k];
    double mid = objective(m, fc, x, mask, R);
    m->params[k] = keep + eps;
    double up = objective(m, fc, x, mask, R);
    m->params[k] = keep - eps;
    double down = objective(m, fc, x, mask, R);
    m->params[k] = keep;
    q[0] = (mid - down) / eps;
    q[1] = (up - down) / (2.0 * eps);
    q[2] = (up - mid) / eps;
}

static void check_model(const char *label, const fc_model_config *cfg) {
    fc_backend *be = NULL;
    fc_model *m = NULL;
    CHECK(fc_backend_cpu_create(1, &be) == FC_OK);
    CHECK_MSG(fc_model_create(cfg, be, &m) == FC_OK, "%s: %s", label, fc_last_error());
    if (!m) return;
    CHECK(fc_model_init_params(m, 5) == FC_OK);
    CHECK(fc_model_reserve(m, B, 1) == FC_OK);
    size_t L = cfg->input_size, H = cfg->h * cfg->n_outputs;   /* forecast row width */
    float *x = malloc(B * L * sizeof(float)), *mask = malloc(B * L * sizeof(float));
    float *R = malloc(B * H * sizeof(float)), *fc = malloc(B * H * sizeof(float));
    for (size_t i = 0; i < B * L; i++) {
        x[i] = uniform(i) * 2.0f;
        mask[i] = (i % 7 == 3) ? 0.0f : 1.0f;   /* a few missing points */
    }
    for (size_t i = 0; i < B * H; i++) R[i] = uniform(1000 + i);
    /* exogenous inputs: data, fixed during the check */
    size_t nx[3] = {B * (L + cfg->h) * (size_t)cfg->futr_exog.n, B * L * (size_t)cfg->hist_exog.n,
                    B * (size_t)cfg->stat_exog.n};
    float *xs[3];
    for (int k = 0; k < 3; k++) {
        xs[k] = malloc((nx[k] + 1) * sizeof(float));
        for (size_t i = 0; i < nx[k]; i++) xs[k][i] = uniform(5000 + 1000 * (uint64_t)k + i) * 1.5f;
    }
    m->exog = (fc_exog_inputs){nx[0] ? xs[0] : NULL, nx[1] ? xs[1] : NULL, nx[2] ? xs[2] : NULL};
    /* training: dropout with a fixed step seed, so every forward draws the
     * same masks, and BatchNorm on the batch's statistics */
    m->training = 1;
    m->dropout_seed = 0x5eed;
    objective(m, fc, x, mask, R);
    be->fill(be, m->grads, 0.0f, m->n_trainable);
    float *dR = malloc(B * H * sizeof(float));   /* backward may overwrite its d forecast */
    memcpy(dR, R, B * H * sizeof(float));
    CHECK(fc_model_backward(m, dR, B) == FC_OK);
    free(dR);
    /* Near a ReLU or max-pool switch the central difference averages two
     * slopes; the parameter's own side of the switch is then given by one of
     * the one-sided quotients. A wrong gradient matches none of the three. */
    int bad = 0, one_sided = 0;
    for (size_t k = 0; k < m->n_trainable; k++) {
        double q[3], ana = m->grads[k];
        differences(m, k, 5e-4f, fc, x, mask, R, q);
        int ok[3];
        for (int i = 0; i < 3; i++) ok[i] = fabs(q[i] - ana) <= 4e-3 + 2e-2 * fabs(ana);
        if (ok[1]) continue;
        if (ok[0] || ok[2]) { one_sided++; continue; }
        if (bad++ < 5) fprintf(stderr, "%s: param %zu: numeric %.6g %.6g %.6g analytic %.6g\n", label, k, q[0], q[1], q[2], ana);
    }
    CHECK_MSG(bad == 0, "%s: %d of %zu gradients differ", label, bad, m->n_trainable);
    CHECK_MSG(one_sided * 20 < (int)m->n_trainable, "%s: %d of %zu parameters sit at a kink", label, one_sided, m->n_trainable);
    printf("%s: %zu parameters checked, %d by a one-sided difference (at a kink)\n", label, m->n_trainable, one_sided);
    free(x); free(mask); free(R); free(fc);
    for (int k = 0; k < 3; k++) free(xs[k]);
    fc_model_free(&m);
    fc_backend_destroy(&be);
}

/* F future, X past and S static columns (names are only labels here). */
static void exog_lists(fc_model_config *c, int F, int X, int S) {
    fc_exog_list *l[3] = {&c->futr_exog, &c->hist_exog, &c->stat_exog};
    int n[3] = {F, X, S};
    for (int k = 0; k < 3; k++) {
        l[k]->n = n[k];
        for (int i = 0; i < n[k]; i++) snprintf(l[k]->name[i], FC_EXOG_NAME_MAX, "x%d_%d", k, i);
    }
}

static void small_units(fc_model_config *c, size_t w) {
    c->n_units = 3;
    for (int i = 0; i < 3; i++) c->mlp_units[i][0] = c->mlp_units[i][1] = w;
}

int main(void) {
    fc_model_config c;
    fc_model_config_default(&c, FC_MODEL_NHITS, 6, 13);   /* odd L: partial pooling windows */
    small_units(&c, 8);
    check_model("NHITS", &c);

    fc_model_config_default(&c, FC_MODEL_NHITS, 7, 12);
    small_units(&c, 6);
    c.n_pool_kernel_size[0] = 3; c.n_freq_downsample[0] = 3;   /* 2 knots interpolated to 7 */
    c.n_blocks[1] = 2;
    check_model("NHITS uneven", &c);

    fc_model_config_default(&c, FC_MODEL_NHITS, 7, 12);       /* interpolation_mode="nearest" */
    small_units(&c, 6);
    c.interp_mode = FC_INTERP_NEAREST;
    c.n_pool_kernel_size[0] = 3; c.n_freq_downsample[0] = 3;   /* 2 knots to 7: knot 0 read 4 times */
    check_model("NHITS nearest", &c);
    c.n_outputs = 3;
    check_model("NHITS nearest Q=3", &c);
    c.n_outputs = 1;
    c.interp_mode = FC_INTERP_CUBIC;   /* 2 knots to 7: every tap clamps at a border */
    check_model("NHITS cubic", &c);
    c.n_freq_downsample[0] = 1;        /* 7 knots to 7, and 3 to 7 in stack 1 */
    check_model("NHITS cubic 7 knots", &c);

    fc_model_config_default(&c, FC_MODEL_NHITS, 6, 13);       /* dropout_prob_theta: fixed masks */
    small_units(&c, 8);
    c.dropout_prob_theta = 0.3;
    check_model("NHITS dropout", &c);

    fc_model_config_default(&c, FC_MODEL_NBEATS, 6, 10);      /* identity, trend, seasonality */
    small_units(&c, 8);
    check_model("NBEATS", &c);

    fc_model_config_default(&c, FC_MODEL_MLP, 5, 9);
    c.hidden_size = 12;
    c.num_layers = 3;
    check_model("MLP", &c);

    fc_model_config_default(&c, FC_MODEL_NHITS, 7, 12);
    small_units(&c, 6);
    c.n_outputs = 3;
    c.n_pool_kernel_size[0] = 3; c.n_freq_downsample[0] = 3;   /* 2 knots per output */
    check_model("NHITS Q=3", &c);

    fc_model_config_default(&c, FC_MODEL_NBEATS, 6, 10);
    small_units(&c, 8);
    c.n_outputs = 3;
    check_model("NBEATS Q=3", &c);

    fc_model_config_default(&c, FC_MODEL_MLP, 5, 9);
    c.hidden_size = 12;
    c.n_outputs = 3;
    check_model("MLP Q=3", &c);

    /* Exogenous inputs: N-HiTS pools each channel (odd L and L + h: partial
     * windows), NBEATSx adds its exogenous basis (futr and stat channels,
     * forecast theta first), also with Q = 3 (one forecast per point shared
     * by the outputs), MLP reads them flat. */
    fc_model_config_default(&c, FC_MODEL_NHITS, 6, 13);
    small_units(&c, 8);
    exog_lists(&c, 2, 1, 2);
    check_model("NHITS exogenous", &c);

    fc_model_config_default(&c, FC_MODEL_NBEATSX, 6, 10);
    small_units(&c, 8);
    c.stack_types[2] = FC_STACK_EXOGENOUS;   /* identity, trend, exogenous */
    exog_lists(&c, 2, 1, 1);
    check_model("NBEATSx exogenous", &c);

    fc_model_config_default(&c, FC_MODEL_NBEATSX, 5, 8);
    small_units(&c, 8);
    c.stack_types[0] = FC_STACK_EXOGENOUS;
    c.n_outputs = 3;
    exog_lists(&c, 0, 0, 2);
    check_model("NBEATSx Q=3 static", &c);

    fc_model_config_default(&c, FC_MODEL_MLP, 5, 9);
    c.hidden_size = 8;
    exog_lists(&c, 1, 2, 1);
    check_model("MLP exogenous", &c);

    /* LSTM: back-propagation through time over two layers; a one-layer
     * encoder with h > L (upsampling over time) and exogenous inputs (stat
     * repeated, futr in the encoder and the decoder); Q = 3. */
    fc_model_config_default(&c, FC_MODEL_LSTM, 4, 7);
    c.encoder_hidden_size = 5;
    c.decoder_hidden_size = 6;
    check_model("LSTM", &c);

    fc_model_config_default(&c, FC_MODEL_LSTM, 8, 5);
    c.encoder_n_layers = 1;
    c.encoder_hidden_size = 4;
    c.decoder_hidden_size = 5;
    c.decoder_layers = 3;
    exog_lists(&c, 2, 1, 1);
    check_model("LSTM upsampled, exogenous", &c);

    fc_model_config_default(&c, FC_MODEL_LSTM, 3, 6);
    c.encoder_hidden_size = 4;
    c.decoder_layers = 1;
    c.n_outputs = 3;
    check_model("LSTM Q=3", &c);

    /* TiDE: residual blocks with layer norm (Q = 3, so the temporal decoder
     * normalises more than one value and every block reaches the
     * forecast), without it and with every kind of exogenous input, and
     * with dropout while training (its masks redrawn in the backward). */
    fc_model_config_default(&c, FC_MODEL_TIDE, 4, 8);
    c.hidden_size = 6;
    c.decoder_output_dim = 3;
    c.temporal_decoder_dim = 5;
    c.dropout = 0.0;
    c.n_outputs = 3;
    check_model("TiDE layer norm Q=3", &c);

    fc_model_config_default(&c, FC_MODEL_TIDE, 5, 7);
    c.hidden_size = 6;
    c.decoder_output_dim = 2;
    c.temporal_decoder_dim = 4;
    c.temporal_width = 3;
    c.num_encoder_layers = 2;
    c.layernorm = 0;
    c.dropout = 0.0;
    exog_lists(&c, 2, 1, 2);
    check_model("TiDE exogenous", &c);

    c.dropout = 0.3;
    c.layernorm = 1;
    c.n_outputs = 2;
    check_model("TiDE dropout", &c);

    /* PatchTST: post-norm with residual attention scores and GELU; then
     * pre-norm, RevIN by the mean with its affine weights, ReLU, plain
     * attention, a fixed positional embedding and Q = 3; then with every
     * dropout on. 6 patches of 4 at stride 2 over 12 inputs, 2 heads. */
    fc_model_config_default(&c, FC_MODEL_PATCHTST, 4, 12);
    c.hidden_size = 8;
    c.n_heads = 2;
    c.linear_hidden_size = 12;
    c.encoder_layers = 2;
    c.patch_len = 4;
    c.stride = 2;
    c.dropout = 0.0;
    check_model("PatchTST", &c);

    c.batch_normalization = 1;
    c.revin_subtract_last = 0;
    c.revin_affine = 1;
    c.gelu = 0;
    c.res_attention = 0;
    c.learn_pos_embed = 0;
    c.n_outputs = 3;
    check_model("PatchTST pre-norm affine Q=3", &c);

    fc_model_config_default(&c, FC_MODEL_PATCHTST, 3, 10);
    c.hidden_size = 6;
    c.n_heads = 3;
    c.linear_hidden_size = 8;
    c.encoder_layers = 2;
    c.patch_len = 4;
    c.stride = 3;
    c.dropout = 0.2;
    c.attn_dropout = 0.1;
    c.head_dropout = 0.1;
    check_model("PatchTST dropout", &c);
    return CHECK_DONE();
}
