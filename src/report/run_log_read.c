/* Reads a run log (run_log.h): one JSON object a line, dispatched on its
 * "event" through a table, each handler reading only the keys it knows. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "data/text_map.h"
#include "report/run_log.h"

const char *const fc_run_phase_names[FC_RUN_PHASES] = {
    "sample", "gather", "scale", "forward", "loss", "backward", "optimizer", "validation", "checkpoint_io",
};

/* The key of phase p in a log's phases object: logs written before gather
 * and scale were timed apart (fcast 1.x, API version 1) have their sum as
 * "gather_scale", shown as the gather. */
static const char *phase_key(json_t *phases, int p) {
    const char *name = fc_run_phase_names[p];
    if (!strcmp(name, "gather") && !json_object_get(phases, name) && json_object_get(phases, "gather_scale"))
        return "gather_scale";
    return name;
}

/* Where a line came from, for messages; elapsed_base shifts the elapsed
 * time of a resumed run past that of the runs before it. */
typedef struct {
    const char *name;
    size_t line;
    double elapsed_max, elapsed_base;
} line_ctx;

/* A numeric field: absent or null gives NaN unless `required`. */
static fc_status get_num(const line_ctx *c, json_t *o, const char *key, int required, double *out) {
    json_t *v = json_object_get(o, key);
    *out = NAN;
    if (!v || json_is_null(v)) {
        if (!required) return FC_OK;
        return fc_error(FC_ERR_PARSE, "%s:%zu: %s event has no \"%s\"", c->name, c->line,
                        json_string_value(json_object_get(o, "event")), key);
    }
    if (!json_is_number(v))
        return fc_error(FC_ERR_PARSE, "%s:%zu: field \"%s\" should be a number", c->name, c->line, key);
    *out = json_number_value(v);
    return FC_OK;
}

/* A field as display text: strings as they are, anything else as compact
 * JSON. NULL (no allocation) when absent or null. */
static char *value_text(json_t *v) {
    if (!v || json_is_null(v)) return NULL;
    if (json_is_string(v)) return strdup(json_string_value(v));
    if (json_is_real(v)) {   /* 11.2, not jansson's 11.199999999999999 */
        char buf[40];
        snprintf(buf, sizeof buf, "%.6g", json_real_value(v));
        return strdup(buf);
    }
    return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
}

/* Replaces *dst with the text of o[key], if present. */
static fc_status get_text(json_t *o, const char *key, char **dst) {
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) return FC_OK;
    char *t = value_text(v);
    if (!t) return fc_error(FC_ERR_MEMORY, "out of memory reading the run log");
    free(*dst);
    *dst = t;
    return FC_OK;
}

static fc_status push_field(const line_ctx *c, json_t *o, const char *key, double x, fc_xy *curve) {
    double y;
    FC_TRY(get_num(c, o, key, 0, &y));
    return fc_xy_push(curve, x, y);
}

/* Every scalar member of `obj` into `list` as text. */
static fc_status kv_from_object(json_t *obj, fc_kv_list *list) {
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        if (json_is_object(v) || json_is_array(v) || !strcmp(key, "event")) continue;
        char *t = json_is_null(v) ? strdup("null") : value_text(v);
        if (!t) return fc_error(FC_ERR_MEMORY, "out of memory reading the run log");
        fc_status st = fc_kv_push(list, key, t);
        free(t);
        FC_TRY(st);
    }
    return FC_OK;
}

/* A resumed run restarts from a checkpoint at `step`: points logged after
 * it by the interrupted run are replaced by the resumed run's, so every
 * step-keyed curve keeps one value per step. */
static void cut_after(fc_xy *c, double step) {
    while (c->n > 0 && c->x[c->n - 1] > step) c->n--;
}

static void cut_all_after(fc_run_log *log, double step) {
    fc_xy *curves[] = {&log->train_loss, &log->lr, &log->loss_scale, &log->grad_norm,
                       &log->windows_per_s, &log->rss_bytes, &log->device_bytes, &log->skipped,
                       &log->val_loss, &log->checkpoint_bytes, &log->checkpoint_seconds};
    for (size_t i = 0; i < sizeof curves / sizeof *curves; i++) cut_after(curves[i], step);
    for (int p = 0; p < FC_RUN_PHASES; p++) cut_after(&log->profile[p], step);
}

