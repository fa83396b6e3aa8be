/* safetensors reading/writing and atomic file replacement.
 *
 * Oracles: a file produced by Python's safetensors package (its exact bytes,
 * written out by hand below), hand-computed little-endian encodings of the
 * values, and the spec's validity rules. python/check_safetensors.py checks
 * the other direction (Python opens what fcast writes); it drives this
 * program with `--export DIR`. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/error.h"
#include "io/atomic_file.h"
#include "io/safetensors.h"

static char tmpdir[256];

static const char *tmp_file(char *buf, size_t cap, const char *name) {
    snprintf(buf, cap, "%s/%s", tmpdir, name);
    return buf;
}

static void write_bytes(const char *path, const void *bytes, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(2); }
    if (n && fwrite(bytes, 1, n, f) != n) { perror(path); exit(2); }
    fclose(f);
}

static unsigned char *read_bytes(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) { *n = 0; return NULL; }
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    unsigned char *b = malloc(*n + 1);
    if (fread(b, 1, *n, f) != *n) { perror(path); exit(2); }
    fclose(f);
    return b;
}

/* Number of entries in tmpdir whose name contains ".tmp." */
static int count_temporaries(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += strstr(e->d_name, ".tmp.") != NULL;
    if (d) closedir(d);
    return n;
}

/* ------------------------------------------------ the Python-made fixture */

/* The exact bytes of
 *   safetensors.numpy.save({"w": np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5,
 *       "b": np.array([1, -2], dtype=np.int64), "h": np.array([1.5, -0.25], np.float16),
 *       "u": np.array([7, 8, 9], np.uint8), "s": np.array(-3.25, np.float64)},
 *       metadata={"format": "np"})
 * as written by safetensors 0.8.0: the reference orders tensors by alignment,
 * then name, and pads the header with spaces to a multiple of 8 (312). */
static const char PY_HEADER[] =
    "{\"__metadata__\":{\"format\":\"np\"},"
    "\"b\":{\"dtype\":\"I64\",\"shape\":[2],\"data_offsets\":[0,16]},"
    "\"s\":{\"dtype\":\"F64\",\"shape\":[],\"data_offsets\":[16,24]},"
    "\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[24,48]},"
    "\"h\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[48,52]},"
    "\"u\":{\"dtype\":\"U8\",\"shape\":[3],\"data_offsets\":[52,55]}}      ";
static const unsigned char PY_DATA[55] = {
    0x01, 0, 0, 0, 0, 0, 0, 0,                         /* b[0] = 1 (I64) */
    0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,    /* b[1] = -2 */
    0, 0, 0, 0, 0, 0, 0x0a, 0xc0,                      /* s = -3.25 (F64 0xC00A0..) */
    0, 0, 0, 0,  0, 0, 0, 0x3f,  0, 0, 0x80, 0x3f,     /* w = 0, 0.5, 1 (F32) */
    0, 0, 0xc0, 0x3f,  0, 0, 0, 0x40,  0, 0, 0x20, 0x40, /*     1.5, 2, 2.5 */
    0x00, 0x3e,  0x00, 0xb4,                           /* h = 1.5, -0.25 (F16) */
    7, 8, 9,                                           /* u (U8) */
};

/* fixture bytes: 8-byte little-endian header length, header, data */
static unsigned char *python_fixture(size_t *len) {
    size_t n = sizeof PY_HEADER - 1;
    *len = 8 + n + sizeof PY_DATA;
    unsigned char *b = malloc(*len);
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)((uint64_t)n >> (8 * i));
    memcpy(b + 8, PY_HEADER, n);
    memcpy(b + 8 + n, PY_DATA, sizeof PY_DATA);
    return b;
}

