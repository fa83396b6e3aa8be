/* The training losses (kernels/loss.h through the CPU backend's
 * masked_loss): finite-difference gradients of every kind (the
 * DistributionLoss likelihoods over each window's shift and scale too),
 * the values at
 * ties, zero denominators and unobserved points, determinism over thread
 * counts, the output names, and parity with neuralforecast's loss classes
 * (tests/fixtures/losses.safetensors, python/make_loss_fixtures.py). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "check.h"
#include "core/error.h"
#include "io/safetensors.h"
#include "train/forecaster.h"

#define FIXTURE "tests/fixtures/losses.safetensors"
#define NB 4
#define NH 5
#define NL 12

static uint64_t rng_state = 88172645463325252ull;
static float uniform(float lo, float hi) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return lo + (hi - lo) * (float)((rng_state >> 40) * 0x1p-24);
}

static fc_loss_spec spec_of(fc_loss_kind kind, int variant) {
    static const double q3[] = {0.1, 0.5, 0.9};
    fc_loss_spec s = fc_loss_default(kind);
    if (kind == FC_LOSS_HUBER) s.delta = variant ? 2.0f : 0.5f;
    if (kind == FC_LOSS_QUANTILE) s.q[0] = variant ? 0.9f : 0.1f;
    if (kind == FC_LOSS_MASE) s.season = variant ? 4 : 1;
    if (kind == FC_LOSS_HUBER_MQ) s.delta = variant ? 2.0f : 0.5f;
    if (fc_loss_kind_is_multi_quantile(kind) && variant) CHECK(fc_loss_set_quantiles(&s, q3, 3, "test") == FC_OK);
    return s;
}

/* A distribution's inputs: raw outputs in [-1.5, 1.5], a target as in the
 * data (non-negative for the counts: y >= 0 is Poisson's and
 * NegativeBinomial's support) and each window's shift and scale. */
static void distribution_inputs(fc_loss_kind kind, size_t n, size_t Q, size_t windows, float *yhat, float *y_raw,
                                float *loc, float *scale) {
    int counts = kind == FC_LOSS_POISSON || kind == FC_LOSS_NBINOMIAL;
    for (size_t i = 0; i < n * Q; i++) yhat[i] = uniform(-1.5f, 1.5f);
    for (size_t i = 0; i < n; i++) y_raw[i] = counts ? floorf(uniform(0.0f, 6.0f)) : uniform(-2.0f, 4.0f);
    for (size_t w = 0; w < windows; w++) loc[w] = uniform(0.0f, 2.0f), scale[w] = uniform(0.5f, 2.0f);
}

static double loss_of(fc_backend *be, const fc_loss_call *c, float *grad) {
    double loss = NAN;
    CHECK_MSG(fc_backend_loss(be, &loss, grad, 1.0f, c) == FC_OK, "%s", fc_last_error());
    return loss;
}

/* HuberMQ's error d moved so that its huber argument, q |d| below the
 * forecast or (1 - q) d above it, is 0.05 or more from delta: a central
 * difference across the switch of the second derivative is off by ~step. */
static float away_from_huber_switch(float q, float delta, float d) {
    float w = d < 0 ? q : 1.0f - q;
    while (fabsf(w * fabsf(d) - delta) < 0.05f) d *= 1.2f;
    return d;
}

/* (a) Central differences of the backend's loss against its gradient, at
 * points away from every kink (|d|, |d| - delta and |yhat| at least 0.2, a
 * step of 1e-2): the float point losses round at ~1e-7 of the loss, so the
 * difference quotient is good to ~1e-4; a wrong sign, factor or missing
 * term is off by far more. */
