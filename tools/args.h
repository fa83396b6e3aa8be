/* A small declarative flag parser shared by every subcommand, so all of them
 * accept "--name value" and "--name=value", reject unknown flags with the
 * list of known ones, and print the same style of --help from one table.
 *
 * Every command also takes, from this parser alone:
 *   --config FILE   flags from a YAML file whose keys are the long flag
 *                   names (docs/operations.md, "Configuration files"). The
 *                   file is applied first, so a flag on the command line
 *                   overrides the file. Unknown keys, a key "config", and
 *                   values of the wrong kind are usage errors naming
 *                   FILE:LINE. A file that cannot be read (missing, a
 *                   directory, a FIFO) is an I/O error, malformed YAML or a
 *                   file that is not a mapping of flag: value a parse error
 *                   (exit codes 5 and 3, like any input file; see
 *                   args_parse). Strings read from the file stay alive until
 *                   the process exits (freed by an atexit handler).
 *   --print-config  prints the resolved configuration (file, then command
 *                   line, then defaults) as YAML that --config reads back
 *                   to the same run, and stops (args_parse returns 1, as for
 *                   --help). Required flags need not be present: those not
 *                   set are written as comments, so the output doubles as a
 *                   template. Only the flag syntax is checked; values are
 *                   checked when a run starts.
 *   --print-flags   prints the command's flags, one a line: name, kind
 *                   (str, int, size, double, flag, in, in-list, out) and
 *                   metavar, tab-separated, and stops; for completion
 *                   scripts and the test suite (not in --help).
 * A flag given twice on the command line is a usage error: silently keeping
 * the last value hid mistakes in long command lines and scripts. */
#ifndef FC_TOOLS_ARGS_H
#define FC_TOOLS_ARGS_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

/* ARG_IN, ARG_IN_LIST and ARG_OUT are strings (const char *) that name
 * files: read, read as a comma-separated list, or written ("-": standard
 * output, where the command allows it). Once the values are known,
 * args_parse checks every file flag of the command, and --config's file,
 * against each other (fcast_paths_distinct): an output that is the same
 * file as an input or another output, existing or not and however spelled,
 * is refused (exit 4) before the command runs. A flag whose metavar says
 * FILE must be one of these kinds, or the parser stops with an internal
 * error: a new file flag cannot go unchecked. */
typedef enum { ARG_STR, ARG_INT, ARG_SIZE, ARG_DOUBLE, ARG_FLAG, ARG_IN, ARG_IN_LIST, ARG_OUT } arg_kind;

/* 1 for the kinds whose destination is a const char *. */
static inline int arg_is_text(arg_kind k) { return k == ARG_STR || k == ARG_IN || k == ARG_IN_LIST || k == ARG_OUT; }

/* An ARG_SIZE destination holding this before parsing has no default: the
 * flag is "not given" (a model-dependent default, say), which a value read
 * from the command line can never equal. --print-config writes such a flag
 * as a comment, args_config_json as null. An ARG_STR left NULL is the same,
 * and so is an ARG_DOUBLE holding NAN (a value read can never be NaN: the
 * parser refuses what is not a finite number). */
#define ARG_SIZE_UNSET ((size_t)-1)
/* The same for an ARG_INT (num-lr-decays: the model's own default). */
#define ARG_INT_UNSET LONG_MIN

/* Bits of arg_spec.seen: where the value came from (ARG_FROM_POSITION: a
 * command's leading argument without a flag, set by the command). */
enum { ARG_FROM_FILE = 1, ARG_FROM_ARGV = 2, ARG_FROM_POSITION = 4 };


typedef struct {
    const char *name;    /* without the leading "--" */
    arg_kind kind;
    void *dest;          /* const char ** (arg_is_text), long *, size_t *, double *, int * */
    const char *metavar; /* shown in --help, e.g. "FILE"; NULL for flags */
    const char *help;    /* one line; say the default in it */
    int required;
    int seen;            /* set by the parser: 0, or ARG_FROM_* bits */
} arg_spec;

/* The spec named name[0..len), or NULL. */
arg_spec *args_find(arg_spec *specs, const char *name, size_t len);

/* Appends n specs to a table of `cap` entries (its end marked by a NULL
 * name, kept); -1, with a message, when they do not fit. Commands that
 * extend train's table (cv, tune, ensemble, train's intervals) use it. */
int args_append(arg_spec *specs, size_t cap, const arg_spec *extra, size_t n);

/* Parses argv[first..argc) (and --config's file). Returns 0 on success, 1
 * when --help or --print-config was printed, else the exit code the command
 * should return (the message is already on stderr with the command name):
 * which layer refused says which code, so
 *   CLI_EXIT_USAGE (2)   a flag or a key: unknown, repeated, missing, a value
 *                        of the wrong kind, "config" inside the file;
 *   CLI_EXIT_PARSE (3)   --config's file is not YAML, or not one mapping of
 *                        flag: value (nested, aliased, a key twice, ...);
 *   CLI_EXIT_INVALID (4) an output is the same file as an input or another
 *                        output (see arg_kind);
 *   CLI_EXIT_IO (5)      --config's file cannot be opened or read, or
 *                        --print-config cannot write standard output;
 *   CLI_EXIT_MEMORY (6)  out of memory.
 * Callers end with `if (rc) return args_exit(rc);`. */
int args_parse(const char *command, const char *summary, arg_spec *specs,
               int argc, char **argv, int first);

/* The process exit status for a non-zero args_parse result: 0 after --help
 * or --print-config, the chosen code otherwise. */
static inline int args_exit(int rc) { return rc == 1 ? 0 : rc; }

void args_print_help(const char *command, const char *summary, const arg_spec *specs);

/* Writes the resolved configuration as YAML, one "flag: value" line per
 * flag in table order (flags without a value as comments). Returns 0, or -1
 * when writing to f failed. */
int args_print_config(FILE *f, const char *command, const arg_spec *specs);
/* Whether a flag holds a value: not a text left NULL, an ARG_SIZE_UNSET,
 * an ARG_INT_UNSET or a NaN (a default the model or the command decides). */
int args_has_value(const arg_spec *s);

/* The resolved configuration as a compact JSON object, {"flag": value, ...}
 * in table order: ARG_INT/ARG_SIZE as integers, ARG_DOUBLE as numbers,
 * ARG_FLAG as true/false, ARG_STR as strings, a flag without a value as
 * null. Flags named in `skip` (NULL-terminated; NULL for none) are left out,
 * e.g. "out", whose value is where a file goes rather than how it was made.
 * Returns a malloc'ed string (free it), or NULL when out of memory. */
char *args_config_json(const arg_spec *specs, const char *const *skip);

#endif
