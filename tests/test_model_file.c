/* Model files: a saved forecaster loads back with the same configuration,
 * metadata and parameters; files from another version, with a missing or
 * misshapen tensor, or without fcast metadata are clear errors; MQ models
 * carry neuralforecast's loss.quantiles tensors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "st_files.h"
#include "core/error.h"
#include "train/model_file.h"
#include "io/safetensors.h"

static const char *PATH = "/tmp/fcast_test_model_file.safetensors";
static const char *BAD = "/tmp/fcast_test_model_file_bad.safetensors";

static fc_forecaster make(fc_backend *be) {
    fc_forecaster f = {0};
    fc_model_config c;
    fc_model_config_default(&c, FC_MODEL_NBEATS, 6, 12);
    c.n_units = 2;
    c.mlp_units[0][0] = c.mlp_units[0][1] = c.mlp_units[1][0] = c.mlp_units[1][1] = 8;
    CHECK(fc_model_create(&c, be, &f.model) == FC_OK);
    CHECK(fc_model_init_params(f.model, 3) == FC_OK);
    f.scaler = FC_SCALER_ROBUST;
    f.loss = fc_loss_default(FC_LOSS_MSE);
    f.ds_kind = FC_DS_DATE;
    CHECK(fc_freq_parse("MS", FC_DS_DATE, &f.freq) == FC_OK);
    f.seed = 3;
    f.steps_trained = 17;
    return f;
}

/* PATH into BAD with one tensor dropped or reshaped, or one metadata value changed. */
static void rewrite(const char *drop, const char *reshape, const char *meta_key, const char *meta_value) {
    st_rewrite(PATH, BAD, drop, reshape, meta_key, meta_value);
}

/* Rewrites PATH into BAD with element `index` of tensor `name` set to v:
 * a crafted model whose weights are not finite (issue 10). */
static void poison(const char *name, size_t index, float v) {
    fc_safetensors *in = NULL;
    CHECK(fc_st_read(PATH, &in) == FC_OK);
    fc_st_writer *w = fc_st_writer_new();
    for (size_t i = 0; i < fc_st_meta_count(in); i++) {
        const char *k, *val;
        fc_st_meta_at(in, i, &k, &val);
        fc_st_writer_meta(w, k, val);
    }
    float *copy = NULL;
    for (size_t i = 0; i < fc_st_count(in); i++) {
        const fc_st_tensor *t = fc_st_at(in, i);
        const void *data = fc_st_data(in, t);
        if (!strcmp(t->name, name)) {
            CHECK(index < t->numel && (copy = malloc(t->nbytes)) != NULL);
            memcpy(copy, data, t->nbytes);
            copy[index] = v;
            data = copy;
        }
        fc_st_writer_add(w, t->name, t->dtype, t->ndim, t->shape, data);
    }
    CHECK(copy != NULL);
    CHECK(fc_st_writer_write(w, BAD) == FC_OK);
    fc_st_writer_free(&w);
    free(copy);
    fc_st_free(&in);
}

/* Rewrites PATH into BAD with the loss's name and parameters replaced
 * (params NULL: the key dropped, as in files from before it existed). */
static void rewrite_loss(const char *name, const char *params) {
    fc_safetensors *in = NULL;
    CHECK(fc_st_read(PATH, &in) == FC_OK);
    fc_st_writer *w = fc_st_writer_new();
    for (size_t i = 0; i < fc_st_meta_count(in); i++) {
        const char *k, *v;
        fc_st_meta_at(in, i, &k, &v);
        if (!strcmp(k, "loss")) v = name;
        if (!strcmp(k, "loss_params")) v = params;
        if (v) fc_st_writer_meta(w, k, v);
    }
    for (size_t i = 0; i < fc_st_count(in); i++) {
        const fc_st_tensor *t = fc_st_at(in, i);
        fc_st_writer_add(w, t->name, t->dtype, t->ndim, t->shape, fc_st_data(in, t));
    }
    CHECK(fc_st_writer_write(w, BAD) == FC_OK);
    fc_st_writer_free(&w);
    fc_st_free(&in);
}

static void expect_error(fc_backend *be, const char *needle) {
    fc_forecaster g;
    CHECK(fc_forecaster_load(BAD, be, &g) == FC_ERR_FORMAT);
    CHECK_CONTAINS(fc_last_error(), BAD);
    CHECK_CONTAINS(fc_last_error(), needle);
    CHECK(g.model == NULL);
}

/* The optional run configuration lands in __metadata__ as "run_config",
 * verbatim; a file without one has no such key; loading ignores it and the
 * file version does not change. */
