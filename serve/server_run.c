/* The forecasting server's life (server_run.h): what `fcast serve` starts,
 * reloads, drains and stops. */
#include "server_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/serve_engine.h"
#include "bearer_token.h"
#include "core/byte_size.h"
#include "core/error.h"
#include "service.h"
#include "core/clock.h"

struct fc_server {
    fc_serve_options o;
    size_t limit, max_body;   /* o's texts, parsed */
    fc_service s;
    fc_backend *be;
    fc_http_server *http;
    fc_bearer_token token;
};

void fc_serve_defaults(fc_serve_options *o) {
    *o = (fc_serve_options){.host = "127.0.0.1", .device = "auto", .max_body = "16MiB", .port = 8080,
                            .max_batch_windows = 1024, .max_queue = 1024, .max_connections = 256, .timeout = 30,
                            .drain_timeout = 30, .max_series = 100000, .max_points = 0,
                            .request_timeout = 30};
}

static fc_status check_options(fc_server *v) {
    const fc_serve_options *a = &v->o;
    FC_TRY(fc_memory_limit_parse(a->memory_limit, &v->limit));
    if (fc_parse_byte_size(a->max_body, &v->max_body) != 0 || v->max_body == 0)
        return fc_error(FC_ERR_INVALID, "--max-body %s: expected a size such as 16MiB", a->max_body);
    if (!(a->request_timeout >= 0) || a->request_timeout > 86400)
        return fc_error(FC_ERR_INVALID, "--request-timeout must be between 0 and 86400 seconds");
    /* bounds that keep the memory plan's products (connections x body) from wrapping */
    if (a->max_connections > 65536 || v->max_body > ((size_t)1 << 34) || a->max_batch_windows > ((size_t)1 << 20) ||
        a->max_queue > ((size_t)1 << 24))
        return fc_error(FC_ERR_INVALID, "--max-connections is at most 65536, --max-body 16GiB, --max-batch-windows "
                        "1048576, --max-queue 16777216");
    /* The executor and the HTTP threads use the CUDA device each thread
     * starts with (device 0): until they bind to the backend's device, only
     * cuda:0 is served correctly. */
    if (a->device && !strncmp(a->device, "cuda:", 5) && strcmp(a->device, "cuda:0") != 0)
        return fc_error(FC_ERR_INVALID, "--device %s: fcast serve runs on cuda:0 (or the CPU) in this version",
                        a->device);
    if (a->port > 65535) return fc_error(FC_ERR_INVALID, "--port %zu: at most 65535", a->port);
    if (!a->max_batch_windows || !a->max_queue || !a->max_connections || !a->max_series)
        return fc_error(FC_ERR_INVALID, "--max-batch-windows, --max-queue, --max-connections and --max-series must "
                        "be >= 1");
    return FC_OK;
}

