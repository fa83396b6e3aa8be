/* The endpoints of fcast serve (see service.h): routing, then one handler
 * per endpoint. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/memory_stats.h"
#include "core/utc_time.h"
#include "api/serve_engine.h"
#include "kserve_codec.h"
#include "quant_routes.h"
#include "service.h"
#include "core/clock.h"

#define JSON "application/json"
#define MODELS_PREFIX_V1 "/v1/models/"
#define MODELS_PREFIX_V2 "/v2/models/"

/* Kubernetes' own names (/healthz, /readyz) beside KServe's, for probes
 * written the Kubernetes way: the same handlers, the same answers. */
#define HEALTH_PREFIX "/v2/health/"
#define LIVE_ALIAS "/healthz"
#define READY_ALIAS "/readyz"

/* ---- small helpers ---- */

static int is(const fc_http_request *rq, const char *method) { return !strcmp(rq->method, method); }





/* The model name of /vN/models/{name}[/suffix]: copied into name, with what
 * follows it in *rest ("" or "/ready", "/forecast", ...). 0 when the path
 * is not of that form or the name is not one a model can have. */
static int model_path(const char *path, const char *prefix, char *name, const char **rest) {
    size_t p = strlen(prefix);
    if (strncmp(path, prefix, p) != 0) return 0;
    const char *start = path + p, *slash = strchr(start, '/');
    size_t n = slash ? (size_t)(slash - start) : strlen(start);
    if (n == 0 || n >= FC_MODEL_NAME_MAX) return 0;
    memcpy(name, start, n);
    name[n] = '\0';
    *rest = start + n;
    return fc_model_name_valid(name);
}

/* ---- health and metadata ---- */

static void health_live(fc_http_response *rs) { fc_http_reply(rs, 200, JSON, "{\"live\": true}\n"); }

static void health_ready(const fc_service *s, fc_http_response *rs) {
    if (s->ready) fc_http_reply(rs, 200, JSON, "{\"ready\": true}\n");
    else fc_http_reply(rs, 503, JSON, "{\"ready\": false}\n");
}

static void server_metadata(fc_http_response *rs) {
    char text[256];
    snprintf(text, sizeof text, "{\"name\": \"fcast\", \"version\": \"%s\", \"extensions\": []}\n", fc_version());
    fc_http_reply(rs, 200, JSON, text);
}

static void model_ready(const fc_service *s, const fc_served_model *m, fc_http_response *rs) {
    char text[256];
    snprintf(text, sizeof text, "{\"name\": \"%s\", \"ready\": %s}\n", m->name, s->ready ? "true" : "false");
    fc_http_reply(rs, s->ready ? 200 : 503, JSON, text);
}

/* fcast's configuration of a model file's model. */
static void model_config(const fc_served_model *m, char *text, size_t cap) {
    const fc_forecaster *f = fc_served_first(m);
    const fc_model_config *c = &f->model->cfg;
    snprintf(text, cap,
             "{\"model\": \"%s\", \"h\": %zu, \"input_size\": %zu, \"scaler\": \"%s\", \"loss\": \"%s\", "
             "\"freq\": \"%s\", \"ds\": \"%s\", \"steps_trained\": %zu, \"seed\": %llu, \"parameters\": %zu, "
             "\"file_bytes\": %zu, \"fcast_version\": \"%s\"}",
             fc_model_kind_name(c->kind), c->h, c->input_size, fc_scaler_name(f->scaler), fc_loss_name(f->loss),
             f->freq.name, fc_ds_kind_name(f->ds_kind), f->steps_trained, (unsigned long long)f->seed,
             f->model->n_trainable, m->file_bytes, fc_version());
}

/* An ensemble file's: its combination, members, and what they share; the
 * input size is the longest member's (each reads its own last points). */
static void ensemble_config(const fc_served_model *m, char *text, size_t cap) {
    const fc_forecaster *f = fc_served_first(m);
    size_t parameters = 0;
    for (size_t k = 0; k < m->set.n; k++) parameters += m->set.members[k].model->n_trainable;
    snprintf(text, cap,
             "{\"model\": \"Ensemble\", \"combine\": \"%s\", \"members\": %zu, \"h\": %zu, "
             "\"input_size\": %zu, \"freq\": \"%s\", \"ds\": \"%s\", \"parameters\": %zu, "
             "\"file_bytes\": %zu, \"fcast_version\": \"%s\"}",
             fc_combine_name(m->set.combine), m->set.n, fc_served_h(m), fc_served_input_size(m), f->freq.name,
             fc_ds_kind_name(f->ds_kind), parameters, m->file_bytes, fc_version());
}

