/* dropout_prob_theta (N-HiTS, NBEATSx): neuralforecast's nn.Dropout after
 * each hidden ReLU of a block's MLP. Checked against the model without
 * dropout and the same weights: out of training the forecasts are the
 * same bits (dropout is off in eval mode); in training each hidden ReLU
 * output is either 0 or the eval value / (1 - p) (inverted dropout), kept
 * at a rate near 1 - p; the state_dict names shift as neuralforecast's
 * Sequential does (layers.4 after a Dropout slot); NBEATS refuses it, as
 * neuralforecast's NBEATS raises NotImplementedError. The gradient is
 * test_models_grad's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/error.h"
#include "core/rng.h"
#include "models/model.h"

enum { B = 64, L = 24, H = 12, UNITS = 256 };
static const float P = 0.3f;

static fc_model *build(fc_backend *be, double p) {
    fc_model_config c;
    fc_model_config_default(&c, FC_MODEL_NHITS, H, L);
    for (int i = 0; i < c.n_units; i++) c.mlp_units[i][0] = c.mlp_units[i][1] = UNITS;
    c.dropout_prob_theta = p;
    fc_model *m = NULL;
    CHECK_MSG(fc_model_create(&c, be, &m) == FC_OK, "%s", fc_last_error());
    if (!m) return NULL;
    CHECK(fc_model_init_params(m, 7) == FC_OK);
    CHECK(fc_model_reserve(m, B, 1) == FC_OK);
    return m;
}

static void forward(fc_model *m, float *fc, const float *x, const float *mask, int training) {
    m->training = training;
    m->dropout_seed = 0x1234;
    CHECK(fc_model_forward(m, fc, x, mask, B) == FC_OK);
}

/* The first hidden ReLU output of block 0 (its linear 1), B rows. */
static const float *hidden(const fc_model *m) {
    return m->acts + m->blocks[0].a_out[1] * m->capacity;
}

int main(void) {
    fc_backend *be = NULL;
    CHECK(fc_backend_cpu_create(1, &be) == FC_OK);
    fc_model *plain = build(be, 0.0), *drop = build(be, P);
    if (!plain || !drop) return CHECK_DONE();
    CHECK(plain->n_trainable == drop->n_trainable);
    CHECK(memcmp(plain->params, drop->params, plain->n_trainable * sizeof(float)) == 0);   /* same weights */
    CHECK(fc_model_find(plain, "blocks.0.layers.3.weight") && fc_model_find(drop, "blocks.0.layers.4.weight") &&
          !fc_model_find(drop, "blocks.0.layers.3.weight"));

    float *x = malloc(B * L * sizeof(float)), *mask = malloc(B * L * sizeof(float));
    float *a = malloc(B * H * sizeof(float)), *b = malloc(B * H * sizeof(float));
    float *eval_hidden = malloc((size_t)B * UNITS * sizeof(float));
    for (size_t i = 0; i < B * L; i++) {
        x[i] = 2.0f * fc_u32_to_unit_float(fc_rng_block(3, 1, i).v[0]) - 1.0f;
        mask[i] = 1.0f;
    }
    forward(plain, a, x, mask, 1);   /* p = 0: training changes nothing */
    memcpy(eval_hidden, hidden(plain), (size_t)B * UNITS * sizeof(float));
    forward(drop, b, x, mask, 0);
    CHECK_MSG(memcmp(a, b, B * H * sizeof(float)) == 0, "eval mode differs from the model without dropout");

    forward(drop, b, x, mask, 1);
    CHECK(memcmp(a, b, B * H * sizeof(float)) != 0);
    const float *t = hidden(drop);
    size_t positive = 0, kept = 0, wrong = 0;
    for (size_t i = 0; i < (size_t)B * UNITS; i++) {
        if (eval_hidden[i] <= 0.0f) { wrong += t[i] != 0.0f; continue; }
        positive++;
        if (t[i] == 0.0f) continue;
        kept++;
        wrong += t[i] != eval_hidden[i] / (1.0f - P);
    }
    CHECK_MSG(wrong == 0, "%zu hidden values neither 0 nor value / (1 - p)", wrong);
    double rate = (double)kept / (double)positive;   /* ~8000 draws: sd ~0.005 */
    CHECK_MSG(positive > 2000 && fabs(rate - (1.0 - P)) < 0.03, "kept %.4f of %zu, expected %.2f", rate, positive,
              1.0 - P);

    fc_model_config c;
    fc_model_config_default(&c, FC_MODEL_NBEATS, H, L);
    c.dropout_prob_theta = 0.1;
    fc_model *nbeats = NULL;
    CHECK(fc_model_create(&c, be, &nbeats) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "neuralforecast's NBEATS has no dropout");
    c.kind = FC_MODEL_NHITS;
    fc_model_config_default(&c, FC_MODEL_NHITS, H, L);
    c.dropout_prob_theta = 1.0;
    CHECK(fc_model_create(&c, be, &nbeats) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "[0, 1)");

    free(x); free(mask); free(a); free(b); free(eval_hidden);
    fc_model_free(&plain);
    fc_model_free(&drop);
    fc_backend_destroy(&be);
    return CHECK_DONE();
}
