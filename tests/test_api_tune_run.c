/* `fcast tune` through the library (fcast_tune_*), by public names only:
 *
 *   1. a random search of three keys: every trial's score is the MAE of
 *      the cross-validation fcast_cross_validate gives for the same
 *      configuration on fcast_data_open's panel (the independent path),
 *      over as many points; the best trial is the lowest score; the trial
 *      callback sees each trial once; the log has a search line and a line
 *      per trial; the same seed gives the same values;
 *   2. a value the configuration refuses as invalid skips its trial with
 *      the reason, and the search goes on;
 *   3. refusals name their key: sampler, metric-season, an unreadable
 *      space, an integer key with a real distribution, a value the
 *      callback stops on (its line and reason); --flags under
 *      FCAST_NAMES_FLAGS. */
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

typedef struct {
    int stop;          /* a refused value stops the search (else skips the trial) */
    size_t reported;   /* trial callbacks */
} user_state;

/* The fixed keys, then the sampled ones. */
static fc_status make_config(void *user, const char *const *keys, const char *const *values, size_t n,
                             fcast_config **out) {
    user_state *u = user;
    const char *kv[][2] = {{"max-steps", "5"}, {"threads", "1"}, {"seed", "2"}, {"num-layers", "1"},
                           {"verbose", "off"}};
    fc_status st = fcast_config_new("mlp", H, L, out);
    for (size_t i = 0; st == FC_OK && i < sizeof kv / sizeof *kv; i++) st = fcast_config_set(*out, kv[i][0], kv[i][1]);
    for (size_t j = 0; st == FC_OK && j < n; j++) st = fcast_config_set(*out, keys[j], values[j]);
    if (st == FC_OK) return FC_OK;
    fcast_config_free(*out);
    *out = NULL;
    return u->stop ? FC_ERR_PARSE : FC_ERR_INVALID;
}

static void count_trial(void *user, const fcast_tune *t, size_t trial) {
    user_state *u = user;
    fcast_tune_report r;
    CHECK(fcast_tune_summary(t, &r) == FC_OK && r.trials == trial + 1);
    u->reported++;
}

/* The MAE of the configuration's cross-validation by the lower-level calls. */
static double reference_mae(const char *const *keys, const char *const *values, size_t n, size_t *points) {
    user_state u = {0, 0};
    fcast_config *c = NULL;
    fcast_data *d = NULL;
    fcast_cv *r = NULL;
    double sum = 0;
    *points = 0;
    CHECK(make_config(&u, keys, values, n, &c) == FC_OK);
    CHECK_MSG(fcast_data_open(c, DATA, &d) == FC_OK, "%s", fc_last_error());
    CHECK_MSG(fcast_cross_validate(c, d, 2, 6, 0, NULL, NULL, NULL, &r) == FC_OK, "%s", fc_last_error());
    size_t rows = r ? fcast_cv_rows(r) : 0;
    double *y = calloc(rows ? rows : 1, sizeof *y);
    float *f = calloc(rows ? rows : 1, sizeof *f);
    CHECK(r && fcast_cv_read(r, NULL, NULL, NULL, y, f, rows) == FC_OK);
    for (size_t i = 0; i < rows; i++)
        if (!isnan(y[i])) sum += fabs(y[i] - f[i]), (*points)++;
    free(y), free(f);
    fcast_cv_free(r);
    fcast_data_free(d);
    fcast_config_free(c);
    return *points ? sum / (double)*points : NAN;
}

static fcast_tune *search(const char *space, const char *log, size_t trials, user_state *u) {
    fcast_tune_request q = {DATA, space, "random", NULL, log, trials, 1, 0, {NULL, 2, 6, 0}};
    fcast_tune *t = NULL;
    fcast_tune_callbacks cb = {make_config, count_trial, NULL, u};
    CHECK_MSG(fcast_tune_open(&q, &t) == FC_OK, "%s", fc_last_error());
    CHECK_MSG(fcast_tune_read_space(t) == FC_OK, "%s", fc_last_error());
    for (size_t j = 0; j < fcast_tune_params(t); j++)
        if (!strcmp(fcast_tune_param_name(t, j), "hidden-size")) CHECK(fcast_tune_param_type(t, j, FCAST_TUNE_INT) == FC_OK);
    CHECK_MSG(fcast_tune_run(t, &cb, NULL) == FC_OK, "%s", fc_last_error());
    return t;
}

static size_t lines(const char *path) {
    FILE *f = fopen(path, "r");
    size_t n = 0;
    for (int ch; f && (ch = fgetc(f)) != EOF;) n += ch == '\n';
    if (f) fclose(f);
    return n;
}

