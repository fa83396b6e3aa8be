/* The thread-local error message (core/error.c):
 *
 *   1. a message that fits is stored whole, '%' in arguments kept;
 *   2. a message longer than FC_ERROR_CAP keeps its start and its end (the
 *      reason, which comes last) around a cut mark, at exactly the cap;
 *   3. fc_error_wrap puts its context before a long old message and still
 *      keeps the old message's end;
 *   4. fc_last_error() given as an argument of the next fc_error is read
 *      before it is overwritten;
 *   5. the CPU backend's bf16 kernel choice, made the first time its name is
 *      asked for (which a failed training's report does), keeps the
 *      caller's error: it cleared it, and the CLI printed "fcast train: "
 *      with nothing after it on CPUs with AVX512-BF16. */
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/cpu_backend.h"
#include "check.h"
#include "core/error.h"

static int ends_with(const char *s, const char *tail) {
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && !strcmp(s + a - b, tail);
}

int main(void) {
    CHECK(fc_error(FC_ERR_IO, "%s: %d%% done", "file.csv", 50) == FC_ERR_IO);
    CHECK(!strcmp(fc_last_error(), "file.csv: 50% done"));
    CHECK(fc_last_status() == FC_ERR_IO);

    size_t n = 100000;   /* a 100 KB path, as a hostile --out gives */
    char *path = malloc(n + 1);
    memset(path, 'd', n);
    path[n] = '\0';
    fc_error(FC_ERR_IO, "--out %s: directory '%s' does not exist", path, path);
    const char *m = fc_last_error();
    CHECK_MSG(strlen(m) == FC_ERROR_CAP - 1, "%zu bytes", strlen(m));
    CHECK(!strncmp(m, "--out ddd", 9));
    CHECK_MSG(ends_with(m, "ddd' does not exist"), "the reason is cut: ...%s", m + strlen(m) - 40);
    CHECK(strstr(m, " [...] ") != NULL);

    fc_error(FC_ERR_INVALID, "'%s': expected widths like 512,512", path);
    fc_error_wrap(FC_ERR_INVALID, "--mlp-units ");
    m = fc_last_error();
    CHECK(!strncmp(m, "--mlp-units 'ddd", 16));
    CHECK_MSG(ends_with(m, "': expected widths like 512,512"), "...%s", m + strlen(m) - 40);
    CHECK(fc_last_status() == FC_ERR_INVALID);

    fc_error(FC_ERR_PARSE, "line 3");
    fc_error(FC_ERR_PARSE, "data.csv:%s: not a number", fc_last_error());
    CHECK_MSG(!strcmp(fc_last_error(), "data.csv:line 3: not a number"), "%s", fc_last_error());
    fc_error(FC_ERR_PARSE, "x %s", path);
    fc_error(FC_ERR_PARSE, "%s", fc_last_error());   /* a long message given back to itself */
    CHECK(!strncmp(fc_last_error(), "x ddd", 5) && ends_with(fc_last_error(), "ddd"));
    free(path);

    fc_error(FC_ERR_BACKEND, "device cuda:0: no NVIDIA driver");   /* a run failed; its report asks: */
    const char *kernel = fc_backend_cpu_bf16_kernel_name();
    (void)fc_backend_cpu_uses_amx();
    (void)fc_backend_cpu_bf16_choice();
    CHECK_MSG(!strcmp(fc_last_error(), "device cuda:0: no NVIDIA driver") && fc_last_status() == FC_ERR_BACKEND,
              "after choosing the bf16 kernel (%s): '%s'", kernel, fc_last_error());
    return CHECK_DONE();
}
