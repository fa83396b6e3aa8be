/* fcast: the command-line entry point. Dispatches to subcommands (cli.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fcast.h"
#include "stop_signals.h"

/* "NHITS, NBEATS, ..., PatchTST": the library's model kinds, so the list
 * cannot fall behind the kind table. */
static const char *model_names(void) {
    static char list[256];
    fcast_kind_info kind;
    size_t n = 0;
    for (size_t k = 0; fcast_config_model_kind(k, &kind) && n < sizeof list; k++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "", kind.name);
    return list;
}

static void usage(FILE *f) {
    fprintf(f,
            "fcast %s: neural time-series forecasting and trading analytics\n\n"
            "usage: fcast <command> [options]   (fcast <command> --help for its options)\n\n"
            "commands:\n"
            "  train     train a model on a long-format CSV: %s\n"
            "  predict   forecast the next h points of every series\n"
            "  cv        cross-validate models over several forecast origins (neuralforecast's cross_validation)\n"
            "  tune      hyperparameter search scored by cross-validation (random or TPE)\n"
            "  ensemble  train an ensemble (architectures x input sizes x losses x seeds) into one file\n"
            "  eval      score forecasts (a model, a cv or forecast file): MAE, MASE, CRPS, coverage, baselines\n"
            "  plan      the memory plan of a training run (the flags of train)\n"
            "  report    a training run log (and forecasts) as one self-contained HTML page\n"
            "  doctor    this machine as fcast sees it: CPU, GPUs, device, precision, largest batch\n"
            "  bench     bench train: training speed per precision, against PyTorch;\n"
            "            bench fit: whole fits on a panel file, against neuralforecast\n"
            "  quant     trading analytics: indicators, option, risk, portfolio, backtest\n"
            "  serve     serve forecasts over HTTP (health, readiness, Prometheus metrics)\n",
            fc_version(), model_names());
}

/* GNU OpenMP (used by oneDNN and by fcast) busy-waits for 300,000 spins
 * between parallel regions by default. When another process competes for
 * the cores, the spinning threads burn the time slices the working ones
 * need. Measured side by side on 2 cores, default N-HiTS training, windows/s:
 *
 *                     alone     two trainings at once (each)
 *   default spin      15.5k     4.6k
 *   passive           14.0k     8.2k
 *   3000 spins        15.9k     7.5k
 *
 * so fcast spins briefly, then sleeps. libgomp reads the setting once, when
 * it is loaded, so it is set here and the program re-executes itself; a
 * setting the user made (OMP_WAIT_POLICY or GOMP_SPINCOUNT) is kept. */
static void prefer_short_openmp_spin(char **argv) {
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
    if (setenv("GOMP_SPINCOUNT", "3000", 1) != 0) return;
    execv("/proc/self/exe", argv);   /* returns only on failure: carry on as we are */
}

int main(int argc, char **argv) {
    prefer_short_openmp_spin(argv);
    stop_signals_default();
    fcast_set_option_names(FCAST_NAMES_FLAGS);   /* the library's messages name our flags */
    if (argc < 2) { usage(stderr); return 2; }
    const char *c = argv[1];
    if (!strcmp(c, "--help") || !strcmp(c, "-h") || !strcmp(c, "help")) { usage(stdout); return 0; }
    if (!strcmp(c, "--version")) { printf("fcast %s\n", fc_version()); return 0; }
    int shared = !strcmp(c, "train") || !strcmp(c, "predict") || !strcmp(c, "cv");
    if (!shared && fcast_job_size() > 1) {   /* N copies would each do the whole work */
        fprintf(stderr, "fcast %s: only fcast train, predict and cv run across the processes of an MPI job "
                "(docs/distributed.md); run fcast %s without mpirun\n", c, c);
        return CLI_EXIT_USAGE;
    }
    if (!strcmp(c, "train")) return cmd_train(argc, argv, 2);
    if (!strcmp(c, "predict")) return cmd_predict(argc, argv, 2);
    if (!strcmp(c, "eval")) return cmd_eval(argc, argv, 2);
    if (!strcmp(c, "cv")) return cmd_cv(argc, argv, 2);
    if (!strcmp(c, "ensemble")) return cmd_ensemble(argc, argv, 2);
    if (!strcmp(c, "tune")) return cmd_tune(argc, argv, 2);
    if (!strcmp(c, "doctor")) return cmd_doctor(argc, argv, 2);
    if (!strcmp(c, "bench")) return cmd_bench(argc, argv, 2);
    if (!strcmp(c, "plan")) return cmd_plan(argc, argv, 2);
    if (!strcmp(c, "report")) return cmd_report(argc, argv, 2);
    if (!strcmp(c, "quant")) return cmd_quant(argc, argv, 2);
    if (!strcmp(c, "serve")) return cmd_serve(argc, argv, 2);
    fprintf(stderr, "fcast: unknown command '%s'\n\n", c);
    usage(stderr);
    return 2;
}
