/* Saving and loading forecasters as safetensors (see model_file.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "data/ds_text.h"
#include "data/freq.h"
#include "io/conformal_file.h"
#include "io/model_file.h"
#include "io/safetensors.h"

static fc_status add_metadata(fc_st_writer *w, const fc_forecaster *f) {
    char num[32];
    char *config = fc_model_config_to_json(&f->model->cfg);
    if (!config) return fc_error(FC_ERR_MEMORY, "cannot encode the model configuration");
    fc_status st = fc_st_writer_meta(w, "format", "pt");   /* lets safetensors.torch load it */
    if (st == FC_OK) st = fc_st_writer_meta(w, "fcast_file_version", FC_MODEL_FILE_VERSION);
    if (st == FC_OK) st = fc_st_writer_meta(w, "fcast_version", fc_version());
    if (st == FC_OK) st = fc_st_writer_meta(w, "model", fc_model_kind_name(f->model->cfg.kind));
    if (st == FC_OK) st = fc_st_writer_meta(w, "config", config);
    if (st == FC_OK) st = fc_st_writer_meta(w, "scaler_type", fc_scaler_name(f->scaler));
    if (st == FC_OK) st = fc_st_writer_meta(w, "loss", fc_loss_name(f->loss));
    char params[512];
    if (st == FC_OK) st = fc_loss_params_json(&f->loss, params, sizeof params);
    if (st == FC_OK) st = fc_st_writer_meta(w, "loss_params", params);
    if (st == FC_OK) st = fc_st_writer_meta(w, "ds_kind", fc_ds_kind_name(f->ds_kind));
    char freq[FC_FREQ_NAME_MAX];   /* formatted afresh: fc_freq.name may be too short */
    fc_freq_format(&f->freq, f->ds_kind, freq, sizeof freq);
    if (st == FC_OK) st = fc_st_writer_meta(w, "freq", freq);
    snprintf(num, sizeof num, "%" PRIu64, f->seed);
    if (st == FC_OK) st = fc_st_writer_meta(w, "seed", num);
    snprintf(num, sizeof num, "%zu", f->steps_trained);
    if (st == FC_OK) st = fc_st_writer_meta(w, "steps", num);
    /* Optional, and ignored on load, so the file version stays the same. */
    if (st == FC_OK && f->run_config_json) st = fc_st_writer_meta(w, "run_config", f->run_config_json);
    free(config);
    return st;
}

fc_status fc_forecaster_save(const fc_forecaster *f, const char *path) {
    const fc_model *m = f->model;
    /* Written straight from the parameters when the backend's memory is the
     * host's (no copy of the model at the end of a run, outside its plan). */
    float *host = m->be->host_visible ? NULL : fc_malloc(m->n_floats * sizeof(float), "model parameters");
    const float *params = m->be->host_visible ? m->params : host;
    fc_st_writer *w = params ? fc_st_writer_new() : NULL;
    if (!w) { free(host); return FC_ERR_MEMORY; }
    if (host) m->be->to_host(m->be, host, m->params, m->n_floats * sizeof(float));
    fc_status st = m->be->status(m->be);   /* a device fault: the copy holds nothing to write */
    if (st == FC_OK) st = add_metadata(w, f);
    for (size_t i = 0; st == FC_OK && i < m->n_tensors; i++) {
        const fc_tensor *t = &m->tensors[i];
        st = fc_st_writer_add(w, t->name, FC_DT_F32, t->ndim, t->shape, params + t->offset);
    }
    char *ids_blob = NULL;
    if (st == FC_OK && f->conformal) st = fc_conformal_write(w, f->conformal, &ids_blob);
    if (st == FC_OK) st = fc_st_writer_write(w, path);
    fc_st_writer_free(&w);
    free(ids_blob);
    free(host);
    return st;
}

static fc_status parse_ds_kind(const char *s, fc_ds_kind *out) {
    for (int k = FC_DS_INDEX; k <= FC_DS_DATETIME; k++)
        if (s && !strcmp(s, fc_ds_kind_name((fc_ds_kind)k))) { *out = (fc_ds_kind)k; return FC_OK; }
    return FC_ERR_FORMAT;
}

static const char *required_meta(const fc_safetensors *st, const char *key, const char *path) {
    const char *v = fc_st_meta(st, key);
    if (!v) fc_error(FC_ERR_FORMAT, "%s: metadata '%s' is missing: not a model written by fcast train", path, key);
    return v;
}

/* "loss" and, when present, "loss_params" (files from before the losses
 * had parameters have only the name: the kind's defaults then). The model's
 * outputs per point follow from the loss. */
static fc_status read_loss(const fc_safetensors *st, const char *path, const char *loss, fc_forecaster *f,
                           fc_model_config *cfg) {
    fc_loss_kind kind;
    if (fc_loss_parse(loss, &kind)) return fc_error(FC_ERR_FORMAT, "%s: unknown loss '%s'", path, loss);
    f->loss = fc_loss_default(kind);
    const char *params = fc_st_meta(st, "loss_params");
    if (params) FC_TRY(fc_loss_params_parse(params, &f->loss, path));
    if (kind == FC_LOSS_MASE && (size_t)f->loss.season >= cfg->input_size)
        return fc_error(FC_ERR_FORMAT, "%s: loss_params field 'seasonality' (%d) is not below the input size %zu",
                        path, f->loss.season, cfg->input_size);
    size_t Q = fc_loss_n_outputs(&f->loss);
    if (cfg->n_outputs != 1 && cfg->n_outputs != Q)
        return fc_error(FC_ERR_FORMAT, "%s: the configuration has %zu outputs per point, loss '%s' has %zu",
                        path, cfg->n_outputs, loss, Q);
    cfg->n_outputs = Q;
    return FC_OK;
}

