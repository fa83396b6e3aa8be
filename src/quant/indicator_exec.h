/* Internal to the indicator library: how one spec is executed on one segment
 * (scalar: the shared body of kernels/indicator_segment.h) or on
 * FC_IND_LANES segments side by side in SIMD lanes (indicator_lanes.c). A
 * segment is a stretch of one series that starts on a non-NaN value (see
 * indicators.c). */
#ifndef FC_QUANT_INDICATOR_EXEC_H
#define FC_QUANT_INDICATOR_EXEC_H

#include "kernels/indicator_segment.h"
#include "quant/indicators.h"

#define FC_IND_LANES 8

/* Checks a spec filled by hand (kind and TA-Lib's parameter ranges). */
fc_status fc_ind_spec_check(const fc_ind_spec *spec);

void fc_ind_plan_make(const fc_ind_spec *spec, fc_ind_plan *plan);

/* Segment x[0..n) -> out[j][0..n) for j < n_out. Returns 1 if at least one
 * value was produced (n > lookback), 0 if the segment is all NaN. The body
 * is fc_ind_segment_run (kernels/indicator_segment.h); this checks the plan's kind first. */
int fc_ind_segment(const fc_ind_plan *plan, const double *x, long n, double *const *out);

/* The same for FC_IND_LANES segments at once; every n[l] must exceed the
 * lookback. streaming: write outputs with non-temporal stores. */
void fc_ind_segments_lanes(const fc_ind_plan *plan, const double *const x[FC_IND_LANES],
                           const long n[FC_IND_LANES], double *const out[FC_IND_LANES][FC_IND_MAX_OUTPUTS],
                           int streaming);

#endif
