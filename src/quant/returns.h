/* From a long-format price file to the matrices the risk and portfolio code
 * read: series aligned on ds (an inner join: only the ds values where every
 * series has an observed value are kept), and simple returns
 * r_t = p_t / p_{t-1} - 1 between consecutive kept rows (as empyrical's
 * simple_returns). */
#ifndef FC_QUANT_RETURNS_H
#define FC_QUANT_RETURNS_H

#include <stddef.h>
#include <stdint.h>
#include "data/dataset.h"
#include "fcast/status.h"

typedef struct {
    size_t n_rows;      /* T: common ds values */
    size_t n_series;    /* N */
    double *values;     /* (T, N) row-major */
    int64_t *ds;        /* (T) */
    const fc_dataset *source; /* for ids and ds formatting; not owned */
} fc_panel;

/* Inner join of all series of `d` on ds. Fails if fewer than `min_rows`
 * common points remain (the message says how many and what to check). */
fc_status fc_panel_align(const fc_dataset *d, size_t min_rows, fc_panel *out);

/* Replaces a price panel by its simple returns (T-1 rows, the first ds
 * dropped). A non-positive price is an error naming the series and ds. */
fc_status fc_panel_to_returns(fc_panel *p);

/* Checks that a panel of returns has only finite values above -1 (a loss
 * beyond 100% is not a return of a long position). */
fc_status fc_panel_check_returns(const fc_panel *p);

/* Copies column s into out (T). */
void fc_panel_column(const fc_panel *p, size_t s, double *out);

void fc_panel_free(fc_panel *p);

#endif