static size_t add_sat(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

/* What the connections' forecast requests may hold at once: a dataset of
 * up to --max-points points each after gap filling (exogenous columns are
 * dropped), however few bytes the body took; saturated, never wrapped. */
static size_t request_data_bytes(const fc_serve_options *a) {
    size_t one, all;
    if (__builtin_mul_overflow(a->max_points, fc_dataset_point_bytes(0), &one) ||
        __builtin_mul_overflow(one, a->max_connections, &all))
        return SIZE_MAX;
    return all;
}

/* The most points a request may have when every connection may hold
 * that many under limit, beside the rest of the plan (others). */
static size_t points_that_fit(const fc_serve_options *a, size_t limit, size_t others) {
    size_t per = a->max_connections * fc_dataset_point_bytes(0);
    return limit > others ? (limit - others) / per : 0;
}

/* --max-points not given: the default, or under --memory-limit what the
 * limit leaves for request data when that is less (said once at start), so
 * that a limit alone gives a server that starts and keeps to it. */
static void choose_max_points(fc_server *v, size_t others) {
    fc_serve_options *a = &v->o;
    if (a->max_points) return;
    size_t fits = v->limit ? points_that_fit(a, v->limit, others) : FC_SERVE_MAX_POINTS;
    a->max_points = fits < FC_SERVE_MAX_POINTS ? fits : FC_SERVE_MAX_POINTS;
    if (a->max_points && a->max_points < FC_SERVE_MAX_POINTS)
        fprintf(stderr, "fcast serve: --max-points %zu: the points after gap filling a request may have, as much "
                "as --memory-limit leaves for the request data of %zu connections\n", a->max_points,
                a->max_connections);
    v->s.limits.max_points = a->max_points;
}

/* A served model's parameters and its buffers for a batch of `batch`
 * series (activations, batch staging): every member's, for an ensemble. */
static size_t served_model_bytes(const fc_served_model *m, size_t batch) {
    size_t bytes = 0;
    for (size_t k = 0; k < m->set.n; k++) {
        const fc_model *md = m->set.members[k].model;
        bytes += (md->n_floats + fc_model_act_floats(md, batch)) * sizeof(float) +
                 fc_batch_bytes(batch, md->cfg.input_size, md->cfg.h, md->cfg.n_outputs);
    }
    return bytes;
}

/* The server's memory plan against --memory-limit, before it serves:
 * every model's parameters and its buffers for a whole batch (activations,
 * batch staging), the request bodies the connections may hold at once and
 * the data they may load (their points after gap filling), the batch's
 * forecasts, and the plan's allowance for code and libraries. Refused with
 * the breakdown when over. */
static fc_status check_memory(fc_server *v) {
    const fc_serve_options *a = &v->o;
    fc_model_registry *r = v->s.models;
    size_t models = 0, bodies = a->max_connections * v->max_body, n = fc_registry_count(r);
    size_t batch = fc_inference_chunk(0, a->max_batch_windows), batch_out = 0;
    char name[FC_MODEL_NAME_MAX], advice[64] = "";
    for (size_t i = 0; i < n && fc_registry_name_at(r, i, name, sizeof name); i++) {
        fc_served_model *m = fc_registry_acquire(r, name);
        if (!m) continue;
        models += served_model_bytes(m, batch);
        /* an ensemble's members' forecasts are kept together for the combination */
        size_t out = a->max_batch_windows * fc_served_h(m) * fc_served_outputs(m) * sizeof(float);
        if (m->ensemble) out *= m->set.n + 1;
        batch_out = out > batch_out ? out : batch_out;
        fc_registry_release(r, m);
    }
    size_t others = models + bodies + batch_out + FC_PLAN_ALLOWANCE;
    choose_max_points(v, others);
    size_t data = request_data_bytes(a), total = add_sat(others, data);
    if (!v->limit || (a->max_points && total <= v->limit)) return FC_OK;
    size_t fits = points_that_fit(a, v->limit, others);
    if (fits) snprintf(advice, sizeof advice, " (at most %zu fits)", fits);
    return fc_error(FC_ERR_MEMORY, "--memory-limit %zu bytes: the server's plan takes %zu: models with their batch "
                    "buffers %zu, request bodies (--max-connections x --max-body) %zu, request data after gap filling "
                    "(--max-connections x --max-points x %zu bytes) %zu, a batch's forecasts %zu, code and libraries "
                    "%zu; lower --max-connections, --max-body, --max-points%s or --max-batch-windows, or serve fewer "
                    "models", v->limit, total, models, bodies, fc_dataset_point_bytes(0), data, batch_out,
                    (size_t)FC_PLAN_ALLOWANCE, advice);
}

/* The forecasts' CPU threads: all cores but one unless told, which stays
 * free for the connections' threads (parsing, answering). On 2 cores,
 * measured side by side with wrk (bench/serve.sh, 16 connections): 1
 * thread 6.3k requests/s at p99 5.4 ms, 2 threads 4.4k at p99 6.7 ms,
 * because the forward passes' OpenMP threads took the core the requests
 * needed. */
static size_t compute_threads(size_t asked) {
    if (asked) return asked;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 1 ? (size_t)cores - 1 : 1;
}

/* NVML for the metrics' GPU gauges when the models run on a GPU (or, for
 * tests, when FCAST_TEST_SERVE_GPU_METRICS=1 with FCAST_NVML_LIBRARY at a
 * stand-in). Without it the metrics just have no GPU lines. */
static void open_gpu_monitor(fc_service *s, const fc_backend *be) {
    const char *test = getenv("FCAST_TEST_SERVE_GPU_METRICS");
    if (strcmp(be->name, "cuda") != 0 && !(test && !strcmp(test, "1"))) return;
    if (fc_gpu_monitor_open(&s->gpu) != FC_OK)
        fprintf(stderr, "fcast serve: no GPU figures in the metrics: %s\n", fc_last_error());
}

static fc_status start(fc_server *v) {
    const fc_serve_options *a = &v->o;
    fc_service *s = &v->s;
    FC_TRY(check_options(v));
    if (a->auth_token_file) {
        FC_TRY(fc_bearer_token_read(a->auth_token_file, &v->token));
        s->token = &v->token;
    }
    s->models_dir = a->models;
    FC_TRY(fc_api_backend_open(a->device, compute_threads(a->threads), 1, &v->be));
    FC_TRY(fc_registry_open(a->models, v->be, a->max_batch_windows, &s->models));
    FC_TRY(check_memory(v));
    FC_TRY(fc_metrics_create(&s->metrics));
    open_gpu_monitor(s, v->be);
    char name[FC_MODEL_NAME_MAX];
    for (size_t i = 0; fc_registry_name_at(s->models, i, name, sizeof name); i++)
        FC_TRY(fc_metrics_model_state(s->metrics, name, 1));
    fc_batcher_options bo = {a->max_batch_windows, (long)a->max_queue_delay_us, a->max_queue, a->request_timeout};
    FC_TRY(fc_batcher_start(&bo, s->metrics, &s->batcher));
    fc_registry_set_guard(s->models, fc_batcher_guard, s->batcher);
    fc_http_options ho = {a->host, (unsigned)a->port, (unsigned)a->max_connections, v->max_body, (unsigned)a->timeout,
                          fc_service_is_probe};
    return fc_http_start(&ho, fc_service_handle, fc_service_log, s, &v->http);
}

fc_status fc_server_start(const fc_serve_options *o, fc_server **out) {
    *out = NULL;
    fc_server *v = calloc(1, sizeof *v);
    if (!v) return fc_error(FC_ERR_MEMORY, "out of memory");
    v->o = *o;
    v->s = (fc_service){.limits = {o->max_series, o->max_points}, .quiet = o->quiet};
    fc_status st = start(v);
    if (st != FC_OK) {
        fc_server_stop(v);
        return st;
    }
    v->s.ready = 1;
    *out = v;
    return FC_OK;
}

size_t fc_server_model_count(const fc_server *v) { return fc_registry_count(v->s.models); }

unsigned fc_server_port(const fc_server *v) { return fc_http_port(v->http); }

void fc_server_reload(fc_server *v) { fc_service_rescan(&v->s); }

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* The requests in flight finish (bounded by --drain-timeout); a moment
 * more lets their answers leave before the connections close. */
void fc_server_drain(fc_server *v) {
    fc_service *s = &v->s;
    s->ready = 0;
    s->draining = 1;
    fc_http_quiesce(v->http);
    double until = fc_now() + (double)v->o.drain_timeout;
    while (fc_service_in_flight(s) > 0 && fc_now() < until) sleep_ms(10);
    int left = fc_service_in_flight(s);
    if (left) fprintf(stderr, "fcast serve: %d request(s) still running after --drain-timeout\n", left);
    sleep_ms(100);
}

void fc_server_stop(fc_server *v) {
    if (!v) return;
    fc_service *s = &v->s;
    fc_http_stop(v->http);
    if (s->models) fc_registry_set_guard(s->models, NULL, NULL);   /* the batcher goes first */
    fc_batcher_stop(s->batcher);
    fc_metrics_free(s->metrics);
    fc_gpu_monitor_close(&s->gpu);
    fc_registry_close(s->models);
    fc_backend_destroy(&v->be);
    free(v);
}