/* KServe v2 model metadata, with fcast's configuration of the model. */
static void model_metadata(const fc_served_model *m, fc_http_response *rs) {
    char text[2048], config[1024], outputs[32] = "";
    size_t Q = fc_served_outputs(m);
    if (Q > 1) snprintf(outputs, sizeof outputs, ", %zu", Q);   /* [-1, h, Q] */
    if (m->ensemble) ensemble_config(m, config, sizeof config);
    else model_config(m, config, sizeof config);
    snprintf(text, sizeof text,
             "{\"name\": \"%s\", \"versions\": [\"1\"], \"platform\": \"fcast\",\n"
             " \"inputs\": [{\"name\": \"insample_y\", \"datatype\": \"FP32\", \"shape\": [-1, %zu]}],\n"
             " \"outputs\": [{\"name\": \"forecast\", \"datatype\": \"FP32\", \"shape\": [-1, %zu%s]}],\n"
             " \"config\": %s}\n",
             m->name, fc_served_input_size(m), fc_served_h(m), outputs, config);
    fc_http_reply(rs, 200, JSON, text);
}

/* ---- forecasts ---- */

/* The request's series as the dataset predict would load, on the model's
 * time axis, and what it asks beside them (h, levels). */
static fc_status parse_forecast(const fc_service *s, const fc_served_model *m, const fc_http_request *rq,
                                fc_dataset **ds, fc_forecast_params *p, int *status) {
    const fc_forecaster *f = fc_served_first(m);
    fc_load_options lo = {.freq = f->freq.name, .drop_exog = 1};
    fc_status st;
    memset(p, 0, sizeof *p);
    *status = 400;
    if (fc_http_media_is(rq->content_type, "text/csv")) {
        st = fc_forecast_request_csv(rq->body, rq->len, &lo, &s->limits, ds);
    } else if (fc_http_json_body(rq)) {
        st = fc_forecast_request_json(rq->body, rq->len, &lo, &s->limits, ds, p);
    } else {
        *status = 415;
        return fc_error(FC_ERR_INVALID, "Content-Type %s: send application/json or text/csv", rq->content_type);
    }
    if (st != FC_OK) {
        *status = fc_http_status_of(st);
        return st;
    }
    size_t H = fc_served_h(m);
    if ((*ds)->ds_kind != f->ds_kind)
        st = fc_error(FC_ERR_INVALID, "ds: the request's are %s, model %s was trained on %s", fc_ds_kind_name((*ds)->ds_kind),
                      m->name, fc_ds_kind_name(f->ds_kind));
    else if (p->h > H)
        st = fc_error(FC_ERR_INVALID, "h: %zu is beyond the model's horizon of %zu", p->h, H);
    else
        st = fc_freq_check_future(*ds, &f->freq, H);
    if (st != FC_OK) fc_dataset_free(ds);
    if (!p->h) p->h = H;
    return st;
}

/* The first h of the model's H steps of every series, each step's W
 * values together, in place. */
static void keep_first(float *fc, size_t n_series, size_t H, size_t h, size_t W) {
    for (size_t i = 0; i < n_series && h < H; i++) memmove(fc + i * h * W, fc + i * H * W, h * W * sizeof *fc);
}

/* The model's columns (quantiles, or the point and its conformal
 * intervals; an ensemble's column Ensemble), as fcast predict writes them
 * (train/forecast_columns.h). */
