/* A hash map from (uint32, int64) keys -- (series, cutoff) or (window, ds)
 * -- to a uint64 value, by open addressing over a power-of-two slot array
 * kept at most half full. 24 bytes a slot: the duplicate-row check of a
 * scored file costs about 48 bytes a row at worst. */
#ifndef FC_EVAL_PAIR_MAP_H
#define FC_EVAL_PAIR_MAP_H

#include <stddef.h>
#include <stdint.h>
#include "fcast/status.h"

typedef struct {
    int64_t b;
    uint32_t a, used;
    uint64_t value;
} fc_pair_slot;

typedef struct {
    fc_pair_slot *slots;
    size_t cap, n;
} fc_pair_map;

/* Looks (a, b) up: when present sets *found = 1 and *value to its value;
 * else inserts it with *value and sets *found = 0. */
fc_status fc_pair_map_put(fc_pair_map *m, uint32_t a, int64_t b, uint64_t *value, int *found);

void fc_pair_map_free(fc_pair_map *m);

#endif
