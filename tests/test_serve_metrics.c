/* The service's metrics (serve/metrics.h): counters recorded from several
 * threads at once (with a scraper rendering meanwhile) add up exactly;
 * histogram buckets against values on and either side of every edge (le
 * is "less or equal"); models in name order, unloads, status codes in
 * order; process and GPU gauges with fields left out; label escaping.
 * Every exposition goes through a strict line checker written here and,
 * where python3 has prometheus_client, through its parser too, whose
 * samples must equal the checker's one for one. */
#include "check.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "core/error.h"
#include "metrics.h"

/* The bucket edges the exposition must have, as the brief gives them. */
static const char *const edges[] = {"0.00001", "0.000025", "0.00005", "0.0001", "0.00025", "0.0005", "0.001",
                                    "0.0025",  "0.005",    "0.01",    "0.025",  "0.05",   "0.1",    "0.25",
                                    "0.5",     "1",        "2.5",     "5",      "10"};
#define N_EDGES (sizeof edges / sizeof edges[0])

/* ---- the strict checker -------------------------------------------------- */

/* One sample line: its name, its labels other than le (unescaped, as
 * "k=v" joined by \x1f, in the line's order), le, and its value. */
typedef struct {
    char *name, *labels, *le;
    char raw[64];
    double value;
} sample;

typedef struct {
    sample *s;
    size_t n, cap;
} samples;

static void samples_free(samples *ss) {
    for (size_t i = 0; i < ss->n; i++) free(ss->s[i].name), free(ss->s[i].labels), free(ss->s[i].le);
    free(ss->s);
    memset(ss, 0, sizeof *ss);
}

static char *dup_n(const char *s, size_t n) {
    char *d = malloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static int name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'; }
static int name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }
static int label_start(char c) { return name_start(c) && c != ':'; }
static int label_char(char c) { return name_char(c) && c != ':'; }

/* Length of the metric name at p (0: none). */
static size_t metric_name(const char *p) {
    size_t n = 0;
    if (!name_start(p[0])) return 0;
    while (name_char(p[n])) n++;
    return n;
}

/* A sample value as the format spells it: +Inf, -Inf, NaN, or a decimal
 * float strtod reads whole (no leading +, no inf/nan/hex spellings). */
static int parse_value(const char *v, double *out) {
    if (!strcmp(v, "+Inf")) return *out = INFINITY, 1;
    if (!strcmp(v, "-Inf")) return *out = -INFINITY, 1;
    if (!strcmp(v, "NaN")) return *out = NAN, 1;
    if (!(v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) || strpbrk(v, "xXnN")) return 0;
    char *end;
    *out = strtod(v, &end);
    return *end == '\0' && end != v && isfinite(*out);
}

static int all_digits(const char *v) {
    if (!*v) return 0;
    for (; *v; v++)
        if (*v < '0' || *v > '9') return 0;
    return 1;
}

/* Appends to a growing string. */
static void cat(char **s, size_t *len, const char *add, size_t n) {
    *s = realloc(*s, *len + n + 1);
    memcpy(*s + *len, add, n);
    *len += n;
    (*s)[*len] = '\0';
}

/* The quoted label value at *q (after its opening quote), unescaped into
 * a new string; NULL on a bad escape or a line ending inside it. */
static char *label_value(const char **q) {
    char *v = calloc(1, 1);
    size_t len = 0;
    const char *p = *q;
    for (; *p != '"'; p++) {
        char c = *p;
        if (c == '\0' || c == '\n') return free(v), NULL;
        if (c == '\\') {
            c = *++p;
            if (c != '\\' && c != '"' && c != 'n') return free(v), NULL;
            if (c == 'n') c = '\n';
        }
        cat(&v, &len, &c, 1);
    }
    *q = p + 1;
    return v;
}

/* The label set {k="v",...} at *p, if any; 0 on a syntax error. Fills
 * labels (without le) and le. */
static int parse_labels(const char **p, char **labels, char **le) {
    const char *q = *p;
    size_t len = 0;
    *labels = calloc(1, 1);
    *le = NULL;
    if (*q != '{') return 1;
    q++;
    for (int first = 1; *q != '}'; first = 0) {
        if (!first && *q++ != ',') return 0;
        const char *k = q;
        if (!label_start(*q)) return 0;
        while (label_char(*q)) q++;
        size_t klen = (size_t)(q - k);
        if (*q++ != '=' || *q++ != '"') return 0;
        char *v = label_value(&q);
        if (!v) return 0;
        if (klen == 2 && !memcmp(k, "le", 2)) {
            if (*le) return free(v), 0;   /* twice */
            *le = v;
            continue;
        }
        if (len) cat(labels, &len, "\x1f", 1);
        cat(labels, &len, k, klen);
        cat(labels, &len, "=", 1);
        cat(labels, &len, v, strlen(v));
        free(v);
    }
    *p = q + 1;
    return 1;
}

/* What the checker knows of the family being read. */
typedef struct {
    char name[128], type[16];
    int help, typed;
    size_t first;   /* its first sample's index */
    char seen[64][128];   /* families already read: none may come back */
    int n_seen;
} family_state;