static void check_python_tensors(const fc_safetensors *f) {
    CHECK(fc_st_count(f) == 5);
    const char *order[] = {"b", "s", "w", "h", "u"};
    for (size_t i = 0; i < 5 && i < fc_st_count(f); i++)
        CHECK_MSG(strcmp(fc_st_at(f, i)->name, order[i]) == 0, "tensor %zu is '%s'", i,
                  fc_st_at(f, i)->name);
    CHECK(fc_st_at(f, 5) == NULL);
    const fc_st_tensor *b = fc_st_find(f, "b"), *s = fc_st_find(f, "s"), *u = fc_st_find(f, "u");
    const fc_st_tensor *h = fc_st_find(f, "h");
    CHECK(b && b->dtype == FC_DT_I64 && b->ndim == 1 && b->shape[0] == 2 && b->nbytes == 16);
    CHECK(s && s->dtype == FC_DT_F64 && s->ndim == 0 && s->numel == 1 && s->offset == 16);
    CHECK(h && h->dtype == FC_DT_F16 && h->numel == 2 && h->offset == 48);
    CHECK(u && u->dtype == FC_DT_U8 && u->nbytes == 3 && u->offset == 52);
    CHECK(fc_st_find(f, "x") == NULL && fc_st_find(f, "__metadata__") == NULL);
    if (!b || !s || !u || !h) return;
    const int64_t *bv = fc_st_data(f, b);
    CHECK(bv[0] == 1 && bv[1] == -2);
    CHECK(*(const double *)fc_st_data(f, s) == -3.25);
    const uint16_t *hv = fc_st_data(f, h);
    CHECK(hv[0] == 0x3e00 && hv[1] == 0xb400);
    CHECK(memcmp(fc_st_data(f, u), "\x07\x08\x09", 3) == 0);
    for (size_t i = 0; i < fc_st_count(f); i++)
        CHECK((uintptr_t)fc_st_data(f, fc_st_at(f, i)) % 8 == 0);
    const float *w = NULL;
    CHECK(fc_st_get_f32(f, "w", 2, (const int64_t[]){2, 3}, &w) == FC_OK);
    for (int i = 0; w && i < 6; i++) CHECK(w[i] == 0.5f * (float)i);
    CHECK(fc_st_meta_count(f) == 1);
    CHECK(fc_st_meta(f, "format") && strcmp(fc_st_meta(f, "format"), "np") == 0);
    CHECK(fc_st_meta(f, "absent") == NULL);
}

static void test_reads_python_file(void) {
    size_t len;
    unsigned char *bytes = python_fixture(&len);
    CHECK(len == 375); /* the size of the file Python wrote */
    char path[512];
    write_bytes(tmp_file(path, sizeof path, "py.safetensors"), bytes, len);
    fc_safetensors *f = NULL;
    CHECK_MSG(fc_st_read(path, &f) == FC_OK, "%s", fc_last_error());
    if (f) check_python_tensors(f);
    fc_st_free(&f);
    CHECK(f == NULL);
    CHECK(fc_st_read_memory(bytes, len, "mem", &f) == FC_OK);
    if (f) check_python_tensors(f);
    fc_st_free(&f);
    free(bytes);
}

/* The fixture's tensors, added in the order Python's writer chose. */
static fc_status write_like_python(const char *path) {
    static const int64_t b[2] = {1, -2};
    static const double s = -3.25;
    static const float w[6] = {0, 0.5f, 1, 1.5f, 2, 2.5f};
    static const uint16_t h[2] = {0x3e00, 0xb400};
    static const uint8_t u[3] = {7, 8, 9};
    fc_st_writer *wr = fc_st_writer_new();
    if (!wr) return FC_ERR_MEMORY;
    fc_status st = fc_st_writer_meta(wr, "format", "np");
    if (st == FC_OK) st = fc_st_writer_add(wr, "b", FC_DT_I64, 1, (const int64_t[]){2}, b);
    if (st == FC_OK) st = fc_st_writer_add(wr, "s", FC_DT_F64, 0, NULL, &s);
    if (st == FC_OK) st = fc_st_writer_add(wr, "w", FC_DT_F32, 2, (const int64_t[]){2, 3}, w);
    if (st == FC_OK) st = fc_st_writer_add(wr, "h", FC_DT_F16, 1, (const int64_t[]){2}, h);
    if (st == FC_OK) st = fc_st_writer_add(wr, "u", FC_DT_U8, 1, (const int64_t[]){3}, u);
    if (st == FC_OK) st = fc_st_writer_write(wr, path);
    fc_st_writer_free(&wr);
    CHECK(wr == NULL);
    return st;
}

/* fcast given the same tensors in the same order writes the very bytes
 * Python's safetensors wrote. */
static void test_writer_matches_python(void) {
    char path[512];
    CHECK_MSG(write_like_python(tmp_file(path, sizeof path, "like_py.safetensors")) == FC_OK,
              "%s", fc_last_error());
    size_t len, want_len;
    unsigned char *got = read_bytes(path, &len), *want = python_fixture(&want_len);
    CHECK_MSG(got && len == want_len && memcmp(got, want, len) == 0,
              "fcast wrote %zu bytes, Python %zu; header: %.*s", len, want_len,
              got && len > 8 ? (int)(len - 8) : 0, got ? (const char *)got + 8 : "");
    free(got);
    free(want);
}

/* ------------------------------------------------ round trip */

/* The same content is exported for python/check_safetensors.py, which
 * holds its own copy of these values. */
