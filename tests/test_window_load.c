/* The device path's window body (kernels/window_load.h) against the host
 * path of train/batch.c (fc_window_gather, the scaler, the split), bit for
 * bit: every scaler, on awkward windows (starts before the series, windows
 * past its training part or its end, masked points, an insample with no
 * observed point, L = 1, series of one point), for the training part
 * (val_size held out) and the whole series, reading the dataset's doubles
 * (the CPU) and floats converted first (a GPU). Then the same through the
 * backends' data entries (fc_batch_init_training): the CPU backend here,
 * the CUDA backend too where a GPU is present. A few windows are checked
 * against values written out by hand, and the switch of the device path
 * (streamed data and FCAST_TEST_HOST_BATCHES keep the host path). */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "check.h"
#include "core/error.h"
#include "kernels/window_load.h"
#include "train/batch.h"

/* Four series: awkward values (not exact in float), gaps, a series whose
 * first 8 points are missing, and a series of one point. */
static fc_dataset *make_dataset(void) {
    size_t len[4] = {30, 5, 12, 1}, rows = 48;
    fc_dataset *ds = NULL;
    CHECK(fc_dataset_alloc(4, rows, 0, &ds) == FC_OK);
    if (!ds) return NULL;
    for (size_t i = 0; i < 4; i++) ds->offsets[i + 1] = ds->offsets[i] + len[i];
    for (size_t r = 0; r < rows; r++) {
        ds->mask[r] = (r % 7 == 3) ? 0 : 1;
        ds->y[r] = ds->mask[r] ? 1e6 / 3.0 + (double)r * 0.1 - (double)(r % 5) * 1234.5678 : 0.0;
    }
    for (size_t t = 0; t < 8; t++) ds->mask[ds->offsets[2] + t] = 0, ds->y[ds->offsets[2] + t] = 0.0;
    return ds;
}

/* Every start from wholly before each series to wholly past its end. */
static size_t make_windows(const fc_dataset *ds, size_t L, size_t H, fc_window *w) {
    size_t n = 0;
    for (size_t i = 0; i < ds->n_series; i++)
        for (int64_t s = -(int64_t)(L + H) - 1; s <= (int64_t)fc_dataset_len(ds, i) + 1; s++) {
            if (w) w[n] = (fc_window){(uint32_t)i, s};
            n++;
        }
    return n;
}

typedef struct {
    float *in_y, *in_mask, *out_y, *out_mask, *out_raw, *shift, *scale;
} rows;

static rows rows_alloc(size_t n, size_t L, size_t H) {
    rows r = {calloc(n * L, 4), calloc(n * L, 4), calloc(n * H, 4), calloc(n * H, 4), calloc(n * H, 4),
              calloc(n, 4), calloc(n, 4)};
    return r;
}

static void rows_free(rows *r) {
    free(r->in_y), free(r->in_mask), free(r->out_y), free(r->out_mask), free(r->out_raw), free(r->shift),
        free(r->scale);
}

static int same(const float *a, const float *b, size_t n) { return memcmp(a, b, n * sizeof(float)) == 0; }

/* The body over every window with the given view of the data. */
static void body_rows(const fc_window_data *d, const fc_window *w, size_t n, size_t L, size_t H, size_t hold_out,
                      fc_scaler_kind kind, rows *r) {
    fc_window_batch out = {L, H, hold_out, kind, r->in_y, r->in_mask, r->out_y, r->out_mask, r->out_raw,
                           r->shift, r->scale};
    float *work = malloc(fc_window_load_work(L) * sizeof(float));
    for (size_t k = 0; k < n; k++) {
        fc_window_pos p = {w[k].series, w[k].start};
        fc_window_load(d, &out, p, k, work);
    }
    free(work);
}

static void compare_with_host(const char *what, const rows *r, const fc_batch *b, size_t n, size_t L, size_t H,
                              const char *ctx) {
    CHECK_MSG(same(r->in_y, b->in_y, n * L), "%s: in_y differs (%s)", what, ctx);
    CHECK_MSG(same(r->in_mask, b->in_mask, n * L), "%s: in_mask differs (%s)", what, ctx);
    CHECK_MSG(same(r->out_y, b->out_y, n * H), "%s: out_y differs (%s)", what, ctx);
    CHECK_MSG(same(r->out_mask, b->out_mask, n * H), "%s: out_mask differs (%s)", what, ctx);
    CHECK_MSG(same(r->out_raw, b->out_raw, n * H), "%s: out_raw differs (%s)", what, ctx);
    CHECK_MSG(same(r->shift, b->shift, n), "%s: shift differs (%s)", what, ctx);
    CHECK_MSG(same(r->scale, b->scale, n), "%s: scale differs (%s)", what, ctx);
}