static const char *families_type(const family_state *f) { return f->typed ? f->type : ""; }

/* Does sample name n belong to the current family? */
static int belongs(const family_state *f, const char *n) {
    size_t fl = strlen(f->name);
    if (strncmp(n, f->name, fl)) return 0;
    if (strcmp(families_type(f), "histogram")) return n[fl] == '\0';
    return !strcmp(n + fl, "_bucket") || !strcmp(n + fl, "_sum") || !strcmp(n + fl, "_count");
}

static int ends_with(const char *s, const char *tail) {
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && !strcmp(s + a - b, tail);
}

/* The samples of one histogram family, from index `first`: per series
 * (labels without le), buckets with increasing le, non-decreasing counts,
 * ending with +Inf, then _sum, then _count equal to the +Inf bucket. */
static void check_histogram(const samples *ss, size_t first, const char *family) {
    size_t i = first;
    while (i < ss->n) {
        const char *series = ss->s[i].labels;
        double last_le = -INFINITY, last_count = 0;
        size_t buckets = 0;
        for (; i < ss->n && ends_with(ss->s[i].name, "_bucket") && !strcmp(ss->s[i].labels, series); i++, buckets++) {
            double le;
            CHECK_MSG(ss->s[i].le && parse_value(ss->s[i].le, &le), "%s: bucket without a valid le", family);
            if (!ss->s[i].le || !parse_value(ss->s[i].le, &le)) return;
            CHECK_MSG(le > last_le, "%s{%s}: le %s not increasing", family, series, ss->s[i].le);
            CHECK_MSG(ss->s[i].value >= last_count, "%s{%s}: bucket counts decrease at le=%s", family, series,
                      ss->s[i].le);
            last_le = le;
            last_count = ss->s[i].value;
        }
        CHECK_MSG(buckets > 0 && isinf(last_le), "%s{%s}: buckets do not end with +Inf", family, series);
        int sum = i < ss->n && ends_with(ss->s[i].name, "_sum") && !strcmp(ss->s[i].labels, series);
        CHECK_MSG(sum, "%s{%s}: no _sum after the buckets", family, series);
        i += (size_t)sum;
        int count = i < ss->n && ends_with(ss->s[i].name, "_count") && !strcmp(ss->s[i].labels, series);
        CHECK_MSG(count, "%s{%s}: no _count after _sum", family, series);
        if (!count) return;
        CHECK_MSG(ss->s[i].value == last_count, "%s{%s}: _count %s, +Inf bucket %.17g", family, series,
                  ss->s[i].raw, last_count);
        i++;
    }
}

/* Ends the current family: it must have had samples (empty families are
 * left out by the renderer), and a histogram must be well formed. */
static void close_family(family_state *f, const samples *ss) {
    if (!f->name[0]) return;
    CHECK_MSG(f->typed, "family %s has no TYPE", f->name);
    CHECK_MSG(ss->n > f->first, "family %s has no samples", f->name);
    if (!strcmp(families_type(f), "histogram")) check_histogram(ss, f->first, f->name);
    if (f->n_seen < 64) memcpy(f->seen[f->n_seen++], f->name, sizeof f->name);
}

static int seen_before(const family_state *f, const char *name) {
    for (int i = 0; i < f->n_seen; i++)
        if (!strcmp(f->seen[i], name)) return 1;
    return 0;
}

/* "# HELP name text" or "# TYPE name type". */
static void comment_line(family_state *f, const samples *ss, const char *line, size_t lineno) {
    int help = !strncmp(line, "# HELP ", 7), type = !strncmp(line, "# TYPE ", 7);
    CHECK_MSG(help || type, "line %zu: a comment other than HELP or TYPE: %s", lineno, line);
    if (!help && !type) return;
    const char *p = line + 7;
    size_t n = metric_name(p);
    CHECK_MSG(n > 0 && n < sizeof f->name && p[n] == ' ' && p[n + 1], "line %zu: bad %s line: %s", lineno,
              help ? "HELP" : "TYPE", line);
    if (!n || n >= sizeof f->name || p[n] != ' ') return;
    if (help) {
        close_family(f, ss);
        snprintf(f->name, sizeof f->name, "%.*s", (int)n, p);
        CHECK_MSG(!seen_before(f, f->name), "line %zu: family %s appears twice", lineno, f->name);
        f->help = 1, f->typed = 0, f->first = ss->n;
        return;
    }
    const char *t = p + n + 1;
    CHECK_MSG(f->help && !strncmp(p, f->name, n) && f->name[n] == '\0', "line %zu: TYPE without its HELP first: %s",
              lineno, line);
    CHECK_MSG(!f->typed && ss->n == f->first, "line %zu: TYPE twice or after samples", lineno);
    CHECK_MSG(!strcmp(t, "counter") || !strcmp(t, "gauge") || !strcmp(t, "histogram"), "line %zu: type %s",
              lineno, t);
    snprintf(f->type, sizeof f->type, "%s", t);
    f->typed = 1;
}