static void test_finite_differences(fc_backend *be, fc_loss_kind kind, int variant) {
    fc_loss_spec s = spec_of(kind, variant);
    size_t Q = fc_loss_n_outputs(&s), n = NB * NH;
    float yhat[NB * NH * 5], y[NB * NH], mask[NB * NH], ins[NB * NL], grad[NB * NH * 5];
    for (size_t i = 0; i < n; i++) {
        y[i] = uniform(0.5f, 2.0f) * (i % 2 ? 1.0f : -1.0f);
        mask[i] = i % 5 == 2 ? 0.0f : 1.0f;
        for (size_t j = 0; j < Q; j++) {
            float d = uniform(0.2f, 1.4f) * ((i + j) % 3 ? 1.0f : -1.0f);
            if (fabsf(fabsf(d) - s.delta) < 0.2f) d += d > 0 ? 0.4f : -0.4f;
            yhat[i * Q + j] = y[i] + d;
            if (fabsf(yhat[i * Q + j]) < 0.2f) yhat[i * Q + j] = y[i] - d;   /* SMAPE's |yhat| kink */
            if (kind == FC_LOSS_HUBER_MQ) yhat[i * Q + j] = y[i] + away_from_huber_switch(s.q[j], s.delta, d);
        }
    }
    for (size_t i = 0; i < NB * NL; i++) ins[i] = uniform(-2.0f, 2.0f);
    float y_raw[NB * NH], loc[NB], scale[NB], qp[NB * NH];
    if (fc_loss_kind_is_distribution(kind)) distribution_inputs(kind, n, Q, NB, yhat, y_raw, loc, scale);
    for (size_t i = 0; i < n; i++) qp[i] = uniform(0.05f, 0.95f);   /* IQ: each point's own quantile */
    fc_loss_call c = {.spec = s, .yhat = yhat, .y = y, .mask = mask, .insample = ins, .y_raw = y_raw, .loc = loc,
                      .scale = scale, .q_point = qp, .n = n, .h = NH, .L = NL};
    loss_of(be, &c, grad);
    double worst = 0;
    for (size_t k = 0; k < n * Q; k++) {
        float keep = yhat[k], step = 1e-2f;
        yhat[k] = keep + step;
        double up = loss_of(be, &c, NULL);
        yhat[k] = keep - step;
        double down = loss_of(be, &c, NULL);
        yhat[k] = keep;
        double fd = (up - down) / (double)((keep + step) - (keep - step));
        double err = fabs(fd - grad[k]) / (1e-3 + fabs(fd));
        if (err > worst) worst = err;
        CHECK_MSG(err < 2e-3, "%s/%d: output %zu: gradient %.9g, central difference %.9g",
                  fc_loss_name(s), variant, k, (double)grad[k], fd);
    }
    printf("finite differences %-8s/%d: %zu outputs, worst relative error %.2e\n", fc_loss_name(s), variant,
           n * Q, worst);
}

/* Values at the edges, against torch's rules (kernels/loss.h's comment). */
static void test_edges(fc_backend *be) {
    float y[4] = {0.0f, 1.0f, 0.0f, 3.0f}, yhat[4] = {0.0f, 1.0f, 2.0f, 1e30f}, mask[4] = {1, 1, 1, 0};
    float ins[NL], grad[4 * 5];
    for (int t = 0; t < NL; t++) ins[t] = 1.5f;   /* constant window: MASE's scale 0 */
    fc_loss_call c = {.yhat = yhat, .y = y, .mask = mask, .insample = ins, .n = 4, .h = 4, .L = NL};

    c.spec = spec_of(FC_LOSS_MASE, 0);   /* scale 0: _divide_no_nan gives 0 and a zero gradient */
    CHECK(loss_of(be, &c, grad) == 0.0 && grad[2] == 0.0f);

    c.spec = spec_of(FC_LOSS_SMAPE, 0);  /* 0/0 at point 0; y = 0, yhat = 2: 2 |d| / |yhat| = 2, slope 0 */
    CHECK_CLOSE(loss_of(be, &c, grad), 2.0 / 3.0, 0, 1e-7);
    CHECK(grad[0] == 0.0f && grad[1] == 0.0f && grad[2] == 0.0f && grad[3] == 0.0f);

    c.spec = spec_of(FC_LOSS_MAPE, 0);   /* y = 0: scale _divide_no_nan(1, 0) = 0 */
    CHECK(loss_of(be, &c, grad) == 0.0 && grad[0] == 0.0f && grad[2] == 0.0f);

    c.spec = spec_of(FC_LOSS_MAE, 0);    /* |0| backward: sgn(0) = 0; the wild unobserved forecast adds nothing */
    CHECK_CLOSE(loss_of(be, &c, grad), 2.0 / 3.0, 0, 1e-7);
    CHECK(grad[0] == 0.0f && grad[1] == 0.0f && grad[3] == 0.0f);

    c.spec = spec_of(FC_LOSS_MSE, 0);    /* (1e30)^2 = inf at a masked point: dropped, not 0 * inf */
    CHECK_CLOSE(loss_of(be, &c, grad), 4.0 / 3.0, 0, 1e-7);
    CHECK(grad[3] == 0.0f);

    c.spec = spec_of(FC_LOSS_QUANTILE, 1);   /* a tie of torch.max: half of each side, 0.5 - q */
    loss_of(be, &c, grad);
    CHECK_CLOSE(grad[1], (0.5 - 0.9) / 3.0, 0, 1e-6);

    c.spec = spec_of(FC_LOSS_MQ, 0);     /* the same tie for every quantile of MQ */
    float yq[4 * 5];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++) yq[i * 5 + j] = yhat[i];
    c.yhat = yq;
    loss_of(be, &c, grad);
    for (int j = 0; j < 5; j++) CHECK_CLOSE(grad[5 + j], (0.5 - c.spec.q[j]) / 3.0, 0, 1e-6);

    c.spec = spec_of(FC_LOSS_HUBER_MQ, 0);   /* yhat == y: maximum's tie meets huber's zero slope at 0 */
    c.yhat = yq;
    CHECK(loss_of(be, &c, grad) > 0.0);
    for (int j = 0; j < 5; j++) CHECK(grad[5 + j] == 0.0f);

    c.spec = spec_of(FC_LOSS_HUBER, 1);  /* delta 2: |d| = 2 is on the linear side, slope delta */
    c.yhat = yhat;
    CHECK_CLOSE(loss_of(be, &c, grad), (2.0 * (2.0 - 1.0)) / 3.0, 0, 1e-7);
    CHECK_CLOSE(grad[2], 2.0 / 3.0, 0, 1e-7);

    float none[4] = {0, 0, 0, 0};   /* nothing observed: loss 0, gradient 0 */
    c.mask = none;
    c.spec = spec_of(FC_LOSS_MAPE, 0);
    CHECK(loss_of(be, &c, grad) == 0.0 && grad[1] == 0.0f);
}

