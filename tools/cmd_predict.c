/* fcast predict: forecast the next h points of every series in a history
 * file with trained models (or ensembles), written as neuralforecast's
 * output CSV, through the library (fcast.h) alone: the flags fill the
 * request of fcast_predict_files, which does the whole run, and its
 * summary is the last line. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"

static int predict(const fcast_predict_request *q) {
    fcast_predict_summary s;
    if (fcast_predict_files(q, &s) != FC_OK) return cli_fail("predict");
    if (fcast_job_rank() != 0) return CLI_EXIT_OK;   /* under mpirun, the writer says it */
    fprintf(stderr, "%zu series x %zu steps of %zu model%s written to %s\n", s.series, s.h, s.files,
            s.files > 1 ? "s" : "", strcmp(q->out, "-") ? q->out : "standard output");
    return CLI_EXIT_OK;
}

int cmd_predict(int argc, char **argv, int first) {
    fcast_predict_request q = {.device = "auto"};
    arg_spec specs[] = {
        {"model", ARG_IN_LIST, &q.model, "FILE", "model file written by fcast train or fcast ensemble; several separated "
                                             "by commas are written side by side (NHITS, NBEATS, NHITS1, ...; an "
                                             "ensemble as Ensemble)", 1, 0},
        {"data", ARG_IN, &q.data, "FILE", "history: long CSV with unique_id, ds, y", 1, 0},
        {"out", ARG_OUT, &q.out, "FILE", "forecast CSV to write (unique_id, ds, <MODEL>); - for standard output", 1, 0},
        {"futr-data", ARG_IN, &q.futr_data, "FILE", "future values of the models' --futr-exog columns: CSV of "
                                                     "unique_id, ds and those columns over the h points after each "
                                                     "series' end (no y)", 0, 0},
        {"stat-exog-file", ARG_IN, &q.stat_exog_file, "FILE", "static values of models trained with "
                                                               "--stat-exog-file (unique_id and one column per "
                                                               "variable)", 0, 0},
        {"level", ARG_STR, &q.level, "L,...", "prediction intervals of conformal models: levels in (0, 100), e.g. "
                                              "80,95 (columns NHITS-lo-95 ... NHITS-hi-95)", 0, 0},
        {"members", ARG_FLAG, &q.members, NULL, "an ensemble's members' columns too, after its column Ensemble "
                                                "(NHITS, NHITS1, NBEATS, ...)", 0, 0},
        {"threads", ARG_SIZE, &q.threads, "N", "CPU threads (0 = all cores)", 0, 0},
        {"device", ARG_STR, &q.device, "DEV", DEVICE_FLAG_HELP, 0, 0},
        {"memory-limit", ARG_STR, &q.memory_limit, "SIZE", "refuse a forecast whose memory plan exceeds SIZE "
                                                           "(512MiB, 12GB)", 0, 0},
        {"data-store", ARG_STR, &q.data_store, "MODE", "auto | memory | stream (as in fcast train)", 0, 0},
        {"store-dir", ARG_STR, &q.store_dir, "DIR", "where a streamed data store goes ($TMPDIR, else /var/tmp)", 0, 0},
        {0},
    };
    int rc = args_parse("predict", "Forecast the next h points of every series from its last input_size points.",
                        specs, argc, argv, first);
    if (rc) return args_exit(rc);
    return predict(&q);
}
