/* Conformal scores in model files (see conformal_file.h). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "train/conformal_file.h"

static char *pack_ids(const fc_conformal *c, size_t *len) {
    size_t n = 0;
    for (size_t s = 0; s < c->n_series; s++) n += strlen(c->ids[s]) + 1;
    char *blob = fc_malloc(n ? n : 1, "conformal series ids"), *p = blob;
    for (size_t s = 0; blob && s < c->n_series; s++) p = stpcpy(p, c->ids[s]) + 1;
    *len = n;
    return blob;
}

fc_status fc_conformal_write(fc_st_writer *w, const fc_conformal *c, char **ids_blob) {
    size_t len;
    char meta[160];
    if (!(*ids_blob = pack_ids(c, &len))) return FC_ERR_MEMORY;
    snprintf(meta, sizeof meta, "{\"method\":\"%s\",\"n_windows\":%zu,\"step_size\":%zu}",
             fc_conformal_method_name(c->method), c->n_windows, c->step_size);
    int64_t shape[3] = {(int64_t)c->n_series, (int64_t)c->n_windows, (int64_t)c->h}, blob_shape[1] = {(int64_t)len};
    FC_TRY(fc_st_writer_add(w, "conformal.scores", FC_DT_F32, 3, shape, c->scores));
    FC_TRY(fc_st_writer_add(w, "conformal.ids", FC_DT_U8, 1, blob_shape, *ids_blob));
    return fc_st_writer_meta(w, "conformal", meta);
}

static fc_status read_meta(const char *text, const char *path, fc_conformal *c) {
    json_error_t err;
    json_t *j = json_loads(text, 0, &err), *m, *n, *s;
    fc_status st = FC_OK;
    if (!j || !json_is_string(m = json_object_get(j, "method")) || !json_is_integer(n = json_object_get(j, "n_windows")) ||
        !json_is_integer(s = json_object_get(j, "step_size")))
        st = fc_error(FC_ERR_FORMAT, "%s: metadata 'conformal' is not {\"method\", \"n_windows\", \"step_size\"}", path);
    else if (fc_conformal_method_parse(json_string_value(m), &c->method))
        st = fc_error(FC_ERR_FORMAT, "%s: metadata 'conformal' field 'method': unknown '%s'", path, json_string_value(m));
    else if (json_integer_value(n) < 2 || json_integer_value(n) > 4096 || json_integer_value(s) < 1)
        st = fc_error(FC_ERR_FORMAT, "%s: metadata 'conformal': n_windows must be 2 to 4096 and step_size >= 1", path);
    else {
        c->n_windows = (size_t)json_integer_value(n);
        c->step_size = (size_t)json_integer_value(s);
    }
    json_decref(j);
    return st;
}

/* The ids: NUL-terminated, strictly increasing (lookups bisect), as many as the scores' series. */
static fc_status read_ids(const fc_safetensors *st, const char *path, fc_conformal *c) {
    const fc_st_tensor *t = fc_st_find(st, "conformal.ids");
    if (!t || t->dtype != FC_DT_U8 || t->ndim != 1)
        return fc_error(FC_ERR_FORMAT, "%s: tensor 'conformal.ids' (U8, one dimension) is missing or malformed", path);
    const char *p = fc_st_data(st, t), *end = p + t->nbytes;
    if (!(c->ids = calloc(c->n_series ? c->n_series : 1, sizeof *c->ids))) return FC_ERR_MEMORY;
    for (size_t s = 0; s < c->n_series; s++) {
        const char *nul = p < end ? memchr(p, 0, (size_t)(end - p)) : NULL;
        if (!nul || (s && strcmp(c->ids[s - 1], p) >= 0))
            return fc_error(FC_ERR_FORMAT, "%s: tensor 'conformal.ids' does not hold %zu sorted, NUL-terminated ids",
                            path, c->n_series);
        if (!(c->ids[s] = strdup(p))) return FC_ERR_MEMORY;
        p = nul + 1;
    }
    if (p != end) return fc_error(FC_ERR_FORMAT, "%s: tensor 'conformal.ids' holds more than %zu ids", path, c->n_series);
    return FC_OK;
}

static fc_status read_scores(const fc_safetensors *st, const char *path, size_t h, fc_conformal *c) {
    const fc_st_tensor *t = fc_st_find(st, "conformal.scores");
    if (!t || t->dtype != FC_DT_F32 || t->ndim != 3 || t->shape[1] != (int64_t)c->n_windows || t->shape[2] != (int64_t)h)
        return fc_error(FC_ERR_FORMAT, "%s: tensor 'conformal.scores' must be F32 (series, %zu windows, h = %zu)", path,
                        c->n_windows, h);
    c->n_series = (size_t)t->shape[0];
    c->h = h;
    if (!(c->scores = fc_malloc(t->nbytes ? t->nbytes : 1, "conformal scores"))) return FC_ERR_MEMORY;
    memcpy(c->scores, fc_st_data(st, t), t->nbytes);
    for (size_t i = 0; i < t->numel; i++)
        if (!(c->scores[i] >= 0.0f) && !isnan(c->scores[i]))   /* NaN: y was missing there */
            return fc_error(FC_ERR_FORMAT, "%s: tensor 'conformal.scores' element %zu is %g, not an absolute error",
                            path, i, (double)c->scores[i]);
        else if (isinf(c->scores[i]))
            return fc_error(FC_ERR_FORMAT, "%s: tensor 'conformal.scores' element %zu is infinite", path, i);
    return FC_OK;
}

fc_status fc_conformal_read(const fc_safetensors *st, const char *path, size_t h, fc_conformal *out, int *present) {
    memset(out, 0, sizeof *out);
    const char *meta = fc_st_meta(st, "conformal");
    *present = meta != NULL;
    if (!meta) {
        if (fc_st_find(st, "conformal.scores") || fc_st_find(st, "conformal.ids"))
            return fc_error(FC_ERR_FORMAT, "%s: conformal tensors without metadata 'conformal'", path);
        return FC_OK;
    }
    fc_status s = read_meta(meta, path, out);
    if (s == FC_OK) s = read_scores(st, path, h, out);
    if (s == FC_OK) s = read_ids(st, path, out);
    if (s != FC_OK) fc_conformal_free(out);
    return s;
}
