/* Saving and loading forecasters as safetensors (see model_file.h). One
 * writer and one reader of a forecaster under a name prefix serve both the
 * model file (prefix "") and the members of an ensemble file. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "data/ds_text.h"
#include "data/freq.h"
#include "train/conformal_file.h"
#include "train/model_file.h"
#include "io/safetensors.h"

/* Longest prefixed name: a tensor name or metadata key after "member.<i>.". */
#define PART_NAME_MAX 256

/* MQLoss's and HuberMQLoss's quantiles in neuralforecast's state_dict (nn.Parameter of the
 * loss module, stored under the model's loss and valid_loss). */
static const char *const LOSS_TENSORS[] = {"loss.quantiles", "valid_loss.quantiles"};
#define N_LOSS_TENSORS 2

static const char *prefixed(char buf[PART_NAME_MAX], const char *prefix, const char *name) {
    snprintf(buf, PART_NAME_MAX, "%s%s", prefix, name);
    return buf;
}

static fc_status put_meta(fc_st_writer *w, const char *prefix, const char *key, const char *value) {
    char name[PART_NAME_MAX];
    return fc_st_writer_meta(w, prefixed(name, prefix, key), value);
}

static const char *get_meta(const fc_safetensors *st, const char *prefix, const char *key) {
    char name[PART_NAME_MAX];
    return fc_st_meta(st, prefixed(name, prefix, key));
}

static fc_status add_metadata(fc_st_writer *w, const fc_forecaster *f, const char *prefix) {
    char num[32];
    char *config = fc_model_config_to_json(&f->model->cfg);
    if (!config) return fc_error(FC_ERR_MEMORY, "cannot encode the model configuration");
    fc_status st = put_meta(w, prefix, "model", fc_model_kind_name(f->model->cfg.kind));
    if (st == FC_OK) st = put_meta(w, prefix, "config", config);
    if (st == FC_OK) st = put_meta(w, prefix, "scaler_type", fc_scaler_name(f->scaler));
    if (st == FC_OK) st = put_meta(w, prefix, "loss", fc_loss_name(f->loss));
    char params[512];
    if (st == FC_OK) st = fc_loss_params_json(&f->loss, params, sizeof params);
    if (st == FC_OK) st = put_meta(w, prefix, "loss_params", params);
    if (st == FC_OK) st = put_meta(w, prefix, "ds_kind", fc_ds_kind_name(f->ds_kind));
    char freq[FC_FREQ_NAME_MAX];   /* formatted afresh: fc_freq.name may be too short */
    fc_freq_format(&f->freq, f->ds_kind, freq, sizeof freq);
    if (st == FC_OK) st = put_meta(w, prefix, "freq", freq);
    snprintf(num, sizeof num, "%" PRIu64, f->seed);
    if (st == FC_OK) st = put_meta(w, prefix, "seed", num);
    snprintf(num, sizeof num, "%zu", f->steps_trained);
    if (st == FC_OK) st = put_meta(w, prefix, "steps", num);
    /* Optional, and ignored on load, so the file version stays the same. */
    if (st == FC_OK && f->run_config_json) st = put_meta(w, prefix, "run_config", f->run_config_json);
    free(config);
    return st;
}

/* MQ's (and DistributionLoss's) quantiles, first as in neuralforecast's state_dict (the loss is
 * assigned before the blocks), so the file interchanges with it. */
static fc_status add_loss_tensors(fc_st_writer *w, const fc_forecaster *f, const char *prefix, fc_model_part_keep *keep) {
    if (!fc_loss_kind_has_quantile_list(f->loss.kind)) return FC_OK;
    int64_t shape[1] = {f->loss.n_q};
    memcpy(keep->q, f->loss.q, sizeof keep->q);
    char name[PART_NAME_MAX];
    for (int i = 0; i < N_LOSS_TENSORS; i++)
        FC_TRY(fc_st_writer_add(w, prefixed(name, prefix, LOSS_TENSORS[i]), FC_DT_F32, 1, shape, keep->q));
    return FC_OK;
}

/* The parameters on the host: in place when the backend's memory is the
 * host's and the caller may borrow them (no copy of the model at the end
 * of a run, outside its plan), else a copy kept in keep->host. */
static fc_status host_params(const fc_model *m, int borrow, fc_model_part_keep *keep, const float **out) {
    if (borrow && m->be->host_visible) {
        *out = m->params;
        return FC_OK;
    }
    if (!(keep->host = fc_malloc(m->n_floats * sizeof(float), "model parameters"))) return FC_ERR_MEMORY;
    m->be->to_host(m->be, keep->host, m->params, m->n_floats * sizeof(float));
    *out = keep->host;
    return m->be->status(m->be);   /* a device fault: the copy holds nothing to write */
}

