/* fcast tune's search space and samplers (src/tune): the grammar, its
 * refusals naming file, line and key, the random sampler's bounds and
 * distributions, determinism for a seed, the Parzen estimators, TPE's
 * concentration on synthetic objectives (the sampler alone, no training),
 * and the trial score. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "core/error.h"
#include "data/dataset.h"
#include "tune/parzen.h"
#include "tune/sampler.h"
#include "tune/search_space.h"
#include "tune/trial_score.h"

static fc_status parse(const char *text, fc_search_space *s) {
    return fc_space_parse("space.yaml", text, strlen(text), s);
}

static void test_grammar(void) {
    fc_search_space s;
    const char *text =
        "# a comment\n"
        "lr: loguniform(1e-4, 1e-2)\n"
        "dropout: uniform(0, 0.5)\n"
        "max-steps: int(100, 1000)\n"
        "input-size: int( 12 , 96 , log )\n"
        "scaler: choice(identity, standard, robust)\n"
        "mlp-units: choice(\"256,256,256\", '512,512,512', 64)\n";
    CHECK_MSG(parse(text, &s) == FC_OK, "%s", fc_last_error());
    CHECK(s.n == 6);
    CHECK(!strcmp(s.params[0].name, "lr") && s.params[0].line == 2);
    CHECK(s.params[0].kind == FC_PARAM_LOGUNIFORM && s.params[0].log);
    CHECK(s.params[0].low == 1e-4 && s.params[0].high == 1e-2);
    CHECK(s.params[1].kind == FC_PARAM_UNIFORM && !s.params[1].log && s.params[1].high == 0.5);
    CHECK(s.params[2].kind == FC_PARAM_INT && !s.params[2].log && s.params[2].low == 100);
    CHECK(s.params[3].kind == FC_PARAM_INT && s.params[3].log && s.params[3].low == 12 && s.params[3].high == 96);
    CHECK(s.params[4].kind == FC_PARAM_CHOICE && s.params[4].n_choices == 3);
    CHECK(!strcmp(s.params[4].choices[2], "robust"));
    CHECK(s.params[5].n_choices == 3 && !strcmp(s.params[5].choices[0], "256,256,256") &&
          !strcmp(s.params[5].choices[1], "512,512,512") && !strcmp(s.params[5].choices[2], "64"));
    CHECK(s.params[5].line == 7);
    char buf[FC_TUNE_VALUE_MAX];
    fc_param_text(&s.params[4], 1, buf);
    CHECK(!strcmp(buf, "standard"));
    fc_param_text(&s.params[2], 250, buf);
    CHECK(!strcmp(buf, "250"));
    fc_param_text(&s.params[0], 0.00123456789, buf);   /* reals: 6 significant digits */
    CHECK(!strcmp(buf, "0.00123457"));
    CHECK(fc_param_snap(&s.params[0], 0.00123456789) == 0.00123457);
    fc_space_free(&s);
}

/* text must be refused with `code` and a message holding `where`. */
static void refused(const char *text, fc_status code, const char *where) {
    fc_search_space s;
    fc_status st = parse(text, &s);
    CHECK_MSG(st == code, "'%s' gave %d (%s)", text, (int)st, fc_last_error());
    CHECK_CONTAINS(fc_last_error(), where);
    fc_space_free(&s);
}

static void test_refusals(void) {
    refused("lr: loguniform(1e-4, 1e-2)\nmax-steps: int(100.5, 200)\n", FC_ERR_PARSE, "space.yaml:2: max-steps");
    refused("a: uniform(1, 1)\n", FC_ERR_INVALID, "space.yaml:1: a: uniform(1, 1): the low bound must be below");
    refused("a: uniform(2, 1)\n", FC_ERR_INVALID, "space.yaml:1: a");
    refused("x: int(1, 5)\na: loguniform(0, 1)\n", FC_ERR_INVALID,
            "space.yaml:2: a: loguniform needs a low bound above 0");
    refused("a: int(0, 10, log)\n", FC_ERR_INVALID, "int(..., log) needs a low bound of at least 1");
    refused("a: int(1, 10, lin)\n", FC_ERR_PARSE, "space.yaml:1: a: int takes two bounds");
    refused("a: uniform(1)\n", FC_ERR_PARSE, "uniform takes two bounds");
    refused("a: uniform(1, x)\n", FC_ERR_PARSE, "'x' is not a finite number");
    refused("a: uniform(1, inf)\n", FC_ERR_PARSE, "'inf' is not a finite number");
    refused("a: normal(0, 1)\n", FC_ERR_PARSE, "space.yaml:1: a: 'normal(0, 1)' is not uniform");
    refused("a: 0.1\n", FC_ERR_PARSE, "is not uniform(low, high)");
    refused("a: uniform(0, 1\n", FC_ERR_PARSE, "expected ',' or ')'");
    refused("a: uniform(0, 1) extra\n", FC_ERR_PARSE, "unexpected text after the closing parenthesis");
    refused("a: choice(x, , y)\n", FC_ERR_PARSE, "an empty item");
    refused("a: choice(\"x, y)\n", FC_ERR_PARSE, "unterminated");
    refused("a: choice(x, y, x)\n", FC_ERR_INVALID, "'x' is a choice twice");
    refused("\n\na:\n", FC_ERR_PARSE, "space.yaml:3: a: no value");
    refused("# nothing\n", FC_ERR_INVALID, "the search space is empty");
    refused("a: [1, 2]\n", FC_ERR_PARSE, "space.yaml:1: a");   /* a YAML list is no distribution */
}