/* Same bits for 1 and 2 threads on a batch of several blocks (every kind). */
static void test_threads(fc_backend *one, fc_backend *two) {
    size_t Bn = 700, h = 12, n = Bn * h;
    float *yhat = malloc(n * 5 * sizeof(float)), *y = malloc(n * sizeof(float)), *mask = malloc(n * sizeof(float));
    float *ins = malloc(Bn * NL * sizeof(float)), *g1 = malloc(n * 5 * sizeof(float)), *g2 = malloc(n * 5 * sizeof(float));
    for (size_t i = 0; i < n * 5; i++) yhat[i] = uniform(-3, 3);
    for (size_t i = 0; i < n; i++) y[i] = uniform(-3, 3), mask[i] = i % 6 ? 1.0f : 0.0f;
    for (size_t i = 0; i < Bn * NL; i++) ins[i] = uniform(-3, 3);
    float *y_raw = malloc(n * sizeof(float)), *loc = malloc(Bn * sizeof(float)), *scale = malloc(Bn * sizeof(float));
    float *qp = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) qp[i] = uniform(0.05f, 0.95f);
    for (int kind = 0; kind < FC_LOSS_KINDS; kind++) {
        if (fc_loss_kind_is_distribution(kind)) distribution_inputs(kind, n, 3, Bn, yhat, y_raw, loc, scale);
        fc_loss_call c = {.spec = spec_of(kind, 1), .yhat = yhat, .y = y, .mask = mask, .insample = ins,
                          .y_raw = y_raw, .loc = loc, .scale = scale, .q_point = qp, .n = n, .h = h, .L = NL};
        size_t Q = fc_loss_n_outputs(&c.spec);
        double a = loss_of(one, &c, g1), b = loss_of(two, &c, g2);
        CHECK_MSG(!memcmp(&a, &b, sizeof a) && !memcmp(g1, g2, n * Q * sizeof(float)),
                  "%s: 1 and 2 threads differ (%.17g vs %.17g)", fc_loss_name(c.spec), a, b);
    }
    free(yhat), free(y), free(mask), free(ins), free(g1), free(g2), free(y_raw), free(loc), free(scale), free(qp);
}

/* DistributionLoss's columns, as neuralforecast 3.3's
 * DistributionLoss('Normal', level=[80, 90]).output_names: "" (the sample
 * mean), "-median", "-lo-90", "-lo-80", "-hi-80", "-hi-90"; raw outputs per
 * point its outputsize_multiplier; parameters that survive a model file. */