static void test_run_config(fc_backend *be, fc_forecaster *f) {
    const char *json = "{\"max_steps\":5,\"learning_rate\":0.001,\"data\":\"caf\u00e9.csv\"}";
    fc_safetensors *in = NULL;
    CHECK(fc_st_read(PATH, &in) == FC_OK);   /* saved without one */
    CHECK(in && fc_st_meta(in, "run_config") == NULL);
    fc_st_free(&in);
    f->run_config_json = json;
    CHECK(fc_forecaster_save(f, BAD) == FC_OK);
    f->run_config_json = NULL;
    CHECK(fc_st_read(BAD, &in) == FC_OK);
    const char *got = in ? fc_st_meta(in, "run_config") : NULL;
    CHECK_MSG(got && !strcmp(got, json), "run_config '%s'", got ? got : "(none)");
    CHECK(in && !strcmp(fc_st_meta(in, "fcast_file_version"), FC_MODEL_FILE_VERSION));
    fc_st_free(&in);
    fc_forecaster g;
    CHECK_MSG(fc_forecaster_load(BAD, be, &g) == FC_OK, "%s", fc_last_error());
    CHECK(g.run_config_json == NULL);
    fc_forecaster_free(&g);
}

/* Every loss saves its parameters ("loss_params") and loads them back,
 * with the model's outputs per point following from them. */
static void test_loss_round_trip(fc_backend *be, const fc_loss_spec *want, const char *params) {
    fc_forecaster f = {0}, g;
    fc_model_config c;
    fc_model_config_default(&c, FC_MODEL_MLP, 6, 12);
    c.hidden_size = 8;
    c.num_layers = 1;
    c.n_outputs = fc_loss_n_outputs(want);
    CHECK(fc_model_create(&c, be, &f.model) == FC_OK);
    CHECK(fc_model_init_params(f.model, 3) == FC_OK);
    f.loss = *want;
    CHECK(fc_freq_parse("1", FC_DS_INDEX, &f.freq) == FC_OK);
    CHECK(fc_forecaster_save(&f, BAD) == FC_OK);
    fc_safetensors *in = NULL;
    CHECK(fc_st_read(BAD, &in) == FC_OK);
    const char *got = in ? fc_st_meta(in, "loss_params") : NULL;
    CHECK_MSG(got && !strcmp(got, params), "%s: loss_params '%s', want '%s'", fc_loss_name(*want), got ? got : "(none)",
              params);
    fc_st_free(&in);
    CHECK_MSG(fc_forecaster_load(BAD, be, &g) == FC_OK, "%s", fc_last_error());
    CHECK_MSG(g.model && !memcmp(&g.loss, want, sizeof *want), "%s: the loss changed on the way", fc_loss_name(*want));
    CHECK(g.model && g.model->cfg.n_outputs == fc_loss_n_outputs(want));
    fc_forecaster_free(&g);
    fc_forecaster_free(&f);
}

static void test_losses(fc_backend *be) {
    fc_loss_spec s = fc_loss_default(FC_LOSS_HUBER);
    s.delta = 0.5f;
    test_loss_round_trip(be, &s, "{\"delta\":0.5}");
    s = fc_loss_default(FC_LOSS_QUANTILE);
    s.q[0] = 0.9f;
    test_loss_round_trip(be, &s, "{\"q\":0.9}");
    s = fc_loss_default(FC_LOSS_MASE);
    s.season = 4;
    test_loss_round_trip(be, &s, "{\"seasonality\":4}");
    s = fc_loss_default(FC_LOSS_MQ);
    test_loss_round_trip(be, &s, "{\"level\":[80,90]}");
    double q[] = {0.1, 0.5, 0.9};
    CHECK(fc_loss_set_quantiles(&s, q, 3, "test") == FC_OK);
    test_loss_round_trip(be, &s, "{\"quantiles\":[0.1,0.5,0.9]}");
    s = fc_loss_default(FC_LOSS_SMAPE);
    test_loss_round_trip(be, &s, "{}");

    /* A file from before loss_params: the name alone, the kind's defaults. */
    fc_forecaster g;
    rewrite_loss("mse", NULL);
    CHECK_MSG(fc_forecaster_load(BAD, be, &g) == FC_OK, "%s", fc_last_error());
    CHECK(g.loss.kind == FC_LOSS_MSE && g.loss.n_q == 1);
    fc_forecaster_free(&g);
    rewrite_loss("huber", NULL);
    CHECK_MSG(fc_forecaster_load(BAD, be, &g) == FC_OK, "%s", fc_last_error());
    CHECK(g.loss.kind == FC_LOSS_HUBER && g.loss.delta == 1.0f);
    fc_forecaster_free(&g);

    /* Unknown losses and bad parameters: FC_ERR_FORMAT naming the file and the field. */
    rewrite_loss("pinball", "{}");
    expect_error(be, "unknown loss 'pinball'");
    rewrite_loss("huber", "{\"delta\":-1}");
    expect_error(be, "loss_params");
    rewrite_loss("huber", "{\"delta\":\"big\"}");
    expect_error(be, "'delta'");
    rewrite_loss("mse", "{\"delta\":1}");
    expect_error(be, "'delta' does not belong to loss 'mse'");
    rewrite_loss("quantile", "{\"q\":1.5}");
    expect_error(be, "quantile 1.5");
    rewrite_loss("mase", "{\"seasonality\":12}");   /* the input size is 12 */
    expect_error(be, "'seasonality'");
    rewrite_loss("mq", "{\"level\":[80,80]}");
    expect_error(be, "level 80 given twice");
    rewrite_loss("mq", "{\"quantiles\":[0.1,0.5],\"level\":[80]}");
    expect_error(be, "one list");
    rewrite_loss("mq", "[1]");
    expect_error(be, "not a JSON object");
}

