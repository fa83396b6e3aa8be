/* Random search and the samplers' shared randomness (see sampler.h). */
#include "tune/sampler.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"

/* Counter layout: trial in the high bits, then parameter, then draw, so
 * that no two (trial, parameter, draw) share a block. */
double fc_tune_unit(uint64_t seed, size_t trial, size_t param, size_t draw) {
    uint64_t index = ((uint64_t)trial << 24) | ((uint64_t)(param & 0xff) << 16) | (uint64_t)(draw & 0xffff);
    fc_philox_out r = fc_rng_block(seed, FC_RNG_STREAM_TUNE, index);
    return fc_u32x2_to_open_double(r.v[0], r.v[1]);
}

void fc_tune_sample_random(const fc_search_space *s, uint64_t seed, size_t trial, double *x) {
    for (size_t j = 0; j < s->n; j++) x[j] = fc_param_from_unit(&s->params[j], fc_tune_unit(seed, trial, j, 0));
}

void fc_tune_history_init(fc_tune_history *h, size_t n_params) {
    memset(h, 0, sizeof *h);
    h->n_params = n_params;
}

fc_status fc_tune_history_add(fc_tune_history *h, const double *x, double score, int usable) {
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 64;
        double *nx = fc_realloc(h->x, cap * (h->n_params ? h->n_params : 1) * sizeof *nx, "tune history");
        if (!nx) return FC_ERR_MEMORY;
        h->x = nx;
        double *ns = fc_realloc(h->score, cap * sizeof *ns, "tune history");
        if (!ns) return FC_ERR_MEMORY;
        h->score = ns;
        unsigned char *nu = fc_realloc(h->usable, cap, "tune history");
        if (!nu) return FC_ERR_MEMORY;
        h->usable = nu;
        h->cap = cap;
    }
    memcpy(h->x + h->n * h->n_params, x, h->n_params * sizeof *x);
    h->score[h->n] = score;
    h->usable[h->n] = (unsigned char)(usable != 0);
    h->n++;
    return FC_OK;
}

void fc_tune_history_free(fc_tune_history *h) {
    free(h->x);
    free(h->score);
    free(h->usable);
    memset(h, 0, sizeof *h);
}