static fc_status on_start(fc_run_log *log, line_ctx *c, json_t *o) {
    double schema, start_step;
    FC_TRY(get_num(c, o, "schema", 0, &schema));
    if (schema > FC_RUN_LOG_SCHEMA)
        return fc_error(FC_ERR_FORMAT, "%s:%zu: run log schema %.0f is newer than this fcast reads "
                        "(schema %d); report it with a newer fcast", c->name, c->line, schema, FC_RUN_LOG_SCHEMA);
    FC_TRY(get_num(c, o, "start_step", 0, &start_step));
    if (log->n_starts++ > 0) {
        if (isnan(start_step)) start_step = 0;
        cut_all_after(log, start_step);
        c->elapsed_base = c->elapsed_max;
        return fc_xy_push(&log->resumes, start_step, 0);
    }
    FC_TRY(get_text(o, "fcast_version", &log->fcast_version));
    FC_TRY(get_text(o, "time", &log->time));
    FC_TRY(get_text(o, "command", &log->command));
    FC_TRY(get_text(o, "precision", &log->precision));
    FC_TRY(get_num(c, o, "plan_bytes", 0, &log->plan_bytes));
    FC_TRY(get_num(c, o, "limit_bytes", 0, &log->limit_bytes));
    FC_TRY(get_num(c, o, "threads", 0, &log->threads));
    FC_TRY(get_num(c, o, "max_steps", 0, &log->max_steps));
    json_t *cfg = json_object_get(o, "config");
    return json_is_object(cfg) ? kv_from_object(cfg, &log->config) : FC_OK;
}

static fc_status on_step(fc_run_log *log, line_ctx *c, json_t *o) {
    double step;
    FC_TRY(get_num(c, o, "step", 1, &step));
    FC_TRY(get_text(o, "train_loss_unit", &log->train_loss_unit));
    FC_TRY(push_field(c, o, "train_loss", step, &log->train_loss));
    FC_TRY(push_field(c, o, "lr", step, &log->lr));
    FC_TRY(push_field(c, o, "loss_scale", step, &log->loss_scale));
    FC_TRY(push_field(c, o, "grad_norm", step, &log->grad_norm));
    FC_TRY(push_field(c, o, "windows_per_s", step, &log->windows_per_s));
    FC_TRY(push_field(c, o, "rss_bytes", step, &log->rss_bytes));
    FC_TRY(push_field(c, o, "device_bytes", step, &log->device_bytes));
    return push_field(c, o, "skipped", step, &log->skipped);
}

static fc_status on_validation(fc_run_log *log, line_ctx *c, json_t *o) {
    double step;
    FC_TRY(get_num(c, o, "step", 1, &step));
    FC_TRY(get_text(o, "val_loss_unit", &log->val_loss_unit));
    return push_field(c, o, "val_loss", step, &log->val_loss);
}

static fc_status on_checkpoint(fc_run_log *log, line_ctx *c, json_t *o) {
    double step;
    FC_TRY(get_num(c, o, "step", 1, &step));
    FC_TRY(push_field(c, o, "bytes", step, &log->checkpoint_bytes));
    return push_field(c, o, "seconds", step, &log->checkpoint_seconds);
}

static fc_status on_gpu(fc_run_log *log, line_ctx *c, json_t *o) {
    double t;
    FC_TRY(get_num(c, o, "elapsed_s", 1, &t));
    t += c->elapsed_base;
    FC_TRY(push_field(c, o, "util_pct", t, &log->gpu_util));
    FC_TRY(push_field(c, o, "mem_used_bytes", t, &log->gpu_mem_used));
    FC_TRY(push_field(c, o, "mem_total_bytes", t, &log->gpu_mem_total));
    FC_TRY(push_field(c, o, "temp_c", t, &log->gpu_temp));
    return push_field(c, o, "power_w", t, &log->gpu_power);
}

static fc_status on_profile(fc_run_log *log, line_ctx *c, json_t *o) {
    double step;
    FC_TRY(get_num(c, o, "step", 1, &step));
    json_t *phases = json_object_get(o, "phases");
    if (!json_is_object(phases))
        return fc_error(FC_ERR_PARSE, "%s:%zu: profile event has no \"phases\" object", c->name, c->line);
    for (int p = 0; p < FC_RUN_PHASES; p++)
        if (json_object_get(phases, phase_key(phases, p)))
            FC_TRY(push_field(c, phases, phase_key(phases, p), step, &log->profile[p]));
    return FC_OK;
}

/* A later summary (a resumed run's) replaces an earlier one whole: an
 * interrupted run's error must not stay on the page of a completed run. */
