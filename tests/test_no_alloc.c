/* The training step loop allocates nothing: malloc and friends are
 * interposed here (this executable's definitions take precedence over
 * libc's for every library), and each call is attributed to its caller.
 * Two training runs that differ only in their number of steps (20 and 40)
 * must make the same number of allocations from fcast's own code (this
 * executable's text, where fcastlib is linked): every buffer is allocated
 * before the first step. Allocations made inside libraries are counted and
 * printed for the record; oneDNN 2.6 makes a few small transient ones per
 * executed primitive, which its C API offers no way to avoid.
 * Under AddressSanitizer (which interposes malloc itself) the test is
 * skipped. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "core/error.h"
#include "train/forecaster.h"
#include "train/run_log.h"

#ifndef __SANITIZE_ADDRESS__
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);
extern char __executable_start, etext;   /* this executable's text (GNU ld) */

static volatile int counting;
static volatile long ours, theirs;

static void count(void *caller) {
    if (!counting) return;
    uintptr_t a = (uintptr_t)caller;
    if (a >= (uintptr_t)&__executable_start && a < (uintptr_t)&etext) __atomic_add_fetch(&ours, 1, __ATOMIC_RELAXED);
    else __atomic_add_fetch(&theirs, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t n) { count(__builtin_return_address(0)); return __libc_malloc(n); }
void *calloc(size_t n, size_t s) { count(__builtin_return_address(0)); return __libc_calloc(n, s); }
void *realloc(void *p, size_t n) { count(__builtin_return_address(0)); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
void *aligned_alloc(size_t a, size_t n) { count(__builtin_return_address(0)); return __libc_memalign(a, n); }
void *memalign(size_t a, size_t n) { count(__builtin_return_address(0)); return __libc_memalign(a, n); }
int posix_memalign(void **p, size_t a, size_t n) {
    count(__builtin_return_address(0));
    *p = __libc_memalign(a, n);
    return *p ? 0 : 12;   /* ENOMEM */
}

/* Allocations (ours, theirs) of one training run of `steps` steps, with
 * validation every 10 steps or none, and a run log (with every step's
 * profile) when log is given. */
static void run_logged(fc_backend *be, const fc_dataset *ds, fc_precision prec, size_t steps, int validate,
                       fc_run_log *log, long *o, long *t) {
    fc_forecaster f = {.scaler = FC_SCALER_STANDARD};
    fc_model_config c;
    fc_model_config_default(&c, FC_MODEL_NHITS, 48, 96);
    CHECK(fc_model_create(&c, be, &f.model) == FC_OK && fc_model_init_params(f.model, 1) == FC_OK);
    fc_train_options opt;
    fc_train_summary s;
    fc_train_options_default(&opt);
    opt.max_steps = steps, opt.windows_batch_size = 256, opt.verbose = 0, opt.precision = prec;
    opt.val_size = validate ? 48 : 0, opt.val_check_steps = 10, opt.grad_accum = 2, opt.clip_grad_norm = 1.0;
    opt.log = log, opt.profile = log != NULL;
    ours = theirs = 0;
    counting = 1;
    CHECK_MSG(fc_train(&f, ds, &opt, &s) == FC_OK, "%s", fc_last_error());
    counting = 0;
    *o = ours, *t = theirs;
    fc_forecaster_free(&f);
}

static void run(fc_backend *be, const fc_dataset *ds, fc_precision prec, size_t steps, long *o, long *t) {
    run_logged(be, ds, prec, steps, 1, NULL, o, t);
}

/* A run log with every step's line and profile adds no allocation to the
 * step loop, in fcast's code or in a library's (jansson would allocate per
 * line): 20 more steps make the same count with and without it. The
 * library counts of oneDNN's transient allocations are the same per step
 * either way, so the difference of differences is zero. */
static void logging_allocates_nothing(fc_backend *be, const fc_dataset *ds) {
    char path[] = "/tmp/fcast_no_alloc_log_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    close(fd);
    fc_run_log *log = NULL;
    CHECK(fc_run_log_open(path, &log) == FC_OK);
    long o20, t20, o40, t40, lo20, lt20, lo40, lt40;
    run_logged(be, ds, FC_PREC_FP32, 20, 0, log, &lo20, &lt20);   /* builds and caches the kernels */
    run_logged(be, ds, FC_PREC_FP32, 20, 0, NULL, &o20, &t20);
    run_logged(be, ds, FC_PREC_FP32, 40, 0, NULL, &o40, &t40);
    run_logged(be, ds, FC_PREC_FP32, 20, 0, log, &lo20, &lt20);
    run_logged(be, ds, FC_PREC_FP32, 40, 0, log, &lo40, &lt40);
    printf("run log: 20 more steps make %ld+%ld allocations with it, %ld+%ld without\n", lo40 - lo20, lt40 - lt20,
           o40 - o20, t40 - t20);
    CHECK_MSG(lo40 - lo20 == o40 - o20 && lt40 - lt20 == t40 - t20,
              "the run log adds %ld allocations to 20 steps", (lo40 - lo20 + lt40 - lt20) - (o40 - o20 + t40 - t20));
    CHECK(fc_run_log_close(&log) == FC_OK);
    unlink(path);
}

static void step_loop_allocates_nothing(fc_backend *be, const fc_dataset *ds, fc_precision prec) {
    long o20, t20, o40, t40;
    run(be, ds, prec, 20, &o20, &t20);   /* also builds and caches the kernels */
    run(be, ds, prec, 20, &o20, &t20);
    run(be, ds, prec, 40, &o40, &t40);
    printf("%s: fcast allocations %ld (20 steps) and %ld (40 steps); library allocations %ld and %ld\n",
           fc_precision_name(prec), o20, o40, t20, t40);
    CHECK(o20 > 0);                          /* the counter sees fcast's allocations at all */
    CHECK_MSG(o40 == o20, "%s: 20 more steps made %ld allocations in fcast's code", fc_precision_name(prec), o40 - o20);
}

int main(void) {
    fc_dataset *ds = NULL;
    fc_load_options lo = {.drop_exog = 1};
    fc_backend *be = NULL;
    CHECK(fc_dataset_load_csv("data/taylor_halfhourly.csv", &lo, &ds) == FC_OK);
    CHECK(fc_backend_cpu_create(2, &be) == FC_OK);
    if (!ds || !be) return CHECK_DONE();
    for (int p = 0; p < FC_PREC_COUNT; p++) step_loop_allocates_nothing(be, ds, (fc_precision)p);
    logging_allocates_nothing(be, ds);
    fc_backend_destroy(&be);
    fc_dataset_free(&ds);
    return CHECK_DONE();
}
#else
int main(void) {
    printf("skipped under AddressSanitizer, which interposes malloc itself\n");
    return 0;
}
#endif