static void scores(const char *dir) {
    char space[128], log[128];
    snprintf(space, sizeof space, "%s/space.yaml", dir);
    snprintf(log, sizeof log, "%s/log.jsonl", dir);
    check_write_text(space, "lr: loguniform(1e-3, 1e-1)\nhidden-size: int(4, 16)\nscaler: choice(identity, robust)\n");
    user_state u = {0, 0};
    fcast_tune *t = search(space, log, 3, &u);
    fcast_tune_report rep;
    CHECK(fcast_tune_summary(t, &rep) == FC_OK);
    CHECK(rep.trials == 3 && rep.max_trials == 3 && u.reported == 3 && !rep.budget_spent && rep.has_best);
    CHECK(!strcmp(rep.metric, "mae"));
    CHECK(fcast_tune_params(t) == 3 && fcast_tune_param_line(t, 2) == 3 && !fcast_tune_param_name(t, 3));
    const char *keys[3] = {fcast_tune_param_name(t, 0), fcast_tune_param_name(t, 1), fcast_tune_param_name(t, 2)};
    double lowest = INFINITY;
    for (size_t i = 0; i < rep.trials; i++) {
        fcast_tune_trial tr;
        size_t points;
        if (fcast_tune_trial_get(t, i, &tr) != FC_OK) {
            CHECK_MSG(0, "trial %zu missing", i);
            continue;
        }
        CHECK_MSG(!strcmp(tr.status, "ok") && !tr.error[0], "trial %zu: %s %s", i, tr.status, tr.error);
        double want = reference_mae(keys, tr.values, 3, &points);
        CHECK_CLOSE(tr.score, want, 0, 1e-9);
        CHECK(tr.points == points && points > 0 && tr.seconds > 0);
        if (tr.score < lowest) lowest = tr.score;
    }
    fcast_tune_trial best;
    CHECK(fcast_tune_trial_get(t, rep.best, &best) == FC_OK && best.score == lowest);
    CHECK(fcast_tune_trial_get(t, 3, &best) == FC_ERR_INVALID);
    CHECK(lines(log) == 4);   /* the search, then a line per trial */
    fcast_tune *again = search(space, NULL, 3, &u);
    for (size_t i = 0; i < 3; i++) {
        fcast_tune_trial a, b;
        if (fcast_tune_trial_get(t, i, &a) != FC_OK || fcast_tune_trial_get(again, i, &b) != FC_OK) {
            CHECK_MSG(0, "trial %zu missing from a search", i);
            continue;
        }
        for (size_t j = 0; j < 3; j++) CHECK(!strcmp(a.values[j], b.values[j]));
        CHECK(a.score == b.score);
    }
    fcast_tune_free(again);
    fcast_tune_free(t);
    remove(space), remove(log);
}

static void skips(const char *dir) {
    char space[128];
    snprintf(space, sizeof space, "%s/skip.yaml", dir);
    check_write_text(space, "hidden-size: choice(8, 0)\n");
    user_state u = {0, 0};
    fcast_tune *t = search(space, NULL, 6, &u);
    size_t skipped = 0, ok = 0;
    for (size_t i = 0; i < 6; i++) {
        fcast_tune_trial tr;
        if (fcast_tune_trial_get(t, i, &tr) != FC_OK) {
            CHECK_MSG(0, "trial %zu missing", i);
            continue;
        }
        if (!strcmp(tr.values[0], "0")) {
            skipped += !strcmp(tr.status, "skipped") && strstr(tr.error, "hidden-size") && isnan(tr.score);
        } else {
            ok += !strcmp(tr.status, "ok");
        }
    }
    CHECK_MSG(skipped > 0 && ok > 0 && skipped + ok == 6, "%zu skipped, %zu ok", skipped, ok);
    fcast_tune_free(t);
    remove(space);
}

static fc_status open_with(const char *sampler, size_t season, const char *space, fcast_tune **t) {
    fcast_tune_request q = {DATA, space, sampler, NULL, NULL, FCAST_TUNE_TRIALS_DEFAULT, season, 0, {NULL, 2, 6, 0}};
    return fcast_tune_open(&q, t);
}

static void refusals(const char *dir) {
    char space[128];
    fcast_tune *t = NULL;
    snprintf(space, sizeof space, "%s/refuse.yaml", dir);
    check_write_text(space, "lr: loguniform(1e-3, 1e-1)\nhidden-size: uniform(4, 16)\nscaler: choice(identity, bogus)\n");
    CHECK(open_with("grid", 1, space, &t) == FC_ERR_INVALID && !t);
    CHECK_CONTAINS(fc_last_error(), "sampler 'grid' is not one of tpe, random");
    CHECK(strstr(fc_last_error(), "--") == NULL);
    CHECK(open_with(NULL, 0, space, &t) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "metric-season must be at least 1");
    CHECK(open_with(NULL, 1, "/nonexistent/space.yaml", &t) == FC_OK);
    CHECK(fcast_tune_read_space(t) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "/nonexistent/space.yaml");
    fcast_tune_free(t);
    CHECK(open_with(NULL, 1, space, &t) == FC_OK && fcast_tune_read_space(t) == FC_OK);
    CHECK(fcast_tune_param_type(t, 1, FCAST_TUNE_INT) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "refuse.yaml:2: hidden-size: an integer key: use int(low, high) or choice(...)");
    user_state u = {1, 0};
    fcast_tune_callbacks cb = {make_config, NULL, NULL, &u};
    CHECK(fcast_tune_probe(t, &cb) == FC_ERR_PARSE);
    CHECK_CONTAINS(fc_last_error(), "refuse.yaml:3: scaler: the value 'bogus' is refused: scaler 'bogus'");
    CHECK(fcast_tune_run(t, &cb, NULL) == FC_ERR_PARSE && u.reported == 0);   /* probes first: no trial */
    fcast_tune_free(t);
    fcast_set_option_names(FCAST_NAMES_FLAGS);
    CHECK(open_with("grid", 1, space, &t) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--sampler 'grid'");
    fcast_set_option_names(FCAST_NAMES_KEYS);
    remove(space);
}

int main(void) {
    char dir[] = "/tmp/fcast_test_api_tune_run_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    scores(dir);
    skips(dir);
    refusals(dir);
    rmdir(dir);
    return CHECK_DONE();
}
