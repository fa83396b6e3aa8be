/* Arena offsets (see arena_books.h). */
#include "backend/arena_books.h"
#include "core/error.h"

fc_status fc_arena_take(fc_arena_books *a, size_t bytes, size_t align, size_t *offset) {
    FC_ASSERT(align && (align & (align - 1)) == 0);
    size_t at = a->used + (align - 1);
    int wrapped = at < a->used;
    at &= ~(align - 1);
    if (wrapped || bytes > a->size || at > a->size - bytes)
        return fc_error(FC_ERR_MEMORY, "the run's memory arena (%zu bytes, from the memory plan) cannot hold %zu more "
                        "bytes (%zu in use): an allocation the plan did not foresee", a->size, bytes, a->used);
    a->used = at + bytes;
    a->live++;
    *offset = at;
    return FC_OK;
}

void fc_arena_give_back(fc_arena_books *a) {
    FC_ASSERT(a->live > 0);
    a->live--;
}