static const float RT_W[6] = {-0.5f, -0.25f, 0.0f, 0.25f, 0.5f, 0.75f};
static const uint16_t RT_BF[4] = {0x3f80, 0xc000, 0x3e80, 0x0000}; /* 1, -2, 0.25, 0 */
static const double RT_SCALAR = 3.5;
static const int32_t RT_IDX[4] = {-1, 0, 1, 2147483647};
static const int64_t RT_STEPS[3] = {0, -1, (int64_t)1 << 40};
static const uint16_t RT_DEEP[2] = {0x3c00, 0xc000}; /* F16 1, -2 */
static const char RT_CONFIG[] = "{\"model\":\"nhits\",\"h\":12}";
static const char RT_NAME[] = "caf\xc3\xa9 \xe2\x9c\x93"; /* "café ✓" */

static fc_status write_round_trip(const char *path) {
    fc_st_writer *w = fc_st_writer_new();
    if (!w) return FC_ERR_MEMORY;
    fc_status s = FC_OK;
    if (s == FC_OK) s = fc_st_writer_meta(w, "config", RT_CONFIG);
    if (s == FC_OK) s = fc_st_writer_meta(w, "name", RT_NAME);
    if (s == FC_OK) s = fc_st_writer_add(w, "w", FC_DT_F32, 2, (const int64_t[]){2, 3}, RT_W);
    if (s == FC_OK) s = fc_st_writer_add(w, "bf", FC_DT_BF16, 1, (const int64_t[]){4}, RT_BF);
    if (s == FC_OK) s = fc_st_writer_add(w, "scalar", FC_DT_F64, 0, NULL, &RT_SCALAR);
    if (s == FC_OK) s = fc_st_writer_add(w, "idx", FC_DT_I32, 3, (const int64_t[]){2, 1, 2}, RT_IDX);
    if (s == FC_OK) s = fc_st_writer_add(w, "empty", FC_DT_U8, 1, (const int64_t[]){0}, NULL);
    if (s == FC_OK) s = fc_st_writer_add(w, "steps", FC_DT_I64, 1, (const int64_t[]){3}, RT_STEPS);
    if (s == FC_OK)
        s = fc_st_writer_add(w, "deep", FC_DT_F16, 8, (const int64_t[]){1, 1, 1, 1, 1, 1, 1, 2},
                             RT_DEEP);
    if (s == FC_OK) s = fc_st_writer_meta(w, "version", "1");
    if (s == FC_OK) s = fc_st_writer_write(w, path);
    fc_st_writer_free(&w);
    return s;
}

static void check_tensor(const fc_safetensors *f, const char *name, fc_dtype dt, int ndim,
                         const int64_t *shape, const void *data, size_t nbytes) {
    const fc_st_tensor *t = fc_st_find(f, name);
    CHECK_MSG(t != NULL, "no tensor '%s'", name);
    if (!t) return;
    CHECK_MSG(t->dtype == dt && t->ndim == ndim && t->nbytes == nbytes, "tensor '%s'", name);
    for (int i = 0; i < ndim && i < t->ndim; i++) CHECK(t->shape[i] == shape[i]);
    CHECK_MSG(nbytes == 0 || memcmp(fc_st_data(f, t), data, nbytes) == 0, "data of '%s'", name);
}

