/* The forecast endpoint's bodies (serve/forecast_codec.c):
 *   - a JSON request gives, field by field and bit by bit, the dataset the
 *     CSV loader builds from the equivalent CSV (the bundled data files,
 *     and hostile ids, nulls, unsorted and integer ds, awkward reals);
 *   - a CSV request is the loader's, within the limits;
 *   - the CSV response is byte for byte the file fcast predict writes, and
 *     the JSON response carries the same text for every ds and number;
 *   - malformed and hostile JSON bodies are refused with the right status
 *     and a message naming the field, and never crash (run under ASan too). */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "core/error.h"
#include "data/csv_reader.h"
#include "data/dataset.h"
#include "data/ds_text.h"
#include "data/number_parse.h"
#include "forecast_codec.h"
#include "io/csv_write.h"
#include "io/forecast_csv.h"

static const fc_load_options predict_opt = {.drop_exog = 1};   /* as fc_load_history loads --data */

/* ------------------------------------------------------------ helpers */

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = malloc((size_t)n + 1);
    *len = text ? fread(text, 1, (size_t)n, f) : 0;
    if (text) text[*len] = '\0';
    fclose(f);
    return text;
}

/* A growing string on a memory stream. */
typedef struct {
    FILE *f;
    char *text;
    size_t len;
} sbuf;

static void sb_open(sbuf *b) { b->f = open_memstream(&b->text, &b->len); }
static char *sb_close(sbuf *b) {
    fclose(b->f);
    return b->text;
}

static void put_json_text(FILE *f, const char *s) {
    json_t *j = json_string(s);
    char *t = json_dumps(j, JSON_ENCODE_ANY);
    fputs(t, f);
    free(t);
    json_decref(j);
}

/* One row of a table written both ways: y_text a JSON number literal
 * (which is a CSV number too) or "" for missing. */
typedef struct {
    const char *id, *ds, *y;
} row;

/* The JSON body of consecutive rows grouped by id. ds written as a JSON
 * integer when it is an integer index, else as a string. */
static char *rows_to_json(const row *rows, size_t n) {
    sbuf b;
    sb_open(&b);
    fputs("{\"series\":[", b.f);
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && strcmp(rows[e].id, rows[i].id) == 0) e++;
        fputs(i ? ",{\"unique_id\":" : "{\"unique_id\":", b.f);
        put_json_text(b.f, rows[i].id);
        fputs(",\"ds\":[", b.f);
        for (size_t k = i; k < e; k++) {
            fc_ds_kind kind;
            int64_t v;
            if (k > i) fputc(',', b.f);
            if (fc_ds_parse(rows[k].ds, strlen(rows[k].ds), &kind, &v) && kind == FC_DS_INDEX) fputs(rows[k].ds, b.f);
            else put_json_text(b.f, rows[k].ds);
        }
        fputs("],\"y\":[", b.f);
        for (size_t k = i; k < e; k++) {
            double v;
            if (k > i) fputc(',', b.f);
            fputs(fc_parse_number(rows[k].y, strlen(rows[k].y), &v) == FC_NUM_MISSING ? "null" : rows[k].y, b.f);
        }
        fputs("]}", b.f);
        i = e;
    }
    fputs("]}", b.f);
    return sb_close(&b);
}

static char *rows_to_csv(const row *rows, size_t n) {
    sbuf b;
    sb_open(&b);
    fputs("unique_id,ds,y\n", b.f);
    for (size_t i = 0; i < n; i++) {
        fc_csv_write_field(b.f, rows[i].id);
        fprintf(b.f, ",%s,%s\n", rows[i].ds, rows[i].y);
    }
    return sb_close(&b);
}

/* The rows of a unique_id,ds,y CSV text (spans into reader-owned copies). */
static row *csv_rows(const char *text, size_t len, size_t *n) {
    fc_csv_reader r;
    size_t nf, line, cap = 64;
    int blank, header = 1;
    row *rows = malloc(cap * sizeof *rows);
    *n = 0;
    fc_csv_init(&r, text, len, 3);
    while (fc_csv_next(&r, &nf, &line, &blank) == FC_CSV_RECORD) {
        if (blank || header) { header = 0; continue; }
        if (*n == cap) rows = realloc(rows, (cap *= 2) * sizeof *rows);
        char *f[3];
        for (int k = 0; k < 3; k++) f[k] = strndup(r.fields[k].ptr, r.fields[k].len);
        rows[(*n)++] = (row){f[0], f[1], f[2]};
    }
    fc_csv_free(&r);
    return rows;
}

static void free_rows(row *rows, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free((char *)rows[i].id);
        free((char *)rows[i].ds);
        free((char *)rows[i].y);
    }
    free(rows);
}

