/* Ensemble files (see ensemble_file.h): the members are read and written
 * by model_file.c's part reader and writer under their prefixes; this file
 * adds the "ensemble" metadata and the checks across members. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "data/ds_text.h"
#include "data/freq.h"
#include "train/ensemble_file.h"
#include "train/model_file.h"

#define PREFIX_MAX 32

/* Each member is written into a part of its own as it is added, in any
 * order (members trained side by side finish when they finish); the file
 * joins the parts in member order, so its bytes do not depend on which
 * finished first. */
struct fc_ensemble_writer {
    fc_st_writer *st;           /* the file's own metadata, then the parts */
    fc_st_writer **parts;       /* (n) member i's metadata and tensors; NULL until added */
    fc_model_part_keep *keep;   /* (n) what the parts reference */
    struct {
        fc_ds_kind ds_kind;
        char freq[FC_FREQ_NAME_MAX];
    } *alike;                   /* (n) what the members must share besides h */
    size_t n, added, h;
};

static void member_prefix(char buf[PREFIX_MAX], size_t i) { snprintf(buf, PREFIX_MAX, "member.%zu.", i); }

static int point_loss(const fc_loss_spec *s) {
    return !fc_loss_kind_is_one_quantile(s->kind) && !fc_loss_kind_has_quantile_list(s->kind);
}

fc_status fc_ensemble_writer_new(fc_combine combine, size_t n_members, size_t h, fc_ensemble_writer **out) {
    *out = NULL;
    if (n_members < 1 || n_members > FC_ENSEMBLE_MAX_MEMBERS)
        return fc_error(FC_ERR_INVALID, "an ensemble has 1 to %d members, not %zu", FC_ENSEMBLE_MAX_MEMBERS, n_members);
    fc_ensemble_writer *w = fc_calloc(1, sizeof *w, "ensemble writer");
    if (!w) return FC_ERR_MEMORY;
    w->n = n_members;
    w->h = h;
    w->keep = fc_calloc(n_members, sizeof *w->keep, "ensemble members");
    w->parts = w->keep ? fc_calloc(n_members, sizeof *w->parts, "ensemble members") : NULL;
    w->alike = w->parts ? fc_calloc(n_members, sizeof *w->alike, "ensemble members") : NULL;
    w->st = w->alike ? fc_st_writer_new() : NULL;
    char meta[128];
    snprintf(meta, sizeof meta, "{\"combine\":\"%s\",\"members\":%zu,\"h\":%zu}", fc_combine_name(combine), n_members, h);
    fc_status s = w->st ? FC_OK : FC_ERR_MEMORY;
    if (s == FC_OK) s = fc_st_writer_meta(w->st, "format", "pt");
    if (s == FC_OK) s = fc_st_writer_meta(w->st, "fcast_file_version", FC_MODEL_FILE_VERSION);
    if (s == FC_OK) s = fc_st_writer_meta(w->st, "fcast_version", fc_version());
    if (s == FC_OK) s = fc_st_writer_meta(w->st, "ensemble", meta);
    if (s != FC_OK) fc_ensemble_writer_free(&w);
    *out = w;
    return s;
}

fc_status fc_ensemble_writer_add_at(fc_ensemble_writer *w, size_t i, const fc_forecaster *f) {
    char prefix[PREFIX_MAX];
    if (i >= w->n || w->parts[i])
        return fc_error(FC_ERR_INVALID, "ensemble: member %zu %s", i, i >= w->n ? "is past the members announced"
                                                                              : "was added already");
    if (!point_loss(&f->loss))
        return fc_error(FC_ERR_INVALID, "ensemble member %zu: loss %s gives quantiles, and the median of quantiles "
                        "is not a quantile: ensembles combine point forecasts", i, fc_loss_name(f->loss));
    if (f->model->cfg.h != w->h)
        return fc_error(FC_ERR_INVALID, "ensemble member %zu: h = %zu; the ensemble's is %zu", i, f->model->cfg.h, w->h);
    fc_st_writer *part = fc_st_writer_new();
    if (!part) return FC_ERR_MEMORY;
    member_prefix(prefix, i);
    fc_status st = fc_model_part_write(part, f, prefix, 0, &w->keep[i]);
    if (st != FC_OK) {
        fc_st_writer_free(&part);
        fc_model_part_keep_free(&w->keep[i]);
        return st;
    }
    w->parts[i] = part;
    w->alike[i].ds_kind = f->ds_kind;
    snprintf(w->alike[i].freq, sizeof w->alike[i].freq, "%s", f->freq.name);
    w->added++;
    return FC_OK;
}

