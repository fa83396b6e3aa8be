/* Loading the data within the memory limit (see data_budget.h). */
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "core/byte_size.h"
#include "core/memory_stats.h"
#include "core/error.h"
#include "data/series_store.h"
#include "train/data_budget.h"
#include "train/memory_plan.h"

fc_status fc_data_store_parse(const char *text, fc_data_store *out) {
    static const char *const names[] = {"auto", "memory", "stream"};
    *out = FC_DATA_AUTO;
    if (!text) return FC_OK;
    for (int i = 0; i < 3; i++)
        if (strcmp(text, names[i]) == 0) {
            *out = (fc_data_store)i;
            return FC_OK;
        }
    return fc_error(FC_ERR_INVALID, "--data-store '%s' is not auto, memory or stream", text);
}

static fc_status refuse_whole(const char *path, const fc_data_choice *c, size_t limit) {
    char need[32], lim[32];
    return fc_error(FC_ERR_MEMORY, "--memory-limit %s: loading %s (%zu rows) whole needs about %s at its peak (about "
                    "70 bytes a row, plus %zu MiB for code and libraries); --data-store stream (or auto) loads it "
                    "in a stream instead", fc_bytes_text(limit, lim, sizeof lim), path, c->rows,
                    fc_bytes_text(c->whole_bytes, need, sizeof need), FC_PLAN_ALLOWANCE >> 20);
}

/* The memory the points gap filling adds may take (fc_load_options), in
 * whichever store: the data's share of the limit, half of what it leaves
 * beyond code and libraries as auto's choice has it (the model and its
 * batches need the rest), or all of it for a store asked to be in memory
 * (which fc_data_choose accepts up to that), less the rows loaded whole
 * (the estimate, when made). Without a limit, the memory available now
 * stands for it, as for --windows-batch-size auto. The store is chosen
 * from the file's rows; points the file does not hold are charged as if
 * loaded whole, so that a mistyped timestamp is refused, not written out,
 * even streamed. */
static void bound_filling(fc_load_options *lo, size_t limit, fc_data_store mode, const fc_data_choice *c) {
    size_t budget = limit ? limit : fc_memory_available();
    if (!budget) return;   /* unknown: fc_fill_limit's ratio to the rows alone */
    size_t usable = budget > FC_PLAN_ALLOWANCE ? budget - FC_PLAN_ALLOWANCE : 0;
    size_t share = mode == FC_DATA_MEMORY && limit ? usable : usable / 2;
    size_t rows = c->estimated && !lo->stream ? c->whole_bytes : 0;
    lo->max_fill_bytes = share > rows ? share - rows : 1;
    lo->bound_name = limit ? "--memory-limit for the data (half of what it leaves beyond code and libraries, "
                             "less the rows)"
                           : "the memory available now for the data (no --memory-limit: half of it, less the rows)";
}

fc_status fc_data_choose(const char *path, fc_load_options *lo, fc_data_store mode, size_t limit,
                         fc_data_choice *c) {
    memset(c, 0, sizeof *c);
    struct stat st;
    if (stat(path, &st) == 0) c->file_bytes = (size_t)st.st_size;
    lo->stream = mode == FC_DATA_STREAM;
    lo->max_heap = 0;
    if (limit && mode != FC_DATA_STREAM) {
        FC_TRY(fc_csv_load_estimate(path, lo, &c->rows, &c->whole_bytes));
        c->estimated = 1;
        size_t usable = limit > FC_PLAN_ALLOWANCE ? limit - FC_PLAN_ALLOWANCE : 0;
        if (mode == FC_DATA_MEMORY && c->whole_bytes > usable) return refuse_whole(path, c, limit);
        lo->stream = mode == FC_DATA_AUTO && c->whole_bytes > usable / 2;
    }
    if (lo->stream && limit) lo->max_heap = limit > FC_PLAN_ALLOWANCE ? limit - FC_PLAN_ALLOWANCE : 1;
    c->stream = lo->stream;
    bound_filling(lo, limit, mode, c);
    return FC_OK;
}

void fc_data_choice_print(const fc_data_choice *c, const fc_load_options *lo, size_t limit, FILE *f) {
    if (!c->stream) return;
    char whole[32], lim[32];
    fprintf(f, "data: streamed into a store file in %s", fc_series_store_dir(lo->store_dir));
    if (c->estimated)
        fprintf(f, " (loading its %zu rows whole would take about %s, more than half of what the %s limit leaves "
                "beyond %zu MiB for code and libraries)", c->rows, fc_bytes_text(c->whole_bytes, whole, sizeof whole),
                fc_bytes_text(limit, lim, sizeof lim), FC_PLAN_ALLOWANCE >> 20);
    else
        fprintf(f, " (--data-store stream)");
    fprintf(f, "\n");
    struct statfs fs;
    if (statfs(fc_series_store_dir(lo->store_dir), &fs) == 0 && fs.f_type == TMPFS_MAGIC)
        fprintf(f, "data: warning: %s is a tmpfs: the store file takes RAM that the memory limit does not see; "
                "--store-dir can put it on a disk\n", fc_series_store_dir(lo->store_dir));
}
