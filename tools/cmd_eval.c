/* fcast eval: scores of forecasts. Three inputs:
 *   --model M --train T --test X   forecasts made here by a trained model,
 *                                  next to seasonal naive (the first form);
 *   --cv FILE [--train T]          a cross-validation file (neuralforecast's
 *                                  cross_validation, fcast cv);
 *   --forecasts F --test X --train T   a forecast file (fcast predict) and
 *                                  the actual values.
 * The file forms score every model column, its intervals and quantiles,
 * beside Naive and SeasonalNaive baselines (docs/evaluation.md). The
 * scoring is the library's (fcast.h: fcast_eval_file); here are the flags,
 * which point into its request, and the exit codes. */
#include <stdio.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"

/* A request the library refuses is a usage error here: a flag combination. */
static int usage(void) {
    fprintf(stderr, "fcast eval: %s (see fcast eval --help)\n", fc_last_error());
    return CLI_EXIT_USAGE;
}

int cmd_eval(int argc, char **argv, int first) {
    fcast_eval_request a = {.season = 1, .out = "-", .device = "auto", .format = "table", .verbose = 1};
    arg_spec specs[] = {
        {"model", ARG_IN, &a.model, "FILE", "model file written by fcast train: forecast here and score", 0, 0},
        {"cv", ARG_IN, &a.cv, "FILE", "cross-validation CSV to score (unique_id, ds, cutoff, y, models...)", 0, 0},
        {"forecasts", ARG_IN, &a.forecasts, "FILE", "forecast CSV to score (unique_id, ds, models...), with --test",
         0, 0},
        {"train", ARG_IN, &a.train, "FILE", "history (long CSV): the forecasts' start, MASE scale and baselines", 0, 0},
        {"test", ARG_IN, &a.test, "FILE", "actual values of the forecast points (long CSV)", 0, 0},
        {"season", ARG_SIZE, &a.season, "M", "seasonal period for seasonal naive and MASE (1)", 0, 0},
        {"freq", ARG_STR, &a.freq, "F", "frequency of --train with --cv / --forecasts (inferred)", 0, 0},
        {"format", ARG_STR, &a.format, "FMT", "with --cv / --forecasts: table, csv (long) or json (table)", 0, 0},
        {"per-series", ARG_FLAG, &a.per_series, NULL, "with --cv / --forecasts: scores of each series too", 0, 0},
        {"threads", ARG_SIZE, &a.threads, "N", "CPU threads with --model (0 = all cores)", 0, 0},
        {"device", ARG_STR, &a.device, "DEV", DEVICE_FLAG_HELP, 0, 0},
        {"out", ARG_OUT, &a.out, "FILE", "where the scores go (-, standard output)", 0, 0},
        {0},
    };
    int rc = args_parse("eval", "Score forecasts: MAE, MSE, RMSE, sMAPE (0-200), MAPE (%), MASE; with intervals or\n"
                        "quantiles scaled CRPS, quantile loss and coverage; next to naive and seasonal naive.\n"
                        "  fcast eval --model M --train T --test X     forecast with a model, then score\n"
                        "  fcast eval --cv FILE [--train T]            score a cross-validation file\n"
                        "  fcast eval --forecasts F --test X --train T score a forecast file", specs, argc, argv, first);
    if (rc) return args_exit(rc);
    if (fcast_eval_check(&a) != FC_OK) return usage();
    return fcast_eval_file(&a) == FC_OK ? CLI_EXIT_OK : cli_fail("eval");
}
