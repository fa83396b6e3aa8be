/* fcast serve: the forecasting service (serve/service.h, docs/serving.md).
 * Loads every model of --models, serves them over HTTP until SIGTERM or
 * SIGINT, then drains: readiness turns false at once, the listening socket
 * closes, requests in flight finish (up to --drain-timeout), exit 0. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "core/byte_size.h"
#include "core/error.h"
#include "device_choice.h"
#include "service.h"
#include "stop_signals.h"
#include "train/batch.h"
#include "train/forecaster.h"
#include "train/memory_plan.h"
#include "train/progress.h"

typedef struct {
    const char *models, *host, *device, *limit_text, *max_body_text, *token_file;
    size_t port, threads, max_batch, max_queue, max_connections, timeout_s, drain_s, max_series, max_points;
    size_t queue_delay_us;
    double request_timeout_s;
    size_t limit, max_body;
    int quiet;
} serve_flags;

/* SIGHUP: re-read the models directory (set by the handler, acted on by
 * the main loop, which may take locks a handler must not). */
static volatile sig_atomic_t reload_asked;
static void on_hup(int sig) {
    (void)sig;
    reload_asked = 1;
}

static void install_hup(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_hup;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGHUP, &sa, NULL);
}

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* The requests in flight finish (bounded by --drain-timeout); a moment
 * more lets their answers leave before the connections close. */
static void drain(fc_service *s, fc_http_server *http, double timeout_s) {
    s->ready = 0;
    s->draining = 1;
    fc_http_quiesce(http);
    double until = fc_now() + timeout_s;
    while (fc_service_in_flight(s) > 0 && fc_now() < until) sleep_ms(10);
    int left = fc_service_in_flight(s);
    if (left) fprintf(stderr, "fcast serve: %d request(s) still running after --drain-timeout\n", left);
    sleep_ms(100);
}

/* The server's memory plan against --memory-limit, before it serves:
 * every model's parameters and its buffers for a whole batch (activations,
 * batch staging), the request bodies the connections may hold at once,
 * the batch's forecasts, and the plan's allowance for code and libraries.
 * Refused with the breakdown when over. */
static fc_status check_memory(const serve_flags *a, fc_model_registry *r) {
    size_t models = 0, bodies = a->max_connections * a->max_body, n = fc_registry_count(r);
    size_t batch = fc_inference_chunk(0, a->max_batch), batch_out = 0;
    char name[FC_MODEL_NAME_MAX];
    for (size_t i = 0; i < n && fc_registry_name_at(r, i, name, sizeof name); i++) {
        fc_served_model *m = fc_registry_acquire(r, name);
        if (!m) continue;
        const fc_model *md = m->f.model;
        models += (md->n_floats + fc_model_act_floats(md, batch)) * sizeof(float) +
                  fc_batch_bytes(batch, md->cfg.input_size, md->cfg.h, md->cfg.n_outputs);
        size_t out = a->max_batch * md->cfg.h * sizeof(float);
        batch_out = out > batch_out ? out : batch_out;
        fc_registry_release(r, m);
    }
    size_t total = models + bodies + batch_out + FC_PLAN_ALLOWANCE;
    if (!a->limit || total <= a->limit) return FC_OK;
    return fc_error(FC_ERR_MEMORY, "--memory-limit %zu bytes: the server's plan takes %zu: models with their batch "
                    "buffers %zu, request bodies (--max-connections x --max-body) %zu, a batch's forecasts %zu, "
                    "code and libraries %zu; lower --max-connections, --max-body or --max-batch-windows, or serve "
                    "fewer models", a->limit, total, models, bodies, batch_out, (size_t)FC_PLAN_ALLOWANCE);
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

/* The bearer token: the file's first line without surrounding blanks;
 * refused when empty or holding blanks or control characters (a token
 * pasted with a line break would never match). */
#define TOKEN_MAX 4096
static fc_status read_token(const char *path, char *token) {
    FILE *f = fopen(path, "r");
    if (!f) return fc_error(FC_ERR_IO, "--auth-token-file %s: cannot be read", path);
    size_t n = fread(token, 1, TOKEN_MAX - 1, f);
    fclose(f);
    token[n] = '\0';
    char *start = token;
    while (*start == ' ' || *start == '\t') start++;
    size_t len = strcspn(start, "\r\n");
    while (len && (start[len - 1] == ' ' || start[len - 1] == '\t')) len--;
    memmove(token, start, len);
    token[len] = '\0';
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)token[i] <= ' ' || token[i] == 0x7f)
            return fc_error(FC_ERR_INVALID, "--auth-token-file %s: the token holds a blank or control character", path);
    if (!len) return fc_error(FC_ERR_INVALID, "--auth-token-file %s: the file holds no token", path);
    return FC_OK;
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

