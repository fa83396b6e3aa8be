/* Forecast scores (src/eval/scores.c), the column roles of a
 * cross-validation file (score_columns.c) and the baselines at a cutoff
 * (metrics.c), against values worked out by hand. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "core/error.h"
#include "eval/metrics.h"
#include "eval/score_columns.h"
#include "eval/scores.h"

static void test_point_scores(void) {
    /* y = 1, 2, 0 and yhat = 2, 2, 1: errors 1, 0, 1 */
    fc_point_sums s = {0};
    fc_point_sums_add(&s, 1, 2);
    fc_point_sums_add(&s, 2, 2);
    fc_point_sums_add(&s, 0, 1);
    fc_point_scores p = fc_point_scores_of(&s);
    CHECK_CLOSE(p.mae, 2.0 / 3.0, 1e-15, 0);
    CHECK_CLOSE(p.mse, 2.0 / 3.0, 1e-15, 0);
    CHECK_CLOSE(p.rmse, sqrt(2.0 / 3.0), 1e-15, 0);
    /* sMAPE terms 1/3, 0/4, 1/1: mean 4/9, x200 */
    CHECK_CLOSE(p.smape200, 800.0 / 9.0, 1e-12, 0);
    /* MAPE leaves y = 0 out: (1/1 + 0/2) / 2 = 50 % */
    CHECK_CLOSE(p.mape_pct, 50.0, 1e-12, 0);

    fc_point_sums z = {0};
    fc_point_sums_add(&z, 0, 0);   /* 0/0: sMAPE term 0, no MAPE point */
    p = fc_point_scores_of(&z);
    CHECK(p.smape200 == 0.0);
    CHECK(isnan(p.mape_pct));
    fc_point_sums none = {0};
    CHECK(isnan(fc_point_scores_of(&none).mae));
}

static void test_quantile_scores(void) {
    CHECK_CLOSE(fc_quantile_loss(0.9, 10, 8), 1.8, 1e-15, 0);   /* under-forecast: q * 2 */
    CHECK_CLOSE(fc_quantile_loss(0.9, 8, 10), 0.2, 1e-15, 0);   /* over-forecast: (1 - q) * 2 */
    CHECK(fc_quantile_loss(0.5, 3, 3) == 0.0);
    /* one quantile, two points, losses 1.8 + 0.2, sum |y| = 18:
     * 2 * (2.0 / 2) * 2 / 18 */
    double ql[1] = {2.0};
    CHECK_CLOSE(fc_scaled_crps(ql, 1, 2, 18), 2.0 / 9.0, 1e-15, 0);
    /* two quantiles: the mean of their mean losses (1 and 3) */
    double ql2[2] = {2.0, 6.0};
    CHECK_CLOSE(fc_scaled_crps(ql2, 2, 2, 10), 2.0 * 2.0 * 2.0 / 10.0, 1e-15, 0);
    CHECK(isnan(fc_scaled_crps(ql, 0, 2, 18)));
    CHECK(fc_interval_covers(1, 1, 2) && fc_interval_covers(2, 1, 2));   /* both ends inclusive */
    CHECK(!fc_interval_covers(2.5, 1, 2));
    CHECK_CLOSE(fc_level_lo_quantile(80), 0.1, 1e-15, 0);
    CHECK_CLOSE(fc_level_hi_quantile(95), 0.975, 1e-15, 0);
    CHECK_CLOSE(fc_mase(3, 2), 1.5, 1e-15, 0);
    CHECK(isnan(fc_mase(3, 0)));
}

static void test_column_roles(void) {
    size_t base;
    double v;
    CHECK(fc_score_column_role("NHITS", &base, &v) == FC_ROLE_POINT && base == 5);
    CHECK(fc_score_column_role("NHITS-median", &base, &v) == FC_ROLE_MEDIAN && base == 5 && v == 0.5);
    CHECK(fc_score_column_role("NHITS-lo-80", &base, &v) == FC_ROLE_LO && base == 5 && v == 80);
    CHECK(fc_score_column_role("NHITS-hi-80.0", &base, &v) == FC_ROLE_HI && base == 5 && v == 80);
    CHECK(fc_score_column_role("NHITS1_ql0.9", &base, &v) == FC_ROLE_QL && base == 6 && v == 0.9);
    CHECK(fc_score_column_role("my-lo-model", &base, &v) == FC_ROLE_POINT && base == 11);
    CHECK(fc_score_column_role("A_ql1.5", &base, &v) == FC_ROLE_POINT);   /* not a quantile */
    CHECK(fc_score_column_role("A-lo-100", &base, &v) == FC_ROLE_POINT);  /* not a level */
}