static void forecast_reply(const fc_served_model *m, const fc_http_request *rq, const fc_dataset *ds,
                           const fc_forecast_params *p, float *raw, fc_http_response *rs) {
    fc_column_set cs;
    const fc_forecaster *f = fc_served_first(m);
    size_t H = fc_served_h(m), len = 0;
    fc_status st = fc_served_columns(m, p->levels, p->n_levels, &cs);
    /* the model's outputs are its columns, unless intervals are added to them */
    float *values = st == FC_OK && cs.intervals ? fc_malloc(ds->n_series * H * cs.n_cols * sizeof *values, "forecasts")
                                                : NULL;
    if (st == FC_OK && cs.intervals && !values) st = FC_ERR_MEMORY;
    if (st == FC_OK && cs.intervals) st = fc_columns_fill(f, &cs, ds, raw, p->levels, p->n_levels, values);
    if (st != FC_OK) {
        free(values);
        fc_http_reply_error(rs, fc_http_status_of(st), fc_last_error());
        return;
    }
    float *cells = values ? values : raw;
    keep_first(cells, ds->n_series, H, p->h, cs.n_cols);
    fc_forecast_columns cols = {cs.name, cs.n_cols, cs.suffixes, cells};
    int csv = fc_http_media_is(rq->accept, "text/csv");
    char *text = csv ? fc_forecast_response_csv_columns(ds, &f->freq, p->h, &cols, &len)
                     : fc_forecast_response_json_columns(m->name, ds, &f->freq, p->h, &cols, &len);
    free(values);
    if (!text) {
        fc_http_reply_error(rs, 500, fc_last_error());
        return;
    }
    *rs = (fc_http_response){.status = 200, .content_type = csv ? "text/csv" : JSON, .body = text, .len = len};
}

/* Runs the forecast through the batcher; the job's durations go to the metrics. */
static int run_forecast(fc_service *s, fc_served_model *m, const fc_http_request *rq, const fc_dataset *ds,
                        const fc_forecast_params *p, fc_http_response *rs) {
    size_t width = fc_served_h(m) * fc_served_outputs(m);
    float *fc = fc_malloc(ds->n_series * width * sizeof *fc, "forecasts");
    if (!fc) {
        fc_http_reply_error(rs, 500, fc_last_error());
        return 0;
    }
    fc_forecast_job job = {.model = m, .ds = ds, .out = fc};
    fc_status st = fc_batcher_run(s->batcher, &job);
    int ok = st == FC_OK;
    int refused = job.rejected || job.timed_out;
    if (refused) {
        fc_http_reply_error(rs, 503, job.error);
        rs->retry_after = 1;
    } else if (!ok) {
        fc_http_reply_error(rs, 500, job.error);
    } else {
        forecast_reply(m, rq, ds, p, fc, rs);
        ok = rs->status == 200;
    }
    if (!refused)
        fc_metrics_request(s->metrics, m->name, ok, fc_now() - rq->received, job.started_at - job.queued_at,
                           job.done_at - job.started_at);
    else
        fc_metrics_request(s->metrics, m->name, 0, fc_now() - rq->received, -1.0, -1.0);
    free(fc);
    return ok;
}

static void forecast(fc_service *s, fc_served_model *m, const fc_http_request *rq, fc_http_response *rs) {
    fc_dataset *ds = NULL;
    fc_forecast_params p;
    int status;
    if (parse_forecast(s, m, rq, &ds, &p, &status) != FC_OK) {
        fc_http_reply_error(rs, status, fc_last_error());
        fc_metrics_request(s->metrics, m->name, 0, fc_now() - rq->received, -1.0, -1.0);
        return;
    }
    run_forecast(s, m, rq, ds, &p, rs);
    fc_dataset_free(&ds);
}

/* POST /v2/models/{name}/infer: KServe v2 windows in, forecasts out, through
 * the same batcher as the forecasts. */
