/* Dynamic batching (see batcher.h): a FIFO of jobs under one mutex, one
 * executor thread, one condition variable for "work arrived" and one for
 * "a job is done" (each waiter checks its own job's flag). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batcher.h"
#include "core/error.h"
#include "core/clock.h"

struct fc_batcher {
    fc_batcher_options o;
    fc_metrics *metrics;
    pthread_mutex_t lock;
    pthread_mutex_t compute;      /* held while a batch runs (fc_batcher_exclusive) */
    pthread_cond_t work, done;
    fc_forecast_job *head, *tail;
    size_t pending;
    int stopping;
    pthread_t executor;
};

/* ---- the queue (called with the lock held) ---- */

static void push(fc_batcher *b, fc_forecast_job *j) {
    j->next = NULL;
    if (b->tail) b->tail->next = j;
    else b->head = j;
    b->tail = j;
    b->pending++;
}

/* Series of the head's model waiting, counted in arrival order up to the
 * first that would not fit (the batch the executor would take now). */
static size_t batchable_series(const fc_batcher *b) {
    const fc_forecast_job *h = b->head;
    size_t n = 0;
    for (const fc_forecast_job *j = h; j; j = j->next) {
        if (j->model != h->model) continue;
        if (n && n + j->ds->n_series > b->o.max_batch_series) break;
        n += j->ds->n_series;
    }
    return n;
}

/* Unlinks the head's batch: the head, then the jobs of its model behind it
 * while they fit (others keep their places). Returns the batch as a list. */
static fc_forecast_job *take_batch(fc_batcher *b, size_t *series) {
    fc_served_model *model = b->head->model;
    fc_forecast_job *batch = NULL, **batch_end = &batch, **at = &b->head, *prev = NULL;
    *series = 0;
    while (*at) {
        fc_forecast_job *j = *at;
        int fits = j->model == model && (!*series || *series + j->ds->n_series <= b->o.max_batch_series);
        if (!fits) {
            if (j->model == model) break;   /* arrival order within a model */
            prev = j;
            at = &j->next;
            continue;
        }
        *at = j->next;
        if (b->tail == j) b->tail = prev;
        j->next = NULL;
        j->taken = 1;
        *batch_end = j;
        batch_end = &j->next;
        *series += j->ds->n_series;
        b->pending--;
    }
    return batch;
}

/* ---- the executor ---- */

static struct timespec deadline_of(double queued_at, long delay_us) {
    /* fc_now() is CLOCK_MONOTONIC seconds (train/progress.c), as the condition's clock */
    double when = queued_at + (double)delay_us * 1e-6;
    struct timespec t;
    t.tv_sec = (time_t)when;
    t.tv_nsec = (long)((when - (double)t.tv_sec) * 1e9);
    return t;
}

/* With a queue delay, waits (lock held) until the head's batch is full, its
 * delay has passed, or the server stops. */
static void wait_for_more(fc_batcher *b) {
    if (b->o.max_queue_delay_us <= 0) return;
    struct timespec until = deadline_of(b->head->queued_at, b->o.max_queue_delay_us);
    /* the head may leave meanwhile (its request timed out): then stop waiting */
    const fc_forecast_job *head = b->head;
    while (!b->stopping && b->head == head && batchable_series(b) < b->o.max_batch_series)
        if (pthread_cond_timedwait(&b->work, &b->lock, &until) == ETIMEDOUT) break;
}

/* The dataset of a batch: the last input_size points of every series of
 * its jobs, in job order. */
