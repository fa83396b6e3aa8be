/* When a run stops, and when it writes a checkpoint: a loss that is no
 * longer finite (or fp16 steps that keep overflowing) ends it with the
 * advice that fits; validation checks keep the best weights and stop it
 * when patience runs out (early stopping); periodic checkpoints come every
 * checkpoint_every steps and at validation checks, and a failed one costs
 * only itself; a signal stops every rank after the same step, with a
 * checkpoint. */
#include <math.h>
#include <stdio.h>

#include "core/error.h"
#include "dist/dist.h"
#include "train/data_hash.h"
#include "train/run_log.h"
#include "train/trainer_internal.h"

/* fp16: this many skipped steps in a row means the forward pass itself
 * overflows (the loss scale is down to 2^-14), which no scale can fix. */
#define FC_MAX_CONSECUTIVE_SKIPS 30
#define FC_FP16_RANGE "values exceed fp16's range (65504); "

/* What a checkpoint saves and restores, with the data's hashes (one pass
 * over the data, so only runs that write or read a checkpoint pay for it;
 * a shard's job hashes together, in trainer_hash_shards, train_dist.c). */
fc_checkpoint_ref trainer_checkpoint_ref(trainer *t) {
    if (!t->data_hashed) t->data_hashes = fc_data_hashes_of(t->ds);
    t->data_hashed = 1;
    return (fc_checkpoint_ref){t->f, t->ds, t->o, &t->opt, t->best, &t->loop, t->data_hashes};
}

/* Scaling the data is advised only where no scaler is on: with one, the
 * data is scaled already and --scaler standard would change nothing. */
static const char *scale_advice(const trainer *t, const char *advice) {
    return t->f->scaler == FC_SCALER_IDENTITY ? advice : "";
}

/* Checks that must stop a run, after a step. */
fc_status trainer_check_step(const trainer *t, size_t steps, int skipped) {
    const fc_train_options *o = t->o;
    double loss = t->loop.last_train_loss;
    const char *fp16_scale = scale_advice(t, "scale the data (--scaler standard) or ");
    if (!isfinite(loss) && o->precision == FC_PREC_FP16)
        return fc_error(FC_ERR_INVALID, "fp16: the forward pass overflowed at step %zu (loss %g): " FC_FP16_RANGE
                        "%suse --precision bf16", steps, loss, fp16_scale);
    if (!isfinite(loss))
        return fc_error(FC_ERR_INVALID, "training diverged at step %zu: the loss is %g; lower --lr (%g)%s", steps,
                        loss, o->learning_rate, scale_advice(t, " or scale the data (--scaler standard)"));
    if (skipped && t->loop.skips_in_a_row >= FC_MAX_CONSECUTIVE_SKIPS)
        return fc_error(FC_ERR_INVALID, "fp16: %ld steps in a row had inf/NaN gradients (loss scale now %g): "
                        FC_FP16_RANGE "%suse --precision bf16", t->loop.skips_in_a_row,
                        (double)t->opt.scaler.scale, fp16_scale);
    return FC_OK;
}

/* Validation with early-stopping bookkeeping; sets *stop when patience ran out. */
fc_status trainer_validation_check(trainer *t, fc_progress *p, int *stop) {
    fc_model *m = t->f->model;
    fc_loop_state *l = &t->loop;
    double v;
    FC_TRY(fc_validator_run(&t->validator, t->f, t->ds, &t->spec, &v));
    /* A non-finite loss never counts as an improvement (Lightning's check_finite). */
    int improved = isfinite(v) && (isnan(l->best_val_loss) || v < l->best_val_loss);
    if (improved) {
        l->best_val_loss = v;
        l->best_step = l->step;
        l->bad_checks = 0;
        m->be->axpby_rows(m->be, t->best, m->n_state, 1.0f, m->params, m->n_state, 0.0f, 1, m->n_state);
    } else {
        l->bad_checks++;
    }
    fc_progress_validation(p, l->step, v, improved);
    if (t->o->log) fc_run_log_validation(t->o->log, l->step, v, improved, l->best_val_loss, l->best_step);
    *stop = t->o->early_stop_patience > 0 && l->bad_checks >= t->o->early_stop_patience;
    return FC_OK;
}

