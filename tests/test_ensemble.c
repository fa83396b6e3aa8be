/* Ensembles: the median (numpy.median's, even counts included) and the
 * mean of members' forecasts; the ensemble file round trip (every member's
 * configuration, loss, time axis and parameters back); corrupted files
 * (a missing member tensor, another member count, an unknown combination,
 * a member of another horizon) are FC_ERR_FORMAT naming the file and the
 * field; fc_forecaster_load refuses an ensemble saying how to use it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "st_files.h"
#include "core/error.h"
#include "train/ensemble_file.h"
#include "train/model_file.h"
#include "io/safetensors.h"

static const char *PATH = "/tmp/fcast_test_ensemble.safetensors";
static const char *BAD = "/tmp/fcast_test_ensemble_bad.safetensors";

static float combine1(fc_combine c, const float *x, size_t n) {
    const float *values[16];
    for (size_t i = 0; i < n; i++) values[i] = &x[i];
    float out;
    fc_ensemble_combine(c, values, n, 1, &out);
    return out;
}

static void test_combine(void) {
    float odd[] = {3, -1, 7, 2, 5}, even[] = {4, 1, 10, 2}, one[] = {1.5f}, big[] = {3e38f, 3e38f};
    CHECK(combine1(FC_COMBINE_MEDIAN, odd, 5) == 3.0f);
    CHECK(combine1(FC_COMBINE_MEDIAN, even, 4) == 3.0f);   /* (2 + 4) / 2, as numpy.median */
    CHECK(combine1(FC_COMBINE_MEDIAN, one, 1) == 1.5f);
    CHECK(combine1(FC_COMBINE_MEDIAN, big, 2) == 3e38f);   /* no overflow in the middle sum */
    CHECK_CLOSE(combine1(FC_COMBINE_MEAN, odd, 5), 3.2, 0, 1e-7);
    CHECK(combine1(FC_COMBINE_MEAN, even, 4) == 4.25f);
    float with_nan[] = {1, NAN, 3};
    CHECK(isnan(combine1(FC_COMBINE_MEDIAN, with_nan, 3)) && isnan(combine1(FC_COMBINE_MEAN, with_nan, 3)));
    /* per point, over several points at once */
    float a[3] = {1, 10, -5}, b[3] = {2, 20, -6}, c[3] = {9, 15, -4}, out[3];
    const float *v[3] = {a, b, c};
    fc_ensemble_combine(FC_COMBINE_MEDIAN, v, 3, 3, out);
    CHECK(out[0] == 2 && out[1] == 15 && out[2] == -5);
    fc_combine k;
    CHECK(!fc_combine_parse("mean", &k) && k == FC_COMBINE_MEAN && fc_combine_parse("mode", &k));
    CHECK(!strcmp(fc_combine_name(FC_COMBINE_MEDIAN), "median"));
}

/* A small trained-looking member: kind, input size, loss and seed vary. */
static fc_forecaster member(fc_backend *be, fc_model_kind kind, size_t L, fc_loss_kind loss, uint64_t seed) {
    fc_forecaster f = {0};
    fc_model_config c;
    fc_model_config_default(&c, kind, 6, L);
    c.hidden_size = 8;
    c.num_layers = 1;
    for (size_t s = 0; s < 3; s++) c.mlp_units[s][0] = c.mlp_units[s][1] = 8;
    CHECK(fc_model_create(&c, be, &f.model) == FC_OK);
    CHECK(fc_model_init_params(f.model, seed) == FC_OK);
    f.scaler = FC_SCALER_STANDARD;
    f.loss = fc_loss_default(loss);
    f.ds_kind = FC_DS_DATE;
    CHECK(fc_freq_parse("MS", FC_DS_DATE, &f.freq) == FC_OK);
    f.seed = seed;
    f.steps_trained = 5;
    return f;
}

static void write_ensemble(fc_forecaster *m, size_t n, fc_combine combine) {
    fc_ensemble_writer *w = NULL;
    CHECK(fc_ensemble_writer_new(combine, n, 6, &w) == FC_OK);
    for (size_t i = 0; i < n; i++) CHECK_MSG(fc_ensemble_writer_add(w, &m[i]) == FC_OK, "%s", fc_last_error());
    CHECK(fc_ensemble_writer_write(w, PATH) == FC_OK);
    fc_ensemble_writer_free(&w);
}

