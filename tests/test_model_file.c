/* Model files: a saved forecaster loads back with the same configuration,
 * metadata and parameters; files from another version, with a missing or
 * misshapen tensor, or without fcast metadata are clear errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/error.h"
#include "io/model_file.h"
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
    f.loss = FC_LOSS_MSE;
    f.ds_kind = FC_DS_DATE;
    CHECK(fc_freq_parse("MS", FC_DS_DATE, &f.freq) == FC_OK);
    f.seed = 3;
    f.steps_trained = 17;
    return f;
}

/* Rewrites PATH into BAD with one tensor dropped or reshaped, or one metadata value changed. */
static void rewrite(const char *drop, const char *reshape, const char *meta_key, const char *meta_value) {
    fc_safetensors *in = NULL;
    CHECK(fc_st_read(PATH, &in) == FC_OK);
    fc_st_writer *w = fc_st_writer_new();
    for (size_t i = 0; i < fc_st_meta_count(in); i++) {
        const char *k, *v;
        fc_st_meta_at(in, i, &k, &v);
        if (meta_key && !strcmp(k, meta_key)) v = meta_value;
        if (v) fc_st_writer_meta(w, k, v);
    }
    for (size_t i = 0; i < fc_st_count(in); i++) {
        const fc_st_tensor *t = fc_st_at(in, i);
        if (drop && !strcmp(t->name, drop)) continue;
        int64_t shape[2] = {t->shape[0], t->ndim > 1 ? t->shape[1] : 1};
        int ndim = t->ndim;
        if (reshape && !strcmp(t->name, reshape)) { shape[0] = (int64_t)t->numel; ndim = 1; }
        fc_st_writer_add(w, t->name, t->dtype, ndim, shape, fc_st_data(in, t));
    }
    CHECK(fc_st_writer_write(w, BAD) == FC_OK);
    fc_st_writer_free(&w);
    fc_st_free(&in);
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

int main(void) {
    fc_backend *be = NULL;
    CHECK(fc_backend_cpu_create(1, &be) == FC_OK);
    fc_forecaster f = make(be), g;
    CHECK(fc_forecaster_save(&f, PATH) == FC_OK);
    CHECK_MSG(fc_forecaster_load(PATH, be, &g) == FC_OK, "%s", fc_last_error());
    CHECK(g.model && g.model->n_floats == f.model->n_floats);
    CHECK(g.model && !memcmp(g.model->params, f.model->params, f.model->n_floats * sizeof(float)));
    CHECK(g.model && !memcmp(&g.model->cfg, &f.model->cfg, sizeof f.model->cfg));
    CHECK(g.scaler == FC_SCALER_ROBUST && g.loss == FC_LOSS_MSE && g.ds_kind == FC_DS_DATE);
    CHECK(!strcmp(g.freq.name, "MS") && g.seed == 3 && g.steps_trained == 17);
    fc_forecaster_free(&g);
    test_device_fault(be, &f);

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
    test_long_integer_freq(be, &f);
    fc_forecaster_free(&f);
    fc_backend_destroy(&be);
    remove(PATH);
    remove(BAD);
    return CHECK_DONE();
}
