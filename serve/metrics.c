/* The service's metrics (see metrics.h). Every recording takes one mutex
 * for a few increments; a scrape copies the figures out under it and
 * formats them after letting go, so a slow scrape never holds up the HTTP
 * threads or the batchers for longer than that copy. */
#include "metrics.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* Upper bounds of the duration buckets, in seconds: 1-2.5-5 per decade
 * from 10 µs (an answer from a warm model) to 10 s (a large batch on a
 * busy CPU). Each keeps its spelling for the le label, which reads as
 * written here rather than as %.17g's 1.0000000000000001e-05 (both parse
 * to the same double, the one the bucket compares with). */
#define EDGE(x) {x, #x}
static const struct {
    double upper;
    const char *label;
} bucket_edges[] = {
    EDGE(0.00001), EDGE(0.000025), EDGE(0.00005), EDGE(0.0001), EDGE(0.00025), EDGE(0.0005), EDGE(0.001),
    EDGE(0.0025),  EDGE(0.005),    EDGE(0.01),    EDGE(0.025),  EDGE(0.05),    EDGE(0.1),    EDGE(0.25),
    EDGE(0.5),     EDGE(1),        EDGE(2.5),     EDGE(5),      EDGE(10),
};
#undef EDGE
#define N_EDGES (sizeof bucket_edges / sizeof bucket_edges[0])
#define N_BUCKETS (N_EDGES + 1)   /* the last one is +Inf */

/* Status codes are counted in a fixed table rather than a list grown on
 * first sight, so that recording one never allocates (and cannot fail). */
#define HTTP_CODE_MIN 100
#define HTTP_CODE_MAX 599
#define N_HTTP_CODES (HTTP_CODE_MAX - HTTP_CODE_MIN + 1)

typedef struct {
    uint64_t bucket[N_BUCKETS];   /* per bucket, not cumulative: an observation is one increment */
    uint64_t count;
    double sum;
} histogram;

typedef struct {
    char *name;   /* owned; never freed before fc_metrics_free, so snapshots may share it */
    int loaded;
    uint64_t success, failure, inferences, executions;
    int64_t pending;
    histogram request, queue, compute;
} model_stats;

struct fc_metrics {
    pthread_mutex_t lock;
    model_stats *models;   /* sorted by name (strcmp), which is the order of the exposition */
    size_t n_models, cap_models;
    uint64_t http[N_HTTP_CODES];
};

/* ---- recording ---------------------------------------------------------- */

fc_status fc_metrics_create(fc_metrics **out) {
    *out = NULL;
    fc_metrics *m = fc_calloc(1, sizeof *m, "service metrics");
    if (!m) return FC_ERR_MEMORY;
    if (pthread_mutex_init(&m->lock, NULL) != 0) {
        free(m);
        return fc_error(FC_ERR_MEMORY, "cannot create the service metrics' mutex");
    }
    *out = m;
    return FC_OK;
}