/* MQ models hold neuralforecast's loss.quantiles and valid_loss.quantiles
 * (F32 (Q,), first, as in its state_dict). Loading takes files with or
 * without them and refuses quantiles that are not the loss's. */
enum { QT_KEEP, QT_DROP, QT_CHANGE, QT_RESHAPE };

/* Copies src into BAD with the quantile tensors dropped, one element
 * changed or one element short, and `extra` (a stray tensor) added. */
static void rewrite_quantiles(const char *src, int how, const char *extra) {
    fc_safetensors *in = NULL;
    CHECK(fc_st_read(src, &in) == FC_OK);
    fc_st_writer *w = fc_st_writer_new();
    for (size_t i = 0; i < fc_st_meta_count(in); i++) {
        const char *k, *v;
        fc_st_meta_at(in, i, &k, &v);
        fc_st_writer_meta(w, k, v);
    }
    float changed[FC_MAX_QUANTILES], one[1] = {0.5f};
    for (size_t i = 0; i < fc_st_count(in); i++) {
        const fc_st_tensor *t = fc_st_at(in, i);
        const void *data = fc_st_data(in, t);
        int64_t shape[1] = {t->shape[0]};
        if (strstr(t->name, "loss.quantiles")) {
            if (how == QT_DROP) continue;
            memcpy(changed, data, t->nbytes);
            changed[0] += 0.01f;
            if (how == QT_CHANGE && !strcmp(t->name, "loss.quantiles")) data = changed;
            if (how == QT_RESHAPE && !strcmp(t->name, "valid_loss.quantiles")) shape[0]--;
        }
        fc_st_writer_add(w, t->name, t->dtype, t->ndim == 1 ? 1 : t->ndim, t->ndim == 1 ? shape : t->shape, data);
    }
    if (extra) fc_st_writer_add(w, extra, FC_DT_F32, 1, (int64_t[]){1}, one);
    CHECK(fc_st_writer_write(w, BAD) == FC_OK);
    fc_st_writer_free(&w);
    fc_st_free(&in);
}