/* Every field of two datasets, the doubles by their bits. */
static void check_same(const fc_dataset *a, const fc_dataset *b, const char *what) {
    CHECK_MSG(a && b, "%s: a dataset is missing", what);
    if (!a || !b) return;
    CHECK_MSG(a->n_series == b->n_series && a->n_rows == b->n_rows, "%s: %zu/%zu series, %zu/%zu rows", what,
              a->n_series, b->n_series, a->n_rows, b->n_rows);
    if (a->n_series != b->n_series || a->n_rows != b->n_rows) return;
    for (size_t s = 0; s < a->n_series; s++) CHECK_MSG(!strcmp(a->ids[s], b->ids[s]), "%s: id %zu", what, s);
    CHECK_MSG(!memcmp(a->offsets, b->offsets, (a->n_series + 1) * sizeof *a->offsets), "%s: offsets", what);
    CHECK_MSG(!memcmp(a->ds, b->ds, a->n_rows * sizeof *a->ds), "%s: ds", what);
    CHECK_MSG(!memcmp(a->y, b->y, a->n_rows * sizeof *a->y), "%s: y bits", what);
    CHECK_MSG(!memcmp(a->mask, b->mask, a->n_rows), "%s: mask", what);
    CHECK_MSG(a->ds_kind == b->ds_kind && a->n_exog == b->n_exog && a->n_filled == b->n_filled, "%s: kind", what);
    CHECK_MSG(a->freq.unit == b->freq.unit && a->freq.step == b->freq.step && a->freq.month_end == b->freq.month_end &&
                  !strcmp(a->freq.name, b->freq.name), "%s: freq %s / %s", what, a->freq.name, b->freq.name);
}

/* The JSON body and the CSV text of the rows load to the same dataset. */
static void check_rows_equal(const row *rows, size_t n, const fc_load_options *opt, const char *what) {
    char *json = rows_to_json(rows, n), *csv = rows_to_csv(rows, n);
    fc_dataset *a = NULL, *b = NULL;
    fc_forecast_params pr = {.h = 7};
    fc_status st = fc_forecast_request_json(json, strlen(json), opt, NULL, &a, &pr);
    size_t h = pr.h;
    CHECK_MSG(st == FC_OK, "%s: %s", what, fc_last_error());
    CHECK(h == 0);
    CHECK_MSG(fc_dataset_load_buffer("request", csv, strlen(csv), opt, &b) == FC_OK, "%s: %s", what, fc_last_error());
    check_same(a, b, what);
    fc_dataset_free(&a);
    fc_dataset_free(&b);
    free(json);
    free(csv);
}

/* ------------------------------------------------ requests: equality */

/* Each bundled file, as JSON, against fc_dataset_load_csv of the file. */
static void test_bundled_files(void) {
    static const char *const files[] = {"monthly_classics.csv", "quarterly_classics.csv", "sunspot_monthly.csv",
                                        "taylor_halfhourly.csv", "eu_stock_markets.csv"};
    static const char *const freqs[] = {"MS", "QS", "MS", "30min", "1"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[512];
        size_t len, n;
        snprintf(path, sizeof path, "%s/data/%s", FC_SOURCE_DIR, files[i]);
        char *text = read_all(path, &len);
        CHECK_MSG(text != NULL, "cannot read %s", path);
        if (!text) continue;
        row *rows = csv_rows(text, len, &n);
        char *json = rows_to_json(rows, n);
        fc_load_options with_freq = predict_opt;
        with_freq.freq = freqs[i];
        const fc_load_options *opts[2] = {&predict_opt, &with_freq};
        for (int k = 0; k < 2; k++) {
            fc_dataset *a = NULL, *b = NULL;
            fc_forecast_params h;
            fc_forecast_limits lim = {.max_series = 4, .max_points = n};
            CHECK_MSG(fc_forecast_request_json(json, strlen(json), opts[k], &lim, &a, &h) == FC_OK, "%s: %s",
                      files[i], fc_last_error());
            CHECK(fc_dataset_load_csv(path, opts[k], &b) == FC_OK);
            check_same(a, b, files[i]);
            CHECK(a && !strcmp(a->source, "request"));
            fc_dataset_free(&a);
            fc_dataset_free(&b);
        }
        free(json);
        free_rows(rows, n);
        free(text);
    }
}

/* Ids that need CSV quoting or JSON escaping, missing values, unsorted ds,
 * gaps, and reals whose text must survive the trip exactly. */
static void test_hostile_tables(void) {
    static const row ids[] = {
        {"a,b", "1", "1.5"},      {"a,b", "2", ""},         {"a,b", "3", "0.1"},
        {"q\"uote\"", "3", "2"},  {"q\"uote\"", "1", "-0.0"}, {"q\"uote\"", "2", "1e-300"},
        {"line\nbreak", "1", "123456789.123456789"}, {"line\nbreak", "2", "3.4e38"},
        {"crlf\r\nid", "5", "7"}, {"crlf\r\nid", "9", "8"},  {"lone\rcr", "1", "-2.5E+10"},
        {"lone\rcr", "2", "9007199254740993"},               {" spaced ", "1", "4.9e-324"},
        {" spaced ", "2", "0.30000000000000004"},            {"\xc3\xa9t\xc3\xa9 \xe2\x82\xac", "1", "1"},
        {"\xc3\xa9t\xc3\xa9 \xe2\x82\xac", "2", "2"},        {"tab\there", "1", "1"}, {"tab\there", "3", "-7"},
        {"NaN", "1", "1"}, {"NaN", "2", "2"}, {"\"", "1", ""}, {"\"", "2", "5"},
    };
    check_rows_equal(ids, sizeof ids / sizeof *ids, &predict_opt, "hostile ids");
    static const row dates[] = {
        {"b", "2001-02-01", "2"}, {"b", "2001-01-01", "1"}, {"b", "2001-05-01", "5"}, {"b", "2001-04-01", ""},
    };
    check_rows_equal(dates, sizeof dates / sizeof *dates, &predict_opt, "unsorted dates with a gap");
    fc_load_options ms = {.freq = "MS", .drop_exog = 1};
    check_rows_equal(dates, sizeof dates / sizeof *dates, &ms, "dates, freq MS");
    fc_load_options keep = {.drop_exog = 1, .keep_gaps = 1};
    check_rows_equal(ids, sizeof ids / sizeof *ids, &keep, "keep_gaps");
}

