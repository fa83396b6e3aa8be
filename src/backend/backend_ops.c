/* The rows of backend_ops.def as data, and the ABI number made from them.
 * Compiled into libfcast-cuda.so too (CMakeLists.txt), so that both sides
 * of the loader's handshake compute fc_backend_abi the same way. */
#include "backend/backend_ops.h"

#include <stdint.h>
#include <string.h>

#define FC_BACKEND_OP(name, cpu, cuda, ret, params) {#name, offsetof(fc_backend, name), FC_FILL_##cpu, FC_FILL_##cuda},
const fc_backend_op fc_backend_ops[] = {
#include "backend/backend_ops.def"
};
#undef FC_BACKEND_OP

const size_t fc_backend_op_count = sizeof fc_backend_ops / sizeof *fc_backend_ops;

const char *fc_op_fill_name(fc_op_fill fill) {
    static const char *const names[] = {"FN", "OWN", "MAYBE", "NONE"};
    return fill <= FC_FILL_NONE ? names[fill] : "?";
}

const fc_backend_op *fc_backend_op_named(const char *name) {
    for (size_t i = 0; i < fc_backend_op_count; i++)
        if (!strcmp(fc_backend_ops[i].name, name)) return &fc_backend_ops[i];
    return NULL;
}

int fc_backend_op_filled(const fc_backend *be, const fc_backend_op *op) {
    void (*entry)(void);   /* every slot is a function pointer: all have one size and NULL */
    memcpy(&entry, (const char *)be + op->offset, sizeof entry);
    return entry != NULL;
}

/* Each row's name, return type and parameters as the preprocessor spells
 * them (the columns of who fills what are no part of the layout). */
#define FC_BACKEND_OP(name, cpu, cuda, ret, params) #ret " " #name #params ";"
static const char layout_text[] =
#include "backend/backend_ops.def"
    ;
#undef FC_BACKEND_OP

static uint32_t fnv1a(uint32_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
    return h;
}

int fc_backend_abi(void) {
    uint32_t h = 2166136261u;
    const uint32_t fields[2] = {FC_BACKEND_FIELDS_VERSION, (uint32_t)sizeof(fc_backend)};
    h = fnv1a(h, fields, sizeof fields);
    h = fnv1a(h, layout_text, sizeof layout_text - 1);
    return (int)(h & 0x7fffffff);   /* positive: printed with %d in the loader's messages */
}
