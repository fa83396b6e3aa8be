/* (uint32, int64) -> uint64 hash map (see pair_map.h). */
#include "eval/pair_map.h"

#include <stdlib.h>
#include "core/error.h"

static size_t slot_of(const fc_pair_map *m, uint32_t a, int64_t b) {
    uint64_t h = (uint64_t)b * 0x9E3779B97F4A7C15ull ^ ((uint64_t)a + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    return (size_t)h & (m->cap - 1);
}

static fc_pair_slot *probe(const fc_pair_map *m, uint32_t a, int64_t b) {
    size_t i = slot_of(m, a, b);
    while (m->slots[i].used && (m->slots[i].a != a || m->slots[i].b != b)) i = (i + 1) & (m->cap - 1);
    return &m->slots[i];
}

static fc_status grow(fc_pair_map *m) {
    size_t cap = m->cap ? m->cap * 2 : 64;
    fc_pair_slot *old = m->slots, *slots = fc_calloc(cap, sizeof *slots, "score table keys");
    if (!slots) return FC_ERR_MEMORY;
    size_t old_cap = m->cap;
    m->slots = slots;
    m->cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].used) *probe(m, old[i].a, old[i].b) = old[i];
    free(old);
    return FC_OK;
}

fc_status fc_pair_map_put(fc_pair_map *m, uint32_t a, int64_t b, uint64_t *value, int *found) {
    if (2 * (m->n + 1) > m->cap) FC_TRY(grow(m));
    fc_pair_slot *s = probe(m, a, b);
    *found = s->used != 0;
    if (*found) {
        *value = s->value;
        return FC_OK;
    }
    *s = (fc_pair_slot){.b = b, .a = a, .used = 1, .value = *value};
    m->n++;
    return FC_OK;
}

void fc_pair_map_free(fc_pair_map *m) {
    free(m->slots);
    m->slots = NULL;
    m->cap = m->n = 0;
}
