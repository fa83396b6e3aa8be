/* Models as explicit forward and backward passes over one parameter block
 * and one activation block (as llm.c). A model is described by its
 * configuration; from it, a table of tensors (names and shapes equal to
 * neuralforecast's state_dict()) gives every parameter its offset, and a
 * plan gives every activation its offset for a batch of B windows.
 *
 * Trainable parameters come first in the parameter block, non-trainable
 * buffers (N-BEATS basis matrices) after them, so gradients and optimizer
 * moments cover exactly params[0 .. n_trainable). */
#ifndef FC_MODELS_MODEL_H
#define FC_MODELS_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include "backend/backend.h"

#define FC_MAX_STACKS 8
#define FC_MAX_UNITS 8            /* entries of mlp_units */
#define FC_MAX_LINEARS (FC_MAX_UNITS + 2)
/* Dense layers of a whole-model kind (MLP, LSTM, TiDE, PatchTST: m->lin);
 * PatchTST's 8 layers of 6 and its patch projection and head take 50. */
#define FC_MAX_MODEL_LINEARS 64
#define FC_MAX_BLOCKS 32
/* Bounds on every size in a configuration: large enough for any real model,
 * small enough that no product of sizes (parameters, activations for a
 * batch) can overflow a size_t. Memory is checked when it is allocated. */
#define FC_MAX_DIM ((size_t)1 << 20)          /* h, input_size, layer widths */
#define FC_MAX_HARMONICS 1024
#define FC_MAX_BASIS 64
/* Tensors of the largest configuration: every block with the most linear
 * layers (weight and bias each) and two basis matrices, or the MLP. */
#define FC_TENSOR_CAP (FC_MAX_BLOCKS * (2 * FC_MAX_LINEARS + 2) + 2 * FC_MAX_LINEARS)
/* Exogenous variables of one kind (future, past, static): at most this
 * many columns, named in at most FC_EXOG_NAME_MAX - 1 bytes. */
#define FC_MAX_EXOG 64
#define FC_EXOG_NAME_MAX 64

/* Each kind is one row of model_kind_list.h (docs/models.md):
 * FC_MODEL_NHITS (0), FC_MODEL_NBEATS, ..., in the list's order. */
typedef enum {
#define FC_MODEL_KIND(prefix, ENUM, ...) FC_MODEL_##ENUM,
#include "models/model_kind_list.h"
#undef FC_MODEL_KIND
    FC_MODEL_KIND_COUNT
} fc_model_kind;
#define FC_LSTM_MAX_LAYERS 4      /* encoder layers, and decoder layers */
/* EXOGENOUS: NBEATSx's basis made of the future and static exogenous values. */
typedef enum { FC_STACK_IDENTITY = 0, FC_STACK_TREND, FC_STACK_SEASONALITY, FC_STACK_EXOGENOUS } fc_stack_type;

/* The exogenous columns of one kind, in the order the model reads them
 * (neuralforecast's futr_exog_list, hist_exog_list, stat_exog_list). */
typedef struct {
    int n;
    char name[FC_MAX_EXOG][FC_EXOG_NAME_MAX];
} fc_exog_list;

/* The names of l as the pointer array the data functions (data/exog_data.h) take. */
static inline void fc_exog_list_names(const fc_exog_list *l, const char *out[FC_MAX_EXOG]) {
    for (int i = 0; i < l->n; i++) out[i] = l->name[i];
}

/* A batch's exogenous inputs (device pointers, NULL for a kind the model
 * has none of), neuralforecast's windows_batch layout, channel fastest:
 * futr (B, L + h, F) over the insample and the horizon, hist (B, L, X)
 * over the insample, stat (B, S). */
typedef struct {
    const float *futr, *hist, *stat;
} fc_exog_inputs;

/* N-HiTS's interpolation_mode: how a block's knots reach the horizon. */
typedef enum { FC_INTERP_LINEAR = 0, FC_INTERP_NEAREST, FC_INTERP_CUBIC } fc_interp_mode;

