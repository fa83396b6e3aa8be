/* The table of model kinds (models/model_kinds.h): every row has every
 * entry; names and flag names are unique and round-trip; each kind's
 * config round-trips through JSON with values that are not the defaults;
 * fc_model_for_each_linear visits exactly the layers of the tensor table,
 * in the order of the loops it replaced; an unknown kind is refused with
 * a message, never dispatched to another kind. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check.h"
#include "core/error.h"
#include "train/model_file.h"
#include "models/model_kinds.h"

static void check_rows(void) {
    for (int k = 0; k < FC_MODEL_KIND_COUNT; k++) {
        const fc_model_kind_ops *r = fc_model_kind_row((fc_model_kind)k), *got = NULL;
        CHECK_MSG(r && !fc_model_kind_missing_entry(r), "kind %d lacks '%s'", k,
                  r ? fc_model_kind_missing_entry(r) : "its row");
        CHECK_MSG(fc_model_kind_lookup((fc_model_kind)k, &got) == FC_OK && got == r, "kind %d: %s", k, fc_last_error());
        fc_model_kind parsed = FC_MODEL_KIND_COUNT;
        CHECK(!strcmp(fc_model_kind_name((fc_model_kind)k), r->name));
        CHECK_MSG(fc_model_kind_parse(r->flag_name, &parsed) == 0 && parsed == (fc_model_kind)k, "%s", r->flag_name);
        parsed = FC_MODEL_KIND_COUNT;
        CHECK_MSG(fc_model_kind_parse(r->name, &parsed) == 0 && parsed == (fc_model_kind)k, "%s", r->name);
        for (int j = 0; j < k; j++) {
            const fc_model_kind_ops *o = fc_model_kind_row((fc_model_kind)j);
            CHECK_MSG(strcasecmp(o->name, r->name) && strcasecmp(o->flag_name, r->flag_name),
                      "kinds %d and %d share a name", j, k);
        }
    }
    /* the entry check names what is missing */
    fc_model_kind_ops doctored = *fc_model_kind_row(FC_MODEL_NBEATS);
    doctored.fill_buffers = NULL;
    CHECK(!strcmp(fc_model_kind_missing_entry(&doctored), "fill_buffers"));
    doctored.forward = NULL;
    CHECK(!strcmp(fc_model_kind_missing_entry(&doctored), "forward"));
    CHECK(fc_model_kind_num_lr_decays(FC_MODEL_NHITS) == 3 && fc_model_kind_num_lr_decays(FC_MODEL_NBEATS) == 3 &&
          fc_model_kind_num_lr_decays(FC_MODEL_MLP) == -1);
    char list[128];
    fc_model_kind_list(list, sizeof list);
    CHECK(!strcmp(list, "NHITS, NBEATS, MLP, NBEATSx, LSTM, TiDE or PatchTST"));
    /* neuralforecast's per-model training defaults: PatchTST's learning rate and steps differ */
    const fc_model_kind_ops *ptst = fc_model_kind_row(FC_MODEL_PATCHTST), *nhits = fc_model_kind_row(FC_MODEL_NHITS);
    CHECK(ptst->learning_rate == 1e-4 && ptst->max_steps == 5000 && ptst->exog == FC_EXOG_NONE);
    CHECK(nhits->learning_rate == 1e-3 && nhits->max_steps == 1000);
}

/* A configuration of kind k with its fields off their defaults (a kind
 * added later gets only n_outputs here until it is given a branch; its JSON
 * text round trip is still checked). */
static void unusual_stacks(fc_model_config *c) {
    c->n_stacks = 2;
    c->n_blocks[0] = 2;
    c->n_units = 2;
    c->mlp_units[0][0] = 16; c->mlp_units[0][1] = 24;
    c->mlp_units[1][0] = 24; c->mlp_units[1][1] = 8;
}

