/* libFuzzer target for the safetensors reader (src/io/safetensors.c).
 *
 * Build (from the repository root; clang and libclang-rt-14-dev):
 *   clang -std=c11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
 *     -fno-sanitize-recover=undefined -Iinclude -Isrc \
 *     tests/fuzz/fuzz_safetensors.c src/io/safetensors.c src/io/atomic_file.c \
 *     src/core/error.c -ljansson -o /tmp/fuzz_safetensors
 * Run, seeded with the files the unit test exports (any .safetensors file
 * will do):
 *   mkdir -p /tmp/st_corpus && build/test_safetensors --export /tmp/st_corpus
 *   /tmp/fuzz_safetensors -max_total_time=300 -max_len=4096 /tmp/st_corpus
 *
 * Each input is tried twice: as a whole file, and as "header JSON, a newline,
 * data bytes" with a correct length prefix put in front, so the fuzzer spends
 * its time inside the JSON and offset checks instead of on the 8-byte length.
 * Accepted files are checked against the format's invariants; a violation
 * traps, which libFuzzer reports as a crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fcast.h"
#include "io/safetensors.h"

#define REQUIRE(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static void check_accepted(const fc_safetensors *f, size_t len) {
    size_t total = 0;
    volatile unsigned char sink = 0;
    for (size_t i = 0; i < fc_st_count(f); i++) {
        const fc_st_tensor *t = fc_st_at(f, i);
        REQUIRE(fc_st_find(f, t->name) == t);
        REQUIRE(t->ndim >= 0 && t->ndim <= FC_ST_MAX_DIMS);
        REQUIRE(t->nbytes == t->numel * fc_dtype_size(t->dtype));
        const unsigned char *d = fc_st_data(f, t);
        REQUIRE((uintptr_t)d % 8 == 0);
        for (size_t b = 0; b < t->nbytes; b++) sink ^= d[b]; /* ASan checks the bounds */
        total += t->nbytes;
        const float *x;
        fc_st_get_f32(f, t->name, t->ndim, t->shape, &x);
    }
    REQUIRE(total <= len);
    for (size_t i = 0; i < fc_st_meta_count(f); i++) {
        const char *k, *v;
        fc_st_meta_at(f, i, &k, &v);
        REQUIRE(fc_st_meta(f, k) != NULL);
    }
    (void)sink;
}

static void try_bytes(const uint8_t *data, size_t size) {
    fc_safetensors *f = NULL;
    fc_status s = fc_st_read_memory(data, size, "fuzz.safetensors", &f);
    REQUIRE(s == FC_OK || s == FC_ERR_FORMAT);
    REQUIRE((s == FC_OK) == (f != NULL));
    REQUIRE(s == FC_OK || strstr(fc_last_error(), "fuzz.safetensors") != NULL);
    if (f) check_accepted(f, size);
    fc_st_free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    try_bytes(data, size);
    const uint8_t *nl = memchr(data, '\n', size);
    size_t header = nl ? (size_t)(nl - data) : size;
    size_t rest = nl ? size - header - 1 : 0;
    uint8_t *buf = malloc(8 + header + rest);
    if (!buf) return 0;
    for (int i = 0; i < 8; i++) buf[i] = (uint8_t)((uint64_t)header >> (8 * i));
    memcpy(buf + 8, data, header);
    if (rest) memcpy(buf + 8 + header, nl + 1, rest);
    try_bytes(buf, 8 + header + rest);
    free(buf);
    return 0;
}