typedef struct {
    fc_model_kind kind;
    size_t h, input_size;
    /* Outputs per horizon point: the loss's quantiles for MQ, else 1
     * (neuralforecast's loss.outputsize_multiplier). Forecasts are
     * (B, h, n_outputs), quantile fastest, as neuralforecast's (B, h, Q). */
    size_t n_outputs;
    /* N-HiTS and N-BEATS */
    int n_stacks;
    fc_stack_type stack_types[FC_MAX_STACKS];
    int n_blocks[FC_MAX_STACKS];
    int n_units;                           /* entries of mlp_units */
    size_t mlp_units[FC_MAX_UNITS][2];
    size_t n_pool_kernel_size[FC_MAX_STACKS];  /* N-HiTS */
    size_t n_freq_downsample[FC_MAX_STACKS];   /* N-HiTS */
    /* N-HiTS and NBEATSx: dropout after each hidden ReLU of the block MLPs
     * while training (neuralforecast's NHITSBlock/NBEATSxBlock nn.Dropout);
     * neuralforecast's NBEATS refuses it, and so does fcast's. */
    double dropout_prob_theta;
    fc_interp_mode interp_mode;   /* N-HiTS interpolation_mode (FC_INTERP_LINEAR, neuralforecast's default) */
    int n_harmonics, n_basis;                  /* N-BEATS */
    /* MLP */
    size_t hidden_size;
    int num_layers;
    /* LSTM */
    int encoder_n_layers, decoder_layers;
    size_t encoder_hidden_size, decoder_hidden_size;
    /* TiDE (and hidden_size above) */
    int num_encoder_layers, num_decoder_layers, layernorm;
    size_t decoder_output_dim, temporal_decoder_dim, temporal_width;
    double dropout;   /* dropout probability where the kind has dropout (TiDE, PatchTST) */
    /* PatchTST (and hidden_size, dropout above) */
    int encoder_layers, n_heads;
    size_t linear_hidden_size, patch_len, stride;
    int revin, revin_affine, revin_subtract_last;
    int gelu;                  /* activation: 1 "gelu", 0 "relu" */
    int res_attention, batch_normalization, learn_pos_embed;
    double attn_dropout, head_dropout;
    /* Exogenous inputs (any kind whose row takes them; model_kinds.h) */
    fc_exog_list futr_exog, hist_exog, stat_exog;
    /* IQLoss's head (models/iq_head.c) after any kind: its cos_embedding_dim
     * (0: none) and the Beta(concentration1, concentration0) its training
     * quantiles are drawn from. Set from the loss, not saved with the
     * configuration (the loss's parameters hold them). */
    size_t iq_dim;
    double iq_concentration0, iq_concentration1;
} fc_model_config;

/* neuralforecast's defaults for the model kind, for horizon h and input L. */
void fc_model_config_default(fc_model_config *c, fc_model_kind kind, size_t h, size_t L);
const char *fc_model_kind_name(fc_model_kind k);        /* "NHITS", "NBEATS", "MLP"; "?" if unknown */
int fc_model_kind_parse(const char *s, fc_model_kind *out); /* "nhits" ... (any case); 0 on success */
int fc_model_kind_num_lr_decays(fc_model_kind k);      /* neuralforecast's default: 3, MLP -1 (none) */
const char *fc_stack_type_name(fc_stack_type t);        /* "identity", "trend", "seasonality" */
int fc_stack_type_parse(const char *s, fc_stack_type *out); /* the names above; 0 on success */
fc_status fc_model_config_check(const fc_model_config *c);
/* 1 when training draws random numbers from the step's seed: dropout masks
 * (any of the kind's probabilities > 0) or IQLoss's quantiles. */
int fc_model_has_dropout(const fc_model_config *c);