/* `name{labels} value`, exactly one space, no timestamp. */
static void sample_line(family_state *f, samples *ss, const char *line, size_t lineno) {
    size_t n = metric_name(line);
    CHECK_MSG(n > 0, "line %zu: no metric name: %s", lineno, line);
    if (!n) return;
    sample s = {dup_n(line, n), NULL, NULL, "", 0};
    const char *p = line + n;
    int ok = parse_labels(&p, &s.labels, &s.le) && *p == ' ' && strlen(p + 1) < sizeof s.raw;
    CHECK_MSG(ok, "line %zu: bad labels or value: %s", lineno, line);
    if (ok) snprintf(s.raw, sizeof s.raw, "%s", p + 1);
    CHECK_MSG(ok && parse_value(s.raw, &s.value), "line %zu: bad value: %s", lineno, line);
    CHECK_MSG(f->typed && belongs(f, s.name), "line %zu: sample %s outside its family's HELP and TYPE", lineno,
              s.name);
    int integral = !strcmp(families_type(f), "counter") || ends_with(s.name, "_bucket") || ends_with(s.name, "_count");
    CHECK_MSG(!integral || all_digits(s.raw), "line %zu: a count that is not an integer: %s", lineno, line);
    CHECK_MSG(ends_with(s.name, "_bucket") == (s.le != NULL), "line %zu: le where it does not belong: %s", lineno,
              line);
    if (ss->n == ss->cap) ss->s = realloc(ss->s, (ss->cap = ss->cap ? 2 * ss->cap : 64) * sizeof *ss->s);
    ss->s[ss->n++] = s;
}

/* Checks the whole exposition, line by line; its samples go to *out. */
static void strict_check(const char *text, size_t len, samples *out) {
    family_state *f = calloc(1, sizeof *f);
    memset(out, 0, sizeof *out);
    CHECK_MSG(strlen(text) == len, "the exposition's length %zu is not its string's %zu", len, strlen(text));
    CHECK_MSG(len == 0 || text[len - 1] == '\n', "the exposition does not end with a newline");
    size_t lineno = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char *line = dup_n(p, n);
        lineno++;
        CHECK_MSG(n > 0, "line %zu: empty", lineno);
        if (line[0] == '#') comment_line(f, out, line, lineno);
        else if (n) sample_line(f, out, line, lineno);
        free(line);
        p += n + (nl != NULL);
    }
    close_family(f, out);
    free(f);
}

/* ---- lookups --------------------------------------------------------------- */

/* Canonical labels from (key, value) pairs ending with NULL. */
static char *labels_of(const char *key, ...) {
    char *s = calloc(1, 1);
    size_t len = 0;
    va_list ap;
    va_start(ap, key);
    for (const char *k = key; k; k = va_arg(ap, const char *)) {
        const char *v = va_arg(ap, const char *);
        if (len) cat(&s, &len, "\x1f", 1);
        cat(&s, &len, k, strlen(k));
        cat(&s, &len, "=", 1);
        cat(&s, &len, v, strlen(v));
    }
    va_end(ap);
    return s;
}

static const sample *find(const samples *ss, const char *name, const char *labels, const char *le) {
    for (size_t i = 0; i < ss->n; i++) {
        const sample *s = &ss->s[i];
        if (strcmp(s->name, name) || strcmp(s->labels, labels)) continue;
        if ((le == NULL) != (s->le == NULL) || (le && strcmp(le, s->le))) continue;
        return s;
    }
    return NULL;
}

/* The sample must be there with exactly this integer. */
static void check_int(const samples *ss, const char *name, char *labels, const char *le, long long want) {
    const sample *s = find(ss, name, labels, le);
    char w[32];
    snprintf(w, sizeof w, "%lld", want);
    CHECK_MSG(s && !strcmp(s->raw, w), "%s{%s%s%s} is %s, expected %s", name, labels, le ? " le=" : "", le ? le : "",
              s ? s->raw : "missing", w);
    free(labels);
}

static const sample *find_free(const samples *ss, const char *name, char *labels) {
    const sample *s = find(ss, name, labels, NULL);
    free(labels);
    return s;
}

/* ---- prometheus_client, when present --------------------------------------- */

static int have_prometheus_client(void) {
    static int have = -1;
    if (have < 0) {
        have = system("python3 -c 'import prometheus_client' >/dev/null 2>&1") == 0;
        if (!have) fprintf(stderr, "note: python3 with prometheus_client not found: the strict checker only\n");
    }
    return have;
}

static const char parser_py[] =
    "import sys, json\n"
    "from prometheus_client.parser import text_string_to_metric_families\n"
    "for f in text_string_to_metric_families(open(sys.argv[1]).read()):\n"
    "    for s in f.samples:\n"
    "        print(json.dumps([f.type, s.name, list(s.labels.items()), repr(float(s.value))]))\n";