/* The backend's data entries (through batch.c's device path) against the host rows. */
static void compare_backend(fc_backend *be, const char *label, const fc_dataset *ds, const fc_window_spec *spec,
                            const fc_window *w, size_t n, int full, fc_scaler_kind kind, const fc_batch *host,
                            const char *ctx) {
    size_t L = spec->L, H = spec->H;
    fc_batch b;
    fc_status st = fc_batch_init_training(&b, be, n, 1, L, H, 1, ds);
    CHECK_MSG(st == FC_OK && b.data != NULL, "%s: no device path: %s", label, fc_last_error());
    if (st != FC_OK) return;
    CHECK_MSG(b.in_y == NULL && b.win_y == NULL, "%s: the device path keeps host staging", label);
    CHECK_MSG(fc_batch_load(&b, ds, spec, w, n, full, kind) == FC_OK, "%s: %s", label, fc_last_error());
    rows r = rows_alloc(n, L, H);
    be->to_host(be, r.in_y, b.d_in_y, n * L * sizeof(float));
    be->to_host(be, r.in_mask, b.d_in_mask, n * L * sizeof(float));
    be->to_host(be, r.out_y, b.d_out_y, n * H * sizeof(float));
    be->to_host(be, r.out_mask, b.d_out_mask, n * H * sizeof(float));
    be->sync(be);
    CHECK_MSG(same(r.in_y, host->in_y, n * L) && same(r.in_mask, host->in_mask, n * L), "%s: insample differs (%s)",
              label, ctx);
    CHECK_MSG(same(r.out_y, host->out_y, n * H) && same(r.out_mask, host->out_mask, n * H),
              "%s: outsample differs (%s)", label, ctx);
    rows_free(&r);
    fc_batch_free(&b);
}

/* A step's way through the same entries: all n windows staged at once,
 * then gathered in two micro-batches of a batch with room for half. */
static void compare_staged(fc_backend *be, const char *label, const fc_dataset *ds, const fc_window_spec *spec,
                           const fc_window *w, size_t n, fc_scaler_kind kind, const fc_batch *host, const char *ctx) {
    size_t L = spec->L, H = spec->H, half = (n + 1) / 2;
    fc_batch b;
    if (fc_batch_init_training(&b, be, half, 2, L, H, 1, ds) != FC_OK || !b.data) {
        CHECK_MSG(0, "%s: no device path: %s", label, fc_last_error());
        return;
    }
    rows r = rows_alloc(n, L, H);
    CHECK_MSG(fc_batch_stage(&b, w, n) == FC_OK, "%s: %s", label, fc_last_error());
    for (size_t first = 0; first < n; first += half) {
        size_t len = n - first < half ? n - first : half;
        CHECK_MSG(fc_batch_load_staged(&b, ds, spec, first, len, kind) == FC_OK, "%s: %s", label, fc_last_error());
        be->to_host(be, r.in_y + first * L, b.d_in_y, len * L * sizeof(float));
        be->to_host(be, r.out_y + first * H, b.d_out_y, len * H * sizeof(float));
        be->to_host(be, r.out_mask + first * H, b.d_out_mask, len * H * sizeof(float));
    }
    be->sync(be);
    CHECK_MSG(same(r.in_y, host->in_y, n * L) && same(r.out_y, host->out_y, n * H) &&
                  same(r.out_mask, host->out_mask, n * H), "%s: staged gathers differ (%s)", label, ctx);
    /* past what was staged, or more than a gather holds: refused, nothing written */
    fc_window_batch out = {L, H, spec->val_size, kind, b.d_in_y, b.d_in_mask, b.d_out_y, b.d_out_mask, NULL, NULL,
                           NULL};
    CHECK(be->data_gather(be, b.data, n, 1, &out) == FC_ERR_INVALID);
    CHECK(be->data_gather(be, b.data, 0, half + 1, &out) == FC_ERR_INVALID);
    CHECK(be->data_stage(be, b.data, (const fc_window_pos *)w, 2 * half + 1) == FC_ERR_INVALID);
    rows_free(&r);
    fc_batch_free(&b);
}

static const char *SCALERS[4] = {"identity", "standard", "robust", "minmax"};