/* Elements every trainable tensor's rounded copy starts at a multiple of:
 * 16 bytes of 2-byte values. cuBLASLt finds no 16-bit algorithm for
 * operands aligned to 2 bytes (an H200, N-HiTS with input 24: "2-byte
 * aligned ... CUBLAS_STATUS_INVALID_VALUE"), which a copy laid out as the
 * fp32 block (a weight after a tensor of odd length) gave. */
#define FC_LOW_PARAM_ALIGN 8

/* One tensor of the table. */
typedef struct {
    char name[64];
    int ndim;
    int64_t shape[2];
    size_t numel;
    size_t offset;       /* floats from the start of the parameter block (set once the table is complete) */
    size_t low_offset;   /* trainable: elements from the start of params_low, a multiple of FC_LOW_PARAM_ALIGN */
    int trainable;
    /* Not trainable but changed by training (BatchNorm's running
     * statistics): kept with the weights wherever the best weights are. */
    int state;
    /* Initialisation: U(-bound, bound); 0 for PyTorch's Linear default,
     * 1/sqrt(fan_in) (nn.LSTM sets 1/sqrt(hidden_size) for all its tensors).
     * A buffer with a bound is drawn too (PatchTST's W_pos when it is not
     * learned); other buffers are the kind's fill_buffers' to compute. */
    double init_bound;
    int init_constant;   /* 1: initialised to init_value instead (LayerNorm's weight 1, bias 0) */
    float init_value;
} fc_tensor;

/* One linear layer of a chain: y (B,out) = act(x (B,in) . W^T + b). */
typedef struct {
    size_t in, out;
    size_t rows;         /* rows per window: 1, or a sequence's length (the layer runs on (B rows, in)) */
    fc_activation act;
    size_t w, b;         /* indices into the tensor table: weight (out,in), bias (out) */
    size_t a_low;        /* low precision: offset of x_low in the low block (elements per window) */
} fc_linear;

/* How a block turns theta into a backcast and a forecast, with Q outputs
 * per horizon point (neuralforecast's reshapes):
 *   IDENTITY: theta = [backcast L | forecast (H, Q)]
 *   INTERP:   theta = [backcast L | knots (Q, K)], each row of K knots
 *             interpolated to H, then (Q, H) -> (H, Q)
 *   MATRIX:   theta = [P | (P, Q)], backcast = theta[:P] . basis (P, L),
 *             forecast = einsum("pq,pt->tq", theta[P:], basis (P, H)) */
typedef enum {
    FC_BASIS_IDENTITY = 0,   /* N-BEATS identity */
    FC_BASIS_INTERP,         /* N-HiTS */
    FC_BASIS_MATRIX,         /* N-BEATS trend/seasonality */
    FC_BASIS_EXOG            /* NBEATSx exogenous: theta = [forecast C | backcast C] against the
                              * window's own (C, L + H) basis of its future and static values */
} fc_basis_kind;

typedef struct {
    size_t pool_k;           /* N-HiTS max-pool kernel; 1 = none */
    size_t in;               /* width entering the MLP (pooled input) */
    int n_linear;
    fc_linear lin[FC_MAX_LINEARS];
    fc_stack_type stack;
    fc_basis_kind basis;
    size_t n_theta;
    size_t n_knots;          /* INTERP: forecast knots per output */
    size_t P;                /* MATRIX: basis rows */
    size_t basis_back, basis_fore;   /* MATRIX: tensor indices of (P,L) and (P,H) */
    size_t y_in;             /* columns of the MLP input that come from y (the rest: exogenous) */
    /* activation offsets in floats per window: buffer X of a batch lives at
     * acts + a_X * capacity and holds (B, width) row-major */
    size_t a_in, a_pool, a_argmax, a_out[FC_MAX_LINEARS], a_back, a_fore;
    size_t a_xin;            /* with exogenous inputs: the MLP input [y | hist | futr | stat] (B, in) */
} fc_block;

