/* TiDE (Das et al., 2023) with neuralforecast's TiDE layout, every block a
 * residual MLP (residual_mlp.c):
 *
 *   skip     = global_skip(y)                              (B, h, Q)
 *   e        = [y (L) | hist_proj(hist) (L, W) | futr_proj(futr) (L + h, W) | stat (S)]
 *   d        = dense_decoder(dense_encoder(e))            (B, h, D)
 *   forecast = temporal_decoder([d_t | futr_proj(futr)_{L+t}]) + skip
 *
 * with W = temporal_width, D = decoder_output_dim; the projections and the
 * temporal decoder run at every time step (rows per window). As
 * neuralforecast, a model with future columns but no past ones still has
 * a hist_exog_projection (reading 0 columns): its tensors are in the
 * state_dict, unused. This file is TiDE's row of the kind table. */
#include <jansson.h>
#include <stdio.h>

#include "core/error.h"
#include "models/model_kinds.h"

#define ACT(m, off) ((m)->acts + (off) * (m)->capacity)
#define SCR(m, off) ((m)->scratch + (off) * (m)->capacity)

static size_t max2(size_t a, size_t b) { return a > b ? a : b; }

/* TiDE(): hidden 512, decoder output 32, temporal decoder 128, dropout
 * 0.3, layer norm, 1 encoder and 1 decoder layer, temporal width 4. */
void fc_tide_defaults(fc_model_config *c) {
    c->hidden_size = 512;
    c->decoder_output_dim = 32;
    c->temporal_decoder_dim = 128;
    c->dropout = 0.3;
    c->layernorm = 1;
    c->num_encoder_layers = 1;
    c->num_decoder_layers = 1;
    c->temporal_width = 4;
}

fc_status fc_tide_check_config(const fc_model_config *c) {
    if (c->num_encoder_layers < 1 || c->num_encoder_layers > FC_TIDE_MAX_LAYERS || c->num_decoder_layers < 1 ||
        c->num_decoder_layers > FC_TIDE_MAX_LAYERS)
        return fc_error(FC_ERR_INVALID, "TiDE: num_encoder_layers and num_decoder_layers must be 1 to %d",
                        FC_TIDE_MAX_LAYERS);
    size_t sizes[4] = {c->hidden_size, c->decoder_output_dim, c->temporal_decoder_dim, c->temporal_width};
    for (int i = 0; i < 4; i++)
        if (sizes[i] < 1 || sizes[i] > FC_MAX_DIM)
            return fc_error(FC_ERR_INVALID, "TiDE: hidden_size, decoder_output_dim, temporal_decoder_dim and "
                            "temporal_width must be 1 to %zu", FC_MAX_DIM);
    if (!(c->dropout >= 0.0 && c->dropout < 1.0))
        return fc_error(FC_ERR_INVALID, "TiDE: dropout must be in [0, 1) (got %g)", c->dropout);
    return FC_OK;
}

/* The hist_exog_projection of a model without past columns: its tensors
 * only (lin1 and skip read nothing; biases start at 0, as torch's rule for
 * fan_in 0 gives). */
static void add_unused_projection(fc_model *m, size_t hidden, size_t W, int layernorm) {
    static const char *const names[4] = {"lin1", "lin2", "skip", NULL};
    size_t in[3] = {0, hidden, 0}, out[3] = {hidden, W, W};
    char name[96];
    if (layernorm) {
        size_t w = fc_model_add_tensor(m, "hist_exog_projection.norm.weight", 1, (int64_t)W, 1, 1);
        size_t b = fc_model_add_tensor(m, "hist_exog_projection.norm.bias", 1, (int64_t)W, 1, 1);
        m->tensors[w].init_constant = m->tensors[b].init_constant = 1;
        m->tensors[w].init_value = 1.0f;
    }
    for (int i = 0; names[i]; i++) {
        snprintf(name, sizeof name, "hist_exog_projection.%s.weight", names[i]);
        fc_model_add_tensor(m, name, 2, (int64_t)out[i], (int64_t)in[i], 1);
        snprintf(name, sizeof name, "hist_exog_projection.%s.bias", names[i]);
        fc_model_add_tensor(m, name, 1, (int64_t)out[i], 1, 1);
    }
}