static const char *SPACE =
    "lr: loguniform(1e-4, 1)\n"
    "dropout: uniform(-1, 2)\n"
    "steps: int(3, 7)\n"
    "size: int(1, 100, log)\n"
    "scaler: choice(a, b, c)\n";

static void test_random_bounds_and_distributions(void) {
    fc_search_space s;
    CHECK(parse(SPACE, &s) == FC_OK);
    enum { N = 4000 };
    size_t out_of_range = 0, steps_seen[8] = {0}, choice_seen[3] = {0}, small_lr = 0, small_size = 0;
    double mean_log = 0, mean_u = 0;
    for (size_t t = 0; t < N; t++) {
        double x[5];
        fc_tune_sample_random(&s, 42, t, x);
        for (size_t j = 0; j < 4; j++) out_of_range += x[j] < s.params[j].low || x[j] > s.params[j].high;
        out_of_range += x[2] != floor(x[2]) || x[3] != floor(x[3]) || x[4] != floor(x[4]) || x[4] < 0 || x[4] > 2;
        steps_seen[(size_t)x[2]]++;
        choice_seen[(size_t)x[4]]++;
        small_lr += x[0] < 1e-2;
        small_size += x[3] <= 10;
        mean_log += log10(x[0]) / N;
        mean_u += x[1] / N;
    }
    CHECK(out_of_range == 0);
    for (size_t v = 3; v <= 7; v++) CHECK_CLOSE(steps_seen[v], N / 5.0, 0, 0.12);   /* every integer, evenly */
    for (size_t c = 0; c < 3; c++) CHECK_CLOSE(choice_seen[c], N / 3.0, 0, 0.1);
    CHECK_CLOSE(small_lr, N / 2.0, 0, 0.08);   /* log-uniform: half the draws in the lower two decades */
    CHECK_CLOSE(mean_log, -2.0, 0.06, 0);
    CHECK_CLOSE(mean_u, 0.5, 0.05, 0);
    /* log-uniform over [0.5, 100.5]: P(x <= 10.5) = ln(21) / ln(201) = 0.574 */
    CHECK_CLOSE(small_size, N * log(21.0) / log(201.0), 0, 0.08);
    fc_space_free(&s);
}

static void test_determinism(void) {
    fc_search_space s;
    CHECK(parse(SPACE, &s) == FC_OK);
    double a[5], b[5], c[5];
    int same_seed = 1, other_seed = 1;
    for (size_t t = 0; t < 50; t++) {
        fc_tune_sample_random(&s, 7, t, a);
        fc_tune_sample_random(&s, 7, t, b);
        fc_tune_sample_random(&s, 8, t, c);
        same_seed &= !memcmp(a, b, sizeof a);
        other_seed &= !memcmp(a, c, sizeof a);
    }
    CHECK(same_seed);
    CHECK(!other_seed);
    fc_space_free(&s);
}