fc_status fc_ensemble_writer_add(fc_ensemble_writer *w, const fc_forecaster *f) {
    if (w->added == w->n) return fc_error(FC_ERR_INVALID, "ensemble: more members than the %zu announced", w->n);
    return fc_ensemble_writer_add_at(w, w->added, f);
}

/* Every member of the first's ds kind and frequency (combined point by point). */
static fc_status check_alike(const fc_ensemble_writer *w) {
    for (size_t i = 1; i < w->n; i++)
        if (w->alike[i].ds_kind != w->alike[0].ds_kind || strcmp(w->alike[i].freq, w->alike[0].freq))
            return fc_error(FC_ERR_INVALID, "ensemble member %zu: ds %s, frequency %s; the first member's are ds %s, "
                            "frequency %s", i, fc_ds_kind_name(w->alike[i].ds_kind), w->alike[i].freq,
                            fc_ds_kind_name(w->alike[0].ds_kind), w->alike[0].freq);
    return FC_OK;
}

fc_status fc_ensemble_writer_write(fc_ensemble_writer *w, const char *path) {
    if (w->added != w->n)
        return fc_error(FC_ERR_INVALID, "%s: the ensemble has %zu of its %zu members", path, w->added, w->n);
    FC_TRY(check_alike(w));
    w->added = 0;   /* the parts are spent, also if an append fails: a second write is refused above */
    for (size_t i = 0; i < w->n; i++) {
        FC_TRY(fc_st_writer_append(w->st, w->parts[i]));
        fc_st_writer_free(&w->parts[i]);   /* its entries are the file's now */
    }
    return fc_st_writer_write(w->st, path);
}

void fc_ensemble_writer_free(fc_ensemble_writer **pw) {
    fc_ensemble_writer *w = *pw;
    if (!w) return;
    for (size_t i = 0; w->parts && i < w->n; i++) fc_st_writer_free(&w->parts[i]);
    for (size_t i = 0; w->keep && i < w->n; i++) fc_model_part_keep_free(&w->keep[i]);
    free(w->parts);
    free(w->alike);
    free(w->keep);
    fc_st_writer_free(&w->st);
    free(w);
    *pw = NULL;
}

int fc_ensemble_file_is(const char *path) {
    fc_safetensors *st = NULL;
    if (fc_st_read_header(path, &st) != FC_OK) {
        fc_error_clear();
        return 0;
    }
    int yes = fc_st_meta(st, "ensemble") != NULL;
    fc_st_free(&st);
    return yes;
}

/* "ensemble": {"combine", "members", "h"}, each checked. */
static fc_status read_ensemble_meta(const fc_safetensors *st, const char *path, fc_ensemble *e, size_t *h) {
    const char *text = fc_st_meta(st, "ensemble");
    json_error_t err;
    json_t *j = text ? json_loads(text, 0, &err) : NULL, *c, *n, *hj;
    fc_status s = FC_OK;
    if (!j || !json_is_string(c = json_object_get(j, "combine")) || !json_is_integer(n = json_object_get(j, "members")) ||
        !json_is_integer(hj = json_object_get(j, "h")))
        s = fc_error(FC_ERR_FORMAT, "%s: metadata 'ensemble' is not {\"combine\", \"members\", \"h\"}", path);
    else if (fc_combine_parse(json_string_value(c), &e->combine))
        s = fc_error(FC_ERR_FORMAT, "%s: metadata 'ensemble' field 'combine': unknown '%s' (median or mean)", path,
                     json_string_value(c));
    else if (json_integer_value(n) < 1 || json_integer_value(n) > FC_ENSEMBLE_MAX_MEMBERS)
        s = fc_error(FC_ERR_FORMAT, "%s: metadata 'ensemble' field 'members': %lld is not 1 to %d", path,
                     (long long)json_integer_value(n), FC_ENSEMBLE_MAX_MEMBERS);
    else if (json_integer_value(hj) < 1)
        s = fc_error(FC_ERR_FORMAT, "%s: metadata 'ensemble' field 'h': %lld is not a horizon", path,
                     (long long)json_integer_value(hj));
    else {
        e->n = (size_t)json_integer_value(n);
        *h = (size_t)json_integer_value(hj);
    }
    json_decref(j);
    return s;
}