static void test_h_and_csv_route(void) {
    const char *body = "{\"h\": 12, \"series\": [{\"unique_id\": \"x\", \"ds\": [3, 1, 2], \"y\": [null, 2, 3.25]}]}";
    fc_dataset *a = NULL, *b = NULL;
    fc_forecast_params pr;
    CHECK_MSG(fc_forecast_request_json(body, strlen(body), &predict_opt, NULL, &a, &pr) == FC_OK, "%s", fc_last_error());
    CHECK(pr.h == 12 && a && a->n_rows == 3 && a->ds[0] == 1 && !a->mask[2] && a->y[1] == 3.25);
    CHECK(fc_forecast_request_json(body, strlen(body), &predict_opt, NULL, &b, NULL) == FC_OK);
    fc_dataset_free(&b);
    const char *csv = "unique_id,ds,y\nx,3,\n\nx,1,2\nx,2,3.25\n";
    fc_forecast_limits lim = {.max_series = 1, .max_points = 3};
    CHECK_MSG(fc_forecast_request_csv(csv, strlen(csv), &predict_opt, &lim, &b) == FC_OK, "%s", fc_last_error());
    check_same(a, b, "csv route");
    fc_dataset_free(&a);
    fc_dataset_free(&b);
    lim.max_points = 2;
    CHECK(fc_forecast_request_csv(csv, strlen(csv), &predict_opt, &lim, &b) == FC_ERR_MEMORY && !b);
    CHECK_CONTAINS(fc_last_error(), "3 points, more than the limit of 2 points in one request (max_points)");
    const char *two = "unique_id,ds,y\nx,1,1\ny,1,2\nx,2,1\ny,2,2\n";
    lim = (fc_forecast_limits){.max_series = 1, .max_points = 4};
    CHECK(fc_forecast_request_csv(two, strlen(two), &predict_opt, &lim, &b) == FC_ERR_MEMORY && !b);
    CHECK_CONTAINS(fc_last_error(), "2 series, more than the limit of 1 series in one request (max_series)");
    const char *bad = "unique_id,ds,y\n\"x,1,1\n";
    CHECK(fc_forecast_request_csv(bad, strlen(bad), &predict_opt, &lim, &b) == FC_ERR_PARSE && !b);
    CHECK_CONTAINS(fc_last_error(), "request:2: ");
    CHECK(fc_forecast_request_csv(NULL, 0, &predict_opt, &lim, &b) == FC_ERR_PARSE && !b);
    CHECK_CONTAINS(fc_last_error(), "request:1: empty file");
}

/* ----------------------------------------------------------- responses */

/* Forecast values that stress %.9g: tiny, huge, negative, integral. */
static float *make_forecasts(size_t n) {
    static const float special[] = {0.0f, -0.0f, 1e-45f, 3.4028235e38f, -1.5f, 112.0f, 0.1f, 1e-7f, 123456.789f};
    float *fc = malloc(n * sizeof *fc);
    for (size_t i = 0; i < n; i++)
        fc[i] = i < sizeof special / sizeof *special ? special[i] : (float)(sin((double)i) * pow(10.0, (double)(i % 13) - 6));
    return fc;
}

/* The values and ds of the k-th `key`[...] array in the JSON text. */
static int json_array_text(const char *json, const char *key, size_t nth, char ***items, size_t *n) {
    const char *p = json;
    for (size_t k = 0; p && k <= nth; k++) {
        p = strstr(p, key);
        if (p && k < nth) p += strlen(key);
    }
    if (!p) return 0;
    p += strlen(key);
    const char *end = strchr(p, ']');
    *n = 0;
    *items = NULL;
    while (p < end) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        if (!c) c = end;
        *items = realloc(*items, (*n + 1) * sizeof **items);
        (*items)[(*n)++] = strndup(p, (size_t)(c - p));
        p = c + 1;
    }
    return 1;
}

static void free_items(char **items, size_t n) {
    for (size_t i = 0; i < n; i++) free(items[i]);
    free(items);
}