static void test_mq_tensors(fc_backend *be) {
    static const char *MQ = "/tmp/fcast_test_model_file_mq.safetensors";
    fc_forecaster f = {0}, g;
    fc_model_config c;
    fc_model_config_default(&c, FC_MODEL_MLP, 6, 12);
    c.hidden_size = 8;
    c.num_layers = 1;
    f.loss = fc_loss_default(FC_LOSS_MQ);
    double q[] = {0.1, 0.5, 0.9};
    CHECK(fc_loss_set_quantiles(&f.loss, q, 3, "test") == FC_OK);
    c.n_outputs = fc_loss_n_outputs(&f.loss);
    CHECK(fc_model_create(&c, be, &f.model) == FC_OK);
    CHECK(fc_model_init_params(f.model, 3) == FC_OK);
    CHECK(fc_freq_parse("1", FC_DS_INDEX, &f.freq) == FC_OK);
    CHECK(fc_forecaster_save(&f, MQ) == FC_OK);
    fc_safetensors *in = NULL;
    CHECK(fc_st_read(MQ, &in) == FC_OK);
    for (size_t i = 0; in && i < 2; i++) {
        const fc_st_tensor *t = fc_st_at(in, i);
        const float *v = fc_st_data(in, t);
        CHECK_MSG(!strcmp(t->name, i ? "valid_loss.quantiles" : "loss.quantiles"), "tensor %zu is '%s'", i, t->name);
        CHECK(t->dtype == FC_DT_F32 && t->ndim == 1 && t->shape[0] == 3);
        CHECK(v[0] == 0.1f && v[1] == 0.5f && v[2] == 0.9f);
    }
    CHECK(in && fc_st_count(in) == f.model->n_tensors + 2);
    fc_st_free(&in);
    CHECK_MSG(fc_forecaster_load(MQ, be, &g) == FC_OK, "%s", fc_last_error());
    CHECK(g.model && !memcmp(&g.loss, &f.loss, sizeof f.loss));
    fc_forecaster_free(&g);

    rewrite_quantiles(MQ, QT_DROP, NULL);   /* a file from before them */
    CHECK_MSG(fc_forecaster_load(BAD, be, &g) == FC_OK, "%s", fc_last_error());
    fc_forecaster_free(&g);
    rewrite_quantiles(MQ, QT_CHANGE, NULL);
    CHECK(fc_forecaster_load(BAD, be, &g) == FC_ERR_FORMAT);
    CHECK_CONTAINS(fc_last_error(), "tensor 'loss.quantiles' element 0");
    rewrite_quantiles(MQ, QT_RESHAPE, NULL);
    CHECK(fc_forecaster_load(BAD, be, &g) == FC_ERR_FORMAT);
    CHECK_CONTAINS(fc_last_error(), "valid_loss.quantiles");
    rewrite_quantiles(MQ, QT_KEEP, "extra.weight");
    CHECK(fc_forecaster_load(BAD, be, &g) == FC_ERR_FORMAT);
    CHECK_CONTAINS(fc_last_error(), "and the loss's quantiles");
    fc_forecaster_free(&f);
    remove(MQ);
}

/* An integer step of 16+ digits is stored whole and loads back (issue 10:
 * a 16-byte name cut it, and predict refused the model train wrote). */
static void test_long_integer_freq(fc_backend *be, fc_forecaster *f) {
    fc_forecaster h = *f, g;
    h.ds_kind = FC_DS_INDEX;
    CHECK(fc_freq_parse("1234567890123456789", FC_DS_INDEX, &h.freq) == FC_OK);
    CHECK(fc_forecaster_save(&h, BAD) == FC_OK);
    CHECK_MSG(fc_forecaster_load(BAD, be, &g) == FC_OK, "%s", fc_last_error());
    CHECK(g.ds_kind == FC_DS_INDEX && g.freq.unit == FC_FREQ_FIXED && g.freq.step == 1234567890123456789);
    fc_forecaster_free(&g);
}

/* A device whose earlier kernel failed (a fault surfaces in a later copy,
 * which returns nothing; fc_backend.status reports it): the model is not
 * written from a copy that holds nothing, and no file appears. */
static fc_status failed_status(fc_backend *be) {
    (void)be;
    return fc_error(FC_ERR_BACKEND, "CUDA: an earlier kernel failed (stand-in)");
}

static void test_device_fault(fc_backend *be, fc_forecaster *f) {
    fc_backend faulty = *be;
    faulty.host_visible = 0;   /* the GPU's path: copy to the host, then check */
    faulty.status = failed_status;
    fc_backend *real = f->model->be;
    f->model->be = &faulty;
    remove(BAD);
    CHECK(fc_forecaster_save(f, BAD) == FC_ERR_BACKEND);
    CHECK_CONTAINS(fc_last_error(), "an earlier kernel failed");
    FILE *left = fopen(BAD, "rb");
    CHECK_MSG(left == NULL, "a model file was written from a failed device");
    if (left) fclose(left);
    f->model->be = real;
}

/* Weights that are not finite are never written (a trained model whose
 * training diverged): the message names the file, the steps and the first
 * bad element; a file already there is kept. An ensemble member likewise,
 * under its prefix. */
