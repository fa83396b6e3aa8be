/* PatchTST as neuralforecast's PatchTST (models/patchtst.py), univariate
 * (channel-independent: every series is its own channel, c_in = 1):
 *
 *   z       = RevIN(y): (y - center) / stdev, center the last value
 *             (revin_subtract_last) or the mean [* w + b with revin_affine]
 *   patches = z padded at the end with `stride` copies of its last value
 *             (ReplicationPad1d), cut into P patches of patch_len at stride
 *   u       = dropout(W_P(patch) + W_pos)                  (P, D) per window
 *   encoder layers (post-norm, neuralforecast's default):
 *     s1 = x + drop(drop(to_out(attention(x))));  a1 = BN_attn(s1)
 *     s2 = a1 + drop(ff3(drop(act(ff0(a1)))));   out = BN_ffn(s2)
 *   or, with batch_normalization (which neuralforecast passes on as
 *   pre_norm; the norm is BatchNorm either way):
 *     x' = BN_attn(x);  s1 = x' + drop(...attention(x')...)
 *     a1 = BN_ffn(s1);  out = s2 = a1 + drop(ff3(...ff0(a1)))
 *   with res_attention, each layer's pre-softmax scores add the previous
 *   layer's; BatchNorm normalises each of the D channels over the batch's
 *   B P tokens while training (running statistics at inference);
 *   head    = Linear(flatten((P, D) -> (D, P)), h Q), dropped, then RevIN's
 *             denormalisation of all h Q outputs.
 *
 * Every step is a backend call (the attention, the norms, RevIN and the
 * patching are ops of their own, kernels/), so a GPU runs the whole model;
 * the dense layers run on B P token rows, in mixed precision when asked.
 * Dropout masks come from the step's Philox seed and each site's offset:
 * the backward redraws them. This file is PatchTST's row of the kind table;
 * tensor names are neuralforecast's state_dict's (model.backbone..., BatchNorm
 * buffers included). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "models/model_kinds.h"

#define ACT(m, off) ((m)->acts + (off) * (m)->capacity)
#define FIX(m, off) ((m)->acts + (m)->act_floats * (m)->capacity + (off))
#define SCR(m, off) ((m)->scratch + (off) * (m)->capacity)
#define PAR(m, t) ((m)->params + (m)->tensors[t].offset)
#define GRAD(m, t) ((m)->grads + (m)->tensors[t].offset)

/* nn.BatchNorm1d's and RevIN's defaults; positional_encoding("zeros")'s bound. */
#define BN_EPS 1e-5f
#define BN_MOMENTUM 0.1f
#define REVIN_EPS 1e-5f
#define W_POS_BOUND 0.02

/* Dropout sites of a layer, each with its own range of the step's stream. */
enum { SITE_ATTN = 0, SITE_PROJ, SITE_RESID_ATTN, SITE_FF, SITE_RESID_FF };
#define SITE_INPUT ((uint64_t)1 << 44)
#define SITE_HEAD ((uint64_t)(FC_PATCHTST_MAX_LAYERS + 2) << 44)

static size_t min2(size_t a, size_t b) { return a < b ? a : b; }

/* PatchTST(): 3 layers of 128 with 16 heads, a feed-forward of 256, patches
 * of 16 at stride 8, RevIN subtracting the last value, dropout 0.2. */
void fc_patchtst_defaults(fc_model_config *c) {
    c->encoder_layers = 3;
    c->n_heads = 16;
    c->hidden_size = 128;
    c->linear_hidden_size = 256;
    c->patch_len = 16;
    c->stride = 8;
    c->dropout = 0.2;
    c->attn_dropout = 0.0;
    c->head_dropout = 0.0;
    c->revin = 1;
    c->revin_affine = 0;
    c->revin_subtract_last = 1;
    c->gelu = 1;
    c->res_attention = 1;
    c->batch_normalization = 0;
    c->learn_pos_embed = 1;
}

static int probability(double p) { return p >= 0.0 && p < 1.0; }

fc_status fc_patchtst_check_config(const fc_model_config *c) {
    if (c->encoder_layers < 1 || c->encoder_layers > FC_PATCHTST_MAX_LAYERS)
        return fc_error(FC_ERR_INVALID, "PatchTST: encoder_layers must be 1 to %d (got %d)", FC_PATCHTST_MAX_LAYERS,
                        c->encoder_layers);
    size_t sizes[4] = {c->hidden_size, c->linear_hidden_size, c->patch_len, c->stride};
    for (int i = 0; i < 4; i++)
        if (sizes[i] < 1 || sizes[i] > FC_MAX_DIM)
            return fc_error(FC_ERR_INVALID, "PatchTST: hidden_size, linear_hidden_size, patch_len and stride must be "
                            "1 to %zu", FC_MAX_DIM);
    if (c->n_heads < 1 || c->hidden_size % (size_t)c->n_heads)
        return fc_error(FC_ERR_INVALID, "PatchTST: n_heads (%d) must divide hidden_size (%zu)", c->n_heads,
                        c->hidden_size);
    if (!probability(c->dropout) || !probability(c->attn_dropout) || !probability(c->head_dropout))
        return fc_error(FC_ERR_INVALID, "PatchTST: dropout, attn_dropout and head_dropout must be in [0, 1)");
    return FC_OK;
}