static void test_layout(void) {
    char *names[] = {"unique_id", "ds", "cutoff", "NHITS-hi-80", "NHITS", "NHITS-lo-80", "NHITS-median",
                     "MLP_ql0.9", "y", "NHITS-lo-95"};
    fc_score_layout l;
    CHECK(fc_score_layout_build("cv.csv", names, 10, 1, &l) == FC_OK);
    CHECK(l.col_cutoff == 2 && l.col_y == 8 && l.n_models == 2);
    const fc_score_model *n = &l.models[fc_score_layout_find(&l, "NHITS")];
    CHECK(n->point_col == 4);
    CHECK(n->n_q == 4 && n->q[0] == 0.025 && n->q[1] == 0.1 && n->q[2] == 0.5 && n->q[3] == 0.9);
    CHECK(n->n_lv == 1 && n->level[0] == 80 && n->lo_col[0] == 5 && n->hi_col[0] == 3);   /* 95: no hi */
    const fc_score_model *m = &l.models[fc_score_layout_find(&l, "MLP")];
    CHECK(m->point_col == FC_EVAL_NO_COLUMN && m->n_q == 1);
    fc_score_layout_free(&l);

    char *median_only[] = {"unique_id", "ds", "cutoff", "y", "M-median"};
    CHECK(fc_score_layout_build("cv.csv", median_only, 5, 1, &l) == FC_OK);
    CHECK(l.models[0].point_col == 4);   /* no bare column: the median is the point forecast */
    fc_score_layout_free(&l);

    char *no_cutoff[] = {"unique_id", "ds", "y", "NHITS"};
    CHECK(fc_score_layout_build("cv.csv", no_cutoff, 4, 1, &l) == FC_ERR_PARSE);
    CHECK_CONTAINS(fc_last_error(), "missing column 'cutoff'");
    CHECK(fc_score_layout_build("fc.csv", no_cutoff, 4, 0, &l) == FC_OK);   /* a forecast file needs none */
    fc_score_layout_free(&l);
    char *no_model[] = {"unique_id", "ds", "cutoff", "y"};
    CHECK(fc_score_layout_build("cv.csv", no_model, 4, 1, &l) == FC_ERR_PARSE);
    CHECK_CONTAINS(fc_last_error(), "no model column");
}

static void test_baselines_at_cutoff(void) {
    /* y = 1, 4, 2, (missing), 7, 5 at ds 1..6 */
    const char *csv = "unique_id,ds,y\nA,1,1\nA,2,4\nA,3,2\nA,4,\nA,5,7\nA,6,5\n";
    fc_dataset *d = NULL;
    CHECK(fc_dataset_load_buffer("mem", csv, strlen(csv), &(fc_load_options){0}, &d) == FC_OK);
    if (!d) return;
    CHECK(fc_naive_at(d, 0, 2) == 2.0);
    CHECK(fc_naive_at(d, 0, 3) == 2.0);   /* point 3 is missing: the one before */
    /* season 2 at cutoff point 4 (y 7): step 1 -> point 3 (missing) -> point 1 (4); step 2 -> point 4 (7) */
    CHECK(fc_seasonal_naive_at(d, 0, 4, 2, 1) == 4.0);
    CHECK(fc_seasonal_naive_at(d, 0, 4, 2, 2) == 7.0);
    CHECK(fc_seasonal_naive_at(d, 0, 4, 2, 3) == 4.0);
    CHECK(fc_seasonal_naive_at(d, 0, 1, 5, 1) == 4.0);   /* season longer than the history: naive */
    /* in-sample scale, season 1, points 0..2: |4-1|, |2-4| -> 2.5; up to 5: also |5-7| -> 7/3 */
    CHECK_CLOSE(fc_seasonal_scale_upto(d, 0, 2, 1), 2.5, 1e-15, 0);
    CHECK_CLOSE(fc_seasonal_scale_upto(d, 0, 5, 1), (3 + 2 + 2) / 3.0, 1e-15, 0);
    CHECK_CLOSE(fc_seasonal_scale(d, 0, 2), (1 + 5) / 2.0, 1e-15, 0);   /* |2-1|, |7-2|; points 3, 5 lack a partner */
    fc_dataset_free(&d);
}

int main(void) {
    test_point_scores();
    test_quantile_scores();
    test_column_roles();
    test_layout();
    test_baselines_at_cutoff();
    return CHECK_DONE();
}
