/* GradScaler's update rule (see loss_scaler.h), on the host: the decision
 * needs one flag per step, which the trainer already reads back. */
#include <math.h>

#include "train/loss_scaler.h"

void fc_loss_scaler_init(fc_loss_scaler *s, int enabled) {
    *s = (fc_loss_scaler){.enabled = enabled, .scale = enabled ? 65536.0f : 1.0f,
                          .growth_factor = 2.0f, .backoff_factor = 0.5f, .growth_interval = 2000};
}

int fc_loss_scaler_update(fc_loss_scaler *s, int found_inf) {
    if (!s->enabled) return 0;
    if (found_inf) {
        s->scale *= s->backoff_factor;
        s->growth_tracker = 0;
        s->skipped++;
        return 1;
    }
    long clean = s->growth_tracker + 1;
    if (clean == s->growth_interval) {
        float grown = s->scale * s->growth_factor;
        if (isfinite(grown)) s->scale = grown;
        s->growth_tracker = 0;
    } else {
        s->growth_tracker = clean;
    }
    return 0;
}
