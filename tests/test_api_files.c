/* The file helpers of fcast.h, by public names only:
 *
 *   1. fcast_settings_read: entries in file order with their lines, a
 *      sequence joined with commas, a null value flagged; a key given
 *      twice is FC_ERR_PARSE naming the line, a missing file FC_ERR_IO;
 *   2. fcast_output_check refuses an output in a missing directory, "-"
 *      when not allowed, and an output that is an input under another
 *      name (a symlink), naming the key; fcast_write_file writes the body
 *      whole and leaves the old file when the body fails;
 *   2b. fcast_paths_distinct: an output is the same file as another entry
 *      through "..", a hard link, a dangling link to it, a list's second
 *      file, existing or not; a link loop, devices, two inputs and a pair
 *      allowed to share are no collision;
 *   3. fcast_csv_write_field quotes what needs quoting, and
 *      fcast_csv_write_real writes the shortest text that reads back;
 *   4. fcast_device_is_gpu on each form and on a wrong one;
 *   5. fcast_config_arch_key lists keys fcast_config_set knows: a count
 *      key refuses a word as not a number, not as an unknown key;
 *   6. fcast_config_model_kind lists the kinds fcast_config_new takes,
 *      each under the name model files give it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fcast.h"

static char dir[] = "/tmp/fcast_api_files_XXXXXX";

static void path_in(char *out, size_t cap, const char *name) { snprintf(out, cap, "%s/%s", dir, name); }

static void read_text(const char *path, char *out, size_t cap) {
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(out, 1, cap - 1, f) : 0;
    out[n] = '\0';
    if (f) fclose(f);
}

static void settings_file(void) {
    char path[256];
    path_in(path, sizeof path, "run.yaml");
    check_write_text(path, "# a run\nh: 012\nmlp-units: [512, 256]\nfreq:\n");
    fcast_settings_file *f = NULL;
    CHECK_MSG(fcast_settings_read(path, &f) == FC_OK, "%s", fc_last_error());
    CHECK(fcast_settings_count(f) == 3);
    const fcast_setting *h = fcast_settings_at(f, 0), *units = fcast_settings_at(f, 1), *freq = fcast_settings_at(f, 2);
    CHECK(h && !strcmp(h->key, "h") && !strcmp(h->value, "012") && h->line == 2 && !h->is_null);
    CHECK(units && !strcmp(units->value, "512,256") && units->line == 3);
    CHECK(freq && freq->is_null && freq->line == 4);
    CHECK(fcast_settings_at(f, 3) == NULL);
    CHECK(!strcmp(fcast_settings_path(f), path));
    fcast_settings_free(f);

    check_write_text(path, "h: 1\nh: 2\n");
    CHECK(fcast_settings_read(path, &f) == FC_ERR_PARSE && f == NULL);
    CHECK_CONTAINS(fc_last_error(), "run.yaml:2");
    path_in(path, sizeof path, "missing.yaml");
    CHECK(fcast_settings_read(path, &f) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "missing.yaml");
}

static fc_status body_hello(FILE *f, void *ctx) {
    (void)ctx;
    fputs("hello\n", f);
    return FC_OK;
}

static fc_status body_fails(FILE *f, void *ctx) {
    (void)ctx;
    fputs("half", f);
    return FC_ERR_INVALID;
}

static void output_files(void) {
    char out[256], input[256], link[256], missing[256], text[64];
    path_in(out, sizeof out, "out.csv");
    path_in(input, sizeof input, "in.csv");
    path_in(link, sizeof link, "link.csv");
    path_in(missing, sizeof missing, "no-such-dir/out.csv");
    check_write_text(input, "x\n");
    CHECK(symlink(input, link) == 0);
    fcast_input_path inputs[] = {{"data", input}, {"futr-data", NULL}};
    CHECK_MSG(fcast_output_check("out", out, 0, inputs, 2) == FC_OK, "%s", fc_last_error());
    CHECK(fcast_output_check("out", NULL, 0, inputs, 2) == FC_OK);
    CHECK(fcast_output_check("out", "-", 0, inputs, 2) == FC_ERR_INVALID);
    CHECK(fcast_output_check("out", "-", 1, inputs, 2) == FC_OK);
    CHECK(fcast_output_check("out", missing, 0, inputs, 2) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "does not exist");
    CHECK(!strncmp(fc_last_error(), "out ", 4));
    CHECK(fcast_output_check("out", link, 0, inputs, 2) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "is the input file given to data");

    CHECK_MSG(fcast_write_file(out, body_hello, NULL) == FC_OK, "%s", fc_last_error());
    read_text(out, text, sizeof text);
    CHECK(!strcmp(text, "hello\n"));
    CHECK(fcast_write_file(out, body_fails, NULL) == FC_ERR_INVALID);
    read_text(out, text, sizeof text);
    CHECK_MSG(!strcmp(text, "hello\n"), "a failed write replaced the file: '%s'", text);
    unlink(out);
    unlink(link);
    unlink(input);
}

/* 1 when fcast_paths_distinct refuses uses[0..n) naming a and b. */
static int refuses(const fcast_path_use *uses, size_t n, const char *a, const char *b) {
    if (fcast_paths_distinct(uses, n) != FC_ERR_INVALID) return 0;
    return strstr(fc_last_error(), a) && strstr(fc_last_error(), b);
}

