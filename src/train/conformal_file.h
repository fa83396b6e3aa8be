/* Conformal scores in a model file (train/conformal.h): two tensors,
 * "conformal.scores" F32 (n_series, n_windows, h) and "conformal.ids" U8
 * (the series ids, each followed by a NUL, in sorted order), and metadata
 * "conformal" = {"method", "n_windows", "step_size"} as JSON. A file
 * without them is a model without conformal intervals. */
#ifndef FC_IO_CONFORMAL_FILE_H
#define FC_IO_CONFORMAL_FILE_H

#include "io/safetensors.h"
#include "train/conformal.h"

#define FC_CONFORMAL_TENSORS 2

/* Adds c to the writer. *ids_blob holds the packed ids, referenced by the
 * writer: free() it after fc_st_writer_write. */
fc_status fc_conformal_write(fc_st_writer *w, const fc_conformal *c, char **ids_blob);

/* Reads the scores when the file has them (*present 1), checking every
 * field against the model's horizon h; errors name the file and field. */
fc_status fc_conformal_read(const fc_safetensors *st, const char *path, size_t h, fc_conformal *out, int *present);

#endif