static fc_status tails_of(const fc_forecast_job *batch, size_t series, size_t L, fc_dataset **out) {
    size_t rows = 0;
    for (const fc_forecast_job *j = batch; j; j = j->next)
        for (size_t i = 0; i < j->ds->n_series; i++) {
            size_t n = fc_dataset_len(j->ds, i);
            rows += n < L ? n : L;
        }
    FC_TRY(fc_dataset_alloc(series, rows, 0, out));
    fc_dataset *d = *out;
    size_t s = 0, r = 0;
    for (const fc_forecast_job *j = batch; j; j = j->next) {
        d->ds_kind = j->ds->ds_kind;
        d->freq = j->ds->freq;
        for (size_t i = 0; i < j->ds->n_series; i++, s++) {
            size_t n = fc_dataset_len(j->ds, i), take = n < L ? n : L, from = j->ds->offsets[i + 1] - take;
            d->offsets[s] = r;
            memcpy(d->y + r, j->ds->y + from, take * sizeof *d->y);
            memcpy(d->mask + r, j->ds->mask + from, take);
            memcpy(d->ds + r, j->ds->ds + from, take * sizeof *d->ds);
            r += take;
        }
    }
    d->offsets[series] = r;
    return FC_OK;
}

static void run_batch(fc_batcher *b, fc_forecast_job *batch, size_t series) {
    fc_served_model *m = batch->model;
    size_t H = fc_served_h(m) * fc_served_outputs(m);   /* values per series */
    double start = fc_now();
    fc_dataset *tails = NULL;
    float *fc = NULL;
    fc_status st = tails_of(batch, series, fc_served_input_size(m), &tails);
    if (st == FC_OK && !(fc = fc_malloc(series * H * sizeof *fc, "a batch's forecasts"))) st = FC_ERR_MEMORY;
    if (st == FC_OK) st = fc_served_predict(m, tails, fc);
    char why[512] = "";
    if (st != FC_OK) snprintf(why, sizeof why, "%s", fc_last_error());
    double end = fc_now();
    size_t at = 0;
    for (fc_forecast_job *j = batch; j; j = j->next) {
        size_t n = j->ds->n_series;
        if (st == FC_OK) memcpy(j->out, fc + at * H, n * H * sizeof *fc);
        at += n;
        j->status = st;
        snprintf(j->error, sizeof j->error, "%s", why);
        j->started_at = start;
        j->done_at = end;
        j->batch_series = series;
    }
    free(fc);
    fc_dataset_free(&tails);
    if (b->metrics) fc_metrics_execution(b->metrics, batch->model->name, series);
}

static void *executor(void *arg) {
    fc_batcher *b = arg;
    pthread_mutex_lock(&b->lock);
    for (;;) {
        while (!b->head && !b->stopping) pthread_cond_wait(&b->work, &b->lock);
        if (!b->head) break;   /* stopping, and nothing left */
        wait_for_more(b);
        if (!b->head) continue;   /* what waited left (timed out) */
        size_t series;
        fc_forecast_job *batch = take_batch(b, &series);
        pthread_mutex_unlock(&b->lock);
        for (fc_forecast_job *j = batch; j && b->metrics; j = j->next) fc_metrics_pending(b->metrics, j->model->name, -1);
        pthread_mutex_lock(&b->compute);
        run_batch(b, batch, series);
        pthread_mutex_unlock(&b->compute);
        pthread_mutex_lock(&b->lock);
        for (fc_forecast_job *j = batch, *next; j; j = next) {
            next = j->next;   /* j belongs to its waiter once done is set */
            j->done = 1;
        }
        pthread_cond_broadcast(&b->done);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

/* ---- the interface ---- */

fc_status fc_batcher_start(const fc_batcher_options *o, fc_metrics *metrics, fc_batcher **out) {
    *out = NULL;
    if (o->max_batch_series < 1 || o->max_queue < 1 || o->max_queue_delay_us < 0)
        return fc_error(FC_ERR_INVALID, "--max-batch-windows and --max-queue must be >= 1, "
                        "--max-queue-delay-us >= 0");
    fc_batcher *b = fc_calloc(1, sizeof *b, "the batcher");
    if (!b) return FC_ERR_MEMORY;
    b->o = *o;
    b->metrics = metrics;
    pthread_mutex_init(&b->lock, NULL);
    /* recursive: a model released inside an exclusive section (a load that
     * swaps one out) is freed under the same section */
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&b->compute, &ma);
    pthread_mutexattr_destroy(&ma);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&b->work, &ca);
    pthread_cond_init(&b->done, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&b->executor, NULL, executor, b) != 0) {
        pthread_cond_destroy(&b->work);
        pthread_cond_destroy(&b->done);
        pthread_mutex_destroy(&b->lock);
        pthread_mutex_destroy(&b->compute);
        free(b);
        return fc_error(FC_ERR_MEMORY, "cannot start the batcher's thread");
    }
    *out = b;
    return FC_OK;
}

