/* A loss and its parameters from their texts, as `fcast train`'s flags
 * and the library's configuration keys give them (--loss, --huber-delta,
 * --quantile, --season, --level, --quantiles, --num-samples): each parameter refused for
 * a loss without it, and checked against the input size. One place for
 * both, so a parameter means and is refused the same way through either;
 * messages name the flags (the API rewrites them as keys). */
#ifndef FC_TRAIN_LOSS_TEXT_H
#define FC_TRAIN_LOSS_TEXT_H

#include "train/forecaster.h"

/* NULL: not given. */
typedef struct {
    const char *huber_delta, *quantile, *season, *level, *quantiles, *num_samples;
    const char *cos_embedding_dim, *concentration0, *concentration1;   /* iq */
} fc_loss_texts;

/* *s: the loss of `kind` with neuralforecast's defaults and the parameters
 * given, for input size L. */
fc_status fc_loss_from_texts(fc_loss_kind kind, const fc_loss_texts *t, size_t L, fc_loss_spec *s);

#endif
