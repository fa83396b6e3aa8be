/* Progress reporting for training (see progress.h). */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "train/progress.h"

double fc_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void fc_progress_init(fc_progress *p, int verbose, size_t total_steps) {
    p->mode = verbose <= 0 ? 0 : (verbose >= 2 || isatty(2)) ? 2 : 1;
    p->total = total_steps;
    p->every = total_steps >= 20 ? total_steps / 20 : 1;
}

void fc_progress_step(fc_progress *p, size_t step, double loss, double lr, double wps) {
    if (p->mode == 2) {
        int width = 30, done = (int)(width * step / (p->total ? p->total : 1));
        fprintf(stderr, "\r[%.*s%*s] step %zu/%zu  loss %.5f  lr %.2e  %.0f windows/s ",
                done, "==============================", width - done, "", step, p->total, loss, lr, wps);
        fflush(stderr);
    } else if (p->mode == 1 && (step % p->every == 0 || step == p->total)) {
        fprintf(stderr, "step %zu/%zu  loss %.5f  lr %.2e  %.0f windows/s\n", step, p->total, loss, lr, wps);
    }
}

void fc_progress_validation(fc_progress *p, size_t step, double val_loss, int improved) {
    if (p->mode == 0) return;
    if (p->mode == 2) fputc('\n', stderr);
    fprintf(stderr, "step %zu: validation loss %.5f%s\n", step, val_loss, improved ? " (best)" : "");
}

void fc_progress_done(fc_progress *p) {
    if (p->mode == 2) fputc('\n', stderr);
}
