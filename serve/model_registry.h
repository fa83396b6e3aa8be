/* The models fcast serve answers for: every *.safetensors file of the
 * models directory (a model or an ensemble file: served_model.h), served
 * under its file name without the extension.
 *
 * A request holds its model by a reference (fc_registry_acquire ...
 * fc_registry_release), so that a model swapped or unloaded while requests
 * use it (hot reload, issue 12's lifecycle) is freed only when the last of
 * them lets go. The forecaster itself is not thread-safe (its buffers are
 * reused by every forecast): forecasts run on the batcher's thread only. */
#ifndef FC_SERVE_MODEL_REGISTRY_H
#define FC_SERVE_MODEL_REGISTRY_H

#include <stddef.h>
#include "api/serve_engine.h"
#include "served_model.h"

typedef struct fc_model_registry fc_model_registry;

/* Loads every model file of dir on backend be, each with room for batches
 * of `batch` series (fc_model_reserve: inference runs in chunks no larger
 * than the room a model has, so without it a model first asked for one
 * series would forecast every later batch one series at a time). A file
 * that fails to load, or whose name is not a model name, is reported on
 * stderr and left out (the others serve); FC_ERR_IO when dir cannot be
 * read, FC_ERR_INVALID when it holds no model file at all. */
fc_status fc_registry_open(const char *dir, fc_backend *be, size_t batch, fc_model_registry **out);
void fc_registry_close(fc_model_registry *r);

/* The model called name, with a reference the caller releases; NULL when
 * none is loaded under that name. */
fc_served_model *fc_registry_acquire(fc_model_registry *r, const char *name);
void fc_registry_release(fc_model_registry *r, fc_served_model *m);

/* Loads dir/<name>.safetensors beside the model serving under that name
 * (if any), then swaps it in: requests already holding the old model finish
 * on it, later ones get the new one. FC_ERR_IO when there is no such file
 * (the message says so); the loader's error when it does not load, and the
 * old model keeps serving. Not concurrent with forecasts on the same
 * backend: the caller runs it under fc_batcher_exclusive. */
fc_status fc_registry_load(fc_model_registry *r, const char *dir, const char *name);
/* Stops serving name: 1, or 0 when no model has that name. Requests
 * holding it finish on it. */
int fc_registry_unload(fc_model_registry *r, const char *name);

/* What a rescan did to one model: loaded (new or changed file, swapped
 * in), unloaded (file gone), or failed (error: the old model, if any,
 * keeps serving). */
typedef enum { FC_RESCAN_LOADED, FC_RESCAN_UNLOADED, FC_RESCAN_FAILED } fc_rescan_event;
typedef void (*fc_rescan_report)(void *ctx, const char *name, fc_rescan_event what, const char *error);
/* Re-reads dir (SIGHUP): new files and files whose size or modification
 * time changed are loaded (fc_registry_load), models whose file is gone
 * are unloaded; unchanged ones are left alone. Under fc_batcher_exclusive. */
void fc_registry_rescan(fc_model_registry *r, const char *dir, fc_rescan_report report, void *ctx);

/* Runs fn(arg) where freeing a model is safe: while no forecast uses the
 * backend (the service passes fc_batcher_exclusive's guard). Without one,
 * models are freed where their last reference goes. */
typedef void (*fc_registry_guard)(void *ctx, void (*fn)(void *arg), void *arg);
void fc_registry_set_guard(fc_model_registry *r, fc_registry_guard guard, void *ctx);

/* Models loaded, and the name of the i-th in name order (copied into buf). */
size_t fc_registry_count(fc_model_registry *r);
int fc_registry_name_at(fc_model_registry *r, size_t i, char *buf, size_t cap);

/* A name a request may ask for: 1..FC_MODEL_NAME_MAX-1 bytes of letters,
 * digits, '.', '_' and '-', not starting with '.'. */
int fc_model_name_valid(const char *name);

#endif
