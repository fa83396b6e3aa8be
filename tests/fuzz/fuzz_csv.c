// libFuzzer target for the long-format CSV loader (fc_dataset_load_buffer).
//
// Build and run by hand from the repository root (clang with libFuzzer:
// apt-get install -y clang libclang-rt-14-dev):
//
//   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
//       -D_GNU_SOURCE -Iinclude -Isrc tests/fuzz/fuzz_csv.c src/data/*.c src/core/error.c \
//       -lm -o /tmp/fuzz_csv
//   mkdir -p /tmp/fuzz_csv_corpus
//   for f in data/*.csv; do (printf '\0'; head -c 3000 $f) > /tmp/fuzz_csv_corpus/${f#data/}; done
//   /tmp/fuzz_csv -dict=tests/fuzz/fuzz_csv.dict -max_len=4096 -timeout=10 \
//       -rss_limit_mb=2048 -max_total_time=300 /tmp/fuzz_csv_corpus
//
// The first byte picks the options (a forced frequency or inference, keep or
// drop exogenous columns); the rest is the file. Besides the sanitizers,
// every dataset that loads is checked against the loader's promises (sorted
// unique ids, ds strictly increasing one grid step at a time, masked points
// at y = 0) and every failure must leave a message naming the file.
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "data/dataset.h"

#define REQUIRE(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static void check_dataset(const fc_dataset *d) {
    REQUIRE(d->offsets[0] == 0 && d->offsets[d->n_series] == d->n_rows && d->n_series > 0);
    for (size_t s = 0; s < d->n_series; s++) {
        REQUIRE(d->offsets[s] < d->offsets[s + 1]);
        REQUIRE(s == 0 || strcmp(d->ids[s - 1], d->ids[s]) < 0);
        REQUIRE(fc_dataset_find(d, d->ids[s]) == (ssize_t)s);
        for (size_t i = d->offsets[s]; i < d->offsets[s + 1]; i++) {
            REQUIRE(d->mask[i] <= 1 && (d->mask[i] || d->y[i] == 0.0));
            REQUIRE(i == d->offsets[s] || fc_freq_advance(&d->freq, d->ds[i - 1], 1) == d->ds[i]);
            char buf[48];
            fc_ds_format(d->ds_kind, d->ds[i], buf, sizeof buf);
        }
    }
    size_t masked = 0;
    for (size_t i = 0; i < d->n_rows; i++) masked += !d->mask[i];
    REQUIRE(d->n_filled <= masked);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const freqs[8] = {NULL, NULL, NULL, "1", "D", "30min", "MS", "ME"};
    if (size == 0) return 0;
    fc_load_options opt = {.freq = freqs[data[0] & 7], .drop_exog = (data[0] >> 3) & 1, .keep_gaps = (data[0] >> 4) & 1};
    fc_dataset *d = NULL;
    fc_status st = fc_dataset_load_buffer("fuzz.csv", (const char *)data + 1, size - 1, &opt, &d);
    if (st == FC_OK) {
        check_dataset(d);
        fc_dataset_free(&d);
        REQUIRE(d == NULL);
    } else {
        REQUIRE(d == NULL && strncmp(fc_last_error(), "fuzz.csv", 8) == 0);
    }
    return 0;
}
