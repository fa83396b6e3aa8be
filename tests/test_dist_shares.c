/* How the work of an MPI job is shared (dist/dist.h), checked in one
 * process by playing every rank in turn:
 *  - fc_dist_part deals n items to the ranks in whole blocks, contiguous,
 *    rank 0 first, covering [0, n) once, block counts differing by one at
 *    most; ranks past the blocks get nothing;
 *  - fc_cross_validate_dealt with every rank's deal in turn runs each
 *    training once, on the rank (first + g) % ranks, and the rows it leaves
 *    to the others are zero bits: OR-ing the ranks' outputs (what
 *    fc_dist_merge does over MPI) gives one process's forecasts byte for
 *    byte, as `mpirun fcast cv` writes them;
 *  - fc_predict_part over chunk-aligned parts gives fc_predict's bytes;
 *  - alone (no launcher), the job is rank 0 of 1 and a merge changes
 *    nothing; a merge of bytes that are not whole words is refused. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/error.h"
#include "dist/dist.h"
#include "train/cross_validation.h"

static void parts_cover(size_t n, size_t block, int ranks) {
    size_t next = 0, fewest = SIZE_MAX, most = 0;
    for (int r = 0; r < ranks; r++) {
        size_t lo, hi;
        fc_dist_part(n, block, r, ranks, &lo, &hi);
        CHECK_MSG(lo == next && hi >= lo, "n %zu block %zu rank %d of %d: [%zu, %zu) after %zu", n, block, r, ranks,
                  lo, hi, next);
        CHECK_MSG(lo % block == 0 && (hi % block == 0 || hi == n), "rank %d: [%zu, %zu) not on blocks of %zu", r, lo,
                  hi, block);
        size_t blocks = (hi - lo + block - 1) / block;
        fewest = blocks < fewest ? blocks : fewest;
        most = blocks > most ? blocks : most;
        next = hi;
    }
    CHECK_MSG(next == n, "n %zu block %zu ranks %d: the parts end at %zu", n, block, ranks, next);
    CHECK_MSG(most - fewest <= 1, "n %zu block %zu ranks %d: %zu to %zu blocks", n, block, ranks, fewest, most);
}

static void part_properties(void) {
    const size_t blocks[] = {1, 7, 64, 1024};
    for (size_t b = 0; b < 4; b++)
        for (size_t n = 0; n <= 5000; n += n < 50 ? 1 : 97)
            for (int ranks = 1; ranks <= 9; ranks++) parts_cover(n, blocks[b], ranks);
    size_t lo, hi;
    fc_dist_part(1500, 1024, 1, 3, &lo, &hi);   /* 2 blocks over 3 ranks: rank 0 none, 1 the first, 2 the last */
    CHECK(lo == 0 && hi == 1024);
    fc_dist_part(1500, 1024, 0, 3, &lo, &hi);
    CHECK(lo == 0 && hi == 0);
}

/* Four short seasonal series of different lengths. */
static fc_dataset *panel(void) {
    const size_t lens[4] = {80, 96, 70, 120};
    size_t total = 0;
    for (int s = 0; s < 4; s++) total += lens[s];
    fc_dataset *d = NULL;
    CHECK(fc_dataset_alloc(4, total, 0, &d) == FC_OK);
    size_t at = 0;
    for (int s = 0; s < 4; s++) {
        d->offsets[s] = at;
        for (size_t t = 0; t < lens[s]; t++, at++) {
            d->ds[at] = (int64_t)t;
            d->y[at] = 10.0 + s + 3.0 * sin(2.0 * M_PI * (double)t / 12.0 + s) + 0.02 * (double)t;
            d->mask[at] = 1;
        }
        char id[8];
        snprintf(id, sizeof id, "s%d", s);
        d->ids[s] = strdup(id);
    }
    d->offsets[4] = at;
    d->source = strdup("synthetic");
    return d;
}

typedef struct {
    fc_cv_training t;
    size_t fits;
} fit_ctx;

static fc_status fit(void *vctx, const fc_dataset *ds, size_t test_size, fc_forecaster *f) {
    fit_ctx *c = vctx;
    fc_train_summary sum;
    c->fits++;
    return fc_cv_fit(&c->t, ds, test_size, f, &sum);
}

