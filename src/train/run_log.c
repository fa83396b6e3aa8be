/* The run log (see run_log.h), written with jansson. */
#include "train/run_log.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "monitor/gpu_monitor.h"

/* Seconds between two GPU samples. */
#define FC_GPU_SAMPLE_SECONDS 1.0

struct fc_run_log {
    int fd;
    int regular;         /* a regular file: a line cut short is taken back */
    off_t good_end;      /* a regular file's size after the last complete line */
    char *path;
    double t0;           /* fc_now() at open: every event's elapsed_s counts from it */
    int failed_errno;    /* first write failure, 0 if none */
    fc_gpu_monitor *gpu; /* NULL: no GPU samples */
    double last_gpu;     /* fc_now() of the last GPU sample */
    char line[1024];     /* the line of a step, profile or GPU event (each under 600 bytes) */
};

int fc_run_log_sample_gpus(fc_run_log *l) {
    fc_error_state caller;
    fc_error_save(&caller);
    if (!l->gpu && fc_gpu_monitor_open(&l->gpu) != FC_OK) {
        fc_error_restore(&caller);   /* no driver or no GPU: nothing to sample, and nothing wrong */
        return 0;
    }
    l->last_gpu = fc_now() - FC_GPU_SAMPLE_SECONDS;   /* the first step samples */
    return fc_gpu_monitor_count(l->gpu);
}

/* Drops the last line of the regular file fd (read through rd) when it
 * is an event of ours cut short; returns the bytes dropped. */
static off_t drop_cut_line_read(int fd, int rd, off_t size) {
    static const char start[] = "{\"event\":";
    char buf[4096];
    char last;
    if (pread(rd, &last, 1, size - 1) != 1 || last == '\n') return 0;
    off_t begin = size;   /* where the last line starts */
    while (begin > 0) {
        off_t from = begin > (off_t)sizeof buf ? begin - (off_t)sizeof buf : 0;
        ssize_t n = pread(rd, buf, (size_t)(begin - from), from);
        if (n != begin - from) return 0;
        ssize_t i = n;
        while (i > 0 && buf[i - 1] != '\n') i--;
        if (i > 0) { begin = from + i; break; }
        begin = from;
    }
    char head[sizeof start - 1];
    int ours = size - begin >= (off_t)sizeof head && pread(rd, head, sizeof head, begin) == (ssize_t)sizeof head &&
               !memcmp(head, start, sizeof head);
    return ours && ftruncate(fd, begin) == 0 ? size - begin : 0;
}

/* A run log whose last line was cut (a full disk, a kill in mid-write)
 * would have the next run's first event glued to it, and the whole log
 * refused by its readers: the cut line of ours (it starts like every
 * event) is dropped. Anything else the file ends with is left alone. */
static void drop_cut_line(int fd, const char *path, const struct stat *st) {
    off_t size = st->st_size;
    if (size <= 0) return;
    int rd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);   /* fd itself is write-only */
    struct stat rst;
    if (rd < 0) return;
    off_t dropped = fstat(rd, &rst) == 0 && rst.st_dev == st->st_dev && rst.st_ino == st->st_ino
                  ? drop_cut_line_read(fd, rd, size) : 0;
    close(rd);
    if (dropped)
        fprintf(stderr, "warning: run log %s: its last line was cut short (%lld bytes); dropped\n", path,
                (long long)dropped);
}

fc_status fc_run_log_open(const char *path, fc_run_log **out) {
    *out = NULL;
    /* A resumed run appends; a symlink, device or FIFO is written through.
     * Opened non-blocking so that a FIFO without a reader is an error at
     * once, not a run that waits forever before its first step. */
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOCTTY | O_CLOEXEC | O_NONBLOCK, 0666);
    if (fd < 0 && errno == ENXIO)
        return fc_error(FC_ERR_IO, "--log-file %s: is a FIFO with no reader (start the reader first)", path);
    if (fd < 0) return fc_error(FC_ERR_IO, "--log-file %s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        return fc_error(FC_ERR_IO, "--log-file %s: %s", path, strerror(e));
    }
    fc_run_log *l = fc_calloc(1, sizeof *l, "run log");
    char *copy = strdup(path);
    if (!l || !copy) {
        free(l);
        free(copy);
        close(fd);
        return FC_ERR_MEMORY;
    }
    l->fd = fd;
    l->path = copy;
    l->regular = S_ISREG(st.st_mode);
    if (l->regular) {
        drop_cut_line(fd, path, &st);
        l->good_end = lseek(fd, 0, SEEK_END);
    }
    l->t0 = fc_now();
    *out = l;
    return FC_OK;
}

fc_status fc_run_log_close(fc_run_log **log) {
    fc_run_log *l = *log;
    if (!l) return FC_OK;
    if (close(l->fd) != 0 && !l->failed_errno) l->failed_errno = errno ? errno : EIO;
    fc_status s = l->failed_errno ? fc_error(FC_ERR_IO, "--log-file %s: not every line could be written: %s",
                                             l->path, strerror(l->failed_errno))
                                  : FC_OK;
    fc_gpu_monitor_close(&l->gpu);
    free(l->path);
    free(l);
    *log = NULL;
    return s;
}

