/* Progress reporting for training (see progress.h). */
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "core/memory_stats.h"
#include "train/progress.h"

void fc_progress_init(fc_progress *p, int verbose, size_t total_steps, size_t first_step, const char *loss_unit) {
    p->mode = verbose <= 0 ? 0 : (verbose >= 2 || isatty(2)) ? 2 : 1;
    p->total = total_steps;
    p->every = total_steps >= 20 ? total_steps / 20 : 1;
    p->first = first_step;
    p->t0 = fc_now();
    p->loss_unit = loss_unit;
}

/* "1h02m03s", "4m05s", "12s". */
static void format_duration(char *buf, size_t cap, double seconds) {
    long s = isfinite(seconds) && seconds > 0 ? (long)(seconds + 0.5) : 0;
    if (s >= 3600) snprintf(buf, cap, "%ldh%02ldm%02lds", s / 3600, s / 60 % 60, s % 60);
    else if (s >= 60) snprintf(buf, cap, "%ldm%02lds", s / 60, s % 60);
    else snprintf(buf, cap, "%lds", s);
}

/* Elapsed time and the remaining time at this run's pace so far. */
static void format_times(char *buf, size_t cap, const fc_progress *p, size_t step) {
    double elapsed = fc_now() - p->t0;
    double per_step = step > p->first ? elapsed / (double)(step - p->first) : 0;
    char e[24], r[24];
    format_duration(e, sizeof e, elapsed);
    format_duration(r, sizeof r, per_step * (double)(p->total - step));
    snprintf(buf, cap, "elapsed %s  eta %s", e, r);
}

/* The optional parts of a step line: loss scale and skips (fp16), grad norm. */
static void format_extras(char *buf, size_t cap, const fc_step_status *s) {
    int n = 0;
    buf[0] = 0;
    if (s->loss_scale > 0)
        n = snprintf(buf, cap, "  scale %g  skipped %zu", (double)s->loss_scale, s->skipped);
    if (!isnan(s->grad_norm) && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, "  grad-norm %.3g", s->grad_norm);
}

void fc_progress_step(fc_progress *p, const fc_step_status *s) {
    char extras[96], times[64];
    if (p->mode == 0) return;
    format_extras(extras, sizeof extras, s);
    if (p->mode == 2) {
        int width = 30, done = (int)(width * s->step / (p->total ? p->total : 1));
        format_times(times, sizeof times, p, s->step);
        fprintf(stderr, "\r[%.*s%*s] step %zu/%zu  train loss (%s) %.5f  lr %.2e  %.0f windows/s%s  %s ", done,
                "==============================", width - done, "", s->step, p->total, p->loss_unit, s->loss, s->lr,
                s->windows_per_s, extras, times);
        fflush(stderr);
    } else if (s->step % p->every == 0 || s->step == p->total) {
        char now[32], peak[32];   /* resident memory, read only when a line is printed */
        format_times(times, sizeof times, p, s->step);
        fprintf(stderr, "step %zu/%zu  train loss (%s) %.5f  lr %.2e  %.0f windows/s%s  mem %s (peak %s)  %s\n",
                s->step, p->total, p->loss_unit, s->loss, s->lr, s->windows_per_s, extras,
                fc_bytes_text(fc_rss_current(), now, sizeof now), fc_bytes_text(fc_rss_peak(), peak, sizeof peak),
                times);
    }
}

void fc_progress_skip(fc_progress *p, size_t step, float new_scale) {
    if (p->mode == 0) return;
    if (p->mode == 2) fputc('\n', stderr);
    fprintf(stderr, "step %zu: inf/NaN gradients in fp16, step skipped; loss scale now %g\n", step,
            (double)new_scale);
}

void fc_progress_validation(fc_progress *p, size_t step, double val_loss, int improved) {
    if (p->mode == 0) return;
    if (p->mode == 2) fputc('\n', stderr);
    fprintf(stderr, "step %zu: validation loss (original units) %.5f%s\n", step, val_loss, improved ? " (best)" : "");
}

void fc_progress_done(fc_progress *p) {
    if (p->mode == 2) fputc('\n', stderr);
}
