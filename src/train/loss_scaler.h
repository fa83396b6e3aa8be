/* Dynamic loss scaling for fp16 training, with PyTorch's GradScaler
 * semantics (torch.amp.GradScaler defaults and _amp_update_scale_):
 *
 *   the loss gradient is multiplied by `scale` (initially 2^16) so small
 *   gradients survive fp16; after backward the gradients are checked:
 *   - any inf or NaN: the optimizer step is skipped, scale *= 0.5, and the
 *     count of clean steps restarts;
 *   - otherwise the step is taken (gradients unscaled first, before any
 *     clipping), and after 2000 consecutive clean steps scale *= 2 (unless
 *     that would overflow fp32, in which case the scale stays).
 *
 * bf16 has fp32's range and needs no scaling (as torch.autocast with bf16);
 * a disabled scaler keeps scale 1 and never skips. */
#ifndef FC_TRAIN_LOSS_SCALER_H
#define FC_TRAIN_LOSS_SCALER_H

#include <stddef.h>

typedef struct {
    int enabled;
    float scale;              /* 65536 */
    float growth_factor;      /* 2 */
    float backoff_factor;     /* 0.5 */
    long growth_interval;     /* 2000 */
    long growth_tracker;      /* consecutive clean steps since the last change */
    size_t skipped;           /* steps skipped so far */
} fc_loss_scaler;

void fc_loss_scaler_init(fc_loss_scaler *s, int enabled);

/* Records the outcome of one backward; returns 1 when the optimizer step
 * must be skipped (found_inf on an enabled scaler), else 0. */
int fc_loss_scaler_update(fc_loss_scaler *s, int found_inf);

#endif
