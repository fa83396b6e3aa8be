/* Progress of a job of several trainings (see job_progress.h). */
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "job_progress.h"

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void job_progress_init(job_progress *p, const char *command, const char *unit, size_t total, int quiet) {
    *p = (job_progress){.command = command, .unit = unit, .total = total, .trainings_per_unit = 1};
    p->mode = quiet ? 0 : isatty(2) ? 2 : 1;
    p->next_percent = 5;
    p->t0 = now_seconds();
}

/* "1h02m03s", "4m05s", "12s", as fcast train's progress writes them. */
static void format_duration(char *buf, size_t cap, double seconds) {
    long s = isfinite(seconds) && seconds > 0 ? (long)(seconds + 0.5) : 0;
    if (s >= 3600) snprintf(buf, cap, "%ldh%02ldm%02lds", s / 3600, s / 60 % 60, s % 60);
    else if (s >= 60) snprintf(buf, cap, "%ldm%02lds", s / 60, s % 60);
    else snprintf(buf, cap, "%lds", s);
}

/* The fraction of the job done, 0 to 1: units, with the current one's
 * trainings and steps; by the budget's time when the units are unknown. */
static double fraction_done(const job_progress *p, double elapsed) {
    if (!p->total) return p->budget > 0 ? fmin(elapsed / p->budget, 1) : 0;
    double training = p->max_steps ? (double)p->step / (double)p->max_steps : 0;
    double unit = ((double)p->trainings + training) / (double)p->trainings_per_unit;
    return fmin(((double)p->done + fmin(unit, 1)) / (double)p->total, 1);
}

/* The time left at the pace so far, within the budget; "?" before any. */
static void format_eta(char *buf, size_t cap, const job_progress *p, double elapsed, double f) {
    double left = f > 0 ? elapsed * (1 - f) / f : NAN;
    if (p->budget > 0) left = isnan(left) ? p->budget - elapsed : fmin(left, p->budget - elapsed);
    if (isnan(left)) snprintf(buf, cap, "?");
    else format_duration(buf, cap, left);
}

/* "3/6 trainings  step 12/30" (the units' total when known). */
static void format_units(char *buf, size_t cap, const job_progress *p) {
    int n = p->total ? snprintf(buf, cap, "%zu/%zu %ss", p->done, p->total, p->unit)
                     : snprintf(buf, cap, "%zu %ss", p->done, p->unit);
    if (p->max_steps && p->done < (p->total ? p->total : (size_t)-1) && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, "  step %zu/%zu", p->step, p->max_steps);
}

static void print(job_progress *p, int final) {
    double elapsed = now_seconds() - p->t0, f = final ? 1 : fraction_done(p, elapsed);
    int percent = (int)floor(100 * f);
    if (p->mode == 1 && !final && (percent < p->next_percent || percent >= 100)) return;   /* finish says 100% */
    char units[64], e[24], eta[24];
    format_units(units, sizeof units, p);
    format_duration(e, sizeof e, elapsed);
    format_eta(eta, sizeof eta, p, elapsed, f);
    if (p->mode == 2) {
        int width = 30, bar = (int)(width * f);
        fprintf(stderr, "\r%s: [%.*s%*s] %3d%%  %s  elapsed %s  eta %s ", p->command, bar,
                "==============================", width - bar, "", percent, units, e, eta);
        p->bar_open = 1;
        /* a training's last step: the library or the caller may print a line next */
        if (final || (p->max_steps && p->step == p->max_steps)) job_progress_break(p);
        fflush(stderr);
        return;
    }
    char rate[48] = "";
    if (p->windows > 0 && elapsed > 0) snprintf(rate, sizeof rate, "  %.0f windows/s", p->windows / elapsed);
    fprintf(stderr, "%s: %d%%  %s%s  elapsed %s  eta %s\n", p->command, percent, units, rate, e, eta);
    p->next_percent = percent / 5 * 5 + 5;
}

void job_progress_break(job_progress *p) {
    if (p->bar_open) fputc('\n', stderr);
    p->bar_open = 0;
}

void job_progress_on_step(void *user, size_t step, size_t max_steps, double train_loss) {
    (void)train_loss;
    job_progress *p = user;
    if (p->step && step <= p->step) {   /* a new training began */
        if (p->unit_is_training) p->done++;
        else p->trainings++;
    }
    p->step = step;
    p->max_steps = max_steps;
    if (p->mode) print(p, 0);
}

void job_progress_unit_done(job_progress *p) {
    p->done++;
    p->trainings = 0;
    p->step = p->max_steps = 0;
    if (p->mode && (!p->total || p->done < p->total)) print(p, 0);
}

void job_progress_add_windows(job_progress *p, double windows) { p->windows += windows; }

void job_progress_finish(job_progress *p) {
    if (p->unit_is_training && p->step) p->done++;
    else p->total = p->done;
    p->step = p->max_steps = 0;
    if (p->mode) print(p, 1);
}
