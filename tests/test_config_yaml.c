/* Configuration files (src/io/config_yaml.c): what a YAML mapping of flags
 * reads as, and every refusal with the line it names. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/error.h"
#include "io/config_yaml.h"

static fc_status parse(const char *text, fc_config *c) {
    return fc_config_parse("run.yaml", text, strlen(text), c);
}

static const char *value(const fc_config *c, const char *key) {
    const fc_config_entry *e = fc_config_find(c, key);
    return e ? e->value : "(missing)";
}

static void test_scalars_lists_comments_quotes(void) {
    fc_config c;
    const char *text =
        "# a comment line\n"
        "data: data/monthly_classics.csv   # trailing comment\n"
        "h: 012\n"
        "lr: 1e-3\n"
        "out: \"a # b.safetensors\"\n"
        "scaler: 'standard'\n"
        "mlp-units: [512, 512, 24:512]\n"
        "n-blocks:\n"
        "  - 1\n"
        "  - 2\n"
        "quiet: true\n"
        "freq:\n";
    CHECK_MSG(parse(text, &c) == FC_OK, "%s", fc_last_error());
    CHECK(c.n == 9);
    CHECK(!strcmp(value(&c, "data"), "data/monthly_classics.csv"));
    CHECK(!strcmp(value(&c, "h"), "012"));   /* the flag parser, not YAML, reads numbers */
    CHECK(!strcmp(value(&c, "lr"), "1e-3"));
    CHECK(!strcmp(value(&c, "out"), "a # b.safetensors"));
    CHECK(!strcmp(value(&c, "scaler"), "standard"));
    CHECK(!strcmp(value(&c, "mlp-units"), "512,512,24:512"));
    CHECK(!strcmp(value(&c, "n-blocks"), "1,2"));
    CHECK(!strcmp(value(&c, "quiet"), "true"));
    CHECK(fc_config_find(&c, "freq") && fc_config_find(&c, "freq")->is_null);
    CHECK(!fc_config_find(&c, "data")->is_null);
    CHECK(fc_config_find(&c, "h")->line == 3);
    CHECK(fc_config_find(&c, "n-blocks")->line == 8);
    CHECK(!strcmp(c.path, "run.yaml"));
    fc_config_free(&c);
    CHECK(c.entries == NULL && c.n == 0);

    CHECK(parse("out: \"\"\n", &c) == FC_OK && !fc_config_find(&c, "out")->is_null);   /* quoted empty is text */
    fc_config_free(&c);
}

static void test_empty_files(void) {
    const char *empty[] = {"", "# only a comment\n", "---\n", "{}\n", "~\n"};
    for (size_t i = 0; i < sizeof empty / sizeof *empty; i++) {
        fc_config c;
        CHECK_MSG(parse(empty[i], &c) == FC_OK && c.n == 0, "'%s': %s", empty[i], fc_last_error());
        fc_config_free(&c);
    }
}

