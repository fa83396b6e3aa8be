/* Subcommands of the fcast CLI. Each takes the full argv and the index of its
 * first own argument, and returns the process exit status (CLI_EXIT_*). Only
 * the CLI decides to exit. */
#ifndef FC_TOOLS_CLI_H
#define FC_TOOLS_CLI_H

#include "fcast.h"

int cmd_train(int argc, char **argv, int first);
int cmd_predict(int argc, char **argv, int first);
int cmd_eval(int argc, char **argv, int first);
int cmd_cv(int argc, char **argv, int first);
int cmd_ensemble(int argc, char **argv, int first);
int cmd_tune(int argc, char **argv, int first);
int cmd_bench(int argc, char **argv, int first);
int cmd_bench_fit(int argc, char **argv, int first);   /* fcast bench fit (cmd_bench dispatches) */
int cmd_plan(int argc, char **argv, int first);
int cmd_report(int argc, char **argv, int first);
int cmd_doctor(int argc, char **argv, int first);
int cmd_serve(int argc, char **argv, int first);

int cmd_quant(int argc, char **argv, int first);
int cmd_quant_indicators(int argc, char **argv, int first);
int cli_ta_list(FILE *f);   /* fcast quant indicators --list (ta_list.c) */
int cmd_quant_option(int argc, char **argv, int first);
int cmd_quant_implied_vol(int argc, char **argv, int first);
int cmd_quant_risk(int argc, char **argv, int first);
int cmd_quant_portfolio(int argc, char **argv, int first);
int cmd_quant_backtest(int argc, char **argv, int first);

/* Exit codes, one per fc_status (docs/operations.md, "Exit codes"). */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_INTERNAL = 1,      /* a bug: a failure without a status */
    CLI_EXIT_USAGE = 2,         /* unknown flag, missing or malformed flag value */
    CLI_EXIT_PARSE = 3,         /* FC_ERR_PARSE: malformed input file */
    CLI_EXIT_INVALID = 4,       /* FC_ERR_INVALID: well-formed but unusable data or option values */
    CLI_EXIT_IO = 5,            /* FC_ERR_IO: a file could not be opened, read or written */
    CLI_EXIT_MEMORY = 6,        /* FC_ERR_MEMORY: over the memory limit, or an allocation failed */
    CLI_EXIT_FORMAT = 7,        /* FC_ERR_FORMAT: corrupt or incompatible model or checkpoint file */
    CLI_EXIT_BACKEND = 8,       /* FC_ERR_BACKEND: the compute backend failed */
    CLI_EXIT_INTERRUPTED = 130  /* FC_ERR_INTERRUPTED: stopped by a signal; a checkpoint was written */
};

int cli_exit_code(fc_status s);

/* Prints "fcast <command>: <fc_last_error()>" to stderr and returns the exit
 * code of fc_last_status(). */
int cli_fail(const char *command);
/* Prints j as one compact JSON line on stdout and releases it (NULL: nothing). */
struct json_t;
void cli_print_json_line(struct json_t *j);

/* Prints "fcast <command>: <message>" to stderr and returns code: the
 * CLI's own refusals (a flag combination), which have no fc_status. */
int cli_refuse(const char *command, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
