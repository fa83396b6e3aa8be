/* Running a capability check in a forked child, so that a check that
 * crashes (SIGILL from an instruction the machine will not run) or hangs
 * cannot take the caller with it. The child reports through a pipe, which
 * the parent reads with a deadline; on timeout the child is killed. The
 * result never depends on waitpid (a host that ignores SIGCHLD has its
 * children reaped for it) or on SIGALRM (which a host may block). */
#include <errno.h>
#include <omp.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/cpu/cpu_internal.h"

static double clock_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void run_child(int fd, int (*check)(void)) {
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);   /* an expected crash leaves no core file */
    omp_set_num_threads(1);
    char ok = check() == 0 ? 'y' : 'n';
    ssize_t w = write(fd, &ok, 1);
    (void)w;
    _exit(0);
}

/* Waits for the child's byte until the deadline; 1 for 'y'. */
static int read_verdict(int fd, int timeout_ms) {
    double end = clock_seconds() + timeout_ms / 1000.0;
    for (;;) {
        int left = (int)((end - clock_seconds()) * 1000.0);
        if (left <= 0) return 0;
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, left);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return 0;
        char c = 0;
        ssize_t n = read(fd, &c, 1);
        if (n < 0 && errno == EINTR) continue;
        return n == 1 && c == 'y';   /* n == 0: the child died without a word */
    }
}

int fc_cpu_probe_in_child(int (*check)(void), int timeout_ms) {
    int fds[2];
    if (pipe(fds) != 0) return 0;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        run_child(fds[1], check);
    }
    close(fds[1]);
    int ok = pid > 0 && read_verdict(fds[0], timeout_ms);
    close(fds[0]);
    if (pid > 0) {
        kill(pid, SIGKILL);            /* harmless if it has exited */
        waitpid(pid, NULL, 0);         /* fails harmlessly when SIGCHLD is ignored */
    }
    return ok;
}
