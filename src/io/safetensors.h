/* safetensors files (https://github.com/huggingface/safetensors): fcast's
 * model and checkpoint format, readable by Python users as is.
 *
 * Layout: 8-byte little-endian header length N, N bytes of UTF-8 JSON
 * mapping tensor names to {"dtype", "shape", "data_offsets": [begin, end]}
 * (offsets relative to the first byte after the header) plus an optional
 * "__metadata__" object of string -> string, then the raw little-endian
 * tensor bytes, which must be covered exactly, without gaps or overlaps.
 *
 * Reading treats the file as hostile: every inconsistency is FC_ERR_FORMAT
 * with a message naming the file, the tensor or field, and what was wrong.
 * Writing is deterministic (same tensors and metadata -> byte-identical file)
 * and atomic (see io/atomic_file.h). */
#ifndef FC_IO_SAFETENSORS_H
#define FC_IO_SAFETENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fcast/status.h"

/* The first seven are the ones fcast produces; the rest exist so that files
 * written by PyTorch users with, say, a bool buffer still open. */
typedef enum {
    FC_DT_F32, FC_DT_F64, FC_DT_F16, FC_DT_BF16, FC_DT_I32, FC_DT_I64, FC_DT_U8,
    FC_DT_I8, FC_DT_I16, FC_DT_U16, FC_DT_U32, FC_DT_U64, FC_DT_BOOL,
    FC_DT_F8_E4M3, FC_DT_F8_E5M2,
    FC_DT_COUNT
} fc_dtype;

size_t fc_dtype_size(fc_dtype t);          /* bytes per element; 0 if invalid */
const char *fc_dtype_name(fc_dtype t);     /* "F32", ...; "?" if invalid */
bool fc_dtype_from_name(const char *name, fc_dtype *out);

#define FC_ST_MAX_DIMS 8
/* Header size cap, as in the reference implementation: a larger header is
 * rejected before anything is allocated for it. */
#define FC_ST_MAX_HEADER (100u * 1000u * 1000u)

typedef struct {
    char *name;
    fc_dtype dtype;
    int ndim;                        /* 0 for a scalar */
    int64_t shape[FC_ST_MAX_DIMS];
    size_t numel;                    /* product of shape (1 for a scalar) */
    size_t offset;                   /* data_offsets[0] in the file */
    size_t nbytes;                   /* numel * fc_dtype_size(dtype) */
} fc_st_tensor;

typedef struct fc_safetensors fc_safetensors;   /* opaque */

/* Reads and validates the whole file; tensor data is copied into memory.
 * A missing or unreadable file is FC_ERR_IO; a corrupt one FC_ERR_FORMAT. */
fc_status fc_st_read(const char *path, fc_safetensors **out);
/* The header alone (tensor names, shapes, metadata), validated against the
 * file's size, without reading or holding the tensor bytes: for what a
 * file says about itself (a checkpoint's step) at no cost of its size.
 * fc_st_data and fc_st_get_f32 must not be used on it. */
fc_status fc_st_read_header(const char *path, fc_safetensors **out);
/* Same from a buffer in memory (an HTTP upload, the fuzzer); `name` stands
 * for the file name in messages. The buffer is not referenced afterwards. */
fc_status fc_st_read_memory(const void *bytes, size_t len, const char *name,
                            fc_safetensors **out);

/* Tensors in the order of the JSON header (for fcast's files: the order
 * they were added to the writer). */
size_t fc_st_count(const fc_safetensors *f);
const fc_st_tensor *fc_st_at(const fc_safetensors *f, size_t i);
const fc_st_tensor *fc_st_find(const fc_safetensors *f, const char *name); /* NULL if absent */
/* The tensor's bytes, 64-byte aligned (so also 8-byte aligned), valid until
 * fc_st_free. */
const void *fc_st_data(const fc_safetensors *f, const fc_st_tensor *t);

const char *fc_st_meta(const fc_safetensors *f, const char *key);      /* NULL if absent */
size_t fc_st_meta_count(const fc_safetensors *f);
/* The i-th metadata entry in header order. */
void fc_st_meta_at(const fc_safetensors *f, size_t i, const char **key, const char **value);
const char *fc_st_path(const fc_safetensors *f);

/* For callers that expect a float tensor of a given shape: a missing tensor,
 * another dtype or another shape is FC_ERR_FORMAT naming the file, the
 * tensor, and expected vs found dtype and shape. */
fc_status fc_st_get_f32(const fc_safetensors *f, const char *name, int ndim,
                        const int64_t *shape, const float **data);
/* For tensors that must hold only finite numbers (model parameters): an
 * F32 or F64 tensor with an infinite or NaN element is FC_ERR_FORMAT naming
 * the file, the tensor, the first bad element (flat index and coordinates)
 * and its value. Other dtypes pass. Not part of reading, because a
 * safetensors file in general may hold NaN on purpose (a mask, a fixture). */
fc_status fc_st_check_finite(const fc_safetensors *f, const fc_st_tensor *t);
/* The same rule for the writers of such tensors (a model file, a
 * checkpoint), so no file is written that its reader would refuse: how
 * many of x (n) are not finite, and where the first one is. */
size_t fc_f32_non_finite(const float *x, size_t n, size_t *first);
/* 1 when F32 data of that shape holds a value that is not finite, described
 * in buf: "tensor 'w' element 13 [1, 1] is NaN; 23 of its 96 values are not
 * finite"; else 0. */
int fc_st_describe_non_finite(const char *name, int ndim, const int64_t *shape, const float *data,
                              char *buf, size_t cap);
void fc_st_free(fc_safetensors **f);

typedef struct fc_st_writer fc_st_writer;
fc_st_writer *fc_st_writer_new(void);       /* NULL (with a message) if out of memory */
/* `data` is referenced, not copied, until fc_st_writer_write; tensors are
 * written in the order added. Bad names (empty, "__metadata__", duplicated,
 * invalid UTF-8), dtypes or shapes are FC_ERR_INVALID. */
fc_status fc_st_writer_add(fc_st_writer *w, const char *name, fc_dtype dtype, int ndim,
                           const int64_t *shape, const void *data);
/* Metadata entries are written in the order set; a key set twice is
 * FC_ERR_INVALID. */
fc_status fc_st_writer_meta(fc_st_writer *w, const char *key, const char *value);
/* Appends src's metadata, then its tensors (their data still referenced),
 * after dst's, with dst's checks: a file assembled from parts written
 * apart (an ensemble's members, trained side by side), in the parts' order. */
fc_status fc_st_writer_append(fc_st_writer *dst, const fc_st_writer *src);
/* Writes atomically; may be called more than once. */
fc_status fc_st_writer_write(fc_st_writer *w, const char *path);
void fc_st_writer_free(fc_st_writer **w);

#endif