static void unusual(fc_model_config *c, fc_model_kind k) {
    fc_model_config_default(c, k, 10, 20);
    c->n_outputs = 3;
    if (k == FC_MODEL_MLP) {
        c->hidden_size = 40;
        c->num_layers = 3;
    } else if (k == FC_MODEL_NHITS) {
        unusual_stacks(c);
        c->n_pool_kernel_size[0] = 3; c->n_pool_kernel_size[1] = 1;
        c->n_freq_downsample[0] = 5; c->n_freq_downsample[1] = 2;
    } else if (k == FC_MODEL_NBEATS || k == FC_MODEL_NBEATSX) {
        unusual_stacks(c);
        c->stack_types[0] = FC_STACK_SEASONALITY;
        c->stack_types[1] = k == FC_MODEL_NBEATSX ? FC_STACK_EXOGENOUS : FC_STACK_TREND;
        c->n_harmonics = 3;
        c->n_basis = 4;
    }
    if (k == FC_MODEL_LSTM) {     /* h > L: the upsampling over time */
        c->h = 24;
        c->encoder_n_layers = 3;
        c->encoder_hidden_size = 6;
        c->decoder_hidden_size = 5;
        c->decoder_layers = 3;
    }
    if (k == FC_MODEL_TIDE) {
        c->hidden_size = 12;
        c->decoder_output_dim = 3;
        c->temporal_decoder_dim = 5;
        c->temporal_width = 2;
        c->num_encoder_layers = 2;
        c->layernorm = 0;
        c->dropout = 0.1;
    }
    if (k == FC_MODEL_PATCHTST) {
        c->hidden_size = 12;
        c->n_heads = 3;
        c->linear_hidden_size = 10;
        c->encoder_layers = 2;
        c->patch_len = 6;
        c->stride = 4;
        c->dropout = 0.1;
        c->attn_dropout = 0.05;
        c->head_dropout = 0.25;
        c->revin_affine = 1;
        c->revin_subtract_last = 0;
        c->gelu = 0;
        c->res_attention = 0;
        c->batch_normalization = 1;
        c->learn_pos_embed = 0;
    }
    if (k != FC_MODEL_NBEATS && k != FC_MODEL_PATCHTST) {   /* every other kind takes exogenous inputs */
        c->futr_exog.n = 2;
        strcpy(c->futr_exog.name[0], "temperature");
        strcpy(c->futr_exog.name[1], "holiday");
        c->stat_exog.n = 1;
        strcpy(c->stat_exog.name[0], "region size");
    }
    if (k == FC_MODEL_TIDE) {   /* without past columns TiDE keeps an unused projection (tensors, no layer) */
        c->hist_exog.n = 1;
        strcpy(c->hist_exog.name[0], "price");
    }
}

static int same_exog(const fc_exog_list *a, const fc_exog_list *b) {
    int same = a->n == b->n;
    for (int i = 0; same && i < a->n; i++) same = !strcmp(a->name[i], b->name[i]);
    return same;
}