/* Each malformed file: the status, and what the message must say. */
static void test_refusals(void) {
    static const struct { const char *text; fc_status st; const char *needle[2]; } cases[] = {
        {"a: 1\nb: [1, 2\nc: 3\n", FC_ERR_PARSE, {"run.yaml:3:2: YAML syntax error", "flow sequence"}},
        {"a: 1\n  b: 2\n", FC_ERR_PARSE, {"run.yaml:2:4: YAML syntax error", "mapping values are not allowed"}},
        {"a: \"unterminated\n", FC_ERR_PARSE, {"run.yaml:2:1: YAML syntax error", "quoted scalar"}},
        {"- a\n- b\n", FC_ERR_PARSE, {"run.yaml:1: the top level must be a mapping", "not a list"}},
        {"just text\n", FC_ERR_PARSE, {"run.yaml:1: the top level must be a mapping", "not a single value"}},
        {"a: 1\nmodel:\n  name: nhits\n", FC_ERR_PARSE, {"run.yaml:3: 'model' has a mapping as its value", ""}},
        {"a: 1\nb: [1, [2]]\n", FC_ERR_PARSE, {"run.yaml:2: 'b' (line 2): a list item must be a single value", "a list"}},
        {"b: [1, , 2]\n", FC_ERR_PARSE, {"run.yaml:1:", "YAML syntax error"}},
        {"b:\n  - 1\n  -\n", FC_ERR_PARSE, {"run.yaml:3: 'b' (line 1): a list item must be a single value, not empty", ""}},
        {"seed: 1\nh: 2\nseed: 3\n", FC_ERR_PARSE, {"run.yaml:3: 'seed' given twice (first at run.yaml:1)", ""}},
        {"a: &x 1\nb: *x\n", FC_ERR_PARSE, {"run.yaml:2: 'b' has an alias", ""}},
        {"a: 1\n---\nb: 2\n", FC_ERR_PARSE, {"run.yaml:2: a second document", ""}},
        {"[a, b]: 1\n", FC_ERR_PARSE, {"run.yaml:1: a key must be a flag name, not a list", ""}},
        {"~: 1\n", FC_ERR_PARSE, {"run.yaml:1: a key must be a flag name, not empty", ""}},
        /* found by tests/fuzz/fuzz_config.c: a quoted empty key was accepted, as key "" */
        {"seed: 1\n\"\": 1\n", FC_ERR_PARSE, {"run.yaml:2: a key must be a flag name, not empty", ""}},
        {"'': 1\n", FC_ERR_PARSE, {"run.yaml:1: a key must be a flag name, not empty", ""}},
        {"a: \"x\\0y\"\n", FC_ERR_PARSE, {"run.yaml:1: a value contains a NUL character", ""}},
        {"a: \xff\xfe\n", FC_ERR_PARSE, {"run.yaml: byte 3:", "UTF-8"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        fc_config c;
        fc_status st = parse(cases[i].text, &c);
        CHECK_MSG(st == cases[i].st, "case %zu: status %d, message '%s'", i, st, fc_last_error());
        CHECK_CONTAINS(fc_last_error(), cases[i].needle[0]);
        CHECK_CONTAINS(fc_last_error(), cases[i].needle[1]);
        fc_config_free(&c);
    }
}

/* Files: read whole; a missing file, a directory and a FIFO are refused at
 * once (a FIFO without a writer must not block). */
static void test_files(void) {
    char dir[] = "/tmp/fc_config_test.XXXXXX", path[256], fifo[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/run.yaml", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo.yaml", dir);
    fc_config c;

    check_write_text(path, "max-steps: 5\nquiet: false\n");
    CHECK_MSG(fc_config_load(path, &c) == FC_OK && c.n == 2, "%s", fc_last_error());
    CHECK(!strcmp(value(&c, "max-steps"), "5") && fc_config_find(&c, "quiet")->line == 2);
    CHECK(!strcmp(c.path, path));
    fc_config_free(&c);

    check_write_text(path, "max-steps: 5\nmax-steps: 6\n");
    CHECK(fc_config_load(path, &c) == FC_ERR_PARSE);
    CHECK_CONTAINS(fc_last_error(), "run.yaml:2: 'max-steps' given twice");
    fc_config_free(&c);

    snprintf(path, sizeof path, "%s/missing.yaml", dir);
    CHECK(fc_config_load(path, &c) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "missing.yaml: cannot open the configuration file: No such file or directory");
    fc_config_free(&c);

    CHECK(fc_config_load(dir, &c) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "is a directory");
    fc_config_free(&c);

    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(fc_config_load(fifo, &c) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "fifo.yaml: not a regular file");
    fc_config_free(&c);

    unlink(fifo);
    snprintf(path, sizeof path, "%s/run.yaml", dir);
    unlink(path);
    rmdir(dir);
}

int main(void) {
    alarm(60);   /* a FIFO opened without O_NONBLOCK would hang here: fail instead */
    test_scalars_lists_comments_quotes();
    test_empty_files();
    test_refusals();
    test_files();
    return CHECK_DONE();
}