static void test_round_trip(void) {
    char a[512], b[512];
    CHECK(write_round_trip(tmp_file(a, sizeof a, "a.safetensors")) == FC_OK);
    CHECK(write_round_trip(tmp_file(b, sizeof b, "b.safetensors")) == FC_OK);
    size_t na, nb;
    unsigned char *ba = read_bytes(a, &na), *bb = read_bytes(b, &nb);
    CHECK(ba && bb && na == nb && memcmp(ba, bb, na) == 0);
    uint64_t n = 0;
    for (int i = 7; ba && na >= 8 && i >= 0; i--) n = n << 8 | ba[i];
    CHECK((8 + n) % 8 == 0);                 /* data section 8-byte aligned */
    /* deterministic layout: "__metadata__" first, compact, insertion order */
    static const char start[] = "{\"__metadata__\":{\"config\":\"{\\\"model\\\":\\\"nhits\\\","
                                "\\\"h\\\":12}\",\"name\":\"caf\xc3\xa9 \xe2\x9c\x93\","
                                "\"version\":\"1\"},\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],"
                                "\"data_offsets\":[0,24]},\"bf\":";
    CHECK_MSG(ba && na > 8 + sizeof start && memcmp(ba + 8, start, sizeof start - 1) == 0,
              "header: %.*s", ba ? (int)n : 0, ba ? (const char *)ba + 8 : "");
    free(ba);
    free(bb);

    fc_safetensors *f = NULL;
    CHECK_MSG(fc_st_read(a, &f) == FC_OK, "%s", fc_last_error());
    if (!f) return;
    CHECK(fc_st_count(f) == 7);
    const char *order[] = {"w", "bf", "scalar", "idx", "empty", "steps", "deep"};
    for (size_t i = 0; i < 7 && i < fc_st_count(f); i++) CHECK(!strcmp(fc_st_at(f, i)->name, order[i]));
    check_tensor(f, "w", FC_DT_F32, 2, (const int64_t[]){2, 3}, RT_W, 24);
    check_tensor(f, "bf", FC_DT_BF16, 1, (const int64_t[]){4}, RT_BF, 8);
    check_tensor(f, "scalar", FC_DT_F64, 0, NULL, &RT_SCALAR, 8);
    check_tensor(f, "idx", FC_DT_I32, 3, (const int64_t[]){2, 1, 2}, RT_IDX, 16);
    check_tensor(f, "empty", FC_DT_U8, 1, (const int64_t[]){0}, NULL, 0);
    check_tensor(f, "steps", FC_DT_I64, 1, (const int64_t[]){3}, RT_STEPS, 24);
    check_tensor(f, "deep", FC_DT_F16, 8, (const int64_t[]){1, 1, 1, 1, 1, 1, 1, 2}, RT_DEEP, 4);
    CHECK(fc_st_meta_count(f) == 3);
    CHECK(fc_st_meta(f, "config") && !strcmp(fc_st_meta(f, "config"), RT_CONFIG));
    CHECK(fc_st_meta(f, "name") && !strcmp(fc_st_meta(f, "name"), RT_NAME));
    CHECK(fc_st_meta(f, "version") && !strcmp(fc_st_meta(f, "version"), "1"));
    const char *k, *v;
    fc_st_meta_at(f, 2, &k, &v);
    CHECK(!strcmp(k, "version") && !strcmp(v, "1"));
    fc_st_free(&f);
}

static void test_writer_rejects_bad_input(void) {
    fc_st_writer *w = fc_st_writer_new();
    float x[4] = {0};
    CHECK(fc_st_writer_add(w, "a", FC_DT_F32, 1, (const int64_t[]){4}, x) == FC_OK);
    CHECK(fc_st_writer_add(w, "a", FC_DT_F32, 1, (const int64_t[]){4}, x) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "'a' added twice");
    CHECK(fc_st_writer_add(w, "__metadata__", FC_DT_F32, 1, (const int64_t[]){4}, x) == FC_ERR_INVALID);
    CHECK(fc_st_writer_add(w, "", FC_DT_F32, 1, (const int64_t[]){4}, x) == FC_ERR_INVALID);
    CHECK(fc_st_writer_add(w, "\xff", FC_DT_F32, 1, (const int64_t[]){4}, x) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "UTF-8");
    CHECK(fc_st_writer_add(w, "n", FC_DT_F32, 2, (const int64_t[]){2, -2}, x) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "negative");
    CHECK(fc_st_writer_add(w, "d", FC_DT_F32, 9, (const int64_t[]){1, 1, 1, 1, 1, 1, 1, 1, 1}, x) ==
          FC_ERR_INVALID);
    CHECK(fc_st_writer_add(w, "t", (fc_dtype)99, 1, (const int64_t[]){4}, x) == FC_ERR_INVALID);
    CHECK(fc_st_writer_add(w, "z", FC_DT_F32, 1, (const int64_t[]){4}, NULL) == FC_ERR_INVALID);
    CHECK(fc_st_writer_add(w, "o", FC_DT_F32, 2, (const int64_t[]){INT64_MAX, 4}, x) ==
          FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "overflow");
    CHECK(fc_st_writer_meta(w, "k", "v") == FC_OK);
    CHECK(fc_st_writer_meta(w, "k", "w") == FC_ERR_INVALID);
    CHECK(fc_st_writer_meta(w, "k2", "\xc3") == FC_ERR_INVALID);
    fc_st_writer_free(&w);
}

/* ------------------------------------------------ hostile files */

/* Writes `header` verbatim after its length, then `data_len` zero bytes. */
static void write_raw(const char *path, const char *header, size_t data_len) {
    size_t n = strlen(header), len = 8 + n + data_len;
    unsigned char *b = calloc(1, len);
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)((uint64_t)n >> (8 * i));
    memcpy(b + 8, header, n);
    write_bytes(path, b, len);
    free(b);
}