struct fc_model_kind_ops;

/* LSTM's plan (lstm.c): activation offsets (floats per window), scratch
 * offsets, and where its layers are. m->lin holds the encoder layers'
 * input projections (weight_ih, bias_ih; L rows per window), then the
 * upsampling over time when h > L, then the decoder (h rows per window). */
typedef struct {
    size_t a_in, a_inT, a_tmp, a_ones;
    size_t a_gates[FC_LSTM_MAX_LAYERS], a_c[FC_LSTM_MAX_LAYERS], a_h[FC_LSTM_MAX_LAYERS];
    size_t a_perm, a_up, a_upT, a_dec_in, a_dec[FC_LSTM_MAX_LAYERS];
    size_t s_dG, s_dH, s_dh, s_dc, s_ddec, s_ping, s_pong, s_up1, s_up2, s_up3;
    size_t w_hh[FC_LSTM_MAX_LAYERS], b_hh[FC_LSTM_MAX_LAYERS];   /* tensor indices */
    int upsample;            /* index of the upsampling layer in m->lin, -1 when h <= L */
    int first_decoder;       /* index of the decoder's first layer in m->lin */
    const float *input;      /* the last forward's encoder input (B, L, Cin) */
} fc_lstm_plan;

/* neuralforecast's MLPResidual (residual_mlp.c): y = LN(drop(lin2(relu(
 * lin1(x)))) + skip(x)), LN when layernorm, on `rows` rows per window. */
typedef struct {
    int lin1, lin2, skip;         /* indices in m->lin */
    size_t ln_w, ln_b;            /* tensor indices of norm.weight, norm.bias (layernorm) */
    int layernorm;
    size_t rows, in, hidden, out;
    size_t a_h1, a_h2, a_pre, a_out, a_mean, a_rstd;   /* activations, per window */
    uint64_t dropout_offset;      /* its place in the step's dropout stream */
} fc_resmlp;

#define FC_TIDE_MAX_LAYERS 4

/* TiDE's plan (tide.c). */
typedef struct {
    fc_resmlp hist_proj, futr_proj, enc[FC_TIDE_MAX_LAYERS], dec[FC_TIDE_MAX_LAYERS], temporal;
    int global_skip;              /* index in m->lin */
    int has_hist_proj, has_futr_proj;
    size_t a_skip, a_ein, a_tin;  /* global skip (h Q), encoder input, temporal decoder input (h (D + W)) */
    size_t s_r[4], s_dein, s_dtin, s_dfutr, s_dtmp;
    const float *input;           /* the last forward's insample (the global skip's input) */
} fc_tide_plan;

#define FC_PATCHTST_MAX_LAYERS 8

/* One encoder layer of PatchTST (patchtst.c): indices of its dense layers
 * in m->lin and of its BatchNorm tensors; activations per window, and its
 * BatchNorms' batch statistics in the fixed region (C floats each). */
typedef struct {
    int wq, wk, wv, to_out, ff0, ff3;
    size_t scale;                 /* tensor index of sdp_attn.scale */
    size_t bn_w[2], bn_b[2], bn_mean[2], bn_var[2], bn_count[2];   /* [0] norm_attn, [1] norm_ffn */
    size_t a_xatt, a_q, a_k, a_v, a_probs, a_att, a_o, a_s1, a_a1, a_f1, a_g, a_f2, a_s2, a_out;
    size_t f_mean[2], f_rstd[2];
    uint64_t drop_offset;         /* its dropout sites' place in the step's stream */
} fc_patchtst_layer;