/* A weight that is not finite is refused here, whatever produced it: the
 * reader refuses such a file (check_tensors), so writing it would only
 * turn a training that diverged into a model that fails later. The
 * training loss does not always show it: a ReLU turns a NaN into 0. */
static fc_status check_finite_params(const fc_forecaster *f, const char *prefix, const float *params) {
    const fc_model *m = f->model;
    char name[PART_NAME_MAX], what[PART_NAME_MAX + 256];
    for (size_t i = 0; i < m->n_tensors; i++) {
        const fc_tensor *t = &m->tensors[i];
        if (fc_st_describe_non_finite(prefixed(name, prefix, t->name), t->ndim, t->shape, params + t->offset, what,
                                      sizeof what))
            return fc_error(FC_ERR_INVALID, "the weights after %zu training steps are not finite (%s): the training "
                            "diverged; train again with a lower --lr, or resume from an earlier checkpoint",
                            f->steps_trained, what);
    }
    return FC_OK;
}

fc_status fc_model_part_write(fc_st_writer *w, const fc_forecaster *f, const char *prefix, int borrow,
                              fc_model_part_keep *keep) {
    const fc_model *m = f->model;
    const float *params;
    if (f->conformal && *prefix)
        return fc_error(FC_ERR_INVALID, "conformal scores are written for a model file alone, not under '%s'", prefix);
    FC_TRY(host_params(m, borrow, keep, &params));
    FC_TRY(check_finite_params(f, prefix, params));
    FC_TRY(add_metadata(w, f, prefix));
    FC_TRY(add_loss_tensors(w, f, prefix, keep));
    char name[PART_NAME_MAX];
    for (size_t i = 0; i < m->n_tensors; i++) {
        const fc_tensor *t = &m->tensors[i];
        FC_TRY(fc_st_writer_add(w, prefixed(name, prefix, t->name), FC_DT_F32, t->ndim, t->shape, params + t->offset));
    }
    if (f->conformal) FC_TRY(fc_conformal_write(w, f->conformal, &keep->ids_blob));
    return FC_OK;
}

void fc_model_part_keep_free(fc_model_part_keep *k) {
    free(k->host);
    free(k->ids_blob);
    k->host = NULL;
    k->ids_blob = NULL;
}

fc_status fc_forecaster_save(const fc_forecaster *f, const char *path) {
    fc_model_part_keep keep = {0};
    fc_st_writer *w = fc_st_writer_new();
    if (!w) return FC_ERR_MEMORY;
    fc_status st = fc_st_writer_meta(w, "format", "pt");   /* lets safetensors.torch load it */
    if (st == FC_OK) st = fc_st_writer_meta(w, "fcast_file_version", FC_MODEL_FILE_VERSION);
    if (st == FC_OK) st = fc_st_writer_meta(w, "fcast_version", fc_version());
    if (st == FC_OK && (st = fc_model_part_write(w, f, "", 1, &keep)) != FC_OK)
        fc_error_wrap(st, "%s: not written: ", path);
    if (st == FC_OK) st = fc_st_writer_write(w, path);
    fc_st_writer_free(&w);
    fc_model_part_keep_free(&keep);
    return st;
}

static fc_status parse_ds_kind(const char *s, fc_ds_kind *out) {
    for (int k = FC_DS_INDEX; k <= FC_DS_DATETIME; k++)
        if (s && !strcmp(s, fc_ds_kind_name((fc_ds_kind)k))) { *out = (fc_ds_kind)k; return FC_OK; }
    return FC_ERR_FORMAT;
}

static const char *required_meta(const fc_safetensors *st, const char *prefix, const char *key, const char *path) {
    const char *v = get_meta(st, prefix, key);
    if (!v) fc_error(FC_ERR_FORMAT, "%s: metadata '%s%s' is missing%s", path, prefix, key,
                     *prefix ? "" : ": not a model written by fcast train");
    return v;
}

fc_status fc_model_file_check_version(const fc_safetensors *st, const char *path) {
    const char *version = required_meta(st, "", "fcast_file_version", path);
    if (!version) return FC_ERR_FORMAT;
    if (strcmp(version, FC_MODEL_FILE_VERSION))
        return fc_error(FC_ERR_FORMAT, "%s: model file version %s, this fcast (%s) reads version %s: "
                        "retrain the model with this version", path, version, fc_version(), FC_MODEL_FILE_VERSION);
    return FC_OK;
}

/* "loss" and, when present, "loss_params" (files from before the losses
 * had parameters have only the name: the kind's defaults then). The model's
 * outputs per point follow from the loss. */