static fc_status start(const serve_flags *a, fc_service *s, fc_backend **be, fc_http_server **http) {
    static char token[TOKEN_MAX];
    if (a->token_file) {
        FC_TRY(read_token(a->token_file, token));
        s->token = token;
    }
    s->models_dir = a->models;
    FC_TRY(device_backend_open(a->device, compute_threads(a->threads), 0, be));
    FC_TRY(fc_registry_open(a->models, *be, a->max_batch, &s->models));
    FC_TRY(check_memory(a, s->models));
    FC_TRY(fc_metrics_create(&s->metrics));
    open_gpu_monitor(s, *be);
    char name[FC_MODEL_NAME_MAX];
    for (size_t i = 0; fc_registry_name_at(s->models, i, name, sizeof name); i++)
        FC_TRY(fc_metrics_model_state(s->metrics, name, 1));
    fc_batcher_options bo = {a->max_batch, (long)a->queue_delay_us, a->max_queue, a->request_timeout_s};
    FC_TRY(fc_batcher_start(&bo, s->metrics, &s->batcher));
    fc_registry_set_guard(s->models, fc_batcher_guard, s->batcher);
    fc_http_options ho = {a->host, (unsigned)a->port, (unsigned)a->max_connections, a->max_body,
                          (unsigned)a->timeout_s};
    return fc_http_start(&ho, fc_service_handle, fc_service_log, s, http);
}

static int serve(const serve_flags *a) {
    const volatile sig_atomic_t *stop = stop_signals_install();
    install_hup();
    fc_backend *be = NULL;
    fc_http_server *http = NULL;
    fc_service s = {.limits = {a->max_series, a->max_points}, .quiet = a->quiet};
    fc_status st = start(a, &s, &be, &http);
    if (st == FC_OK) {
        s.ready = 1;
        fprintf(stderr, "fcast serve: %zu model(s) from %s on http://%s:%u/ (ready)\n", fc_registry_count(s.models),
                a->models, a->host, fc_http_port(http));
        while (!*stop) {
            sleep_ms(50);
            if (!reload_asked) continue;
            reload_asked = 0;
            fprintf(stderr, "fcast serve: SIGHUP: re-reading %s\n", a->models);
            fc_service_rescan(&s);
        }
        fprintf(stderr, "fcast serve: stopping (signal %d): draining\n", stop_signals_received());
        drain(&s, http, (double)a->drain_s);
    }
    int rc = st == FC_OK ? 0 : cli_fail("serve");
    fc_http_stop(http);
    if (s.models) fc_registry_set_guard(s.models, NULL, NULL);   /* the batcher goes first */
    fc_batcher_stop(s.batcher);
    fc_metrics_free(s.metrics);
    fc_gpu_monitor_close(&s.gpu);
    fc_registry_close(s.models);
    fc_backend_destroy(&be);
    if (st == FC_OK) fprintf(stderr, "fcast serve: stopped\n");
    return rc;
}

