/* What the public handles of include/fcast.h hold (the library's own
 * view; callers see only the names). One file per handle: api_data.c,
 * api_config.c, api_model.c. */
#ifndef FC_API_API_H
#define FC_API_API_H

#include "data/dataset.h"
#include "models/arch_options.h"
#include "train/forecaster.h"

struct fcast_data {
    fc_dataset *ds;
};

/* A configuration: the model kind and sizes, the architecture options as
 * given (applied at training), the training options and the texts the
 * options point to (owned). */
#define FCAST_CONFIG_MAX_TEXTS 64
struct fcast_config {
    fc_model_config model;
    fc_arch_options arch;
    fc_train_options train;
    fc_scaler_kind scaler;
    fc_loss_spec loss;
    int threads;                  /* CPU threads; 0: all cores */
    char *texts[FCAST_CONFIG_MAX_TEXTS];
    size_t n_texts;
};

struct fcast_model {
    fc_backend *be;
    fc_forecaster f;
};

#endif