static int write_file(const char *path, const char *text, size_t len) {
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    int ok = fwrite(text, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

/* One sample as prometheus_client read it; it must equal the strict
 * checker's. Its counters' sample names gain _total, as OpenMetrics has
 * them: the checker's name may lack it. */
static int python_sample_matches(const samples *ss, json_t *row) {
    const char *type = json_string_value(json_array_get(row, 0));
    const char *name = json_string_value(json_array_get(row, 1));
    json_t *pairs = json_array_get(row, 2);
    const char *value = json_string_value(json_array_get(row, 3));
    if (!type || !name || !json_is_array(pairs) || !value) return 0;
    char *labels = calloc(1, 1), *le = NULL;
    size_t len = 0, i;
    json_t *pair;
    json_array_foreach(pairs, i, pair) {
        const char *k = json_string_value(json_array_get(pair, 0)), *v = json_string_value(json_array_get(pair, 1));
        if (!k || !v) continue;
        if (!strcmp(k, "le")) { le = (char *)v; continue; }
        if (len) cat(&labels, &len, "\x1f", 1);
        cat(&labels, &len, k, strlen(k));
        cat(&labels, &len, "=", 1);
        cat(&labels, &len, v, strlen(v));
    }
    const sample *s = find(ss, name, labels, le);
    char bare[128];
    if (!s && !strcmp(type, "counter") && ends_with(name, "_total")) {
        snprintf(bare, sizeof bare, "%.*s", (int)(strlen(name) - 6), name);
        s = find(ss, bare, labels, le);
    }
    free(labels);
    double v = strtod(value, NULL);
    int same = s && (s->value == v || (isnan(s->value) && isnan(v)));
    CHECK_MSG(same, "prometheus_client read %s = %s, the checker %s", name, value, s ? s->raw : "nothing");
    return same;
}

/* Parses text with prometheus_client; every one of its samples must be
 * one of the checker's with the same value, and their numbers equal. */
static void python_check(const char *text, size_t len, const samples *ss) {
    if (!have_prometheus_client()) return;
    char dir[] = "/tmp/fcast-metrics-XXXXXX", py[64], prom[64], cmd[192], line[8192];
    if (!mkdtemp(dir)) { CHECK(0); return; }
    snprintf(py, sizeof py, "%s/parse.py", dir);
    snprintf(prom, sizeof prom, "%s/metrics.prom", dir);
    CHECK(write_file(py, parser_py, strlen(parser_py)) && write_file(prom, text, len));
    snprintf(cmd, sizeof cmd, "python3 %s %s", py, prom);
    FILE *p = popen(cmd, "r");
    size_t read = 0;
    while (p && fgets(line, sizeof line, p)) {
        json_t *row = json_loads(line, 0, NULL);
        CHECK_MSG(json_is_array(row), "prometheus_client printed: %s", line);
        if (row) python_sample_matches(ss, row), read++;
        json_decref(row);
    }
    CHECK_MSG(p && pclose(p) == 0, "prometheus_client could not parse the exposition");
    CHECK_MSG(read == ss->n, "prometheus_client read %zu samples, the checker %zu", read, ss->n);
    unlink(py), unlink(prom), rmdir(dir);
}

/* Renders, checks the format both ways, returns the samples (and the text
 * in *text_out when asked for, else frees it). */
static samples render(fc_metrics *m, const fc_metrics_process *proc, char **text_out) {
    size_t len = 0;
    char *text = fc_metrics_render(m, proc, &len);
    samples ss = {0};
    CHECK_MSG(text != NULL, "render: %s", fc_last_error());
    if (!text) return ss;
    strict_check(text, len, &ss);
    python_check(text, len, &ss);
    if (text_out) *text_out = text;
    else free(text);
    return ss;
}

/* ---- concurrent recording ---------------------------------------------------- */

#define THREADS 4
#define PER_THREAD 10000

static fc_metrics *shared;
static atomic_int workers_done;
static const char *const two_models[] = {"alpha", "beta"};

/* What thread t records at step i: the same formulas give the totals. */
static const char *model_at(int t, int i) { return two_models[(i + t) % 2]; }
static int success_at(int i) { return i % 5 != 0; }
static double request_at(int i) { return 0.0001 * (i % 50); }
static size_t batch_at(int i) { return (size_t)(1 + i % 3); }
static int left_pending(int i) { return i % 1000 == 0; }

static void *worker(void *arg) {
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < PER_THREAD; i++) {
        const char *model = model_at(t, i);
        fc_metrics_pending(shared, model, +1);
        fc_metrics_execution(shared, model, batch_at(i));
        if (!left_pending(i)) fc_metrics_pending(shared, model, -1);
        fc_metrics_request(shared, model, success_at(i), request_at(i), 0.00002, 0.00003);
        fc_metrics_http_status(shared, success_at(i) ? 200 : 400);
        if (i % 100 == 0) fc_metrics_request(shared, "ghost", 1, 0.1, 0.1, 0.1);   /* not registered */
    }
    return NULL;
}

/* Renders while the workers record: each exposition is well formed and
 * the success counter never goes back. */
static void *scraper(void *arg) {
    (void)arg;
    size_t len;
    double last = 0;
    int renders = 0;
    char *labels = labels_of("model", "alpha", "version", "1", NULL);
    while (!atomic_load(&workers_done) || renders == 0) {
        char *text = fc_metrics_render(shared, NULL, &len);
        CHECK(text != NULL);
        if (!text) break;
        samples ss;
        strict_check(text, len, &ss);
        const sample *s = find(&ss, "nv_inference_request_success", labels, NULL);
        CHECK(s && s->value >= last);
        if (s) last = s->value;
        samples_free(&ss);
        free(text);
        renders++;
    }
    free(labels);
    fprintf(stderr, "scraper: %d renders during the recording\n", renders);
    return NULL;
}

typedef struct {
    long long success, failure, inferences, executions, pending;
    long long buckets[N_EDGES + 1];   /* cumulative, as rendered */
    double sum;
} expected;

static void expect_model(expected *e, const char *model) {
    memset(e, 0, sizeof *e);
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < PER_THREAD; i++) {
            if (strcmp(model_at(t, i), model)) continue;
            *(success_at(i) ? &e->success : &e->failure) += 1;
            e->inferences += (long long)batch_at(i);
            e->executions++;
            e->pending += left_pending(i);
            e->sum += request_at(i);
            for (size_t b = 0; b <= N_EDGES; b++) e->buckets[b] += b == N_EDGES || request_at(i) <= atof(edges[b]);
        }
}

