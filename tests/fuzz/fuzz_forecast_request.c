// libFuzzer target for the forecast endpoint's JSON request body
// (fc_forecast_request_json, serve/forecast_codec.c), and the responses
// built from what it accepts.
//
// Build and run by hand from the repository root (clang with libFuzzer:
// apt-get install -y clang libclang-rt-14-dev; jansson: libjansson-dev):
//
//   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
//       -D_GNU_SOURCE -Iinclude -Isrc -Iserve tests/fuzz/fuzz_forecast_request.c serve/forecast_codec.c \
//       src/data/*.c src/core/error.c src/io/forecast_csv.c src/io/csv_write.c src/io/atomic_file.c \
//       -ljansson -lm -o /tmp/fuzz_forecast_request
//   mkdir -p /tmp/fuzz_forecast_request_corpus
//   printf '\0{"series":[{"unique_id":"a","ds":[1,2,4],"y":[1,null,3.5]}],"h":2}' \
//       > /tmp/fuzz_forecast_request_corpus/index
//   printf '\1{"series":[{"unique_id":"b,\\"q\\nr","ds":["2000-03-01","2000-01-01"],"y":[1e5,-2]},'\
//   '{"unique_id":"a","ds":["2000-02-01"],"y":[0.1]}]}' > /tmp/fuzz_forecast_request_corpus/dates
//   printf '\2{"series":[{"unique_id":"t","ds":["2000-06-05 00:00:00","2000-06-05 00:30"],"y":[1,2]}]}' \
//       > /tmp/fuzz_forecast_request_corpus/datetimes
//   /tmp/fuzz_forecast_request -dict=tests/fuzz/fuzz_forecast_request.dict -max_len=4096 -timeout=10 \
//       -rss_limit_mb=2048 -max_total_time=120 /tmp/fuzz_forecast_request_corpus
//
// The first byte picks the load options (a forced frequency or inference,
// gaps kept or filled) and tight limits; the rest is the body. Besides the
// sanitizers: a refusal must be PARSE, INVALID or MEMORY with a message and
// leave no dataset; an accepted body must give a dataset keeping the
// loader's promises (as tests/fuzz/fuzz_csv.c checks), and its JSON
// response must be valid JSON (ids of any bytes, escapes) and its CSV
// response must read back as h records a series with the same ids.
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "data/csv_reader.h"
#include "data/dataset.h"
#include "data/freq.h"
#include "fcast.h"
#include "forecast_codec.h"

#define REQUIRE(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static void check_dataset(const fc_dataset *d, size_t max_series) {
    REQUIRE(d->offsets[0] == 0 && d->offsets[d->n_series] == d->n_rows && d->n_series > 0);
    REQUIRE(d->n_series <= max_series && d->n_exog == 0);
    for (size_t s = 0; s < d->n_series; s++) {
        REQUIRE(d->offsets[s] < d->offsets[s + 1]);
        REQUIRE(s == 0 || strcmp(d->ids[s - 1], d->ids[s]) < 0);
        for (size_t i = d->offsets[s]; i < d->offsets[s + 1]; i++) {
            REQUIRE(d->mask[i] <= 1 && (d->mask[i] || d->y[i] == 0.0));
            REQUIRE(i == d->offsets[s] || d->ds[i - 1] < d->ds[i]);
        }
    }
}

/* The responses for a forecast of h steps, where predict would write one. */
static void check_responses(const fc_dataset *d, size_t h) {
    /* As predict: only on a frequency (kept gaps may leave none) and a writable future. */
    if (d->freq.step <= 0 || fc_freq_check_future(d, &d->freq, h) != FC_OK) return;
    float *fc = calloc(d->n_series * h, sizeof *fc);
    REQUIRE(fc);
    for (size_t i = 0; i < d->n_series * h; i++) fc[i] = (float)d->y[d->offsets[i / h]] * 0.5f;
    size_t jlen = 0, clen = 0;
    char *json = fc_forecast_response_json("NHITS", d, &d->freq, h, "NHITS", fc, &jlen);
    char *csv = fc_forecast_response_csv(d, &d->freq, h, "NHITS", fc, &clen);
    REQUIRE(json && csv && jlen == strlen(json) && clen == strlen(csv));
    json_error_t err;
    json_t *root = json_loadb(json, jlen, JSON_REJECT_DUPLICATES, &err);
    REQUIRE(root && json_array_size(json_object_get(root, "forecasts")) == d->n_series);
    json_decref(root);
    /* Read back as CSV records: h rows a series, ids intact (not as a
     * dataset: a date ds on a finer frequency, e.g. 30min, prints equal
     * future dates, as fcast predict's file does). */
    fc_csv_reader r;
    size_t n, line, rows = 0;
    int blank;
    fc_csv_init(&r, csv, clen, 4);
    REQUIRE(fc_csv_next(&r, &n, &line, &blank) == FC_CSV_RECORD && n == 3);
    for (; fc_csv_next(&r, &n, &line, &blank) == FC_CSV_RECORD; rows++) {
        const char *id = d->ids[rows / h];
        REQUIRE(rows < d->n_series * h && n == 3 && r.fields[0].len == strlen(id));
        REQUIRE(memcmp(r.fields[0].ptr, id, r.fields[0].len) == 0);
    }
    REQUIRE(rows == d->n_series * h);
    fc_csv_free(&r);
    free(json);
    free(csv);
    free(fc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const freqs[8] = {NULL, NULL, NULL, "1", "D", "30min", "MS", "2"};
    if (size == 0) return 0;
    fc_load_options opt = {.freq = freqs[data[0] & 7], .drop_exog = 1, .keep_gaps = (data[0] >> 3) & 1};
    fc_forecast_limits lim = {.max_series = 64, .max_points = 2048};
    fc_dataset *d = NULL;
    fc_forecast_params p;
    fc_status st = fc_forecast_request_json((const char *)data + 1, size - 1, &opt, &lim, &d, &p);
    size_t h = p.h;
    if (st == FC_OK) {
        check_dataset(d, lim.max_series);
        check_responses(d, h ? (h > 4 ? 4 : h) : 2);
        fc_dataset_free(&d);
    } else {
        REQUIRE(d == NULL && h == 0 && fc_last_error()[0] != '\0');
        REQUIRE(st == FC_ERR_PARSE || st == FC_ERR_INVALID || st == FC_ERR_MEMORY);
    }
    return 0;
}
