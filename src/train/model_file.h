/* Model files: safetensors with tensor names and shapes equal to
 * neuralforecast's state_dict() (so `model.load_state_dict(load_file(p))`
 * works in PyTorch), and in __metadata__ the configuration, scaler, loss,
 * time axis and fcast version. Written atomically.
 *
 * A model trained with MQLoss also holds the loss's quantiles as
 * neuralforecast's state_dict does: "loss.quantiles" and
 * "valid_loss.quantiles", F32 (Q,), in output order. Written always; on
 * load optional (files from before them) and checked against the loss. */
#ifndef FC_IO_MODEL_FILE_H
#define FC_IO_MODEL_FILE_H

#include "io/safetensors.h"
#include "train/forecaster.h"

/* Bumped whenever the layout or metadata changes incompatibly. */
#define FC_MODEL_FILE_VERSION "1"

fc_status fc_forecaster_save(const fc_forecaster *f, const char *path);

/* Loads a file written by fc_forecaster_save onto backend be. Every error
 * (missing file, corruption, another version, a missing or misshapen
 * tensor) names the file and what to do. An ensemble file (fcast ensemble,
 * train/ensemble_file.h) is FC_ERR_FORMAT saying so and how to use it. */
fc_status fc_forecaster_load(const char *path, fc_backend *be, fc_forecaster *out);

/* The model configuration as compact JSON (caller frees) and back. */
char *fc_model_config_to_json(const fc_model_config *c);
fc_status fc_model_config_from_json(const char *text, const char *where, fc_model_config *c);

/* ---- one forecaster inside a file, under a name prefix ----
 * A model file holds one forecaster under the prefix "" and an ensemble
 * file one per member under "member.<i>." (metadata keys and tensor names
 * alike), written and read by these same functions. */

/* What the writer references until fc_st_writer_write: free it after. */
typedef struct {
    float *host;                    /* the parameters copied off the backend; NULL when borrowed */
    float q[FC_MAX_QUANTILES];      /* MQ's quantiles */
    char *ids_blob;                 /* the conformal scores' ids */
} fc_model_part_keep;

/* Adds f's metadata and tensors under prefix. borrow: the parameters are
 * referenced in place when the backend's memory is the host's (f must then
 * outlive the write); else copied into keep. Conformal scores only under
 * the prefix "" (FC_ERR_INVALID otherwise). */
fc_status fc_model_part_write(fc_st_writer *w, const fc_forecaster *f, const char *prefix, int borrow,
                              fc_model_part_keep *keep);
void fc_model_part_keep_free(fc_model_part_keep *k);

/* The file-level checks: "fcast_file_version" present and the one this
 * fcast reads. */
fc_status fc_model_file_check_version(const fc_safetensors *st, const char *path);

/* Reads the forecaster under prefix onto be: its metadata, then its
 * tensors checked (shapes, finite values, nothing else under the prefix)
 * before the parameters are allocated. */
fc_status fc_model_part_read(const fc_safetensors *st, const char *path, const char *prefix, fc_backend *be,
                             fc_forecaster *out);

#endif
