/* The bookkeeping of a run's arena (docs/memory.md), shared by the CPU and
 * CUDA backends: a bump pointer over one block sized by the memory plan.
 * It is plain arithmetic on offsets, kept apart from the memory itself so
 * the CUDA backend's offsets are tested on machines without a GPU. */
#ifndef FC_BACKEND_ARENA_BOOKS_H
#define FC_BACKEND_ARENA_BOOKS_H

#include <stddef.h>
#include "fcast/status.h"

typedef struct {
    size_t size;   /* bytes of the block */
    size_t used;   /* end of the last buffer handed out */
    size_t live;   /* buffers handed out and not yet given back */
    int sealed;    /* the run is over: new buffers come from the ordinary allocator */
} fc_arena_books;

/* Finds room for `bytes` at the next multiple of `align` (a power of two):
 * on success *offset is where the buffer starts and the books advance. When
 * it does not fit, returns FC_ERR_MEMORY with a message naming the arena's
 * size, the request and what is in use, and leaves the books unchanged. */
fc_status fc_arena_take(fc_arena_books *a, size_t bytes, size_t align, size_t *offset);

/* A buffer given back: its space returns only when the whole arena closes. */
void fc_arena_give_back(fc_arena_books *a);

#endif
