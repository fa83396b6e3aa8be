/* Trainings side by side (see member_pool.h): workers, their backends and
 * threads, the jobs handed out in order, the first failure carried home. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "train/member_pool.h"

size_t fc_member_pool_workers(const fc_backend *be, size_t jobs, size_t asked, size_t fits) {
    size_t n = be->gpu >= 0 ? FC_POOL_GPU_WORKERS : (size_t)(be->threads > 0 ? be->threads : 1);
    if (asked) n = asked;
    if (n > jobs) n = jobs;
    if (n > fits) n = fits;
    if (n > FC_POOL_MAX_WORKERS) n = FC_POOL_MAX_WORKERS;
    return n ? n : 1;
}

static int larger_first(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

size_t fc_member_pool_fits(const size_t *own, size_t n, size_t shared, size_t limit) {
    size_t *sorted = n ? malloc(n * sizeof *sorted) : NULL;
    if (!sorted || shared > limit) {
        free(sorted);
        return 1;
    }
    memcpy(sorted, own, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, larger_first);
    size_t k = 0, left = limit - shared;
    while (k < n && sorted[k] <= left) left -= sorted[k++];
    free(sorted);
    return k ? k : 1;
}

int fc_member_pool_worker_threads(int threads, size_t n, size_t w) {
    if (threads < 1) threads = 1;
    if ((size_t)threads <= n) return 1;   /* more workers than threads: a thread each, shared by the OS */
    return threads / (int)n + ((int)w < threads % (int)n ? 1 : 0);
}

void fc_member_pool_say(const fc_backend *be, size_t jobs, size_t workers, int threads, const char *unit) {
    char what[64];
    if (threads <= 0) threads = be->threads;
    if (jobs) snprintf(what, sizeof what, "%zu %ss", jobs, unit);
    else snprintf(what, sizeof what, "%ss", unit);   /* as many as a time budget allows */
    if (workers <= 1) fprintf(stderr, "training %s one at a time\n", what);
    else if (be->gpu >= 0) fprintf(stderr, "training %s %zu at a time on cuda:%d, a stream each\n", what, workers,
                                   be->gpu);
    else {
        int least = fc_member_pool_worker_threads(threads, workers, workers - 1);
        int most = fc_member_pool_worker_threads(threads, workers, 0);
        fprintf(stderr, "training %s %zu at a time, %d%s thread%s each\n", what, workers, least,
                most > least ? " or more" : "", most > 1 ? "s" : "");
    }
}

typedef struct {
    const fc_member_pool *p;
    pthread_mutex_t lock;
    size_t next;                /* the next job to start */
    fc_status failed;           /* the first failure, FC_OK while none */
    fc_error_state why;         /* its message, from the worker's thread */
    int side_by_side;           /* workers of their own: a job out of memory is run again alone */
    size_t *again, n_again;     /* (jobs) those jobs */
} pool_state;

typedef struct {
    pool_state *s;
    fc_backend *be;
    pthread_t thread;
    int started;
} pool_worker;

/* The first failure's status and message are kept; later ones are not. */
static void note_failure(pool_state *s, fc_status st) {
    if (st == FC_OK || s->failed != FC_OK) return;
    s->failed = st;
    fc_error_save(&s->why);
}

/* The next job, or 0 with none left (or a failure): jobs count from 1 here. */
static size_t take_job(pool_state *s) {
    size_t job = 0;
    pthread_mutex_lock(&s->lock);
    if (s->failed == FC_OK && s->next < s->p->jobs) {
        fc_status st = s->p->start ? s->p->start(s->p->ctx, s->next) : FC_OK;
        if (st == FC_OK) job = ++s->next;
        else note_failure(s, st);
    }
    pthread_mutex_unlock(&s->lock);
    return job;
}