static void check_model_totals(const samples *ss, const char *model) {
    expected e;
    expect_model(&e, model);
    const char *nv = "nv_inference_request_success";
    check_int(ss, nv, labels_of("model", model, "version", "1", NULL), NULL, e.success);
    check_int(ss, "nv_inference_request_failure", labels_of("model", model, "version", "1", NULL), NULL, e.failure);
    check_int(ss, "nv_inference_count", labels_of("model", model, "version", "1", NULL), NULL, e.inferences);
    check_int(ss, "nv_inference_exec_count", labels_of("model", model, "version", "1", NULL), NULL, e.executions);
    check_int(ss, "nv_inference_pending_request_count", labels_of("model", model, "version", "1", NULL), NULL,
              e.pending);
    for (size_t b = 0; b <= N_EDGES; b++)
        check_int(ss, "fcast_request_duration_seconds_bucket", labels_of("model", model, NULL),
                  b < N_EDGES ? edges[b] : "+Inf", e.buckets[b]);
    long long n = e.success + e.failure;
    check_int(ss, "fcast_request_duration_seconds_count", labels_of("model", model, NULL), NULL, n);
    check_int(ss, "fcast_queue_duration_seconds_count", labels_of("model", model, NULL), NULL, n);
    check_int(ss, "fcast_compute_duration_seconds_count", labels_of("model", model, NULL), NULL, n);
    const sample *sum = find_free(ss, "fcast_request_duration_seconds_sum", labels_of("model", model, NULL));
    CHECK(sum != NULL);
    if (sum) CHECK_CLOSE(sum->value, e.sum, 0, 1e-9);   /* the threads' order of addition varies */
    sum = find_free(ss, "fcast_queue_duration_seconds_sum", labels_of("model", model, NULL));
    if (sum) CHECK_CLOSE(sum->value, 0.00002 * (double)n, 0, 1e-9);
}