static fc_status read_header(const fc_safetensors *st, const char *path, fc_forecaster *f, fc_model_config *cfg) {
    const char *version = required_meta(st, "fcast_file_version", path);
    if (!version) return FC_ERR_FORMAT;
    if (strcmp(version, FC_MODEL_FILE_VERSION))
        return fc_error(FC_ERR_FORMAT, "%s: model file version %s, this fcast (%s) reads version %s: "
                        "retrain the model with this version", path, version, fc_version(), FC_MODEL_FILE_VERSION);
    const char *config = required_meta(st, "config", path), *scaler = required_meta(st, "scaler_type", path);
    const char *loss = required_meta(st, "loss", path), *kind = required_meta(st, "ds_kind", path);
    const char *freq = required_meta(st, "freq", path);
    if (!config || !scaler || !loss || !kind || !freq) return FC_ERR_FORMAT;
    FC_TRY(fc_model_config_from_json(config, path, cfg));
    if (fc_scaler_parse(scaler, &f->scaler)) return fc_error(FC_ERR_FORMAT, "%s: unknown scaler_type '%s'", path, scaler);
    FC_TRY(read_loss(st, path, loss, f, cfg));
    if (parse_ds_kind(kind, &f->ds_kind)) return fc_error(FC_ERR_FORMAT, "%s: unknown ds_kind '%s'", path, kind);
    if (fc_freq_parse(freq, f->ds_kind, &f->freq) != FC_OK) return fc_error_wrap(FC_ERR_FORMAT, "%s: ", path);
    const char *seed = fc_st_meta(st, "seed"), *steps = fc_st_meta(st, "steps");
    f->seed = seed ? strtoull(seed, NULL, 10) : 0;
    f->steps_trained = steps ? (size_t)strtoull(steps, NULL, 10) : 0;
    return FC_OK;
}

/* Every tensor of the model must be in the file with its exact shape and
 * finite values (an inf or NaN weight would forecast inf with exit 0), and
 * the file must hold nothing else. Checked on the plan, before the
 * parameters are allocated, so a file whose configuration claims a huge
 * model fails fast instead of allocating it. */
static fc_status check_tensors(const fc_safetensors *st, const char *path, const fc_model *m, size_t extra) {
    for (size_t i = 0; i < m->n_tensors; i++) {
        const fc_tensor *t = &m->tensors[i];
        const float *data;
        FC_TRY(fc_st_get_f32(st, t->name, t->ndim, t->shape, &data));
        FC_TRY(fc_st_check_finite(st, fc_st_find(st, t->name)));
    }
    if (fc_st_count(st) != m->n_tensors + extra)
        return fc_error(FC_ERR_FORMAT, "%s: holds %zu tensors, the %s configuration in its metadata has %zu%s",
                        path, fc_st_count(st), fc_model_kind_name(m->cfg.kind), m->n_tensors,
                        extra ? " and the conformal scores 2" : "");
    return FC_OK;
}

static fc_status copy_tensors(const fc_safetensors *st, fc_model *m) {
    float *host = fc_malloc(m->n_floats * sizeof(float), "model parameters");
    if (!host) return FC_ERR_MEMORY;
    for (size_t i = 0; i < m->n_tensors; i++) {
        const fc_tensor *t = &m->tensors[i];
        memcpy(host + t->offset, fc_st_data(st, fc_st_find(st, t->name)), t->numel * sizeof(float));
    }
    m->be->to_device(m->be, m->params, host, m->n_floats * sizeof(float));
    free(host);
    return FC_OK;
}

/* The conformal scores, when the file has them, owned by the forecaster. */
static fc_status read_conformal(const fc_safetensors *st, const char *path, size_t h, fc_forecaster *f, int *present) {
    fc_conformal c;
    FC_TRY(fc_conformal_read(st, path, h, &c, present));
    if (!*present) return FC_OK;
    if (!(f->conformal = malloc(sizeof *f->conformal))) {
        fc_conformal_free(&c);
        return fc_error(FC_ERR_MEMORY, "out of memory for the conformal scores");
    }
    *f->conformal = c;
    return FC_OK;
}

fc_status fc_forecaster_load(const char *path, fc_backend *be, fc_forecaster *out) {
    memset(out, 0, sizeof *out);
    fc_safetensors *st = NULL;
    FC_TRY(fc_st_read(path, &st));
    fc_model_config cfg;
    fc_status s = read_header(st, path, out, &cfg);
    if (s == FC_OK) s = fc_model_plan(&cfg, &out->model);
    int conformal = 0;
    if (s == FC_OK) s = read_conformal(st, path, cfg.h, out, &conformal);
    if (s == FC_OK) s = check_tensors(st, path, out->model, conformal ? FC_CONFORMAL_TENSORS : 0);
    if (s == FC_OK) s = fc_model_allocate(out->model, be);
    if (s == FC_OK) s = copy_tensors(st, out->model);
    fc_st_free(&st);
    if (s != FC_OK) fc_forecaster_free(out);
    return s;
}