static void test_non_finite_weights(fc_forecaster *f) {
    CHECK(fc_forecaster_save(f, BAD) == FC_OK);
    fc_tensor *t = NULL;
    for (size_t i = 0; i < f->model->n_tensors; i++)
        if (!strcmp(f->model->tensors[i].name, "blocks.0.layers.0.weight")) t = &f->model->tensors[i];
    CHECK(t != NULL);
    if (!t) return;
    float *w = f->model->params + t->offset, keep13 = w[13], keep14 = w[14];
    w[13] = NAN;
    w[14] = -INFINITY;
    CHECK(fc_forecaster_save(f, BAD) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), BAD);
    CHECK_CONTAINS(fc_last_error(), "not written: the weights after 17 training steps are not finite");
    CHECK_CONTAINS(fc_last_error(), "tensor 'blocks.0.layers.0.weight' element 13 [1, 1] is NaN; 2 of its");
    fc_forecaster g;
    CHECK_MSG(fc_forecaster_load(BAD, f->model->be, &g) == FC_OK, "the file before was not kept: %s", fc_last_error());
    fc_forecaster_free(&g);
    fc_st_writer *sw = fc_st_writer_new();
    fc_model_part_keep keep = {0};
    CHECK(fc_model_part_write(sw, f, "member.2.", 0, &keep) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "tensor 'member.2.blocks.0.layers.0.weight' element 13");
    fc_model_part_keep_free(&keep);
    fc_st_writer_free(&sw);
    w[13] = keep13;
    w[14] = keep14;
}

int main(void) {
    fc_backend *be = NULL;
    CHECK(fc_backend_cpu_create(1, &be) == FC_OK);
    fc_forecaster f = make(be), g;
    CHECK(fc_forecaster_save(&f, PATH) == FC_OK);
    CHECK_MSG(fc_forecaster_load(PATH, be, &g) == FC_OK, "%s", fc_last_error());
    CHECK(g.model && g.model->n_floats == f.model->n_floats);
    CHECK(g.model && !memcmp(g.model->params, f.model->params, f.model->n_floats * sizeof(float)));
    CHECK(g.model && !memcmp(&g.model->cfg, &f.model->cfg, sizeof f.model->cfg));
    CHECK(g.scaler == FC_SCALER_ROBUST && g.loss.kind == FC_LOSS_MSE && g.ds_kind == FC_DS_DATE);
    CHECK(!strcmp(g.freq.name, "MS") && g.seed == 3 && g.steps_trained == 17);
    fc_forecaster_free(&g);
    test_device_fault(be, &f);
    test_non_finite_weights(&f);

    rewrite(NULL, NULL, "fcast_file_version", "999");
    expect_error(be, "retrain");
    rewrite("blocks.1.layers.3.weight", NULL, NULL, NULL);
    expect_error(be, "blocks.1.layers.3.weight");
    rewrite(NULL, "blocks.0.layers.0.weight", NULL, NULL);
    expect_error(be, "blocks.0.layers.0.weight");
    rewrite(NULL, NULL, "config", "{\"model\": \"NHITS\", \"h\": 6}");
    expect_error(be, "config");
    /* a configuration claiming a 40 GB model is refused on its shapes, before any allocation */
    rewrite(NULL, NULL, "config", "{\"model\":\"NBEATS\",\"h\":6,\"input_size\":12,\"stack_types\":[\"identity\"],"
                                  "\"n_blocks\":[1],\"mlp_units\":[[100000,100000]]}");
    expect_error(be, "blocks.0.layers.0.weight");
    rewrite(NULL, NULL, "config", "{\"model\":\"NHITS\",\"h\":6,\"input_size\":12,\"stack_types\":[\"identity\"],"
                                  "\"n_blocks\":[4294967297],\"mlp_units\":[[8,8]],\"n_pool_kernel_size\":[1],"
                                  "\"n_freq_downsample\":[1]}");
    expect_error(be, "n_blocks");
    rewrite(NULL, NULL, "scaler_type", "fancy");
    expect_error(be, "scaler_type");
    rewrite(NULL, NULL, "fcast_file_version", NULL);   /* dropped: not an fcast model file */
    expect_error(be, "fcast_file_version");

    /* Non-finite weights: refused, naming the tensor and the first bad element. */
    poison("blocks.0.layers.0.weight", 13, NAN);
    expect_error(be, "tensor 'blocks.0.layers.0.weight': element 13 [1, 1] is NaN");
    poison("blocks.1.layers.3.bias", 0, INFINITY);
    expect_error(be, "tensor 'blocks.1.layers.3.bias': element 0 [0] is inf");
    poison("blocks.0.layers.0.weight", 0, -INFINITY);
    expect_error(be, "-inf");
    expect_error(be, "finite");
    poison("blocks.0.layers.0.weight", 0, 3.0e38f);   /* large but finite: loads */
    CHECK_MSG(fc_forecaster_load(BAD, be, &g) == FC_OK, "%s", fc_last_error());
    fc_forecaster_free(&g);

    test_run_config(be, &f);
    test_losses(be);
    test_mq_tensors(be);
    test_long_integer_freq(be, &f);
    fc_forecaster_free(&f);
    fc_backend_destroy(&be);
    remove(PATH);
    remove(BAD);
    return CHECK_DONE();
}