#define OUT(name, path) {name, path, FCAST_PATH_OUT, 0, NULL}
#define IN(name, path) {name, path, FCAST_PATH_IN, 0, NULL}

/* Which file a path names, existing or not, however spelled. */
static void distinct_paths(void) {
    char in[256], sub[256], dotted[256], hard[256], dangling[256], target[256], loop[256];
    path_in(in, sizeof in, "data.csv");
    path_in(sub, sizeof sub, "sub");
    CHECK(mkdir(sub, 0755) == 0);
    check_write_text(in, "x\n");
    snprintf(dotted, sizeof dotted, "%s/sub/../data.csv", dir);
    path_in(hard, sizeof hard, "hard.csv");
    CHECK(link(in, hard) == 0);
    path_in(dangling, sizeof dangling, "dangling.csv");
    path_in(target, sizeof target, "sub/target.csv");
    CHECK(symlink("sub/target.csv", dangling) == 0);   /* relative to the link's directory */
    path_in(loop, sizeof loop, "loop");
    CHECK(symlink("loop", loop) == 0);

    fcast_path_use a[] = {IN("--data", in), OUT("--out", dotted)};
    CHECK_MSG(refuses(a, 2, "--out", "--data"), "%s", fc_last_error());
    CHECK_CONTAINS(fc_last_error(), "is the input file given to --data as");
    fcast_path_use b[] = {IN("--data", in), OUT("--out", hard)};
    CHECK(refuses(b, 2, "--out", "--data"));
    /* neither exists: canonical names, through ".." and a dangling link */
    char new1[256], new2[256];
    path_in(new1, sizeof new1, "new.out");
    snprintf(new2, sizeof new2, "%s/sub/./../new.out", dir);
    fcast_path_use c[] = {OUT("--out", new1), OUT("--log-file", new2)};
    CHECK_MSG(refuses(c, 2, "--log-file", "is also written by --out"), "%s", fc_last_error());
    fcast_path_use d[] = {OUT("--out", dangling), OUT("--checkpoint", target)};
    CHECK_MSG(refuses(d, 2, "--checkpoint", "--out"), "a dangling link and its target: %s", fc_last_error());
    fcast_path_use e[] = {OUT("--out", loop), OUT("--log-file", new1)};   /* a link loop: no hang, no collision */
    CHECK_MSG(fcast_paths_distinct(e, 2) == FC_OK, "%s", fc_last_error());
    /* a new file through a linked directory, and through a chain of dangling links */
    char real_dir[256], link_dir[256], via_link[600], via_real[600], chain1[256], chain2[256], end[256];
    path_in(real_dir, sizeof real_dir, "real");
    path_in(link_dir, sizeof link_dir, "linked");
    CHECK(mkdir(real_dir, 0755) == 0 && symlink("real", link_dir) == 0);
    snprintf(via_link, sizeof via_link, "%s/new/../new.csv", link_dir);
    snprintf(via_real, sizeof via_real, "%s/new.csv", real_dir);
    fcast_path_use f1[] = {OUT("--out", via_link), OUT("--log-file", via_real)};
    CHECK_MSG(refuses(f1, 2, "--log-file", "--out"), "through a linked directory: %s", fc_last_error());
    path_in(chain1, sizeof chain1, "chain1");
    path_in(chain2, sizeof chain2, "chain2");
    path_in(end, sizeof end, "real/end.csv");
    CHECK(symlink("chain2", chain1) == 0 && symlink("real/end.csv", chain2) == 0);
    fcast_path_use f2[] = {OUT("--out", chain1), OUT("--checkpoint", end)};
    CHECK_MSG(refuses(f2, 2, "--checkpoint", "--out"), "a chain of dangling links: %s", fc_last_error());
    /* 300 directories, then 600 components that do not exist: one walk (a walk per component took
     * seconds), and the same file however spelled */
    char *deep = malloc(8192), *deep2 = malloc(8200);
    snprintf(deep, 8192, "%s/real", dir);
    for (int i = 0; i < 300; i++) strcat(deep, "/e");
    CHECK(deep && mkdir(deep, 0755) != 0);   /* (mkdir -p by hand below) */
    snprintf(deep2, 8200, "%s/real", dir);
    for (int i = 0; i < 300; i++) {
        strcat(deep2, "/e");
        mkdir(deep2, 0755);
    }
    for (int i = 0; i < 600; i++) strcat(deep, "/m");
    strcat(deep, "/x.csv");
    snprintf(deep2, 8200, "%s/./%s", dir, deep + strlen(dir) + 1);   /* spelled otherwise */
    fcast_path_use f3[] = {OUT("--out", deep), OUT("--log-file", deep2)};
    CHECK_MSG(refuses(f3, 2, "--log-file", "--out"), "a deep new path: %s", fc_last_error());
    free(deep), free(deep2);
    unlink(chain1), unlink(chain2), unlink(link_dir);
    /* distinct files, two inputs, a list, stdout, devices, a pair that may share */
    fcast_path_use f[] = {IN("--train", in), IN("--test", hard), OUT("--out", new1), OUT("--log", "-")};
    CHECK_MSG(fcast_paths_distinct(f, 4) == FC_OK, "%s", fc_last_error());
    char list[600];
    snprintf(list, sizeof list, "%s,%s", new1, in);
    fcast_path_use g[] = {{"--model", list, FCAST_PATH_IN, 1, NULL}, OUT("--out", hard)};
    CHECK_MSG(refuses(g, 2, "--out", "--model"), "the second file of a list: %s", fc_last_error());
    fcast_path_use h[] = {{"--out", "-", FCAST_PATH_OUT_STDOUT, 0, NULL}, {"--log", "-", FCAST_PATH_OUT_STDOUT, 0, NULL}};
    CHECK(refuses(h, 2, "standard output", "--out"));
    fcast_path_use i[] = {OUT("--out", "/dev/null"), OUT("--log-file", "/dev/null")};
    CHECK(fcast_paths_distinct(i, 2) == FC_OK);
    fcast_path_use j[] = {IN("--resume", in), {"--checkpoint", hard, FCAST_PATH_OUT, 0, "--resume"},
                          OUT("--out", new1)};
    CHECK_MSG(fcast_paths_distinct(j, 3) == FC_OK, "%s", fc_last_error());
    fcast_path_use k[] = {IN("--resume", in), {"--checkpoint", hard, FCAST_PATH_OUT, 0, "--resume"},
                          OUT("--log-file", in)};   /* the pair may share; a third may not */
    CHECK(refuses(k, 3, "--log-file", "--resume"));
    /* fcast_paths_check: the same, then each output's own checks */
    char missing[256];
    path_in(missing, sizeof missing, "no-dir/out.csv");
    fcast_path_use l[] = {IN("--data", in), OUT("--out", missing)};
    CHECK(fcast_paths_check(l, 2) == FC_ERR_IO);
    fcast_path_use m[] = {IN("--data", in), OUT("--out", "-")};
    CHECK(fcast_paths_check(m, 2) == FC_ERR_INVALID);
    CHECK(access(new1, F_OK) != 0);   /* nothing created */
    unlink(loop), unlink(dangling), unlink(hard), unlink(in), rmdir(sub);
    char rm[512];
    snprintf(rm, sizeof rm, "rm -rf '%s/real'", dir);
    CHECK(system(rm) == 0);
}

