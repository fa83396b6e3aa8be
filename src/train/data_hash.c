/* Hashes that name a checkpoint's data (see data_hash.h). */
#include <string.h>

#include "train/data_hash.h"

#define FNV_BASIS 1469598103934665603ull
#define FNV_PRIME 1099511628211ull

/* FNV-1a over series i's name (with its NUL) and length, from h. */
static uint64_t index_bytes(uint64_t h, const fc_dataset *ds, size_t i) {
    for (const unsigned char *p = (const unsigned char *)ds->ids[i];; p++) {
        h = (h ^ *p) * FNV_PRIME;
        if (!*p) break;
    }
    uint64_t len = fc_dataset_len(ds, i);
    for (int b = 0; b < 8; b++) h = (h ^ ((len >> (8 * b)) & 0xff)) * FNV_PRIME;
    return h;
}

static uint64_t mix(uint64_t h, uint64_t w) {
    h ^= w + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

static uint64_t mix_bytes(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (; n >= 8; n -= 8, b += 8) {
        uint64_t w;
        memcpy(&w, b, 8);
        h = mix(h, w);
    }
    uint64_t tail = 0;
    memcpy(&tail, b, n);
    return mix(h, tail ^ ((uint64_t)n << 56));
}

/* Series i's columns mixed into h. */
static uint64_t value_bytes(uint64_t h, const fc_dataset *ds, size_t i) {
    size_t r0 = ds->offsets[i], n = fc_dataset_len(ds, i);
    h = mix_bytes(h, ds->ds + r0, n * sizeof *ds->ds);
    h = mix_bytes(h, ds->y + r0, n * sizeof *ds->y);
    h = mix_bytes(h, ds->mask + r0, n);
    if (ds->n_exog) h = mix_bytes(h, ds->exog + r0 * ds->n_exog, n * ds->n_exog * sizeof *ds->exog);
    return h;
}

fc_data_hashes fc_data_hashes_series(const fc_dataset *ds, size_t i) {
    uint64_t index = index_bytes(FNV_BASIS, ds, i);
    return (fc_data_hashes){index, value_bytes(index, ds, i)};
}

fc_data_hashes fc_data_hashes_start(void) {
    return (fc_data_hashes){FNV_BASIS, FNV_BASIS};
}

fc_data_hashes fc_data_hashes_fold(fc_data_hashes acc, fc_data_hashes series) {
    return (fc_data_hashes){mix(acc.index, series.index), mix(acc.values, series.values)};
}

fc_data_hashes fc_data_hashes_of(const fc_dataset *ds) {
    fc_data_hashes h = fc_data_hashes_start();
    size_t since = 0;
    for (size_t i = 0; i < ds->n_series; i++) {
        h = fc_data_hashes_fold(h, fc_data_hashes_series(ds, i));
        fc_dataset_release_every(ds, &since, fc_dataset_len(ds, i), FC_RELEASE_POINTS);
    }
    return h;
}

fc_data_hashes fc_data_hashes_v1(const fc_dataset *ds) {
    uint64_t index = FNV_BASIS;
    for (size_t i = 0; i < ds->n_series; i++) index = index_bytes(index, ds, i);
    uint64_t values = index;
    size_t since = 0;
    for (size_t i = 0; i < ds->n_series; i++) {
        values = value_bytes(values, ds, i);
        fc_dataset_release_every(ds, &since, fc_dataset_len(ds, i), FC_RELEASE_POINTS);
    }
    return (fc_data_hashes){index, values};
}