static void test_concurrent(void) {
    CHECK(fc_metrics_create(&shared) == FC_OK);
    CHECK(fc_metrics_model_state(shared, "beta", 1) == FC_OK);
    CHECK(fc_metrics_model_state(shared, "alpha", 1) == FC_OK);
    pthread_t threads[THREADS], scrape;
    atomic_store(&workers_done, 0);
    pthread_create(&scrape, NULL, scraper, NULL);
    for (int t = 0; t < THREADS; t++) pthread_create(&threads[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
    atomic_store(&workers_done, 1);
    pthread_join(scrape, NULL);

    char *text = NULL;
    samples ss = render(shared, NULL, &text);
    check_model_totals(&ss, "alpha");
    check_model_totals(&ss, "beta");
    long long ok = 0;
    for (int i = 0; i < PER_THREAD; i++) ok += success_at(i);
    check_int(&ss, "fcast_http_requests_total", labels_of("code", "200", NULL), NULL, THREADS * ok);
    check_int(&ss, "fcast_http_requests_total", labels_of("code", "400", NULL), NULL, THREADS * (PER_THREAD - ok));
    CHECK_MSG(text && !strstr(text, "ghost"), "an unregistered model got series");
    samples_free(&ss);
    free(text);
    fc_metrics_free(shared);
}

/* ---- histogram edges ----------------------------------------------------------- */

/* Every edge, and the doubles just below and just above it, plus values
 * under the first edge and over the last; non-finite and negative
 * durations are not observed. Each bucket must count exactly the values
 * <= its le, parsed from the label itself. */
static void test_bucket_edges(void) {
    fc_metrics *m;
    CHECK(fc_metrics_create(&m) == FC_OK);
    CHECK(fc_metrics_model_state(m, "edges", 1) == FC_OK);
    double values[3 * N_EDGES + 4];
    size_t n = 0;
    for (size_t b = 0; b < N_EDGES; b++) {
        double e = strtod(edges[b], NULL);
        values[n++] = e;
        values[n++] = nextafter(e, 0);
        values[n++] = nextafter(e, INFINITY);
    }
    values[n++] = 0, values[n++] = 1e-9, values[n++] = 20, values[n++] = 1e6;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        fc_metrics_request(m, "edges", 1, values[i], -1, -1);
        sum += values[i];
    }
    fc_metrics_request(m, "edges", 0, NAN, NAN, -INFINITY);
    fc_metrics_request(m, "edges", 0, INFINITY, -0.5, -1);

    char *text = NULL;
    samples ss = render(m, NULL, &text);
    char *labels = labels_of("model", "edges", NULL);
    size_t buckets = 0;
    for (size_t i = 0; i < ss.n; i++) {
        const sample *s = &ss.s[i];
        if (strcmp(s->name, "fcast_request_duration_seconds_bucket") || strcmp(s->labels, labels)) continue;
        double le;
        CHECK(parse_value(s->le, &le));
        CHECK_MSG(buckets == N_EDGES ? isinf(le) : le == strtod(edges[buckets], NULL), "bucket %zu has le=%s",
                  buckets, s->le);
        size_t want = 0;
        for (size_t v = 0; v < n; v++) want += values[v] <= le;
        CHECK_MSG(s->value == (double)want, "le=%s counts %s, expected %zu", s->le, s->raw, want);
        buckets++;
    }
    CHECK(buckets == N_EDGES + 1);
    check_int(&ss, "fcast_request_duration_seconds_count", labels_of("model", "edges", NULL), NULL, (long long)n);
    const sample *s = find(&ss, "fcast_request_duration_seconds_sum", labels, NULL);
    CHECK_MSG(s && s->value == sum, "_sum %s, expected %.17g (exactly: the same additions in the same order)",
              s ? s->raw : "missing", sum);
    check_int(&ss, "fcast_queue_duration_seconds_count", labels_of("model", "edges", NULL), NULL, 0);
    check_int(&ss, "fcast_compute_duration_seconds_bucket", labels_of("model", "edges", NULL), "+Inf", 0);
    s = find(&ss, "fcast_queue_duration_seconds_sum", labels, NULL);
    CHECK(s && !strcmp(s->raw, "0"));
    check_int(&ss, "nv_inference_request_failure", labels_of("model", "edges", "version", "1", NULL), NULL, 2);
    free(labels);
    samples_free(&ss);
    free(text);
    fc_metrics_free(m);
}

/* One observation exactly on 1 ms: in le="0.001" and above, not below. */
static void test_one_edge(void) {
    fc_metrics *m;
    CHECK(fc_metrics_create(&m) == FC_OK);
    CHECK(fc_metrics_model_state(m, "one", 1) == FC_OK);
    fc_metrics_request(m, "one", 1, 0.001, 0.0005, nextafter(0.0005, 1));
    samples ss = render(m, NULL, NULL);
    const char *h = "fcast_request_duration_seconds_bucket";
    check_int(&ss, h, labels_of("model", "one", NULL), "0.0005", 0);
    check_int(&ss, h, labels_of("model", "one", NULL), "0.001", 1);
    check_int(&ss, h, labels_of("model", "one", NULL), "+Inf", 1);
    check_int(&ss, "fcast_queue_duration_seconds_bucket", labels_of("model", "one", NULL), "0.00025", 0);
    check_int(&ss, "fcast_queue_duration_seconds_bucket", labels_of("model", "one", NULL), "0.0005", 1);
    check_int(&ss, "fcast_compute_duration_seconds_bucket", labels_of("model", "one", NULL), "0.0005", 0);
    check_int(&ss, "fcast_compute_duration_seconds_bucket", labels_of("model", "one", NULL), "0.001", 1);
    samples_free(&ss);
    fc_metrics_free(m);
}

/* ---- models, states, status codes ---------------------------------------------- */

/* p before q in text, both present. */
static int before(const char *text, const char *p, const char *q) {
    const char *a = strstr(text, p), *b = strstr(text, q);
    return a && b && a < b;
}

static void test_models_and_codes(void) {
    fc_metrics *m;
    size_t len;
    CHECK(fc_metrics_create(&m) == FC_OK);
    char *text = fc_metrics_render(m, NULL, &len);
    CHECK(text && len == 0 && text[0] == '\0');   /* nothing recorded: an empty exposition */
    free(text);
    CHECK(fc_metrics_model_state(m, NULL, 1) == FC_ERR_INVALID);
    CHECK(fc_metrics_model_state(m, "m2", 1) == FC_OK);
    CHECK(fc_metrics_model_state(m, "m10", 1) == FC_OK);
    CHECK(fc_metrics_model_state(m, "b", 1) == FC_OK);
    CHECK(fc_metrics_model_state(m, "b", 0) == FC_OK);   /* unloaded: still listed, state 0 */
    CHECK(fc_metrics_model_state(m, "m2", 1) == FC_OK);  /* a reload: no second series */
    fc_metrics_pending(m, "b", 2);
    fc_metrics_pending(m, NULL, 1);
    int codes[] = {503, 200, 404, 200, 99, 600, -1};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) fc_metrics_http_status(m, codes[i]);
    text = NULL;
    samples ss = render(m, NULL, &text);
    check_int(&ss, "nv_model_load_state", labels_of("model", "b", "version", "1", NULL), NULL, 0);
    check_int(&ss, "nv_model_load_state", labels_of("model", "m10", "version", "1", NULL), NULL, 1);
    check_int(&ss, "nv_model_load_state", labels_of("model", "m2", "version", "1", NULL), NULL, 1);
    check_int(&ss, "nv_inference_pending_request_count", labels_of("model", "b", "version", "1", NULL), NULL, 2);
    check_int(&ss, "nv_inference_request_success", labels_of("model", "b", "version", "1", NULL), NULL, 0);
    check_int(&ss, "fcast_http_requests_total", labels_of("code", "200", NULL), NULL, 2);
    check_int(&ss, "fcast_http_requests_total", labels_of("code", "404", NULL), NULL, 1);
    check_int(&ss, "fcast_http_requests_total", labels_of("code", "503", NULL), NULL, 1);
    size_t load_states = 0;
    for (size_t i = 0; i < ss.n; i++) load_states += !strcmp(ss.s[i].name, "nv_model_load_state");
    CHECK(load_states == 3);
    CHECK(text && before(text, "model=\"b\"", "model=\"m10\"") && before(text, "model=\"m10\"", "model=\"m2\""));
    CHECK(text && before(text, "code=\"200\"", "code=\"404\"") && before(text, "code=\"404\"", "code=\"503\""));
    CHECK(text && !strstr(text, "code=\"99\"") && !strstr(text, "code=\"600\""));
    /* The families in the documented order. */
    static const char *const order[] = {
        "nv_inference_request_success", "nv_inference_request_failure", "nv_inference_count",
        "nv_inference_exec_count", "nv_inference_pending_request_count", "nv_model_load_state",
        "fcast_request_duration_seconds", "fcast_queue_duration_seconds", "fcast_compute_duration_seconds",
        "fcast_http_requests_total"};
    char a[128], b[128];
    for (size_t i = 0; i + 1 < sizeof order / sizeof order[0]; i++) {
        snprintf(a, sizeof a, "# TYPE %s ", order[i]);
        snprintf(b, sizeof b, "# TYPE %s ", order[i + 1]);
        CHECK_MSG(text && before(text, a, b), "%s is not before %s", order[i], order[i + 1]);
    }
    samples_free(&ss);
    free(text);
    fc_metrics_free(m);
}

