/* LSTM as neuralforecast's LSTM (recurrent=False, its default): an
 * encoder nn.LSTM over the input window, then an MLP decoder applied at
 * each of the h last steps:
 *
 *   x_t   = [y_t | hist_t (X) | stat (S) | futr_t (F)]           t < L
 *   layer k: gates_t = x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh  (i, f, g, o)
 *            c_t = sig(f) c_{t-1} + sig(i) tanh(g);  h_t = sig(o) tanh(c_t)
 *   top hidden states of the last h steps (h <= L), or, when h > L, all L
 *   of them mapped to h steps by upsample_sequence, a Linear(L, h) over time;
 *   each step's [hidden | futr_{L+t}] through the decoder MLP (decoder_layers
 *   Linear layers with ReLU between them) to the step's Q outputs.
 *
 * The recurrence stays in the backend: per step one matrix product
 * (h_{t-1} W_hh^T, added into that step's gates) and one lstm_cell call,
 * so a GPU runs the whole loop without the host reading anything. The
 * input projections of all steps are one dense layer over B L rows (mixed
 * precision applies to them and to the decoder); the recurrent products
 * stay fp32. Backward is back-propagation through time, step by step in
 * reverse, with the weight gradient of W_hh accumulated per step and the
 * bias b_hh's as one product of the gate gradients with a row of ones.
 *
 * Tensor names are nn.LSTM's and neuralforecast's: hist_encoder.weight_ih_l0,
 * weight_hh_l0, bias_ih_l0, bias_hh_l0, ...; mlp_decoder.layers.<3 i>.*;
 * upsample_sequence.*. This file is LSTM's row of the kind table. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "core/error.h"
#include "models/model_kinds.h"

#define ACT(m, off) ((m)->acts + (off) * (m)->capacity)
#define SCR(m, off) ((m)->scratch + (off) * (m)->capacity)
#define PAR(m, t) ((m)->params + (m)->tensors[t].offset)
#define GRAD(m, t) ((m)->grads + (m)->tensors[t].offset)

/* LSTM(): 2 encoder layers of 128, a decoder of 2 layers, 128 wide. */
void fc_lstm_defaults(fc_model_config *c) {
    c->encoder_n_layers = 2;
    c->encoder_hidden_size = 128;
    c->decoder_layers = 2;
    c->decoder_hidden_size = 128;
}

fc_status fc_lstm_check_config(const fc_model_config *c) {
    if (c->encoder_n_layers < 1 || c->encoder_n_layers > FC_LSTM_MAX_LAYERS)
        return fc_error(FC_ERR_INVALID, "LSTM: encoder_n_layers must be 1 to %d (got %d)", FC_LSTM_MAX_LAYERS,
                        c->encoder_n_layers);
    if (c->decoder_layers < 1 || c->decoder_layers > FC_LSTM_MAX_LAYERS)
        return fc_error(FC_ERR_INVALID, "LSTM: decoder_layers must be 1 to %d (got %d)", FC_LSTM_MAX_LAYERS,
                        c->decoder_layers);
    if (c->encoder_hidden_size < 1 || c->encoder_hidden_size > FC_MAX_DIM || c->decoder_hidden_size < 1 ||
        c->decoder_hidden_size > FC_MAX_DIM)
        return fc_error(FC_ERR_INVALID, "LSTM: encoder_hidden_size and decoder_hidden_size must be 1 to %zu",
                        FC_MAX_DIM);
    return FC_OK;
}

static size_t encoder_inputs(const fc_model_config *c) {
    return 1 + (size_t)(c->hist_exog.n + c->stat_exog.n + c->futr_exog.n);
}

static size_t max2(size_t a, size_t b) { return a > b ? a : b; }

