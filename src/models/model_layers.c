/* The one walk over a model's linear layers (model.h): FLOP counts, the
 * memory plan's workspaces and the low-precision plan all visit the same
 * layers in the same order, whatever the kind stores. */
#include "core/error.h"
#include "models/model.h"

fc_status fc_model_for_each_linear(const fc_model *m, fc_linear_visitor visit, void *ctx) {
    size_t index = 0;
    for (int i = 0; i < m->n_blocks; i++)
        for (int j = 0; j < m->blocks[i].n_linear; j++) FC_TRY(visit(&m->blocks[i].lin[j], index++, ctx));
    for (int j = 0; j < m->n_linear; j++) FC_TRY(visit(&m->lin[j], index++, ctx));
    return FC_OK;
}