/* Each JSON forecast carries the CSV's ds and value text. */
static void check_json_against_csv(const char *json, const char *csv, const fc_dataset *d, size_t h) {
    size_t n;
    row *rows = csv_rows(csv, strlen(csv), &n);
    json_error_t err;
    json_t *root = json_loads(json, 0, &err);
    CHECK_MSG(root != NULL, "JSON response does not parse: %s", err.text);
    json_t *fcs = json_object_get(root, "forecasts");
    CHECK(n == d->n_series * h && json_array_size(fcs) == d->n_series);
    CHECK(!strcmp(json_string_value(json_object_get(root, "model")), "NHITS"));
    CHECK((size_t)json_integer_value(json_object_get(root, "h")) == h);
    for (size_t s = 0; s < d->n_series && n == d->n_series * h; s++) {
        json_t *one = json_array_get(fcs, s);
        const char *id = json_string_value(json_object_get(one, "unique_id"));
        CHECK_MSG(id && (!strcmp(id, d->ids[s]) || strstr(id, "\xef\xbf\xbd")), "id %zu", s);
        CHECK(json_array_size(json_object_get(one, "ds")) == h && json_array_size(json_object_get(one, "NHITS")) == h);
        char **ds, **vals;
        size_t nds = 0, nv = 0;
        CHECK(json_array_text(json, "\"ds\":[", s, &ds, &nds) && nds == h);
        CHECK(json_array_text(json, "\"NHITS\":[", s, &vals, &nv) && nv == h);
        for (size_t k = 0; k < h && nds == h && nv == h; k++) {
            const row *r = &rows[s * h + k];
            char want[80];
            snprintf(want, sizeof want, d->ds_kind == FC_DS_INDEX ? "%s" : "\"%s\"", r->ds);
            CHECK_MSG(!strcmp(ds[k], want), "ds %s vs %s", ds[k], want);
            int finite = strcmp(r->y, "nan") && strcmp(r->y, "-nan") && strcmp(r->y, "inf") && strcmp(r->y, "-inf");
            CHECK_MSG(!strcmp(vals[k], finite ? r->y : "null"), "value %s vs %s", vals[k], r->y);
        }
        free_items(ds, nds);
        free_items(vals, nv);
    }
    json_decref(root);
    free_rows(rows, n);
}

static void check_responses(const fc_dataset *d, size_t h, const char *what) {
    float *fc = make_forecasts(d->n_series * h);
    if (d->n_series * h > 12) fc[11] = NAN;
    char path[128];
    snprintf(path, sizeof path, "/tmp/fcast_test_serve_codec_%d.csv", (int)getpid());
    CHECK(fc_forecast_write_csv(path, d, &d->freq, h, "NHITS", fc) == FC_OK);
    size_t flen = 0, clen = 0, jlen = 0;
    char *file = read_all(path, &flen);
    remove(path);
    char *csv = fc_forecast_response_csv(d, &d->freq, h, "NHITS", fc, &clen);
    char *json = fc_forecast_response_json("NHITS", d, &d->freq, h, "NHITS", fc, &jlen);
    CHECK_MSG(file && csv && clen == flen && !memcmp(file, csv, flen), "%s: CSV response differs from the file", what);
    CHECK(json && jlen == strlen(json));
    if (csv && json) check_json_against_csv(json, csv, d, h);
    free(file);
    free(csv);
    free(json);
    free(fc);
}

