/* The exogenous inputs of a forecast over files (fcast_predict_files):
 * the models' configurations say which columns they read; the history
 * holds the past ones, the file of "stat-exog-file" the static values and
 * that of "futr-data" the future values of the future-known ones over the
 * horizon, as neuralforecast's predict(df, static_df, futr_df). */
#ifndef FC_API_API_PREDICT_EXOG_H
#define FC_API_API_PREDICT_EXOG_H

#include "data/dataset.h"
#include "models/model.h"

typedef struct {
    const char *data;         /* the history file, for messages */
    const char *stat_file;    /* "stat-exog-file" or NULL */
    const char *futr_file;    /* "futr-data" or NULL */
} fc_predict_exog_files;

/* Adds the lists c reads to those of u (names once each); u starts zeroed. */
void fc_predict_exog_union_add(fc_model_config *u, const fc_model_config *c);

/* 1 when the history's extra columns must be kept (u reads future or
 * past columns). */
int fc_predict_exog_keeps_columns(const fc_model_config *u);

/* Prepares ds (loaded with the columns kept when needed) for models
 * reading the lists of u, with horizon h: attaches the static values,
 * checks the past columns, warns about unused columns, and when u has
 * future columns builds *ext, ds extended by the h future points of each
 * series from the future file (NULL otherwise). Clear errors when a file
 * the models need is missing, or a value is. */
fc_status fc_predict_exog_prepare(const fc_predict_exog_files *files, const fc_model_config *u, size_t h,
                                  fc_dataset *ds, fc_dataset **ext);

#endif
