/* libFuzzer target for the configuration-file parser (src/io/config_yaml.c,
 * fc_config_parse: YAML through libyaml into flat "flag: value" entries).
 *
 * Build and run by hand from the repository root (clang and
 * libclang-rt-14-dev, libyaml-dev):
 *   clang -std=c11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
 *     -fno-sanitize-recover=undefined -Iinclude -Isrc \
 *     tests/fuzz/fuzz_config.c src/io/config_yaml.c src/core/error.c \
 *     -lyaml -o /tmp/fuzz_config
 * Run, seeded with configurations the CLI prints (any YAML file will do):
 *   mkdir -p /tmp/config_corpus
 *   build/fcast train --print-config > /tmp/config_corpus/train.yaml
 *   build/fcast quant indicators --print-config > /tmp/config_corpus/ind.yaml
 *   /tmp/fuzz_config -dict=tests/fuzz/fuzz_config.dict -max_len=4096 \
 *     -timeout=10 -max_total_time=300 /tmp/config_corpus
 *
 * Linked to the system's libyaml, only this file and config_yaml.c are
 * instrumented and the fuzzer sees ~120 edges; compiled with libyaml's own
 * sources (0.2.5, as Debian ships: src/api.c reader.c scanner.c parser.c,
 * with -I<libyaml>/include -DYAML_VERSION_MAJOR=0 -DYAML_VERSION_MINOR=2
 * -DYAML_VERSION_PATCH=5 '-DYAML_VERSION_STRING="0.2.5"' in place of -lyaml)
 * it is guided through the scanner and parser too (~1,800 edges), which
 * reaches far more event sequences of the kind config_yaml.c must refuse.
 *
 * Besides the sanitizers (and LeakSanitizer, which checks that every error
 * path frees what it built), an accepted file is checked against the
 * parser's promises: keys present, non-empty and unique, lines from 1 and
 * in file order, a null only for a plain empty / ~ / null value. A refusal
 * must be FC_ERR_PARSE (or FC_ERR_MEMORY) with a message naming the file.
 * A violation traps, which libFuzzer reports as a crash. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fcast.h"
#include "io/config_yaml.h"

#define REQUIRE(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static int null_word(const char *v) {
    return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL");
}

static void check_accepted(const fc_config *c, size_t size) {
    REQUIRE(c->path && !strcmp(c->path, "fuzz.yaml"));
    REQUIRE((c->n == 0) == (c->entries == NULL));
    for (size_t i = 0; i < c->n; i++) {
        const fc_config_entry *e = &c->entries[i];
        REQUIRE(e->key && *e->key && e->value);
        /* UTF-16 input (with a BOM) is read as UTF-8: up to 3 bytes for 2 */
        REQUIRE(strlen(e->key) <= 2 * size && strlen(e->value) <= 2 * size + 1);
        REQUIRE(e->line >= 1 && e->line <= size + 1);
        REQUIRE(i == 0 || c->entries[i - 1].line <= e->line);
        REQUIRE(!e->is_null || null_word(e->value));
        REQUIRE(fc_config_find(c, e->key) == e);   /* unique */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fc_config c;
    fc_status st = fc_config_parse("fuzz.yaml", (const char *)data, size, &c);
    if (st == FC_OK) check_accepted(&c, size);
    else REQUIRE((st == FC_ERR_PARSE || st == FC_ERR_MEMORY) && !strncmp(fc_last_error(), "fuzz.yaml", 9));
    fc_config_free(&c);
    REQUIRE(c.entries == NULL && c.n == 0 && c.path == NULL);
    return 0;
}