void fc_batcher_stop(fc_batcher *b) {
    if (!b) return;
    pthread_mutex_lock(&b->lock);
    b->stopping = 1;
    pthread_cond_broadcast(&b->work);
    pthread_mutex_unlock(&b->lock);
    pthread_join(b->executor, NULL);
    pthread_cond_destroy(&b->work);
    pthread_cond_destroy(&b->done);
    pthread_mutex_destroy(&b->lock);
    pthread_mutex_destroy(&b->compute);
    free(b);
}

void fc_batcher_guard(void *batcher, void (*fn)(void *arg), void *arg) {
    fc_batcher *b = batcher;
    pthread_mutex_lock(&b->compute);
    fn(arg);
    pthread_mutex_unlock(&b->compute);
}

fc_status fc_batcher_exclusive(fc_batcher *b, fc_status (*fn)(void *ctx), void *ctx) {
    pthread_mutex_lock(&b->compute);
    fc_status st = fn(ctx);
    pthread_mutex_unlock(&b->compute);
    return st;
}

/* Unlinks a job still waiting (lock held). */
static void remove_waiting(fc_batcher *b, fc_forecast_job *job) {
    fc_forecast_job *prev = NULL;
    for (fc_forecast_job **at = &b->head; *at; prev = *at, at = &(*at)->next) {
        if (*at != job) continue;
        *at = job->next;
        if (b->tail == job) b->tail = prev;
        b->pending--;
        return;
    }
}

/* Waits for the job (lock held); past the deadline a job not yet taken
 * leaves the queue. Returns 1 when it timed out. */
static int wait_done(fc_batcher *b, fc_forecast_job *job) {
    if (b->o.queue_timeout_s <= 0) {
        while (!job->done) pthread_cond_wait(&b->done, &b->lock);
        return 0;
    }
    struct timespec until = deadline_of(job->queued_at, (long)(b->o.queue_timeout_s * 1e6));
    while (!job->done) {
        int rc = pthread_cond_timedwait(&b->done, &b->lock, &until);
        if (rc == ETIMEDOUT && !job->taken) {
            remove_waiting(b, job);
            return 1;
        }
        if (rc == ETIMEDOUT) until.tv_sec += 3600;   /* running: wait for its end */
    }
    return 0;
}

fc_status fc_batcher_run(fc_batcher *b, fc_forecast_job *job) {
    job->done = job->rejected = job->timed_out = job->taken = 0;
    job->status = FC_OK;
    job->error[0] = '\0';
    job->queued_at = fc_now();
    pthread_mutex_lock(&b->lock);
    if (b->pending >= b->o.max_queue || b->stopping) {
        pthread_mutex_unlock(&b->lock);
        job->rejected = 1;
        job->status = FC_ERR_MEMORY;
        snprintf(job->error, sizeof job->error, "%s", b->stopping ? "the server is shutting down"
                 : "the request queue is full (--max-queue); retry later");
        return fc_error(job->status, "%s", job->error);
    }
    push(b, job);
    if (b->metrics) fc_metrics_pending(b->metrics, job->model->name, +1);
    pthread_cond_signal(&b->work);
    job->timed_out = wait_done(b, job);
    pthread_mutex_unlock(&b->lock);
    if (job->timed_out) {
        if (b->metrics) fc_metrics_pending(b->metrics, job->model->name, -1);
        job->status = FC_ERR_MEMORY;
        snprintf(job->error, sizeof job->error, "the request waited %.3g s in the queue without starting "
                 "(--request-timeout); retry later", b->o.queue_timeout_s);
    }
    return job->status == FC_OK ? FC_OK : fc_error(job->status, "%s", job->error);
}

size_t fc_batcher_pending(fc_batcher *b) {
    pthread_mutex_lock(&b->lock);
    size_t n = b->pending;
    pthread_mutex_unlock(&b->lock);
    return n;
}