static fc_status read_loss(const fc_safetensors *st, const char *path, const char *where, const char *prefix,
                           const char *loss, fc_forecaster *f, fc_model_config *cfg) {
    fc_loss_kind kind;
    if (fc_loss_parse(loss, &kind)) return fc_error(FC_ERR_FORMAT, "%s: unknown %sloss '%s'", path, prefix, loss);
    f->loss = fc_loss_default(kind);
    const char *params = get_meta(st, prefix, "loss_params");
    if (params) FC_TRY(fc_loss_params_parse(params, &f->loss, where));
    if (kind == FC_LOSS_MASE && (size_t)f->loss.season >= cfg->input_size)
        return fc_error(FC_ERR_FORMAT, "%s: %sloss_params field 'seasonality' (%d) is not below the input size %zu",
                        path, prefix, f->loss.season, cfg->input_size);
    size_t Q = fc_loss_n_outputs(&f->loss);
    if (cfg->n_outputs != 1 && cfg->n_outputs != Q)
        return fc_error(FC_ERR_FORMAT, "%s: the %sconfiguration has %zu outputs per point, loss '%s' has %zu",
                        path, prefix, cfg->n_outputs, loss, Q);
    cfg->n_outputs = Q;
    fc_loss_head(&f->loss, cfg);
    return FC_OK;
}

/* The metadata keys a forecaster needs, in the order they are checked
 * (the first missing one is named). */
enum { META_CONFIG, META_SCALER, META_LOSS, META_DS_KIND, META_FREQ, N_REQUIRED };
static const char *const REQUIRED[N_REQUIRED] = {"config", "scaler_type", "loss", "ds_kind", "freq"};

static fc_status read_header(const fc_safetensors *st, const char *path, const char *prefix, fc_forecaster *f,
                             fc_model_config *cfg) {
    const char *v[N_REQUIRED];
    for (int k = 0; k < N_REQUIRED; k++)
        if (!(v[k] = required_meta(st, prefix, REQUIRED[k], path))) return FC_ERR_FORMAT;
    /* where a member's field is: "file: member.3" */
    char where[PART_NAME_MAX + 64];
    snprintf(where, sizeof where, "%s%s%.*s", path, *prefix ? ": " : "", *prefix ? (int)strlen(prefix) - 1 : 0, prefix);
    FC_TRY(fc_model_config_from_json(v[META_CONFIG], where, cfg));
    if (fc_scaler_parse(v[META_SCALER], &f->scaler))
        return fc_error(FC_ERR_FORMAT, "%s: unknown %sscaler_type '%s'", path, prefix, v[META_SCALER]);
    FC_TRY(read_loss(st, path, where, prefix, v[META_LOSS], f, cfg));
    if (parse_ds_kind(v[META_DS_KIND], &f->ds_kind))
        return fc_error(FC_ERR_FORMAT, "%s: unknown %sds_kind '%s'", path, prefix, v[META_DS_KIND]);
    if (fc_freq_parse(v[META_FREQ], f->ds_kind, &f->freq) != FC_OK)
        return fc_error_wrap(FC_ERR_FORMAT, "%s: %s", path, prefix);
    const char *seed = get_meta(st, prefix, "seed"), *steps = get_meta(st, prefix, "steps");
    f->seed = seed ? strtoull(seed, NULL, 10) : 0;
    f->steps_trained = steps ? (size_t)strtoull(steps, NULL, 10) : 0;
    return FC_OK;
}

/* MQ's quantile tensors, when present: F32 (Q,) holding the loss's
 * quantiles. Compared within 1e-6, not bit for bit: PyTorch computes them
 * from the levels in its own order of operations. *found: how many. */
static fc_status check_loss_tensors(const fc_safetensors *st, const char *path, const char *prefix,
                                    const fc_loss_spec *loss, size_t *found) {
    char name[PART_NAME_MAX];
    *found = 0;
    if (!fc_loss_kind_has_quantile_list(loss->kind)) return FC_OK;   /* another loss: counted as a stray tensor */
    int64_t shape[1] = {loss->n_q};
    for (int i = 0; i < N_LOSS_TENSORS; i++) {
        if (!fc_st_find(st, prefixed(name, prefix, LOSS_TENSORS[i]))) continue;
        const float *q;
        FC_TRY(fc_st_get_f32(st, name, 1, shape, &q));
        for (int j = 0; j < loss->n_q; j++)
            if (!(fabsf(q[j] - loss->q[j]) <= 1e-6f))
                return fc_error(FC_ERR_FORMAT, "%s: tensor '%s' element %d is %.9g, the loss's quantile %d is %.9g",
                                path, name, j, (double)q[j], j, (double)loss->q[j]);
        (*found)++;
    }
    return FC_OK;
}