static void add_blocks(fc_model *m) {
    const fc_model_config *c = &m->cfg;
    fc_tide_plan *p = &m->tide;
    size_t L = c->input_size, h = c->h, W = c->temporal_width, Hd = c->hidden_size, D = c->decoder_output_dim;
    size_t X = (size_t)c->hist_exog.n, F = (size_t)c->futr_exog.n, S = (size_t)c->stat_exog.n;
    int ln = c->layernorm;
    char prefix[48];
    p->has_hist_proj = X > 0;
    p->has_futr_proj = F > 0;
    if (X) fc_resmlp_add(m, &p->hist_proj, "hist_exog_projection", X, Hd, W, L, ln);
    else if (F) add_unused_projection(m, Hd, W, ln);
    if (F) fc_resmlp_add(m, &p->futr_proj, "futr_exog_projection", F, Hd, W, L + h, ln);
    size_t in = L + (X ? L * W : 0) + (F ? (L + h) * W : 0) + S;
    for (int i = 0; i < c->num_encoder_layers; i++) {
        snprintf(prefix, sizeof prefix, "dense_encoder.%d", i);
        fc_resmlp_add(m, &p->enc[i], prefix, i ? Hd : in, Hd, Hd, 1, ln);
    }
    for (int i = 0; i < c->num_decoder_layers; i++) {
        snprintf(prefix, sizeof prefix, "dense_decoder.%d", i);
        fc_resmlp_add(m, &p->dec[i], prefix, Hd, Hd, i + 1 == c->num_decoder_layers ? D * h : Hd, 1, ln);
    }
    fc_resmlp_add(m, &p->temporal, "temporal_decoder", D + (F ? W : 0), c->temporal_decoder_dim, c->n_outputs, h, ln);
    p->global_skip = m->n_linear;
    fc_model_add_linear(m, &m->lin[m->n_linear++], "global_skip", L, h * c->n_outputs, FC_ACT_NONE);
}

/* Every residual MLP of the model, in forward order. */
static int blocks_of(fc_model *m, fc_resmlp **out) {
    fc_tide_plan *p = &m->tide;
    int n = 0;
    if (p->has_hist_proj) out[n++] = &p->hist_proj;
    if (p->has_futr_proj) out[n++] = &p->futr_proj;
    for (int i = 0; i < m->cfg.num_encoder_layers; i++) out[n++] = &p->enc[i];
    for (int i = 0; i < m->cfg.num_decoder_layers; i++) out[n++] = &p->dec[i];
    out[n++] = &p->temporal;
    return n;
}

fc_status fc_tide_build(fc_model *m) {
    const fc_model_config *c = &m->cfg;
    fc_tide_plan *p = &m->tide;
    size_t L = c->input_size, h = c->h, W = c->temporal_width, D = c->decoder_output_dim;
    size_t F = (size_t)c->futr_exog.n;
    add_blocks(m);
    fc_resmlp *blocks[2 * FC_TIDE_MAX_LAYERS + 3];
    int n = blocks_of(m, blocks);
    size_t slot[4] = {0, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        fc_resmlp_plan(m, blocks[i]);
        blocks[i]->dropout_offset = (uint64_t)(i + 1) << 40;   /* disjoint ranges of the step's stream */
        fc_resmlp_scratch(blocks[i], slot);
    }
    size_t ein = p->enc[0].in, tin = h * (D + (F ? W : 0)), inner = max2(c->hidden_size, D * h);
    p->a_skip = fc_model_plan_act(m, h * c->n_outputs);
    p->a_ein = fc_model_plan_act(m, ein);
    if (F) p->a_tin = fc_model_plan_act(m, tin);   /* without future columns the decoded features are the input */
    for (int i = 0; i < 4; i++) p->s_r[i] = fc_model_plan_scratch(m, slot[i]);
    /* the two buffers d alternates between through the stacks (fc_tide_backward): either may hold
     * any of the encoder input's, a hidden layer's, the decoded features', the temporal input's or
     * a projection's gradient */
    size_t d = max2(max2(ein, inner), max2(tin, L * W));
    p->s_dein = fc_model_plan_scratch(m, d);
    p->s_dtin = fc_model_plan_scratch(m, d);
    if (F) p->s_dfutr = fc_model_plan_scratch(m, (L + h) * W);
    p->s_dtmp = fc_model_plan_scratch(m, h * c->n_outputs);
    return FC_OK;
}

/* The dense encoder's input: y, then the projected past and future
 * columns and the static values. Returns the future projection (or NULL). */
