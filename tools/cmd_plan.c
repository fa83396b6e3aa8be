/* fcast plan: the memory plan of a training run, from the same flags as
 * fcast train, without training, through the library (fcast.h): the flags
 * become the configuration's keys and fcast_plan_file plans the run; this
 * prints its report: every buffer by purpose, the bytes per window of the
 * batch, and with --memory-limit the largest windows batch that fits. */
#include <stdio.h>

#include "cli.h"
#include "train_flags.h"

static const char *SUMMARY =
    "Print the memory plan of a training run (the same flags as fcast train; --out is optional):\n"
    "every buffer fcast allocates, the bytes per window, and with --memory-limit the largest\n"
    "--windows-batch-size that fits.";

static void print_loading(const fcast_plan_report *r) {
    char a[32], b[32];
    if (!r->data_streamed) {
        if (r->data_estimated)
            printf("loading the data (before training, transient): about %s at its peak for %zu rows\n",
                   fcast_bytes_text(r->data_load_peak, a, sizeof a), r->data_rows);
        return;
    }
    printf("data streamed: a %s store file (not resident: the plan counts the pages a step touches); "
           "loading kept about %s on the heap at its peak\n",
           fcast_bytes_text(r->data_store_bytes, a, sizeof a), fcast_bytes_text(r->data_stream_heap, b, sizeof b));
}

/* The breakdown, largest first, one line per item. */
static void print_items(const fcast_plan_report *r) {
    char a[32], b[32];
    for (size_t i = 0; i < r->n_items; i++) {
        const fcast_plan_item *it = &r->items[i];
        printf("  %-32s %12zu bytes  %10s", it->name, it->bytes, fcast_bytes_text(it->bytes, a, sizeof a));
        if (it->per_window) printf("  (%s per window)", fcast_bytes_text(it->per_window, b, sizeof b));
        printf("\n");
    }
    printf("  %-32s %12zu bytes  %10s  (%s per window of %zu)\n", "total", r->total,
           fcast_bytes_text(r->total, a, sizeof a), fcast_bytes_text(r->per_window, b, sizeof b),
           r->windows_batch_size);
}

static void print_plan(const fcast_plan_report *r) {
    char a[32], b[32];
    printf("memory plan: %s h=%zu input=%zu, %zu windows per step, %s\n", r->model, r->h, r->input_size,
           r->windows_batch_size, r->precision);
    print_items(r);
    printf("bytes per window: %zu\n", r->per_window);
    if (!r->memory_limit) return;
    printf("memory limit: %s; this plan %s it\n", fcast_bytes_text(r->memory_limit, a, sizeof a),
           r->total <= r->memory_limit ? "fits" : "exceeds");
    if (r->largest_batch) printf("largest --windows-batch-size within the limit: %zu\n", r->largest_batch);
    else printf("not even one window fits within %s\n", fcast_bytes_text(r->memory_limit, b, sizeof b));
}

static int plan(const train_flags *a, const arg_spec *specs) {
    fcast_config *c = NULL;
    int rc = train_flags_config("plan", a, specs, NULL, &c);
    if (rc) return rc;
    fcast_plan_report r;
    fc_status st = fcast_plan_file(c, a->data, &r);
    if (st == FC_OK) {
        print_plan(&r);
        print_loading(&r);
    }
    rc = st == FC_OK ? CLI_EXIT_OK : cli_fail("plan");
    fcast_config_free(c);
    return rc;
}

int cmd_plan(int argc, char **argv, int first) {
    train_flags a;
    arg_spec specs[FC_TRAIN_MAX_SPECS];
    train_flags_init(&a, specs, 0);
    int rc = args_parse("plan", SUMMARY, specs, argc, argv, first);
    if (rc) return args_exit(rc);
    return plan(&a, specs);
}