/* A tensor of constant initial value: nn.BatchNorm1d's and RevIN's weight
 * (1) and bias (0). */
static size_t add_constant(fc_model *m, const char *name, int64_t n, float value) {
    size_t t = fc_model_add_tensor(m, name, 1, n, 1, 1);
    m->tensors[t].init_constant = 1;
    m->tensors[t].init_value = value;
    return t;
}

/* nn.Sequential(Transpose, BatchNorm1d(D), Transpose) at prefix.1: weight,
 * bias, and the running statistics training changes. */
static void add_batch_norm(fc_model *m, fc_patchtst_layer *y, int i, const char *prefix) {
    char name[128];
    int64_t D = (int64_t)m->cfg.hidden_size;
    snprintf(name, sizeof name, "%s.1.weight", prefix);
    y->bn_w[i] = add_constant(m, name, D, 1.0f);
    snprintf(name, sizeof name, "%s.1.bias", prefix);
    y->bn_b[i] = add_constant(m, name, D, 0.0f);
    snprintf(name, sizeof name, "%s.1.running_mean", prefix);
    y->bn_mean[i] = fc_model_add_tensor(m, name, 1, D, 1, 0);
    snprintf(name, sizeof name, "%s.1.running_var", prefix);
    y->bn_var[i] = fc_model_add_tensor(m, name, 1, D, 1, 0);
    snprintf(name, sizeof name, "%s.1.num_batches_tracked", prefix);
    y->bn_count[i] = fc_model_add_tensor(m, name, 0, 1, 1, 0);   /* a scalar (torch's int64) */
    m->tensors[y->bn_mean[i]].state = m->tensors[y->bn_var[i]].state = m->tensors[y->bn_count[i]].state = 1;
}

/* TSTEncoderLayer l, in state_dict order. */
static void add_encoder_layer(fc_model *m, int l) {
    const fc_model_config *c = &m->cfg;
    fc_patchtst_plan *p = &m->patchtst;
    fc_patchtst_layer *y = &p->layer[l];
    size_t D = c->hidden_size, F = c->linear_hidden_size, P = p->P;
    char prefix[96], name[128];
    snprintf(prefix, sizeof prefix, "model.backbone.encoder.layers.%d", l);
    y->wq = fc_model_add_layer(m, prefix, "self_attn.W_Q", D, D, FC_ACT_NONE, P);
    y->wk = fc_model_add_layer(m, prefix, "self_attn.W_K", D, D, FC_ACT_NONE, P);
    y->wv = fc_model_add_layer(m, prefix, "self_attn.W_V", D, D, FC_ACT_NONE, P);
    snprintf(name, sizeof name, "%s.self_attn.sdp_attn.scale", prefix);   /* a Parameter without gradient */
    y->scale = fc_model_add_tensor(m, name, 0, 1, 1, 0);
    y->to_out = fc_model_add_layer(m, prefix, "self_attn.to_out.0", D, D, FC_ACT_NONE, P);
    snprintf(name, sizeof name, "%s.norm_attn", prefix);
    add_batch_norm(m, y, 0, name);
    y->ff0 = fc_model_add_layer(m, prefix, "ff.0", D, F, c->gelu ? FC_ACT_NONE : FC_ACT_RELU, P);
    y->ff3 = fc_model_add_layer(m, prefix, "ff.3", F, D, FC_ACT_NONE, P);
    snprintf(name, sizeof name, "%s.norm_ffn", prefix);
    add_batch_norm(m, y, 1, name);
    y->drop_offset = (uint64_t)(l + 2) << 44;
}

static void plan_layer(fc_model *m, fc_patchtst_layer *y) {
    const fc_model_config *c = &m->cfg;
    size_t P = m->patchtst.P, PD = P * c->hidden_size, PF = P * c->linear_hidden_size;
    if (c->batch_normalization) y->a_xatt = fc_model_plan_act(m, PD);
    y->a_q = fc_model_plan_act(m, PD);
    y->a_k = fc_model_plan_act(m, PD);
    y->a_v = fc_model_plan_act(m, PD);
    y->a_probs = fc_model_plan_act(m, (size_t)c->n_heads * P * P);
    y->a_att = fc_model_plan_act(m, PD);
    y->a_o = fc_model_plan_act(m, PD);
    y->a_s1 = fc_model_plan_act(m, PD);
    y->a_a1 = fc_model_plan_act(m, PD);
    y->a_f1 = fc_model_plan_act(m, PF);
    y->a_g = fc_model_plan_act(m, PF);
    y->a_f2 = fc_model_plan_act(m, PD);
    y->a_s2 = fc_model_plan_act(m, PD);
    if (!c->batch_normalization) y->a_out = fc_model_plan_act(m, PD);
    for (int i = 0; i < 2; i++) {
        y->f_mean[i] = fc_model_plan_fixed(m, c->hidden_size);
        y->f_rstd[i] = fc_model_plan_fixed(m, c->hidden_size);
    }
}

