/* The file helpers of fcast.h, by public names only:
 *
 *   1. fcast_settings_read: entries in file order with their lines, a
 *      sequence joined with commas, a null value flagged; a key given
 *      twice is FC_ERR_PARSE naming the line, a missing file FC_ERR_IO;
 *   2. fcast_output_check refuses an output in a missing directory, "-"
 *      when not allowed, and an output that is an input under another
 *      name (a symlink), naming the key; fcast_write_file writes the body
 *      whole and leaves the old file when the body fails;
 *   3. fcast_csv_write_field quotes what needs quoting, and
 *      fcast_csv_write_real writes the shortest text that reads back;
 *   4. fcast_device_is_gpu on each form and on a wrong one;
 *   5. fcast_config_arch_key lists keys fcast_config_set knows: a count
 *      key refuses a word as not a number, not as an unknown key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(void) {
    if (!mkdtemp(dir)) return 1;
    settings_file();
    output_files();
    csv_writers();
    device_forms();
    arch_keys();
    char path[256];
    path_in(path, sizeof path, "run.yaml");
    unlink(path);
    rmdir(dir);
    return CHECK_DONE();
}
