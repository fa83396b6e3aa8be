/* Subcommands of the fcast CLI. Each takes the full argv and the index of its
 * first own argument, and returns the process exit status (0 ok, 1 failure,
 * 2 usage error). Only the CLI decides to exit. */
#ifndef FC_TOOLS_CLI_H
#define FC_TOOLS_CLI_H

int cmd_train(int argc, char **argv, int first);
int cmd_predict(int argc, char **argv, int first);
int cmd_eval(int argc, char **argv, int first);
int cmd_bench(int argc, char **argv, int first);
int cmd_plan(int argc, char **argv, int first);

int cmd_quant(int argc, char **argv, int first);
int cmd_quant_indicators(int argc, char **argv, int first);
int cmd_quant_option(int argc, char **argv, int first);
int cmd_quant_risk(int argc, char **argv, int first);
int cmd_quant_portfolio(int argc, char **argv, int first);
int cmd_quant_backtest(int argc, char **argv, int first);

/* Prints "fcast <command>: <fc_last_error()>" to stderr and returns 1. */
int cli_fail(const char *command);

#endif
