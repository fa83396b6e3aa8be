/* Dynamic batching (NVIDIA Triton's semantics): forecast requests are
 * queued, and one executor thread runs them in batches. A batch takes the
 * oldest request's model and, in arrival order, the requests of that model
 * waiting behind it, up to max_batch_series series (a single request larger
 * than that runs alone); with max_queue_delay_us > 0 the executor waits up
 * to that long after the oldest request's arrival for more to come, while
 * the batch has room. Default 0: batch only what is already waiting, so a
 * lone request never waits.
 *
 * A batch is one forward pass over the last input_size points of every
 * series of its requests (fc_served_predict on a dataset built from those
 * tails; for an ensemble one pass per member, each reading the last
 * input_size of those points that it takes),
 * so it costs what one request of that many series costs; each series'
 * forecast has the bits it has alone (its window, its scaling; the products
 * of each row sum in the same order for any number of rows: checked by
 * tests/cli_serve.sh). The executor is the only thread that touches the
 * models' buffers. */
#ifndef FC_SERVE_BATCHER_H
#define FC_SERVE_BATCHER_H

#include <stddef.h>
#include "api/serve_engine.h"
#include "metrics.h"
#include "model_registry.h"

typedef struct {
    size_t max_batch_series;      /* series per forward pass */
    long max_queue_delay_us;      /* 0: run what is waiting at once */
    size_t max_queue;             /* requests waiting, over all models; beyond: refused at once */
    double queue_timeout_s;       /* a request not started after this long leaves the queue (0: never) */
} fc_batcher_options;

/* One request's forecast: the caller fills model, ds and out (ds->n_series
 * x h floats); the batcher fills the rest. */
typedef struct fc_forecast_job {
    fc_served_model *model;
    const fc_dataset *ds;
    float *out;
    fc_status status;
    char error[512];              /* the message when status != FC_OK */
    int rejected;                 /* 1: the queue was full (answer 503) */
    int timed_out;                /* 1: waited past queue_timeout_s without starting (answer 503) */
    double queued_at, started_at, done_at;   /* fc_now() */
    size_t batch_series;          /* series in the batch it ran in */
    /* the batcher's */
    int done, taken;
    struct fc_forecast_job *next;
} fc_forecast_job;

typedef struct fc_batcher fc_batcher;

fc_status fc_batcher_start(const fc_batcher_options *o, fc_metrics *metrics, fc_batcher **out);
/* Runs what is queued, then stops the executor and frees. */
void fc_batcher_stop(fc_batcher *b);

/* Queues the job and waits until it has run (or was refused: job->rejected,
 * FC_ERR_MEMORY; or waited past the queue timeout without starting:
 * job->timed_out, FC_ERR_MEMORY, and it never runs). A job that started
 * runs to its end: a forward pass is not interrupted. The job's status and
 * message are returned and kept in the job. */
fc_status fc_batcher_run(fc_batcher *b, fc_forecast_job *job);

/* Requests waiting now. */
size_t fc_batcher_pending(fc_batcher *b);

/* Runs fn(ctx) while no batch runs: loading a model uses the backend the
 * executor computes on, and a backend is not made for two threads. */
fc_status fc_batcher_exclusive(fc_batcher *b, fc_status (*fn)(void *ctx), void *ctx);
/* The same for a function without a status (fc_registry_guard's form). */
void fc_batcher_guard(void *batcher, void (*fn)(void *arg), void *arg);

#endif