static void expect_format_error(const char *header, size_t data_len, const char *needle) {
    char path[512];
    tmp_file(path, sizeof path, "model.safetensors");
    write_raw(path, header, data_len);
    fc_safetensors *f = NULL;
    fc_status s = fc_st_read(path, &f);
    CHECK_MSG(s == FC_ERR_FORMAT, "header %s: status %d", header, (int)s);
    CHECK(f == NULL);
    CHECK_CONTAINS(fc_last_error(), path);
    CHECK_CONTAINS(fc_last_error(), needle);
    fc_st_free(&f);
}

#define T1(name, dtype, shape, offsets) \
    "\"" name "\":{\"dtype\":\"" dtype "\",\"shape\":" shape ",\"data_offsets\":" offsets "}"

static void test_corrupt_headers(void) {
    expect_format_error("{\"a\":", 0, "not valid JSON");
    expect_format_error("", 0, "not valid JSON");
    expect_format_error("{\"a\xff\":1}", 0, "not valid JSON");             /* bad UTF-8 */
    expect_format_error("[1,2]", 0, "header is a JSON array, expected an object");
    expect_format_error("{\"a\":3}", 0, "tensor 'a' is a JSON integer");
    expect_format_error("{" T1("a", "F33", "[1]", "[0,4]") "}", 4, "tensor 'a': unknown dtype 'F33'");
    expect_format_error("{\"a\":{\"dtype\":7,\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
                        "tensor 'a': 'dtype' is a JSON integer");
    expect_format_error("{\"a\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "tensor 'a': no 'dtype'");
    expect_format_error("{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4, "tensor 'a': no 'shape'");
    expect_format_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4, "tensor 'a': no 'data_offsets'");
    expect_format_error("{" T1("blocks.0.layers.0.weight", "F32", "[32,24]", "[0,100]") "}", 100,
                        "tensor 'blocks.0.layers.0.weight': data_offsets [0, 100] hold 100 bytes "
                        "but shape [32, 24] of F32 needs 3072");
    expect_format_error("{" T1("a", "F32", "[2]", "[0,8]") "}", 4,
                        "tensor 'a': data_offsets [0, 8] reach past the end of the 4-byte data");
    expect_format_error("{" T1("a", "F32", "[2]", "[8,0]") "}", 8,
                        "tensor 'a': data_offsets [8, 0] end before they begin");
    expect_format_error("{" T1("a", "F32", "[2]", "[0,8]") "," T1("b", "F32", "[2]", "[4,12]") "}",
                        12, "tensor 'b': data_offsets [4, 12] overlap tensor 'a' [0, 8]");
    expect_format_error("{" T1("a", "F32", "[2]", "[0,8]") "," T1("b", "F32", "[0]", "[4,4]") "}",
                        8, "tensor 'b': data_offsets [4, 4] overlap tensor 'a'");
    expect_format_error("{" T1("a", "F32", "[1]", "[0,4]") "," T1("b", "F32", "[1]", "[8,12]") "}",
                        12, "bytes [4, 8) of the data section belong to no tensor (a gap before "
                        "tensor 'b')");
    expect_format_error("{" T1("a", "F32", "[1]", "[4,8]") "}", 8, "bytes [0, 4) of the data");
    expect_format_error("{" T1("a", "F32", "[1]", "[0,4]") "}", 8, "trailing bytes [4, 8)");
    expect_format_error("{" T1("a", "U8", "[1,1,1,1,1,1,1,1,1]", "[0,1]") "}", 1,
                        "tensor 'a': 'shape' has 9 dimensions");
    expect_format_error("{" T1("a", "F32", "[1,-4]", "[0,4]") "}", 4,
                        "tensor 'a': 'shape'[1] is negative (-4)");
    expect_format_error("{" T1("a", "F32", "[2.5]", "[0,4]") "}", 4,
                        "tensor 'a': 'shape'[0] is a JSON real number");
    expect_format_error("{" T1("a", "F32", "{}", "[0,4]") "}", 4, "tensor 'a': 'shape' is a JSON object");
    expect_format_error("{" T1("a", "U8", "[4294967296,4294967296,4294967296]", "[0,4]") "}", 4,
                        "tensor 'a': 'shape' [4294967296, 4294967296, 4294967296] of U8 overflows");
    expect_format_error("{" T1("a", "F32", "[4611686018427387904]", "[0,4]") "}", 4,
                        "tensor 'a': 'shape' [4611686018427387904] of F32 overflows");
    expect_format_error("{" T1("a", "F32", "[1]", "[0,4]") "," T1("a", "F32", "[1]", "[4,8]") "}", 8,
                        "duplicate object key");
    expect_format_error("{" T1("a", "F32", "[1]", "[0]") "}", 4,
                        "tensor 'a': 'data_offsets' must be an array [begin, end]");
    expect_format_error("{" T1("a", "F32", "[1]", "[-4,0]") "}", 4,
                        "tensor 'a': 'data_offsets'[0] must be a non-negative integer");
    expect_format_error("{" T1("a", "F32", "[1]", "[0,\"4\"]") "}", 4, "'data_offsets'[1]");
    expect_format_error("{" T1("a", "F32", "[1]", "[0,99999999999999999999]") "}", 4,
                        "not valid JSON");
    expect_format_error("{\"__metadata__\":{\"k\":1}," T1("a", "F32", "[1]", "[0,4]") "}", 4,
                        "'__metadata__' entry 'k' is a JSON integer, expected a string");
    expect_format_error("{\"__metadata__\":[]," T1("a", "F32", "[1]", "[0,4]") "}", 4,
                        "'__metadata__' is a JSON array");
}

/* What the reference accepts, so must fcast (checked against safetensors
 * 0.8.0): header order differing from offset order, zero-size tensors,
 * a null "__metadata__", unknown fields. */
static void test_accepts_what_reference_accepts(void) {
    char path[512];
    tmp_file(path, sizeof path, "ok.safetensors");
    write_raw(path,
              "{\"__metadata__\":null," T1("b", "F32", "[1]", "[4,8]") "," T1("z", "F32", "[0]", "[8,8]")
              ",\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"extra\":[1]}}  ",
              8);
    fc_safetensors *f = NULL;
    CHECK_MSG(fc_st_read(path, &f) == FC_OK, "%s", fc_last_error());
    if (!f) return;
    CHECK(fc_st_count(f) == 3 && fc_st_meta_count(f) == 0);
    CHECK(!strcmp(fc_st_at(f, 0)->name, "b") && fc_st_at(f, 0)->offset == 4);
    CHECK(fc_st_find(f, "z") && fc_st_find(f, "z")->numel == 0);
    CHECK(fc_st_find(f, "a") && fc_st_find(f, "a")->offset == 0);
    fc_st_free(&f);
}

static void expect_prefix_error(const unsigned char *bytes, size_t len, const char *needle) {
    char path[512];
    write_bytes(tmp_file(path, sizeof path, "prefix.safetensors"), bytes, len);
    fc_safetensors *f = NULL;
    CHECK(fc_st_read(path, &f) == FC_ERR_FORMAT);
    CHECK_CONTAINS(fc_last_error(), path);
    CHECK_CONTAINS(fc_last_error(), needle);
}

static void test_corrupt_prefix(void) {
    expect_prefix_error((const unsigned char *)"abc", 3, "truncated: 3 bytes");
    expect_prefix_error((const unsigned char *)"", 0, "truncated: 0 bytes");
    const unsigned char long_header[10] = {0xe8, 0x03, 0, 0, 0, 0, 0, 0, '{', '}'}; /* 1000 */
    expect_prefix_error(long_header, sizeof long_header,
                        "header length 1000 is larger than the 2 bytes that follow");
    const unsigned char huge[10] = {0x00, 0xc2, 0xeb, 0x0b, 0, 0, 0, 0, '{', '}'}; /* 2e8 */
    expect_prefix_error(huge, sizeof huge, "header length of 200000000, over the limit");
    const unsigned char max[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, '{', '}'};
    expect_prefix_error(max, sizeof max, "over the limit");
    /* A CSV file given as a model: said to be text, not a huge header. */
    const char *csv = "unique_id,ds,y\nA,1,2\n";
    expect_prefix_error((const unsigned char *)csv, strlen(csv), "is not a model file: it begins with text ('unique_i')");
}

/* Every proper prefix of a valid file is an error, never a crash. */
static void test_truncation_everywhere(void) {
    size_t len;
    unsigned char *bytes = python_fixture(&len);
    char path[512];
    tmp_file(path, sizeof path, "cut.safetensors");
    int bad = 0;
    for (size_t cut = 0; cut < len; cut++) {
        write_bytes(path, bytes, cut);
        fc_safetensors *f = NULL;
        fc_status s = fc_st_read(path, &f);
        if (s != FC_ERR_FORMAT || f != NULL || !strstr(fc_last_error(), path)) {
            bad++;
            fprintf(stderr, "cut at %zu: status %d: %s\n", cut, (int)s, fc_last_error());
        }
        fc_st_free(&f);
        if (fc_st_read_memory(bytes, cut, "mem", &f) != FC_ERR_FORMAT) bad++;
        fc_st_free(&f);
    }
    CHECK_MSG(bad == 0, "%d prefixes did not give FC_ERR_FORMAT", bad);
    free(bytes);
}

/* Single-byte corruptions anywhere: either a clean error or a file whose
 * tensors all lie within the data section (read under ASan in CI). */
static void test_byte_flips(void) {
    size_t len;
    unsigned char *bytes = python_fixture(&len);
    const unsigned char subst[] = {0x00, 0xff, '"', '[', '9', '-', ' '};
    int bad = 0, accepted = 0;
    for (size_t pos = 0; pos < len; pos++) {
        for (size_t k = 0; k <= sizeof subst; k++) {
            unsigned char saved = bytes[pos];
            bytes[pos] = k < sizeof subst ? subst[k] : saved ^ 1;
            fc_safetensors *f = NULL;
            fc_status s = fc_st_read_memory(bytes, len, "flip", &f);
            if (s == FC_OK) {
                accepted++;
                size_t sum = 0;
                for (size_t i = 0; i < fc_st_count(f); i++) sum += fc_st_at(f, i)->nbytes;
                bad += sum > len;
            } else {
                bad += s != FC_ERR_FORMAT || !strstr(fc_last_error(), "flip");
            }
            fc_st_free(&f);
            bytes[pos] = saved;
        }
    }
    CHECK_MSG(bad == 0, "%d corruptions misbehaved", bad);
    CHECK(accepted > 0); /* e.g. data bytes: any value is a valid tensor element */
    free(bytes);
}

static void test_missing_file(void) {
    char path[512];
    fc_safetensors *f = NULL;
    CHECK(fc_st_read(tmp_file(path, sizeof path, "absent.safetensors"), &f) == FC_ERR_IO);
    CHECK(f == NULL);
    CHECK_CONTAINS(fc_last_error(), path);
    CHECK_CONTAINS(fc_last_error(), strerror(ENOENT));
    CHECK(fc_st_read(tmpdir, &f) == FC_ERR_IO); /* a directory */
    CHECK_CONTAINS(fc_last_error(), "not a regular file (a directory)");
    /* A FIFO must be refused at once, not block in open waiting for a
     * writer (issue 10); the alarm turns a regression into a failure. */
    CHECK(mkfifo(tmp_file(path, sizeof path, "fifo.safetensors"), 0600) == 0);
    alarm(10);
    CHECK(fc_st_read(path, &f) == FC_ERR_IO);
    alarm(0);
    CHECK(f == NULL);
    CHECK_CONTAINS(fc_last_error(), "is not a regular file (a FIFO)");
    CHECK_CONTAINS(fc_last_error(), path);
    remove(path);
}

static void test_get_f32_errors(void) {
    size_t len;
    unsigned char *bytes = python_fixture(&len);
    fc_safetensors *f = NULL;
    CHECK(fc_st_read_memory(bytes, len, "model.safetensors", &f) == FC_OK);
    free(bytes);
    if (!f) return;
    const float *d = (const float *)1;
    CHECK(fc_st_get_f32(f, "b", 1, (const int64_t[]){2}, &d) == FC_ERR_FORMAT && d == NULL);
    CHECK_CONTAINS(fc_last_error(), "model.safetensors: tensor 'b': expected F32 [2], found I64 [2]");
    CHECK(fc_st_get_f32(f, "w", 2, (const int64_t[]){3, 2}, &d) == FC_ERR_FORMAT);
    CHECK_CONTAINS(fc_last_error(), "tensor 'w': expected F32 [3, 2], found F32 [2, 3]");
    CHECK(fc_st_get_f32(f, "w", 1, (const int64_t[]){6}, &d) == FC_ERR_FORMAT);
    CHECK_CONTAINS(fc_last_error(), "expected F32 [6], found F32 [2, 3]");
    CHECK(fc_st_get_f32(f, "nope", 1, (const int64_t[]){6}, &d) == FC_ERR_FORMAT);
    CHECK_CONTAINS(fc_last_error(), "model.safetensors: no tensor 'nope'");
    fc_st_free(&f);
}

/* ------------------------------------------------ atomic writes */

static fc_status body_fails(FILE *f, void *ctx) {
    (void)ctx;
    fputs("half of the new cont", f);
    return fc_error(FC_ERR_IO, "simulated failure after %d bytes", 20);
}

static fc_status body_writes(FILE *f, void *ctx) {
    return fc_fwrite_all(f, ctx, strlen(ctx), "the text");
}

static bool file_is(const char *path, const char *text) {
    size_t n;
    unsigned char *b = read_bytes(path, &n);
    bool same = b && n == strlen(text) && memcmp(b, text, n) == 0;
    free(b);
    return same;
}

static void test_atomic_write(void) {
    char path[512];
    tmp_file(path, sizeof path, "target.txt");
    write_bytes(path, "old content", 11);
    chmod(path, 0640);
    CHECK(fc_write_file_atomic(path, body_fails, NULL) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), path);
    CHECK_CONTAINS(fc_last_error(), "simulated failure");
    CHECK(file_is(path, "old content"));
    CHECK(count_temporaries(tmpdir) == 0);

    CHECK(fc_write_file_atomic(path, body_writes, "new content") == FC_OK);
    CHECK(file_is(path, "new content"));
    CHECK(count_temporaries(tmpdir) == 0);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640);

    /* rename over a directory fails: the directory stays, no temporary */
    char dir[512];
    mkdir(tmp_file(dir, sizeof dir, "adir"), 0755);
    CHECK(fc_write_file_atomic(dir, body_writes, "x") == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), dir);
    CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK(count_temporaries(tmpdir) == 0);
    rmdir(dir);

    char missing[512];
    tmp_file(missing, sizeof missing, "no/such/dir/model.safetensors");
    CHECK(fc_write_file_atomic(missing, body_writes, "x") == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), missing);
    CHECK_CONTAINS(fc_last_error(), strerror(ENOENT));
    fc_st_writer *w = fc_st_writer_new();
    CHECK(fc_st_writer_write(w, missing) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), missing);
    fc_st_writer_free(&w);
}