static void infer(fc_service *s, fc_served_model *m, const fc_http_request *rq, fc_http_response *rs) {
    fc_dataset *ds = NULL;
    char id[FC_KSERVE_ID_MAX];
    size_t H = fc_served_h(m);
    if (!fc_http_json_body(rq)) {
        char msg[200];
        snprintf(msg, sizeof msg, "Content-Type %.120s: the inference protocol's body is application/json",
                 rq->content_type);
        fc_http_reply_error(rs, 415, msg);
        fc_metrics_request(s->metrics, m->name, 0, fc_now() - rq->received, -1.0, -1.0);
        return;
    }
    fc_status st = fc_kserve_request(rq->body, rq->len, fc_served_input_size(m), &s->limits, &ds, id);
    if (st != FC_OK) {
        fc_http_reply_error(rs, fc_http_status_of(st), fc_last_error());
        fc_metrics_request(s->metrics, m->name, 0, fc_now() - rq->received, -1.0, -1.0);
        return;
    }
    size_t Q = fc_served_outputs(m);
    float *fc = fc_malloc(ds->n_series * H * Q * sizeof *fc, "forecasts");
    fc_forecast_job job = {.model = m, .ds = ds, .out = fc};
    st = fc ? fc_batcher_run(s->batcher, &job) : FC_ERR_MEMORY;
    size_t len = 0;
    char *text = st == FC_OK ? fc_kserve_response(m->name, id, ds->n_series, H, Q, fc, &len) : NULL;
    if (text) *rs = (fc_http_response){.status = 200, .content_type = JSON, .body = text, .len = len};
    int refused = job.rejected || job.timed_out;
    if (!text) fc_http_reply_error(rs, refused ? 503 : 500, job.error[0] ? job.error : fc_last_error());
    if (refused) rs->retry_after = 1;
    int ran = fc && !refused;
    fc_metrics_request(s->metrics, m->name, rs->status == 200, fc_now() - rq->received,
                       ran ? job.started_at - job.queued_at : -1.0, ran ? job.done_at - job.started_at : -1.0);
    free(fc);
    fc_dataset_free(&ds);
}

/* ---- metrics ---- */

/* The GPUs' readings through NVML (at most the 8 the metrics hold). */
static void gpu_readings(fc_service *s, fc_metrics_process *p) {
    int n = s->gpu ? fc_gpu_monitor_count(s->gpu) : 0;
    for (int i = 0; i < n && p->n_gpus < 8; i++) {
        fc_gpu_sample g;
        if (fc_gpu_monitor_sample(s->gpu, i, &g) != FC_OK) continue;
        int k = p->n_gpus++;
        snprintf(p->gpu[k].uuid, sizeof p->gpu[k].uuid, "cuda:%d", i);
        p->gpu[k].utilization = g.util_pct / 100.0;
        p->gpu[k].memory_used_bytes = (double)g.mem_used_bytes;
        p->gpu[k].memory_total_bytes = (double)g.mem_total_bytes;
        p->gpu[k].power_watts = g.power_w;
        p->gpu[k].temperature_celsius = g.temp_c;
    }
}

static void metrics(fc_service *s, fc_http_response *rs) {
    fc_metrics_process p = {.resident_bytes = (double)fc_rss_current(), .arena_used_bytes = -1,
                            .arena_size_bytes = -1};
    gpu_readings(s, &p);
    size_t len = 0;
    char *text = fc_metrics_render(s->metrics, &p, &len);
    if (!text) {
        fc_http_reply_error(rs, 500, fc_last_error());
        return;
    }
    *rs = (fc_http_response){.status = 200, .content_type = "text/plain; version=0.0.4", .body = text, .len = len};
}

/* ---- the model repository: load, unload, index, rescan ---- */

typedef struct {
    fc_service *s;
    const char *name;
} load_call;

static fc_status load_exclusive(void *ctx) {
    load_call *c = ctx;
    return fc_registry_load(c->s->models, c->s->models_dir, c->name);
}

static void repository_load(fc_service *s, const char *name, fc_http_response *rs) {
    load_call c = {s, name};
    fc_status st = fc_batcher_exclusive(s->batcher, load_exclusive, &c);
    if (st != FC_OK) {
        /* the old model, if any, keeps serving */
        fc_http_reply_error(rs, st == FC_ERR_IO ? 404 : 400, fc_last_error());
        return;
    }
    fc_metrics_model_state(s->metrics, name, 1);
    fprintf(stderr, "fcast serve: model %s loaded\n", name);
    fc_http_reply(rs, 200, JSON, "{\"loaded\": true}\n");
}

static void repository_unload(fc_service *s, const char *name, fc_http_response *rs) {
    if (!fc_registry_unload(s->models, name)) {
        char msg[FC_MODEL_NAME_MAX + 64];
        snprintf(msg, sizeof msg, "no model named '%s' is loaded", name);
        fc_http_reply_error(rs, 404, msg);
        return;
    }
    fc_metrics_model_state(s->metrics, name, 0);
    fprintf(stderr, "fcast serve: model %s unloaded\n", name);
    fc_http_reply(rs, 200, JSON, "{\"unloaded\": true}\n");
}

