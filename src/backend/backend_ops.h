/* The entries of the backend table as data, made from backend_ops.def:
 * each one's name (for messages), its place in struct fc_backend and how
 * each backend fills it, so that a check can go over every entry without a
 * list of its own to keep. Also the macros with which each backend makes
 * its declarations and fill table from the same rows. */
#ifndef FC_BACKEND_BACKEND_OPS_H
#define FC_BACKEND_BACKEND_OPS_H

#include <stddef.h>
#include "backend/backend.h"

/* A backend's column of backend_ops.def (see there). */
typedef enum { FC_FILL_FN, FC_FILL_OWN, FC_FILL_MAYBE, FC_FILL_NONE } fc_op_fill;

typedef struct {
    const char *name;
    size_t offset;       /* of its slot in struct fc_backend */
    fc_op_fill cpu, cuda;
} fc_backend_op;

extern const fc_backend_op fc_backend_ops[];
extern const size_t fc_backend_op_count;

/* "FN", "OWN", "MAYBE" or "NONE", as backend_ops.def writes it. */
const char *fc_op_fill_name(fc_op_fill fill);
/* The row of the entry called `name`, or NULL. */
const fc_backend_op *fc_backend_op_named(const char *name);
/* Whether be's slot of op is filled (not NULL). */
int fc_backend_op_filled(const fc_backend *be, const fc_backend_op *op);

/* For a backend's uses of the rows: FC_OP_IF_FN_##column(text) is text in
 * the rows the backend fills with its fc_<backend>_<name> (FN), nothing
 * in the others. The column is pasted, never expanded, so its words need
 * not be unused as macros elsewhere. */
#define FC_OP_IF_FN_FN(...) __VA_ARGS__
#define FC_OP_IF_FN_OWN(...)
#define FC_OP_IF_FN_MAYBE(...)
#define FC_OP_IF_FN_NONE(...)

#endif