static void test_distribution_names(void) {
    static const char *const want[] = {"", "-median", "-lo-90", "-lo-80", "-hi-80", "-hi-90"};
    static const size_t params[] = {2, 3, 1, 2};
    char name[FC_LOSS_NAME_MAX], json[256];
    for (int k = FC_LOSS_NORMAL; k <= FC_LOSS_NBINOMIAL; k++) {
        fc_loss_spec s = fc_loss_default(k);
        CHECK_MSG(fc_loss_n_outputs(&s) == params[k - FC_LOSS_NORMAL], "%s: %zu outputs", fc_loss_name(s),
                  fc_loss_n_outputs(&s));
        CHECK(s.n_q == 5 && s.n_samples == 1000 && s.kind == k);
        for (size_t j = 0; j < 6; j++) {
            fc_loss_output_name(&s, j, name);
            CHECK_MSG(!strcmp(name, want[j]), "%s %zu: '%s', want '%s'", fc_loss_name(s), j, name, want[j]);
        }
        s.n_samples = 250;
        CHECK(fc_loss_params_json(&s, json, sizeof json) == FC_OK);
        CHECK_MSG(!strcmp(json, "{\"level\":[80,90],\"num_samples\":250}"), "%s", json);
        fc_loss_spec back = {.kind = k};
        CHECK_MSG(fc_loss_params_parse(json, &back, "test") == FC_OK, "%s", fc_last_error());
        CHECK(back.kind == k && back.n_samples == 250 && back.n_q == 5 && !memcmp(back.q, s.q, sizeof s.q));
    }
    fc_loss_spec bad = {.kind = FC_LOSS_NORMAL};
    CHECK(fc_loss_params_parse("{\"level\":[80]}", &bad, "m.safetensors") == FC_ERR_FORMAT);
    CHECK_CONTAINS(fc_last_error(), "m.safetensors: loss_params field 'num_samples'");
    CHECK(fc_loss_params_parse("{\"level\":[80],\"num_samples\":10,\"delta\":1}", &bad, "m") == FC_ERR_FORMAT);
    CHECK_CONTAINS(fc_last_error(), "field 'delta' does not belong to loss 'normal'");
}

/* Output names as neuralforecast writes them (checked in Python 3.11 with
 * numpy 2: QuantileLoss(0.9).output_names, MQLoss(...).output_names). */