static void one_case(fc_backend **be, const char **label, int nbe, const fc_dataset *ds, size_t L, size_t H,
                     size_t val, int full, fc_scaler_kind kind) {
    char ctx[128];
    snprintf(ctx, sizeof ctx, "L=%zu H=%zu val_size=%zu %s %s", L, H, val, full ? "whole" : "training",
             SCALERS[kind]);
    size_t n = make_windows(ds, L, H, NULL);
    fc_window *w = malloc(n * sizeof *w);
    make_windows(ds, L, H, w);
    fc_window_spec spec = {L, H, 1, val, 0.0, 0.0, 0, 0};
    fc_batch host;
    CHECK(fc_batch_init(&host, be[0], n, L, H, 1) == FC_OK);
    CHECK(fc_batch_load(&host, ds, &spec, w, n, full, kind) == FC_OK);
    size_t hold_out = full ? 0 : val;
    /* the dataset's doubles, as the CPU reads them */
    fc_window_data d64 = {NULL, ds->y, ds->mask, ds->offsets, ds->n_series, ds->n_rows};
    rows r = rows_alloc(n, L, H);
    body_rows(&d64, w, n, L, H, hold_out, kind, &r);
    compare_with_host("body on doubles", &r, &host, n, L, H, ctx);
    /* floats converted first, as a GPU keeps them */
    float *yf = malloc(ds->n_rows * sizeof(float));
    for (size_t i = 0; i < ds->n_rows; i++) yf[i] = (float)ds->y[i];
    fc_window_data d32 = {yf, NULL, ds->mask, ds->offsets, ds->n_series, ds->n_rows};
    rows r32 = rows_alloc(n, L, H);
    body_rows(&d32, w, n, L, H, hold_out, kind, &r32);
    compare_with_host("body on floats", &r32, &host, n, L, H, ctx);
    for (int b = 0; b < nbe; b++) compare_backend(be[b], label[b], ds, &spec, w, n, full, kind, &host, ctx);
    for (int b = 0; b < nbe && !full; b++) compare_staged(be[b], label[b], ds, &spec, w, n, kind, &host, ctx);
    rows_free(&r32);
    free(yf);
    rows_free(&r);
    fc_batch_free(&host);
    free(w);
}

/* Windows written out by hand (identity scaler: the values themselves). */
static void by_hand(const fc_dataset *ds) {
    fc_window_data d = {NULL, ds->y, ds->mask, ds->offsets, ds->n_series, ds->n_rows};
    float iy[3], im[3], oy[2], om[2], raw[2], shift, scale, work[3];
    fc_window_batch out = {3, 2, 4, FC_SCALER_IDENTITY, iy, im, oy, om, raw, &shift, &scale};
    fc_window_pos p = {0, -2};   /* two points of left padding */
    fc_window_load(&d, &out, p, 0, work);
    CHECK(iy[0] == 0.0f && iy[1] == 0.0f && iy[2] == (float)ds->y[0] && im[0] == 0.0f && im[2] == 1.0f);
    CHECK(oy[0] == (float)ds->y[1] && oy[1] == (float)ds->y[2] && raw[1] == oy[1] && shift == 0.0f && scale == 1.0f);
    CHECK(om[0] == 1.0f && im[1] == 0.0f);
    p = (fc_window_pos){0, 24};  /* series 0 has 30 points, 26 before the 4 held out */
    fc_window_load(&d, &out, p, 0, work);
    CHECK(iy[0] == (float)ds->y[24] && iy[1] == (float)ds->y[25] && im[2] == 0.0f && iy[2] == 0.0f);
    CHECK(om[0] == 0.0f && om[1] == 0.0f && oy[0] == 0.0f);
    CHECK(ds->mask[3] == 0);     /* a missing point inside: value 0, mask 0 */
    p = (fc_window_pos){0, 1};
    fc_window_load(&d, &out, p, 0, work);
    CHECK(im[0] == 1.0f && im[1] == 1.0f && im[2] == 0.0f && iy[2] == 0.0f && om[0] == 1.0f);
    /* standard scaler over an insample of one observed point: shift = the value, scale = 1 + eps */
    out.scaler = FC_SCALER_STANDARD;
    out.hold_out = 0;            /* series 3 has one point: the whole series */
    p = (fc_window_pos){3, -2};
    fc_window_load(&d, &out, p, 0, work);
    CHECK(shift == (float)ds->y[ds->offsets[3]] && scale == 1.0f + FC_SCALER_EPS && iy[2] == 0.0f);
}

/* On for data in memory on a backend with the entries; off for a streamed
 * dataset and under the test hook. */
static void path_switch(fc_backend *cpu, const fc_dataset *ds) {
    size_t per = 0;
    CHECK(fc_batch_device_path(cpu, ds) == 1);
    CHECK(fc_batch_data_bytes(cpu, ds, 100, 1, 24, &per) >= 100 * per && per == sizeof(fc_window_pos) + 24 * 4);
    CHECK(fc_batch_data_bytes(cpu, ds, 100, 3, 24, &per) >= 100 * per && per == 3 * sizeof(fc_window_pos) + 24 * 4);
    fc_dataset streamed = *ds;
    streamed.map = &streamed;   /* only its presence matters */
    CHECK(fc_batch_device_path(cpu, &streamed) == 0 && fc_batch_data_bytes(cpu, &streamed, 100, 1, 24, &per) == 0);
    setenv("FCAST_TEST_HOST_BATCHES", "1", 1);
    CHECK(fc_batch_device_path(cpu, ds) == 0);
    fc_batch b;
    CHECK(fc_batch_init_training(&b, cpu, 8, 1, 3, 2, 1, ds) == FC_OK && b.data == NULL && b.in_y != NULL);
    fc_batch_free(&b);
    setenv("FCAST_TEST_HOST_BATCHES", "0", 1);
    CHECK(fc_batch_device_path(cpu, ds) == 1);
    unsetenv("FCAST_TEST_HOST_BATCHES");
}