/* ---- escaping -------------------------------------------------------------------- */

static void test_escaping(void) {
    fc_metrics *m;
    CHECK(fc_metrics_create(&m) == FC_OK);
    CHECK(fc_metrics_model_state(m, "a\"b\\c", 1) == FC_OK);
    CHECK(fc_metrics_model_state(m, "x\ny", 1) == FC_OK);
    fc_metrics_request(m, "a\"b\\c", 1, 0.003, 0.001, 0.002);
    fc_metrics_request(m, "x\ny", 0, 0.004, -1, -1);
    char *text = NULL;
    samples ss = render(m, NULL, &text);
    CHECK(text && strstr(text, "nv_inference_request_success{model=\"a\\\"b\\\\c\",version=\"1\"} 1\n"));
    CHECK(text && strstr(text, "fcast_request_duration_seconds_count{model=\"a\\\"b\\\\c\"} 1\n"));
    CHECK(text && strstr(text, "nv_inference_request_failure{model=\"x\\ny\",version=\"1\"} 1\n"));
    check_int(&ss, "nv_inference_request_success", labels_of("model", "a\"b\\c", "version", "1", NULL), NULL, 1);
    check_int(&ss, "nv_inference_request_failure", labels_of("model", "x\ny", "version", "1", NULL), NULL, 1);
    check_int(&ss, "fcast_compute_duration_seconds_bucket", labels_of("model", "a\"b\\c", NULL), "0.0025", 1);
    samples_free(&ss);
    free(text);
    fc_metrics_free(m);
}

/* ---- process and GPU gauges ------------------------------------------------------ */

/* Readings of a process with two GPUs, some of them not available. */
static fc_metrics_process two_gpus(void) {
    fc_metrics_process p;
    memset(&p, 0, sizeof p);
    p.resident_bytes = 123456789;
    p.arena_used_bytes = -1;   /* not available: left out */
    p.arena_size_bytes = 0.1;  /* %.17g: parses back to the same double */
    p.n_gpus = 2;
    snprintf(p.gpu[0].uuid, sizeof p.gpu[0].uuid, "GPU-0000");
    p.gpu[0].utilization = 0.5, p.gpu[0].memory_used_bytes = 1e9, p.gpu[0].memory_total_bytes = 8e9;
    p.gpu[0].power_watts = -1, p.gpu[0].temperature_celsius = 61;
    snprintf(p.gpu[1].uuid, sizeof p.gpu[1].uuid, "GPU-\"q\"");
    p.gpu[1].utilization = NAN, p.gpu[1].memory_used_bytes = 0, p.gpu[1].memory_total_bytes = 8e9;
    p.gpu[1].power_watts = 75.5, p.gpu[1].temperature_celsius = -1;
    return p;
}