static void test_round_trip(fc_backend *be, fc_forecaster *m, size_t n) {
    fc_ensemble e;
    CHECK_MSG(fc_ensemble_load(PATH, be, &e) == FC_OK, "%s", fc_last_error());
    CHECK(e.n == n && e.combine == FC_COMBINE_MEAN);
    for (size_t i = 0; i < e.n && i < n; i++) {
        const fc_forecaster *g = &e.members[i], *f = &m[i];
        char *want = fc_model_config_to_json(&f->model->cfg), *got = fc_model_config_to_json(&g->model->cfg);
        CHECK_MSG(want && got && !strcmp(want, got), "member %zu: config %s, want %s", i, got, want);
        free(want);
        free(got);
        CHECK(g->model->n_floats == f->model->n_floats &&
              !memcmp(g->model->params, f->model->params, f->model->n_floats * sizeof(float)));
        CHECK(!memcmp(&g->loss, &f->loss, sizeof f->loss) && g->scaler == f->scaler && g->seed == f->seed);
        CHECK(g->ds_kind == FC_DS_DATE && !strcmp(g->freq.name, "MS") && g->steps_trained == 5);
    }
    fc_ensemble_free(&e);
    CHECK(e.members == NULL);
}

/* PATH into BAD without tensor `drop` and with metadata `key` set to
 * value (NULL: dropped). */
static void rewrite(const char *drop, const char *key, const char *value) { st_rewrite(PATH, BAD, drop, NULL, key, value); }

static void expect_error(fc_backend *be, const char *needle) {
    fc_ensemble e;
    CHECK(fc_ensemble_load(BAD, be, &e) == FC_ERR_FORMAT);
    CHECK_CONTAINS(fc_last_error(), BAD);
    CHECK_CONTAINS(fc_last_error(), needle);
    CHECK(e.members == NULL && e.n == 0);
}

static void test_corrupt(fc_backend *be) {
    rewrite("member.1.blocks.0.layers.0.weight", NULL, NULL);
    expect_error(be, "member.1.blocks.0.layers.0.weight");
    rewrite(NULL, "ensemble", "{\"combine\":\"mean\",\"members\":4,\"h\":6}");
    expect_error(be, "member.3.config");
    rewrite(NULL, "ensemble", "{\"combine\":\"mean\",\"members\":2,\"h\":6}");
    expect_error(be, "member.2.");   /* the third member's tensors belong to none */
    rewrite(NULL, "ensemble", "{\"combine\":\"mode\",\"members\":3,\"h\":6}");
    expect_error(be, "'combine'");
    rewrite(NULL, "ensemble", "{\"combine\":\"mean\",\"members\":3,\"h\":7}");
    expect_error(be, "'h'");
    rewrite(NULL, "ensemble", "{\"combine\":\"mean\",\"members\":0,\"h\":6}");
    expect_error(be, "'members'");
    rewrite(NULL, "ensemble", "[3]");
    expect_error(be, "metadata 'ensemble'");
    rewrite(NULL, "member.2.freq", "QS");
    expect_error(be, "member.2.freq");
    rewrite(NULL, "member.0.loss", "mq");
    expect_error(be, "member.0");
    rewrite(NULL, "fcast_file_version", "999");
    expect_error(be, "retrain");
    rewrite(NULL, "ensemble", NULL);   /* then it reads as a model file without "config" */
    expect_error(be, "metadata 'ensemble' is missing");
}

/* A model file's loader says what an ensemble file is and how to use it. */
static void test_forecaster_load_refuses(fc_backend *be) {
    fc_forecaster g;
    CHECK(fc_forecaster_load(PATH, be, &g) == FC_ERR_FORMAT);
    CHECK_CONTAINS(fc_last_error(), PATH);
    CHECK_CONTAINS(fc_last_error(), "is an ensemble");
    CHECK_CONTAINS(fc_last_error(), "fcast predict --model");
    CHECK(g.model == NULL);
    CHECK(fc_ensemble_file_is(PATH) == 1);
    CHECK(fc_ensemble_file_is("/nonexistent/x.safetensors") == 0);
}

