/* Flag parsing for the CLI (see args.h). */
#include "args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static arg_spec *find_spec(arg_spec *specs, const char *name, size_t len) {
    for (arg_spec *s = specs; s->name; s++)
        if (strlen(s->name) == len && strncmp(s->name, name, len) == 0) return s;
    return NULL;
}

static int store_value(const char *command, arg_spec *s, const char *v) {
    char *end = NULL;
    errno = 0;
    switch (s->kind) {
    case ARG_STR: *(const char **)s->dest = v; return 0;
    case ARG_INT: {
        long x = strtol(v, &end, 10);
        if (errno || end == v || *end) break;
        *(long *)s->dest = x;
        return 0;
    }
    case ARG_SIZE: {
        if (*v < '0' || *v > '9') break;   /* strtoull would accept " -1" as a huge value */
        unsigned long long x = strtoull(v, &end, 10);
        if (errno || end == v || *end) break;
        *(size_t *)s->dest = (size_t)x;
        return 0;
    }
    case ARG_DOUBLE: {
        double x = strtod(v, &end);
        if (errno || end == v || *end) break;
        *(double *)s->dest = x;
        return 0;
    }
    case ARG_FLAG: *(int *)s->dest = 1; return 0;
    }
    fprintf(stderr, "fcast %s: --%s expects %s, got '%s'\n", command, s->name,
            s->kind == ARG_DOUBLE ? "a number" : s->kind == ARG_SIZE ? "a non-negative integer" : "an integer", v);
    return 2;
}

void args_print_help(const char *command, const char *summary, const arg_spec *specs) {
    printf("usage: fcast %s [options]\n\n%s\n\noptions:\n", command, summary);
    for (const arg_spec *s = specs; s->name; s++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", s->name, s->metavar ? " " : "", s->metavar ? s->metavar : "");
        printf("  %-28s %s%s\n", left, s->help, s->required ? " (required)" : "");
    }
    printf("  %-28s %s\n", "--help", "show this help");
}

static void list_known(const char *command, const arg_spec *specs) {
    fprintf(stderr, "fcast %s: known options:", command);
    for (const arg_spec *s = specs; s->name; s++) fprintf(stderr, " --%s", s->name);
    fprintf(stderr, " (see fcast %s --help)\n", command);
}

int args_parse(const char *command, const char *summary, arg_spec *specs,
               int argc, char **argv, int first) {
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            args_print_help(command, summary, specs);
            return 1;
        }
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "fcast %s: unexpected argument '%s'\n", command, a);
            list_known(command, specs);
            return 2;
        }
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        arg_spec *s = find_spec(specs, name, len);
        if (!s) {
            fprintf(stderr, "fcast %s: unknown option '%.*s'\n", command, (int)len + 2, a);
            list_known(command, specs);
            return 2;
        }
        s->seen = 1;
        if (s->kind == ARG_FLAG) {
            if (eq) { fprintf(stderr, "fcast %s: --%s takes no value\n", command, s->name); return 2; }
            *(int *)s->dest = 1;
            continue;
        }
        const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!v) { fprintf(stderr, "fcast %s: --%s needs a value\n", command, s->name); return 2; }
        int rc = store_value(command, s, v);
        if (rc) return rc;
    }
    for (arg_spec *s = specs; s->name; s++)
        if (s->required && !s->seen) {
            fprintf(stderr, "fcast %s: --%s is required (see fcast %s --help)\n", command, s->name, command);
            return 2;
        }
    return 0;
}
