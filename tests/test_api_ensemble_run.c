/* fcast_ensemble_train_file (fcast.h) by public names only, against
 * independent truth:
 *
 *   1. two members (seeds 1 and 2): each member's tensors in the ensemble
 *      file are the bytes fcast_train_file writes for its configuration
 *      alone, its report (steps, last training loss) is that run's, the
 *      file says how it combines, and a description given is kept;
 *   2. refusals, before any member trains, naming the member and the key:
 *      a quantile loss, another h, a memory limit below a plan, an output
 *      in a missing directory; fcast_combine_parse and fcast_loss_is_point. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fcast.h"

#define DATA "data/monthly_classics.csv"

static char dir[] = "/tmp/fcast_test_api_ensemble_XXXXXX";

static fcast_config *member(const char *seed, size_t h) {
    fcast_config *c = NULL;
    CHECK(fcast_config_new("mlp", h, 12, &c) == FC_OK);
    const char *kv[][2] = {{"max-steps", "4"}, {"threads", "1"}, {"num-layers", "1"}, {"hidden-size", "8"},
                           {"seed", seed}};
    for (size_t i = 0; c && i < sizeof kv / sizeof *kv; i++) CHECK(fcast_config_set(c, kv[i][0], kv[i][1]) == FC_OK);
    return c;
}

static unsigned char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    unsigned char *b = malloc(*n ? *n : 1);
    if (b && fread(b, 1, *n, f) != *n) *n = 0;
    fclose(f);
    return b;
}

/* A safetensors file's data part (after its 8-byte length and header). */
static const unsigned char *data_part(const unsigned char *b, size_t n, size_t *len) {
    unsigned long long h = 0;
    for (int i = 7; i >= 0; i--) h = h << 8 | b[i];
    *len = n - 8 - (size_t)h;
    return b + 8 + h;
}

static int contains(const unsigned char *hay, size_t n, const unsigned char *needle, size_t m) {
    for (size_t i = 0; m && i + m <= n; i++)
        if (hay[i] == needle[0] && !memcmp(hay + i, needle, m)) return 1;
    return 0;
}

typedef struct {
    size_t started, ended;
    fcast_train_report last[2];
} heard;

static void on_member(void *user, size_t i, const fcast_train_report *done) {
    heard *h = user;
    if (!done) h->started++;
    else if (i < 2) h->last[i] = *done, h->ended++;
}

static void members_as_train_alone(void) {
    char ens[128], alone[2][128];
    snprintf(ens, sizeof ens, "%s/e.safetensors", dir);
    const char *seeds[2] = {"1", "2"};
    fcast_config *c[2];
    heard h = {0};
    for (int i = 0; i < 2; i++) c[i] = member(seeds[i], 6);
    const char *descriptions[2] = {"{\"mine\":1}", NULL};
    fcast_ensemble_request r = {(const fcast_config *const *)c, 2, NULL, descriptions, FCAST_COMBINE_MEAN, ens};
    CHECK_MSG(fcast_ensemble_train_file(&r, DATA, on_member, &h, NULL) == FC_OK, "%s", fc_last_error());
    CHECK(h.started == 2 && h.ended == 2);
    size_t n = 0, len = 0;
    unsigned char *e = slurp(ens, &n);
    const unsigned char *ed = e ? data_part(e, n, &len) : NULL;
    CHECK(e && strstr((const char *)e + 8, "{\\\"combine\\\":\\\"mean\\\",\\\"members\\\":2,\\\"h\\\":6}"));
    CHECK(e && strstr((const char *)e + 8, "\"member.0.run_config\":\"{\\\"mine\\\":1}\""));
    for (int i = 0; i < 2; i++) {
        fcast_model *m = NULL;
        fcast_train_report t;
        snprintf(alone[i], sizeof alone[i], "%s/m%d.safetensors", dir, i);
        CHECK(fcast_config_set(c[i], "out", alone[i]) == FC_OK);
        CHECK_MSG(fcast_train_file(c[i], DATA, NULL, NULL, NULL, &m) == FC_OK, "%s", fc_last_error());
        CHECK(m && fcast_model_train_report(m, &t) == FC_OK);
        CHECK(h.last[i].steps == t.steps && h.last[i].last_train_loss == t.last_train_loss);
        size_t an = 0, alen = 0;
        unsigned char *a = slurp(alone[i], &an);
        const unsigned char *ad = a ? data_part(a, an, &alen) : NULL;
        CHECK_MSG(ed && ad && alen > 0 && contains(ed, len, ad, alen), "member %d's tensors", i);
        free(a);
        fcast_model_free(m);
        remove(alone[i]);
    }
    free(e);
    remove(ens);
    fcast_config_free(c[0]), fcast_config_free(c[1]);
}

static fc_status train_two(fcast_config *a, fcast_config *b, const char *out, heard *h) {
    const fcast_config *c[2] = {a, b};
    fcast_ensemble_request r = {c, 2, (const char *const[]){"first", "second"}, NULL, FCAST_COMBINE_MEDIAN, out};
    return fcast_ensemble_train_file(&r, DATA, on_member, h, NULL);
}

static void refusals_before_training(void) {
    char out[128];
    snprintf(out, sizeof out, "%s/x.safetensors", dir);
    fcast_config *a = member("1", 6), *b = member("2", 6), *h3 = member("3", 3);
    heard h = {0};
    CHECK(fcast_config_set(b, "loss", "mq") == FC_OK);
    CHECK(train_two(a, b, out, &h) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "second: loss mq: an ensemble combines point forecasts");
    CHECK(train_two(a, h3, out, &h) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "second: h 3; the first member's is 6");
    CHECK(fcast_config_set(a, "memory-limit", "17MiB") == FC_OK);
    CHECK(fcast_config_set(a, "windows-batch-size", "100000") == FC_OK);
    CHECK(train_two(a, a, out, &h) == FC_ERR_MEMORY);
    CHECK_CONTAINS(fc_last_error(), "first: memory-limit 17.0 MiB: this run needs");
    CHECK(train_two(a, a, "/nonexistent-dir/e.safetensors", &h) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "out /nonexistent-dir/e.safetensors");
    CHECK(h.started == 0 && access(out, F_OK) != 0);   /* nothing trained, nothing written */
    fcast_combine how;
    CHECK(fcast_combine_parse("mean", &how) == FC_OK && how == FCAST_COMBINE_MEAN);
    CHECK(fcast_combine_parse("mode", &how) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "combine 'mode' is not median or mean");
    CHECK(!strcmp(fcast_combine_name(FCAST_COMBINE_MEDIAN), "median") && !fcast_combine_name((fcast_combine)7));
    CHECK(fcast_loss_is_point("SMAPE") == 1 && fcast_loss_is_point("mq") == 0 && fcast_loss_is_point("x") == -1);
    fcast_config_free(a), fcast_config_free(b), fcast_config_free(h3);
}

int main(void) {
    CHECK(mkdtemp(dir) != NULL);
    members_as_train_alone();
    refusals_before_training();
    rmdir(dir);
    return CHECK_DONE();
}