static void plan(fc_model *m) {
    const fc_model_config *c = &m->cfg;
    fc_patchtst_plan *p = &m->patchtst;
    size_t P = p->P, D = c->hidden_size, PD = P * D, HQ = c->h * c->n_outputs;
    p->a_patches = fc_model_plan_act(m, P * p->patch_len);
    p->a_stats = fc_model_plan_act(m, 2);
    p->a_u = fc_model_plan_act(m, PD);
    p->a_scores = fc_model_plan_act(m, (size_t)c->n_heads * P * P);
    for (int l = 0; l < c->encoder_layers; l++) plan_layer(m, &p->layer[l]);
    p->a_flat = fc_model_plan_act(m, PD);
    p->a_y = fc_model_plan_act(m, HQ);
    p->a_ones = fc_model_plan_act(m, 1);
    p->s_d = fc_model_plan_scratch(m, PD);
    p->s_dt = fc_model_plan_scratch(m, PD);
    p->s_dx = fc_model_plan_scratch(m, PD);
    p->s_dq = fc_model_plan_scratch(m, PD);
    p->s_dk = fc_model_plan_scratch(m, PD);
    p->s_dv = fc_model_plan_scratch(m, PD);
    p->s_dscores = fc_model_plan_scratch(m, (size_t)c->n_heads * P * P);
    p->s_dff = fc_model_plan_scratch(m, P * c->linear_hidden_size);
    p->s_dflat = fc_model_plan_scratch(m, PD);
    if (c->revin && c->revin_affine) p->s_dpatches = fc_model_plan_scratch(m, P * p->patch_len);
}

fc_status fc_patchtst_build(fc_model *m) {
    const fc_model_config *c = &m->cfg;
    fc_patchtst_plan *p = &m->patchtst;
    size_t L = c->input_size, D = c->hidden_size;
    /* PatchTST.__init__: patch_len = min(input_size + stride, patch_len);
     * unfold over the L + stride padded values */
    p->patch_len = min2(L + c->stride, c->patch_len);
    p->P = (L + c->stride - p->patch_len) / c->stride + 1;
    p->E = D / (size_t)c->n_heads;
    if (c->revin && c->revin_affine) {   /* RevIN(1, affine=True): weight then bias, adjacent */
        p->affine = add_constant(m, "model.revin_layer.affine_weight", 1, 1.0f);
        add_constant(m, "model.revin_layer.affine_bias", 1, 0.0f);
    }
    p->w_pos = fc_model_add_tensor(m, "model.backbone.W_pos", 2, (int64_t)p->P, (int64_t)D, c->learn_pos_embed);
    m->tensors[p->w_pos].init_bound = W_POS_BOUND;   /* nn.init.uniform_(-0.02, 0.02), learned or not */
    p->w_p = fc_model_add_layer(m, "model.backbone", "W_P", p->patch_len, D, FC_ACT_NONE, p->P);
    for (int l = 0; l < c->encoder_layers; l++) add_encoder_layer(m, l);
    p->head = fc_model_add_layer(m, "model.head", "linear", D * p->P, c->h * c->n_outputs, FC_ACT_NONE, 1);
    plan(m);
    return FC_OK;
}

/* _ScaledDotProductAttention's scale: torch.tensor(head_dim ** -0.5), a float. */
static float attention_scale(const fc_model *m) { return (float)(1.0 / sqrt((double)m->patchtst.E)); }

/* The running variances start at 1, the scales at 1/sqrt(head width); the
 * rest of the buffers at 0. */
fc_status fc_patchtst_fill_buffers(fc_model *m) {
    fc_backend *be = m->be;
    for (int l = 0; l < m->cfg.encoder_layers; l++) {
        const fc_patchtst_layer *y = &m->patchtst.layer[l];
        for (int i = 0; i < 2; i++) be->fill(be, PAR(m, y->bn_var[i]), 1.0f, m->cfg.hidden_size);
        be->fill(be, PAR(m, y->scale), attention_scale(m), 1);
    }
    return FC_OK;
}

/* ---- forward ---- */

static int dropping(const fc_model *m, double p) { return m->training && p > 0.0; }

