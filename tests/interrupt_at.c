/* A test-only build of the CLI, fcast_interrupt_at: the fcast binary with
 * fc_train wrapped (the linker's --wrap=fc_train, CMakeLists.txt), so that
 * tests can stop a training run at an exact point through the real signal
 * path, and production code holds no test hook.
 *
 * FCAST_TEST_INTERRUPT_AT=N sends the process SIGINT after step N (from
 * the library's step callback, fc_train_options' on_step, which runs after
 * the step's report and before its validation check and stop check);
 * N:validation does the same only when step N runs a validation check, so
 * the stop lands inside the check's step. The CLI takes signals on a
 * thread of its own (tools/stop_signals.c), so the callback waits (up to
 * 10 s) for the stop flag that thread sets before the run goes on: the
 * trainer then sees the stop after this very step. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "train/forecaster.h"

fc_status __real_fc_train(fc_forecaster *f, const fc_dataset *ds, const fc_train_options *o, fc_train_summary *s);
fc_status __wrap_fc_train(fc_forecaster *f, const fc_dataset *ds, const fc_train_options *o, fc_train_summary *s);

typedef struct {
    long at;             /* the step to stop after */
    int in_validation;   /* only if that step runs a validation check */
    const fc_train_options *run;   /* the run's options: its own callback, the stop flag */
} interrupt_plan;

static int validates(const fc_train_options *o, size_t step) {
    return o->val_size && o->val_check_steps && step % o->val_check_steps == 0;
}

static void interrupt_at(void *user, size_t step, size_t max_steps, double loss) {
    const interrupt_plan *plan = user;
    const fc_train_options *o = plan->run;
    if (o->on_step) o->on_step(o->on_step_user, step, max_steps, loss);
    if (plan->at <= 0 || (size_t)plan->at != step || (plan->in_validation && !validates(o, step))) return;
    kill(getpid(), SIGINT);   /* to the process: the signal thread takes it (raise would pend on this one) */
    for (int ms = 0; o->stop_requested && !*o->stop_requested && ms < 10000; ms++) usleep(1000);
}

/* FCAST_TEST_INTERRUPT_AT as a plan; 0 when unset. A value it cannot
 * read ends the process, so a typo in a test fails it rather than leaving
 * its run uninterrupted. */
static int read_plan(interrupt_plan *plan) {
    const char *v = getenv("FCAST_TEST_INTERRUPT_AT");
    if (!v) return 0;
    char *end = NULL;
    plan->at = strtol(v, &end, 10);
    plan->in_validation = !strcmp(end, ":validation");
    if (plan->at > 0 && (!*end || plan->in_validation)) return 1;
    fprintf(stderr, "fcast_interrupt_at: FCAST_TEST_INTERRUPT_AT=%s: expected N or N:validation, N >= 1\n", v);
    exit(2);
}

fc_status __wrap_fc_train(fc_forecaster *f, const fc_dataset *ds, const fc_train_options *o, fc_train_summary *s) {
    interrupt_plan plan = {.run = o};
    if (!read_plan(&plan)) return __real_fc_train(f, ds, o, s);
    fc_train_options wrapped = *o;
    wrapped.on_step = interrupt_at;
    wrapped.on_step_user = &plan;
    return __real_fc_train(f, ds, &wrapped, s);
}
