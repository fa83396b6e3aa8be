/* safetensors reading and writing (see safetensors.h). The JSON header is
 * parsed and produced by jansson; the checks around it (sizes, offsets,
 * coverage of the data section) follow the reference implementation's
 * validation, with messages that name the file, tensor and field. */
#include "io/safetensors.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "data/text_map.h"
#include "io/atomic_file.h"

/* Tensor bytes are copied as they are: the format and this code both assume
 * a little-endian host. */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors data is little-endian: add byte swapping before building for this target"
#endif

/* Every tensor's copy starts on a cache line, which also suits AVX-512. */
#define ST_ALIGN 64

/* ------------------------------------------------------------------ dtypes */

static const struct { const char *name; size_t size; } dtype_table[FC_DT_COUNT] = {
    [FC_DT_F32] = {"F32", 4},   [FC_DT_F64] = {"F64", 8},   [FC_DT_F16] = {"F16", 2},
    [FC_DT_BF16] = {"BF16", 2}, [FC_DT_I32] = {"I32", 4},   [FC_DT_I64] = {"I64", 8},
    [FC_DT_U8] = {"U8", 1},     [FC_DT_I8] = {"I8", 1},     [FC_DT_I16] = {"I16", 2},
    [FC_DT_U16] = {"U16", 2},   [FC_DT_U32] = {"U32", 4},   [FC_DT_U64] = {"U64", 8},
    [FC_DT_BOOL] = {"BOOL", 1}, [FC_DT_F8_E4M3] = {"F8_E4M3", 1},
    [FC_DT_F8_E5M2] = {"F8_E5M2", 1},
};

static bool dtype_valid(fc_dtype t) { return (unsigned)t < FC_DT_COUNT; }

size_t fc_dtype_size(fc_dtype t) { return dtype_valid(t) ? dtype_table[t].size : 0; }

const char *fc_dtype_name(fc_dtype t) { return dtype_valid(t) ? dtype_table[t].name : "?"; }

bool fc_dtype_from_name(const char *name, fc_dtype *out) {
    for (int i = 0; i < FC_DT_COUNT; i++) {
        if (strcmp(name, dtype_table[i].name) == 0) {
            *out = (fc_dtype)i;
            return true;
        }
    }
    return false;
}

/* "[32, 24]" for messages; "[]" for a scalar. */
static const char *format_shape(char *buf, size_t cap, int ndim, const int64_t *shape) {
    size_t used = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < ndim && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%lld", i ? ", " : "",
                                 (long long)shape[i]);
    if (used < cap) snprintf(buf + used, cap - used, "]");
    return buf;
}

/* numel and nbytes of a shape; false if either overflows size_t. */
static bool shape_size(fc_dtype dtype, int ndim, const int64_t *shape, size_t *numel,
                       size_t *nbytes) {
    size_t n = 1;
    for (int i = 0; i < ndim; i++)
        if (__builtin_mul_overflow(n, (size_t)shape[i], &n)) return false;
    *numel = n;
    return !__builtin_mul_overflow(n, fc_dtype_size(dtype), nbytes);
}

/* ------------------------------------------------------------------ reader */

struct fc_safetensors {
    char *path;                 /* as given, for messages */
    fc_st_tensor *tensors;      /* header order */
    size_t count;
    size_t *slot;               /* byte offset of tensors[i] in data */
    const fc_st_tensor **by_name; /* sorted by name, for fc_st_find */
    char **meta_keys, **meta_values;
    size_t meta_count;
    unsigned char *data;        /* ST_ALIGN-aligned copies of the tensors */
};

static const char *json_kind(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "object";
    case JSON_ARRAY: return "array";
    case JSON_STRING: return "string";
    case JSON_INTEGER: return "integer";
    case JSON_REAL: return "real number";
    case JSON_TRUE: case JSON_FALSE: return "boolean";
    case JSON_NULL: return "null";
    }
    return "value";
}

static fc_status parse_metadata(fc_safetensors *f, json_t *meta) {
    if (json_is_null(meta)) return FC_OK; /* the reference reads null as "none" */
    if (!json_is_object(meta))
        return fc_error(FC_ERR_FORMAT, "%s: '__metadata__' is a JSON %s, expected an object "
                        "of string values", f->path, json_kind(meta));
    size_t n = json_object_size(meta);
    f->meta_keys = fc_calloc(n, sizeof(char *), "safetensors metadata keys");
    f->meta_values = fc_calloc(n, sizeof(char *), "safetensors metadata values");
    if (!f->meta_keys || !f->meta_values) return FC_ERR_MEMORY;
    const char *key;
    json_t *value;
    json_object_foreach(meta, key, value) {
        if (!json_is_string(value))
            return fc_error(FC_ERR_FORMAT, "%s: '__metadata__' entry '%s' is a JSON %s, "
                            "expected a string", f->path, key, json_kind(value));
        size_t i = f->meta_count++;
        f->meta_keys[i] = strdup(key);
        f->meta_values[i] = strdup(json_string_value(value));
        if (!f->meta_keys[i] || !f->meta_values[i])
            return fc_error(FC_ERR_MEMORY, "%s: out of memory for metadata", f->path);
    }
    return FC_OK;
}