/* Triton's repository index: [{"name", "version", "state"}], in name order. */
static void repository_index(fc_service *s, fc_http_response *rs) {
    size_t n = fc_registry_count(s->models), cap = 64 + n * (FC_MODEL_NAME_MAX + 64), used = 0;
    char *text = malloc(cap), name[FC_MODEL_NAME_MAX];
    if (!text) {
        fc_http_reply_error(rs, 500, "out of memory");
        return;
    }
    used += (size_t)snprintf(text + used, cap - used, "[");
    for (size_t i = 0; fc_registry_name_at(s->models, i, name, sizeof name) && used + FC_MODEL_NAME_MAX + 64 < cap; i++)
        used += (size_t)snprintf(text + used, cap - used, "%s{\"name\": \"%s\", \"version\": \"1\", \"state\": "
                                 "\"READY\"}", i ? ", " : "", name);
    snprintf(text + used, cap - used, "]\n");
    *rs = (fc_http_response){.status = 200, .content_type = JSON, .body = text, .len = strlen(text)};
}

/* POST /v2/repository/index and /v2/repository/models/{name}/(load|unload). */
static int route_repository(fc_service *s, const fc_http_request *rq, fc_http_response *rs) {
    char name[FC_MODEL_NAME_MAX];
    const char *rest = NULL;
    int index = !strcmp(rq->path, "/v2/repository/index");
    int model = !index && model_path(rq->path, "/v2/repository/models/", name, &rest) &&
                (!strcmp(rest, "/load") || !strcmp(rest, "/unload"));
    if (!index && !model) return 0;
    if (!is(rq, "POST")) fc_http_method_not_allowed(rs, "POST");
    else if (index) repository_index(s, rs);
    else if (!strcmp(rest, "/load")) repository_load(s, name, rs);
    else repository_unload(s, name, rs);
    return 1;
}

static void report_rescan(void *ctx, const char *name, fc_rescan_event what, const char *error) {
    fc_service *s = ctx;
    if (what == FC_RESCAN_FAILED) {
        fprintf(stderr, "fcast serve: reload: %s%s%s%s\n", name, *name ? ": " : "", error,
                *name ? " (the model serving before, if any, still serves)" : "");
        return;
    }
    fc_metrics_model_state(s->metrics, name, what == FC_RESCAN_LOADED);
    fprintf(stderr, "fcast serve: reload: model %s %s\n", name, what == FC_RESCAN_LOADED ? "loaded" : "unloaded");
}

static fc_status rescan_exclusive(void *ctx) {
    fc_service *s = ctx;
    fc_registry_rescan(s->models, s->models_dir, report_rescan, s);
    return FC_OK;
}

void fc_service_rescan(fc_service *s) { fc_batcher_exclusive(s->batcher, rescan_exclusive, s); }

/* ---- routing ---- */

static void route(fc_service *s, const fc_http_request *rq, fc_http_response *rs);

/* /v1/models/{name}/forecast and /v2/models/{name}[/ready]. */
static int route_model(fc_service *s, const fc_http_request *rq, fc_http_response *rs) {
    char name[FC_MODEL_NAME_MAX];
    const char *rest;
    int v1 = model_path(rq->path, MODELS_PREFIX_V1, name, &rest);
    if (!v1 && !model_path(rq->path, MODELS_PREFIX_V2, name, &rest)) return 0;
    int is_infer = !v1 && !strcmp(rest, "/infer");
    int known = v1 ? !strcmp(rest, "/forecast") : (!strcmp(rest, "") || !strcmp(rest, "/ready") || is_infer);
    if (!known) return 0;
    const char *method = v1 || is_infer ? "POST" : "GET";
    int head_ok = !strcmp(method, "GET") && is(rq, "HEAD");   /* HEAD is GET without the body */
    if (!is(rq, method) && !head_ok) {
        fc_http_method_not_allowed(rs, !strcmp(method, "GET") ? "GET, HEAD" : method);
        return 1;
    }
    fc_served_model *m = fc_registry_acquire(s->models, name);
    if (!m) {
        char msg[FC_MODEL_NAME_MAX + 64];
        snprintf(msg, sizeof msg, "no model named '%s' is loaded", name);
        fc_http_reply_error(rs, 404, msg);
        return 1;
    }
    if (v1) forecast(s, m, rq, rs);
    else if (is_infer) infer(s, m, rq, rs);
    else if (*rest) model_ready(s, m, rs);
    else model_metadata(m, rs);
    fc_registry_release(s->models, m);
    return 1;
}