static void dealt_cv_is_one_process(fc_backend *be, const fc_dataset *d) {
    fit_ctx c = {.t = {.scaler = FC_SCALER_IDENTITY, .be = be}};
    fc_model_config_default(&c.t.cfg, FC_MODEL_MLP, 4, 12);
    c.t.cfg.hidden_size = 16;
    fc_train_options_default(&c.t.o);
    c.t.o.max_steps = 5, c.t.o.windows_batch_size = 32, c.t.o.alone = 1, c.t.o.verbose = 0;
    c.t.loss.kind = FC_LOSS_MAE;
    fc_cv_spec cv = {4, 5, 2, 2};   /* 5 windows, a training every 2: 3 trainings */
    fc_cv_origin o[4 * 5];
    size_t n = fc_cv_origins(d, &cv, o), width = 0, w = 0;
    CHECK(fc_cv_trainings(&cv) == 3);
    float *one = NULL;
    CHECK(fc_cross_validate(d, &cv, o, n, fit, &c, &one, &width) == FC_OK);
    CHECK(c.fits == 3 && width == 4 && one);
    for (int ranks = 2; ranks <= 4; ranks++) {
        float *merged = calloc(n * width, sizeof *merged);
        for (int r = 0; r < ranks && merged; r++) {
            float *part = NULL;
            c.fits = 0;
            fc_cv_deal deal = {1, r, ranks};   /* this call's trainings are the job's 1, 2, 3 */
            CHECK(fc_cross_validate_dealt(d, &cv, o, n, fit, &c, &deal, &part, &w) == FC_OK);
            size_t mine = 0;
            for (size_t g = 0; g < 3; g++) mine += (1 + g) % (size_t)ranks == (size_t)r;
            CHECK_MSG(c.fits == mine, "%d ranks, rank %d: %zu trainings, %zu dealt", ranks, r, c.fits, mine);
            CHECK((part == NULL) == (mine == 0));
            uint32_t *a = (uint32_t *)merged, *b = (uint32_t *)part;
            for (size_t i = 0; part && i < n * width; i++) a[i] |= b[i];
            free(part);
        }
        CHECK_MSG(merged && !memcmp(merged, one, n * width * sizeof *one), "%d ranks: not one process's bytes", ranks);
        free(merged);
    }
    free(one);
}

static void predict_parts_are_the_whole(fc_backend *be) {
    enum { SERIES = 300 };   /* chunks of 64 (the model's room after a training at 64 windows) */
    fc_dataset *d = NULL;
    CHECK(fc_dataset_alloc(SERIES, SERIES * 40, 0, &d) == FC_OK);
    for (size_t s = 0, at = 0; s < SERIES; s++) {
        d->offsets[s] = at;
        for (size_t t = 0; t < 40; t++, at++)
            d->ds[at] = (int64_t)t, d->y[at] = (float)(s % 17) + sinf((float)(t + s)), d->mask[at] = 1;
        char id[16];
        snprintf(id, sizeof id, "s%zu", s);
        d->ids[s] = strdup(id);
    }
    d->offsets[SERIES] = SERIES * 40;
    d->source = strdup("synthetic");
    fc_forecaster f = {.scaler = FC_SCALER_IDENTITY, .loss = {.kind = FC_LOSS_MAE}};
    fc_model_config cfg;
    fc_model_config_default(&cfg, FC_MODEL_NHITS, 4, 12);
    CHECK(fc_model_create(&cfg, be, &f.model) == FC_OK && fc_model_init_params(f.model, 7) == FC_OK);
    CHECK(fc_model_reserve(f.model, 64, 0) == FC_OK);
    size_t chunk = fc_predict_chunk(&f, SERIES);
    CHECK(chunk == 64);
    float *whole = calloc(SERIES * 4, sizeof *whole), *parts = calloc(SERIES * 4, sizeof *parts);
    CHECK(whole && parts && fc_predict(&f, d, whole) == FC_OK);
    for (int r = 0; r < 3; r++) {
        size_t lo, hi;
        fc_dist_part(SERIES, chunk, r, 3, &lo, &hi);
        CHECK(fc_predict_part(&f, d, 0, lo, hi, parts) == FC_OK);
    }
    CHECK_MSG(!memcmp(whole, parts, SERIES * 4 * sizeof *whole), "chunk-aligned parts: not the whole's bytes");
    free(whole);
    free(parts);
    fc_forecaster_free(&f);
    fc_dataset_free(&d);
}

static void alone(void) {
    CHECK(fc_dist_start() == FC_OK);
    CHECK(fc_dist_rank() == 0 && fc_dist_size() == 1);
    float x[3] = {1.5f, -0.0f, NAN};
    CHECK(fc_dist_merge(x, sizeof x, 1) == FC_OK);
    CHECK(x[0] == 1.5f && signbit(x[1]) && isnan(x[2]));
    CHECK(fc_dist_merge(x, 6, 0) == FC_ERR_INVALID);
}

int main(void) {
    unsetenv("OMPI_COMM_WORLD_SIZE"), unsetenv("PMI_SIZE"), unsetenv("PMIX_RANK");   /* this process alone */
    part_properties();
    alone();
    fc_backend *be = NULL;
    CHECK(fc_backend_cpu_create(1, &be) == FC_OK);
    fc_dataset *d = panel();
    dealt_cv_is_one_process(be, d);
    predict_parts_are_the_whole(be);
    fc_dataset_free(&d);
    fc_backend_destroy(&be);
    return CHECK_DONE();
}