static void test_parzen(void) {
    for (double x = -6; x <= 5; x += 0.25)   /* above 5, 1 - p has too few bits */
        CHECK_CLOSE(fc_norm_ppf(0.5 * erfc(-x / M_SQRT2)), x, 1e-9, 1e-9);
    fc_search_space s;
    CHECK(parse("lr: loguniform(1e-4, 1)\nn: int(1, 20)\nc: choice(a, b, c)\n", &s) == FC_OK);
    double obs[] = {1e-3, 2e-3, 5e-2, 0.3};
    fc_parzen e;
    /* continuous, in log space: the density integrates to 1 over the range */
    CHECK(fc_parzen_build(&e, &s.params[0], obs, 4) == FC_OK);
    double lo = log(1e-4), hi = 0, sum = 0, step = (hi - lo) / 20000;
    for (double t = lo + step / 2; t < hi; t += step) sum += exp(fc_parzen_log_pdf(&e, exp(t))) * step;
    CHECK_CLOSE(sum, 1.0, 2e-3, 0);
    CHECK(fc_parzen_log_pdf(&e, 1.5e-3) > fc_parzen_log_pdf(&e, 1e-2));   /* densest near the observations */
    fc_parzen_free(&e);
    /* integers: masses of every value sum to 1 */
    double ints[] = {3, 4, 15};
    CHECK(fc_parzen_build(&e, &s.params[1], ints, 3) == FC_OK);
    sum = 0;
    for (int v = 1; v <= 20; v++) sum += exp(fc_parzen_log_pdf(&e, v));
    CHECK_CLOSE(sum, 1.0, 1e-9, 0);
    fc_parzen_free(&e);
    /* choices: smoothed counts; with a, a, b observed: p(a) > p(b) > p(c), summing to 1 */
    double cats[] = {0, 0, 1};
    CHECK(fc_parzen_build(&e, &s.params[2], cats, 3) == FC_OK);
    double pa = exp(fc_parzen_log_pdf(&e, 0)), pb = exp(fc_parzen_log_pdf(&e, 1)), pc = exp(fc_parzen_log_pdf(&e, 2));
    CHECK(pa > pb && pb > pc);
    CHECK_CLOSE(pa + pb + pc, 1.0, 1e-12, 0);
    /* optuna's rows: 1/4 (prior weight / kernels) on every choice, + 1 on the observed one,
     * normalised; the prior's row uniform; the four kernels weighted alike */
    CHECK_CLOSE(pa, (2 * (1.25 / 1.75) + 0.25 / 1.75 + 1.0 / 3) / 4, 1e-12, 0);
    fc_parzen_free(&e);
    fc_space_free(&s);
}

/* |log10(lr) + 3|: the distance of a learning rate from the optimum 1e-3. */
static double distance(double lr) { return fabs(log10(lr) + 3); }

/* A search of n trials on (log10(lr) + 3)^2 (+ 1 unless the choice is
 * "c"); returns the best distance, and the median distance of the last 20
 * samples and the share of "c" among them. */
static double search(int tpe, uint64_t seed, size_t n, double *late_median, double *late_c) {
    fc_search_space s;
    CHECK(parse("lr: loguniform(1e-6, 1)\nk: choice(a, b, c, d)\n", &s) == FC_OK);
    fc_tune_history h;
    fc_tune_history_init(&h, s.n);
    double best = INFINITY, late[20];
    size_t c = 0;
    for (size_t t = 0; t < n; t++) {
        double x[2];
        if (tpe) CHECK(fc_tune_sample_tpe(&s, &h, seed, t, x) == FC_OK);
        else fc_tune_sample_random(&s, seed, t, x);
        double d = distance(x[0]), score = d * d + (x[1] == 2 ? 0 : 1);
        CHECK(x[0] >= 1e-6 && x[0] <= 1 && x[1] >= 0 && x[1] <= 3 && x[1] == floor(x[1]));
        CHECK(fc_tune_history_add(&h, x, score, 1) == FC_OK);
        best = fmin(best, d);
        if (t >= n - 20) { late[t - (n - 20)] = d; c += x[1] == 2; }
    }
    for (size_t i = 0; i < 20; i++)   /* sort for the median */
        for (size_t j = i + 1; j < 20; j++)
            if (late[j] < late[i]) { double tmp = late[i]; late[i] = late[j]; late[j] = tmp; }
    *late_median = 0.5 * (late[9] + late[10]);
    *late_c = c / 20.0;
    fc_tune_history_free(&h);
    fc_space_free(&s);
    return best;
}

static void test_tpe_concentrates(void) {
    enum { SEEDS = 9 };
    double rnd_best[SEEDS], rnd_late[SEEDS], tpe_best_sum = 0, tpe_late_sum = 0, tpe_c = 0, rnd_c = 0;
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        double late, c;
        rnd_best[seed] = search(0, seed, 60, &rnd_late[seed], &c);
        rnd_c += c / SEEDS;
        double tb = search(1, seed, 60, &late, &c);
        tpe_best_sum += tb / SEEDS;
        tpe_late_sum += late / SEEDS;
        tpe_c += c / SEEDS;
    }
    for (size_t i = 0; i < SEEDS; i++)
        for (size_t j = i + 1; j < SEEDS; j++)
            if (rnd_best[j] < rnd_best[i]) { double t = rnd_best[i]; rnd_best[i] = rnd_best[j]; rnd_best[j] = t; }
    double rnd_late_mean = 0;
    for (size_t i = 0; i < SEEDS; i++) rnd_late_mean += rnd_late[i] / SEEDS;
    /* TPE's best beats random search's median best, and its late samples
     * sit near the optimum where random search's spread over six decades */
    printf("TPE best %.4f late %.3f c %.2f; random median best %.4f late %.3f c %.2f\n", tpe_best_sum, tpe_late_sum,
           tpe_c, rnd_best[SEEDS / 2], rnd_late_mean, rnd_c);
    CHECK_MSG(tpe_best_sum < rnd_best[SEEDS / 2], "TPE best %.3f, random median best %.3f", tpe_best_sum,
              rnd_best[SEEDS / 2]);
    CHECK_MSG(tpe_late_sum < 0.5 && tpe_late_sum < 0.4 * rnd_late_mean, "late median distance: TPE %.3f, random %.3f",
              tpe_late_sum, rnd_late_mean);
    CHECK_MSG(tpe_c > 0.6 && rnd_c < 0.4, "share of the best choice late: TPE %.2f, random %.2f", tpe_c, rnd_c);
    /* and the same seed gives the same search */
    double l1, l2, c1, c2;
    CHECK(search(1, 3, 30, &l1, &c1) == search(1, 3, 30, &l2, &c2) && l1 == l2 && c1 == c2);
}