static fc_status parse_dtype(const fc_safetensors *f, fc_st_tensor *t, const json_t *v) {
    if (!v) return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': no 'dtype'", f->path, t->name);
    if (!json_is_string(v))
        return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': 'dtype' is a JSON %s, expected a "
                        "string such as \"F32\"", f->path, t->name, json_kind(v));
    if (!fc_dtype_from_name(json_string_value(v), &t->dtype))
        return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': unknown dtype '%s'", f->path, t->name,
                        json_string_value(v));
    return FC_OK;
}

static fc_status parse_shape(const fc_safetensors *f, fc_st_tensor *t, const json_t *v) {
    if (!v) return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': no 'shape'", f->path, t->name);
    if (!json_is_array(v))
        return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': 'shape' is a JSON %s, expected an "
                        "array of integers", f->path, t->name, json_kind(v));
    if (json_array_size(v) > FC_ST_MAX_DIMS)
        return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': 'shape' has %zu dimensions, more "
                        "than the %d fcast supports", f->path, t->name, json_array_size(v),
                        FC_ST_MAX_DIMS);
    t->ndim = (int)json_array_size(v);
    for (int i = 0; i < t->ndim; i++) {
        const json_t *d = json_array_get(v, (size_t)i);
        if (!json_is_integer(d))
            return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': 'shape'[%d] is a JSON %s, "
                            "expected an integer", f->path, t->name, i, json_kind(d));
        t->shape[i] = json_integer_value(d);
        if (t->shape[i] < 0)
            return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': 'shape'[%d] is negative (%lld)",
                            f->path, t->name, i, (long long)t->shape[i]);
    }
    if (!shape_size(t->dtype, t->ndim, t->shape, &t->numel, &t->nbytes)) {
        char sh[256];
        return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': 'shape' %s of %s overflows a byte "
                        "count", f->path, t->name, format_shape(sh, sizeof sh, t->ndim, t->shape),
                        fc_dtype_name(t->dtype));
    }
    return FC_OK;
}

static fc_status parse_offset(const fc_safetensors *f, const fc_st_tensor *t, const json_t *v,
                              int i, size_t *out) {
    const json_t *x = json_array_get(v, (size_t)i);
    if (!json_is_integer(x) || json_integer_value(x) < 0)
        return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': 'data_offsets'[%d] must be a "
                        "non-negative integer", f->path, t->name, i);
    *out = (size_t)json_integer_value(x);
    return FC_OK;
}

/* Offsets within the data section, consistent with dtype and shape. */
static fc_status parse_offsets(const fc_safetensors *f, fc_st_tensor *t, const json_t *v,
                               size_t data_len) {
    if (!v)
        return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': no 'data_offsets'", f->path, t->name);
    if (!json_is_array(v) || json_array_size(v) != 2)
        return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': 'data_offsets' must be an array "
                        "[begin, end]", f->path, t->name);
    size_t begin = 0, end = 0;
    FC_TRY(parse_offset(f, t, v, 0, &begin));
    FC_TRY(parse_offset(f, t, v, 1, &end));
    if (begin > end)
        return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': data_offsets [%zu, %zu] end before "
                        "they begin", f->path, t->name, begin, end);
    if (end > data_len)
        return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': data_offsets [%zu, %zu] reach past "
                        "the end of the %zu-byte data section", f->path, t->name, begin, end,
                        data_len);
    if (end - begin != t->nbytes) {
        char sh[256];
        return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': data_offsets [%zu, %zu] hold %zu "
                        "bytes but shape %s of %s needs %zu", f->path, t->name, begin, end,
                        end - begin, format_shape(sh, sizeof sh, t->ndim, t->shape),
                        fc_dtype_name(t->dtype), t->nbytes);
    }
    t->offset = begin;
    return FC_OK;
}

