/* Training checkpoints (see checkpoint.h). */
#include "train/checkpoint.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "dist/dist.h"
#include "train/model_file.h"
#include "io/safetensors.h"

#define T_EXP_AVG "optimizer.exp_avg"
#define T_EXP_AVG_SQ "optimizer.exp_avg_sq"
#define T_BEST "trainer.best_params"

/* ---- the options and data a checkpoint belongs to ---------------------- */

/* The options that decide the trained model, under their flag names, so a
 * mismatch is reported in the user's vocabulary. */
static json_t *options_json(const fc_forecaster *f, const fc_train_options *o) {
    char *cfg = fc_model_config_to_json(&f->model->cfg);
    json_t *j = json_pack("{s:s?, s:s, s:s, s:I, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:I, s:s, s:I, s:f}",
        "model", cfg, "scaler", fc_scaler_name(f->scaler), "loss", fc_loss_name(f->loss),
        "max-steps", (json_int_t)o->max_steps, "batch-size", (json_int_t)o->batch_size,
        "windows-batch-size", (json_int_t)o->windows_batch_size, "lr", o->learning_rate,
        "num-lr-decays", (json_int_t)o->num_lr_decays, "val-size", (json_int_t)o->val_size,
        "val-check-steps", (json_int_t)o->val_check_steps, "early-stop-patience", (json_int_t)o->early_stop_patience,
        "step-size", (json_int_t)o->step_size, "min-in-frac", o->min_in_frac, "min-out-frac", o->min_out_frac,
        "seed", (json_int_t)o->seed, "precision", fc_precision_name(o->precision),
        "grad-accum", (json_int_t)o->grad_accum, "clip-grad-norm", o->clip_grad_norm);
    free(cfg);
    /* the loss's parameters (--huber-delta, --quantile, --season, --level):
     * a run resumed with others would train another model; test_size: a
     * cross-validation's training is not the full run's */
    char params[512];
    if (j && fc_loss_params_json(&f->loss, params, sizeof params) == FC_OK)
        json_object_set_new(j, "loss-params", json_string(params));
    /* the optimizer and its weight decay when not plain Adam (absent: as before these keys) */
    if (j && o->optimizer == FC_OPTIMIZER_ADAMW) json_object_set_new(j, "optimizer", json_string("adamw"));
    if (j && fc_train_weight_decay(o) != 0)
        json_object_set_new(j, "weight-decay", json_real(fc_train_weight_decay(o)));
    if (j && o->drop_last) json_object_set_new(j, "drop-last", json_true());   /* absent: off, as before the key */
    if (j && o->start_padding) json_object_set_new(j, "start-padding", json_true());
    if (j && o->valid_loss >= 0) json_object_set_new(j, "valid-loss", json_string(fc_loss_kind_name(o->valid_loss)));
    if (j && (o->lr_scheduler || o->lr_step_size || o->lr_gamma >= 0)) {   /* absent: the default StepLR */
        json_object_set_new(j, "lr-scheduler", json_integer(o->lr_scheduler));
        json_object_set_new(j, "lr-step-size", json_integer((json_int_t)o->lr_step_size));
        json_object_set_new(j, "lr-t-max", json_integer((json_int_t)o->lr_t_max));
        json_object_set_new(j, "lr-gamma", json_real(o->lr_gamma));
        json_object_set_new(j, "lr-eta-min", json_real(o->lr_eta_min));
    }
    if (j && o->test_size) json_object_set_new(j, "test-size", json_integer((json_int_t)o->test_size));
    /* the processes of an MPI job: each step draws windows for all of them (absent: one) */
    if (j && fc_dist_size() > 1) json_object_set_new(j, "ranks", json_integer(fc_dist_size()));
    return j;
}

typedef struct {
    long long size, mtime;      /* -1 when the data is not a file */
    uint64_t index_hash, values_hash;
} data_identity;

static data_identity identity_of(const fc_checkpoint_ref *c, fc_data_hashes h) {
    const fc_dataset *ds = c->ds;
    data_identity d = {-1, -1, h.index, h.values};
    struct stat st;
    if (ds->source && stat(ds->source, &st) == 0) {
        d.size = (long long)st.st_size;
        d.mtime = (long long)st.st_mtime;
    }
    return d;
}

/* ---- writing ----------------------------------------------------------- */