static void csv_writers(void) {
    char path[256], text[128];
    path_in(path, sizeof path, "fields.csv");
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fcast_csv_write_field(f, "plain");
    fputc(',', f);
    fcast_csv_write_field(f, "a,\"b\"");
    fputc(',', f);
    fcast_csv_write_real(f, 0.1);
    fputc(',', f);
    fcast_csv_write_real(f, 1.0 / 3.0);
    fclose(f);
    read_text(path, text, sizeof text);
    CHECK_MSG(!strcmp(text, "plain,\"a,\"\"b\"\"\",0.1,0.3333333333333333"), "%s", text);
    CHECK(strtod("0.3333333333333333", NULL) == 1.0 / 3.0);   /* the shortest text reads back */
    unlink(path);
}

static void device_forms(void) {
    int gpu = -1;
    CHECK(fcast_device_is_gpu(NULL, &gpu) == FC_OK && gpu == 0);
    CHECK(fcast_device_is_gpu("auto", &gpu) == FC_OK && gpu == 0);
    CHECK(fcast_device_is_gpu("cpu", &gpu) == FC_OK && gpu == 0);
    CHECK(fcast_device_is_gpu("cuda", &gpu) == FC_OK && gpu == 1);
    CHECK(fcast_device_is_gpu("cuda:1", &gpu) == FC_OK && gpu == 1);
    CHECK(fcast_device_is_gpu("gpu", &gpu) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "gpu");
}