/* nn.LSTM's tensors of layer k, all initialised U(-1/sqrt(H), 1/sqrt(H)). */
static void add_encoder_layer(fc_model *m, int k, size_t in) {
    size_t H = m->cfg.encoder_hidden_size, L = m->cfg.input_size;
    char w_ih[64], w_hh[64], b_ih[64], b_hh[64];
    snprintf(w_ih, sizeof w_ih, "hist_encoder.weight_ih_l%d", k);
    snprintf(w_hh, sizeof w_hh, "hist_encoder.weight_hh_l%d", k);
    snprintf(b_ih, sizeof b_ih, "hist_encoder.bias_ih_l%d", k);
    snprintf(b_hh, sizeof b_hh, "hist_encoder.bias_hh_l%d", k);
    fc_linear *l = &m->lin[m->n_linear++];
    fc_model_add_linear_rows(m, l, w_ih, b_ih, in, 4 * H, FC_ACT_NONE, L);
    m->lstm.w_hh[k] = fc_model_add_tensor(m, w_hh, 2, (int64_t)(4 * H), (int64_t)H, 1);
    m->lstm.b_hh[k] = fc_model_add_tensor(m, b_hh, 1, (int64_t)(4 * H), 1, 1);
    size_t bound_of[4] = {l->w, m->lstm.w_hh[k], l->b, m->lstm.b_hh[k]};
    for (int i = 0; i < 4; i++) m->tensors[bound_of[i]].init_bound = 1.0 / sqrt((double)H);
}

/* neuralforecast's MLP decoder: Linear, ReLU, Dropout per hidden layer
 * (state_dict indices 0, 3, 6, ...), then Linear to the Q outputs. */
static void add_decoder(fc_model *m) {
    const fc_model_config *c = &m->cfg;
    size_t in = c->encoder_hidden_size + (size_t)c->futr_exog.n, w = c->decoder_hidden_size;
    m->lstm.first_decoder = m->n_linear;
    for (int i = 0; i < c->decoder_layers; i++) {
        int last = i + 1 == c->decoder_layers;
        char weight[64], bias[64];
        snprintf(weight, sizeof weight, "mlp_decoder.layers.%d.weight", 3 * i);
        snprintf(bias, sizeof bias, "mlp_decoder.layers.%d.bias", 3 * i);
        fc_model_add_linear_rows(m, &m->lin[m->n_linear++], weight, bias, i ? w : in, last ? c->n_outputs : w,
                                 last ? FC_ACT_NONE : FC_ACT_RELU, c->h);
    }
}

static void plan_activations(fc_model *m) {
    const fc_model_config *c = &m->cfg;
    fc_lstm_plan *p = &m->lstm;
    size_t L = c->input_size, h = c->h, H = c->encoder_hidden_size, Cin = encoder_inputs(c);
    size_t F = (size_t)c->futr_exog.n, D = c->decoder_hidden_size;
    if (Cin > 1) {
        p->a_in = fc_model_plan_act(m, L * Cin);
        p->a_inT = fc_model_plan_act(m, L * Cin);
        p->a_tmp = fc_model_plan_act(m, L);
    }
    p->a_ones = fc_model_plan_act(m, L);
    for (int k = 0; k < c->encoder_n_layers; k++) {
        p->a_gates[k] = fc_model_plan_act(m, L * 4 * H);
        p->a_c[k] = fc_model_plan_act(m, L * H);
        p->a_h[k] = fc_model_plan_act(m, L * H);
    }
    if (p->upsample >= 0) {
        p->a_perm = fc_model_plan_act(m, H * L);
        p->a_up = fc_model_plan_act(m, H * h);
        p->a_upT = fc_model_plan_act(m, h * H);
    }
    p->a_dec_in = fc_model_plan_act(m, h * (H + F));
    for (int i = 0; i + 1 < c->decoder_layers; i++) p->a_dec[i] = fc_model_plan_act(m, h * D);
}

