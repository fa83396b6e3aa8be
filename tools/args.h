/* A small declarative flag parser shared by every subcommand, so all of them
 * accept "--name value" and "--name=value", reject unknown flags with the
 * list of known ones, and print the same style of --help from one table. */
#ifndef FC_TOOLS_ARGS_H
#define FC_TOOLS_ARGS_H

#include <stddef.h>

typedef enum { ARG_STR, ARG_INT, ARG_SIZE, ARG_DOUBLE, ARG_FLAG } arg_kind;

typedef struct {
    const char *name;    /* without the leading "--" */
    arg_kind kind;
    void *dest;          /* const char **, long *, size_t *, double *, int * */
    const char *metavar; /* shown in --help, e.g. "FILE"; NULL for flags */
    const char *help;    /* one line; say the default in it */
    int required;
    int seen;            /* set by the parser */
} arg_spec;

/* Parses argv[first..argc). Returns 0 on success, 1 when --help was printed,
 * 2 on a usage error (already printed to stderr with the command name). */
int args_parse(const char *command, const char *summary, arg_spec *specs,
               int argc, char **argv, int first);

void args_print_help(const char *command, const char *summary, const arg_spec *specs);

#endif