static void test_responses(void) {
    fc_dataset *d = NULL;
    CHECK(fc_dataset_load_csv(FC_SOURCE_DIR "/data/monthly_classics.csv", &predict_opt, &d) == FC_OK);
    if (d) check_responses(d, 24, "monthly");
    fc_dataset_free(&d);
    CHECK(fc_dataset_load_csv(FC_SOURCE_DIR "/data/taylor_halfhourly.csv", &predict_opt, &d) == FC_OK);
    if (d) check_responses(d, 5, "half-hourly");
    fc_dataset_free(&d);
    /* Integer ds, ids needing escapes, and an id that is not UTF-8. */
    const char *csv = "unique_id,ds,y\n\"a,\"\"b\"\"\",1,1\n\"a,\"\"b\"\"\",3,2\n\"c\\d\x01\ne\",-4,1\n"
                      "\"c\\d\x01\ne\",-2,1\nbad\xff\xc0\xe2\x82,10,1\nbad\xff\xc0\xe2\x82,12,3\n";
    CHECK_MSG(fc_dataset_load_buffer("t", csv, strlen(csv), &predict_opt, &d) == FC_OK, "%s", fc_last_error());
    if (d) check_responses(d, 3, "index");
    size_t len;
    float fc[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    char *json = d ? fc_forecast_response_json("MLP", d, &d->freq, 3, "MLP", fc, &len) : NULL;
    CHECK(json && strstr(json, "{\"unique_id\":\"a,\\\"b\\\"\",\"ds\":[5,7,9],\"MLP\":[1,2,3]}"));
    CHECK(json && strstr(json, "\"unique_id\":\"bad\\ufffd\\ufffd\\ufffd\\ufffd\""));
    CHECK(json && strstr(json, "\"unique_id\":\"c\\\\d\\u0001\\ne\",\"ds\":[0,2,4]"));
    const char *head = "{\"model\":\"MLP\",\"h\":3,\"forecasts\":[";
    CHECK(json && !strncmp(json, head, strlen(head)) && json[len - 1] == '\n' && json[len - 2] == '}');
    free(json);
    fc_dataset_free(&d);
}

/* ------------------------------------------------ requests: refusals */

#define S(id, ds, y) "{\"unique_id\":\"" id "\",\"ds\":" ds ",\"y\":" y "}"
#define REQ(series) "{\"series\":[" series "]}"
#define OK1 S("a", "[1,2,3]", "[1,2,3]")

typedef struct {
    const char *body;
    fc_status code;
    const char *needle;
} bad_case;

static const bad_case bad_cases[] = {
    /* malformed JSON: jansson's line and column */
    {"", FC_ERR_PARSE, "request: invalid JSON at line 1, column 0"},
    {"{", FC_ERR_PARSE, "invalid JSON at line 1"},
    {"{\"series\":[}", FC_ERR_PARSE, "invalid JSON at line 1, column 12"},
    {"[1,2", FC_ERR_PARSE, "invalid JSON"},
    {REQ(OK1) "x", FC_ERR_PARSE, "end of file expected"},
    {"{'series':[]}", FC_ERR_PARSE, "invalid JSON"},
    {REQ(S("a", "[1,2]", "[1,NaN]")), FC_ERR_PARSE, "invalid JSON at line 1"},
    {REQ(S("a", "[1,2]", "[1,Infinity]")), FC_ERR_PARSE, "invalid JSON"},
    {REQ(S("a", "[1,2]", "[1,-Infinity]")), FC_ERR_PARSE, "invalid JSON"},
    {REQ(S("a", "[1,2]", "[1,1e400]")), FC_ERR_PARSE, "real number overflow"},
    {REQ(S("a", "[1,2]", "[1,-1e400]")), FC_ERR_PARSE, "real number overflow"},
    {REQ(S("a", "[1,99999999999999999999]", "[1,2]")), FC_ERR_PARSE, "too big integer"},
    {REQ(S("a", "[1,2]", "[1,-99999999999999999999]")), FC_ERR_PARSE, "too big negative integer"},
    {REQ(OK1) ",\"series\":[]}", FC_ERR_PARSE, "end of file expected"},
    {"{\"series\":[" OK1 "],\"series\":[" OK1 "]}", FC_ERR_PARSE, "duplicate object key"},
    {REQ("{\"unique_id\":\"a\",\"ds\":[1],\"y\":[1],\"y\":[2]}"), FC_ERR_PARSE, "duplicate object key"},
    {REQ(S("a\\u0000b", "[1,2]", "[1,2]")), FC_ERR_PARSE, "\\u0000 is not allowed"},
    {REQ(S("a\xff", "[1,2]", "[1,2]")), FC_ERR_PARSE, "unable to decode byte 0xff"},
    {"{\"series\":[" OK1 "],\"h\":1e400}", FC_ERR_PARSE, "real number overflow"},
    {"{\"series\":[" OK1 "],\"h\":3}garbage", FC_ERR_PARSE, "end of file expected"},
    /* the top level */
    {"[]", FC_ERR_INVALID, "request: expected a JSON object {\"series\": [...]}, got an array"},
    {"{}", FC_ERR_INVALID, "series: missing"},
    {"{\"series\":null}", FC_ERR_INVALID, "series: expected a non-empty array, got null"},
    {"{\"series\":[]}", FC_ERR_INVALID, "series: expected a non-empty array, got an empty one"},
    {"{\"series\":{}}", FC_ERR_INVALID, "series: expected a non-empty array, got an object"},
    {"{\"series\":\"a,1,2\"}", FC_ERR_INVALID, "series: expected a non-empty array, got a string"},
    {"{\"series\":[" OK1 "],\"horizon\":3}", FC_ERR_INVALID, "request: unknown key 'horizon' (expected \"series\""},
    {"{\"Series\":[" OK1 "]}", FC_ERR_INVALID, "request: unknown key 'Series'"},
    {"{\"series\":[" OK1 "],\"h\":0}", FC_ERR_INVALID, "h: expected a positive integer, got 0"},
    {"{\"series\":[" OK1 "],\"h\":-3}", FC_ERR_INVALID, "h: expected a positive integer, got -3"},
    {"{\"series\":[" OK1 "],\"h\":\"3\"}", FC_ERR_INVALID, "h: expected a positive integer, got a string"},
    {"{\"series\":[" OK1 "],\"h\":2.5}", FC_ERR_INVALID, "h: expected a positive integer, got a real number"},
    {"{\"series\":[" OK1 "],\"h\":null}", FC_ERR_INVALID, "h: expected a positive integer, got null"},
    /* a series */
    {REQ("1"), FC_ERR_INVALID, "series[0]: expected an object with unique_id, ds and y, got an integer"},
    {REQ("null"), FC_ERR_INVALID, "series[0]: expected an object with unique_id, ds and y, got null"},
    {REQ(OK1 ",[]"), FC_ERR_INVALID, "series[1]: expected an object with unique_id, ds and y, got an array"},
    {REQ("{\"unique_id\":\"a\",\"ds\":[1],\"y\":[1],\"yy\":[1]}"), FC_ERR_INVALID,
     "series[0]: unknown key 'yy' (expected unique_id, ds and y)"},
    {REQ("{\"ds\":[1],\"y\":[1]}"), FC_ERR_INVALID, "series[0].unique_id: missing"},
    {REQ("{\"unique_id\":5,\"ds\":[1],\"y\":[1]}"), FC_ERR_INVALID,
     "series[0].unique_id: expected a non-empty string, got an integer"},
    {REQ("{\"unique_id\":null,\"ds\":[1],\"y\":[1]}"), FC_ERR_INVALID, "series[0].unique_id: expected a non-empty string, got null"},
    {REQ(OK1 "," S("", "[1]", "[1]")), FC_ERR_INVALID, "series[1].unique_id: expected a non-empty string, got an empty one"},
    {REQ("{\"unique_id\":\"a\",\"y\":[1]}"), FC_ERR_INVALID, "series[0].ds: missing"},
    {REQ("{\"unique_id\":\"a\",\"ds\":[1]}"), FC_ERR_INVALID, "series[0].y: missing"},
    {REQ(S("a", "null", "[1]")), FC_ERR_INVALID, "series[0].ds: expected a non-empty array, got null"},
    {REQ(S("a", "[]", "[]")), FC_ERR_INVALID, "series[0].ds: expected a non-empty array, got an empty one"},
    {REQ(S("a", "[1]", "{}")), FC_ERR_INVALID, "series[0].y: expected a non-empty array, got an object"},
    {REQ(S("a", "[1]", "7")), FC_ERR_INVALID, "series[0].y: expected a non-empty array, got an integer"},
    {REQ(OK1 "," S("b", "[1,2,3,4,5]", "[1,2,3,4]")), FC_ERR_INVALID,
     "series[1].ds and series[1].y have different lengths (5 and 4)"},
    /* entries */
    {REQ(OK1 "," S("b", "[1,2,3]", "[1,2,3]") "," S("c", "[1,2,3,4,5,6,7,8]", "[1,2,3,4,5,6,7,\"8\"]")), FC_ERR_INVALID,
     "series[2].y[7]: expected a number or null, got a string"},
    {REQ(S("a", "[1,2]", "[true,2]")), FC_ERR_INVALID, "series[0].y[0]: expected a number or null, got a boolean"},
    {REQ(S("a", "[1,2]", "[1,[2]]")), FC_ERR_INVALID, "series[0].y[1]: expected a number or null, got an array"},
    {REQ(S("a", "[1,2]", "[1,{}]")), FC_ERR_INVALID, "series[0].y[1]: expected a number or null, got an object"},
    {REQ(S("a", "[1,2]", "[1,\"NaN\"]")), FC_ERR_INVALID, "series[0].y[1]: expected a number or null, got a string"},
    {REQ(OK1 "," S("b", "[\"2000-01-01\"]", "[1]")), FC_ERR_INVALID,
     "series[1].ds[0]: expected an integer like series[0].ds[0], got a string: ds entries are all strings or all integers"},
    {REQ(S("a", "[\"2000-01-01\",2]", "[1,2]")), FC_ERR_INVALID, "series[0].ds[1]: expected a string like series[0].ds[0], got an integer"},
    {REQ(S("a", "[1.5,2]", "[1,2]")), FC_ERR_INVALID, "series[0].ds[0]: expected a date string or an integer, got a real number"},
    {REQ(S("a", "[1,2.0]", "[1,2]")), FC_ERR_INVALID, "series[0].ds[1]: expected a date string or an integer, got a real number"},
    {REQ(S("a", "[1,null]", "[1,2]")), FC_ERR_INVALID, "series[0].ds[1]: expected a date string or an integer, got null"},
    {REQ(S("a", "[false]", "[1]")), FC_ERR_INVALID, "series[0].ds[0]: expected a date string or an integer, got a boolean"},
    {REQ(S("a", "[\"2000-01-01\",\"yesterday\"]", "[1,2]")), FC_ERR_INVALID, "series[0].ds[1]: cannot parse 'yesterday'"},
    {REQ(S("a", "[\"2001-02-29\"]", "[1]")), FC_ERR_INVALID, "series[0].ds[0]: cannot parse '2001-02-29'"},
    {REQ(S("a", "[\"2000-01-01\",\"2000-02-01\\n\"]", "[1,2]")), FC_ERR_INVALID, "series[0].ds[1]: cannot parse '2000-02-01\\x0A'"},
    {REQ(S("a", "[\"17\",\"18\"]", "[1,2]")), FC_ERR_INVALID, "series[0].ds[0]: '17' is an integer in a string"},
    {REQ(S("a", "[\"2000-01-01\"]", "[1]") "," S("b", "[\"2000-01-01 10:00\"]", "[1]")), FC_ERR_INVALID,
     "series[1].ds[0]: '2000-01-01 10:00' is a datetime but series[0].ds[0] is a date"},
    {REQ(S("a", "[1,1000000000000000000]", "[1,2]")), FC_ERR_INVALID, "series[0].ds[1]: 1000000000000000000 is out of range"},
    {REQ(S("a", "[-1000000000000000000,1]", "[1,2]")), FC_ERR_INVALID, "series[0].ds[0]: -1000000000000000000 is out of range"},
    {REQ(S("a", "[1,9223372036854775807]", "[1,2]")), FC_ERR_INVALID, "series[0].ds[1]: 9223372036854775807 is out of range"},
    {REQ(OK1 "," S("b", "[1]", "[1]") "," S("a", "[1]", "[1]")), FC_ERR_INVALID,
     "series[2].unique_id: 'a' is already series[0]'s"},
    /* the loader's checks, named by field */
    {REQ(S("a", "[1,2,2]", "[1,2,3]")), FC_ERR_INVALID,
     "series[0].ds[2]: duplicate (unique_id, ds) = ('a', 2): already at series[0].ds[1]"},
    {REQ(S("x\\ny", "[1,2,3]", "[1,2,3]") "," S("b", "[3,1,3]", "[1,2,3]")), FC_ERR_INVALID,
     "series[1].ds[2]: duplicate (unique_id, ds) = ('b', 3): already at series[1].ds[0]"},
    {REQ(S("a,\\\"q\\r\\n", "[5,1,3]", "[1,2,3]") "," S("b", "[0,2,4,5]", "[1,2,3,4]")), FC_ERR_INVALID,
     "series[1].ds[3]: 5 is off the 2 grid of series 'b': the previous point is 4 on series[1].ds[2]"},
    {REQ(S("a", "[\"2000-01-01\",\"2000-01-02\",\"2000-01-02\"]", "[1,2,3]")), FC_ERR_INVALID,
     "series[0].ds[2]: duplicate (unique_id, ds) = ('a', 2000-01-02): already at series[0].ds[1]"},
    {REQ(S("a", "[1,2,300000000000000]", "[1,2,3]")), FC_ERR_MEMORY,
     "series[0].ds[2]: series 'a' runs from 1 (series[0].ds[0]) to 300000000000000 on the 1 grid: its 3 rows are "
     "300000000000000 points after gap filling; the data's 300000000000000 points after gap filling pass the limit "
     "of 1000 (max_points)"},
    {REQ(S("a", "[1,2]", "[1,1e39]")), FC_ERR_INVALID, "series[0].y[1]: '1e+39' is beyond the float range"},
    {REQ(S("a", "[1]", "[1]") "," S("b", "[5]", "[1]")), FC_ERR_INVALID, "series[0].ds[0]: cannot infer the frequency"},
};

/* Bodies made at run time: too deep, too long, past the limits. */
static char *deep_body(size_t depth, const char *open, const char *close) {
    sbuf b;
    sb_open(&b);
    fputs("{\"series\":[{\"unique_id\":\"a\",\"ds\":[1],\"y\":", b.f);
    for (size_t i = 0; i < depth; i++) fputs(open, b.f);
    for (size_t i = 0; i < depth; i++) fputs(close, b.f);
    fputs("}]}", b.f);
    return sb_close(&b);
}

static char *many_series(size_t n, size_t points) {
    sbuf b;
    sb_open(&b);
    fputs("{\"series\":[", b.f);
    for (size_t i = 0; i < n; i++) {
        fprintf(b.f, "%s{\"unique_id\":\"s%zu\",\"ds\":[", i ? "," : "", i);
        for (size_t k = 0; k < points; k++) fprintf(b.f, "%s%zu", k ? "," : "", k);
        fputs("],\"y\":[", b.f);
        for (size_t k = 0; k < points; k++) fprintf(b.f, "%s1", k ? "," : "");
        fputs("]}", b.f);
    }
    fputs("]}", b.f);
    return sb_close(&b);
}

static char *long_id(size_t bytes) {
    char *b = malloc(bytes + 64);
    int n = sprintf(b, "{\"series\":[{\"unique_id\":\"");
    memset(b + n, 'x', bytes);
    strcpy(b + n + bytes, "\",\"ds\":[1,2],\"y\":[1,2]}]}");
    return b;
}

static const fc_forecast_limits test_limits = {.max_series = 100, .max_points = 1000};

static void check_refused(const char *body, size_t len, fc_status code, const char *needle, size_t index) {
    fc_dataset *d = (fc_dataset *)&d;   /* must come back NULL */
    fc_forecast_params pr = {.h = 99, .n_levels = 3};
    fc_status st = fc_forecast_request_json(body, len, &predict_opt, &test_limits, &d, &pr);
    size_t h = pr.h + pr.n_levels;
    CHECK_MSG(st == code, "case %zu: status %d, expected %d (%s)", index, (int)st, (int)code, fc_last_error());
    CHECK_MSG(strstr(fc_last_error(), needle) != NULL, "case %zu: \"%s\" lacks \"%s\"", index, fc_last_error(), needle);
    CHECK_MSG(d == NULL && h == 0, "case %zu: output left set", index);
    if (st == FC_OK) fc_dataset_free(&d);
}

static void test_refusals(void) {
    size_t n = sizeof bad_cases / sizeof *bad_cases;
    for (size_t i = 0; i < n; i++) check_refused(bad_cases[i].body, strlen(bad_cases[i].body), bad_cases[i].code,
                                                 bad_cases[i].needle, i);
    const char nul[] = "{\"series\":[\0]}";
    check_refused(nul, sizeof nul - 1, FC_ERR_PARSE, "invalid JSON", n);
    check_refused(NULL, 0, FC_ERR_PARSE, "invalid JSON", n + 1);
    char *b[] = {deep_body(10000, "[", "]"), deep_body(10000, "{\"a\":", "}"), many_series(101, 1),
                 many_series(10, 101), long_id(4097), many_series(1, 100000)};
    check_refused(b[0], strlen(b[0]), FC_ERR_PARSE, "maximum parsing depth reached", n + 2);
    check_refused(b[1], strlen(b[1]), FC_ERR_PARSE, "maximum parsing depth reached", n + 3);
    check_refused(b[2], strlen(b[2]), FC_ERR_MEMORY, "request: 101 series, more than the limit of 100 series in one request (max_series)", n + 4);
    check_refused(b[3], strlen(b[3]), FC_ERR_MEMORY, "request: 1010 points, more than the limit of 1000 points in one request (max_points)", n + 5);
    check_refused(b[4], strlen(b[4]), FC_ERR_INVALID, "series[0].unique_id: 4097 bytes, more than the 4096", n + 6);
    check_refused(b[5], strlen(b[5]), FC_ERR_MEMORY, "request: 100000 points", n + 7);
    for (size_t i = 0; i < sizeof b / sizeof *b; i++) free(b[i]);
    fprintf(stderr, "%zu hostile bodies refused\n", n + 8);
}

/* The limits are inclusive, and an id of exactly 4096 bytes loads. */
static void test_limits_edge(void) {
    char *b = many_series(100, 10), *id = long_id(4096);
    fc_dataset *d = NULL;
    CHECK_MSG(fc_forecast_request_json(b, strlen(b), &predict_opt, &test_limits, &d, NULL) == FC_OK, "%s", fc_last_error());
    CHECK(d && d->n_series == 100 && d->n_rows == 1000);
    fc_dataset_free(&d);
    CHECK_MSG(fc_forecast_request_json(id, strlen(id), &predict_opt, &test_limits, &d, NULL) == FC_OK, "%s", fc_last_error());
    CHECK(d && strlen(d->ids[0]) == 4096);
    fc_dataset_free(&d);
    free(b);
    free(id);
}

/* max_points counts the points after gap filling (the JSON route and the
 * CSV one alike): two half-hours 57 years apart are 999,361 points, from a
 * 91-byte body; refused before they are allocated, naming the series,
 * the field and the filled count; the limit inclusive. */
static void test_gap_filling_limit(void) {
    static const char json[] = "{\"series\":[{\"unique_id\":\"a\",\"ds\":[\"2000-01-01 00:00:00\","
                               "\"2057-01-01 00:00:00\"],\"y\":[1,2]}]}";
    static const char csv[] = "unique_id,ds,y\na,2000-01-01 00:00:00,1\na,2057-01-01 00:00:00,2\n";
    fc_load_options lo = {.freq = "30min", .drop_exog = 1};   /* as the server loads for a half-hourly model */
    fc_forecast_limits lim = {.max_series = 10, .max_points = 10};
    fc_dataset *d = NULL;
    CHECK(fc_forecast_request_json(json, sizeof json - 1, &lo, &lim, &d, NULL) == FC_ERR_MEMORY && !d);
    CHECK_CONTAINS(fc_last_error(), "series[0].ds[1]: series 'a' runs from 2000-01-01 00:00:00 (series[0].ds[0]) to "
                                    "2057-01-01 00:00:00 on the 30min grid: its 2 rows are 999361 points after gap filling");
    CHECK_CONTAINS(fc_last_error(), "pass the limit of 10 (max_points)");
    CHECK(fc_forecast_request_csv(csv, sizeof csv - 1, &lo, &lim, &d) == FC_ERR_MEMORY && !d);
    CHECK_CONTAINS(fc_last_error(), "request:3: column 'ds' (2): series 'a'");
    CHECK_CONTAINS(fc_last_error(), "999361 points after gap filling");
    /* without a limit, a gap past the loader's ratio to the rows is still its own error */
    static const char far[] = "{\"series\":[{\"unique_id\":\"a\",\"ds\":[1,2,300000000000000],\"y\":[1,2,3]}]}";
    CHECK(fc_forecast_request_json(far, sizeof far - 1, &predict_opt, NULL, &d, NULL) == FC_ERR_INVALID && !d);
    CHECK_CONTAINS(fc_last_error(), "series[0].ds[2]: 300000000000000 is too far");
    lim.max_points = 999361;
    CHECK_MSG(fc_forecast_request_json(json, sizeof json - 1, &lo, &lim, &d, NULL) == FC_OK, "%s", fc_last_error());
    CHECK(d && d->n_rows == 999361);
    fc_dataset_free(&d);
}

int main(void) {
    test_bundled_files();
    test_gap_filling_limit();
    test_hostile_tables();
    test_h_and_csv_route();
    test_responses();
    test_refusals();
    test_limits_edge();
    return CHECK_DONE();
}
