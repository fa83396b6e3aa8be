/* Model files: safetensors with tensor names and shapes equal to
 * neuralforecast's state_dict() (so `model.load_state_dict(load_file(p))`
 * works in PyTorch), and in __metadata__ the configuration, scaler, loss,
 * time axis and fcast version. Written atomically. */
#ifndef FC_IO_MODEL_FILE_H
#define FC_IO_MODEL_FILE_H

#include "train/forecaster.h"

/* Bumped whenever the layout or metadata changes incompatibly. */
#define FC_MODEL_FILE_VERSION "1"

fc_status fc_forecaster_save(const fc_forecaster *f, const char *path);

/* Loads a file written by fc_forecaster_save onto backend be. Every error
 * (missing file, corruption, another version, a missing or misshapen
 * tensor) names the file and what to do. */
fc_status fc_forecaster_load(const char *path, fc_backend *be, fc_forecaster *out);

/* The model configuration as compact JSON (caller frees) and back. */
char *fc_model_config_to_json(const fc_model_config *c);
fc_status fc_model_config_from_json(const char *text, const char *where, fc_model_config *c);

#endif