/* Inverted dropout of x (n, C) in place at `site` of the step's stream (or nothing). */
static void drop(fc_model *m, float *x, size_t n, size_t C, double p, uint64_t site) {
    if (dropping(m, p)) m->be->dropout(m->be, x, C, x, C, n, C, (float)p, m->dropout_seed, site);
}

static fc_status dense(fc_model *m, int layer, const float *x, float *y, size_t rows) {
    fc_linear_call call = fc_model_linear_call(m, &m->lin[layer], x, y, rows);
    return m->be->linear_forward(m->be, &call);
}

/* Norm i of layer y (0 norm_attn, 1 norm_ffn) from x into out, n token rows. */
static void batch_norm(fc_model *m, const fc_patchtst_layer *y, int i, const float *x, float *out, size_t n) {
    m->be->batch_norm_forward(m->be, out, x, n, m->cfg.hidden_size, PAR(m, y->bn_w[i]), PAR(m, y->bn_b[i]),
                              PAR(m, y->bn_mean[i]), PAR(m, y->bn_var[i]), PAR(m, y->bn_count[i]),
                              FIX(m, y->f_mean[i]), FIX(m, y->f_rstd[i]), m->training, BN_MOMENTUM, BN_EPS);
}

/* The attention sublayer on x (n, D): y->a_o = drop(drop(to_out(attention))). */
static fc_status attention(fc_model *m, const fc_patchtst_layer *y, int first, const float *x, size_t B) {
    const fc_model_config *c = &m->cfg;
    fc_backend *be = m->be;
    const fc_patchtst_plan *p = &m->patchtst;
    size_t P = p->P, D = c->hidden_size, n = B * P;
    float *q = ACT(m, y->a_q), *k = ACT(m, y->a_k), *v = ACT(m, y->a_v), *scores = ACT(m, p->a_scores);
    FC_TRY(dense(m, y->wq, x, q, n));
    FC_TRY(dense(m, y->wk, x, k, n));
    FC_TRY(dense(m, y->wv, x, v, n));
    const float *prev = c->res_attention && !first ? scores : NULL;   /* the previous layer's scores, in place */
    float pa = dropping(m, c->attn_dropout) ? (float)c->attn_dropout : 0.0f;
    be->attention_forward(be, ACT(m, y->a_att), D, scores, ACT(m, y->a_probs), prev, q, k, v, D, B, P,
                          (size_t)c->n_heads, p->E, attention_scale(m), pa, m->dropout_seed,
                          y->drop_offset + ((uint64_t)SITE_ATTN << 40));
    FC_TRY(dense(m, y->to_out, ACT(m, y->a_att), ACT(m, y->a_o), n));
    drop(m, ACT(m, y->a_o), n, D, c->dropout, y->drop_offset + ((uint64_t)SITE_PROJ << 40));
    drop(m, ACT(m, y->a_o), n, D, c->dropout, y->drop_offset + ((uint64_t)SITE_RESID_ATTN << 40));
    return FC_OK;
}

/* The feed-forward sublayer on a1: y->a_f2 = drop(ff3(drop(act(ff0(a1))))). */
static fc_status feed_forward(fc_model *m, const fc_patchtst_layer *y, size_t n) {
    const fc_model_config *c = &m->cfg;
    fc_backend *be = m->be;
    size_t F = c->linear_hidden_size;
    float *f1 = ACT(m, y->a_f1), *g = ACT(m, y->a_g);
    FC_TRY(dense(m, y->ff0, ACT(m, y->a_a1), f1, n));   /* ReLU fused here; GELU its own op */
    if (c->gelu) be->gelu_forward(be, g, f1, n * F);
    else be->axpby_rows(be, g, F, 1.0f, f1, F, 0.0f, n, F);
    drop(m, g, n, F, c->dropout, y->drop_offset + ((uint64_t)SITE_FF << 40));
    FC_TRY(dense(m, y->ff3, g, ACT(m, y->a_f2), n));
    drop(m, ACT(m, y->a_f2), n, c->hidden_size, c->dropout, y->drop_offset + ((uint64_t)SITE_RESID_FF << 40));
    return FC_OK;
}

/* out (n, D) = a + b. */
static void add(fc_backend *be, float *out, const float *a, const float *b, size_t n, size_t D) {
    be->axpby_rows(be, out, D, 1.0f, a, D, 0.0f, n, D);
    be->axpby_rows(be, out, D, 1.0f, b, D, 1.0f, n, D);
}

/* The input of layer l (the previous one's output, or the embedded patches). */
static const float *layer_input(fc_model *m, int l) {
    if (l == 0) return ACT(m, m->patchtst.a_u);
    const fc_patchtst_layer *y = &m->patchtst.layer[l - 1];
    return ACT(m, m->cfg.batch_normalization ? y->a_s2 : y->a_out);
}