static int same_config(const fc_model_config *a, const fc_model_config *b) {
    int same = a->kind == b->kind && a->h == b->h && a->input_size == b->input_size && a->n_outputs == b->n_outputs;
    same = same && same_exog(&a->futr_exog, &b->futr_exog) && same_exog(&a->hist_exog, &b->hist_exog) &&
           same_exog(&a->stat_exog, &b->stat_exog);
    if (a->kind >= FC_MODEL_KIND_COUNT) return same;
    if (a->kind == FC_MODEL_MLP) return same && a->hidden_size == b->hidden_size && a->num_layers == b->num_layers;
    if (a->kind == FC_MODEL_TIDE)
        return same && a->hidden_size == b->hidden_size && a->decoder_output_dim == b->decoder_output_dim &&
               a->temporal_decoder_dim == b->temporal_decoder_dim && a->temporal_width == b->temporal_width &&
               a->num_encoder_layers == b->num_encoder_layers && a->num_decoder_layers == b->num_decoder_layers &&
               a->layernorm == b->layernorm && a->dropout == b->dropout;
    if (a->kind == FC_MODEL_PATCHTST)
        return same && a->hidden_size == b->hidden_size && a->n_heads == b->n_heads &&
               a->linear_hidden_size == b->linear_hidden_size && a->encoder_layers == b->encoder_layers &&
               a->patch_len == b->patch_len && a->stride == b->stride && a->dropout == b->dropout &&
               a->attn_dropout == b->attn_dropout && a->head_dropout == b->head_dropout && a->revin == b->revin &&
               a->revin_affine == b->revin_affine && a->revin_subtract_last == b->revin_subtract_last &&
               a->gelu == b->gelu && a->res_attention == b->res_attention &&
               a->batch_normalization == b->batch_normalization && a->learn_pos_embed == b->learn_pos_embed;
    if (a->kind == FC_MODEL_LSTM)
        return same && a->encoder_n_layers == b->encoder_n_layers && a->decoder_layers == b->decoder_layers &&
               a->encoder_hidden_size == b->encoder_hidden_size && a->decoder_hidden_size == b->decoder_hidden_size;
    same = same && a->n_stacks == b->n_stacks && a->n_units == b->n_units;
    for (int i = 0; same && i < a->n_stacks; i++)
        same = a->stack_types[i] == b->stack_types[i] && a->n_blocks[i] == b->n_blocks[i] &&
               (a->kind != FC_MODEL_NHITS || (a->n_pool_kernel_size[i] == b->n_pool_kernel_size[i] &&
                                              a->n_freq_downsample[i] == b->n_freq_downsample[i]));
    for (int i = 0; same && i < a->n_units; i++)
        same = a->mlp_units[i][0] == b->mlp_units[i][0] && a->mlp_units[i][1] == b->mlp_units[i][1];
    if (a->kind == FC_MODEL_NBEATS || a->kind == FC_MODEL_NBEATSX)
        same = same && a->n_harmonics == b->n_harmonics && a->n_basis == b->n_basis;
    return same;
}

static void check_json(fc_model_kind k) {
    const char *name = fc_model_kind_name(k);
    fc_model_config c, back, plain;
    unusual(&c, k);
    CHECK_MSG(fc_model_config_check(&c) == FC_OK, "%s: %s", name, fc_last_error());
    fc_model_config_default(&plain, k, 10, 20);
    char *text = fc_model_config_to_json(&c), *plain_text = fc_model_config_to_json(&plain);
    CHECK(text && plain_text && strcmp(text, plain_text));   /* the unusual values are written */
    CHECK_MSG(text && fc_model_config_from_json(text, "test", &back) == FC_OK, "%s: %s", name, fc_last_error());
    CHECK_MSG(same_config(&c, &back), "%s: config changed through JSON: %s", name, text);
    char *again = fc_model_config_to_json(&back);
    CHECK_MSG(again && text && !strcmp(again, text), "%s: %s became %s", name, text, again);
    free(text);
    free(plain_text);
    free(again);
}

/* The loops the walk replaced (model_flops.c, memory_plan.c, model.c). */
static size_t old_layers(const fc_model *m, const fc_linear **out) {
    size_t n = 0;
    for (int j = 0; j < m->n_linear; j++) out[n++] = &m->lin[j];
    for (int i = 0; i < m->n_blocks; i++)
        for (int j = 0; j < m->blocks[i].n_linear; j++) out[n++] = &m->blocks[i].lin[j];
    return n;
}

typedef struct {
    const fc_linear *seen[FC_MAX_BLOCKS * FC_MAX_LINEARS + FC_MAX_MODEL_LINEARS];
    size_t n;
    int in_order;
} walk_log;

static fc_status log_layer(const fc_linear *l, size_t index, void *ctx) {
    walk_log *w = ctx;
    w->in_order &= index == w->n;
    w->seen[w->n++] = l;
    return FC_OK;
}

static fc_status stop_at_second(const fc_linear *l, size_t index, void *ctx) {
    (void)l;
    ++*(int *)ctx;
    return index == 1 ? FC_ERR_INVALID : FC_OK;
}

static int ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