static void arch_keys(void) {
    fcast_config *c = NULL;
    CHECK(fcast_config_new("nhits", 4, 8, &c) == FC_OK);
    fcast_key_info k;
    size_t n = 0, counts = 0;
    for (; fcast_config_arch_key(n, &k); n++) {
        CHECK(k.key && k.metavar && k.help && k.help[0]);
        if (!k.is_count) continue;
        counts++;
        CHECK_MSG(fcast_config_set(c, k.key, "many") == FC_ERR_INVALID, "%s", k.key);
        CHECK_MSG(!strstr(fc_last_error(), "unknown"), "%s: %s", k.key, fc_last_error());
    }
    CHECK_MSG(n > 10 && counts > 5, "%zu keys, %zu counts", n, counts);
    CHECK(fcast_config_set(c, "hidden-size", "64") == FC_OK);
    CHECK(fcast_config_set(c, "no-such-key", "1") == FC_ERR_INVALID);
    fcast_config_free(c);
}

static void model_kinds(void) {
    fcast_kind_info k;
    size_t n = 0;
    for (; fcast_config_model_kind(n, &k); n++) {
        fcast_config *c = NULL;
        CHECK_MSG(k.key && k.name && fcast_config_new(k.key, 4, 8, &c) == FC_OK, "%s: %s", k.key, fc_last_error());
        CHECK_MSG(fcast_config_new(k.name, 4, 8, &c) == FC_OK, "%s (any case): %s", k.name, fc_last_error());
        fcast_config_free(c);
    }
    CHECK_MSG(n == 7, "%zu kinds", n);
    CHECK(fcast_config_model_kind(0, &k) && !strcmp(k.key, "nhits") && !strcmp(k.name, "NHITS"));
    CHECK(fcast_config_model_kind(6, &k) && !strcmp(k.key, "patchtst") && !strcmp(k.name, "PatchTST"));
    CHECK(!fcast_config_model_kind(0, NULL));
}

int main(void) {
    if (!mkdtemp(dir)) return 1;
    settings_file();
    output_files();
    distinct_paths();
    csv_writers();
    device_forms();
    arch_keys();
    model_kinds();
    char path[256];
    path_in(path, sizeof path, "run.yaml");
    unlink(path);
    rmdir(dir);
    return CHECK_DONE();
}
