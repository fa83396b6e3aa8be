/* The exogenous inputs of `fcast predict` (and `fcast eval`'s model runs):
 * the models' configurations say which columns they read; the history
 * holds the past ones, --stat-exog-file the static values and --futr-data
 * the future values of the future-known ones over the horizon, as
 * neuralforecast's predict(df, static_df, futr_df). */
#ifndef FC_TOOLS_PREDICT_EXOG_H
#define FC_TOOLS_PREDICT_EXOG_H

#include "data/dataset.h"
#include "models/model.h"

typedef struct {
    const char *data;         /* the history file, for messages */
    const char *stat_file;    /* --stat-exog-file or NULL */
    const char *futr_file;    /* --futr-data or NULL */
} predict_exog_files;

/* The lists every model reads, merged (names once each), into u. */
void predict_exog_union(const fc_model_config *const *cfgs, size_t n, fc_model_config *u);

/* 1 when the history's extra columns must be kept. */
int predict_exog_keep_columns(const fc_model_config *u);

/* Prepares ds (loaded with the columns kept when needed) for models
 * reading the lists of u, with horizon h: attaches the static values,
 * checks the past columns, warns about unused columns, and when u has
 * future columns builds *ext, ds extended by the h future points of each
 * series from --futr-data (NULL otherwise). Clear errors when a file the
 * models need is missing, or a value is. */
fc_status predict_exog_prepare(const predict_exog_files *files, const fc_model_config *u, size_t h, fc_dataset *ds,
                               fc_dataset **ext);

#endif
