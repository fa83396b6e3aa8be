/* The data side of exogenous variables (neuralforecast's futr_exog and
 * hist_exog): finding the named columns among a dataset's extra columns,
 * checking that they hold a value at every point, and extending a history
 * by the future values of the future-known columns for predict. */
#ifndef FC_DATA_EXOG_DATA_H
#define FC_DATA_EXOG_DATA_H

#include <stddef.h>
#include "data/dataset.h"

/* cols[j] = the index into d->exog of names[j] (n of them). An unknown
 * name is FC_ERR_INVALID naming d's file, the column, `flag` (the option
 * that named it, e.g. "--futr-exog") and the file's extra columns. */
fc_status fc_exog_columns(const fc_dataset *d, const char *const *names, size_t n, const char *flag,
                          size_t *cols);

/* FC_OK when every value of the columns cols[0..n) of d is finite; else
 * FC_ERR_INVALID naming the file, the column (names[j], given by `flag`),
 * the series and the ds, and saying when that point is a gap the loader
 * filled rather than a row of the file. */
fc_status fc_exog_check_finite(const fc_dataset *d, const size_t *cols, const char *const *names,
                               size_t n, const char *flag);

/* A new dataset *out equal to hist (series, ids, ds, y, mask, every exog
 * column) where each series goes on for its next h points on hist's
 * frequency grid (fc_freq_advance from its last ds), with y 0 and mask 0;
 * there hist's column hist_cols[j] takes futr's column futr_cols[j] at the
 * same (series, ds) and every other exog column is NaN. futr is the file
 * of future values (loaded with y_optional; keep_gaps spares it a
 * frequency); its other rows (other series, ds in the history or past h)
 * are ignored; with n 0 it is not read and may be NULL. FC_ERR_INVALID
 * when the two ds kinds differ, hist's frequency is unknown, futr has no
 * rows for a series of hist, lacks one of its next h ds (a gap filled in
 * futr counts as lacking), or holds an empty/NaN value there. */
fc_status fc_futr_extend(const fc_dataset *hist, const fc_dataset *futr, const size_t *hist_cols,
                         const size_t *futr_cols, size_t n, size_t h, fc_dataset **out);

/* names[pick[0..n)] (pick NULL: names[0..n)) quoted and joined with ", "
 * into buf, cut with "..." when cap bytes do not hold them: column lists
 * for messages. */
void fc_names_join(const char *const *names, const size_t *pick, size_t n, char *buf, size_t cap);

#endif
