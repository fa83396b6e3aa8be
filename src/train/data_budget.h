/* How a run loads its data under --memory-limit: whole, on the heap, when
 * that takes at most half of what the limit leaves beyond the allowance for
 * code and libraries (the model and its batches need the rest); streamed
 * into a memory-mapped store file otherwise, so data larger than the limit
 * still trains inside it (docs/memory.md). */
#ifndef FC_TRAIN_DATA_BUDGET_H
#define FC_TRAIN_DATA_BUDGET_H

#include <stdio.h>

#include "data/dataset.h"

typedef enum { FC_DATA_AUTO = 0, FC_DATA_MEMORY, FC_DATA_STREAM } fc_data_store;

/* --data-store's text (NULL: auto); the error names the flag and the choices. */
fc_status fc_data_store_parse(const char *text, fc_data_store *out);

typedef struct {
    int stream;              /* the choice */
    int estimated;           /* rows and whole_bytes are known */
    size_t rows;             /* data rows in the file */
    size_t whole_bytes;      /* the in-memory loader's estimated peak */
    size_t file_bytes;       /* the file's size */
} fc_data_choice;

/* Decides how path is loaded under limit (0: none) and sets lo->stream and
 * lo->max_heap accordingly. With FC_DATA_MEMORY, data whose loading would
 * pass the limit is refused (FC_ERR_MEMORY naming the rows and the peak),
 * before anything is loaded. */
fc_status fc_data_choose(const char *path, fc_load_options *lo, fc_data_store mode, size_t limit,
                         fc_data_choice *c);

/* One line on stderr-style stream f when the data is streamed: where the
 * store goes and why. Nothing for data loaded whole. */
void fc_data_choice_print(const fc_data_choice *c, const fc_load_options *lo, size_t limit, FILE *f);

#endif