static void plan_scratch(fc_model *m) {
    const fc_model_config *c = &m->cfg;
    fc_lstm_plan *p = &m->lstm;
    size_t L = c->input_size, h = c->h, H = c->encoder_hidden_size, F = (size_t)c->futr_exog.n;
    size_t dec = h * max2(max2(c->decoder_hidden_size, H + F), c->n_outputs);
    p->s_dG = fc_model_plan_scratch(m, L * 4 * H);
    p->s_dH = fc_model_plan_scratch(m, L * H);
    p->s_dh = fc_model_plan_scratch(m, H);
    p->s_dc = fc_model_plan_scratch(m, H);
    p->s_ping = fc_model_plan_scratch(m, dec);
    p->s_pong = fc_model_plan_scratch(m, dec);
    if (p->upsample >= 0) {
        p->s_up1 = fc_model_plan_scratch(m, h * H);
        p->s_up2 = fc_model_plan_scratch(m, H * h);
        p->s_up3 = fc_model_plan_scratch(m, H * L);
    }
}

fc_status fc_lstm_build(fc_model *m) {
    const fc_model_config *c = &m->cfg;
    size_t H = c->encoder_hidden_size;
    m->lstm.upsample = -1;
    for (int k = 0; k < c->encoder_n_layers; k++) add_encoder_layer(m, k, k ? H : encoder_inputs(c));
    add_decoder(m);
    if (c->h > c->input_size) {   /* registered after the decoder, as in the state_dict */
        m->lstm.upsample = m->n_linear;
        fc_model_add_linear_rows(m, &m->lin[m->n_linear++], "upsample_sequence.weight", "upsample_sequence.bias",
                                 c->input_size, c->h, FC_ACT_NONE, H);
    }
    plan_activations(m);
    plan_scratch(m);
    return FC_OK;
}

/* The encoder input (B, L, Cin): built channel-major (B, Cin, L), then
 * transposed; y alone is read where it is. */
static const float *encoder_input(fc_model *m, const float *insample, size_t B) {
    const fc_model_config *c = &m->cfg;
    fc_backend *be = m->be;
    fc_lstm_plan *p = &m->lstm;
    size_t L = c->input_size, h = c->h, Cin = encoder_inputs(c);
    size_t X = (size_t)c->hist_exog.n, S = (size_t)c->stat_exog.n, F = (size_t)c->futr_exog.n;
    if (Cin == 1) return insample;
    float *T = ACT(m, p->a_inT), *tmp = ACT(m, p->a_tmp);
    size_t ld = Cin * L;
    be->axpby_rows(be, T, ld, 1.0f, insample, L, 0.0f, B, L);
    if (X) be->transpose_rows(be, T + L, ld, m->exog.hist, L * X, B, L, X);
    for (size_t s = 0; s < S; s++) {
        be->broadcast_col(be, tmp, m->exog.stat, S, s, B, L);
        be->axpby_rows(be, T + (1 + X + s) * L, ld, 1.0f, tmp, L, 0.0f, B, L);
    }
    if (F) be->transpose_rows(be, T + (1 + X + S) * L, ld, m->exog.futr, (L + h) * F, B, L, F);
    be->transpose_rows(be, ACT(m, p->a_in), L * Cin, T, ld, B, Cin, L);
    return ACT(m, p->a_in);
}

/* Layer k over the window: input projection of every step at once, then
 * the recurrence. */
static fc_status encoder_layer(fc_model *m, int k, const float *x, size_t B) {
    fc_backend *be = m->be;
    fc_lstm_plan *p = &m->lstm;
    size_t L = m->cfg.input_size, H = m->cfg.encoder_hidden_size, G4 = 4 * H;
    float *G = ACT(m, p->a_gates[k]), *c = ACT(m, p->a_c[k]), *hs = ACT(m, p->a_h[k]);
    fc_linear_call call = fc_model_linear_call(m, &m->lin[k], x, G, B * L);
    FC_TRY(be->linear_forward(be, &call));
    be->axpby_rows(be, G, G4, 1.0f, PAR(m, p->b_hh[k]), 0, 1.0f, B * L, G4);   /* + b_hh on every row */
    for (size_t t = 0; t < L; t++) {
        float *Gt = G + t * G4;
        if (t > 0)
            FC_TRY(be->gemm(be, 0, 1, B, G4, H, 1.0f, hs + (t - 1) * H, L * H, PAR(m, p->w_hh[k]), H, 1.0f, Gt,
                            L * G4));
        be->lstm_cell_forward(be, Gt, L * G4, t ? c + (t - 1) * H : NULL, c + t * H, L * H, hs + t * H, L * H, B,
                              H);
    }
    return FC_OK;
}