static fc_status parse_tensor(fc_safetensors *f, const char *name, const json_t *v,
                              size_t data_len) {
    fc_st_tensor *t = &f->tensors[f->count++];
    t->name = strdup(name);
    if (!t->name) return fc_error(FC_ERR_MEMORY, "%s: out of memory for tensor names", f->path);
    if (!json_is_object(v))
        return fc_error(FC_ERR_FORMAT, "%s: tensor '%s' is a JSON %s, expected an object "
                        "with dtype, shape and data_offsets", f->path, name, json_kind(v));
    FC_TRY(parse_dtype(f, t, json_object_get(v, "dtype")));
    FC_TRY(parse_shape(f, t, json_object_get(v, "shape")));
    return parse_offsets(f, t, json_object_get(v, "data_offsets"), data_len);
}

static fc_status parse_root(fc_safetensors *f, json_t *root, size_t data_len) {
    if (!json_is_object(root))
        return fc_error(FC_ERR_FORMAT, "%s: header is a JSON %s, expected an object mapping "
                        "tensor names to tensors", f->path, json_kind(root));
    f->tensors = fc_calloc(json_object_size(root), sizeof(fc_st_tensor), "safetensors tensors");
    if (!f->tensors) return FC_ERR_MEMORY;
    const char *key;
    json_t *value;
    json_object_foreach(root, key, value) {
        if (strcmp(key, "__metadata__") == 0) FC_TRY(parse_metadata(f, value));
        else FC_TRY(parse_tensor(f, key, value, data_len));
    }
    return FC_OK;
}

/* Duplicate names are rejected by jansson (JSON_REJECT_DUPLICATES), so the
 * header's keys are the tensor names, once each. */
static fc_status parse_header(fc_safetensors *f, const char *text, size_t len, size_t data_len) {
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (!root)
        return fc_error(FC_ERR_FORMAT, "%s: header is not valid JSON (line %d, column %d): %s",
                        f->path, jerr.line, jerr.column, jerr.text);
    fc_status s = parse_root(f, root, data_len);
    json_decref(root);
    return s;
}

static int compare_by_offset(const void *pa, const void *pb) {
    const fc_st_tensor *a = *(const fc_st_tensor *const *)pa, *b = *(const fc_st_tensor *const *)pb;
    if (a->offset != b->offset) return a->offset < b->offset ? -1 : 1;
    if (a->nbytes != b->nbytes) return a->nbytes < b->nbytes ? -1 : 1;
    return 0;
}

static int compare_by_name(const void *pa, const void *pb) {
    const fc_st_tensor *a = *(const fc_st_tensor *const *)pa, *b = *(const fc_st_tensor *const *)pb;
    return strcmp(a->name, b->name);
}

static fc_status check_tiling(const fc_safetensors *f, const fc_st_tensor **order,
                              size_t data_len) {
    size_t cursor = 0;
    const fc_st_tensor *prev = NULL;
    for (size_t i = 0; i < f->count; i++) {
        const fc_st_tensor *t = order[i];
        if (t->offset < cursor)
            return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': data_offsets [%zu, %zu] overlap "
                            "tensor '%s' [%zu, %zu]", f->path, t->name, t->offset,
                            t->offset + t->nbytes, prev->name, prev->offset,
                            prev->offset + prev->nbytes);
        if (t->offset > cursor)
            return fc_error(FC_ERR_FORMAT, "%s: bytes [%zu, %zu) of the data section belong to "
                            "no tensor (a gap before tensor '%s')", f->path, cursor, t->offset,
                            t->name);
        cursor = t->offset + t->nbytes;
        prev = t;
    }
    if (cursor != data_len)
        return fc_error(FC_ERR_FORMAT, "%s: trailing bytes [%zu, %zu) of the data section "
                        "belong to no tensor", f->path, cursor, data_len);
    return FC_OK;
}

/* The spec requires the tensors to tile the data section exactly: sorted by
 * offset, each must begin where the previous one ended. `order` receives
 * the tensors in file order, for sequential reading. */
static fc_status check_coverage(const fc_safetensors *f, size_t data_len,
                                const fc_st_tensor ***order) {
    *order = fc_malloc(f->count * sizeof(**order), "safetensors tensor order");
    if (!*order) return FC_ERR_MEMORY;
    for (size_t i = 0; i < f->count; i++) (*order)[i] = &f->tensors[i];
    qsort(*order, f->count, sizeof(**order), compare_by_offset);
    return check_tiling(f, *order, data_len);
}

/* Name index and aligned storage, once the header is known to be sound. */
/* The name index and data slots; the data itself only when with_data (a
 * header-only read leaves f->data NULL). */