static void remove_tmpdir(void) {
    DIR *d = opendir(tmpdir);
    char path[512];
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.') unlink(tmp_file(path, sizeof path, e->d_name));
    if (d) closedir(d);
    rmdir(tmpdir);
}

/* The header alone: the same tensors and metadata as a whole read, no
 * data held; a file cut short is still refused (its size is checked). */
static void test_header_only(void) {
    const char *path = "tests/fixtures/model_nhits_small.safetensors";
    fc_safetensors *whole = NULL, *head = NULL;
    CHECK(fc_st_read(path, &whole) == FC_OK && fc_st_read_header(path, &head) == FC_OK);
    if (!whole || !head) return;
    CHECK(fc_st_count(head) == fc_st_count(whole) && fc_st_meta_count(head) == fc_st_meta_count(whole));
    for (size_t i = 0; i < fc_st_count(whole); i++) {
        const fc_st_tensor *a = fc_st_at(whole, i), *b = fc_st_find(head, a->name);
        CHECK(b && b->nbytes == a->nbytes && b->ndim == a->ndim);
    }
    CHECK(!strcmp(fc_st_meta(head, "config"), fc_st_meta(whole, "config")));
    fc_st_free(&whole);
    fc_st_free(&head);
    char cut[512];
    tmp_file(cut, sizeof cut, "cut_header_only.safetensors");
    FILE *in = fopen(path, "rb"), *out = fopen(cut, "wb");
    char buf[4096];
    size_t n = in ? fread(buf, 1, sizeof buf, in) : 0;   /* the header and a little data */
    if (out) fwrite(buf, 1, n, out);
    if (in) fclose(in);
    if (out) fclose(out);
    CHECK(fc_st_read_header(cut, &head) == FC_ERR_FORMAT && head == NULL);
    remove(cut);
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--export") == 0) { /* for python/check_safetensors.py */
        char a[512], b[512];
        snprintf(a, sizeof a, "%s/round_trip.safetensors", argv[2]);
        snprintf(b, sizeof b, "%s/like_python.safetensors", argv[2]);
        if (write_round_trip(a) == FC_OK && write_like_python(b) == FC_OK) return 0;
        fprintf(stderr, "%s\n", fc_last_error());
        return 1;
    }
    snprintf(tmpdir, sizeof tmpdir, "/tmp/fc_test_safetensors.XXXXXX");
    if (!mkdtemp(tmpdir)) { perror("mkdtemp"); return 2; }
    test_reads_python_file();
    test_writer_matches_python();
    test_round_trip();
    test_writer_rejects_bad_input();
    test_corrupt_headers();
    test_accepts_what_reference_accepts();
    test_corrupt_prefix();
    test_truncation_everywhere();
    test_byte_flips();
    test_missing_file();
    test_get_f32_errors();
    test_atomic_write();
    test_header_only();
    remove_tmpdir();
    return CHECK_DONE();
}