void fc_metrics_free(fc_metrics *m) {
    if (!m) return;
    for (size_t i = 0; i < m->n_models; i++) free(m->models[i].name);
    free(m->models);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

/* Binary search: the model's index, or -1 with *at set to where it would
 * be inserted to keep the order. Called with the lock held. */
static long find_model(const fc_metrics *m, const char *name, size_t *at) {
    size_t lo = 0, hi = m->n_models;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(m->models[mid].name, name);
        if (c == 0) return (long)mid;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    if (at) *at = lo;
    return -1;
}

/* The stats of a registered model, or NULL (lock held). The recorders
 * never register a model themselves: they cannot report a failed
 * allocation, and a client naming models that do not exist must not be
 * able to grow the exposition without bound. */
static model_stats *registered(fc_metrics *m, const char *name) {
    long i = name ? find_model(m, name, NULL) : -1;
    return i < 0 ? NULL : &m->models[i];
}

static fc_status insert_model(fc_metrics *m, size_t at, const char *name) {
    size_t n = strlen(name);
    char *copy = fc_malloc(n + 1, "a model's name in the metrics");
    if (!copy) return FC_ERR_MEMORY;
    memcpy(copy, name, n + 1);
    if (m->n_models == m->cap_models) {
        size_t cap = m->cap_models ? 2 * m->cap_models : 8;
        model_stats *grown = fc_realloc(m->models, cap * sizeof *grown, "the metrics' model list");
        if (!grown) {
            free(copy);
            return FC_ERR_MEMORY;
        }
        m->models = grown;
        m->cap_models = cap;
    }
    memmove(&m->models[at + 1], &m->models[at], (m->n_models - at) * sizeof *m->models);
    memset(&m->models[at], 0, sizeof *m->models);
    m->models[at].name = copy;
    m->n_models++;
    return FC_OK;
}

fc_status fc_metrics_model_state(fc_metrics *m, const char *model, int loaded) {
    if (!model) return fc_error(FC_ERR_INVALID, "metrics: a model state without a model name");
    pthread_mutex_lock(&m->lock);
    size_t at = 0;
    long i = find_model(m, model, &at);
    fc_status s = i >= 0 ? FC_OK : insert_model(m, at, model);
    if (s == FC_OK) m->models[i >= 0 ? (size_t)i : at].loaded = loaded != 0;
    pthread_mutex_unlock(&m->lock);
    return s;
}

/* A duration < 0 was not measured (see metrics.h); NaN and infinity are
 * dropped too, as one of them would turn _sum into NaN or +Inf for good. */
static void observe(histogram *h, double seconds) {
    if (!(seconds >= 0) || isinf(seconds)) return;
    size_t i = 0;
    while (i < N_EDGES && seconds > bucket_edges[i].upper) i++;   /* le: an edge value is in its bucket */
    h->bucket[i]++;
    h->count++;
    h->sum += seconds;
}

void fc_metrics_request(fc_metrics *m, const char *model, int success, double request_s, double queue_s,
                        double compute_s) {
    pthread_mutex_lock(&m->lock);
    model_stats *s = registered(m, model);
    if (s) {
        if (success) s->success++;
        else s->failure++;
        observe(&s->request, request_s);
        observe(&s->queue, queue_s);
        observe(&s->compute, compute_s);
    }
    pthread_mutex_unlock(&m->lock);
}

void fc_metrics_execution(fc_metrics *m, const char *model, size_t inferences) {
    pthread_mutex_lock(&m->lock);
    model_stats *s = registered(m, model);
    if (s) {
        s->executions++;
        s->inferences += inferences;
    }
    pthread_mutex_unlock(&m->lock);
}

void fc_metrics_pending(fc_metrics *m, const char *model, int delta) {
    pthread_mutex_lock(&m->lock);
    model_stats *s = registered(m, model);
    if (s) s->pending += delta;
    pthread_mutex_unlock(&m->lock);
}

void fc_metrics_http_status(fc_metrics *m, int status) {
    if (status < HTTP_CODE_MIN || status > HTTP_CODE_MAX) return;   /* not an HTTP status: nothing to count */
    pthread_mutex_lock(&m->lock);
    m->http[status - HTTP_CODE_MIN]++;
    pthread_mutex_unlock(&m->lock);
}

/* ---- the text being built ----------------------------------------------- */

/* One growing buffer; after a failed allocation every append is a no-op
 * and the render returns NULL (fc_realloc has set the error). */
typedef struct {
    char *buf;
    size_t len, cap;
    int failed;
} text;

/* Room for `more` bytes and the terminating NUL. */
static int reserve(text *t, size_t more) {
    if (t->failed) return 0;
    if (t->len + more < t->cap) return 1;
    size_t cap = t->cap ? t->cap : 4096;
    while (t->len + more >= cap) cap *= 2;
    char *grown = fc_realloc(t->buf, cap, "the metrics text");
    if (!grown) {
        t->failed = 1;
        return 0;
    }
    t->buf = grown;
    t->cap = cap;
    return 1;
}

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text *t, const char *fmt, ...) {
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n >= 0 && reserve(t, (size_t)n)) t->len += (size_t)vsnprintf(t->buf + t->len, t->cap - t->len, fmt, again);
    va_end(again);
    va_end(ap);
}

/* A label value as the text format wants it: backslash, double quote and
 * newline escaped, every other byte as is (at most n bytes of s). */
static void add_label_value(text *t, const char *s, size_t n) {
    for (size_t i = 0; i < n && s[i]; i++) {
        if (!reserve(t, 2)) return;
        char c = s[i];
        if (c == '\\' || c == '"' || c == '\n') t->buf[t->len++] = '\\';
        t->buf[t->len++] = c == '\n' ? 'n' : c;
    }
    t->buf[t->len] = '\0';
}

/* A float that parses back to the same double; the text format spells
 * the non-finite ones +Inf, -Inf and NaN (C would print inf and nan). */
static void add_float(text *t, double x) {
    if (isnan(x)) add(t, "NaN");
    else if (isinf(x)) add(t, x > 0 ? "+Inf" : "-Inf");
    else add(t, "%.17g", x);
}

