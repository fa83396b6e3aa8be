/* Trainings side by side (train/member_pool.h): every job runs once, on a
 * backend of its worker's that no other worker uses at the same time; the
 * workers' threads split the caller's; one worker is the caller's thread
 * and backend; a worker's failure reaches the caller with its message and
 * stops the jobs not yet started; and the worker counts chosen for the
 * CPU, a GPU and a memory limit (the k largest trainings beside what
 * they share). fcast ensemble's answers with the pool
 * are tests/cli_ensemble.sh's (byte for byte those of one at a time). */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "check.h"
#include "core/error.h"
#include "train/member_pool.h"

#define JOBS 12

typedef struct {
    int runs[JOBS];                 /* how many times each job ran */
    fc_backend *on[JOBS];           /* the backend it ran on */
    int threads_of[JOBS];
    pthread_t thread_of[JOBS];
    atomic_int busy[FC_POOL_MAX_WORKERS];   /* 1 while a job runs on worker slot k */
    fc_backend *slots[FC_POOL_MAX_WORKERS];
    pthread_mutex_t lock;
    int overlap;                    /* a backend used by two jobs at once */
    int started, done, fail_at;     /* fail_at: the job that fails (-1: none) */
    int start_order_ok, next_start;
    fc_backend *caller;             /* the caller's backend (the out-of-memory test) */
} pool_log;

/* The slot of a backend, made the first time it is seen. */
static int slot_of(pool_log *g, fc_backend *be) {
    pthread_mutex_lock(&g->lock);
    int k = 0;
    while (k < FC_POOL_MAX_WORKERS && g->slots[k] && g->slots[k] != be) k++;
    if (k < FC_POOL_MAX_WORKERS) g->slots[k] = be;
    pthread_mutex_unlock(&g->lock);
    return k;
}

static fc_status on_start(void *ctx, size_t job) {
    pool_log *g = ctx;
    if ((int)job != g->next_start++) g->start_order_ok = 0;   /* started in index order */
    g->started++;
    return FC_OK;
}

static fc_status on_train(void *ctx, size_t job, fc_backend *be) {
    pool_log *g = ctx;
    int k = slot_of(g, be);
    if (atomic_fetch_add(&g->busy[k], 1) != 0) g->overlap = 1;
    g->runs[job]++;
    g->on[job] = be;
    g->threads_of[job] = be->threads;
    g->thread_of[job] = pthread_self();
    float *x = be->alloc(be, 1024 * sizeof *x);   /* the backend works in this thread */
    if (x) {
        be->fill(be, x, (float)job, 1024);
        be->release(be, x);
    }
    for (volatile int spin = 0; spin < 200000; spin++) {}   /* long enough for the others to overlap */
    atomic_fetch_sub(&g->busy[k], 1);
    if ((int)job == g->fail_at) return fc_error(FC_ERR_INVALID, "job %zu: the input is bad", job);
    return x ? FC_OK : FC_ERR_MEMORY;
}

static fc_status on_done(void *ctx, size_t job, fc_status st) {
    pool_log *g = ctx;
    g->done++;
    return st == FC_OK ? FC_OK : fc_error_wrap(st, "member %zu: ", job + 1);
}

static fc_status run(fc_backend *be, size_t workers, int threads, pool_log *g) {
    memset(g, 0, sizeof *g);
    pthread_mutex_init(&g->lock, NULL);
    g->start_order_ok = 1;
    g->fail_at = -1;
    fc_member_pool p = {.jobs = JOBS, .workers = workers, .be = be, .threads = threads, .start = on_start,
                        .train = on_train, .done = on_done, .ctx = g};
    return fc_member_pool_run(&p);
}

static void test_every_job_once(fc_backend *be) {
    pool_log g;
    CHECK(run(be, 4, 6, &g) == FC_OK);
    int backends = 0;
    for (int j = 0; j < JOBS; j++) {
        CHECK_MSG(g.runs[j] == 1, "job %d ran %d times", j, g.runs[j]);
        CHECK(g.on[j] != be);   /* workers' own backends, not the caller's */
        CHECK(g.threads_of[j] == 1 || g.threads_of[j] == 2);   /* 6 threads in 4: 2, 2, 1, 1 */
    }
    for (int k = 0; k < FC_POOL_MAX_WORKERS && g.slots[k]; k++) backends++;
    CHECK_MSG(backends >= 1 && backends <= 4, "%d backends", backends);
    CHECK(!g.overlap);   /* one job at a time on a backend */
    CHECK(g.started == JOBS && g.done == JOBS && g.start_order_ok);
}

static void test_one_worker_is_the_caller(fc_backend *be) {
    pool_log g;
    CHECK(run(be, 1, 0, &g) == FC_OK);
    for (int j = 0; j < JOBS; j++) {
        CHECK(g.runs[j] == 1 && g.on[j] == be);
        CHECK(pthread_equal(g.thread_of[j], pthread_self()));
    }
}

