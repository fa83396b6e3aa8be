/* `fcast cv` through the library (fcast_cross_validate_file), by public
 * names only:
 *
 *   1. two configurations side by side: the CSV's header names them as
 *      neuralforecast does (MLP, MLP1), its rows are fcast_cv_read's (one
 *      per origin and step), and each model's column holds exactly the
 *      forecasts fcast_cross_validate gives for that configuration on
 *      fcast_data_open's panel (the independent path); the report counts
 *      the origins, steps, models and trainings;
 *   2. refusals name their key: an output in a missing directory (before
 *      the data is read), windows-batch-size auto, n_windows 0, two
 *      horizons; the same messages name --flags under FCAST_NAMES_FLAGS. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fcast.h"

#define H 6
#define L 12
#define DATA "tests/fixtures/cv/monthly_refit_data.csv"

static fcast_config *config(size_t h) {
    fcast_config *c = NULL;
    CHECK_MSG(fcast_config_new("mlp", h, L, &c) == FC_OK, "%s", fc_last_error());
    const char *kv[][2] = {{"max-steps", "3"}, {"threads", "1"}, {"seed", "2"}, {"num-layers", "1"},
                           {"hidden-size", "8"}};
    for (size_t i = 0; c && i < sizeof kv / sizeof *kv; i++)
        CHECK_MSG(fcast_config_set(c, kv[i][0], kv[i][1]) == FC_OK, "%s: %s", kv[i][0], fc_last_error());
    return c;
}

/* The cross-validation of c on the file by the lower-level calls. */
static fcast_cv *reference(const fcast_config *c) {
    fcast_data *d = NULL;
    fcast_cv *r = NULL;
    CHECK_MSG(fcast_data_open(c, DATA, &d) == FC_OK, "%s", fc_last_error());
    CHECK_MSG(fcast_cross_validate(c, d, 2, 6, 0, NULL, NULL, NULL, &r) == FC_OK, "%s", fc_last_error());
    fcast_data_free(d);
    return r;
}

/* Row i of the CSV: the two model columns and y (empty: NaN). */
static int read_row(FILE *f, float *a, float *b, double *y) {
    char line[512];
    if (!fgets(line, sizeof line, f)) return 0;
    char *cell[6] = {line}, *p = line;
    for (int k = 1; k < 6 && (p = strchr(p, ',')); k++) *p++ = 0, cell[k] = p;
    *a = strtof(cell[3], NULL);
    *b = strtof(cell[4], NULL);
    *y = cell[5][0] == '\n' ? NAN : strtod(cell[5], NULL);
    return 1;
}

static void side_by_side(void) {
    char dir[] = "/tmp/fcast_test_api_cv_run_XXXXXX", out[128];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(out, sizeof out, "%s/cv.csv", dir);
    fcast_config *c[2] = {config(H), config(H)};
    fcast_cv_request q = {out, 2, 6, 0};
    fcast_cv_report rep;
    CHECK_MSG(fcast_cross_validate_file((const fcast_config *const *)c, 2, DATA, &q, NULL, NULL, NULL, &rep) == FC_OK,
              "%s", fc_last_error());
    CHECK(rep.origins == 4 && rep.h == H && rep.models == 2 && rep.fits == 2);
    fcast_cv *r = reference(c[0]);
    size_t rows = fcast_cv_rows(r);
    float *want = calloc(rows ? rows : 1, sizeof *want);
    double *y = calloc(rows ? rows : 1, sizeof *y);
    CHECK(rows == rep.origins * H && fcast_cv_outputs(r) == 1);
    CHECK(fcast_cv_read(r, NULL, NULL, NULL, y, want, rows) == FC_OK);
    FILE *f = fopen(out, "r");
    char header[128] = "";
    CHECK(f && fgets(header, sizeof header, f) && !strcmp(header, "unique_id,ds,cutoff,MLP,MLP1,y\n"));
    size_t i = 0, same = 0;
    float a, b;
    double yi;
    while (f && i < rows && read_row(f, &a, &b, &yi)) {
        same += a == want[i] && b == want[i] && (yi == y[i] || (isnan(yi) && isnan(y[i])));
        i++;
    }
    CHECK_MSG(i == rows && same == rows, "%zu rows of %zu, %zu as fcast_cross_validate's", i, rows, same);
    CHECK(f && !read_row(f, &a, &b, &yi));   /* no more rows */
    if (f) fclose(f);
    free(want), free(y);
    fcast_cv_free(r);
    fcast_config_free(c[0]), fcast_config_free(c[1]);
    remove(out), rmdir(dir);
}

static void refusals(void) {
    fcast_config *c[2] = {config(H), config(3)};
    const fcast_config *const *cs = (const fcast_config *const *)c;
    fcast_cv_request q = {"/nonexistent-dir/cv.csv", 1, 1, 0};
    CHECK(fcast_cross_validate_file(cs, 1, "/nonexistent-data.csv", &q, NULL, NULL, NULL, NULL) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "out /nonexistent-dir/cv.csv");   /* the output, before the data */
    q.out = "-";
    CHECK(fcast_cross_validate_file(cs, 2, DATA, &q, NULL, NULL, NULL, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "every model of a cross-validation has one h");
    q.n_windows = 0;
    CHECK(fcast_cross_validate_file(cs, 1, DATA, &q, NULL, NULL, NULL, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "n-windows must be at least 1");
    CHECK(strncmp(fc_last_error(), "--", 2) != 0);
    CHECK(fcast_config_set(c[0], "windows-batch-size", "auto") == FC_OK);
    CHECK(fcast_cross_validate_file(cs, 1, DATA, &q, NULL, NULL, NULL, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "windows-batch-size auto is for fcast train");
    fcast_set_option_names(FCAST_NAMES_FLAGS);
    CHECK(fcast_cross_validate_file(cs, 1, DATA, &q, NULL, NULL, NULL, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--windows-batch-size auto is for fcast train");
    fcast_set_option_names(FCAST_NAMES_KEYS);
    CHECK(fcast_cross_validate_file(cs, 0, DATA, &q, NULL, NULL, NULL, NULL) == FC_ERR_INVALID);
    fcast_config_free(c[0]), fcast_config_free(c[1]);
}

int main(void) {
    side_by_side();
    refusals();
    return CHECK_DONE();
}