static fc_status allocate_storage(fc_safetensors *f, int with_data) {
    f->by_name = fc_malloc(f->count * sizeof(*f->by_name), "safetensors name index");
    f->slot = fc_malloc(f->count * sizeof(*f->slot), "safetensors slots");
    if (!f->by_name || !f->slot) return FC_ERR_MEMORY;
    size_t total = 0;
    for (size_t i = 0; i < f->count; i++) {
        f->by_name[i] = &f->tensors[i];
        f->slot[i] = total;
        /* cannot overflow: the sum of nbytes is at most the file's size */
        total += (f->tensors[i].nbytes + ST_ALIGN - 1) / ST_ALIGN * ST_ALIGN;
    }
    qsort(f->by_name, f->count, sizeof(*f->by_name), compare_by_name);
    if (!with_data) return FC_OK;
    f->data = aligned_alloc(ST_ALIGN, total ? total : ST_ALIGN);
    if (!f->data)
        return fc_error(FC_ERR_MEMORY, "%s: cannot allocate %zu bytes for tensor data", f->path,
                        total);
    return FC_OK;
}

/* Everything but copying the tensor bytes: parse, validate, allocate
 * (the data only when with_data). */
static fc_status prepare(const char *path, const char *header, size_t header_len, size_t data_len,
                         int with_data, fc_safetensors **out, const fc_st_tensor ***order) {
    fc_safetensors *f = fc_calloc(1, sizeof *f, "safetensors file");
    if (!f) return FC_ERR_MEMORY;
    *out = f;
    f->path = strdup(path);
    if (!f->path) return fc_error(FC_ERR_MEMORY, "out of memory for a file name");
    FC_TRY(parse_header(f, header, header_len, data_len));
    FC_TRY(check_coverage(f, data_len, order));
    return allocate_storage(f, with_data);
}

/* Printable ASCII or whitespace in all eight bytes: a text file, never a
 * safetensors length (which would be over 2^56 bytes). */
static int starts_with_text(const unsigned char *prefix) {
    for (int i = 0; i < 8; i++)
        if (!(prefix[i] >= 0x20 && prefix[i] < 0x7f) && prefix[i] != '\t' && prefix[i] != '\n' && prefix[i] != '\r')
            return 0;
    return 1;
}

/* Checks the 8-byte header length against the cap and the bytes present. */
static fc_status check_prefix(const char *path, const unsigned char *prefix, size_t total,
                              size_t *header_len) {
    if (total < 8)
        return fc_error(FC_ERR_FORMAT, "%s: truncated: %zu bytes, fewer than the 8-byte header "
                        "length that starts a safetensors file", path, total);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = n << 8 | prefix[i];
    if (n > FC_ST_MAX_HEADER && starts_with_text(prefix))
        return fc_error(FC_ERR_FORMAT, "%s is not a model file: it begins with text ('%.8s'), where a "
                        "safetensors file begins with the 8-byte length of its header (a CSV or other text "
                        "file given as a model?)", path, (const char *)prefix);
    if (n > FC_ST_MAX_HEADER)
        return fc_error(FC_ERR_FORMAT, "%s is not a safetensors file, or is corrupt: its first 8 bytes give a "
                        "header length of %llu, over the limit of %u bytes", path, (unsigned long long)n,
                        FC_ST_MAX_HEADER);
    if (n > total - 8)
        return fc_error(FC_ERR_FORMAT, "%s: header length %llu is larger than the %zu bytes "
                        "that follow it (truncated file?)", path, (unsigned long long)n,
                        total - 8);
    *header_len = (size_t)n;
    return FC_OK;
}

static fc_status read_memory(const unsigned char *bytes, size_t len, const char *name,
                             fc_safetensors **out) {
    size_t n = 0;
    FC_TRY(check_prefix(name, bytes, len, &n));
    const fc_st_tensor **order = NULL;
    fc_status s = prepare(name, (const char *)bytes + 8, n, len - 8 - n, 1, out, &order);
    free(order);
    if (s != FC_OK) return s;
    const unsigned char *data = bytes + 8 + n;
    for (size_t i = 0; i < (*out)->count; i++) {
        const fc_st_tensor *t = &(*out)->tensors[i];
        if (t->nbytes) memcpy((*out)->data + (*out)->slot[i], data + t->offset, t->nbytes);
    }
    return FC_OK;
}

fc_status fc_st_read_memory(const void *bytes, size_t len, const char *name,
                            fc_safetensors **out) {
    *out = NULL;
    fc_safetensors *f = NULL;
    fc_status s = read_memory(bytes, len, name, &f);
    if (s != FC_OK) fc_st_free(&f);
    *out = f;
    return s;
}