/* PatchTST's plan (patchtst.c). */
typedef struct {
    size_t P, patch_len, E;       /* patches, their (effective) length, head width */
    int w_p, head;                /* indices in m->lin */
    size_t w_pos, affine;         /* tensor indices (affine: revin weight; bias follows) */
    fc_patchtst_layer layer[FC_PATCHTST_MAX_LAYERS];
    size_t a_patches, a_stats, a_u, a_scores, a_flat, a_y, a_ones;
    size_t s_d, s_dt, s_dx, s_dq, s_dk, s_dv, s_dscores, s_dff, s_dflat, s_dpatches;
    const float *input;           /* the last forward's insample (RevIN's affine gradient reads it) */
} fc_patchtst_plan;

typedef struct fc_model {
    fc_model_config cfg;
    const struct fc_model_kind_ops *ops;   /* the row of cfg.kind (model_kinds.h) */
    fc_tensor *tensors;
    size_t n_tensors;
    size_t n_trainable;      /* floats of trainable parameters */
    size_t n_state;          /* floats of trainable parameters and state buffers (the best weights) */
    size_t n_floats;         /* floats of all parameters and buffers */
    int n_blocks;
    fc_block blocks[FC_MAX_BLOCKS];   /* N-HiTS / N-BEATS */
    int n_linear;                     /* MLP, LSTM, TiDE */
    fc_linear lin[FC_MAX_MODEL_LINEARS];
    size_t a_mask, a_mlp_out[FC_MAX_LINEARS];
    size_t a_mlp_xin;                 /* MLP with exogenous inputs: its layer 0 input */
    /* n_outputs > 1 only (block stacks): a_qperm holds a block's forecast
     * moved between quantile-major (B, Q, *) and (B, H, Q) layouts; s_dfq
     * d forecast as (B, Q, H), s_dtq a basis block's d theta as (B, Q, P). */
    size_t a_qperm, s_dfq, s_dtq;
    const float *mlp_input;   /* MLP: the insample of the last forward (its layer 0 input) */
    fc_lstm_plan lstm;                /* LSTM */
    fc_tide_plan tide;                /* TiDE */
    fc_patchtst_plan patchtst;        /* PatchTST */
    /* Dropout (TiDE): on only while training; the step's seed makes every
     * mask a pure function of (seed, step, micro-batch, layer, element). */
    int training;
    uint64_t dropout_seed;
    /* IQLoss's head (cfg.iq_dim > 0; iq_head.c): the first tensor of its
     * parameter block, its activations and scratch per window, and the
     * quantile a forward outside training forecasts (0.5 by default). */
    struct {
        size_t first_tensor, a_yhat, a_tau, a_cs, a_z, a_s, s_dyhat, s_gz, s_gs;
        float quantile;
    } iq;
    /* Exogenous inputs of the next forward (set by the caller with the
     * batch: fc_batch_exog_inputs); fc_model_forward refuses a forward
     * without a kind the configuration names. */
    fc_exog_inputs exog;
    /* Their planned scratch (exog_inputs.c): channel-major copies, pooled
     * copies and pooling argmax, and NBEATSx's basis (B, C, L + H). */
    size_t a_xT, a_xP, a_xArg;
    size_t a_xbasis, a_xtmp, s_xdf;   /* NBEATSx's exogenous basis (exog_basis.c) */
    /* backward scratch offsets (floats per window, like activations) */
    size_t s_ping, s_pong, s_dr, s_dback, s_drtmp;
    /* activations and gradients planned for up to `capacity` windows */
    size_t capacity;
    size_t act_floats;        /* per capacity */
    size_t fixed_floats;      /* after them, whatever the capacity (per-batch statistics) */
    size_t grad_scratch_floats;
    /* Mixed precision (fc_model_set_precision): the low block holds, per
     * window, every layer's x_low and the backward's dy_low, in elements of
     * be->low_bytes(be, prec) bytes. */
    fc_precision prec;
    size_t low_elems;         /* per window */
    size_t s_dylow;           /* offset of dy_low in the low block */
    void *params_low;         /* (n_low_params) trainable parameters rounded to prec, each tensor at its low_offset */
    size_t n_low_params;      /* elements of params_low: the trainable tensors, each rounded up to FC_LOW_PARAM_ALIGN */
    void *lows;               /* (low_elems * capacity) */
    fc_backend *be;
    float *params;            /* (n_floats) device */
    float *grads;             /* (n_trainable) device; NULL until training */
    float *acts;              /* (act_floats) device */
    float *scratch;           /* (grad_scratch_floats) device; backward only */
} fc_model;

