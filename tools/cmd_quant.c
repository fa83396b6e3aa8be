/* fcast quant <sub>: dispatch to the trading-analytics subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void quant_usage(FILE *f) {
    fprintf(f,
            "usage: fcast quant <command> [options]   (fcast quant <command> --help)\n\n"
            "commands:\n"
            "  indicators  any of TA-Lib's 201 functions over many series (--list names them)\n"
            "  option      European, Asian, American and barrier options: Black-Scholes, trees, Monte Carlo\n"
            "  implied-vol Black-Scholes-Merton implied volatility of one option or a CSV of them\n"
            "  risk        VaR, CVaR, volatility, Sharpe, Sortino, maximum drawdown\n"
            "  portfolio   minimum variance, target return, frontier, maximum Sharpe, risk parity\n"
            "  backtest    rules, signal files or forecasts traded over a parameter grid and all symbols\n");
}

int cmd_quant(int argc, char **argv, int first) {
    if (first >= argc) { quant_usage(stderr); return 2; }
    const char *c = argv[first];
    if (!strcmp(c, "--help") || !strcmp(c, "-h")) { quant_usage(stdout); return 0; }
    if (!strcmp(c, "indicators")) return cmd_quant_indicators(argc, argv, first + 1);
    if (!strcmp(c, "option")) return cmd_quant_option(argc, argv, first + 1);
    if (!strcmp(c, "implied-vol")) return cmd_quant_implied_vol(argc, argv, first + 1);
    if (!strcmp(c, "risk")) return cmd_quant_risk(argc, argv, first + 1);
    if (!strcmp(c, "portfolio")) return cmd_quant_portfolio(argc, argv, first + 1);
    if (!strcmp(c, "backtest")) return cmd_quant_backtest(argc, argv, first + 1);
    fprintf(stderr, "fcast quant: unknown command '%s'\n\n", c);
    quant_usage(stderr);
    return 2;
}