static fc_status encoder_input(fc_model *m, const float *y, size_t B, const float **futr_out) {
    const fc_model_config *c = &m->cfg;
    fc_backend *be = m->be;
    fc_tide_plan *p = &m->tide;
    size_t L = c->input_size, h = c->h, W = c->temporal_width, S = (size_t)c->stat_exog.n, ld = p->enc[0].in;
    float *e = ACT(m, p->a_ein);
    size_t col = L;
    be->axpby_rows(be, e, ld, 1.0f, y, L, 0.0f, B, L);
    *futr_out = NULL;
    if (p->has_hist_proj) {
        const float *o;
        FC_TRY(fc_resmlp_forward(m, &p->hist_proj, m->exog.hist, B, &o));
        be->axpby_rows(be, e + col, ld, 1.0f, o, L * W, 0.0f, B, L * W);
        col += L * W;
    }
    if (p->has_futr_proj) {
        FC_TRY(fc_resmlp_forward(m, &p->futr_proj, m->exog.futr, B, futr_out));
        be->axpby_rows(be, e + col, ld, 1.0f, *futr_out, (L + h) * W, 0.0f, B, (L + h) * W);
        col += (L + h) * W;
    }
    if (S) be->axpby_rows(be, e + col, ld, 1.0f, m->exog.stat, S, 0.0f, B, S);
    return FC_OK;
}

/* The temporal decoder's input (B, h, D [+ W]): each step's decoded
 * features beside its projected future values. */
static const float *temporal_input(fc_model *m, const float *d, const float *futr, size_t B) {
    const fc_model_config *c = &m->cfg;
    fc_backend *be = m->be;
    size_t L = c->input_size, h = c->h, W = c->temporal_width, D = c->decoder_output_dim, T = D + W;
    if (!futr) return d;
    float *in = ACT(m, m->tide.a_tin);
    for (size_t t = 0; t < h; t++) {
        be->axpby_rows(be, in + t * T, h * T, 1.0f, d + t * D, h * D, 0.0f, B, D);
        be->axpby_rows(be, in + t * T + D, h * T, 1.0f, futr + (L + t) * W, (L + h) * W, 0.0f, B, W);
    }
    return in;
}

fc_status fc_tide_forward(fc_model *m, float *forecast, const float *insample, const float *insample_mask,
                          size_t B) {
    (void)insample_mask;   /* as neuralforecast's TiDE */
    fc_backend *be = m->be;
    fc_tide_plan *p = &m->tide;
    size_t HQ = m->cfg.h * m->cfg.n_outputs;
    fc_linear_call skip = fc_model_linear_call(m, &m->lin[p->global_skip], insample, ACT(m, p->a_skip), B);
    FC_TRY(be->linear_forward(be, &skip));
    p->input = insample;
    const float *futr, *x;
    FC_TRY(encoder_input(m, insample, B, &futr));
    x = ACT(m, p->a_ein);
    for (int i = 0; i < m->cfg.num_encoder_layers; i++) FC_TRY(fc_resmlp_forward(m, &p->enc[i], x, B, &x));
    for (int i = 0; i < m->cfg.num_decoder_layers; i++) FC_TRY(fc_resmlp_forward(m, &p->dec[i], x, B, &x));
    const float *tin = temporal_input(m, x, futr, B);
    FC_TRY(fc_resmlp_forward(m, &p->temporal, tin, B, &x));
    be->axpby_rows(be, forecast, HQ, 1.0f, x, HQ, 0.0f, B, HQ);
    be->axpby_rows(be, forecast, HQ, 1.0f, ACT(m, p->a_skip), HQ, 1.0f, B, HQ);
    return FC_OK;
}

/* The input a block read in the forward. */
static const float *block_input(fc_model *m, const fc_resmlp *r) {
    const fc_tide_plan *p = &m->tide;
    const fc_resmlp *prev = NULL;
    if (r == &p->temporal) {
        const fc_resmlp *d = &p->dec[m->cfg.num_decoder_layers - 1];
        return p->has_futr_proj ? ACT(m, p->a_tin) : ACT(m, d->layernorm ? d->a_out : d->a_pre);
    }
    for (int i = 0; i < m->cfg.num_encoder_layers && r != &p->enc[0]; i++)
        if (r == &p->enc[i]) prev = &p->enc[i - 1];
    for (int i = 0; i < m->cfg.num_decoder_layers; i++)
        if (r == &p->dec[i]) prev = i ? &p->dec[i - 1] : &p->enc[m->cfg.num_encoder_layers - 1];
    if (!prev) return ACT(m, p->a_ein);
    return ACT(m, prev->layernorm ? prev->a_out : prev->a_pre);
}