/* The decoder's input (B, h, H + F): the top layer's last h hidden states
 * (or all L upsampled to h steps) beside the horizon's future values. */
static fc_status decoder_input(fc_model *m, size_t B) {
    const fc_model_config *c = &m->cfg;
    fc_backend *be = m->be;
    fc_lstm_plan *p = &m->lstm;
    size_t L = c->input_size, h = c->h, H = c->encoder_hidden_size, F = (size_t)c->futr_exog.n, W = H + F;
    const float *top = ACT(m, p->a_h[c->encoder_n_layers - 1]), *src = top + (L - h) * H;
    size_t lds = L * H;
    float *in = ACT(m, p->a_dec_in);
    if (p->upsample >= 0) {                   /* (B, L, H) -> (B, H, L) -> Linear(L, h) -> (B, h, H) */
        be->transpose_rows(be, ACT(m, p->a_perm), H * L, top, L * H, B, L, H);
        fc_linear_call call = fc_model_linear_call(m, &m->lin[p->upsample], ACT(m, p->a_perm), ACT(m, p->a_up), B * H);
        FC_TRY(be->linear_forward(be, &call));
        be->transpose_rows(be, ACT(m, p->a_upT), h * H, ACT(m, p->a_up), H * h, B, H, h);
        src = ACT(m, p->a_upT);
        lds = h * H;
    }
    if (!F) {
        be->axpby_rows(be, in, h * H, 1.0f, src, lds, 0.0f, B, h * H);
        return FC_OK;
    }
    for (size_t t = 0; t < h; t++) {
        be->axpby_rows(be, in + t * W, h * W, 1.0f, src + t * H, lds, 0.0f, B, H);
        be->axpby_rows(be, in + t * W + H, h * W, 1.0f, m->exog.futr + (L + t) * F, (L + h) * F, 0.0f, B, F);
    }
    return FC_OK;
}

static fc_status decoder_forward(fc_model *m, float *forecast, size_t B) {
    const fc_lstm_plan *p = &m->lstm;
    const float *x = ACT(m, p->a_dec_in);
    int n = m->cfg.decoder_layers;
    for (int i = 0; i < n; i++) {
        float *y = i + 1 < n ? ACT(m, p->a_dec[i]) : forecast;
        fc_linear_call call = fc_model_linear_call(m, &m->lin[p->first_decoder + i], x, y, B * m->cfg.h);
        FC_TRY(m->be->linear_forward(m->be, &call));
        x = y;
    }
    return FC_OK;
}

fc_status fc_lstm_forward(fc_model *m, float *forecast, const float *insample, const float *insample_mask,
                          size_t B) {
    (void)insample_mask;   /* neuralforecast's LSTM reads every point too */
    const float *x = encoder_input(m, insample, B);
    m->lstm.input = x;
    m->be->fill(m->be, ACT(m, m->lstm.a_ones), 1.0f, B * m->cfg.input_size);
    for (int k = 0; k < m->cfg.encoder_n_layers; k++) {
        FC_TRY(encoder_layer(m, k, x, B));
        x = ACT(m, m->lstm.a_h[k]);
    }
    FC_TRY(decoder_input(m, B));
    return decoder_forward(m, forecast, B);
}

/* Back through the decoder: d of its input (B, h, H + F) into s_ping or
 * s_pong; returns which. */