/* The writer refuses quantile members, another horizon, too many members. */
static void test_writer_refusals(fc_backend *be, fc_forecaster *m) {
    fc_ensemble_writer *w = NULL;
    fc_forecaster q = member(be, FC_MODEL_MLP, 12, FC_LOSS_QUANTILE, 1);
    CHECK(fc_ensemble_writer_new(FC_COMBINE_MEDIAN, 1, 6, &w) == FC_OK);
    CHECK(fc_ensemble_writer_add(w, &q) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "median of quantiles");
    CHECK(fc_ensemble_writer_write(w, BAD) == FC_ERR_INVALID);   /* a member short */
    CHECK(fc_ensemble_writer_add(w, &m[0]) == FC_OK);
    CHECK(fc_ensemble_writer_add(w, &m[1]) == FC_ERR_INVALID);
    fc_ensemble_writer_free(&w);
    CHECK(fc_ensemble_writer_new(FC_COMBINE_MEDIAN, 1, 7, &w) == FC_OK);
    CHECK(fc_ensemble_writer_add(w, &m[0]) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "h = 6");
    fc_ensemble_writer_free(&w);
    CHECK(fc_ensemble_writer_new(FC_COMBINE_MEDIAN, 0, 6, &w) == FC_ERR_INVALID && w == NULL);
    fc_forecaster_free(&q);
}

/* The whole of a file, for byte comparisons (NULL when unreadable). */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n > 0 ? malloc((size_t)n) : NULL;
    *len = buf && fread(buf, 1, (size_t)n, f) == (size_t)n ? (size_t)n : 0;
    fclose(f);
    return buf;
}

/* Members added in any order (as members trained side by side finish):
 * the file of the members added in order, byte for byte; a member added
 * twice, or past the count, is refused; members of two frequencies are
 * refused at the write, naming the member. */
static void test_out_of_order(fc_forecaster *m) {
    size_t a_len = 0, b_len = 0;
    char *in_order = slurp(PATH, &a_len);   /* write_ensemble's, in order, mean */
    fc_ensemble_writer *w = NULL;
    CHECK(fc_ensemble_writer_new(FC_COMBINE_MEAN, 3, 6, &w) == FC_OK);
    static const size_t order[] = {2, 0, 1};
    for (size_t k = 0; k < 3; k++) CHECK(fc_ensemble_writer_add_at(w, order[k], &m[order[k]]) == FC_OK);
    CHECK(fc_ensemble_writer_add_at(w, 0, &m[0]) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "member 0 was added already");
    CHECK(fc_ensemble_writer_add_at(w, 3, &m[0]) == FC_ERR_INVALID);
    CHECK(fc_ensemble_writer_write(w, BAD) == FC_OK);
    fc_ensemble_writer_free(&w);
    char *any_order = slurp(BAD, &b_len);
    CHECK(in_order && any_order && a_len == b_len && a_len > 0 && !memcmp(in_order, any_order, a_len));
    free(in_order);
    free(any_order);
    fc_forecaster other = m[1];
    other.freq.name[0] = 0;
    strcat(other.freq.name, "W");
    CHECK(fc_ensemble_writer_new(FC_COMBINE_MEAN, 2, 6, &w) == FC_OK);
    CHECK(fc_ensemble_writer_add_at(w, 1, &other) == FC_OK && fc_ensemble_writer_add_at(w, 0, &m[0]) == FC_OK);
    CHECK(fc_ensemble_writer_write(w, BAD) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "ensemble member 1: ds");
    fc_ensemble_writer_free(&w);
}

int main(void) {
    test_combine();
    fc_backend *be = NULL;
    CHECK(fc_backend_cpu_create(1, &be) == FC_OK);
    fc_forecaster m[3] = {member(be, FC_MODEL_NHITS, 12, FC_LOSS_SMAPE, 1),
                          member(be, FC_MODEL_NBEATS, 18, FC_LOSS_MASE, 2),
                          member(be, FC_MODEL_MLP, 24, FC_LOSS_MAPE, 3)};
    m[1].loss.season = 12;
    write_ensemble(m, 3, FC_COMBINE_MEAN);
    test_round_trip(be, m, 3);
    write_ensemble(m, 3, FC_COMBINE_MEAN);
    test_out_of_order(m);
    test_forecaster_load_refuses(be);
    test_corrupt(be);
    test_writer_refusals(be, m);
    for (size_t i = 0; i < 3; i++) fc_forecaster_free(&m[i]);
    fc_backend_destroy(&be);
    remove(PATH);
    remove(BAD);
    return CHECK_DONE();
}