/* A dense layer's weight: "<layer>.weight", or nn.LSTM's input projection
 * "weight_ih_l<k>" (its recurrent weight_hh_l<k> is no dense layer); a
 * matrix (a norm's "<norm>.weight" is a vector). */
static int is_layer_weight(const fc_tensor *t) {
    return t->ndim == 2 && (ends_with(t->name, ".weight") || strstr(t->name, ".weight_ih_l"));
}

static void check_walk(fc_model_kind k) {
    const char *name = fc_model_kind_name(k);
    fc_model_config c;
    unusual(&c, k);
    fc_model *m = NULL;
    CHECK_MSG(fc_model_plan(&c, &m) == FC_OK, "%s: %s", name, fc_last_error());
    if (!m) return;
    walk_log w = {.in_order = 1};
    const fc_linear *old[FC_MAX_BLOCKS * FC_MAX_LINEARS + FC_MAX_MODEL_LINEARS];
    size_t n_old = old_layers(m, old);
    CHECK(fc_model_for_each_linear(m, log_layer, &w) == FC_OK && w.in_order);
    CHECK_MSG(w.n == n_old && n_old > 0, "%s: %zu layers walked, %zu looped", name, w.n, n_old);
    for (size_t i = 0; i < w.n && i < n_old; i++) CHECK_MSG(w.seen[i] == old[i], "%s: layer %zu", name, i);
    /* against the tensor table: one visit per weight, table order, shapes (out, in) and (out) */
    size_t weights = 0;
    for (size_t t = 0; t < m->n_tensors; t++) weights += m->tensors[t].trainable && is_layer_weight(&m->tensors[t]);
    CHECK_MSG(w.n == weights, "%s: %zu layers walked, %zu weights in the table", name, w.n, weights);
    for (size_t i = 0; i < w.n; i++) {
        const fc_linear *l = w.seen[i];
        const fc_tensor *wt = &m->tensors[l->w], *bt = &m->tensors[l->b];
        CHECK_MSG(is_layer_weight(wt) && (size_t)wt->shape[0] == l->out &&
                  (size_t)wt->shape[1] == l->in, "%s: layer %zu is %zux%zu, %s is not", name, i, l->out, l->in, wt->name);
        CHECK_MSG((ends_with(bt->name, ".bias") || strstr(bt->name, ".bias_ih_l")) && bt->ndim == 1 && (size_t)bt->shape[0] == l->out, "%s: %s", name, bt->name);
        CHECK_MSG(i == 0 || l->w > w.seen[i - 1]->w, "%s: layer %zu out of table order", name, i);
    }
    /* the flop count the walk gives is the old loops' */
    double flops = 0.0;
    for (size_t i = 0; i < n_old; i++)
        flops += 2.0 * (double)old[i]->rows * (double)old[i]->in * (double)old[i]->out * (i > 0 ? 3.0 : 2.0);
    CHECK_MSG(fc_model_train_flops_per_window(m) == flops, "%s: %.0f flops, want %.0f", name,
              fc_model_train_flops_per_window(m), flops);
    int calls = 0;
    CHECK(fc_model_for_each_linear(m, stop_at_second, &calls) == FC_ERR_INVALID && calls == 2);
    fc_model_free(&m);
}

