/* In-process forecast latency: fc_predict of B series with a trained model,
 * the work one batch of fcast serve's executor does (serve/batcher.c).
 *
 * For B in 1, 8, 64, 256 and for 1 thread and all cores, prints the time
 * per call and per series (median of 5 runs of N calls). At small B the
 * forward pass reads every weight once for few rows, so its time is the
 * model's bytes over the memory bandwidth: printed as the effective
 * bandwidth at B = 1 (the model's fp32 weights / the time per call), next
 * to the per-series time at larger B, which shows what batching buys.
 * Matrix products are oneDNN's fp32 kernels (the CPU backend's; fcast
 * serves in fp32, as fcast predict does).
 *
 *   bench_predict MODEL.safetensors DATA.csv      (DATA: history on the model's frequency) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/error.h"
#include "train/model_file.h"
#include "train/forecaster.h"
#include "train/progress.h"

#define RUNS 5

/* B copies of the last input_size points of the data's first series. */
static fc_status tails(const fc_dataset *src, size_t L, size_t B, fc_dataset **out) {
    size_t n = fc_dataset_len(src, 0), take = n < L ? n : L, from = src->offsets[1] - take;
    FC_TRY(fc_dataset_alloc(B, B * take, 0, out));
    fc_dataset *d = *out;
    d->ds_kind = src->ds_kind;
    d->freq = src->freq;
    for (size_t i = 0; i < B; i++) {
        d->offsets[i] = i * take;
        memcpy(d->y + i * take, src->y + from, take * sizeof *d->y);
        memcpy(d->mask + i * take, src->mask + from, take);
        memcpy(d->ds + i * take, src->ds + from, take * sizeof *d->ds);
    }
    d->offsets[B] = B * take;
    return FC_OK;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over RUNS of the mean seconds per call of `calls` calls. */
static double time_calls(fc_forecaster *f, const fc_dataset *d, float *out, int calls) {
    double t[RUNS];
    for (int w = 0; w < 20; w++) fc_predict(f, d, out);   /* kernels built, caches warm */
    for (int r = 0; r < RUNS; r++) {
        double t0 = fc_now();
        for (int i = 0; i < calls; i++) fc_predict(f, d, out);
        t[r] = (fc_now() - t0) / calls;
    }
    qsort(t, RUNS, sizeof *t, by_value);
    return t[RUNS / 2];
}

static int run(const char *model, const char *data, int threads) {
    fc_backend *be = NULL;
    fc_forecaster f = {0};
    fc_dataset *src = NULL;
    if (fc_backend_cpu_create(threads, &be) != FC_OK || fc_forecaster_load(model, be, &f) != FC_OK) {
        fprintf(stderr, "bench_predict: %s\n", fc_last_error());
        return 1;
    }
    fc_load_options lo = {.freq = f.freq.name, .drop_exog = 1};
    if (fc_dataset_load_csv(data, &lo, &src) != FC_OK) {
        fprintf(stderr, "bench_predict: %s\n", fc_last_error());
        return 1;
    }
    size_t L = f.model->cfg.input_size, H = f.model->cfg.h, sizes[] = {1, 8, 64, 256};
    /* room for the largest batch first, as fcast serve reserves it: inference
     * runs in chunks no larger than the room a model already has */
    if (fc_model_reserve(f.model, 256, 0) != FC_OK) return 1;
    double weight_mb = (double)f.model->n_trainable * sizeof(float) / 1e6, base = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t B = sizes[k];
        fc_dataset *d = NULL;
        float *out = malloc(B * H * sizeof *out);
        if (!out || tails(src, L, B, &d) != FC_OK) return 1;
        double s = time_calls(&f, d, out, B == 1 ? 400 : (int)(3200 / B));
        if (B == 1) base = s;
        printf("  threads %-2d B %-4zu %9.1f us/call %8.2f us/series  %5.2fx a lone series' cost", be->threads, B,
               s * 1e6, s * 1e6 / (double)B, base / (s / (double)B));
        if (B == 1) printf("  (%.1f MB of fp32 weights: %.1f GB/s)", weight_mb, weight_mb / 1e3 / s);
        printf("\n");
        free(out);
        fc_dataset_free(&d);
    }
    fc_dataset_free(&src);
    fc_forecaster_free(&f);
    fc_backend_destroy(&be);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: bench_predict MODEL.safetensors DATA.csv\n");
        return 2;
    }
    printf("fc_predict of B series (fp32 products on oneDNN), median of %d runs:\n", RUNS);
    int rc = run(argv[1], argv[2], 1);
    return rc ? rc : run(argv[1], argv[2], 0);
}
