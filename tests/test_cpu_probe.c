/* The forked capability check (cpu_probe.c) that guards AMX: a check that
 * succeeds, fails, crashes with SIGILL, or hangs gives 1, 0, 0 and 0, the
 * hang within its deadline; and the verdict does not depend on waitpid, so
 * a host that ignores SIGCHLD or blocks SIGALRM gets the same answers. */
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "backend/cpu/cpu_internal.h"
#include "check.h"

static int succeeds(void) { return 0; }
static int fails(void) { return 1; }
static int dies_of_sigill(void) { raise(SIGILL); return 0; }
static int hangs(void) {
    for (;;) pause();
    return 0;   /* not reached */
}

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void verdicts(const char *host) {
    CHECK_MSG(fc_cpu_probe_in_child(succeeds, 5000) == 1, "%s: success", host);
    CHECK_MSG(fc_cpu_probe_in_child(fails, 5000) == 0, "%s: failure", host);
    CHECK_MSG(fc_cpu_probe_in_child(dies_of_sigill, 5000) == 0, "%s: SIGILL", host);
    double t0 = seconds();
    CHECK_MSG(fc_cpu_probe_in_child(hangs, 300) == 0, "%s: hang", host);
    double waited = seconds() - t0;
    CHECK_MSG(waited >= 0.25 && waited < 3.0, "%s: a hanging check took %.2f s to give up (deadline 0.3 s)", host,
              waited);
}

int main(void) {
    verdicts("default signals");
    signal(SIGCHLD, SIG_IGN);   /* the kernel reaps children: waitpid fails */
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGALRM);
    sigprocmask(SIG_BLOCK, &block, NULL);
    verdicts("SIGCHLD ignored, SIGALRM blocked");
    return CHECK_DONE();
}