static fc_status write_checkpoint(trainer *t, fc_train_summary *s) {
    t->loop.sampler_epoch = t->drawn_epoch;
    t->loop.sampler_cursor = t->drawn_cursor;
    fc_checkpoint_ref ref = trainer_checkpoint_ref(t);
    double t0 = fc_now();
    size_t bytes = 0;
    FC_TRY(fc_checkpoint_write(&ref, t->o->checkpoint_path, &bytes));
    double seconds = fc_now() - t0;
    t->step_times.seconds[FC_PHASE_CHECKPOINT_IO] += seconds;
    s->checkpoints++;
    s->checkpoint = t->o->checkpoint_path;
    s->checkpoint_step = t->loop.step;
    if (t->o->log) fc_run_log_checkpoint(t->o->log, t->loop.step, t->o->checkpoint_path, bytes, seconds);
    return FC_OK;
}

void fc_train_good_checkpoint(const fc_train_options *o, const fc_train_summary *s, char *buf, size_t cap) {
    if (s->checkpoints) snprintf(buf, cap, "%s still holds step %zu", o->checkpoint_path, s->checkpoint_step);
    else if (o->resume_path) snprintf(buf, cap, "%s, resumed from, holds step %zu", o->resume_path, s->start_step);
    else snprintf(buf, cap, "no checkpoint of this run was written");
}

/* A periodic checkpoint that cannot be written (a full disk, no memory for
 * its host copy) costs the run that checkpoint alone: the last good one
 * stays whole (written atomically), training goes on and the next one due
 * tries again. Said at the first of a series of failures and when one is
 * written again. Any other failure (a device fault, a state that is not
 * finite) ends the run, naming the good checkpoint. */
fc_status trainer_periodic_checkpoint(trainer *t, fc_train_summary *s) {
    int was_failing = t->checkpoint_failing;
    fc_status st = write_checkpoint(t, s);
    t->checkpoint_failing = st != FC_OK;
    if (st == FC_OK && was_failing)
        fprintf(stderr, "fcast: the checkpoint after step %zu was written to %s\n", t->loop.step,
                t->o->checkpoint_path);
    if (st == FC_OK) return FC_OK;
    char why[FC_ERROR_CAP], good[FC_ERROR_CAP];
    snprintf(why, sizeof why, "%s", fc_last_error());
    fc_train_good_checkpoint(t->o, s, good, sizeof good);
    if (st != FC_ERR_IO && st != FC_ERR_MEMORY) return fc_error(st, "%s; %s", why, good);
    if (!was_failing)
        fprintf(stderr, "warning: the checkpoint after step %zu could not be written (%s); %s; training goes on, "
                "trying again at each checkpoint due\n", t->loop.step, why, good);
    fc_error_clear();
    return FC_OK;
}

/* A periodic checkpoint is due every checkpoint_every steps and at every
 * validation check (when asked for: checkpoint_at_validation). */
int trainer_checkpoint_due(const fc_train_options *o, size_t step, int validated) {
    if (!o->checkpoint_path) return 0;
    return (o->checkpoint_every && step % o->checkpoint_every == 0) || (validated && o->checkpoint_at_validation);
}

/* A stop asked for by a signal, on any rank of a job: every rank stops
 * after the same step, or one would wait for the others' gradients. */
int trainer_stop_requested(const trainer *t) {
    int asked = t->o->stop_requested && *t->o->stop_requested;
    return t->ranks > 1 ? fc_dist_any(asked) : asked;
}

/* A stop asked for by a signal: the checkpoint, then FC_ERR_INTERRUPTED,
 * also when the checkpoint cannot be written (a full disk), so the caller
 * still writes the model so far; the message says which checkpoint to
 * resume from, if any. */
fc_status trainer_stop_with_checkpoint(trainer *t, fc_train_summary *s) {
    const fc_train_options *o = t->o;
    size_t step = t->loop.step;
    /* a shard's job hashes its data together, every rank, before rank 0 writes */
    if (t->sharded && t->stop_checkpoint && !t->data_hashed) FC_TRY(trainer_hash_shards(t));
    if (!o->checkpoint_path)
        return fc_error(FC_ERR_INTERRUPTED, "stopped by a signal after step %zu of %zu; no checkpoint (none asked "
                        "for)", step, o->max_steps);
    if (write_checkpoint(t, s) == FC_OK)
        return fc_error(FC_ERR_INTERRUPTED, "stopped by a signal after step %zu of %zu; checkpoint written to %s",
                        step, o->max_steps, o->checkpoint_path);
    char why[512], good[512];
    snprintf(why, sizeof why, "%s", fc_last_error());
    fc_train_good_checkpoint(t->o, s, good, sizeof good);
    if (!s->checkpoints) s->checkpoint = NULL;
    return fc_error(FC_ERR_INTERRUPTED, "stopped by a signal after step %zu of %zu; its checkpoint could not be "
                    "written (%s); %s", step, o->max_steps, why, good);
}
