/* The file behind a streamed dataset: its columns (ds, y, exogenous
 * values, mask, and the mask's prefix counts for the window sampler) in one
 * unlinked temporary file, memory-mapped. Pages of a file mapping are the
 * kernel's to drop and read again, so the dataset's resident share is what
 * the last batch touched, not its size: fc_dataset_release_pages hands the
 * touched pages back after every batch (see dataset.h). */
#ifndef FC_DATA_SERIES_STORE_H
#define FC_DATA_SERIES_STORE_H

#include "data/dataset.h"

/* Bytes of the store file for these sizes (each column page-aligned). */
size_t fc_series_store_bytes(size_t n_rows, size_t n_series, size_t n_exog);

/* Creates the store under dir (NULL: $TMPDIR, else /var/tmp) for d, whose
 * n_rows, n_series and n_exog are set and whose columns are NULL, and points
 * the columns into it, writable. The file's blocks are reserved up front,
 * so a full disk is an error here rather than a crash on a later write. */
fc_status fc_series_store_create(fc_dataset *d, const char *dir);

/* After the columns are written: makes the mapping read-only, tells the
 * kernel reads will be random (no read-around: a fault maps one page) and
 * hands every page back. */
void fc_series_store_seal(fc_dataset *d);

/* The store directory fc_series_store_create uses for dir. */
const char *fc_series_store_dir(const char *dir);

#endif