static size_t count_under(const fc_safetensors *st, const char *prefix) {
    size_t n = 0, len = strlen(prefix);
    for (size_t i = 0; i < fc_st_count(st); i++) n += !strncmp(fc_st_at(st, i)->name, prefix, len);
    return n;
}

/* Every tensor of the model must be in the file with its exact shape and
 * finite values (an inf or NaN weight would forecast inf with exit 0), and
 * the file must hold nothing else under the prefix. Checked on the plan,
 * before the parameters are allocated, so a file whose configuration
 * claims a huge model fails fast instead of allocating it. */
static fc_status check_tensors(const fc_safetensors *st, const char *path, const char *prefix, const fc_model *m,
                               size_t loss_extra, size_t conformal_extra) {
    char name[PART_NAME_MAX];
    for (size_t i = 0; i < m->n_tensors; i++) {
        const fc_tensor *t = &m->tensors[i];
        const float *data;
        FC_TRY(fc_st_get_f32(st, prefixed(name, prefix, t->name), t->ndim, t->shape, &data));
        FC_TRY(fc_st_check_finite(st, fc_st_find(st, name)));
    }
    size_t held = count_under(st, prefix), want = m->n_tensors + loss_extra + conformal_extra;
    if (held != want)
        return fc_error(FC_ERR_FORMAT, "%s: holds %zu tensors%s%s%s, the %s configuration in its metadata has %zu%s%s",
                        path, held, *prefix ? " under '" : "", prefix, *prefix ? "'" : "",
                        fc_model_kind_name(m->cfg.kind), m->n_tensors,
                        loss_extra ? " and the loss's quantiles" : "", conformal_extra ? " and the conformal scores 2" : "");
    return FC_OK;
}

static fc_status copy_tensors(const fc_safetensors *st, const char *prefix, fc_model *m) {
    char name[PART_NAME_MAX];
    float *host = fc_malloc(m->n_floats * sizeof(float), "model parameters");
    if (!host) return FC_ERR_MEMORY;
    for (size_t i = 0; i < m->n_tensors; i++) {
        const fc_tensor *t = &m->tensors[i];
        memcpy(host + t->offset, fc_st_data(st, fc_st_find(st, prefixed(name, prefix, t->name))),
               t->numel * sizeof(float));
    }
    m->be->to_device(m->be, m->params, host, m->n_floats * sizeof(float));
    free(host);
    return FC_OK;
}

/* The conformal scores, when the file has them, owned by the forecaster
 * (a model file's alone: under a prefix they are stray tensors). */
static fc_status read_conformal(const fc_safetensors *st, const char *path, const char *prefix, size_t h,
                                fc_forecaster *f, int *present) {
    *present = 0;
    if (*prefix) return FC_OK;
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

fc_status fc_model_part_read(const fc_safetensors *st, const char *path, const char *prefix, fc_backend *be,
                             fc_forecaster *out) {
    memset(out, 0, sizeof *out);
    fc_model_config cfg;
    int conformal = 0;
    size_t loss_extra = 0;
    fc_status s = read_header(st, path, prefix, out, &cfg);
    if (s == FC_OK) s = fc_model_plan(&cfg, &out->model);
    if (s == FC_OK) s = read_conformal(st, path, prefix, cfg.h, out, &conformal);
    if (s == FC_OK) s = check_loss_tensors(st, path, prefix, &out->loss, &loss_extra);
    if (s == FC_OK) s = check_tensors(st, path, prefix, out->model, loss_extra, conformal ? FC_CONFORMAL_TENSORS : 0);
    if (s == FC_OK) s = fc_model_allocate(out->model, be);
    if (s == FC_OK) s = copy_tensors(st, prefix, out->model);
    if (s != FC_OK) fc_forecaster_free(out);
    return s;
}

/* An ensemble file is many models: say so, and where it is used. */
static fc_status refuse_ensemble(const fc_safetensors *st, const char *path) {
    const char *ens = fc_st_meta(st, "ensemble");
    if (!ens) return FC_OK;
    return fc_error(FC_ERR_FORMAT, "%s is an ensemble of models (written by fcast ensemble; %s), not one model: "
                    "forecast with it by `fcast predict --model %s` (its column Ensemble; --members adds each "
                    "member's), or in C by fc_ensemble_load (train/ensemble_file.h)", path, ens, path);
}

fc_status fc_forecaster_load(const char *path, fc_backend *be, fc_forecaster *out) {
    memset(out, 0, sizeof *out);
    fc_safetensors *st = NULL;
    FC_TRY(fc_st_read(path, &st));
    fc_status s = refuse_ensemble(st, path);
    if (s == FC_OK) s = fc_model_file_check_version(st, path);
    if (s == FC_OK) s = fc_model_part_read(st, path, "", be, out);
    fc_st_free(&st);
    return s;
}