/* Back through the temporal decoder: *ddec gets d of the decoded features
 * (B, h D) (in s_dtin); with future columns their part goes to s_dfutr. */
static fc_status temporal_backward(fc_model *m, float *dforecast, size_t B, float **ddec) {
    const fc_model_config *c = &m->cfg;
    fc_backend *be = m->be;
    fc_tide_plan *p = &m->tide;
    size_t L = c->input_size, h = c->h, W = c->temporal_width, D = c->decoder_output_dim, T = D + W;
    float *scratch[4] = {SCR(m, p->s_r[0]), SCR(m, p->s_r[1]), SCR(m, p->s_r[2]), SCR(m, p->s_r[3])};
    float *dtin = SCR(m, p->s_dtin);
    FC_TRY(fc_resmlp_backward(m, &p->temporal, block_input(m, &p->temporal), dforecast, dtin, scratch, B));
    *ddec = dtin;
    if (!p->has_futr_proj) return FC_OK;
    float *dd = SCR(m, p->s_dein), *df = SCR(m, p->s_dfutr);
    be->fill(be, df, 0.0f, B * (L + h) * W);
    for (size_t t = 0; t < h; t++) {
        be->axpby_rows(be, dd + t * D, h * D, 1.0f, dtin + t * T, h * T, 0.0f, B, D);
        be->axpby_rows(be, df + (L + t) * W, (L + h) * W, 1.0f, dtin + t * T + D, h * T, 0.0f, B, W);
    }
    be->axpby_rows(be, dtin, h * D, 1.0f, dd, h * D, 0.0f, B, h * D);   /* dtin now holds d decoded (B, h D) */
    return FC_OK;
}

/* Back through the projections from d encoder input (B, ein) in de. */
static fc_status projections_backward(fc_model *m, const float *de, size_t B) {
    const fc_model_config *c = &m->cfg;
    fc_backend *be = m->be;
    fc_tide_plan *p = &m->tide;
    size_t L = c->input_size, h = c->h, W = c->temporal_width, ld = p->enc[0].in, col = L;
    float *scratch[4] = {SCR(m, p->s_r[0]), SCR(m, p->s_r[1]), SCR(m, p->s_r[2]), SCR(m, p->s_r[3])};
    float *dproj = SCR(m, p->s_dtin);   /* free again */
    if (p->has_hist_proj) {
        be->axpby_rows(be, dproj, L * W, 1.0f, de + col, ld, 0.0f, B, L * W);
        FC_TRY(fc_resmlp_backward(m, &p->hist_proj, m->exog.hist, dproj, NULL, scratch, B));
        col += L * W;
    }
    if (p->has_futr_proj) {   /* its horizon part already holds the temporal decoder's share */
        float *df = SCR(m, p->s_dfutr);
        be->axpby_rows(be, df, (L + h) * W, 1.0f, de + col, ld, 1.0f, B, (L + h) * W);
        FC_TRY(fc_resmlp_backward(m, &p->futr_proj, m->exog.futr, df, NULL, scratch, B));
    }
    return FC_OK;
}

/* The other of the two gradient buffers that alternate through the stacks. */
static float *other(fc_model *m, const float *d) {
    float *a = SCR(m, m->tide.s_dein), *b = SCR(m, m->tide.s_dtin);
    return d == a ? b : a;
}

fc_status fc_tide_backward(fc_model *m, float *dforecast, size_t B) {
    fc_backend *be = m->be;
    fc_tide_plan *p = &m->tide;
    size_t HQ = m->cfg.h * m->cfg.n_outputs, ein = p->enc[0].in;
    float *scratch[4] = {SCR(m, p->s_r[0]), SCR(m, p->s_r[1]), SCR(m, p->s_r[2]), SCR(m, p->s_r[3])};
    float *dskip = SCR(m, p->s_dtmp), *d;
    be->axpby_rows(be, dskip, HQ, 1.0f, dforecast, HQ, 0.0f, B, HQ);   /* the global skip's share */
    FC_TRY(temporal_backward(m, dforecast, B, &d));
    for (int i = m->cfg.num_decoder_layers - 1; i >= 0; i--) {
        float *dx = other(m, d);
        FC_TRY(fc_resmlp_backward(m, &p->dec[i], block_input(m, &p->dec[i]), d, dx, scratch, B));
        d = dx;
    }
    for (int i = m->cfg.num_encoder_layers - 1; i >= 0; i--) {
        float *dx = other(m, d);
        FC_TRY(fc_resmlp_backward(m, &p->enc[i], block_input(m, &p->enc[i]), d, dx, scratch, B));
        d = dx;
    }
    if (d != SCR(m, p->s_dein)) be->axpby_rows(be, SCR(m, p->s_dein), ein, 1.0f, d, ein, 0.0f, B, ein);
    FC_TRY(projections_backward(m, SCR(m, p->s_dein), B));
    const fc_linear *gs = &m->lin[p->global_skip];
    fc_linear_call call = fc_model_linear_call(m, gs, p->input, ACT(m, p->a_skip), B);
    return fc_model_linear_backward(m, &call, gs, dskip, NULL);
}