/* The fixed paths: GET only. */
static int route_fixed(fc_service *s, const fc_http_request *rq, fc_http_response *rs) {
    enum { LIVE, READY, METADATA, METRICS };
    static const struct { const char *path; int what; } paths[] = {
        {HEALTH_PREFIX "live", LIVE}, {HEALTH_PREFIX "ready", READY}, {LIVE_ALIAS, LIVE}, {READY_ALIAS, READY},
        {"/v2", METADATA}, {"/metrics", METRICS}};
    int which = -1;
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        if (!strcmp(rq->path, paths[i].path)) which = paths[i].what;
    if (which < 0) return 0;
    if (!is(rq, "GET") && !is(rq, "HEAD")) {
        fc_http_method_not_allowed(rs, "GET, HEAD");
        return 1;
    }
    if (which == LIVE) health_live(rs);
    else if (which == READY) health_ready(s, rs);
    else if (which == METADATA) server_metadata(rs);
    else metrics(s, rs);
    return 1;
}

int fc_service_is_probe(const char *path) {
    return !strncmp(path, HEALTH_PREFIX, strlen(HEALTH_PREFIX)) || !strcmp(path, LIVE_ALIAS) ||
           !strcmp(path, READY_ALIAS);
}

static int is_probe(const fc_http_request *rq) { return fc_service_is_probe(rq->path); }

/* 401 for a request without the token, except the health endpoints, which
 * probes (load balancers, Kubernetes) call without credentials. */
static int refuse_unauthorized(const fc_service *s, const fc_http_request *rq, fc_http_response *rs) {
    if (!s->token || is_probe(rq)) return 0;
    const char *h = rq->authorization;   /* its bytes and length: the token is compared as bytes, not a C string */
    size_t n = rq->authorization_len;
    if (h && n >= 7 && !strncasecmp(h, "Bearer ", 7) && fc_bearer_token_matches(s->token, h + 7, n - 7)) return 0;
    fc_http_reply_error(rs, 401, h ? "the bearer token is not the server's" : "this server needs a bearer token: "
                                                                             "Authorization: Bearer <token>");
    rs->www_authenticate = 1;
    return 1;
}

/* While draining only the health endpoints answer as usual: a request that
 * arrives on a connection kept open is refused, not started. */
static int refuse_draining(const fc_service *s, const fc_http_request *rq, fc_http_response *rs) {
    if (!s->draining || is_probe(rq)) return 0;
    fc_http_reply_error(rs, 503, "the server is shutting down");
    rs->retry_after = 1;
    return 1;
}

int fc_service_in_flight(const fc_service *s) { return __atomic_load_n(&s->in_flight, __ATOMIC_SEQ_CST); }

void fc_service_handle(void *ctx, const fc_http_request *rq, fc_http_response *rs) {
    fc_service *s = ctx;
    __atomic_add_fetch(&s->in_flight, 1, __ATOMIC_SEQ_CST);
    route(s, rq, rs);
    fc_metrics_http_status(s->metrics, rs->status);
    __atomic_sub_fetch(&s->in_flight, 1, __ATOMIC_SEQ_CST);
}

static void route(fc_service *s, const fc_http_request *rq, fc_http_response *rs) {
    if (refuse_unauthorized(s, rq, rs) || refuse_draining(s, rq, rs)) return;
    if (fc_quant_route(rq, rs)) return;
    if (!route_fixed(s, rq, rs) && !route_model(s, rq, rs) && !route_repository(s, rq, rs)) {
        char msg[160];
        snprintf(msg, sizeof msg, "no such endpoint: %.100s %s (see docs/serving.md)", rq->path, rq->method);
        fc_http_reply_error(rs, 404, msg);
    }
}

void fc_service_log(void *ctx, const fc_http_request *rq, int status, size_t bytes, double seconds) {
    const fc_service *s = ctx;
    if (s->quiet) return;
    char when[FC_UTC_TIMESTAMP_LEN];
    fc_utc_timestamp(when);
    fprintf(stderr, "%s %s %.200s %d %zu %.0f\n", when, rq->method, rq->path, status, bytes, seconds * 1e6);
}