static void test_names(void) {
    char name[FC_LOSS_NAME_MAX];
    fc_loss_spec s = fc_loss_default(FC_LOSS_MAE);
    fc_loss_output_name(&s, 0, name);
    CHECK(!strcmp(name, ""));
    s = spec_of(FC_LOSS_QUANTILE, 1);
    fc_loss_output_name(&s, 0, name);
    CHECK_MSG(!strcmp(name, "_ql0.9"), "%s", name);
    s.q[0] = 0.5f;
    fc_loss_output_name(&s, 0, name);
    CHECK_MSG(!strcmp(name, "_ql0.5"), "%s", name);
    s = fc_loss_default(FC_LOSS_MQ);
    const char *level[] = {"-median", "-lo-90", "-lo-80", "-hi-80", "-hi-90"};
    CHECK(fc_loss_n_outputs(&s) == 5);
    for (size_t j = 0; j < 5; j++) {
        fc_loss_output_name(&s, j, name);
        CHECK_MSG(!strcmp(name, level[j]), "%zu: %s, want %s", j, name, level[j]);
    }
    CHECK(s.q[1] == 0.05f && s.q[2] == 0.1f && s.q[3] == 0.9f && s.q[4] == 0.95f);
    double q[] = {0.05, 0.333, 0.975, 0.5};
    const char *qn[] = {"-lo-90.0", "-lo-33.4", "-hi-95.0", "-median"};
    CHECK(fc_loss_set_quantiles(&s, q, 4, "test") == FC_OK);
    for (size_t j = 0; j < 4; j++) {
        fc_loss_output_name(&s, j, name);
        CHECK_MSG(!strcmp(name, qn[j]), "%zu: %s, want %s", j, name, qn[j]);
    }
    long lv[] = {95, 50};   /* unsorted: the bounds are sorted, the median first */
    CHECK(fc_loss_set_levels(&s, lv, 2, "test") == FC_OK);
    const char *ln[] = {"-median", "-lo-95", "-lo-50", "-hi-50", "-hi-95"};
    for (size_t j = 0; j < 5; j++) {
        fc_loss_output_name(&s, j, name);
        CHECK_MSG(!strcmp(name, ln[j]), "%zu: %s, want %s", j, name, ln[j]);
    }
    CHECK(s.q[1] == 0.025f && s.q[2] == 0.25f);

    /* HuberMQ: the multi-quantile names and its delta through loss_params */
    s = spec_of(FC_LOSS_HUBER_MQ, 1);
    char json[256];
    CHECK(fc_loss_params_json(&s, json, sizeof json) == FC_OK);
    CHECK_MSG(!strcmp(json, "{\"delta\":2,\"quantiles\":[0.1,0.5,0.9]}"), "%s", json);
    fc_loss_spec back = {.kind = FC_LOSS_HUBER_MQ};
    CHECK(fc_loss_params_parse(json, &back, "test") == FC_OK);
    CHECK(back.kind == FC_LOSS_HUBER_MQ && back.delta == 2.0f && back.n_q == 3 && back.q[2] == 0.9f);
    CHECK(fc_loss_params_parse("{\"level\":[80]}", &back, "test") == FC_ERR_FORMAT);   /* delta required */
    CHECK(fc_loss_params_parse("{\"delta\":-1,\"level\":[80]}", &back, "test") == FC_ERR_FORMAT);
    CHECK_CONTAINS(fc_last_error(), "delta");
    back = (fc_loss_spec){.kind = FC_LOSS_MQ};
    CHECK(fc_loss_params_parse("{\"delta\":1,\"level\":[80]}", &back, "test") == FC_ERR_FORMAT);
    CHECK_CONTAINS(fc_last_error(), "does not belong");

    /* bad parameters: clear errors */
    long dup[] = {80, 80}, big[] = {100}, many[] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(fc_loss_set_levels(&s, dup, 2, "--level") == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "twice");
    CHECK(fc_loss_set_levels(&s, big, 1, "--level") == FC_ERR_INVALID);
    CHECK(fc_loss_set_levels(&s, many, 8, "--level") == FC_ERR_INVALID);
    double bad[] = {0.5, 1.0};
    CHECK(fc_loss_set_quantiles(&s, bad, 2, "--quantiles") == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--quantiles");
    s = spec_of(FC_LOSS_MASE, 1);
    CHECK(fc_loss_check(&s, 4, "--loss mase") == FC_ERR_INVALID);
    CHECK(fc_loss_check(&s, 5, "--loss mase") == FC_OK);
}

/* (b) Parity with neuralforecast: every case of the fixture through the
 * CPU backend, loss to 1e-6 relative, gradient to 1e-6. */
typedef struct {
    const char *name, *loss, *params;
    const char *names;   /* the fixture's output_names, as json.dumps writes them */
} fixture_case;

static const fixture_case cases[] = {
    {"mae", "mae", "{}", "[\"\"]"},
    {"mse", "mse", "{}", "[\"\"]"},
    {"huber_d0.5", "huber", "{\"delta\": 0.5}", "[\"\"]"},
    {"huber_d2", "huber", "{\"delta\": 2.0}", "[\"\"]"},
    {"smape", "smape", "{}", "[\"\"]"},
    {"mape", "mape", "{}", "[\"\"]"},
    {"mase_s1", "mase", "{\"seasonality\": 1}", "[\"\"]"},
    {"mase_s4", "mase", "{\"seasonality\": 4}", "[\"\"]"},
    {"quantile_q0.1", "quantile", "{\"q\": 0.1}", "[\"_ql0.1\"]"},
    {"quantile_q0.9", "quantile", "{\"q\": 0.9}", "[\"_ql0.9\"]"},
    {"mq_level", "mq", "{\"level\": [80, 90]}", "[\"-median\", \"-lo-90\", \"-lo-80\", \"-hi-80\", \"-hi-90\"]"},
    {"mq_quantiles", "mq", "{\"quantiles\": [0.1, 0.5, 0.9]}", "[\"-lo-80.0\", \"-median\", \"-hi-80.0\"]"},
    {"huber_mq_level", "huber-mq", "{\"delta\": 0.5, \"level\": [80, 90]}",
     "[\"-median\", \"-lo-90\", \"-lo-80\", \"-hi-80\", \"-hi-90\"]"},
    {"huber_mq_quantiles", "huber-mq", "{\"delta\": 2.0, \"quantiles\": [0.1, 0.5, 0.9]}",
     "[\"-lo-80.0\", \"-median\", \"-hi-80.0\"]"},
};

static const float *tensor(const fc_safetensors *f, const char *cname, const char *part, int ndim,
                           const int64_t *shape) {
    char key[96];
    const float *data = NULL;
    snprintf(key, sizeof key, "%s.%s", cname, part);
    CHECK_MSG(fc_st_get_f32(f, key, ndim, shape, &data) == FC_OK, "%s", fc_last_error());
    return data;
}

static void test_fixture_case(fc_backend *be, const fc_safetensors *f, const fixture_case *fc) {
    fc_loss_spec s;
    CHECK(fc_loss_parse(fc->loss, &s.kind) == 0);
    CHECK_MSG(fc_loss_params_parse(fc->params, &s, FIXTURE) == FC_OK, "%s", fc_last_error());
    const char *meta = fc_st_meta(f, "cases");
    char want[256];
    snprintf(want, sizeof want, "\"name\": \"%s\", \"loss\": \"%s\", \"params\": %s, \"output_names\": %s", fc->name,
             fc->loss, fc->params, fc->names);
    CHECK_MSG(meta && strstr(meta, want), "the fixture does not hold %s", want);
    char names[256] = "[", one[FC_LOSS_NAME_MAX];
    int64_t Q = (int64_t)fc_loss_n_outputs(&s);
    for (int64_t j = 0; j < Q; j++) {
        fc_loss_output_name(&s, (size_t)j, one);
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s\"%s\"", j ? ", " : "", one);
    }
    strcat(names, "]");
    CHECK_MSG(!strcmp(names, fc->names), "%s: output names %s, neuralforecast's %s", fc->name, names, fc->names);

    int64_t bhq[3] = {5, 7, Q}, bh[2] = {5, 7}, bl[2] = {5, 12}, one_d[1] = {1};
    const float *yhat = tensor(f, fc->name, "yhat", 3, bhq), *y = tensor(f, fc->name, "y", 2, bh);
    const float *mask = tensor(f, fc->name, "mask", 2, bh), *ins = tensor(f, fc->name, "insample", 2, bl);
    const float *loss_ref = tensor(f, fc->name, "loss", 1, one_d), *grad_ref = tensor(f, fc->name, "grad", 3, bhq);
    if (!yhat || !y || !mask || !ins || !loss_ref || !grad_ref) return;
    float grad[5 * 7 * FC_MAX_QUANTILES];
    fc_loss_call c = {.spec = s, .yhat = yhat, .y = y, .mask = mask, .insample = ins, .n = 35, .h = 7, .L = 12};
    double loss = loss_of(be, &c, grad);
    double gerr = 0;
    for (int64_t i = 0; i < 35 * Q; i++) {
        double e = fabs((double)grad[i] - grad_ref[i]);
        gerr = e > gerr ? e : gerr;
    }
    CHECK_MSG(fabs(loss - loss_ref[0]) <= 1e-6 * fabs(loss_ref[0]), "%s: loss %.9g, neuralforecast %.9g", fc->name,
              loss, (double)loss_ref[0]);
    CHECK_MSG(gerr <= 1e-6, "%s: gradient off by %.3g", fc->name, gerr);
    printf("neuralforecast %-14s loss %.9g (relative error %.1e), gradient max error %.1e\n", fc->name, loss,
           fabs(loss - loss_ref[0]) / fabs(loss_ref[0]), gerr);
}

static void test_fixture(fc_backend *be) {
    fc_safetensors *f = NULL;
    CHECK_MSG(fc_st_read(FIXTURE, &f) == FC_OK, "%s", fc_last_error());
    if (!f) return;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) test_fixture_case(be, f, &cases[i]);
    fc_st_free(&f);
}

int main(void) {
    fc_backend *be = NULL, *one = NULL;
    CHECK(fc_backend_cpu_create(2, &be) == FC_OK && fc_backend_cpu_create(1, &one) == FC_OK);
    for (int kind = 0; kind < FC_LOSS_KINDS; kind++) {
        test_finite_differences(be, kind, 0);
        if (kind == FC_LOSS_HUBER || kind == FC_LOSS_QUANTILE || kind == FC_LOSS_MASE ||
            fc_loss_kind_is_multi_quantile(kind))
            test_finite_differences(be, kind, 1);
    }
    test_edges(be);
    test_threads(one, be);
    test_names();
    test_distribution_names();
    test_fixture(be);
    fc_backend_destroy(&be);
    fc_backend_destroy(&one);
    return CHECK_DONE();
}