/* Writes all of text; 0 or the errno of the failure. A reader that went
 * away must not kill the run with SIGPIPE: the signal is held back while
 * writing and, if this write raised it, taken off the pending set. */
static int write_line(int fd, const char *text, size_t n) {
    sigset_t pipe_only, old, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    int was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
    int err = 0;
    for (size_t done = 0; done < n && !err;) {
        ssize_t w = write(fd, text + done, n - done);
        if (w > 0) done += (size_t)w;
        else if (w < 0 && errno == EINTR) continue;
        else err = w < 0 ? errno : EIO;
    }
    if (err == EPIPE && !was_pending) {
        struct timespec none = {0, 0};
        while (sigtimedwait(&pipe_only, NULL, &none) < 0 && errno == EINTR) {}
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return err;
}

/* Writes one line (n bytes, ending in a newline). A line that cannot be
 * written whole is taken back from a regular file, so the log stays
 * complete lines that a resumed run can append to. */
static void emit_line(fc_run_log *l, const char *line, size_t n) {
    if (l->failed_errno) return;
    l->failed_errno = write_line(l->fd, line, n);
    if (!l->failed_errno) {
        if (l->regular) l->good_end += (off_t)n;
        return;
    }
    if (l->regular && ftruncate(l->fd, l->good_end) != 0) {}   /* best effort: the cut line goes */
    fprintf(stderr, "warning: run log %s: %s; training goes on without it\n", l->path, strerror(l->failed_errno));
}

/* Writes one event built with jansson as one line (and frees it): the
 * events of a run's start and end and of its rare checks. */
static void emit(fc_run_log *l, json_t *event) {
    if (!event) return;
    char *text = l->failed_errno ? NULL : json_dumps(event, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(event);
    if (l->failed_errno) return;
    size_t n = text ? strlen(text) : 0;
    char *line = text ? realloc(text, n + 2) : NULL;
    if (!line) {
        free(text);
        l->failed_errno = ENOMEM;
        return;
    }
    line[n] = '\n';
    emit_line(l, line, n + 1);
    free(line);
}

/* The events of every step (step, profile, gpu) are formatted into the
 * log's own buffer, so logging adds no allocation to the step loop. Their
 * keys and strings are fcast's own (no escaping needed); numbers that are
 * not finite are written as null. */
typedef struct {
    char *buf;
    size_t cap, len;
} line_text;

static void text_add(line_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(line_text *t, const char *fmt, ...) {
    if (t->len >= t->cap) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len = n < 0 ? t->cap : t->len + (size_t)n;
}

static void text_num(line_text *t, const char *key, double x) {
    if (isfinite(x)) text_add(t, ",\"%s\":%.17g", key, x);
    else text_add(t, ",\"%s\":null", key);
}

static void text_count(line_text *t, const char *key, size_t x) { text_add(t, ",\"%s\":%zu", key, x); }

static line_text text_begin(fc_run_log *l, const char *event) {
    line_text t = {l->line, sizeof l->line, 0};
    text_add(&t, "{\"event\":\"%s\"", event);
    text_num(&t, "elapsed_s", fc_now() - l->t0);
    return t;
}

/* Ends the line and writes it; a line that did not fit (it cannot: every
 * field is bounded) is dropped rather than written cut. */
static void text_emit(fc_run_log *l, line_text *t) {
    text_add(t, "}\n");
    if (t->len < t->cap) emit_line(l, t->buf, t->len);
}

/* A number, or null where it is not finite (JSON has no NaN). */
static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }
static json_t *count(size_t x) { return json_integer((json_int_t)x); }

static json_t *event(fc_run_log *l, const char *name) {
    return json_pack("{s:s, s:o}", "event", name, "elapsed_s", num(fc_now() - l->t0));
}

void fc_run_log_start(fc_run_log *l, const fc_run_start *s) {
    char when[32];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    json_t *config = s->config_json ? json_loads(s->config_json, 0, NULL) : NULL;
    json_t *e = json_pack("{s:s, s:i, s:s, s:s, s:s, s:o, s:o, s:o, s:i, s:s, s:o, s:o, s:s?, s:s?}", "event", "start",
                          "schema", FC_RUN_LOG_SCHEMA, "fcast_version", fc_version(), "time", when,
                          "command", s->command, "config", config ? config : json_object(),
                          "plan_bytes", count(s->plan_bytes), "limit_bytes", count(s->limit_bytes),
                          "threads", s->threads, "precision", s->precision, "max_steps", count(s->max_steps),
                          "start_step", count(s->start_step), "kernel", s->kernel, "device", s->device);
    emit(l, e);
}

static void log_gpus(fc_run_log *l) {
    double now = fc_now();
    if (!l->gpu || now - l->last_gpu < FC_GPU_SAMPLE_SECONDS) return;
    l->last_gpu = now;
    for (int d = 0; d < fc_gpu_monitor_count(l->gpu); d++) {
        fc_gpu_sample g;
        if (fc_gpu_monitor_sample(l->gpu, d, &g) != FC_OK) continue;   /* a failed read is a gap, not an error */
        line_text t = text_begin(l, "gpu");
        text_add(&t, ",\"device\":%d", d);
        text_num(&t, "util_pct", g.util_pct);
        text_count(&t, "mem_used_bytes", (size_t)g.mem_used_bytes);
        text_count(&t, "mem_total_bytes", (size_t)g.mem_total_bytes);
        text_num(&t, "temp_c", g.temp_c);
        text_num(&t, "power_w", g.power_w);
        text_emit(l, &t);
    }
}

void fc_run_log_step(fc_run_log *l, const fc_step_status *s, const char *loss_unit, size_t rss_bytes,
                     size_t device_bytes) {
    line_text t = text_begin(l, "step");
    text_count(&t, "step", s->step);
    text_num(&t, "train_loss", s->loss);
    text_add(&t, ",\"train_loss_unit\":\"%s\"", loss_unit);
    text_num(&t, "lr", s->lr);
    text_num(&t, "loss_scale", s->loss_scale > 0 ? (double)s->loss_scale : NAN);
    text_count(&t, "skipped", s->skipped);
    text_num(&t, "grad_norm", s->grad_norm);
    text_num(&t, "windows_per_s", s->windows_per_s);
    text_count(&t, "rss_bytes", rss_bytes);
    if (device_bytes) text_count(&t, "device_bytes", device_bytes);
    else text_add(&t, ",\"device_bytes\":null");
    text_emit(l, &t);
    log_gpus(l);
}

void fc_run_log_validation(fc_run_log *l, size_t step, double val_loss, int improved, double best, size_t best_step) {
    json_t *e = event(l, "validation");
    json_object_set_new(e, "step", count(step));
    json_object_set_new(e, "val_loss", num(val_loss));
    json_object_set_new(e, "val_loss_unit", json_string("original"));
    json_object_set_new(e, "improved", json_boolean(improved));
    json_object_set_new(e, "best_val_loss", num(best));
    json_object_set_new(e, "best_step", count(best_step));
    emit(l, e);
}

void fc_run_log_resume(fc_run_log *l, size_t step, const char *checkpoint) {
    json_t *e = event(l, "resume");
    json_object_set_new(e, "step", count(step));
    json_object_set_new(e, "checkpoint", json_string(checkpoint));
    emit(l, e);
}

void fc_run_log_checkpoint(fc_run_log *l, size_t step, const char *path, size_t bytes, double seconds) {
    json_t *e = event(l, "checkpoint");
    json_object_set_new(e, "step", count(step));
    json_object_set_new(e, "path", json_string(path));
    json_object_set_new(e, "bytes", count(bytes));
    json_object_set_new(e, "seconds", num(seconds));
    emit(l, e);
}

static json_t *phases_json(const fc_phase_times *t, int with_io) {
    json_t *o = json_object();
    int last = with_io ? FC_PHASE_COUNT : FC_PHASE_VALIDATION;
    for (int p = 0; p < last; p++) json_object_set_new(o, fc_phase_name((fc_phase)p), num(t->seconds[p]));
    return o;
}

void fc_run_log_profile(fc_run_log *l, size_t step, const fc_phase_times *step_times) {
    line_text t = text_begin(l, "profile");
    text_count(&t, "step", step);
    text_add(&t, ",\"phases\":{");
    for (int p = 0; p < FC_PHASE_VALIDATION; p++) {
        double x = step_times->seconds[p];
        text_add(&t, isfinite(x) ? "%s\"%s\":%.17g" : "%s\"%s\":null", p ? "," : "", fc_phase_name((fc_phase)p), x);
    }
    text_add(&t, "}");
    text_emit(l, &t);
}

static json_t *text_or_null(const char *s) { return s ? json_string(s) : json_null(); }

void fc_run_log_summary(fc_run_log *l, const fc_run_end *r) {
    json_t *e = event(l, "summary");
    json_object_set_new(e, "status", json_string(r->status));
    json_object_set_new(e, "steps", count(r->steps));
    json_object_set_new(e, "seconds", num(r->seconds));
    json_object_set_new(e, "step_seconds", num(r->step_seconds));
    json_object_set_new(e, "windows_per_s", num(r->windows_per_s));
    json_object_set_new(e, "last_train_loss", num(r->last_train_loss));
    json_object_set_new(e, "best_val_loss", num(r->best_val_loss));
    json_object_set_new(e, "best_step", count(r->best_step));
    json_object_set_new(e, "peak_rss_bytes", count(r->peak_rss_bytes));
    json_object_set_new(e, "plan_bytes", count(r->plan_bytes));
    json_object_set_new(e, "limit_bytes", count(r->limit_bytes));
    json_object_set_new(e, "arena_used_bytes", count(r->arena_used_bytes));
    json_object_set_new(e, "phases", r->phases ? phases_json(r->phases, 1) : json_object());
    json_object_set_new(e, "out", text_or_null(r->out));
    json_object_set_new(e, "checkpoint", text_or_null(r->checkpoint));
    json_object_set_new(e, "error", text_or_null(r->error));
    emit(l, e);
}
