/* The Python side of a benchmark (api_bench.h, fc_bench_run_script): a
 * script run through the shell that prints its figures as a JSON object on
 * its last such line. */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/api_bench.h"

extern char **environ;

static void say_failure(const char *script, const char *precision, int rc) {
    if (WIFSIGNALED(rc))
        fprintf(stderr, "fcast bench: %s died of signal %d for %s\n", script, WTERMSIG(rc), precision);
    else
        fprintf(stderr, "fcast bench: %s failed for %s (exit status %d)\n", script, precision,
                WIFEXITED(rc) ? WEXITSTATUS(rc) : rc);
}

/* `sh -c cmd` with its standard output on a pipe (*out), as popen would
 * start it, but with the signals a shell's child has: none blocked, the
 * usual dispositions. fcast's CLI blocks SIGINT and SIGTERM in all its
 * threads (tools/stop_signals.c), and a child of popen inherits that: a
 * Ctrl-C would leave the Python side running. */
static pid_t spawn_reading(const char *cmd, FILE **out) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, usual;
    sigemptyset(&none);
    sigemptyset(&usual);
    sigaddset(&usual, SIGINT), sigaddset(&usual, SIGTERM), sigaddset(&usual, SIGHUP), sigaddset(&usual, SIGPIPE);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    posix_spawnattr_init(&at);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &usual);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    char *argv[] = {"sh", "-c", (char *)cmd, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, "/bin/sh", &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(fds[1]);
    if (rc != 0 || !(*out = fdopen(fds[0], "r"))) {
        close(fds[0]);
        if (rc == 0) waitpid(pid, NULL, 0);
        return -1;
    }
    return pid;
}

int fc_bench_run_script(const char *cmd, const char *script, const char *precision, int verbose,
                        int (*parse)(const char *line, void *row), void *row) {
    char line[4096], last[4096] = "";
    if (verbose) fprintf(stderr, "running: %s\n", cmd);
    FILE *p = NULL;
    pid_t pid = spawn_reading(cmd, &p);
    if (pid < 0) return 0;
    while (fgets(line, sizeof line, p))
        if (line[0] == '{') snprintf(last, sizeof last, "%s", line);
    fclose(p);
    int rc = -1;
    while (waitpid(pid, &rc, 0) < 0 && errno == EINTR) {}
    int ok = rc == 0 && parse(last, row);
    if (!ok && verbose) say_failure(script, precision, rc);
    return ok;
}
