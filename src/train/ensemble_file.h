/* Ensemble files (fcast ensemble): one safetensors holding every member as
 * a model file holds it (train/model_file.h), under the prefix "member.<i>."
 * for tensors and metadata keys alike ("member.0.config",
 * "member.0.blocks.0.layers.0.weight", ...), plus the metadata
 *   "format": "pt", "fcast_file_version", "fcast_version",
 *   "ensemble": {"combine":"median","members":N,"h":H}.
 * In PyTorch, member i is the state_dict of the keys that start with its
 * prefix, the prefix dropped. Members share h, ds kind and frequency, and
 * have point losses (the median of quantiles is not a quantile). */
#ifndef FC_IO_ENSEMBLE_FILE_H
#define FC_IO_ENSEMBLE_FILE_H

#include "train/ensemble.h"

typedef struct fc_ensemble_writer fc_ensemble_writer;

/* A writer for n_members members of horizon h, combined by `combine`. */
fc_status fc_ensemble_writer_new(fc_combine combine, size_t n_members, size_t h, fc_ensemble_writer **out);
/* Adds the next member; its parameters are copied, so f may be freed
 * after. A member of another h or frequency than the first, with a
 * quantile loss or conformal scores, or one too many, is FC_ERR_INVALID. */
fc_status fc_ensemble_writer_add(fc_ensemble_writer *w, const fc_forecaster *f);
/* Adds member i (0 .. n-1, once each, in any order): the file holds the
 * members in index order whatever the order they were added in. Members
 * of another ds kind or frequency than member 0 are refused at the write. */
fc_status fc_ensemble_writer_add_at(fc_ensemble_writer *w, size_t i, const fc_forecaster *f);
/* Writes atomically, once every member was added. */
fc_status fc_ensemble_writer_write(fc_ensemble_writer *w, const char *path);
void fc_ensemble_writer_free(fc_ensemble_writer **w);

/* 1 when path is a readable safetensors file with "ensemble" metadata
 * (its header alone is read); 0 otherwise, the loader then says why. */
int fc_ensemble_file_is(const char *path);

/* Loads every member onto be. A corrupt file (a missing or misshapen
 * member tensor, another member count, an unknown combination, members of
 * different horizons or frequencies, a tensor of no member) is
 * FC_ERR_FORMAT naming the file and the field. */
fc_status fc_ensemble_load(const char *path, fc_backend *be, fc_ensemble *out);

#endif