/* Member i against the ensemble's h and member 0's time axis. */
static fc_status check_member(const fc_ensemble *e, size_t i, size_t h, const char *path) {
    const fc_forecaster *f = &e->members[i], *first = &e->members[0];
    if (!point_loss(&f->loss))
        return fc_error(FC_ERR_FORMAT, "%s: metadata 'member.%zu.loss' is %s: ensemble members have point losses",
                        path, i, fc_loss_name(f->loss));
    if (f->model->cfg.h != h)
        return fc_error(FC_ERR_FORMAT, "%s: member.%zu.config has h = %zu, metadata 'ensemble' field 'h' is %zu",
                        path, i, f->model->cfg.h, h);
    if (f->ds_kind != first->ds_kind || strcmp(f->freq.name, first->freq.name))
        return fc_error(FC_ERR_FORMAT, "%s: metadata 'member.%zu.freq' is %s, member 0's is %s: an ensemble's members "
                        "share their frequency", path, i, f->freq.name, first->freq.name);
    return FC_OK;
}

/* Every tensor belongs to a member below the count (each member's own
 * tensors were checked by the part reader). */
static fc_status check_strays(const fc_safetensors *st, const char *path, size_t n) {
    for (size_t t = 0; t < fc_st_count(st); t++) {
        const char *name = fc_st_at(st, t)->name;
        char *end = NULL;
        /* the index as member_prefix writes it: digits, no sign, space or leading zero */
        int canonical = !strncmp(name, "member.", 7) && name[7] >= '0' && name[7] <= '9' &&
                        !(name[7] == '0' && name[8] != '.');
        unsigned long long i = canonical ? strtoull(name + 7, &end, 10) : n;
        if (i >= n || !end || *end != '.' || end == name + 7)
            return fc_error(FC_ERR_FORMAT, "%s: tensor '%s' belongs to none of the %zu members that metadata "
                            "'ensemble' field 'members' announces", path, name, n);
    }
    return FC_OK;
}

static fc_status load_members(const fc_safetensors *st, const char *path, fc_backend *be, fc_ensemble *e) {
    size_t h = 0;
    FC_TRY(fc_model_file_check_version(st, path));
    FC_TRY(read_ensemble_meta(st, path, e, &h));
    size_t n = e->n;
    e->n = 0;   /* members loaded so far, for fc_ensemble_free */
    if (!(e->members = fc_calloc(n, sizeof *e->members, "ensemble members"))) return FC_ERR_MEMORY;
    for (size_t i = 0; i < n; i++) {
        char prefix[PREFIX_MAX];
        member_prefix(prefix, i);
        FC_TRY(fc_model_part_read(st, path, prefix, be, &e->members[i]));
        e->n++;
        FC_TRY(check_member(e, i, h, path));
    }
    return check_strays(st, path, n);
}

fc_status fc_ensemble_load(const char *path, fc_backend *be, fc_ensemble *out) {
    memset(out, 0, sizeof *out);
    fc_safetensors *st = NULL;
    FC_TRY(fc_st_read(path, &st));
    fc_status s = fc_st_meta(st, "ensemble") ? load_members(st, path, be, out)
                : fc_error(FC_ERR_FORMAT, "%s: metadata 'ensemble' is missing: not an ensemble written by fcast "
                           "ensemble (a single model is read by fc_forecaster_load)", path);
    fc_st_free(&st);
    if (s != FC_OK) fc_ensemble_free(out);
    return s;
}