/* The input of layer l's attention: its input, or that normalised (pre-norm). */
static const float *attention_input(fc_model *m, int l) {
    return m->cfg.batch_normalization ? ACT(m, m->patchtst.layer[l].a_xatt) : layer_input(m, l);
}

static fc_status layer_forward(fc_model *m, int l, size_t B) {
    const fc_patchtst_layer *y = &m->patchtst.layer[l];
    int pre = m->cfg.batch_normalization;
    size_t n = B * m->patchtst.P, D = m->cfg.hidden_size;
    if (pre) batch_norm(m, y, 0, layer_input(m, l), ACT(m, y->a_xatt), n);
    const float *x = attention_input(m, l);
    FC_TRY(attention(m, y, l == 0, x, B));
    add(m->be, ACT(m, y->a_s1), x, ACT(m, y->a_o), n, D);
    batch_norm(m, y, pre ? 1 : 0, ACT(m, y->a_s1), ACT(m, y->a_a1), n);
    FC_TRY(feed_forward(m, y, n));
    add(m->be, ACT(m, y->a_s2), ACT(m, y->a_a1), ACT(m, y->a_f2), n, D);
    if (!pre) batch_norm(m, y, 1, ACT(m, y->a_s2), ACT(m, y->a_out), n);
    return FC_OK;
}

static const float *affine_of(const fc_model *m) {
    return m->cfg.revin && m->cfg.revin_affine ? PAR(m, m->patchtst.affine) : NULL;
}

/* RevIN, patching, W_P and the positional embedding into a_u. */
static fc_status embed(fc_model *m, const float *insample, size_t B) {
    const fc_model_config *c = &m->cfg;
    fc_backend *be = m->be;
    fc_patchtst_plan *p = &m->patchtst;
    size_t L = c->input_size, P = p->P, D = c->hidden_size, PD = P * D;
    float *u = ACT(m, p->a_u);
    be->revin_patch_forward(be, ACT(m, p->a_patches), ACT(m, p->a_stats), insample, L, B, L, p->patch_len,
                            c->stride, P, c->revin, c->revin_subtract_last, affine_of(m), REVIN_EPS);
    p->input = insample;
    FC_TRY(dense(m, p->w_p, ACT(m, p->a_patches), u, B * P));
    be->axpby_rows(be, u, PD, 1.0f, PAR(m, p->w_pos), 0, 1.0f, B, PD);   /* row stride 0: W_pos to every window */
    drop(m, u, B, PD, c->dropout, SITE_INPUT);
    return FC_OK;
}

fc_status fc_patchtst_forward(fc_model *m, float *forecast, const float *insample, const float *insample_mask,
                              size_t B) {
    (void)insample_mask;   /* as neuralforecast's PatchTST */
    const fc_model_config *c = &m->cfg;
    fc_backend *be = m->be;
    fc_patchtst_plan *p = &m->patchtst;
    size_t P = p->P, D = c->hidden_size, HQ = c->h * c->n_outputs;
    if (m->training && B * P < 2)   /* torch's BatchNorm refuses it too */
        return fc_error(FC_ERR_INVALID, "PatchTST: BatchNorm needs more than one value per channel while training "
                        "(%zu window(s) of %zu patch(es))", B, P);
    FC_TRY(embed(m, insample, B));
    for (int l = 0; l < c->encoder_layers; l++) FC_TRY(layer_forward(m, l, B));
    /* Flatten_Head flattens (D, P): the token rows go to channel-major */
    be->transpose_rows(be, ACT(m, p->a_flat), P * D, layer_input(m, c->encoder_layers), P * D, B, P, D);
    float *y = ACT(m, p->a_y);
    FC_TRY(dense(m, p->head, ACT(m, p->a_flat), y, B));
    drop(m, y, B, HQ, c->head_dropout, SITE_HEAD);
    if (c->revin) be->revin_denorm_forward(be, y, ACT(m, p->a_stats), B, HQ, affine_of(m), REVIN_EPS);
    be->axpby_rows(be, forecast, HQ, 1.0f, y, HQ, 0.0f, B, HQ);
    return FC_OK;
}

/* ---- backward ---- */

static fc_status dense_back(fc_model *m, int layer, const float *x, const float *y, float *dy, float *dx,
                            size_t rows) {
    const fc_linear *l = &m->lin[layer];
    fc_linear_call call = fc_model_linear_call(m, l, x, (float *)y, rows);
    return fc_model_linear_backward(m, &call, l, dy, dx);
}

/* d (n, D) in place through norm i of layer y, whose input was x. */
static void batch_norm_back(fc_model *m, const fc_patchtst_layer *y, int i, const float *x, float *d, size_t n) {
    m->be->batch_norm_backward(m->be, d, d, x, n, m->cfg.hidden_size, PAR(m, y->bn_w[i]), FIX(m, y->f_mean[i]),
                               FIX(m, y->f_rstd[i]), GRAD(m, y->bn_w[i]), GRAD(m, y->bn_b[i]));
}

