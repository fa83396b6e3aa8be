/* fcast train: fit a forecasting model on a long-format CSV and write a
 * model file, through the library (fcast.h) alone: the flags become the
 * configuration's keys, fcast_train_file reads the file as the model
 * needs it and runs (device, memory plan, checkpoints, run log, the model
 * file), and its report is printed. Defaults are neuralforecast's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "stop_signals.h"
#include "train_flags.h"

static const char *SUMMARY =
    "Train a forecasting model on a long-format CSV (unique_id, ds, y) and write it as safetensors.\n"
    "Defaults are neuralforecast's (NHITS, NBEATS, MLP).";

static void print_summary(const fcast_train_report *r, int validated) {
    fprintf(stderr, "trained %zu steps in %.1f s (%.0f windows/s, %s)%s", r->steps, r->seconds,
            r->windows_per_second, r->precision, r->early_stopped ? ", stopped early" : "");
    if (!strcmp(r->precision, "fp16"))
        fprintf(stderr, "; %zu steps skipped by the loss scaler (final scale %g)", r->skipped_steps, r->loss_scale);
    if (validated) fprintf(stderr, "; best validation loss %.5f at step %zu", r->best_val_loss, r->best_step);
    fprintf(stderr, "\nmodel written to %s\n", r->model_file);
}

/* One line: where the run's time went. */
static void print_phases(const fcast_train_report *r) {
    double total = 0;
    for (size_t p = 0; p < FCAST_PHASES; p++) total += r->phase_seconds[p];
    if (!(total > 0)) return;
    fprintf(stderr, "time:");
    for (size_t p = 0; p < FCAST_PHASES; p++)
        fprintf(stderr, " %s %.1f%%", fcast_phase_name(p), 100.0 * r->phase_seconds[p] / total);
    fprintf(stderr, " (of %.2f s)\n", total);
}

/* Resident memory of the run against its plan and limit. */
static void print_memory(const fcast_train_report *r, size_t rss_start) {
    char a[32], b[32], c[32], d[32], e[32], g[32];
    size_t peak = r->resident_peak, grown = peak > rss_start ? peak - rss_start : 0;
    fprintf(stderr, "memory: peak resident %s, %s above the start (plan %s", fcast_bytes_text(peak, a, sizeof a),
            fcast_bytes_text(grown, b, sizeof b), fcast_bytes_text(r->memory_plan, c, sizeof c));
    if (r->memory_limit) fprintf(stderr, ", limit %s", fcast_bytes_text(r->memory_limit, d, sizeof d));
    fprintf(stderr, "); arena %s of %s used\n", fcast_bytes_text(r->arena_used, e, sizeof e),
            fcast_bytes_text(r->arena_size, g, sizeof g));
}

/* One argument for a POSIX shell: plain when safe, else in single quotes
 * with each ' written as '\''. */
static void print_shell_word(const char *w) {
    if (*w && !strpbrk(w, " \t\n'\"$`\\*?[]&;|<>(){}#~!=%^")) {
        fprintf(stderr, " %s", w);
        return;
    }
    fputs(" '", stderr);
    for (; *w; w++) fputs(*w == '\'' ? "'\\''" : (char[]){*w, 0}, stderr);
    fputc('\'', stderr);
}

/* The command line that continues a stopped run: this one, with --resume. */
static void print_resume_command(int argc, char **argv, int first, const char *checkpoint) {
    fprintf(stderr, "resume with:\n  fcast train");
    for (int i = first; i < argc; i++) {
        if (!strcmp(argv[i], "--resume")) { i++; continue; }
        if (!strncmp(argv[i], "--resume=", 9)) continue;
        print_shell_word(argv[i]);
    }
    fputs(" --resume", stderr);
    print_shell_word(checkpoint);
    fputc('\n', stderr);
}

static void print_outcome(const fcast_model *m, fc_status st, const train_flags *a, size_t rss_start, int argc,
                          char **argv, int first) {
    fcast_train_report r;
    if (!m || fcast_model_train_report(m, &r) != FC_OK) return;
    if (st == FC_OK) {
        print_summary(&r, *train_flags_count(a, "val-size") > 0);
        print_phases(&r);
        print_memory(&r, rss_start);
    } else if (st == FC_ERR_INTERRUPTED) {
        int sig = stop_signals_received();   /* 0: the signal went to another rank of the job */
        fprintf(stderr, "stopped after step %zu of %zu (%s); %s so far %s %s\n", r.steps, r.max_steps,
                sig ? strsignal(sig) : "a signal to another rank of the job",
                isnan(r.best_val_loss) ? "the model" : "the best model",
                r.model_file ? "written to" : "could not be written to", *train_flags_text(a, "out"));
        if (r.checkpoint) print_resume_command(argc, argv, first, r.checkpoint);
    }
}

static int train(const train_flags *a, const arg_spec *specs, int argc, char **argv, int first) {
    size_t rss_start = fcast_resident_bytes();
    fcast_config *c = NULL;
    fcast_model *m = NULL;
    train_flags quiet_rank = *a;   /* under mpirun, rank 0 alone speaks */
    if (fcast_job_rank() != 0) {
        quiet_rank.quiet = 1;
        a = &quiet_rank;
    }
    int rc = train_flags_config("train", a, specs, NULL, &c);
    if (rc) return rc;
    fc_status st = fcast_train_file(c, a->data, NULL, NULL, (const volatile int *)stop_signals_install(), &m);
    if (fcast_job_rank() == 0) print_outcome(m, st, a, rss_start, argc, argv, first);
    if (st == FC_ERR_INTERRUPTED && fcast_job_rank() != 0) rc = cli_exit_code(st);   /* rank 0 told the stop */
    else rc = st == FC_OK ? CLI_EXIT_OK : cli_fail("train");
    fcast_model_free(m);
    fcast_config_free(c);
    return rc;
}

/* train's table and the intervals' flags. */
static void train_specs(train_flags *a, arg_spec specs[FC_TRAIN_MAX_SPECS]) {
    train_flags_init(a, specs, 1);
    train_flags_append_intervals(a, specs);
}

int cmd_train(int argc, char **argv, int first) {
    train_flags a;
    arg_spec specs[FC_TRAIN_MAX_SPECS];
    train_specs(&a, specs);
    int rc = args_parse("train", SUMMARY, specs, argc, argv, first);
    if (rc) return args_exit(rc);
    return train(&a, specs, argc, argv, first);
}
