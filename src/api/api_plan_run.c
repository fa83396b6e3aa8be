/* fcast_plan_file: the memory plan of a training run without the run
 * (`fcast plan`): the configuration resolved as fcast_train_file resolves
 * it, its device opened, the file read as fcast_data_open reads it, then
 * the plan of the model at its windows batch and, under a limit, the
 * largest batch that fits. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/error.h"
#include "train/memory_plan.h"

_Static_assert(FCAST_PLAN_MAX_ITEMS >= FC_PLAN_MAX_ITEMS, "fcast_plan_report holds every item of a plan");

typedef struct {
    const fcast_config *c;
    fc_model_config cfg;
    fc_loss_spec loss;
    fc_train_options o;
    fc_backend *be;
    fcast_data *d;
    fc_model *planned;
    fc_memory_plan plan;
    size_t fits;
} plan_run;

static int by_size_desc(const void *a, const void *b) {
    size_t x = ((const fcast_plan_item *)a)->bytes, y = ((const fcast_plan_item *)b)->bytes;
    return x < y ? 1 : x > y ? -1 : 0;
}

static void fill_items(const fc_memory_plan *p, fcast_plan_report *r) {
    for (int i = 0; i < p->n; i++)
        r->items[i] = (fcast_plan_item){p->items[i].name, p->items[i].bytes, p->items[i].per_window,
                                        p->items[i].on_backend};
    r->n_items = (size_t)p->n;
    qsort(r->items, r->n_items, sizeof *r->items, by_size_desc);
    r->total = p->total;
    r->per_window = p->per_window;
}

/* How the rows were loaded: fcast_data_open's choice, asked again (a stat,
 * and a count of the lines under a limit) since it keeps only the data. */
static fc_status fill_loading(const plan_run *p, fcast_plan_report *r, const char *path) {
    const fcast_config *c = p->c;
    fc_load_options lo = {.freq = c->run.freq, .drop_exog = !p->cfg.futr_exog.n && !p->cfg.hist_exog.n,
                          .store_dir = c->run.store_dir};
    fc_data_choice dc;
    FC_TRY(fc_data_choose(path, &lo, c->run.data_store, c->run.memory_limit, &dc));
    const fc_dataset *ds = p->d->ds;
    r->data_streamed = dc.stream;
    r->data_estimated = dc.estimated;
    r->data_rows = dc.rows;
    r->data_load_peak = dc.whole_bytes;
    if (!dc.stream) return FC_OK;
    size_t names = 0;
    for (size_t i = 0; i < ds->n_series; i++) names += strlen(ds->ids[i]);
    r->data_store_bytes = ds->map_len;
    r->data_stream_heap = fc_dataset_stream_heap(ds->n_series, names, ds->n_exog, dc.file_bytes);
    return FC_OK;
}

/* The options fcast_train_file trains with; windows-batch-size auto is
 * planned at 1024, the batch a run starts its sweep from. */
static void set_options(plan_run *p) {
    p->o = p->c->train;
    p->o.verbose = p->c->run.verbose;
    if (p->c->run.auto_batch) p->o.windows_batch_size = 1024;
}

/* The device first: a run that cannot compute fails before a large file is read. */
static fc_status plan(plan_run *p, const char *path) {
    FC_TRY(fc_api_resolve(p->c, &p->cfg, &p->loss));
    set_options(p);
    FC_TRY(fc_api_backend_open(p->c->run.device, (size_t)p->c->threads, p->c->run.verbose, &p->be));
    FC_TRY(fc_api_data_open(p->c, path, &p->d));
    FC_TRY(fc_train_check(p->d->ds, &p->cfg, &p->o));
    FC_TRY(fc_model_plan(&p->cfg, &p->planned));
    FC_TRY(fc_memory_plan_train(p->planned, p->d->ds, &p->o, p->be, &p->plan));
    size_t limit = p->c->run.memory_limit;
    if (limit) FC_TRY(fc_memory_plan_largest_batch(p->planned, p->d->ds, &p->o, p->be, limit, &p->fits));
    return FC_OK;
}

static fc_status plan_file(const fcast_config *c, const char *path, fcast_plan_report *out) {
    if (!c || !path || !out) return fc_error(FC_ERR_INVALID, "fcast_plan_file: config, path and out are needed");
    memset(out, 0, sizeof *out);
    plan_run p = {.c = c};
    fc_status st = plan(&p, path);
    if (st == FC_OK) st = fill_loading(&p, out, path);
    if (st == FC_OK) {
        fill_items(&p.plan, out);
        out->model = fc_model_kind_name(p.cfg.kind);
        out->precision = fc_precision_name(p.o.precision);
        out->h = p.cfg.h;
        out->input_size = p.cfg.input_size;
        out->windows_batch_size = p.o.windows_batch_size;
        out->memory_limit = c->run.memory_limit;
        out->largest_batch = p.fits;
    }
    fc_model_free(&p.planned);
    fc_backend_destroy(&p.be);
    fcast_data_free(p.d);
    return st;
}

fc_status fcast_plan_file(const fcast_config *c, const char *path, fcast_plan_report *out) {
    return fc_api_words(plan_file(c, path, out));
}