/* d += d out / d a1 of the feed-forward sublayer, from d (its output's gradient). */
static fc_status feed_forward_back(fc_model *m, const fc_patchtst_layer *y, float *d, size_t n) {
    const fc_model_config *c = &m->cfg;
    fc_backend *be = m->be;
    const fc_patchtst_plan *p = &m->patchtst;
    size_t D = c->hidden_size, F = c->linear_hidden_size;
    float *t = SCR(m, p->s_dt), *dff = SCR(m, p->s_dff), *dx = SCR(m, p->s_dx);
    be->axpby_rows(be, t, D, 1.0f, d, D, 0.0f, n, D);
    drop(m, t, n, D, c->dropout, y->drop_offset + ((uint64_t)SITE_RESID_FF << 40));   /* the same masks again */
    FC_TRY(dense_back(m, y->ff3, ACT(m, y->a_g), NULL, t, dff, n));
    drop(m, dff, n, F, c->dropout, y->drop_offset + ((uint64_t)SITE_FF << 40));
    if (c->gelu) be->gelu_backward(be, dff, dff, ACT(m, y->a_f1), n * F);
    FC_TRY(dense_back(m, y->ff0, ACT(m, y->a_a1), c->gelu ? NULL : ACT(m, y->a_f1), dff, dx, n));
    be->axpby_rows(be, d, D, 1.0f, dx, D, 1.0f, n, D);
    return FC_OK;
}

/* d += d out / d x of the attention sublayer on x, from d (its output's
 * gradient); the score gradient chain in s_dscores. */
static fc_status attention_back(fc_model *m, const fc_patchtst_layer *y, const float *x, float *d, size_t B) {
    const fc_model_config *c = &m->cfg;
    fc_backend *be = m->be;
    const fc_patchtst_plan *p = &m->patchtst;
    size_t P = p->P, D = c->hidden_size, n = B * P;
    float *t = SCR(m, p->s_dt), *datt = SCR(m, p->s_dx);
    float *dq = SCR(m, p->s_dq), *dk = SCR(m, p->s_dk), *dv = SCR(m, p->s_dv), *ds = SCR(m, p->s_dscores);
    be->axpby_rows(be, t, D, 1.0f, d, D, 0.0f, n, D);
    drop(m, t, n, D, c->dropout, y->drop_offset + ((uint64_t)SITE_RESID_ATTN << 40));
    drop(m, t, n, D, c->dropout, y->drop_offset + ((uint64_t)SITE_PROJ << 40));
    FC_TRY(dense_back(m, y->to_out, ACT(m, y->a_att), NULL, t, datt, n));
    if (!c->res_attention) be->fill(be, ds, 0.0f, B * (size_t)c->n_heads * P * P);   /* no chain between layers */
    float pa = dropping(m, c->attn_dropout) ? (float)c->attn_dropout : 0.0f;
    be->attention_backward(be, dq, dk, dv, D, ds, ACT(m, y->a_probs), ACT(m, y->a_q), ACT(m, y->a_k),
                           ACT(m, y->a_v), D, datt, D, B, P, (size_t)c->n_heads, p->E, attention_scale(m), pa,
                           m->dropout_seed, y->drop_offset + ((uint64_t)SITE_ATTN << 40));
    const int layers[3] = {y->wq, y->wk, y->wv};
    float *const grads[3] = {dq, dk, dv};
    for (int i = 0; i < 3; i++) {
        FC_TRY(dense_back(m, layers[i], x, NULL, grads[i], t, n));
        be->axpby_rows(be, d, D, 1.0f, t, D, 1.0f, n, D);
    }
    return FC_OK;
}

/* d (n, D): on entry d loss / d layer l's output, on return d loss / d its input. */
static fc_status layer_backward(fc_model *m, int l, float *d, size_t B) {
    const fc_patchtst_layer *y = &m->patchtst.layer[l];
    size_t n = B * m->patchtst.P;
    if (m->cfg.batch_normalization) {
        FC_TRY(feed_forward_back(m, y, d, n));
        batch_norm_back(m, y, 1, ACT(m, y->a_s1), d, n);
        FC_TRY(attention_back(m, y, attention_input(m, l), d, B));
        batch_norm_back(m, y, 0, layer_input(m, l), d, n);
        return FC_OK;
    }
    batch_norm_back(m, y, 1, ACT(m, y->a_s2), d, n);
    FC_TRY(feed_forward_back(m, y, d, n));
    batch_norm_back(m, y, 0, ACT(m, y->a_s1), d, n);
    return attention_back(m, y, layer_input(m, l), d, B);
}

