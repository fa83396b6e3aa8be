/* fcast predict: forecast the next h points of every series in a history
 * file with a trained model, written as neuralforecast's output CSV. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"
#include "core/error.h"
#include "core/memory_stats.h"
#include "data/freq.h"
#include "eval/evaluate.h"
#include "io/forecast_csv.h"
#include "io/model_file.h"
#include "io/output_path.h"
#include "train/data_budget.h"
#include "train/memory_plan.h"

/* A series with nothing observed in its input window gets the model's answer
 * to zeros: plausible-looking numbers with no basis. Say so. */
static void warn_unobserved(const fc_dataset *ds, size_t L) {
    size_t count = 0, first = 0, since = 0;
    for (size_t i = 0; i < ds->n_series; i++) {
        size_t end = ds->offsets[i + 1], start = end - ds->offsets[i] > L ? end - L : ds->offsets[i], seen = 0;
        for (size_t r = start; r < end; r++) seen += ds->mask[r];
        if (!seen && !count++) first = i;
        fc_dataset_release_every(ds, &since, 1, FC_RELEASE_SERIES);   /* as the memory plan counts */
    }
    fc_dataset_release_pages(ds);
    if (count)
        fprintf(stderr, "fcast predict: warning: %zu series (the first is '%s') have no observed value in their "
                "last %zu points; their forecasts carry no information\n", count, ds->ids[first], L);
}

/* A series shorter than the input window is forecast from a window whose
 * front is padded with missing values: fewer points than the model was
 * trained on, which the user should know. One line, the first few ids. */
static void warn_short(const fc_dataset *ds, size_t L) {
    enum { SHOWN = 3 };
    size_t count = 0, used = 0;
    char ids[256] = "";
    for (size_t i = 0; i < ds->n_series; i++) {
        if (fc_dataset_len(ds, i) >= L) continue;
        if (count++ < SHOWN && used < sizeof ids)
            used += (size_t)snprintf(ids + used, sizeof ids - used, "%s'%s' (%zu)", count > 1 ? ", " : "",
                                     ds->ids[i], fc_dataset_len(ds, i));
    }
    if (count)
        fprintf(stderr, "fcast predict: warning: %zu series %s shorter than the input window of %zu points (%s%s); "
                "the missing points are padded and masked, so these forecasts rest on less history\n", count,
                count == 1 ? "is" : "are", L, ids, count > SHOWN ? ", ..." : "");
}

/* After loading: refuses a forecast whose memory plan passes the limit
 * (data whose loading alone would is refused before loading). */
static fc_status check_plan(const fc_forecaster *f, const fc_dataset *ds, fc_backend *be, size_t limit) {
    fc_memory_plan p;
    FC_TRY(fc_memory_plan_predict(f->model, ds, be, &p));
    return !limit || p.total <= limit ? FC_OK : fc_memory_plan_refusal(&p, limit, FC_PLAN_NO_BATCH_ADVICE);
}

typedef struct {
    const char *model, *data, *out, *limit_text, *data_store, *store_dir, *device;
    size_t threads, limit;
    fc_data_store mode;
} predict_flags;

static int predict(const predict_flags *a) {
    fc_backend *be = NULL;
    fc_forecaster f = {0};
    fc_dataset *ds = NULL;
    float *fc = NULL;
    const char *data = a->data, *out = a->out;
    size_t limit = a->limit;
    fc_load_options lo = {.drop_exog = 1, .store_dir = a->store_dir};
    fc_data_choice choice;
    const fc_input_path inputs[] = {{"--model", a->model}, {"--data", data}};
    fc_status st = fc_output_check("--out", out, 1, inputs, 2);   /* before any work */
    if (st == FC_OK) st = device_backend_open(a->device, a->threads, 0, &be);
    if (st == FC_OK) st = fc_data_choose(data, &lo, a->mode, limit, &choice);
    if (st == FC_OK) fc_data_choice_print(&choice, &lo, limit, stderr);
    if (st == FC_OK) st = fc_forecaster_load(a->model, be, &f);
    if (st == FC_OK) st = fc_load_history(&f, data, &lo, &ds);
    if (st == FC_OK) st = check_plan(&f, ds, be, limit);
    if (st == FC_OK) st = fc_freq_check_future(ds, &f.freq, f.model->cfg.h);   /* every future ds writable */
    if (st == FC_OK) {
        warn_short(ds, f.model->cfg.input_size);
        warn_unobserved(ds, f.model->cfg.input_size);
        fc = fc_malloc(ds->n_series * f.model->cfg.h * sizeof(float), "forecasts");
        st = fc ? fc_predict(&f, ds, fc) : FC_ERR_MEMORY;
    }
    if (st == FC_OK)
        st = fc_forecast_write_csv(out, ds, &f.freq, f.model->cfg.h, fc_model_kind_name(f.model->cfg.kind), fc);
    if (st == FC_OK)
        fprintf(stderr, "%zu series x %zu steps written to %s\n", ds->n_series, f.model->cfg.h,
                strcmp(out, "-") ? out : "standard output");
    int rc = st == FC_OK ? 0 : cli_fail("predict");
    free(fc);
    fc_dataset_free(&ds);
    fc_forecaster_free(&f);
    fc_backend_destroy(&be);
    return rc;
}

int cmd_predict(int argc, char **argv, int first) {
    predict_flags a = {.device = "auto"};
    arg_spec specs[] = {
        {"model", ARG_STR, &a.model, "FILE", "model file written by fcast train", 1, 0},
        {"data", ARG_STR, &a.data, "FILE", "history: long CSV with unique_id, ds, y", 1, 0},
        {"out", ARG_STR, &a.out, "FILE", "forecast CSV to write (unique_id, ds, <MODEL>); - for standard output", 1, 0},
        {"threads", ARG_SIZE, &a.threads, "N", "CPU threads (0 = all cores)", 0, 0},
        {"device", ARG_STR, &a.device, "DEV", DEVICE_FLAG_HELP, 0, 0},
        {"memory-limit", ARG_STR, &a.limit_text, "SIZE", "refuse a forecast whose memory plan exceeds SIZE (512MiB, 12GB)", 0, 0},
        {"data-store", ARG_STR, &a.data_store, "MODE", "auto | memory | stream (as in fcast train)", 0, 0},
        {"store-dir", ARG_STR, &a.store_dir, "DIR", "where a streamed data store goes ($TMPDIR, else /var/tmp)", 0, 0},
        {0},
    };
    int rc = args_parse("predict", "Forecast the next h points of every series from its last input_size points.",
                        specs, argc, argv, first);
    if (rc) return args_exit(rc);
    if (fc_memory_limit_parse(a.limit_text, &a.limit) != FC_OK || fc_data_store_parse(a.data_store, &a.mode) != FC_OK)
        return cli_fail("predict");
    return predict(&a);
}