/* TiDE's LayerNorm weights and biases start at 1 and 0 (init_constant):
 * nothing else to fill. */
fc_status fc_tide_fill_buffers(fc_model *m) {
    (void)m;
    return FC_OK;
}

void fc_tide_config_to_json(const fc_model_config *c, json_t *o) {
    json_object_set_new(o, "hidden_size", json_integer((json_int_t)c->hidden_size));
    json_object_set_new(o, "decoder_output_dim", json_integer((json_int_t)c->decoder_output_dim));
    json_object_set_new(o, "temporal_decoder_dim", json_integer((json_int_t)c->temporal_decoder_dim));
    json_object_set_new(o, "dropout", json_real(c->dropout));
    json_object_set_new(o, "layernorm", json_boolean(c->layernorm));
    json_object_set_new(o, "num_encoder_layers", json_integer(c->num_encoder_layers));
    json_object_set_new(o, "num_decoder_layers", json_integer(c->num_decoder_layers));
    json_object_set_new(o, "temporal_width", json_integer((json_int_t)c->temporal_width));
}

fc_status fc_tide_config_from_json(json_t *o, fc_model_config *c, const char *where) {
    size_t enc = (size_t)c->num_encoder_layers, dec = (size_t)c->num_decoder_layers;
    FC_TRY(fc_json_get_size(o, "hidden_size", &c->hidden_size, 0, where));
    FC_TRY(fc_json_get_size(o, "decoder_output_dim", &c->decoder_output_dim, 0, where));
    FC_TRY(fc_json_get_size(o, "temporal_decoder_dim", &c->temporal_decoder_dim, 0, where));
    FC_TRY(fc_json_get_size(o, "temporal_width", &c->temporal_width, 0, where));
    FC_TRY(fc_json_get_size(o, "num_encoder_layers", &enc, 0, where));
    FC_TRY(fc_json_get_size(o, "num_decoder_layers", &dec, 0, where));
    c->num_encoder_layers = (int)enc;
    c->num_decoder_layers = (int)dec;
    FC_TRY(fc_json_get_bool(o, "layernorm", &c->layernorm, where));
    return fc_json_get_number(o, "dropout", &c->dropout, where);
}

/* Its flags (--hidden-size is MLP's row); --dropout is PatchTST's too. */
static const fc_arch_option ARCH[] = {
    FC_ARCH_SIZE("decoder-output-dim", decoder_output_dim, 1, FC_MAX_DIM, "N", "TiDE features per horizon step (32)"),
    FC_ARCH_SIZE("temporal-decoder-dim", temporal_decoder_dim, 1, FC_MAX_DIM, "N", "TiDE temporal decoder width (128)"),
    FC_ARCH_SIZE("temporal-width", temporal_width, 1, FC_MAX_DIM, "N", "TiDE projected width of the exogenous columns (4)"),
    FC_ARCH_SIZE("num-encoder-layers", num_encoder_layers, 1, FC_TIDE_MAX_LAYERS, "N", "TiDE dense encoder blocks (1)"),
    FC_ARCH_SIZE("num-decoder-layers", num_decoder_layers, 1, FC_TIDE_MAX_LAYERS, "N", "TiDE dense decoder blocks (1)"),
    FC_ARCH_SWITCH("layernorm", layernorm, "TiDE: layer norm after each residual block (on)"),
    FC_ARCH_PROBABILITY("dropout", dropout, "TiDE (0.3) and PatchTST (0.2): dropout probability in [0, 1) while training"),
};
const fc_arch_option_rows fc_tide_arch_options = FC_ARCH_ROWS(ARCH);