/* Back through the head into d (B, P, D), d loss / d the last layer's output. */
static fc_status head_back(fc_model *m, float *dforecast, float *d, size_t B) {
    const fc_model_config *c = &m->cfg;
    fc_backend *be = m->be;
    fc_patchtst_plan *p = &m->patchtst;
    size_t P = p->P, D = c->hidden_size, HQ = c->h * c->n_outputs;
    const float *affine = affine_of(m);
    if (c->revin)
        be->revin_denorm_backward(be, dforecast, dforecast, ACT(m, p->a_y), ACT(m, p->a_stats), B, HQ, affine,
                                  affine ? GRAD(m, p->affine) : NULL, REVIN_EPS);
    drop(m, dforecast, B, HQ, c->head_dropout, SITE_HEAD);
    float *dflat = SCR(m, p->s_dflat);
    FC_TRY(dense_back(m, p->head, ACT(m, p->a_flat), NULL, dforecast, dflat, B));
    be->transpose_rows(be, d, P * D, dflat, P * D, B, D, P);
    return FC_OK;
}

/* Back through the embedding from d (B, P, D), d loss / d u. */
static fc_status embed_back(fc_model *m, float *d, size_t B) {
    const fc_model_config *c = &m->cfg;
    fc_backend *be = m->be;
    fc_patchtst_plan *p = &m->patchtst;
    size_t L = c->input_size, P = p->P, PD = P * c->hidden_size;
    const float *affine = affine_of(m);
    drop(m, d, B, PD, c->dropout, SITE_INPUT);
    if (c->learn_pos_embed) {   /* d W_pos (1, PD) += ones (1, B) . d (B, PD) */
        float *ones = ACT(m, p->a_ones);
        be->fill(be, ones, 1.0f, B);
        FC_TRY(be->gemm(be, 0, 0, 1, PD, B, 1.0f, ones, B, d, PD, 1.0f, GRAD(m, p->w_pos), PD));
    }
    float *dpatches = affine ? SCR(m, p->s_dpatches) : NULL;   /* the data needs no gradient */
    FC_TRY(dense_back(m, p->w_p, ACT(m, p->a_patches), NULL, d, dpatches, B * P));
    if (affine)
        be->revin_patch_backward(be, GRAD(m, p->affine), dpatches, ACT(m, p->a_stats), p->input, L, B, L,
                                 p->patch_len, c->stride, P, affine);
    return FC_OK;
}

fc_status fc_patchtst_backward(fc_model *m, float *dforecast, size_t B) {
    const fc_model_config *c = &m->cfg;
    fc_patchtst_plan *p = &m->patchtst;
    float *d = SCR(m, p->s_d);
    FC_TRY(head_back(m, dforecast, d, B));
    /* the last layer's scores reach nothing: the chain starts from zeros */
    m->be->fill(m->be, SCR(m, p->s_dscores), 0.0f, B * (size_t)c->n_heads * p->P * p->P);
    for (int l = c->encoder_layers - 1; l >= 0; l--) FC_TRY(layer_backward(m, l, d, B));
    return embed_back(m, d, B);
}

/* ---- configuration in model files ---- */

void fc_patchtst_config_to_json(const fc_model_config *c, json_t *o) {
    json_object_set_new(o, "encoder_layers", json_integer(c->encoder_layers));
    json_object_set_new(o, "n_heads", json_integer(c->n_heads));
    json_object_set_new(o, "hidden_size", json_integer((json_int_t)c->hidden_size));
    json_object_set_new(o, "linear_hidden_size", json_integer((json_int_t)c->linear_hidden_size));
    json_object_set_new(o, "dropout", json_real(c->dropout));
    json_object_set_new(o, "head_dropout", json_real(c->head_dropout));
    json_object_set_new(o, "attn_dropout", json_real(c->attn_dropout));
    json_object_set_new(o, "patch_len", json_integer((json_int_t)c->patch_len));
    json_object_set_new(o, "stride", json_integer((json_int_t)c->stride));
    json_object_set_new(o, "revin", json_boolean(c->revin));
    json_object_set_new(o, "revin_affine", json_boolean(c->revin_affine));
    json_object_set_new(o, "revin_subtract_last", json_boolean(c->revin_subtract_last));
    json_object_set_new(o, "activation", json_string(c->gelu ? "gelu" : "relu"));
    json_object_set_new(o, "res_attention", json_boolean(c->res_attention));
    json_object_set_new(o, "batch_normalization", json_boolean(c->batch_normalization));
    json_object_set_new(o, "learn_pos_embed", json_boolean(c->learn_pos_embed));
}

