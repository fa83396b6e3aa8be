/* fcast: the command-line entry point. Dispatches to subcommands (cli.h). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "fcast.h"

static void usage(FILE *f) {
    fprintf(f,
            "fcast %s: neural time-series forecasting and trading analytics\n\n"
            "usage: fcast <command> [options]   (fcast <command> --help for its options)\n\n"
            "commands:\n"
            "  train     train N-HiTS, N-BEATS or MLP on a long-format CSV\n"
            "  predict   forecast the next h points of every series\n"
            "  eval      score a model against a test file, next to seasonal naive\n"
            "  quant     trading analytics: indicators, option, risk, portfolio, backtest\n",
            fc_version());
}

int cli_fail(const char *command) {
    fprintf(stderr, "fcast %s: %s\n", command, fc_last_error());
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) { usage(stderr); return 2; }
    const char *c = argv[1];
    if (!strcmp(c, "--help") || !strcmp(c, "-h") || !strcmp(c, "help")) { usage(stdout); return 0; }
    if (!strcmp(c, "--version")) { printf("fcast %s\n", fc_version()); return 0; }
    if (!strcmp(c, "train")) return cmd_train(argc, argv, 2);
    if (!strcmp(c, "predict")) return cmd_predict(argc, argv, 2);
    if (!strcmp(c, "eval")) return cmd_eval(argc, argv, 2);
    if (!strcmp(c, "quant")) return cmd_quant(argc, argv, 2);
    fprintf(stderr, "fcast: unknown command '%s'\n\n", c);
    usage(stderr);
    return 2;
}
