/* The window sampler's epochs of series batches, with and without
 * drop_last (neuralforecast's drop_last_loader, torch's
 * DataLoader(drop_last=True)): 5 series in batches of 2 make, per epoch,
 * batches of 2, 2 and 1 series; with drop_last the batch of 1 is skipped,
 * so an epoch is 2 steps over 4 of its 5 series, and the fifth of that
 * epoch's order gives no window. Fewer series than batch-size would leave
 * the loader no batch: refused. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/error.h"
#include "train/windows.h"

enum { N = 5, LEN = 20, L = 4, H = 2, W = 8, BATCH = 2 };

static fc_dataset *five_series(void) {
    fc_dataset *ds = NULL;
    CHECK(fc_dataset_alloc(N, N * LEN, 0, &ds) == FC_OK);
    for (size_t i = 0; i <= N; i++) ds->offsets[i] = i * LEN;
    for (size_t r = 0; r < N * LEN; r++) {
        ds->y[r] = (float)r;
        ds->mask[r] = 1;
        ds->ds[r] = (int64_t)(r % LEN);
    }
    for (size_t i = 0; i < N; i++) {
        char id[8];
        snprintf(id, sizeof id, "s%zu", i);
        ds->ids[i] = strdup(id);
    }
    ds->source = strdup("five series");
    return ds;
}

/* Draws `steps` steps; per epoch, counts its steps and checks that each
 * step's series are the next ones of the epoch's order and its windows
 * theirs. Returns the steps of each of the first 3 epochs in per_epoch. */
static void draw(fc_window_sampler *s, size_t steps, size_t per_epoch[3]) {
    fc_window w[W];
    memset(per_epoch, 0, 3 * sizeof *per_epoch);
    for (size_t k = 0; k < steps; k++) {
        size_t n = fc_window_sampler_next(s, k, w), first = s->cursor - s->step_series;
        if (s->epoch < 3) per_epoch[s->epoch]++;
        CHECK(n == W);
        CHECK_MSG(s->step_series == (s->drop_last || s->cursor < N ? BATCH : N % BATCH),
                  "step %zu: %zu series", k, s->step_series);
        for (size_t j = 0; j < n; j++) {
            int in_step = 0;
            for (size_t p = first; p < s->cursor; p++) in_step |= w[j].series == s->perm[p];
            CHECK_MSG(in_step, "step %zu: window of series %u, not of the step's", k, w[j].series);
            if (s->drop_last) CHECK(w[j].series != s->perm[N - 1]);   /* the epoch's leftover */
        }
    }
}

int main(void) {
    fc_dataset *ds = five_series();
    fc_window_spec spec = {L, H, 1, 0, 0, 0, 0, 0};
    fc_window_sampler s;
    size_t per_epoch[3];

    CHECK_MSG(fc_window_sampler_init(&s, ds, &spec, BATCH, W, 7) == FC_OK, "%s", fc_last_error());
    draw(&s, 9, per_epoch);
    for (int e = 0; e < 3; e++) CHECK_MSG(per_epoch[e] == 3, "without drop_last: epoch %d has %zu steps", e, per_epoch[e]);
    fc_window_sampler_free(&s);

    CHECK_MSG(fc_window_sampler_init(&s, ds, &spec, BATCH, W, 7) == FC_OK, "%s", fc_last_error());
    CHECK_MSG(fc_window_sampler_drop_last(&s, BATCH) == FC_OK, "%s", fc_last_error());
    draw(&s, 6, per_epoch);
    for (int e = 0; e < 3; e++) CHECK_MSG(per_epoch[e] == 2, "with drop_last: epoch %d has %zu steps", e, per_epoch[e]);
    fc_window_sampler_free(&s);

    CHECK(fc_window_sampler_init(&s, ds, &spec, N + 1, W, 7) == FC_OK);
    CHECK(fc_window_sampler_drop_last(&s, N + 1) == FC_ERR_INVALID);
    CHECK_MSG(strstr(fc_last_error(), "--batch-size 6 and 5 series") != NULL, "%s", fc_last_error());
    fc_window_sampler_free(&s);
    CHECK(fc_window_sampler_init(&s, ds, &spec, N, W, 7) == FC_OK);
    CHECK(fc_window_sampler_drop_last(&s, N) == FC_OK);   /* one whole batch per epoch */
    fc_window_sampler_free(&s);

    fc_dataset_free(&ds);
    return CHECK_DONE();
}
