/* The data a checkpoint was made on, named by two hashes: the index (each
 * series' name and length, in order) and the values (every ds, y, mask
 * and exogenous bit). A resume on other data is refused.
 *
 * Both are folds of per-series hashes in the file's series order, so the
 * ranks of a job that each hold a shard of the series (data/dataset.h)
 * compute them together, each hashing its own series, and get what one
 * process holding the whole file gets: a checkpoint does not depend on how
 * the data was held. Version 1 checkpoints hashed the whole file in one
 * chain; fc_data_hashes_v1 still reads them where the data is whole.
 *
 * A 64-bit multiply-xorshift mix per 8-byte word: fast enough to run over
 * ten million points in a few tens of milliseconds, and any changed bit
 * changes the result. Not cryptographic: it detects mistakes, not forgers. */
#ifndef FC_TRAIN_DATA_HASH_H
#define FC_TRAIN_DATA_HASH_H

#include <stdint.h>
#include "data/dataset.h"

typedef struct {
    uint64_t index, values;
} fc_data_hashes;

/* Series i of ds alone. */
fc_data_hashes fc_data_hashes_series(const fc_dataset *ds, size_t i);
/* The fold's start, and one series' hashes folded in after those before it. */
fc_data_hashes fc_data_hashes_start(void);
fc_data_hashes fc_data_hashes_fold(fc_data_hashes acc, fc_data_hashes series);
/* A whole dataset's: every series folded in order. One pass over the data,
 * handing a streamed store's pages back as it goes. */
fc_data_hashes fc_data_hashes_of(const fc_dataset *ds);
/* The hashes version 1 checkpoints hold (one chain over the whole data). */
fc_data_hashes fc_data_hashes_v1(const fc_dataset *ds);

#endif