/* Each kind creates, fills its buffers and runs a forward through its row. */
static void check_dispatch(fc_backend *be, fc_model_kind k) {
    const char *name = fc_model_kind_name(k);
    fc_model_config c;
    unusual(&c, k);
    fc_model *m = NULL;
    CHECK_MSG(fc_model_create(&c, be, &m) == FC_OK, "%s: %s", name, fc_last_error());
    if (!m) return;
    CHECK(m->ops == fc_model_kind_row(k));
    CHECK(fc_model_init_params(m, 5) == FC_OK && fc_model_reserve(m, 2, 1) == FC_OK);
    size_t L = c.input_size, H = c.h * c.n_outputs;
    float *x = be->alloc(be, 2 * L * sizeof(float)), *mask = be->alloc(be, 2 * L * sizeof(float));
    float *y = be->alloc(be, 2 * H * sizeof(float));
    be->fill(be, x, 0.5f, 2 * L);
    be->fill(be, mask, 1.0f, 2 * L);
    /* its exogenous inputs (the unusual configs name future and static ones) */
    size_t fw = (L + c.h) * (size_t)c.futr_exog.n, sw = (size_t)c.stat_exog.n, hw = L * (size_t)c.hist_exog.n;
    float *futr = be->alloc(be, 2 * (fw + 1) * sizeof(float)), *stat = be->alloc(be, 2 * (sw + 1) * sizeof(float));
    float *hist = be->alloc(be, 2 * (hw + 1) * sizeof(float));
    be->fill(be, futr, 0.25f, 2 * (fw + 1));
    be->fill(be, stat, -1.0f, 2 * (sw + 1));
    be->fill(be, hist, 0.5f, 2 * (hw + 1));
    if (fw) {   /* refused until they are given, never read from nowhere */
        CHECK(fc_model_forward(m, y, x, mask, 2) == FC_ERR_INVALID);
        CHECK_CONTAINS(fc_last_error(), "without the exogenous inputs");
    }
    m->exog = (fc_exog_inputs){fw ? futr : NULL, hw ? hist : NULL, sw ? stat : NULL};
    CHECK_MSG(fc_model_forward(m, y, x, mask, 2) == FC_OK, "%s: %s", name, fc_last_error());
    be->fill(be, y, 1.0f, 2 * H);
    CHECK_MSG(fc_model_backward(m, y, 2) == FC_OK, "%s: %s", name, fc_last_error());
    be->release(be, x);
    be->release(be, mask);
    be->release(be, y);
    be->release(be, futr);
    be->release(be, stat);
    be->release(be, hist);
    fc_model_free(&m);
}

static void check_unknown(fc_model_kind k) {
    fc_model_config c;
    fc_model_config_default(&c, k, 6, 12);
    CHECK(c.kind == k && c.h == 6 && c.input_size == 12);
    CHECK(fc_model_config_check(&c) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "unknown kind");
    CHECK_CONTAINS(fc_last_error(), "NHITS, NBEATS, MLP, NBEATSx, LSTM, TiDE or PatchTST");
    fc_model *m = (fc_model *)&c;   /* must be reset, not left pointing anywhere */
    CHECK(fc_model_plan(&c, &m) == FC_ERR_INVALID && m == NULL);
    const fc_model_kind_ops *r = (const fc_model_kind_ops *)&c;
    CHECK(fc_model_kind_lookup(k, &r) == FC_ERR_INVALID && r == NULL);
    CHECK(fc_model_kind_row(k) == NULL);
    CHECK(!strcmp(fc_model_kind_name(k), "?"));
    CHECK(fc_model_config_to_json(&c) == NULL);
}

int main(void) {
    check_rows();
    fc_backend *be = NULL;
    CHECK(fc_backend_cpu_create(1, &be) == FC_OK);
    for (int k = 0; k < FC_MODEL_KIND_COUNT; k++) {
        check_json((fc_model_kind)k);
        check_walk((fc_model_kind)k);
        if (be) check_dispatch(be, (fc_model_kind)k);
    }
    fc_backend_destroy(&be);
    check_unknown(FC_MODEL_KIND_COUNT);
    check_unknown((fc_model_kind)-1);
    check_unknown((fc_model_kind)1000);
    fc_model_kind k;
    CHECK(fc_model_kind_parse("tft", &k) != 0 && fc_model_kind_parse("", &k) != 0);
    fc_model_config c;
    CHECK(fc_model_config_from_json("{\"model\":\"TFT\",\"h\":6,\"input_size\":12}", "x.safetensors", &c) ==
          FC_ERR_FORMAT);
    CHECK_CONTAINS(fc_last_error(), "config field 'model' must be NHITS, NBEATS, MLP, NBEATSx, LSTM, TiDE or PatchTST");
    return CHECK_DONE();
}
