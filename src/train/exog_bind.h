/* A model's exogenous lists (futr_exog, hist_exog, stat_exog) against the
 * data it trains or forecasts on: the lists from their text, the check that
 * the data holds every column the model reads with a value at every point,
 * and the history extended over the horizon by the future-known values
 * (neuralforecast's futr_df). Shared by the CLI's flags and the library
 * API, which name the lists differently in messages ("--futr-exog",
 * "futr-exog"): the caller passes its names. */
#ifndef FC_TRAIN_EXOG_BIND_H
#define FC_TRAIN_EXOG_BIND_H

#include "data/dataset.h"
#include "models/model.h"

/* What the messages call each list and the file of future values. */
typedef struct {
    const char *futr, *hist, *stat, *futr_data, *stat_data;
} fc_exog_words;

/* "a,b,c" into l; FC_ERR_INVALID naming `what` on an empty or long name. */
fc_status fc_exog_list_parse(const char *text, const char *what, fc_exog_list *l);

/* FC_OK when ds holds c's future and past columns with a value at every
 * point, and c's static columns among its static values; errors name the
 * data, column, list, series and ds. */
fc_status fc_exog_check_columns(const fc_model_config *c, const fc_dataset *ds, const fc_exog_words *w);

/* *ext: ds with each series going on for its next h points, where c's
 * future columns take futr's values (data/exog_data.h, fc_futr_extend) and
 * the static values are ds's. */
fc_status fc_exog_extend(const fc_model_config *c, const fc_dataset *ds, const fc_dataset *futr, size_t h,
                         const fc_exog_words *w, fc_dataset **ext);

/* l: every column of the static file at path, as neuralforecast uses all
 * of static_df's; `choose` names the option that picks fewer. */
fc_status fc_exog_static_columns(const char *path, const char *choose, fc_exog_list *l);

/* The warning on stderr for the extra columns of the data file at path
 * that c does not read (none: no warning). ds NULL: the columns were
 * dropped at load. */
void fc_exog_warn_unused(const char *path, const fc_model_config *c, const fc_dataset *ds, const fc_exog_words *w);

/* Copies src's static values (names and per-series rows) onto dst, whose
 * series are src's in the same order. */
fc_status fc_dataset_copy_static(fc_dataset *dst, const fc_dataset *src);

#endif