static void finish_job(pool_state *s, size_t job, fc_status st) {
    pthread_mutex_lock(&s->lock);
    if (st == FC_ERR_MEMORY && s->side_by_side) {   /* beside the others it did not fit: alone, after them */
        s->again[s->n_again++] = job;
        pthread_mutex_unlock(&s->lock);
        return;
    }
    if (s->p->done) st = s->p->done(s->p->ctx, job, st);   /* it may wrap the message: then kept */
    note_failure(s, st);
    pthread_mutex_unlock(&s->lock);
}

/* The jobs that ran out of memory side by side, one at a time in the
 * calling thread on the caller's backend, as a sequential run would. */
static void run_again_alone(pool_state *s) {
    s->side_by_side = 0;
    for (size_t k = 0; k < s->n_again && s->failed == FC_OK; k++) {
        size_t job = s->again[k];
        fc_error_clear();
        finish_job(s, job, s->p->train(s->p->ctx, job, s->p->be));
    }
}

static void run_jobs(pool_state *s, fc_backend *be) {
    for (size_t job; (job = take_job(s)) != 0;) {
        fc_status st = s->p->train(s->p->ctx, job - 1, be);
        finish_job(s, job - 1, st);
    }
}

static void *worker_main(void *arg) {
    pool_worker *w = arg;
    fc_status st = w->be->bind_thread(w->be);
    if (st == FC_OK) run_jobs(w->s, w->be);
    else {
        pthread_mutex_lock(&w->s->lock);
        note_failure(w->s, st);
        pthread_mutex_unlock(&w->s->lock);
    }
    return NULL;
}

/* The workers' backends, threads split between them; then the threads. */
static fc_status start_workers(pool_state *s, pool_worker *w, size_t n) {
    const fc_member_pool *p = s->p;
    int threads = p->threads > 0 ? p->threads : p->be->threads;
    for (size_t i = 0; i < n; i++) {
        w[i].s = s;
        FC_TRY(fc_backend_create_like(p->be, fc_member_pool_worker_threads(threads, n, i), &w[i].be));
    }
    for (size_t i = 0; i < n; i++) {
        if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]) != 0)
            return fc_error(FC_ERR_MEMORY, "cannot start worker %zu of %zu training side by side", i + 1, n);
        w[i].started = 1;
    }
    return FC_OK;
}

static fc_status run_side_by_side(pool_state *s) {
    size_t n = s->p->workers;
    pool_worker w[FC_POOL_MAX_WORKERS];
    memset(w, 0, sizeof w);
    fc_status st = start_workers(s, w, n);
    if (st != FC_OK) {   /* no more jobs for the workers already started */
        pthread_mutex_lock(&s->lock);
        note_failure(s, st);
        pthread_mutex_unlock(&s->lock);
    }
    for (size_t i = 0; i < n; i++) {
        if (w[i].started) pthread_join(w[i].thread, NULL);
        fc_backend_destroy(&w[i].be);
    }
    return s->failed;
}

fc_status fc_member_pool_run(const fc_member_pool *p) {
    if (!p->jobs) return FC_OK;
    if (!p->workers || p->workers > FC_POOL_MAX_WORKERS || p->workers > p->jobs)
        return fc_error(FC_ERR_INVALID, "%zu workers for %zu trainings: 1 to %d, at most one per training",
                        p->workers, p->jobs, FC_POOL_MAX_WORKERS);
    pool_state s = {.p = p, .failed = FC_OK, .side_by_side = p->workers > 1};
    if (s.side_by_side && !(s.again = fc_malloc(p->jobs * sizeof *s.again, "the trainings to run again")))
        return FC_ERR_MEMORY;
    pthread_mutex_init(&s.lock, NULL);
    if (p->workers == 1) run_jobs(&s, p->be);   /* the sequential run, in this thread */
    else run_side_by_side(&s);
    if (s.side_by_side && s.failed == FC_OK) run_again_alone(&s);
    pthread_mutex_destroy(&s.lock);
    free(s.again);
    if (s.failed != FC_OK) fc_error_restore(&s.why);
    return s.failed;
}
