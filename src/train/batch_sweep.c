/* The automatic windows batch (see batch_sweep.h). */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "train/batch_sweep.h"
#include "train/memory_plan.h"

/* Powers of two from 64 (or less, when less fits) up to the largest batch,
 * and the largest itself; the biggest FC_SWEEP_MAX of them. */
static int candidates(size_t largest, size_t *out) {
    size_t all[64];
    int n = 0;
    for (size_t b = 64; b < largest && n < 62; b *= 2) all[n++] = b;
    all[n++] = largest;
    int first = n > FC_SWEEP_MAX ? n - FC_SWEEP_MAX : 0;
    memcpy(out, all + first, (size_t)(n - first) * sizeof *out);
    return n - first;
}

/* windows/s of `steps` timed steps at batch W, after one untimed step. */
static fc_status measure(const fc_model_config *cfg, const fc_dataset *ds, const fc_train_options *o,
                         fc_scaler_kind scaler, fc_backend *be, size_t W, size_t steps, double *wps) {
    fc_forecaster f = {.scaler = scaler};
    fc_train_options t = *o;
    fc_train_summary s;
    t.windows_batch_size = W, t.val_size = 0, t.early_stop_patience = -1, t.verbose = 0, t.max_steps = 1;
    /* a trial is not the run: no resume, checkpoints, run log or stop flag */
    t.resume_path = NULL, t.checkpoint_path = NULL, t.checkpoint_every = 0, t.checkpoint_at_validation = 0;
    t.log = NULL, t.profile = 0, t.stop_requested = NULL;
    t.alone = 1;   /* in an MPI job each rank times its own trials; rank 0's choice is the job's */
    fc_status st = fc_model_create(cfg, be, &f.model);
    if (st == FC_OK) st = fc_model_init_params(f.model, t.seed);
    if (st == FC_OK) st = fc_train(&f, ds, &t, &s);   /* builds the kernels of this shape */
    t.max_steps = steps;
    if (st == FC_OK) st = fc_train(&f, ds, &t, &s);
    if (st == FC_OK) *wps = s.windows_per_second;
    fc_forecaster_free(&f);
    return st;
}

fc_status fc_batch_sweep_run(const fc_model_config *cfg, const fc_dataset *ds, const fc_train_options *o,
                             fc_scaler_kind scaler, fc_backend *be, size_t limit, size_t steps, fc_batch_sweep *out) {
    memset(out, 0, sizeof *out);
    fc_model *planned = NULL;
    FC_TRY(fc_model_plan(cfg, &planned));
    fc_status st = fc_memory_plan_largest_batch(planned, ds, o, be, limit, &out->largest);
    if (st == FC_OK && out->largest == 0) {
        fc_memory_plan p;
        fc_train_options one = *o;
        one.windows_batch_size = 1;
        st = fc_memory_plan_train(planned, ds, &one, be, &p);
        if (st == FC_OK) st = fc_memory_plan_refusal(&p, limit, 0);
    }
    fc_model_free(&planned);
    FC_TRY(st);
    out->n = candidates(out->largest, out->batch);
    /* Candidates rise; one the device cannot hold after all (the plan's
     * limit is host memory when no --memory-limit was given, and a GPU has
     * less) ends the sweep at the last one that ran. */
    for (int i = 0; i < out->n; i++) {
        st = measure(cfg, ds, o, scaler, be, out->batch[i], steps, &out->windows_per_s[i]);
        if (st == FC_ERR_MEMORY && i > 0) {
            out->n = i;
            out->largest = out->batch[i - 1];
            break;
        }
        FC_TRY(st);
    }
    /* The smallest batch within 3% of the fastest: differences that small
     * are timing noise, and a smaller batch takes less memory and makes more
     * optimizer steps per epoch. */
    double best = 0;
    for (int i = 0; i < out->n; i++) best = out->windows_per_s[i] > best ? out->windows_per_s[i] : best;
    for (int i = out->n - 1; i >= 0; i--)
        if (out->windows_per_s[i] >= FC_SWEEP_WITHIN * best) out->chosen = out->batch[i];
    return FC_OK;
}

void fc_batch_sweep_describe(const fc_batch_sweep *s, char *buf, size_t cap) {
    size_t n = (size_t)snprintf(buf, cap, "--windows-batch-size auto: %zu, the smallest within %.0f%% of the "
                                "fastest of", s->chosen, 100 * (1 - FC_SWEEP_WITHIN));
    for (int i = 0; i < s->n && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s %zu (%.0f windows/s)", i ? "," : "", s->batch[i],
                              s->windows_per_s[i]);
    if (n < cap) snprintf(buf + n, cap - n, "; %zu is the largest batch within the memory limit", s->largest);
}