/* Stand-in marks on the CPU backend (whose copies are synchronous): they
 * only count, so the double-buffered host path of train/batch.c runs here
 * as it runs on a GPU. */
static int marks_recorded, marks_waited;
static fc_status fake_record(fc_backend *be, void **mark) {
    (void)be;
    if (!*mark) *mark = malloc(1);
    marks_recorded++;
    return FC_OK;
}
static fc_status fake_wait(fc_backend *be, void *mark) {
    (void)be, (void)mark;
    marks_waited++;
    return FC_OK;
}
static void fake_free(fc_backend *be, void *mark) {
    (void)be;
    free(mark);
}

/* Two staging sets alternate: each load fills the set the device read two
 * loads ago, after waiting for that set's copies only, and every load's
 * rows are those of a one-set batch. */
static void double_buffered_host_path(fc_backend *cpu, const fc_dataset *ds) {
    fc_backend marked = *cpu;
    marked.mark_record = fake_record;
    marked.mark_wait = fake_wait;
    marked.mark_free = fake_free;
    size_t L = 3, H = 2, n = make_windows(ds, L, H, NULL);
    fc_window *w = malloc(n * sizeof *w);
    make_windows(ds, L, H, w);
    fc_window_spec spec = {L, H, 1, 0, 0.0, 0.0, 0, 0};
    fc_batch one, two;
    CHECK(fc_batch_init(&one, cpu, n, L, H, 1) == FC_OK && one.n_sets == 1);
    CHECK(fc_batch_init(&two, &marked, n, L, H, 1) == FC_OK && two.n_sets == 2);
    CHECK(fc_batch_host_bytes(&marked, n, L, H) == fc_batch_host_bytes(cpu, n, L, H) +
                                                      fc_batch_extra_set_bytes(n, L, H));
    size_t half = n / 2;
    const float *first_set = NULL;
    for (int load = 0; load < 3; load++) {
        const fc_window *at = w + (load % 2) * half;
        CHECK(fc_batch_load(&one, ds, &spec, at, half, 0, FC_SCALER_STANDARD) == FC_OK);
        CHECK(fc_batch_load(&two, ds, &spec, at, half, 0, FC_SCALER_STANDARD) == FC_OK);
        CHECK_MSG(same(one.in_y, two.in_y, half * L) && same(one.out_y, two.out_y, half * H) &&
                      same(one.out_mask, two.out_mask, half * H), "load %d: the two-set batch differs", load);
        if (load == 0) first_set = two.in_y;
        CHECK_MSG((two.in_y == first_set) == (load % 2 == 0), "load %d filled the wrong set", load);
    }
    /* three loads: three marks, and one wait (the third load reuses the first set) */
    CHECK_MSG(marks_recorded == 3 && marks_waited == 1, "%d marks recorded, %d waits", marks_recorded, marks_waited);
    fc_batch_free(&one);
    fc_batch_free(&two);
    free(w);
}

int main(void) {
    fc_dataset *ds = make_dataset();
    if (!ds) return CHECK_DONE();
    fc_backend *be[2];
    const char *label[2] = {"cpu", "cuda"};
    int nbe = 0;
    CHECK(fc_backend_cpu_create(2, &be[nbe]) == FC_OK);
    nbe++;
    if (fc_backend_create("cuda", 1, &be[nbe], NULL, 0) == FC_OK) nbe++;
    else printf("cuda: skipped (%s)\n", fc_last_error());
    by_hand(ds);
    path_switch(be[0], ds);
    double_buffered_host_path(be[0], ds);
    size_t Ls[] = {1, 3, 8}, Hs[] = {1, 4}, vals[] = {0, 4};
    for (size_t a = 0; a < 3; a++)
        for (size_t h = 0; h < 2; h++)
            for (size_t v = 0; v < 2; v++)
                for (int full = 0; full < 2; full++)
                    for (int k = 0; k < 4; k++)
                        one_case(be, label, nbe, ds, Ls[a], Hs[h], vals[v], full, (fc_scaler_kind)k);
    for (int b = 0; b < nbe; b++) fc_backend_destroy(&be[b]);
    fc_dataset_free(&ds);
    return CHECK_DONE();
}