/* IQLoss's head (iq_head.c): its tensors and plan after the kind's;
 * the forward from the kind's output in the head's yhat activation; the
 * backward into d yhat; the points' quantiles of the last forward. */
fc_status fc_iq_head_build(fc_model *m);
void fc_iq_head_fill_buffers(fc_model *m);
float *fc_iq_head_yhat(fc_model *m);
void fc_iq_head_forward(fc_model *m, float *forecast, size_t B);
float *fc_iq_head_backward(fc_model *m, float *dforecast, size_t B);
const float *fc_iq_head_taus(const fc_model *m);

/* Builds the tensor table and the block layout from the configuration,
 * allocating no parameters (model files are checked against the table
 * before anything large is allocated). */
fc_status fc_model_plan(const fc_model_config *cfg, fc_model **out);
/* Allocates the parameters on be (zeroed; N-BEATS basis filled). */
fc_status fc_model_allocate(fc_model *m, fc_backend *be);
/* fc_model_plan + fc_model_allocate. */
fc_status fc_model_create(const fc_model_config *cfg, fc_backend *be, fc_model **out);
void fc_model_free(fc_model **m);

/* Activation floats per window (for planning) and reserving room for B windows.
 * with_grads also reserves gradients and backward scratch. */
size_t fc_model_act_floats(const fc_model *m, size_t B);
size_t fc_model_scratch_floats(const fc_model *m, size_t B);
fc_status fc_model_reserve(fc_model *m, size_t B, int with_grads);

/* PyTorch's default initialisation (kaiming_uniform a=sqrt(5) for weights,
 * U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for biases) from the Philox stream. */
fc_status fc_model_init_params(fc_model *m, uint64_t seed);

const fc_tensor *fc_model_find(const fc_model *m, const char *name);

/* Matrix products of forward and backward in `prec` (fp32 master weights
 * stay in m->params). Allocates the rounded weights and refreshes them;
 * the low activation block follows at the next fc_model_reserve. */
fc_status fc_model_set_precision(fc_model *m, fc_precision prec);
/* Re-rounds params_low from params (after every optimizer step or any
 * write to the parameters); nothing in fp32. */
void fc_model_refresh_low(fc_model *m);
/* Bytes of the low-precision buffers: rounded weights, and activations
 * per window (for planning). */
size_t fc_model_low_param_bytes(const fc_model *m, fc_precision prec, const fc_backend *be);
size_t fc_model_low_act_bytes(const fc_model *m, size_t B, fc_precision prec, const fc_backend *be);

/* Matrix-product flops of one training step per window (model_flops.c). */
double fc_model_train_flops_per_window(const fc_model *m);

/* The backend call of linear layer l on input x (B, l->in) and output y. */
fc_linear_call fc_model_linear_call(const fc_model *m, const fc_linear *l, const float *x, float *y,
                                    size_t B);
/* Backward of that call (see fc_backend.linear_backward); accumulates into m->grads. */
fc_status fc_model_linear_backward(fc_model *m, const fc_linear_call *c, const fc_linear *l, float *dy,
                                   float *dx);

/* Forward: forecast (B,H,Q) (Q = cfg.n_outputs, quantile fastest; (B,H) when
 * Q is 1) from insample (B,L) and its mask (B,L), all device pointers.
 * Saves what backward needs in the activation block. */
fc_status fc_model_forward(fc_model *m, float *forecast, const float *insample,
                           const float *insample_mask, size_t B);