static fc_status on_summary(fc_run_log *log, line_ctx *c, json_t *o) {
    log->has_summary = 1;
    free(log->error);
    free(log->out);
    log->error = log->out = NULL;
    FC_TRY(get_text(o, "status", &log->status));
    FC_TRY(get_text(o, "error", &log->error));
    FC_TRY(get_text(o, "out", &log->out));
    FC_TRY(get_num(c, o, "peak_rss_bytes", 0, &log->peak_rss_bytes));
    fc_kv_list_free(&log->summary);
    FC_TRY(kv_from_object(o, &log->summary));
    json_t *phases = json_object_get(o, "phases");
    for (int p = 0; p < FC_RUN_PHASES; p++) {
        log->phase_seconds[p] = NAN;
        if (json_is_object(phases)) FC_TRY(get_num(c, phases, phase_key(phases, p), 0, &log->phase_seconds[p]));
    }
    return FC_OK;
}

typedef fc_status (*event_fn)(fc_run_log *, line_ctx *, json_t *);
static const struct { const char *name; event_fn fn; } events[] = {
    {"start", on_start}, {"step", on_step}, {"validation", on_validation}, {"checkpoint", on_checkpoint},
    {"gpu", on_gpu}, {"profile", on_profile}, {"summary", on_summary},
};

static fc_status dispatch(fc_run_log *log, line_ctx *c, json_t *o) {
    if (!json_is_object(o)) return fc_error(FC_ERR_PARSE, "%s:%zu: a line should be a JSON object", c->name, c->line);
    const char *ev = json_string_value(json_object_get(o, "event"));
    if (!ev) return fc_error(FC_ERR_PARSE, "%s:%zu: no \"event\" string", c->name, c->line);
    double t;
    if (get_num(c, o, "elapsed_s", 0, &t) == FC_OK && t + c->elapsed_base > c->elapsed_max)
        c->elapsed_max = t + c->elapsed_base;
    for (size_t i = 0; i < sizeof events / sizeof *events; i++)
        if (!strcmp(ev, events[i].name)) return events[i].fn(log, c, o);
    return FC_OK;   /* an event of a later fcast: ignored */
}

static int blank(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return 0;
    return 1;
}

/* One line. A line that does not parse is an error, except the last line
 * of a file that does not end in a newline: a run killed mid-write. */
static fc_status parse_line(fc_run_log *log, line_ctx *c, const char *s, size_t n, int last_unterminated) {
    json_error_t err;
    json_t *o = json_loadb(s, n, 0, &err);
    if (!o) {
        if (last_unterminated) { log->truncated_tail = 1; return FC_OK; }
        return fc_error(FC_ERR_PARSE, "%s:%zu: malformed JSON at column %d: %s", c->name, c->line, err.column, err.text);
    }
    fc_status st = dispatch(log, c, o);
    json_decref(o);
    return st;
}

fc_status fc_run_log_parse(const char *name, const char *text, size_t len, fc_run_log *log) {
    memset(log, 0, sizeof *log);
    log->plan_bytes = log->limit_bytes = log->threads = log->max_steps = log->peak_rss_bytes = NAN;
    for (int p = 0; p < FC_RUN_PHASES; p++) log->phase_seconds[p] = NAN;
    line_ctx c = {name, 0, 0, 0};
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end;
        c.line++;
        if (!blank(p, (size_t)(stop - p))) {
            log->lines++;
            fc_status st = parse_line(log, &c, p, (size_t)(stop - p), nl == NULL);
            if (st != FC_OK) { fc_run_log_free(log); return st; }
        }
        p = nl ? nl + 1 : end;
    }
    return FC_OK;
}

fc_status fc_run_log_read(const char *path, fc_run_log *log) {
    const char *text;
    size_t len;
    memset(log, 0, sizeof *log);
    FC_TRY(fc_text_map_open(path, &text, &len));
    fc_status st = fc_run_log_parse(path, text, len, log);
    fc_text_map_close(text, len);
    return st;
}

void fc_run_log_free(fc_run_log *log) {
    char **texts[] = {&log->fcast_version, &log->time, &log->command, &log->precision, &log->train_loss_unit,
                      &log->val_loss_unit, &log->status, &log->error, &log->out};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) free(*texts[i]);
    fc_xy *curves[] = {&log->resumes, &log->train_loss, &log->lr, &log->loss_scale, &log->grad_norm,
                       &log->windows_per_s, &log->rss_bytes, &log->device_bytes, &log->skipped,
                       &log->val_loss, &log->checkpoint_bytes, &log->checkpoint_seconds, &log->gpu_util,
                       &log->gpu_mem_used, &log->gpu_mem_total, &log->gpu_temp, &log->gpu_power};
    for (size_t i = 0; i < sizeof curves / sizeof *curves; i++) fc_xy_free(curves[i]);
    for (int p = 0; p < FC_RUN_PHASES; p++) fc_xy_free(&log->profile[p]);
    fc_kv_list_free(&log->config);
    fc_kv_list_free(&log->summary);
    memset(log, 0, sizeof *log);
}
