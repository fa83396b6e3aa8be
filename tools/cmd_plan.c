/* fcast plan: the memory plan of a training run, from the same flags as
 * fcast train, without training: every buffer by purpose, the bytes per
 * window of the batch, and with --memory-limit the largest windows batch
 * that fits. Loads the data (the plan depends on its size) and builds the
 * matrix-product kernels to ask their workspace; allocates no model. */
#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "cli.h"
#include "core/error.h"
#include "core/memory_stats.h"
#include "train/memory_plan.h"
#include "device_choice.h"
#include "train_flags.h"

static const char *SUMMARY =
    "Print the memory plan of a training run (the same flags as fcast train; --out is optional):\n"
    "every buffer fcast allocates, the bytes per window, and with --memory-limit the largest\n"
    "--windows-batch-size that fits.";

static void print_loading(const fc_data_choice *dc, const fc_dataset *ds) {
    char a[32], b[32];
    if (!dc->stream) {
        if (dc->estimated)
            printf("loading the data (before training, transient): about %s at its peak for %zu rows\n",
                   fc_bytes_text(dc->whole_bytes, a, sizeof a), dc->rows);
        return;
    }
    size_t names = 0;
    for (size_t i = 0; i < ds->n_series; i++) names += strlen(ds->ids[i]);
    printf("data streamed: a %s store file (not resident: the plan counts the pages a step touches); "
           "loading kept about %s on the heap at its peak\n",
           fc_bytes_text(ds->map_len, a, sizeof a),
           fc_bytes_text(fc_dataset_stream_heap(ds->n_series, names, ds->n_exog, dc->file_bytes), b, sizeof b));
}

static void print_plan(const train_setup *su, const fc_memory_plan *p, size_t fits) {
    char a[32], b[32];
    printf("memory plan: %s h=%zu input=%zu, %zu windows per step, %s\n", fc_model_kind_name(su->kind), su->cfg.h,
           su->cfg.input_size, su->o.windows_batch_size, fc_precision_name(su->o.precision));
    fc_memory_plan_print(p, stdout);
    printf("bytes per window: %zu\n", p->per_window);
    if (!su->memory_limit) return;
    printf("memory limit: %s; this plan %s it\n", fc_bytes_text(su->memory_limit, a, sizeof a),
           p->total <= su->memory_limit ? "fits" : "exceeds");
    if (fits) printf("largest --windows-batch-size within the limit: %zu\n", fits);
    else printf("not even one window fits within %s\n", fc_bytes_text(su->memory_limit, b, sizeof b));
}

static int plan(const train_flags *a) {
    train_setup su;
    int rc = train_flags_resolve("plan", a, &su);
    if (rc) return rc == 2 ? 2 : cli_fail("plan");
    fc_data_choice choice;
    fc_dataset *ds = NULL;
    fc_backend *be = NULL;
    fc_model *m = NULL;
    fc_memory_plan p;
    size_t fits = 0;
    fc_status st = device_backend_open(a->device, a->threads, a->quiet, &be);   /* before reading data */
    if (st == FC_OK) st = train_flags_load_data(a, &su, &choice, &ds);
    if (st == FC_OK) st = fc_train_check(ds, &su.cfg, &su.o);
    if (st == FC_OK) st = fc_model_plan(&su.cfg, &m);
    if (st == FC_OK) st = fc_memory_plan_train(m, ds, &su.o, be, &p);
    if (st == FC_OK && su.memory_limit) st = fc_memory_plan_largest_batch(m, ds, &su.o, be, su.memory_limit, &fits);
    if (st == FC_OK) print_plan(&su, &p, fits);
    if (st == FC_OK) print_loading(&choice, ds);
    rc = st == FC_OK ? 0 : cli_fail("plan");
    fc_model_free(&m);
    fc_backend_destroy(&be);
    fc_dataset_free(&ds);
    return rc;
}

int cmd_plan(int argc, char **argv, int first) {
    train_flags a;
    arg_spec specs[FC_TRAIN_MAX_SPECS];
    train_flags_init(&a, specs, 0);
    int rc = args_parse("plan", SUMMARY, specs, argc, argv, first);
    if (rc) return args_exit(rc);
    return plan(&a);
}