static fc_status decoder_backward(fc_model *m, float *dforecast, size_t B, float **dinput) {
    const fc_lstm_plan *p = &m->lstm;
    float *dy = dforecast, *bufs[2] = {SCR(m, p->s_ping), SCR(m, p->s_pong)};
    int n = m->cfg.decoder_layers;
    for (int i = n - 1; i >= 0; i--) {
        const fc_linear *l = &m->lin[p->first_decoder + i];
        const float *x = i ? ACT(m, p->a_dec[i - 1]) : ACT(m, p->a_dec_in);
        float *y = i + 1 < n ? ACT(m, p->a_dec[i]) : NULL;   /* NULL: no ReLU reads it */
        float *dx = bufs[i & 1];
        fc_linear_call call = fc_model_linear_call(m, l, x, y, B * m->cfg.h);
        FC_TRY(fc_model_linear_backward(m, &call, l, dy, dx));
        dy = dx;
    }
    *dinput = dy;
    return FC_OK;
}

/* d loss / d top hidden sequence (B, L, H) into s_dH from the decoder
 * input's gradient (its hidden columns). */
static fc_status top_gradient(fc_model *m, const float *ddec, size_t B) {
    const fc_model_config *c = &m->cfg;
    fc_backend *be = m->be;
    const fc_lstm_plan *p = &m->lstm;
    size_t L = c->input_size, h = c->h, H = c->encoder_hidden_size, W = H + (size_t)c->futr_exog.n;
    float *dH = SCR(m, p->s_dH);
    be->fill(be, dH, 0.0f, B * L * H);
    float *dst = dH + (L - h) * H;
    size_t ldd = L * H;
    if (p->upsample >= 0) { dst = SCR(m, p->s_up1); ldd = h * H; }
    for (size_t t = 0; t < h; t++) be->axpby_rows(be, dst + t * H, ldd, 1.0f, ddec + t * W, h * W, 0.0f, B, H);
    if (p->upsample < 0) return FC_OK;
    const fc_linear *up = &m->lin[p->upsample];   /* (B, h, H) -> (B, H, h) -> Linear back -> (B, H, L) -> (B, L, H) */
    be->transpose_rows(be, SCR(m, p->s_up2), H * h, SCR(m, p->s_up1), h * H, B, h, H);
    fc_linear_call call = fc_model_linear_call(m, up, ACT(m, p->a_perm), ACT(m, p->a_up), B * H);
    FC_TRY(fc_model_linear_backward(m, &call, up, SCR(m, p->s_up2), SCR(m, p->s_up3)));
    be->transpose_rows(be, dH, L * H, SCR(m, p->s_up3), H * L, B, H, L);
    return FC_OK;
}

/* Back through time in layer k, from d loss / d its hidden sequence in
 * s_dH; leaves d gates in s_dG, accumulates W_hh's and b_hh's gradients. */
static fc_status recurrence_backward(fc_model *m, int k, size_t B) {
    fc_backend *be = m->be;
    const fc_lstm_plan *p = &m->lstm;
    size_t L = m->cfg.input_size, H = m->cfg.encoder_hidden_size, G4 = 4 * H;
    const float *G = ACT(m, p->a_gates[k]), *c = ACT(m, p->a_c[k]), *hs = ACT(m, p->a_h[k]);
    float *dG = SCR(m, p->s_dG), *dH = SCR(m, p->s_dH), *dh = SCR(m, p->s_dh), *dc = SCR(m, p->s_dc);
    be->fill(be, dc, 0.0f, B * H);
    for (size_t t = L; t-- > 0;) {
        if (t + 1 < L) be->axpby_rows(be, dH + t * H, L * H, 1.0f, dh, H, 1.0f, B, H);   /* + the path through h_t */
        be->lstm_cell_backward(be, dG + t * G4, L * G4, G + t * G4, L * G4, t ? c + (t - 1) * H : NULL, c + t * H,
                               L * H, dH + t * H, L * H, dc, H, B, H);
        if (t == 0) break;
        FC_TRY(be->gemm(be, 0, 0, B, H, G4, 1.0f, dG + t * G4, L * G4, PAR(m, p->w_hh[k]), H, 0.0f, dh, H));
        FC_TRY(be->gemm(be, 1, 0, G4, H, B, 1.0f, dG + t * G4, L * G4, hs + (t - 1) * H, L * H, 1.0f,
                        GRAD(m, p->w_hh[k]), H));
    }
    /* d b_hh = the column sums of d gates over every row: ones (1, B L) . dG (B L, 4H) */
    return be->gemm(be, 0, 0, 1, G4, B * L, 1.0f, ACT(m, p->a_ones), B * L, dG, G4, 1.0f, GRAD(m, p->b_hh[k]), G4);
}

