/* unique_id interning (see id_table.h). */
#include "data/id_table.h"

#include <stdlib.h>
#include <string.h>
#include "core/error.h"

/* FNV-1a: ids are short (a few to a few dozen bytes), where it is as fast as
 * anything fancier and needs no alignment care. */
static uint64_t hash_bytes(const char *p, size_t n) {
    uint64_t h = UINT64_C(1469598103934665603);
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * UINT64_C(1099511628211);
    return h;
}

static fc_status grow_slots(fc_id_table *t) {
    size_t cap = t->slot_cap ? t->slot_cap * 2 : 1024;
    uint32_t *slots = fc_calloc(cap, sizeof *slots, "unique_id hash table");
    if (!slots) return FC_ERR_MEMORY;
    for (size_t id = 0; id < t->n; id++) {
        size_t j = t->hash[id] & (cap - 1);
        while (slots[j]) j = (j + 1) & (cap - 1);
        slots[j] = (uint32_t)id + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->slot_cap = cap;
    return FC_OK;
}

static fc_status grow_ids(fc_id_table *t) {
    size_t cap = t->ids_cap ? t->ids_cap * 2 : 256;
    size_t *offset = fc_realloc(t->offset, cap * sizeof *offset, "unique_id table");
    if (!offset) return FC_ERR_MEMORY;
    t->offset = offset;
    uint32_t *length = fc_realloc(t->length, cap * sizeof *length, "unique_id table");
    if (!length) return FC_ERR_MEMORY;
    t->length = length;
    uint64_t *hash = fc_realloc(t->hash, cap * sizeof *hash, "unique_id table");
    if (!hash) return FC_ERR_MEMORY;
    t->hash = hash;
    t->ids_cap = cap;
    return FC_OK;
}

static fc_status append_chars(fc_id_table *t, const char *text, size_t len) {
    if (t->chars_len + len + 1 > t->chars_cap) {
        size_t cap = t->chars_cap ? t->chars_cap : 4096;
        while (cap < t->chars_len + len + 1) cap *= 2;
        char *chars = fc_realloc(t->chars, cap, "unique_id strings");
        if (!chars) return FC_ERR_MEMORY;
        t->chars = chars;
        t->chars_cap = cap;
    }
    memcpy(t->chars + t->chars_len, text, len);
    t->chars[t->chars_len + len] = '\0';
    t->chars_len += len + 1;
    return FC_OK;
}

static fc_status add_id(fc_id_table *t, const char *text, size_t len, uint64_t h, size_t slot,
                        uint32_t *id) {
    if (t->n == UINT32_MAX - 1)
        return fc_error(FC_ERR_INVALID, "more than %u distinct unique_id values", UINT32_MAX - 1);
    if (t->n == t->ids_cap) FC_TRY(grow_ids(t));
    t->offset[t->n] = t->chars_len;
    FC_TRY(append_chars(t, text, len));
    t->length[t->n] = (uint32_t)len;
    t->hash[t->n] = h;
    t->slots[slot] = (uint32_t)t->n + 1;
    *id = (uint32_t)t->n++;
    return FC_OK;
}

fc_status fc_id_table_intern(fc_id_table *t, const char *text, size_t len, uint32_t *id) {
    if (2 * (t->n + 1) > t->slot_cap) FC_TRY(grow_slots(t));
    uint64_t h = hash_bytes(text, len);
    size_t j = h & (t->slot_cap - 1);
    for (; t->slots[j]; j = (j + 1) & (t->slot_cap - 1)) {
        uint32_t k = t->slots[j] - 1;
        if (t->hash[k] == h && t->length[k] == len &&
            memcmp(t->chars + t->offset[k], text, len) == 0) {
            *id = k;
            return FC_OK;
        }
    }
    return add_id(t, text, len, h, j, id);
}

void fc_id_table_free(fc_id_table *t) {
    free(t->chars);
    free(t->offset);
    free(t->length);
    free(t->hash);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

typedef struct {
    const char *text;
    uint32_t id;
} named_id;

static int compare_names(const void *a, const void *b) {
    return strcmp(((const named_id *)a)->text, ((const named_id *)b)->text);
}

fc_status fc_id_table_order(const fc_id_table *t, uint32_t *series_of_id, uint32_t *id_of_series) {
    named_id *names = fc_malloc(t->n * sizeof *names, "series order");
    if (!names) return FC_ERR_MEMORY;
    for (uint32_t i = 0; i < t->n; i++) names[i] = (named_id){fc_id_table_str(t, i), i};
    qsort(names, t->n, sizeof *names, compare_names);
    for (uint32_t s = 0; s < t->n; s++) {
        id_of_series[s] = names[s].id;
        series_of_id[names[s].id] = s;
    }
    free(names);
    return FC_OK;
}
