/* Dataset lifetime, lookup and the two load entry points (see dataset.h).
 * A file is mapped read-only and parsed in place; parsing itself lives in
 * dataset_parse.c and the grouping/validation in dataset_build.c. */
#include "data/dataset.h"

#include <string.h>
#include <sys/mman.h>
#include "core/error.h"
#include "data/raw_table.h"
#include "data/text_map.h"

fc_status fc_dataset_alloc(size_t n_series, size_t n_rows, size_t n_exog, fc_dataset **out) {
    fc_dataset *d = fc_calloc(1, sizeof *d, "dataset");
    if (!d) return FC_ERR_MEMORY;
    d->n_series = n_series;
    d->n_rows = n_rows;
    d->n_exog = n_exog;
    d->ids = fc_calloc(n_series, sizeof *d->ids, "series ids");
    d->offsets = fc_calloc(n_series + 1, sizeof *d->offsets, "series offsets");
    d->ds = fc_calloc(n_rows, sizeof *d->ds, "ds column");
    d->y = fc_calloc(n_rows, sizeof *d->y, "y column");
    d->mask = fc_calloc(n_rows, sizeof *d->mask, "mask column");
    d->exog_names = fc_calloc(n_exog, sizeof *d->exog_names, "exogenous names");
    d->exog = n_exog && n_rows > SIZE_MAX / n_exog ? NULL
                                                   : fc_calloc(n_rows * n_exog, sizeof *d->exog,
                                                               "exogenous values");
    if (!d->ids || !d->offsets || !d->ds || !d->y || !d->mask || !d->exog_names || !d->exog) {
        fc_dataset_free(&d);
        return fc_error(FC_ERR_MEMORY, "cannot allocate a dataset of %zu series, %zu rows and "
                        "%zu exogenous columns", n_series, n_rows, n_exog);
    }
    *out = d;
    return FC_OK;
}

void fc_dataset_free(fc_dataset **dp) {
    fc_dataset *d = dp ? *dp : NULL;
    if (!d) return;
    for (size_t i = 0; d->ids && i < d->n_series; i++) free(d->ids[i]);
    for (size_t j = 0; d->exog_names && j < d->n_exog; j++) free(d->exog_names[j]);
    for (size_t j = 0; d->static_names && j < d->n_static; j++) free(d->static_names[j]);
    free(d->static_names);
    free(d->static_values);
    free(d->source);
    free(d->ids);
    free(d->offsets);
    free(d->exog_names);
    if (d->map) {
        munmap(d->map, d->map_len);
    } else {
        free(d->ds);
        free(d->y);
        free(d->mask);
        free(d->exog);
        free(d->observed);
    }
    free(d);
    *dp = NULL;
}

/* Series are sorted by unique_id in byte order (strcmp compares bytes as
 * unsigned char), so a binary search finds one in O(log N). */
ssize_t fc_ids_find(char *const *ids, size_t n, const char *id) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ids[mid], id);
        if (c == 0) return (ssize_t)mid;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

ssize_t fc_dataset_find(const fc_dataset *d, const char *id) {
    return fc_ids_find(d->ids, d->n_series, id);
}

/* file_map: text is a private read-only mapping the parser may hand back. */
static fc_status load_text(const char *name, const char *text, size_t len, const fc_load_options *opt,
                           int file_map, fc_dataset **out) {
    fc_raw_table t;
    *out = NULL;
    if (opt && opt->shards > 1)   /* a shard saves only what streaming keeps; whole data is every rank's */
        return fc_error(FC_ERR_INVALID, "%s: only a streamed load keeps a shard of the series",
                        name ? name : "<memory>");
    memset(&t, 0, sizeof t);
    t.source = name ? name : "<memory>";
    t.file_map = file_map && len ? text : NULL;
    if (opt) t.opt = *opt;
    fc_status st = fc_raw_table_parse(&t, text ? text : "", text ? len : 0);
    if (st == FC_OK) st = fc_raw_table_build(&t, out);
    fc_raw_table_free(&t);
    return st;
}

fc_status fc_dataset_load_buffer(const char *name, const char *text, size_t len,
                                 const fc_load_options *opt, fc_dataset **out) {
    return load_text(name, text, len, opt, 0, out);
}

fc_status fc_dataset_load_csv(const char *path, const fc_load_options *opt, fc_dataset **out) {
    const char *text;
    size_t len;
    *out = NULL;
    FC_TRY(fc_text_map_open(path, &text, &len));
    fc_status status = load_text(path, text, len, opt, 1, out);
    fc_text_map_close(text, len);
    return status;
}

void fc_dataset_release_pages(const fc_dataset *d) {
    if (d->map) madvise(d->map, d->map_len, MADV_DONTNEED);
}

void fc_dataset_release_every(const fc_dataset *d, size_t *since, size_t points, size_t every) {
    *since += points;
    if (*since < every) return;
    fc_dataset_release_pages(d);
    *since = 0;
}

void fc_mask_prefix_counts(const uint8_t *mask, const size_t *offsets, size_t n_series, uint32_t *out) {
    for (size_t i = 0; i < n_series; i++) {
        uint32_t *P = out + offsets[i] + i, c = 0;
        P[0] = 0;
        for (size_t r = offsets[i]; r < offsets[i + 1]; r++) {
            c += mask[r] ? 1 : 0;
            P[r - offsets[i] + 1] = c;
        }
    }
}

fc_status fc_dataset_open(const char *path, const fc_load_options *opt, fc_dataset **out) {
    return opt && opt->stream ? fc_dataset_stream_csv(path, opt, out) : fc_dataset_load_csv(path, opt, out);
}

size_t fc_dataset_bytes(const fc_dataset *d) {
    size_t columns = d->map ? 0 : d->n_rows * fc_dataset_point_bytes(d->n_exog);
    size_t b = sizeof *d + columns + (d->n_series + 1) * sizeof *d->offsets + d->n_series * sizeof *d->ids +
               d->n_exog * sizeof *d->exog_names;
    for (size_t i = 0; i < d->n_series; i++) b += d->ids[i] ? strlen(d->ids[i]) + 1 : 0;
    for (size_t j = 0; j < d->n_exog; j++) b += d->exog_names[j] ? strlen(d->exog_names[j]) + 1 : 0;
    return b;
}

ssize_t fc_dataset_find_ds(const fc_dataset *d, size_t s, int64_t when) {
    size_t lo = d->offsets[s], hi = d->offsets[s + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->ds[mid] < when) lo = mid + 1;
        else hi = mid;
    }
    return lo < d->offsets[s + 1] && d->ds[lo] == when ? (ssize_t)(lo - d->offsets[s]) : -1;
}