static fc_status meta_printf(fc_st_writer *w, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static fc_status meta_printf(fc_st_writer *w, const char *key, const char *fmt, ...) {
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return fc_st_writer_meta(w, key, buf);
}

static fc_status add_state_meta(fc_st_writer *w, const fc_checkpoint_ref *c) {
    const fc_loop_state *l = c->loop;
    const fc_loss_scaler *s = &c->opt->scaler;
    data_identity d = identity_of(c, c->data);
    json_t *opts = options_json(c->f, c->o);
    char *opts_text = opts ? json_dumps(opts, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(opts);
    if (!opts_text) return fc_error(FC_ERR_MEMORY, "cannot encode the training options");
    fc_status st = fc_st_writer_meta(w, "format", "pt");
    if (st == FC_OK) st = fc_st_writer_meta(w, "fcast_checkpoint_version", FC_CHECKPOINT_VERSION);
    if (st == FC_OK) st = fc_st_writer_meta(w, "fcast_version", fc_version());
    if (st == FC_OK) st = fc_st_writer_meta(w, "options", opts_text);
    free(opts_text);
    if (st == FC_OK) st = meta_printf(w, "data_size", "%lld", d.size);
    if (st == FC_OK) st = meta_printf(w, "data_mtime", "%lld", d.mtime);
    if (st == FC_OK) st = meta_printf(w, "data_index_hash", "%016" PRIx64, d.index_hash);
    if (st == FC_OK) st = meta_printf(w, "data_values_hash", "%016" PRIx64, d.values_hash);
    if (st == FC_OK) st = meta_printf(w, "step", "%zu", l->step);
    if (st == FC_OK) st = meta_printf(w, "adam_steps", "%" PRId64, c->opt->adam_steps);
    if (st == FC_OK) st = meta_printf(w, "loss_scale", "%a", (double)s->scale);
    if (st == FC_OK) st = meta_printf(w, "loss_scale_growth_tracker", "%ld", s->growth_tracker);
    if (st == FC_OK) st = meta_printf(w, "skipped_steps", "%zu", s->skipped);
    if (st == FC_OK) st = meta_printf(w, "skips_in_a_row", "%ld", l->skips_in_a_row);
    if (st == FC_OK) st = meta_printf(w, "sampler_epoch", "%zu", l->sampler_epoch);
    if (st == FC_OK) st = meta_printf(w, "sampler_cursor", "%zu", l->sampler_cursor);
    if (st == FC_OK) st = meta_printf(w, "best_val_loss", "%a", l->best_val_loss);
    if (st == FC_OK) st = meta_printf(w, "best_step", "%zu", l->best_step);
    if (st == FC_OK) st = meta_printf(w, "bad_checks", "%ld", l->bad_checks);
    if (st == FC_OK) st = meta_printf(w, "last_train_loss", "%a", l->last_train_loss);
    return st;
}

/* Adam's second moments are running means of squares, never negative: a
 * negative one would take the square root of a negative number at the
 * next step and turn weights into NaN (which a ReLU after them can hide
 * from the loss). The index of the first, or n if none. */
static size_t first_negative(const float *v, size_t n) {
    size_t i = 0;
    while (i < n && !(v[i] < 0)) i++;
    return i;
}

/* The state's buffers as the host sees them: the buffers themselves on a
 * host-visible backend, else one host copy of all four (a GPU's). */
typedef struct {
    const float *params, *m, *v, *best;
    float *copy;
} host_state;

static fc_status host_state_get(const fc_checkpoint_ref *c, host_state *h) {
    const fc_model *m = c->f->model;
    fc_backend *be = m->be;
    *h = (host_state){m->params, c->opt->m, c->opt->v, c->best, NULL};
    if (be->host_visible) return FC_OK;
    size_t n = m->n_trainable, floats = m->n_floats + 2 * n + m->n_state;
    if (!(h->copy = fc_malloc(floats * sizeof(float), "the checkpoint's host copy"))) return FC_ERR_MEMORY;
    float *at = h->copy;
    be->to_host(be, at, m->params, m->n_floats * sizeof(float));
    h->params = at;
    be->to_host(be, at += m->n_floats, c->opt->m, n * sizeof(float));
    h->m = at;
    be->to_host(be, at += n, c->opt->v, n * sizeof(float));
    h->v = at;
    if (c->best) be->to_host(be, at += n, c->best, m->n_state * sizeof(float));
    h->best = c->best ? at : NULL;
    fc_status st = be->status(be);   /* a device fault: no state to write over the last good checkpoint */
    if (st != FC_OK) {
        free(h->copy);
        h->copy = NULL;
    }
    return st;
}

/* The first value of the state the reader would refuse (read_tensors):
 * one that is not finite, or a negative second moment, described in buf. */
static int state_fault(const fc_checkpoint_ref *c, const host_state *h, char *buf, size_t cap) {
    const fc_model *m = c->f->model;
    int64_t n = (int64_t)m->n_trainable, n_best = (int64_t)m->n_state;
    for (size_t i = 0; i < m->n_tensors; i++) {
        const fc_tensor *t = &m->tensors[i];
        if (fc_st_describe_non_finite(t->name, t->ndim, t->shape, h->params + t->offset, buf, cap)) return 1;
    }
    if (fc_st_describe_non_finite(T_EXP_AVG, 1, &n, h->m, buf, cap)) return 1;
    if (fc_st_describe_non_finite(T_EXP_AVG_SQ, 1, &n, h->v, buf, cap)) return 1;
    if (h->best && fc_st_describe_non_finite(T_BEST, 1, &n_best, h->best, buf, cap)) return 1;
    size_t neg = first_negative(h->v, m->n_trainable);
    if (neg == m->n_trainable) return 0;
    snprintf(buf, cap, "tensor '%s' element %zu is %g, below 0", T_EXP_AVG_SQ, neg, (double)h->v[neg]);
    return 1;
}

fc_status fc_checkpoint_write(const fc_checkpoint_ref *c, const char *path, size_t *bytes) {
    const fc_model *m = c->f->model;
    host_state h;
    char fault[512];
    FC_TRY(host_state_get(c, &h));
    if (state_fault(c, &h, fault, sizeof fault)) {   /* a checkpoint no run could resume from */
        free(h.copy);
        return fc_error(FC_ERR_INVALID, "%s: not written: the training state after step %zu is not valid (%s): the "
                        "training diverged", path, c->loop->step, fault);
    }
    fc_st_writer *w = fc_st_writer_new();
    if (!w) {
        free(h.copy);
        return FC_ERR_MEMORY;
    }
    int64_t n = (int64_t)m->n_trainable, n_best = (int64_t)m->n_state;
    fc_status st = add_state_meta(w, c);
    for (size_t i = 0; st == FC_OK && i < m->n_tensors; i++) {
        const fc_tensor *t = &m->tensors[i];
        st = fc_st_writer_add(w, t->name, FC_DT_F32, t->ndim, t->shape, h.params + t->offset);
    }
    if (st == FC_OK) st = fc_st_writer_add(w, T_EXP_AVG, FC_DT_F32, 1, &n, h.m);
    if (st == FC_OK) st = fc_st_writer_add(w, T_EXP_AVG_SQ, FC_DT_F32, 1, &n, h.v);
    if (st == FC_OK && h.best) st = fc_st_writer_add(w, T_BEST, FC_DT_F32, 1, &n_best, h.best);
    if (st == FC_OK) st = fc_st_writer_write(w, path);
    fc_st_writer_free(&w);
    free(h.copy);
    if (st == FC_OK && bytes) {
        struct stat sb;
        *bytes = stat(path, &sb) == 0 ? (size_t)sb.st_size : 0;
    }
    return st;
}

/* ---- reading ----------------------------------------------------------- */

static const char *need_meta(const fc_safetensors *st, const char *key) {
    const char *v = fc_st_meta(st, key);
    if (!v) fc_error(FC_ERR_FORMAT, "%s: checkpoint metadata '%s' is missing: not a checkpoint written by fcast "
                     "train --checkpoint", fc_st_path(st), key);
    return v;
}

/* Parses an integer or %a-formatted metadata value exactly. */
static fc_status meta_long(const fc_safetensors *st, const char *key, long long *out) {
    const char *v = need_meta(st, key);
    if (!v) return FC_ERR_FORMAT;
    char *end;
    errno = 0;
    *out = strtoll(v, &end, 10);
    if (errno || end == v || *end)
        return fc_error(FC_ERR_FORMAT, "%s: checkpoint metadata '%s' = '%s' is not an integer", fc_st_path(st), key, v);
    return FC_OK;
}

static fc_status meta_size(const fc_safetensors *st, const char *key, size_t *out) {
    long long v;
    FC_TRY(meta_long(st, key, &v));
    if (v < 0) return fc_error(FC_ERR_FORMAT, "%s: checkpoint metadata '%s' is negative", fc_st_path(st), key);
    *out = (size_t)v;
    return FC_OK;
}

static fc_status meta_double(const fc_safetensors *st, const char *key, double *out) {
    const char *v = need_meta(st, key);
    if (!v) return FC_ERR_FORMAT;
    char *end;
    *out = strtod(v, &end);
    if (end == v || *end)
        return fc_error(FC_ERR_FORMAT, "%s: checkpoint metadata '%s' = '%s' is not a number", fc_st_path(st), key, v);
    return FC_OK;
}

/* The first option whose value differs, named as its flag. */
static fc_status check_options(const fc_safetensors *st, const fc_checkpoint_ref *c) {
    const char *saved_text = need_meta(st, "options");
    if (!saved_text) return FC_ERR_FORMAT;
    json_t *saved = json_loads(saved_text, 0, NULL), *now = options_json(c->f, c->o);
    fc_status s = saved && json_is_object(saved) ? FC_OK
                : fc_error(FC_ERR_FORMAT, "%s: checkpoint metadata 'options' is not a JSON object", fc_st_path(st));
    const char *key;
    json_t *value;
    json_object_foreach(now, key, value) {
        if (s != FC_OK) break;
        if (!strcmp(key, "ranks")) continue;   /* below, in the words of mpirun */
        json_t *old = json_object_get(saved, key);
        if (old && json_equal(old, value)) continue;
        char *a = old ? json_dumps(old, JSON_ENCODE_ANY) : NULL, *b = json_dumps(value, JSON_ENCODE_ANY);
        s = fc_error(FC_ERR_INVALID, "--resume %s: the checkpoint was made with %s%s %s, this run has %s; resume "
                     "with the options of the interrupted run", fc_st_path(st), strcmp(key, "model") ? "--" : "",
                     key, a ? a : "(none)", b ? b : "?");
        free(a);
        free(b);
    }
    json_t *ranks = s == FC_OK ? json_object_get(saved, "ranks") : NULL;
    json_int_t made_by = json_is_integer(ranks) ? json_integer_value(ranks) : 1;
    if (s == FC_OK && made_by != fc_dist_size())
        s = fc_error(FC_ERR_INVALID, "--resume %s: the checkpoint was made by %lld process%s (mpirun -np %lld), this "
                     "run has %d: resume with as many, so each step draws the same windows", fc_st_path(st),
                     (long long)made_by, made_by == 1 ? "" : "es", (long long)made_by, fc_dist_size());
    json_decref(saved);
    json_decref(now);
    return s;
}

/* The hashes a checkpoint of `version` holds for this run's data: a
 * version 1 file's chain over the whole data needs it whole. */
static fc_status hashes_for(const fc_safetensors *st, const char *version, const fc_checkpoint_ref *c,
                            fc_data_hashes *h) {
    *h = c->data;
    if (strcmp(version, "1")) return FC_OK;
    if (c->ds->shards > 1)
        return fc_error(FC_ERR_INVALID, "--resume %s: a version 1 checkpoint names its data by a hash of the whole "
                        "file, which ranks holding shards of it cannot compute: resume with --data-store memory "
                        "(every rank then holds the whole file, as when the checkpoint was made)", fc_st_path(st));
    *h = fc_data_hashes_v1(c->ds);
    return FC_OK;
}

static fc_status check_data(const fc_safetensors *st, const char *version, const fc_checkpoint_ref *c) {
    long long size, mtime;
    const char *index = need_meta(st, "data_index_hash"), *values = need_meta(st, "data_values_hash");
    if (!index || !values) return FC_ERR_FORMAT;
    FC_TRY(meta_long(st, "data_size", &size));
    FC_TRY(meta_long(st, "data_mtime", &mtime));
    fc_data_hashes h;
    FC_TRY(hashes_for(st, version, c, &h));
    data_identity d = identity_of(c, h);
    char now_index[32], now_values[32];
    snprintf(now_index, sizeof now_index, "%016" PRIx64, d.index_hash);
    snprintf(now_values, sizeof now_values, "%016" PRIx64, d.values_hash);
    if (size != d.size || strcmp(index, now_index))
        return fc_error(FC_ERR_INVALID, "--resume %s: the checkpoint was made on other data (%lld bytes, series "
                        "index %s) than %s (%lld bytes, series index %s); resume on the data of the interrupted run",
                        fc_st_path(st), size, index, c->ds->source, d.size, now_index);
    if (strcmp(values, now_values))
        return fc_error(FC_ERR_INVALID, "--resume %s: %s has the same series as when the checkpoint was made, but "
                        "other values (hash %s, now %s); resume on the data of the interrupted run",
                        fc_st_path(st), c->ds->source, values, now_values);
    if (mtime != d.mtime)
        fprintf(stderr, "warning: %s was modified since the checkpoint %s was written (its values are the same); "
                        "resuming on it\n", c->ds->source, fc_st_path(st));
    return FC_OK;
}

/* A tensor of the expected shape, all finite (a corrupt checkpoint must
 * not resume into NaN weights), copied into the backend's dst. */
static fc_status read_tensor(fc_backend *be, const fc_safetensors *st, const char *name, int ndim,
                             const int64_t *shape, size_t n, float *dst) {
    const float *src;
    FC_TRY(fc_st_get_f32(st, name, ndim, shape, &src));
    FC_TRY(fc_st_check_finite(st, fc_st_find(st, name)));
    be->to_device(be, dst, src, n * sizeof(float));
    return FC_OK;
}

static fc_status read_floats(fc_backend *be, const fc_safetensors *st, const char *name, size_t n, float *dst) {
    int64_t shape = (int64_t)n;
    return read_tensor(be, st, name, 1, &shape, n, dst);
}

/* Negative second moments (first_negative), refused naming the element
 * (the tensor's shape and finite values are checked before). */
static fc_status check_second_moments(const fc_safetensors *st, size_t n) {
    const float *v = fc_st_data(st, fc_st_find(st, T_EXP_AVG_SQ));
    size_t i = first_negative(v, n);
    if (i == n) return FC_OK;
    return fc_error(FC_ERR_FORMAT, "%s: tensor '%s' element %zu is %g: Adam's second moments are squares, never "
                    "negative; the file is damaged or edited: resume from another checkpoint or start the run again",
                    fc_st_path(st), T_EXP_AVG_SQ, i, (double)v[i]);
}

static fc_status read_tensors(const fc_safetensors *st, const fc_checkpoint_ref *c) {
    fc_model *m = c->f->model;
    fc_backend *be = m->be;
    for (size_t i = 0; i < m->n_tensors; i++) {
        const fc_tensor *t = &m->tensors[i];
        FC_TRY(read_tensor(be, st, t->name, t->ndim, t->shape, t->numel, m->params + t->offset));
    }
    FC_TRY(read_floats(be, st, T_EXP_AVG, m->n_trainable, c->opt->m));
    FC_TRY(read_floats(be, st, T_EXP_AVG_SQ, m->n_trainable, c->opt->v));
    FC_TRY(check_second_moments(st, m->n_trainable));
    if (c->best) FC_TRY(read_floats(be, st, T_BEST, m->n_state, c->best));
    be->sync(be);   /* the mapped file is released after this returns */
    fc_model_refresh_low(m);   /* the rounded copies follow the restored master weights */
    return FC_OK;
}

/* What a run that wrote this state could have reached: every step either
 * ran Adam or was skipped by the loss scaler; the counters stay within what
 * that many steps can count; the loss scale is 1 without fp16 and a finite
 * positive number with it. An edited or corrupt checkpoint that breaks any
 * of these would resume into a run no interrupted run could produce.
 * Returns the first broken rule, NULL if none. */
static const char *state_violation(const fc_checkpoint_ref *c, long long adam, double scale, long long tracker,
                                   long long in_a_row, long long bad) {
    const fc_loop_state *l = c->loop;
    const fc_loss_scaler *s = &c->opt->scaler;
    const fc_train_options *o = c->o;
    size_t every = fc_train_val_check_steps(o), checks = o->val_size && every ? l->step / every : 0;
    if (l->step > o->max_steps) return "step beyond --max-steps";
    if (s->skipped > l->step || adam != (long long)(l->step - s->skipped))
        return "adam_steps + skipped_steps differ from step";
    if (!isfinite((float)scale) || !((float)scale > 0)) /* NaN, infinite, negative, or beyond a float */
        return "loss scale not a finite number > 0";
    if (!s->enabled && scale != 1.0) return "loss scale other than 1 without fp16";
    if (tracker < 0 || tracker >= s->growth_interval) return "loss-scale growth tracker out of range";
    if (in_a_row < 0 || (unsigned long long)in_a_row > s->skipped) return "skips_in_a_row out of range";
    if (l->sampler_cursor > fc_dataset_job_series(c->ds)) return "sampler cursor beyond the series";
    if (l->sampler_epoch > l->step) return "sampler epoch beyond step";
    if (isinf(l->best_val_loss)) return "best validation loss infinite";
    if (!isfinite(l->last_train_loss)) return "last training loss not finite";   /* such a step stops the run */
    if (l->best_step > l->step) return "best step beyond step";
    if (bad < 0 || (unsigned long long)bad > checks) return "bad_checks out of range";
    return NULL;
}

static fc_status read_state(const fc_safetensors *st, const fc_checkpoint_ref *c) {
    fc_loop_state *l = c->loop;
    fc_loss_scaler *s = &c->opt->scaler;
    long long adam, tracker, in_a_row, bad;
    double scale;
    FC_TRY(meta_size(st, "step", &l->step));
    FC_TRY(meta_long(st, "adam_steps", &adam));
    FC_TRY(meta_double(st, "loss_scale", &scale));
    FC_TRY(meta_long(st, "loss_scale_growth_tracker", &tracker));
    FC_TRY(meta_size(st, "skipped_steps", &s->skipped));
    FC_TRY(meta_long(st, "skips_in_a_row", &in_a_row));
    FC_TRY(meta_size(st, "sampler_epoch", &l->sampler_epoch));
    FC_TRY(meta_size(st, "sampler_cursor", &l->sampler_cursor));
    FC_TRY(meta_double(st, "best_val_loss", &l->best_val_loss));
    FC_TRY(meta_size(st, "best_step", &l->best_step));
    FC_TRY(meta_long(st, "bad_checks", &bad));
    FC_TRY(meta_double(st, "last_train_loss", &l->last_train_loss));
    const char *broken = state_violation(c, adam, scale, tracker, in_a_row, bad);
    if (broken)
        return fc_error(FC_ERR_FORMAT, "%s: checkpoint state is inconsistent (%s: step %zu of %zu, adam steps %lld, "
                        "skipped %zu, loss scale %g, sampler epoch %zu cursor %zu of %zu series, bad checks %lld); "
                        "the file is damaged or edited: resume from another checkpoint or start the run again",
                        fc_st_path(st), broken, l->step, c->o->max_steps, adam, s->skipped, scale, l->sampler_epoch,
                        l->sampler_cursor, fc_dataset_job_series(c->ds), bad);
    c->opt->adam_steps = adam;
    s->scale = (float)scale;
    s->growth_tracker = (long)tracker;
    l->skips_in_a_row = (long)in_a_row;
    l->bad_checks = (long)bad;
    return FC_OK;
}

fc_status fc_checkpoint_step(const char *path, size_t *step) {
    fc_safetensors *st = NULL;
    FC_TRY(fc_st_read_header(path, &st));
    fc_status s = meta_size(st, "step", step);
    fc_st_free(&st);
    return s;
}

fc_status fc_checkpoint_windows_batch(const char *path, size_t *windows) {
    fc_safetensors *st = NULL;
    FC_TRY(fc_st_read_header(path, &st));
    const char *text = need_meta(st, "options");
    json_t *o = text ? json_loads(text, 0, NULL) : NULL, *w = o ? json_object_get(o, "windows-batch-size") : NULL;
    fc_status s = json_is_integer(w) && json_integer_value(w) > 0 ? FC_OK
                : fc_error(FC_ERR_FORMAT, "%s: checkpoint options have no windows-batch-size", path);
    if (s == FC_OK) *windows = (size_t)json_integer_value(w);
    json_decref(o);
    fc_st_free(&st);
    return s;
}

fc_status fc_checkpoint_read(const fc_checkpoint_ref *c, const char *path) {
    fc_safetensors *st = NULL;
    FC_TRY(fc_st_read(path, &st));
    const char *version = need_meta(st, "fcast_checkpoint_version");
    fc_status s = version ? FC_OK : FC_ERR_FORMAT;
    if (s == FC_OK && strcmp(version, FC_CHECKPOINT_VERSION) && strcmp(version, "1"))
        s = fc_error(FC_ERR_FORMAT, "%s: checkpoint version %s, this fcast (%s) reads versions 1 and %s: start the "
                     "run again", path, version, fc_version(), FC_CHECKPOINT_VERSION);
    if (s == FC_OK) s = check_options(st, c);
    if (s == FC_OK) s = check_data(st, version, c);
    if (s == FC_OK) s = read_state(st, c);
    if (s == FC_OK) s = read_tensors(st, c);
    fc_st_free(&st);
    return s;
}