static void test_process(void) {
    fc_metrics *m;
    CHECK(fc_metrics_create(&m) == FC_OK);
    fc_metrics_process p = two_gpus();
    char *text = NULL;
    samples ss = render(m, &p, &text);
    CHECK(text && strstr(text, "\nprocess_resident_memory_bytes 123456789\n"));
    CHECK(text && !strstr(text, "fcast_arena_used_bytes"));
    CHECK(text && strstr(text, "\nfcast_arena_size_bytes 0.10000000000000001\n"));
    const sample *s = find(&ss, "fcast_arena_size_bytes", "", NULL);
    CHECK(s && s->value == 0.1);
    CHECK(text && strstr(text, "\nnv_gpu_utilization{gpu_uuid=\"GPU-0000\"} 0.5\n"));
    CHECK(text && !strstr(text, "nv_gpu_utilization{gpu_uuid=\"GPU-\\\"q\\\"\"}"));
    CHECK(text && strstr(text, "\nnv_gpu_power_usage{gpu_uuid=\"GPU-\\\"q\\\"\"} 75.5\n"));
    CHECK(text && !strstr(text, "nv_gpu_power_usage{gpu_uuid=\"GPU-0000\"}"));
    CHECK(text && strstr(text, "\nnv_gpu_memory_used_bytes{gpu_uuid=\"GPU-\\\"q\\\"\"} 0\n"));
    CHECK(text && strstr(text, "\nnv_gpu_memory_total_bytes{gpu_uuid=\"GPU-0000\"} 8000000000\n"));
    CHECK(find_free(&ss, "nv_gpu_temperature_celsius", labels_of("gpu_uuid", "GPU-0000", NULL)) != NULL);
    CHECK(find_free(&ss, "nv_gpu_temperature_celsius", labels_of("gpu_uuid", "GPU-\"q\"", NULL)) == NULL);
    samples_free(&ss);
    free(text);
    fc_metrics_free(m);
}

/* No GPU: no nv_gpu lines; an infinite reading is spelled +Inf; a uuid
 * filling its array unterminated is read within it; n_gpus over the
 * array's 8 is held to it; no readings at all: no process lines. */
static void test_process_limits(void) {
    fc_metrics *m;
    CHECK(fc_metrics_create(&m) == FC_OK);
    fc_metrics_process p = two_gpus();
    char *text = NULL;
    p.n_gpus = 0;
    p.resident_bytes = INFINITY;
    samples ss = render(m, &p, &text);
    CHECK(text && !strstr(text, "nv_gpu") && strstr(text, "process_resident_memory_bytes +Inf\n"));
    samples_free(&ss);
    free(text);
    p.n_gpus = 100;
    for (int g = 2; g < 8; g++) p.gpu[g].memory_total_bytes = -1;
    memset(p.gpu[7].uuid, 'u', sizeof p.gpu[7].uuid);
    ss = render(m, &p, &text);
    size_t gpus = 0;
    for (size_t i = 0; i < ss.n; i++) gpus += !strcmp(ss.s[i].name, "nv_gpu_memory_total_bytes");
    CHECK(gpus == 2);   /* only the first two have a total... */
    for (size_t i = 0; i < ss.n; i++) gpus += !strcmp(ss.s[i].name, "nv_gpu_memory_used_bytes");
    CHECK(gpus == 2 + 8);   /* ...but all 8 have used bytes (0 is a reading) */
    char want[128] = "gpu_uuid=";
    memset(want + 9, 'u', 96);
    want[105] = '\0';
    CHECK(find(&ss, "nv_gpu_memory_used_bytes", want, NULL) != NULL);
    samples_free(&ss);
    free(text);
    ss = render(m, NULL, &text);
    CHECK(text && !strstr(text, "process_") && !strstr(text, "fcast_arena"));
    samples_free(&ss);
    free(text);
    fc_metrics_free(m);
}

/* The strict checker must itself refuse what it is there to catch. */
static void test_checker_refuses(void) {
    static const char *const bad[] = {
        "x 1\n",                                                     /* no HELP/TYPE */
        "# HELP x h\n# TYPE x gauge\nx{a=\"b\"} inf\n",              /* C's spelling */
        "# HELP x h\n# TYPE x counter\nx 1.5\n",                     /* a fractional counter */
        "# HELP x h\n# TYPE x gauge\nx{a=\"b\\q\"} 1\n",             /* a bad escape */
        "# HELP x h\n# TYPE x gauge\n1x 1\n",                        /* a bad name */
        "# HELP h h\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
        "# HELP h h\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n",   /* no +Inf */
        "# HELP h h\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 2\n",
        "# HELP x h\n# TYPE x gauge\nx 1\n# HELP x h\n# TYPE x gauge\nx 2\n",           /* twice */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int before_failures = check_failures, before_count = check_count;
        samples ss;
        fflush(stderr);
        int saved = dup(2), null = open("/dev/null", O_WRONLY);   /* its complaints are expected here */
        dup2(null, 2);
        strict_check(bad[i], strlen(bad[i]), &ss);
        fflush(stderr);
        dup2(saved, 2);
        close(saved), close(null);
        int refused = check_failures > before_failures;
        check_failures = before_failures, check_count = before_count;
        samples_free(&ss);
        CHECK_MSG(refused, "the checker took bad exposition %zu:\n%s", i, bad[i]);
    }
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void) {
    double t0 = now();
    test_checker_refuses();
    test_concurrent();
    test_bucket_edges();
    test_one_edge();
    test_models_and_codes();
    test_escaping();
    test_process();
    test_process_limits();
    fprintf(stderr, "%.3f s\n", now() - t0);
    return CHECK_DONE();
}
