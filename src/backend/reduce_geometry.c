/* Launch of the CUDA backend's fixed-order reductions (see reduce_geometry.h). */
#include "backend/reduce_geometry.h"

fc_launch fc_reduce_launch(size_t n) {
    fc_reduce_split s = fc_reduce_split_of(n);
    fc_launch l = {(unsigned)s.blocks, FC_REDUCE_THREADS};   /* blocks <= FC_REDUCE_MAX_BLOCKS */
    return l;
}