/* Backward: accumulates d loss / d params into m->grads given d loss / d
 * forecast (B,H,Q), which it may overwrite. Must follow a forward of the same
 * batch. */
fc_status fc_model_backward(fc_model *m, float *dforecast, size_t B);

/* exog_inputs.c: the MLP input of a block or of the MLP, [y | hist | futr
 * | stat] with hist and futr each max-pooled over time by pool_k (1: as
 * they are), y already in its first y_width columns of x (B, width). */
size_t fc_exog_input_width(const fc_model_config *c, size_t pool_k, size_t y_width);
void fc_exog_plan(fc_model *m);
void fc_exog_fill_input(fc_model *m, float *x, size_t width, size_t y_width, size_t pool_k, size_t B);
int fc_model_has_exog(const fc_model_config *c);
/* exog_basis.c: NBEATSx's exogenous basis, built once per forward into
 * a_xbasis, and the forward and backward of a block on it: back (B, L),
 * fore (B, Q, H) written quantile-major (the Q rows equal: the basis has
 * one forecast per point, broadcast over the outputs as neuralforecast's
 * (B, h, 1) + (B, h, Q)). */
void fc_exog_basis_plan(fc_model *m);
void fc_exog_basis_build(fc_model *m, size_t B);
void fc_exog_basis_forward(fc_model *m, const fc_block *b, const float *theta, float *back, float *fore, size_t B);
void fc_exog_basis_backward(fc_model *m, const fc_block *b, float *dtheta, const float *dback,
                            const float *dforecast, const float *dfq, size_t B);

/* Every linear layer of the model in a fixed order: the blocks' layers,
 * block by block, then the MLP's. index counts visits from 0; visit 0 is
 * the layer that reads the data (no input gradient). Stops at the first
 * status that is not FC_OK and returns it (model_layers.c). */
typedef fc_status (*fc_linear_visitor)(const fc_linear *l, size_t index, void *ctx);
fc_status fc_model_for_each_linear(const fc_model *m, fc_linear_visitor visit, void *ctx);

/* Activation planning for the builders: reserves `width` floats per window
 * and returns the per-window offset. */
size_t fc_model_plan_act(fc_model *m, size_t width);
/* `width` floats of the activation block that do not grow with the batch
 * (a BatchNorm's batch statistics), at m->acts + act_floats * capacity +
 * the offset returned. */
size_t fc_model_plan_fixed(fc_model *m, size_t width);
size_t fc_model_plan_scratch(fc_model *m, size_t width);
/* model_precision.c: low block planning (elements per window) and its
 * allocation for the reserved capacity. */
size_t fc_model_plan_low(fc_model *m, size_t width);
void fc_model_plan_dy_low(fc_model *m);   /* dy_low, once every layer is in the table */
fc_status fc_model_reserve_low(fc_model *m);
void fc_model_drop_low_acts(fc_model *m);

/* Tensor-table helpers for the builders (model.c). */
size_t fc_model_add_tensor(fc_model *m, const char *name, int ndim, int64_t d0, int64_t d1, int trainable);
fc_status fc_model_add_linear(fc_model *m, fc_linear *lin, const char *prefix, size_t in, size_t out, fc_activation act);
/* The same with the tensors' names given (nn.LSTM's weight_ih_l0 and
 * bias_ih_l0) and `rows` rows per window (a layer applied at every step of
 * a sequence): its low-precision input is planned rows * in per window. */
fc_status fc_model_add_linear_rows(fc_model *m, fc_linear *lin, const char *weight, const char *bias, size_t in,
                                   size_t out, fc_activation act, size_t rows);
/* The next layer of m->lin, named "<prefix>.<name>.weight" and ".bias", on
 * `rows` rows per window; returns its index in m->lin. */
int fc_model_add_layer(fc_model *m, const char *prefix, const char *name, size_t in, size_t out, fc_activation act,
                       size_t rows);

#endif
