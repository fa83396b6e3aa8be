/* fcast_data_open: a training file read as a configuration trains on it,
 * the way `fcast train --data` reads it (fcast.h): the columns its model
 * reads, its frequency, its static file, and whole or streamed into a
 * mapped store as the memory limit allows (train/data_budget.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/error.h"

/* The static file attached, the named columns checked, the others named. */
static fc_status bind_exog(const fcast_config *c, const fc_model_config *cfg, const char *path, fc_dataset *ds) {
    int keeps = cfg->futr_exog.n > 0 || cfg->hist_exog.n > 0;
    if (c->run.stat_file) FC_TRY(fc_dataset_attach_static(ds, c->run.stat_file));
    FC_TRY(fc_exog_check_columns(cfg, ds, fc_api_exog_words()));
    fc_exog_warn_unused(path, cfg, keeps ? ds : NULL, fc_api_exog_words());
    return FC_OK;
}

/* A streamed file in a job of `ranks` ranks: rank `rank` keeps its shard
 * (data/dataset.h), so the job's stores together hold the file once. */
static void take_shard(fc_load_options *lo, int rank, int ranks) {
    if (!lo->stream || ranks < 2) return;
    lo->shard = (size_t)rank, lo->shards = (size_t)ranks;
}

/* Rank 0 says how the ranks hold a file they were to share. */
static void say_shards(const fc_load_options *lo, const fc_dataset *ds) {
    if (lo->shards < 2 || lo->shard != 0) return;
    if (ds->shards > 1)
        fprintf(stderr, "data: each of the %zu ranks keeps 1/%zu of the series in its store (docs/distributed.md)\n",
                ds->shards, ds->shards);
    else
        fprintf(stderr, "data: %zu series for %zu ranks, fewer series than ranks: every rank keeps the whole file "
                "in its store\n", ds->n_series, lo->shards);
}

fc_status fc_api_data_open_shard(const fcast_config *c, const char *path, int rank, int ranks, fcast_data **out) {
    if (!c || !path || !out) return fc_error(FC_ERR_INVALID, "fcast_data_open: config, path and out are needed");
    *out = NULL;
    fc_model_config cfg;
    fc_loss_spec loss;
    FC_TRY(fc_api_resolve(c, &cfg, &loss));
    fc_load_options lo = {.freq = c->run.freq, .drop_exog = !cfg.futr_exog.n && !cfg.hist_exog.n,
                          .store_dir = c->run.store_dir};
    fc_data_choice choice;
    FC_TRY(fc_data_choose(path, &lo, c->run.data_store, c->run.memory_limit, &choice));
    fc_data_choice_print(&choice, &lo, c->run.memory_limit, stderr);
    take_shard(&lo, rank, ranks);
    fc_dataset *ds = NULL;
    FC_TRY(fc_dataset_open(path, &lo, &ds));
    say_shards(&lo, ds);
    fc_status st = bind_exog(c, &cfg, path, ds);
    fcast_data *d = st == FC_OK ? calloc(1, sizeof *d) : NULL;
    if (st == FC_OK && (!d || !(d->path = strdup(path)))) st = fc_error(FC_ERR_MEMORY, "fcast_data_open: out of memory");
    if (st != FC_OK) {
        free(d);
        fc_dataset_free(&ds);
        return st;
    }
    d->ds = ds;
    *out = d;
    return FC_OK;
}

fc_status fc_api_data_open(const fcast_config *c, const char *path, fcast_data **out) {
    return fc_api_data_open_shard(c, path, 0, 1, out);
}

fc_status fcast_data_open(const fcast_config *c, const char *path, fcast_data **out) {
    return fc_api_words(fc_api_data_open(c, path, out));
}