static fc_status check_flags(serve_flags *a) {
    FC_TRY(fc_memory_limit_parse(a->limit_text, &a->limit));
    if (fc_parse_byte_size(a->max_body_text, &a->max_body) != 0 || a->max_body == 0)
        return fc_error(FC_ERR_INVALID, "--max-body %s: expected a size such as 16MiB", a->max_body_text);
    if (!(a->request_timeout_s >= 0) || a->request_timeout_s > 86400)
        return fc_error(FC_ERR_INVALID, "--request-timeout must be between 0 and 86400 seconds");
    /* bounds that keep the memory plan's products (connections x body) from wrapping */
    if (a->max_connections > 65536 || a->max_body > ((size_t)1 << 34) || a->max_batch > ((size_t)1 << 20) ||
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
    if (!a->max_batch || !a->max_queue || !a->max_connections || !a->max_series || !a->max_points)
        return fc_error(FC_ERR_INVALID, "--max-batch-windows, --max-queue, --max-connections, --max-series and "
                        "--max-points must be >= 1");
    return FC_OK;
}

int cmd_serve(int argc, char **argv, int first) {
    serve_flags a = {.host = "127.0.0.1", .device = "auto", .max_body_text = "16MiB", .port = 8080,
                     .max_batch = 1024, .max_queue = 1024, .max_connections = 256, .timeout_s = 30, .drain_s = 30,
                     .max_series = 100000, .max_points = 10000000, .request_timeout_s = 30};
    arg_spec specs[] = {
        {"models", ARG_STR, &a.models, "DIR", "directory of model files (*.safetensors), each served under its name", 1, 0},
        {"host", ARG_STR, &a.host, "ADDR", "address to listen on (default 127.0.0.1: this machine only)", 0, 0},
        {"port", ARG_SIZE, &a.port, "N", "port (default 8080; 0: any free port, printed at start)", 0, 0},
        {"threads", ARG_SIZE, &a.threads, "N", "CPU threads of the forecasts (default 0: all cores but one)", 0, 0},
        {"device", ARG_STR, &a.device, "DEV", DEVICE_FLAG_HELP, 0, 0},
        {"memory-limit", ARG_STR, &a.limit_text, "SIZE", "refuse to start when the models exceed SIZE", 0, 0},
        {"max-batch-windows", ARG_SIZE, &a.max_batch, "N", "series per batched forward pass (default 1024)", 0, 0},
        {"max-queue-delay-us", ARG_SIZE, &a.queue_delay_us, "US", "wait up to US for a batch to fill (default 0)", 0, 0},
        {"max-queue", ARG_SIZE, &a.max_queue, "N", "requests waiting at most; more get 503 (default 1024)", 0, 0},
        {"max-connections", ARG_SIZE, &a.max_connections, "N", "open connections at most (default 256)", 0, 0},
        {"max-body", ARG_STR, &a.max_body_text, "SIZE", "request body at most (default 16MiB; more: 413)", 0, 0},
        {"max-series", ARG_SIZE, &a.max_series, "N", "series in one request at most (default 100000)", 0, 0},
        {"max-points", ARG_SIZE, &a.max_points, "N", "points in one request at most (default 10000000)", 0, 0},
        {"timeout", ARG_SIZE, &a.timeout_s, "S", "close a connection idle for S seconds (default 30)", 0, 0},
        {"request-timeout", ARG_DOUBLE, &a.request_timeout_s, "S", "a forecast not started after S seconds in the queue "
         "is answered 503 (default 30; 0: never)", 0, 0},
        {"drain-timeout", ARG_SIZE, &a.drain_s, "S", "on SIGTERM, wait up to S seconds for requests in flight", 0, 0},
        {"auth-token-file", ARG_STR, &a.token_file, "FILE", "require Authorization: Bearer <the token in FILE> "
         "(all endpoints but health)", 0, 0},
        {"quiet", ARG_FLAG, &a.quiet, NULL, "no access log", 0, 0},
        {0},
    };
    int rc = args_parse("serve", "Serve forecasts of the models in a directory over HTTP (docs/serving.md).", specs,
                        argc, argv, first);
    if (rc) return args_exit(rc);
    if (check_flags(&a) != FC_OK) return cli_fail("serve");
    return serve(&a);
}