static fc_status activation_from_json(json_t *o, fc_model_config *c, const char *where) {
    json_t *a = json_object_get(o, "activation");
    if (!a) return FC_OK;
    const char *s = json_string_value(a);
    if (!s || (strcasecmp(s, "gelu") && strcasecmp(s, "relu")))
        return fc_error(FC_ERR_FORMAT, "%s: config field 'activation' must be \"gelu\" or \"relu\"", where);
    c->gelu = !strcasecmp(s, "gelu");
    return FC_OK;
}

fc_status fc_patchtst_config_from_json(json_t *o, fc_model_config *c, const char *where) {
    size_t layers = (size_t)c->encoder_layers, heads = (size_t)c->n_heads;
    FC_TRY(fc_json_get_size(o, "encoder_layers", &layers, 0, where));
    FC_TRY(fc_json_get_size(o, "n_heads", &heads, 0, where));
    c->encoder_layers = (int)layers;
    c->n_heads = (int)heads;
    FC_TRY(fc_json_get_size(o, "hidden_size", &c->hidden_size, 0, where));
    FC_TRY(fc_json_get_size(o, "linear_hidden_size", &c->linear_hidden_size, 0, where));
    FC_TRY(fc_json_get_size(o, "patch_len", &c->patch_len, 0, where));
    FC_TRY(fc_json_get_size(o, "stride", &c->stride, 0, where));
    FC_TRY(fc_json_get_number(o, "dropout", &c->dropout, where));
    FC_TRY(fc_json_get_number(o, "head_dropout", &c->head_dropout, where));
    FC_TRY(fc_json_get_number(o, "attn_dropout", &c->attn_dropout, where));
    FC_TRY(fc_json_get_bool(o, "revin", &c->revin, where));
    FC_TRY(fc_json_get_bool(o, "revin_affine", &c->revin_affine, where));
    FC_TRY(fc_json_get_bool(o, "revin_subtract_last", &c->revin_subtract_last, where));
    FC_TRY(fc_json_get_bool(o, "res_attention", &c->res_attention, where));
    FC_TRY(fc_json_get_bool(o, "batch_normalization", &c->batch_normalization, where));
    FC_TRY(fc_json_get_bool(o, "learn_pos_embed", &c->learn_pos_embed, where));
    return activation_from_json(o, c, where);
}

/* --activation gelu|relu, into the gelu field. */
static fc_status apply_activation(const fc_arch_option *o, size_t size, const char *text, fc_model_config *c) {
    (void)o, (void)size;
    if (strcmp(text, "gelu") && strcmp(text, "relu"))
        return fc_error(FC_ERR_INVALID, "--activation '%s': expected gelu or relu", text);
    c->gelu = !strcmp(text, "gelu");
    return FC_OK;
}

/* Its flags (--hidden-size is MLP's row, --dropout TiDE's). */
static const fc_arch_option ARCH[] = {
    FC_ARCH_SIZE("encoder-layers", encoder_layers, 1, FC_PATCHTST_MAX_LAYERS, "N", "PatchTST Transformer encoder layers (3)"),
    FC_ARCH_SIZE("n-heads", n_heads, 1, FC_MAX_DIM, "N", "PatchTST attention heads, dividing --hidden-size (16)"),
    FC_ARCH_SIZE("linear-hidden-size", linear_hidden_size, 1, FC_MAX_DIM, "N", "PatchTST feed-forward width (256)"),
    FC_ARCH_SIZE("patch-len", patch_len, 1, FC_MAX_DIM, "N", "PatchTST patch length (16; at most input size + stride)"),
    FC_ARCH_SIZE("stride", stride, 1, FC_MAX_DIM, "N", "PatchTST stride between patches (8)"),
    FC_ARCH_SWITCH("revin", revin, "PatchTST: RevIN normalisation of each window (on)"),
    FC_ARCH_SWITCH("revin-affine", revin_affine, "PatchTST: RevIN's learned weight and bias (off)"),
    FC_ARCH_SWITCH("revin-subtract-last", revin_subtract_last, "PatchTST: RevIN subtracts the last value, else the mean (on)"),
    FC_ARCH_TEXT("activation", "gelu|relu", apply_activation, "PatchTST feed-forward activation (gelu)"),
    FC_ARCH_SWITCH("res-attention", res_attention, "PatchTST: each layer adds the previous layer's attention scores (on)"),
    FC_ARCH_SWITCH("batch-normalization", batch_normalization,
                   "PatchTST: BatchNorm before each sublayer instead of after it (off)"),
    FC_ARCH_SWITCH("learn-pos-embed", learn_pos_embed, "PatchTST: train the positional embedding (on)"),
    FC_ARCH_PROBABILITY("attn-dropout", attn_dropout, "PatchTST: dropout of the attention weights (0)"),
    FC_ARCH_PROBABILITY("head-dropout", head_dropout, "PatchTST: dropout of the forecast head (0)"),
};
const fc_arch_option_rows fc_patchtst_arch_options = FC_ARCH_ROWS(ARCH);
