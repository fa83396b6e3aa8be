/* safetensors helpers shared by the tests: open a committed fixture, and
 * rewrite a file with one tensor dropped or flattened, or one metadata
 * value changed or dropped (the corrupted files the readers must refuse). */
#ifndef FC_TESTS_ST_FILES_H
#define FC_TESTS_ST_FILES_H

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/error.h"
#include "io/safetensors.h"
#include "models/model.h"

/* tests/fixtures/NAME, read whole (NULL, counted as a failure, if not). */
static inline fc_safetensors *open_fixture(const char *name) {
    char path[256];
    snprintf(path, sizeof path, "%s/tests/fixtures/%s", FC_SOURCE_DIR, name);
    fc_safetensors *f = NULL;
    CHECK_MSG(fc_st_read(path, &f) == FC_OK, "%s", fc_last_error());
    return f;
}

/* Copies every trainable tensor of m from the fixture's param.<name>
 * (checked for its shape), and the buffers that are not computed from the
 * configuration (BatchNorm's running statistics, a drawn W_pos): a
 * neuralforecast state_dict into fcast's model. */
static inline void st_load_state_dict(fc_model *m, const fc_safetensors *f) {
    for (size_t i = 0; i < m->n_tensors; i++) {
        char name[96];
        const float *ref;
        snprintf(name, sizeof name, "param.%s", m->tensors[i].name);
        CHECK_MSG(fc_st_get_f32(f, name, m->tensors[i].ndim, m->tensors[i].shape, &ref) == FC_OK, "%s", fc_last_error());
        const fc_tensor *t = &m->tensors[i];
        if (t->trainable || t->state || t->init_bound > 0.0) memcpy(m->params + m->tensors[i].offset, ref, m->tensors[i].numel * sizeof(float));
    }
}

/* Writes `from` into `to` without tensor `drop`, with tensor `flatten`
 * reshaped to one dimension, and with metadata `meta_key` set to
 * `meta_value` (NULL: dropped); NULL arguments change nothing. */
static inline void st_rewrite(const char *from, const char *to, const char *drop, const char *flatten,
                              const char *meta_key, const char *meta_value) {
    fc_safetensors *in = NULL;
    CHECK(fc_st_read(from, &in) == FC_OK);
    if (!in) return;
    fc_st_writer *w = fc_st_writer_new();
    for (size_t i = 0; i < fc_st_meta_count(in); i++) {
        const char *k, *v;
        fc_st_meta_at(in, i, &k, &v);
        if (meta_key && !strcmp(k, meta_key)) v = meta_value;
        if (v) fc_st_writer_meta(w, k, v);
    }
    for (size_t i = 0; i < fc_st_count(in); i++) {
        const fc_st_tensor *t = fc_st_at(in, i);
        if (drop && !strcmp(t->name, drop)) continue;
        int64_t flat[1] = {(int64_t)t->numel};
        int flattened = flatten && !strcmp(t->name, flatten);
        fc_st_writer_add(w, t->name, t->dtype, flattened ? 1 : t->ndim, flattened ? flat : t->shape,
                         fc_st_data(in, t));
    }
    CHECK(fc_st_writer_write(w, to) == FC_OK);
    fc_st_writer_free(&w);
    fc_st_free(&in);
}

#endif
