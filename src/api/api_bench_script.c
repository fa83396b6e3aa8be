/* The Python side of a benchmark (api_bench.h, fc_bench_run_script): a
 * script run through the shell that prints its figures as a JSON object on
 * its last such line. */
#include <stdio.h>
#include <sys/wait.h>

#include "api/api_bench.h"

static void say_failure(const char *script, const char *precision, int rc) {
    if (WIFSIGNALED(rc))
        fprintf(stderr, "fcast bench: %s died of signal %d for %s\n", script, WTERMSIG(rc), precision);
    else
        fprintf(stderr, "fcast bench: %s failed for %s (exit status %d)\n", script, precision,
                WIFEXITED(rc) ? WEXITSTATUS(rc) : rc);
}

int fc_bench_run_script(const char *cmd, const char *script, const char *precision, int verbose,
                        int (*parse)(const char *line, void *row), void *row) {
    char line[4096], last[4096] = "";
    if (verbose) fprintf(stderr, "running: %s\n", cmd);
    FILE *p = popen(cmd, "r");
    if (!p) return 0;
    while (fgets(line, sizeof line, p))
        if (line[0] == '{') snprintf(last, sizeof last, "%s", line);
    int rc = pclose(p);
    int ok = rc == 0 && parse(last, row);
    if (!ok && verbose) say_failure(script, precision, rc);
    return ok;
}