/* Reads the tensors in file order, so the reads are sequential. */
static fc_status read_tensor_bytes(FILE *fp, fc_safetensors *f, const fc_st_tensor **order) {
    for (size_t i = 0; i < f->count; i++) {
        const fc_st_tensor *t = order[i];
        size_t idx = (size_t)(t - f->tensors);
        errno = 0;
        if (fread(f->data + f->slot[idx], 1, t->nbytes, fp) != t->nbytes)
            return fc_error(FC_ERR_IO, "%s: cannot read tensor '%s': %s", f->path, t->name,
                            errno ? strerror(errno) : "file shrank while being read");
    }
    return FC_OK;
}

static fc_status read_header(FILE *fp, const char *path, size_t *total, char **header,
                             size_t *header_len) {
    struct stat st;   /* fc_input_open made sure it is a regular file */
    if (fstat(fileno(fp), &st) != 0)
        return fc_error(FC_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
    *total = (size_t)st.st_size;
    unsigned char prefix[8];
    size_t want = *total < 8 ? *total : 8;
    if (fread(prefix, 1, want, fp) != want)
        return fc_error(FC_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    FC_TRY(check_prefix(path, prefix, *total, header_len));
    *header = fc_malloc(*header_len, "safetensors header");
    if (!*header) return FC_ERR_MEMORY;
    if (fread(*header, 1, *header_len, fp) != *header_len)
        return fc_error(FC_ERR_IO, "%s: cannot read the %zu-byte header: %s", path,
                        *header_len, errno ? strerror(errno) : "file shrank while being read");
    return FC_OK;
}

static fc_status read_stream(FILE *fp, const char *path, int with_data, fc_safetensors **out) {
    size_t total = 0, n = 0;
    char *header = NULL;
    const fc_st_tensor **order = NULL;
    fc_status s = read_header(fp, path, &total, &header, &n);
    if (s == FC_OK) s = prepare(path, header, n, total - 8 - n, with_data, out, &order);
    free(header);
    if (s == FC_OK && with_data) s = read_tensor_bytes(fp, *out, order);
    free(order);
    return s;
}

static fc_status read_file(const char *path, int with_data, fc_safetensors **out) {
    *out = NULL;
    int fd;
    FC_TRY(fc_input_open(path, "a safetensors model file", &fd));
    FILE *fp = fdopen(fd, "rb");
    if (!fp) {
        close(fd);
        return fc_error(FC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    fc_safetensors *f = NULL;
    fc_status s = read_stream(fp, path, with_data, &f);
    fclose(fp);
    if (s != FC_OK) fc_st_free(&f);
    *out = f;
    return s;
}

fc_status fc_st_read(const char *path, fc_safetensors **out) { return read_file(path, 1, out); }
fc_status fc_st_read_header(const char *path, fc_safetensors **out) { return read_file(path, 0, out); }

size_t fc_st_count(const fc_safetensors *f) { return f->count; }

const fc_st_tensor *fc_st_at(const fc_safetensors *f, size_t i) {
    return i < f->count ? &f->tensors[i] : NULL;
}

const fc_st_tensor *fc_st_find(const fc_safetensors *f, const char *name) {
    size_t lo = 0, hi = f->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(name, f->by_name[mid]->name);
        if (c == 0) return f->by_name[mid];
        if (c < 0) hi = mid;
        else lo = mid + 1;
    }
    return NULL;
}

const void *fc_st_data(const fc_safetensors *f, const fc_st_tensor *t) {
    FC_ASSERT(t >= f->tensors && t < f->tensors + f->count);
    FC_ASSERT(f->data);   /* not a header-only read */
    return f->data + f->slot[t - f->tensors];
}

const char *fc_st_meta(const fc_safetensors *f, const char *key) {
    for (size_t i = 0; i < f->meta_count; i++)
        if (strcmp(f->meta_keys[i], key) == 0) return f->meta_values[i];
    return NULL;
}

size_t fc_st_meta_count(const fc_safetensors *f) { return f->meta_count; }

void fc_st_meta_at(const fc_safetensors *f, size_t i, const char **key, const char **value) {
    FC_ASSERT(i < f->meta_count);
    *key = f->meta_keys[i];
    *value = f->meta_values[i];
}

const char *fc_st_path(const fc_safetensors *f) { return f->path; }

static bool same_shape(const fc_st_tensor *t, int ndim, const int64_t *shape) {
    if (t->ndim != ndim) return false;
    for (int i = 0; i < ndim; i++)
        if (t->shape[i] != shape[i]) return false;
    return true;
}

fc_status fc_st_get_f32(const fc_safetensors *f, const char *name, int ndim,
                        const int64_t *shape, const float **data) {
    *data = NULL;
    char want[256], found[256];
    format_shape(want, sizeof want, ndim, shape);
    const fc_st_tensor *t = fc_st_find(f, name);
    if (!t)
        return fc_error(FC_ERR_FORMAT, "%s: no tensor '%s' (expected F32 %s)", f->path, name,
                        want);
    if (t->dtype != FC_DT_F32 || !same_shape(t, ndim, shape))
        return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': expected F32 %s, found %s %s", f->path,
                        name, want, fc_dtype_name(t->dtype),
                        format_shape(found, sizeof found, t->ndim, t->shape));
    *data = fc_st_data(f, t);
    return FC_OK;
}

/* Index of the first non-finite element, or n if none. memcpy per element
 * because the data need not be aligned for an F64 read (it is, but this
 * does not depend on it). */
static size_t first_non_finite(const unsigned char *p, fc_dtype dtype, size_t n, double *bad) {
    for (size_t i = 0; i < n; i++) {
        double v;
        if (dtype == FC_DT_F32) {
            float x;
            memcpy(&x, p + i * sizeof x, sizeof x);
            v = x;
        } else {
            memcpy(&v, p + i * sizeof v, sizeof v);
        }
        if (!isfinite(v)) { *bad = v; return i; }
    }
    return n;
}

/* Coordinates of flat index i in row-major order: "[1, 2]". */
static const char *format_index(char *buf, size_t cap, int ndim, const int64_t *shape, size_t i) {
    int64_t at[FC_ST_MAX_DIMS];
    for (int d = ndim - 1; d >= 0; d--) {
        at[d] = shape[d] ? (int64_t)(i % (size_t)shape[d]) : 0;
        i = shape[d] ? i / (size_t)shape[d] : 0;
    }
    return format_shape(buf, cap, ndim, at);
}

static const char *non_finite_name(double v) { return isnan(v) ? "NaN" : v > 0 ? "inf" : "-inf"; }

size_t fc_f32_non_finite(const float *x, size_t n, size_t *first) {
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        if (isfinite(x[i])) continue;
        if (!count) *first = i;
        count++;
    }
    return count;
}

int fc_st_describe_non_finite(const char *name, int ndim, const int64_t *shape, const float *data,
                              char *buf, size_t cap) {
    size_t n = 1, first = 0;
    for (int d = 0; d < ndim; d++) n *= (size_t)shape[d];
    size_t count = fc_f32_non_finite(data, n, &first);
    if (!count) return 0;
    char at[256];
    snprintf(buf, cap, "tensor '%s' element %zu %s is %s; %zu of its %zu values are not finite", name, first,
             format_index(at, sizeof at, ndim, shape, first), non_finite_name(data[first]), count, n);
    return 1;
}

fc_status fc_st_check_finite(const fc_safetensors *f, const fc_st_tensor *t) {
    if (t->dtype != FC_DT_F32 && t->dtype != FC_DT_F64) return FC_OK;
    double bad = 0;
    size_t i = first_non_finite(fc_st_data(f, t), t->dtype, t->numel, &bad);
    if (i == t->numel) return FC_OK;
    char at[256];
    return fc_error(FC_ERR_FORMAT, "%s: tensor '%s': element %zu %s is %s: parameters must be "
                    "finite (the model diverged before it was saved, or the file is corrupt): "
                    "retrain it, or load an earlier checkpoint", f->path, t->name, i,
                    format_index(at, sizeof at, t->ndim, t->shape, i), non_finite_name(bad));
}

void fc_st_free(fc_safetensors **pf) {
    fc_safetensors *f = *pf;
    if (!f) return;
    for (size_t i = 0; i < f->count; i++) free(f->tensors[i].name);
    for (size_t i = 0; i < f->meta_count; i++) {
        free(f->meta_keys[i]);
        free(f->meta_values[i]);
    }
    free(f->meta_keys);
    free(f->meta_values);
    free(f->tensors);
    free(f->slot);
    free(f->by_name);
    free(f->data);
    free(f->path);
    free(f);
    *pf = NULL;
}

/* ------------------------------------------------------------------ writer */

typedef struct {
    char *name;
    fc_dtype dtype;
    int ndim;
    int64_t shape[FC_ST_MAX_DIMS];
    size_t nbytes;
    const void *data;           /* borrowed from the caller */
} st_entry;

struct fc_st_writer {
    st_entry *entries;
    size_t count, cap;
    char **meta_keys, **meta_values;
    size_t meta_count, meta_cap;
};

fc_st_writer *fc_st_writer_new(void) {
    return fc_calloc(1, sizeof(fc_st_writer), "safetensors writer");
}

/* jansson rejects strings that are not valid UTF-8; so must we, before the
 * header is built. */
static bool valid_utf8(const char *s) {
    json_t *probe = json_string(s);
    json_decref(probe);
    return probe != NULL;
}

static fc_status check_name(const fc_st_writer *w, const char *name) {
    if (!name || !*name) return fc_error(FC_ERR_INVALID, "safetensors: empty tensor name");
    if (strcmp(name, "__metadata__") == 0)
        return fc_error(FC_ERR_INVALID, "safetensors: '__metadata__' is reserved, not a tensor "
                        "name");
    if (!valid_utf8(name))
        return fc_error(FC_ERR_INVALID, "safetensors: tensor name '%s' is not valid UTF-8", name);
    for (size_t i = 0; i < w->count; i++)
        if (strcmp(w->entries[i].name, name) == 0)
            return fc_error(FC_ERR_INVALID, "safetensors: tensor '%s' added twice", name);
    return FC_OK;
}

static fc_status check_shape(const char *name, fc_dtype dtype, int ndim, const int64_t *shape) {
    if (!dtype_valid(dtype))
        return fc_error(FC_ERR_INVALID, "safetensors: tensor '%s': invalid dtype %d", name,
                        (int)dtype);
    if (ndim < 0 || ndim > FC_ST_MAX_DIMS || (ndim > 0 && !shape))
        return fc_error(FC_ERR_INVALID, "safetensors: tensor '%s': ndim %d is outside 0..%d",
                        name, ndim, FC_ST_MAX_DIMS);
    for (int i = 0; i < ndim; i++)
        if (shape[i] < 0)
            return fc_error(FC_ERR_INVALID, "safetensors: tensor '%s': dimension %d is "
                            "negative (%lld)", name, i, (long long)shape[i]);
    return FC_OK;
}

fc_status fc_st_writer_add(fc_st_writer *w, const char *name, fc_dtype dtype, int ndim,
                           const int64_t *shape, const void *data) {
    FC_TRY(check_name(w, name));
    FC_TRY(check_shape(name, dtype, ndim, shape));
    st_entry e = {.dtype = dtype, .ndim = ndim, .data = data};
    for (int i = 0; i < ndim; i++) e.shape[i] = shape[i];
    size_t numel;
    if (!shape_size(dtype, ndim, e.shape, &numel, &e.nbytes))
        return fc_error(FC_ERR_INVALID, "safetensors: tensor '%s': shape overflows a byte count",
                        name);
    if (e.nbytes > 0 && !data)
        return fc_error(FC_ERR_INVALID, "safetensors: tensor '%s': data is NULL", name);
    if (w->count == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 16;
        st_entry *grown = fc_realloc(w->entries, cap * sizeof *grown, "safetensors entries");
        if (!grown) return FC_ERR_MEMORY;
        w->entries = grown;
        w->cap = cap;
    }
    e.name = strdup(name);
    if (!e.name) return fc_error(FC_ERR_MEMORY, "out of memory for tensor '%s'", name);
    w->entries[w->count++] = e;
    return FC_OK;
}

static fc_status grow_meta(fc_st_writer *w) {
    size_t cap = w->meta_cap ? 2 * w->meta_cap : 8;
    char **keys = fc_realloc(w->meta_keys, cap * sizeof(char *), "safetensors metadata");
    if (!keys) return FC_ERR_MEMORY;
    w->meta_keys = keys;
    char **values = fc_realloc(w->meta_values, cap * sizeof(char *), "safetensors metadata");
    if (!values) return FC_ERR_MEMORY;
    w->meta_values = values;
    w->meta_cap = cap;
    return FC_OK;
}

fc_status fc_st_writer_meta(fc_st_writer *w, const char *key, const char *value) {
    if (!key || !value)
        return fc_error(FC_ERR_INVALID, "safetensors: metadata key and value must not be NULL");
    if (!valid_utf8(key) || !valid_utf8(value))
        return fc_error(FC_ERR_INVALID, "safetensors: metadata '%s' is not valid UTF-8", key);
    for (size_t i = 0; i < w->meta_count; i++)
        if (strcmp(w->meta_keys[i], key) == 0)
            return fc_error(FC_ERR_INVALID, "safetensors: metadata key '%s' set twice", key);
    if (w->meta_count == w->meta_cap) FC_TRY(grow_meta(w));
    char *k = strdup(key), *v = strdup(value);
    if (!k || !v) {
        free(k);
        free(v);
        return fc_error(FC_ERR_MEMORY, "out of memory for metadata '%s'", key);
    }
    w->meta_keys[w->meta_count] = k;
    w->meta_values[w->meta_count++] = v;
    return FC_OK;
}

/* {"dtype":..,"shape":[..],"data_offsets":[b,e]}: the key order of the
 * reference writer. Returns NULL if jansson runs out of memory. */
static json_t *entry_json(const st_entry *e, size_t begin) {
    json_t *shape = json_array();
    for (int i = 0; i < e->ndim; i++) json_array_append_new(shape, json_integer(e->shape[i]));
    json_t *obj = json_pack("{s:s, s:o, s:[I,I]}", "dtype", fc_dtype_name(e->dtype), "shape",
                            shape, "data_offsets", (json_int_t)begin,
                            (json_int_t)(begin + e->nbytes));
    if (obj && json_array_size(shape) != (size_t)e->ndim) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

/* The header JSON, compact, keys in insertion order with "__metadata__"
 * first, padded with spaces to a multiple of 8 bytes (as the reference does)
 * so the data section starts 8-byte aligned. Deterministic by construction. */
static fc_status build_header(const fc_st_writer *w, char **out, size_t *len) {
    json_t *root = json_object();
    int failed = root == NULL;
    if (w->meta_count) {
        json_t *meta = json_object();
        for (size_t i = 0; i < w->meta_count; i++)
            failed |= json_object_set_new(meta, w->meta_keys[i], json_string(w->meta_values[i]));
        failed |= json_object_set_new(root, "__metadata__", meta);
    }
    size_t offset = 0;
    for (size_t i = 0; i < w->count; i++) {
        failed |= json_object_set_new(root, w->entries[i].name, entry_json(&w->entries[i], offset));
        offset += w->entries[i].nbytes;
    }
    char *text = failed ? NULL : json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!text) return fc_error(FC_ERR_MEMORY, "safetensors: out of memory building the header");
    size_t n = strlen(text), padded = (n + 7) / 8 * 8;
    *out = fc_realloc(text, padded, "safetensors header");
    if (!*out) { free(text); return FC_ERR_MEMORY; }
    memset(*out + n, ' ', padded - n);
    *len = padded;
    return FC_OK;
}

typedef struct {
    const fc_st_writer *w;
    const char *header;
    size_t header_len;
} write_ctx;

static fc_status write_body(FILE *fp, void *vctx) {
    const write_ctx *c = vctx;
    unsigned char prefix[8];
    for (int i = 0; i < 8; i++) prefix[i] = (unsigned char)((uint64_t)c->header_len >> (8 * i));
    FC_TRY(fc_fwrite_all(fp, prefix, 8, "the header length"));
    FC_TRY(fc_fwrite_all(fp, c->header, c->header_len, "the header"));
    for (size_t i = 0; i < c->w->count; i++) {
        const st_entry *e = &c->w->entries[i];
        fc_status s = fc_fwrite_all(fp, e->data, e->nbytes, "tensor data");
        if (s != FC_OK) return fc_error_wrap(s, "tensor '%s': ", e->name);
    }
    return FC_OK;
}

fc_status fc_st_writer_write(fc_st_writer *w, const char *path) {
    size_t total = 0;
    for (size_t i = 0; i < w->count; i++)
        if (__builtin_add_overflow(total, w->entries[i].nbytes, &total) || total > INT64_MAX)
            return fc_error(FC_ERR_INVALID, "%s: tensors total more bytes than an offset holds",
                            path);
    write_ctx ctx = {.w = w};
    char *header = NULL;
    FC_TRY(build_header(w, &header, &ctx.header_len));
    ctx.header = header;
    fc_status s = fc_write_file_atomic(path, write_body, &ctx);
    free(header);
    return s;
}

fc_status fc_st_writer_append(fc_st_writer *dst, const fc_st_writer *src) {
    for (size_t i = 0; i < src->meta_count; i++) FC_TRY(fc_st_writer_meta(dst, src->meta_keys[i], src->meta_values[i]));
    for (size_t i = 0; i < src->count; i++) {
        const st_entry *e = &src->entries[i];
        FC_TRY(fc_st_writer_add(dst, e->name, e->dtype, e->ndim, e->shape, e->data));
    }
    return FC_OK;
}

void fc_st_writer_free(fc_st_writer **pw) {
    fc_st_writer *w = *pw;
    if (!w) return;
    for (size_t i = 0; i < w->count; i++) free(w->entries[i].name);
    for (size_t i = 0; i < w->meta_count; i++) {
        free(w->meta_keys[i]);
        free(w->meta_values[i]);
    }
    free(w->entries);
    free(w->meta_keys);
    free(w->meta_values);
    free(w);
    *pw = NULL;
}
