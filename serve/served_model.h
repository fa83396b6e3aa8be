/* One model that fcast serve answers for, as its file holds it: a model
 * file's forecaster, or an ensemble file's members (written by fcast
 * ensemble), whose point forecasts are combined per point as fcast predict
 * combines them into its column Ensemble (train/ensemble.h). Either way the
 * server sees one horizon, frequency and ds kind (the members share them),
 * one input: the last points of each series, as many as the longest
 * member reads (each member takes its own last input_size of them), and
 * one answer per series: (h, outputs). */
#ifndef FC_SERVE_SERVED_MODEL_H
#define FC_SERVE_SERVED_MODEL_H

#include <stddef.h>
#include "api/serve_engine.h"

/* Longest model name served: the file name without ".safetensors". */
#define FC_MODEL_NAME_MAX 128

typedef struct fc_served_model {
    char name[FC_MODEL_NAME_MAX];
    char *path;
    fc_ensemble set;            /* a model file: its forecaster alone; an ensemble file: its members */
    int ensemble;               /* 1: an ensemble file, answered with the combination of its members */
    size_t file_bytes;
    long long mtime_ns;         /* the file's modification time when loaded */
    int refs;                   /* the registry's own (while listed) and the requests' */
} fc_served_model;

/* Loads path (a model or an ensemble file) on be, served under name, each
 * forecaster with room for batches of `batch` series. A model reading
 * exogenous inputs is refused: requests carry y alone. */
fc_status fc_served_model_load(fc_backend *be, size_t batch, const char *path, const char *name,
                               fc_served_model **out);
void fc_served_model_free(fc_served_model *m);

/* The forecaster whose horizon, frequency and ds kind the model has (an
 * ensemble's first member: the others share them). */
static inline const fc_forecaster *fc_served_first(const fc_served_model *m) { return &m->set.members[0]; }
static inline size_t fc_served_h(const fc_served_model *m) { return fc_served_first(m)->model->cfg.h; }
/* The points of each series it reads: the longest member's input size. */
size_t fc_served_input_size(const fc_served_model *m);
/* Values per horizon step of its answer: a quantile model's outputs; 1
 * for an ensemble (the combination of point forecasts). */
size_t fc_served_outputs(const fc_served_model *m);

/* Forecasts of every series of ds from its last points: out (n_series, h,
 * outputs), what fcast predict computes for the same file (fc_predict, or
 * fc_ensemble_predict for an ensemble). Not thread-safe (the forecasters'
 * buffers): the batcher's thread only. */
fc_status fc_served_predict(fc_served_model *m, const fc_dataset *ds, float *out);

/* The columns of the answer for the levels asked, named as fcast predict
 * names them: a model's (train/forecast_columns.h), or an ensemble's one
 * column Ensemble, which has no intervals (levels asked of it are
 * FC_ERR_INVALID saying so, as predict --level refuses them). */
fc_status fc_served_columns(const fc_served_model *m, const double *levels, size_t n_levels, fc_column_set *out);

#endif