static void test_failure_comes_home(fc_backend *be) {
    pool_log g;
    memset(&g, 0, sizeof g);
    pthread_mutex_init(&g.lock, NULL);
    g.start_order_ok = 1;
    g.fail_at = 0;   /* the first job fails: the jobs after the workers' first ones never start */
    fc_member_pool p = {.jobs = JOBS, .workers = 2, .be = be, .threads = 2, .start = on_start, .train = on_train,
                        .done = on_done, .ctx = &g};
    fc_error_clear();
    CHECK(fc_member_pool_run(&p) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "member 1: job 0: the input is bad");   /* the worker's message, wrapped */
    CHECK_MSG(g.started < JOBS, "%d jobs started after a failure", g.started);
    CHECK(g.done == g.started);   /* the ones under way finished */
}

/* Jobs 3 and 7 run out of memory side by side: each runs again alone, in
 * the calling thread on the caller's backend, and the pool succeeds; one
 * that runs out of memory alone too is the pool's failure. */
static int oom_left;
static fc_status on_train_oom(void *ctx, size_t job, fc_backend *be) {
    pool_log *g = ctx;
    if ((job == 3 || job == 7) && be != g->caller) return fc_error(FC_ERR_MEMORY, "job %zu: out of memory", job);
    if (job == 5 && oom_left-- > 0) return fc_error(FC_ERR_MEMORY, "job 5: out of memory, even alone");
    return on_train(ctx, job, be);
}

static void test_out_of_memory_runs_again_alone(fc_backend *be) {
    pool_log g;
    memset(&g, 0, sizeof g);
    pthread_mutex_init(&g.lock, NULL);
    g.start_order_ok = 1;
    g.fail_at = -1;
    g.caller = be;
    oom_left = 0;
    fc_member_pool p = {.jobs = JOBS, .workers = 3, .be = be, .threads = 3, .start = on_start, .train = on_train_oom,
                        .done = on_done, .ctx = &g};
    CHECK(fc_member_pool_run(&p) == FC_OK);
    for (int j = 0; j < JOBS; j++) CHECK_MSG(g.runs[j] == 1, "job %d ran %d times", j, g.runs[j]);
    CHECK(g.on[3] == be && g.on[7] == be && pthread_equal(g.thread_of[3], pthread_self()));
    CHECK(g.done == JOBS && g.started == JOBS);   /* started once, done once */
    memset(g.runs, 0, sizeof g.runs);
    g.done = g.started = g.next_start = 0;
    oom_left = 2;   /* job 5: out of memory side by side, then alone */
    CHECK(fc_member_pool_run(&p) == FC_ERR_MEMORY);
    CHECK_CONTAINS(fc_last_error(), "member 6: job 5: out of memory, even alone");
}

static void test_worker_counts(fc_backend *be) {
    fc_backend gpu = *be;
    gpu.gpu = 0;
    CHECK(fc_member_pool_workers(be, 100, 0, 100) == (size_t)be->threads);   /* a thread each */
    CHECK(fc_member_pool_workers(be, 1, 0, 100) == 1);
    CHECK(fc_member_pool_workers(be, 100, 3, 100) == 3);      /* asked */
    CHECK(fc_member_pool_workers(be, 100, 5, 2) == 2);        /* the memory holds 2 */
    CHECK(fc_member_pool_workers(be, 100, 0, 0) == 1);        /* never fewer than one */
    CHECK(fc_member_pool_workers(&gpu, 100, 0, 100) == FC_POOL_GPU_WORKERS);
    CHECK(fc_member_pool_workers(&gpu, 100, 1000, 1000) == FC_POOL_MAX_WORKERS);
    int sum = 0;
    for (size_t w = 0; w < 3; w++) sum += fc_member_pool_worker_threads(8, 3, w);
    CHECK(sum == 8 && fc_member_pool_worker_threads(8, 3, 0) == 3 && fc_member_pool_worker_threads(8, 3, 2) == 2);
    CHECK(fc_member_pool_worker_threads(2, 5, 4) == 1);   /* more workers than threads: one each */
}

static void test_fits(void) {
    size_t own[] = {3, 10, 5, 1};
    CHECK(fc_member_pool_fits(own, 4, 4, 19) == 2);    /* 4 shared + 10 + 5 */
    CHECK(fc_member_pool_fits(own, 4, 4, 22) == 3);    /* + 3 */
    CHECK(fc_member_pool_fits(own, 4, 4, 100) == 4);
    CHECK(fc_member_pool_fits(own, 4, 4, 13) == 1);    /* not even the largest beside the shared: one at a time */
    CHECK(fc_member_pool_fits(own, 4, 50, 19) == 1);   /* the shared alone over the limit */
    CHECK(fc_member_pool_fits(own, 0, 0, 19) == 1);
}

static void test_bad_requests(fc_backend *be) {
    fc_member_pool p = {.jobs = 3, .workers = 4, .be = be, .train = on_train};
    CHECK(fc_member_pool_run(&p) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "4 workers for 3 trainings");
    p.workers = 0;
    CHECK(fc_member_pool_run(&p) == FC_ERR_INVALID);
    p.jobs = 0;
    CHECK(fc_member_pool_run(&p) == FC_OK);   /* nothing to do */
}

int main(void) {
    fc_backend *be = NULL;
    CHECK(fc_backend_cpu_create(2, &be) == FC_OK);
    if (!be) return 1;
    test_every_job_once(be);
    test_one_worker_is_the_caller(be);
    test_failure_comes_home(be);
    test_out_of_memory_runs_again_alone(be);
    test_worker_counts(be);
    test_fits();
    test_bad_requests(be);
    fc_backend_destroy(&be);
    return CHECK_DONE();
}