/* TPE ignores unusable trials: before 10 usable ones it is random search. */
static void test_tpe_startup(void) {
    fc_search_space s;
    CHECK(parse("lr: loguniform(1e-6, 1)\n", &s) == FC_OK);
    fc_tune_history h;
    fc_tune_history_init(&h, 1);
    for (size_t t = 0; t < 15; t++) {
        double x, r;
        CHECK(fc_tune_sample_tpe(&s, &h, 5, t, &x) == FC_OK);
        fc_tune_sample_random(&s, 5, t, &r);
        CHECK(x == r);   /* 9 usable at most below: still random */
        CHECK(fc_tune_history_add(&h, &x, NAN, t % 2 == 0) == FC_OK);
    }
    fc_tune_history_free(&h);
    fc_space_free(&s);
}

static void test_score(void) {
    const char *csv = "unique_id,ds,y\n"
                      "a,1,1\na,2,2\na,3,4\na,4,8\na,5,\na,6,10\n";
    fc_dataset *ds = NULL;
    CHECK(fc_dataset_load_buffer("mem.csv", csv, strlen(csv), &(fc_load_options){.drop_exog = 1}, &ds) == FC_OK);
    fc_cv_origin o[] = {{0, 0, 2}};   /* cutoff at point 2 (y = 4): forecasts of points 3, 4, 5 */
    float yhat[] = {6, 0, 13};        /* errors 2, (missing), 3 */
    fc_score_spec spec = {FC_TUNE_MAE, 1, 3, 1, 0};
    double score;
    size_t points;
    CHECK(fc_tune_score(ds, o, 1, yhat, &spec, &score, &points) == FC_OK);
    CHECK(points == 2);
    CHECK_CLOSE(score, 2.5, 1e-12, 0);
    spec.metric = FC_TUNE_MSE;
    CHECK(fc_tune_score(ds, o, 1, yhat, &spec, &score, &points) == FC_OK && fabs(score - 6.5) < 1e-12);
    spec.metric = FC_TUNE_RMSE;
    CHECK(fc_tune_score(ds, o, 1, yhat, &spec, &score, &points) == FC_OK && fabs(score - sqrt(6.5)) < 1e-12);
    spec.metric = FC_TUNE_SMAPE;
    CHECK(fc_tune_score(ds, o, 1, yhat, &spec, &score, &points) == FC_OK);
    CHECK_CLOSE(score, (200.0 * 2 / 14 + 200.0 * 3 / 23) / 2, 1e-12, 0);
    spec.metric = FC_TUNE_MASE;   /* in-sample scale up to the cutoff: mean(1, 2) = 1.5 */
    CHECK(fc_tune_score(ds, o, 1, yhat, &spec, &score, &points) == FC_OK);
    CHECK_CLOSE(score, 2.5 / 1.5, 1e-12, 0);
    fc_tune_metric m;
    CHECK(fc_tune_metric_parse("smape", &m) == 0 && m == FC_TUNE_SMAPE && fc_tune_metric_parse("r2", &m) == -1);
    fc_loss_spec mq = {.kind = FC_LOSS_MQ, .n_q = 3, .q = {0.1f, 0.5f, 0.9f}};
    CHECK(fc_tune_point_output(&mq) == 1);
    fc_dataset_free(&ds);
}

int main(void) {
    test_grammar();
    test_refusals();
    test_random_bounds_and_distributions();
    test_determinism();
    test_parzen();
    test_tpe_concentrates();
    test_tpe_startup();
    test_score();
    printf("%d checks, %d failed\n", check_count, check_failures);
    return check_failures != 0;
}