static void add_family(text *t, const char *name, const char *type, const char *help) {
    add(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* ---- per-model families ------------------------------------------------- */

/* An integer figure of a model: counters (unsigned) or gauges (signed). */
typedef struct {
    const char *name, *type, *help;
    uint64_t (*count)(const model_stats *s);   /* NULL for a gauge */
    int64_t (*level)(const model_stats *s);    /* NULL for a counter */
} model_family;

static uint64_t success_of(const model_stats *s) { return s->success; }
static uint64_t failure_of(const model_stats *s) { return s->failure; }
static uint64_t inferences_of(const model_stats *s) { return s->inferences; }
static uint64_t executions_of(const model_stats *s) { return s->executions; }
static int64_t pending_of(const model_stats *s) { return s->pending; }
static int64_t loaded_of(const model_stats *s) { return s->loaded; }

static const model_family model_families[] = {
    {"nv_inference_request_success", "counter", "Number of successful inference requests, all batch sizes",
     success_of, NULL},
    {"nv_inference_request_failure", "counter", "Number of failed inference requests, all batch sizes",
     failure_of, NULL},
    {"nv_inference_count", "counter", "Number of inferences performed (series forecast)", inferences_of, NULL},
    {"nv_inference_exec_count", "counter", "Number of model executions performed (batches)", executions_of,
     NULL},
    {"nv_inference_pending_request_count", "gauge", "Instantaneous number of pending requests awaiting execution",
     NULL, pending_of},
    {"nv_model_load_state", "gauge", "Model load state (1 loaded, 0 not loaded)", NULL, loaded_of},
};

/* The three histograms of a model, each picked out of its stats. */
typedef struct {
    const char *name, *help;
    const histogram *(*of)(const model_stats *s);
} histogram_family;

static const histogram *request_of(const model_stats *s) { return &s->request; }
static const histogram *queue_of(const model_stats *s) { return &s->queue; }
static const histogram *compute_of(const model_stats *s) { return &s->compute; }

static const histogram_family histogram_families[] = {
    {"fcast_request_duration_seconds", "Time from a request's receipt to its answer, in seconds", request_of},
    {"fcast_queue_duration_seconds", "Time a request waited in its model's queue, in seconds", queue_of},
    {"fcast_compute_duration_seconds", "Time of the forward pass of a request's batch, in seconds", compute_of},
};

/* A model's label set as Triton writes it for its nv_* metrics. */
static void add_model_labels(text *t, const model_stats *s) {
    add(t, "{model=\"");
    add_label_value(t, s->name, SIZE_MAX);
    add(t, "\",version=\"1\"}");
}

static void add_model_family(text *t, const model_family *f, const model_stats *models, size_t n) {
    if (!n) return;   /* a family without samples is left out, as client libraries do */
    add_family(t, f->name, f->type, f->help);
    for (size_t i = 0; i < n; i++) {
        add(t, "%s", f->name);
        add_model_labels(t, &models[i]);
        if (f->count) add(t, " %" PRIu64 "\n", f->count(&models[i]));
        else add(t, " %" PRId64 "\n", f->level(&models[i]));
    }
}

static void add_histogram(text *t, const char *name, const model_stats *s, const histogram *h) {
    uint64_t cumulative = 0;
    for (size_t b = 0; b < N_BUCKETS; b++) {
        cumulative += h->bucket[b];
        add(t, "%s_bucket{model=\"", name);
        add_label_value(t, s->name, SIZE_MAX);
        add(t, "\",le=\"%s\"} %" PRIu64 "\n", b < N_EDGES ? bucket_edges[b].label : "+Inf", cumulative);
    }
    add(t, "%s_sum{model=\"", name);
    add_label_value(t, s->name, SIZE_MAX);
    add(t, "\"} ");
    add_float(t, h->sum);
    add(t, "\n%s_count{model=\"", name);
    add_label_value(t, s->name, SIZE_MAX);
    add(t, "\"} %" PRIu64 "\n", h->count);
}

static void add_histogram_family(text *t, const histogram_family *f, const model_stats *models, size_t n) {
    if (!n) return;
    add_family(t, f->name, "histogram", f->help);
    for (size_t i = 0; i < n; i++) add_histogram(t, f->name, &models[i], f->of(&models[i]));
}

static void add_http_codes(text *t, const uint64_t *http) {
    int any = 0;
    for (int c = 0; c < N_HTTP_CODES && !any; c++) any = http[c] != 0;
    if (!any) return;
    add_family(t, "fcast_http_requests_total", "counter", "HTTP answers by status code, every endpoint");
    for (int c = 0; c < N_HTTP_CODES; c++)   /* the table's order: codes increasing */
        if (http[c]) add(t, "fcast_http_requests_total{code=\"%d\"} %" PRIu64 "\n", c + HTTP_CODE_MIN, http[c]);
}

/* ---- process and GPU gauges --------------------------------------------- */

/* A reading of the process (gpu ignored) or of GPU `gpu`; < 0 or NaN:
 * not available, no sample. */
typedef struct {
    const char *name, *help;
    int per_gpu;
    double (*value)(const fc_metrics_process *p, int gpu);
} process_family;

static double resident_of(const fc_metrics_process *p, int g) { (void)g; return p->resident_bytes; }
static double arena_used_of(const fc_metrics_process *p, int g) { (void)g; return p->arena_used_bytes; }
static double arena_size_of(const fc_metrics_process *p, int g) { (void)g; return p->arena_size_bytes; }
static double gpu_util_of(const fc_metrics_process *p, int g) { return p->gpu[g].utilization; }
static double gpu_used_of(const fc_metrics_process *p, int g) { return p->gpu[g].memory_used_bytes; }
static double gpu_total_of(const fc_metrics_process *p, int g) { return p->gpu[g].memory_total_bytes; }
static double gpu_power_of(const fc_metrics_process *p, int g) { return p->gpu[g].power_watts; }
static double gpu_temp_of(const fc_metrics_process *p, int g) { return p->gpu[g].temperature_celsius; }

static const process_family process_families[] = {
    {"process_resident_memory_bytes", "Resident memory size in bytes", 0, resident_of},
    {"fcast_arena_used_bytes", "Bytes of the compute arena in use", 0, arena_used_of},
    {"fcast_arena_size_bytes", "Bytes of the compute arena reserved", 0, arena_size_of},
    {"nv_gpu_utilization", "GPU utilization rate [0.0 - 1.0)", 1, gpu_util_of},
    {"nv_gpu_memory_used_bytes", "GPU used memory, in bytes", 1, gpu_used_of},
    {"nv_gpu_memory_total_bytes", "GPU total memory, in bytes", 1, gpu_total_of},
    {"nv_gpu_power_usage", "GPU power usage in watts", 1, gpu_power_of},
    {"nv_gpu_temperature_celsius", "GPU temperature in degrees Celsius", 1, gpu_temp_of},
};

/* GPUs to report: n_gpus, within the array it indexes. */
static int gpu_count(const fc_metrics_process *p) {
    int most = (int)(sizeof p->gpu / sizeof p->gpu[0]);
    return p->n_gpus < 0 ? 0 : p->n_gpus > most ? most : p->n_gpus;
}

static void add_process_family(text *t, const process_family *f, const fc_metrics_process *p) {
    int n = f->per_gpu ? gpu_count(p) : 1, any = 0;
    for (int g = 0; g < n && !any; g++) any = f->value(p, g) >= 0;
    if (!any) return;
    add_family(t, f->name, "gauge", f->help);
    for (int g = 0; g < n; g++) {
        double x = f->value(p, g);
        if (!(x >= 0)) continue;
        add(t, "%s", f->name);
        if (f->per_gpu) {
            add(t, "{gpu_uuid=\"");
            add_label_value(t, p->gpu[g].uuid, sizeof p->gpu[g].uuid);
            add(t, "\"}");
        }
        add(t, " ");
        add_float(t, x);
        add(t, "\n");
    }
}

/* ---- rendering ---------------------------------------------------------- */

/* The figures at one instant: the models' stats copied (their names are
 * shared: a name lives as long as the metrics) and the status codes. */
typedef struct {
    model_stats *models;
    size_t n_models;
    uint64_t http[N_HTTP_CODES];
} snapshot;

static fc_status take_snapshot(fc_metrics *m, snapshot *s) {
    pthread_mutex_lock(&m->lock);
    s->n_models = m->n_models;
    s->models = fc_malloc(m->n_models * sizeof *s->models, "a copy of the metrics");
    if (s->models) {
        if (m->n_models) memcpy(s->models, m->models, m->n_models * sizeof *s->models);   /* none yet: NULL */
        memcpy(s->http, m->http, sizeof s->http);
    }
    pthread_mutex_unlock(&m->lock);
    return s->models ? FC_OK : FC_ERR_MEMORY;
}

static void add_snapshot(text *t, const snapshot *s, const fc_metrics_process *proc) {
    size_t n_model = sizeof model_families / sizeof model_families[0];
    size_t n_hist = sizeof histogram_families / sizeof histogram_families[0];
    size_t n_proc = sizeof process_families / sizeof process_families[0];
    for (size_t f = 0; f < n_model; f++) add_model_family(t, &model_families[f], s->models, s->n_models);
    for (size_t f = 0; f < n_hist; f++) add_histogram_family(t, &histogram_families[f], s->models, s->n_models);
    add_http_codes(t, s->http);
    for (size_t f = 0; proc && f < n_proc; f++) add_process_family(t, &process_families[f], proc);
}

char *fc_metrics_render(fc_metrics *m, const fc_metrics_process *proc, size_t *len) {
    *len = 0;
    snapshot s;
    if (take_snapshot(m, &s) != FC_OK) return NULL;
    text t = {0};
    if (reserve(&t, 0)) t.buf[0] = '\0';   /* an empty exposition is still a string */
    add_snapshot(&t, &s, proc);
    free(s.models);
    if (t.failed) {
        free(t.buf);
        return NULL;
    }
    *len = t.len;
    return t.buf;
}
