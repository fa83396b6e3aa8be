/* Interning of unique_id strings: each distinct id gets a dense number in
 * order of first appearance. Open addressing with linear probing over a
 * power-of-two slot array; the strings live in one growing byte arena, so
 * interning allocates only when the arena or the slot array doubles. */
#ifndef FC_DATA_ID_TABLE_H
#define FC_DATA_ID_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "fcast/status.h"

typedef struct {
    char *chars;            /* NUL-terminated ids, back to back */
    size_t chars_len, chars_cap;
    size_t *offset;         /* (n) start of id i in chars */
    uint32_t *length;       /* (n) bytes of id i */
    uint64_t *hash;         /* (n) kept for rehashing and cheap mismatches */
    size_t n, ids_cap;
    uint32_t *slots;        /* id + 1, or 0 for an empty slot */
    size_t slot_cap;
} fc_id_table;

/* The number of the id text[0..len), adding it if new. len < 2^32. */
fc_status fc_id_table_intern(fc_id_table *t, const char *text, size_t len, uint32_t *id);

static inline const char *fc_id_table_str(const fc_id_table *t, uint32_t id) {
    return t->chars + t->offset[id];
}

/* Orders the ids by their bytes (strcmp, as pandas sorts strings):
 * series_of_id[id] is the id's place in that order, id_of_series its
 * inverse; both have room for t->n. */
fc_status fc_id_table_order(const fc_id_table *t, uint32_t *series_of_id, uint32_t *id_of_series);

void fc_id_table_free(fc_id_table *t);

#endif
