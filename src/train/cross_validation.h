/* Cross-validation with neuralforecast's semantics (NeuralForecast.
 * cross_validation and utilsforecast's cv_times): n_windows forecast
 * origins per series, step_size points apart, the last window ending at
 * the series' end, so test_size = h + step_size * (n_windows - 1) points at
 * the end of every series are forecast. Window i's cutoff (the last point
 * its forecast may see) is the series' point len - test_size + i * step - 1;
 * a series too short to have that point has no window i (cv_times' use_series).
 *
 * Without refit, one model is trained with the last test_size points held
 * out (after its validation part, as neuralforecast's fit(test_size=...))
 * and forecasts every origin in one pass. With refit k, a fresh model is
 * trained at windows 0, k, 2k, ... on the points up to that window's cutoff
 * and forecasts its own window and the k - 1 after it (neuralforecast's
 * refit=True is k = 1). */
#ifndef FC_TRAIN_CROSS_VALIDATION_H
#define FC_TRAIN_CROSS_VALIDATION_H

#include "train/forecaster.h"

typedef struct {
    size_t h, n_windows, step_size;
    size_t refit;                 /* 0: train once; k: train again every k windows */
} fc_cv_spec;

/* One forecast origin: series, window index, cutoff (a point index in the
 * series' own axis). */
typedef struct {
    uint32_t series, window;
    int64_t cutoff;
} fc_cv_origin;

size_t fc_cv_test_size(const fc_cv_spec *cv);

/* Checks the spec (n_windows >= 1, step_size >= 1, h >= 1, no overflow). */
fc_status fc_cv_check(const fc_cv_spec *cv);

/* The origins in output order (series in dataset order, then windows in
 * time order) into out (room for n_series * n_windows; may be NULL);
 * returns their count. */
size_t fc_cv_origins(const fc_dataset *ds, const fc_cv_spec *cv, fc_cv_origin *out);

/* Trains a fresh forecaster with the last `test_size` points of every
 * series held out; the caller owns it (fc_forecaster_free) once returned. */
typedef fc_status (*fc_cv_fit_fn)(void *ctx, const fc_dataset *ds, size_t test_size, fc_forecaster *out);

/* What a fresh training of a cross-validation needs: the model, its
 * training options, scaler and loss, a memory limit (0: none) and the
 * backend it runs on. */
typedef struct {
    fc_model_config cfg;
    fc_train_options o;
    fc_scaler_kind scaler;
    fc_loss_spec loss;
    size_t memory_limit;
    fc_backend *be;
} fc_cv_training;

/* Trains a fresh forecaster as t says with the last test_size points held
 * out (an fc_cv_fit_fn's work); the caller frees *f whatever the status. */
fc_status fc_cv_fit(const fc_cv_training *t, const fc_dataset *ds, size_t test_size, fc_forecaster *f,
                    fc_train_summary *sum);

/* Forecasts of every origin into out (n_origins, h, n_outputs of the
 * trained model; *width set to h * n_outputs on the first fit), training
 * as the spec says. out is allocated here (free()). */
fc_status fc_cross_validate(const fc_dataset *ds, const fc_cv_spec *cv, const fc_cv_origin *origins, size_t n,
                            fc_cv_fit_fn fit, void *ctx, float **out, size_t *width);

/* The trainings fc_cross_validate runs for cv: one per refit group. */
size_t fc_cv_trainings(const fc_cv_spec *cv);

/* Training g of them alone (0 .. fc_cv_trainings - 1), as fc_cross_validate
 * runs it: a fresh forecaster from fit, its forecasts of its windows into
 * their rows of out (n, width), which the caller allocated (width = h x
 * the forecast's outputs). Trainings write disjoint rows, so several may
 * run side by side (train/member_pool.h), each fit on its own backend. */
fc_status fc_cv_run_training(const fc_dataset *ds, const fc_cv_spec *cv, const fc_cv_origin *o, size_t n, size_t g,
                             fc_cv_fit_fn fit, void *ctx, float *out, size_t width);

/* A cross-validation's trainings dealt to the ranks of an MPI job
 * (dist/dist.h): a call's g-th training (0, 1, ... in window order) is the
 * job's training first + g, run by rank (first + g) % ranks. */
typedef struct {
    size_t first;
    int rank, ranks;
} fc_cv_deal;

/* fc_cross_validate for this rank's trainings alone (deal NULL: all): the
 * rows of the others' origins are left zero, all bits, for
 * fc_dist_merge. *out stays NULL when none is this rank's. */
fc_status fc_cross_validate_dealt(const fc_dataset *ds, const fc_cv_spec *cv, const fc_cv_origin *origins, size_t n,
                                  fc_cv_fit_fn fit, void *ctx, const fc_cv_deal *deal, float **out, size_t *width);

#endif