fc_status fc_lstm_backward(fc_model *m, float *dforecast, size_t B) {
    const fc_lstm_plan *p = &m->lstm;
    size_t L = m->cfg.input_size;
    float *ddec;
    FC_TRY(decoder_backward(m, dforecast, B, &ddec));
    FC_TRY(top_gradient(m, ddec, B));
    for (int k = m->cfg.encoder_n_layers - 1; k >= 0; k--) {
        FC_TRY(recurrence_backward(m, k, B));
        const float *x = k ? ACT(m, p->a_h[k - 1]) : p->input;
        fc_linear_call call = fc_model_linear_call(m, &m->lin[k], x, ACT(m, p->a_gates[k]), B * L);
        /* the layer below's d hidden sequence overwrites this layer's, which is used up */
        FC_TRY(fc_model_linear_backward(m, &call, &m->lin[k], SCR(m, p->s_dG), k ? SCR(m, p->s_dH) : NULL));
    }
    return FC_OK;
}

/* LSTM has no non-trainable tensors. */
fc_status fc_lstm_fill_buffers(fc_model *m) {
    (void)m;
    return FC_OK;
}

void fc_lstm_config_to_json(const fc_model_config *c, json_t *o) {
    json_object_set_new(o, "encoder_n_layers", json_integer(c->encoder_n_layers));
    json_object_set_new(o, "encoder_hidden_size", json_integer((json_int_t)c->encoder_hidden_size));
    json_object_set_new(o, "decoder_hidden_size", json_integer((json_int_t)c->decoder_hidden_size));
    json_object_set_new(o, "decoder_layers", json_integer(c->decoder_layers));
}

fc_status fc_lstm_config_from_json(json_t *o, fc_model_config *c, const char *where) {
    size_t enc = (size_t)c->encoder_n_layers, dec = (size_t)c->decoder_layers;
    FC_TRY(fc_json_get_size(o, "encoder_n_layers", &enc, 0, where));
    FC_TRY(fc_json_get_size(o, "encoder_hidden_size", &c->encoder_hidden_size, 0, where));
    FC_TRY(fc_json_get_size(o, "decoder_hidden_size", &c->decoder_hidden_size, 0, where));
    FC_TRY(fc_json_get_size(o, "decoder_layers", &dec, 0, where));
    c->encoder_n_layers = (int)enc;
    c->decoder_layers = (int)dec;
    return FC_OK;
}

static const fc_arch_option ARCH[] = {
    FC_ARCH_SIZE("encoder-n-layers", encoder_n_layers, 1, FC_LSTM_MAX_LAYERS, "N", "LSTM encoder layers (2)"),
    FC_ARCH_SIZE("encoder-hidden-size", encoder_hidden_size, 1, FC_MAX_DIM, "N", "LSTM encoder width (128)"),
    FC_ARCH_SIZE("decoder-hidden-size", decoder_hidden_size, 1, FC_MAX_DIM, "N", "LSTM decoder MLP width (128)"),
    FC_ARCH_SIZE("decoder-layers", decoder_layers, 1, FC_LSTM_MAX_LAYERS, "N",
                 "LSTM decoder MLP layers, the output one included (2)"),
};
const fc_arch_option_rows fc_lstm_arch_options = FC_ARCH_ROWS(ARCH);
