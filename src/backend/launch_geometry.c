/* Launch geometry and reduction splits (see launch_geometry.h). */
#include "backend/launch_geometry.h"

fc_launch fc_launch_1d(size_t n, unsigned block, unsigned max_grid) {
    fc_launch l = {0, block};
    if (n == 0 || block == 0) return l;
    size_t blocks = n / block + (n % block != 0);   /* no overflow near SIZE_MAX */
    l.grid = blocks < max_grid ? (unsigned)blocks : max_grid;
    return l;
}

fc_reduce_split fc_reduce_split_of(size_t n) {
    fc_reduce_split s = {FC_REDUCE_MIN_BLOCK, 0};
    if (n == 0) return s;
    size_t len = n / FC_REDUCE_MAX_BLOCKS + (n % FC_REDUCE_MAX_BLOCKS != 0);
    s.block_len = len < FC_REDUCE_MIN_BLOCK ? FC_REDUCE_MIN_BLOCK : len;
    s.blocks = n / s.block_len + (n % s.block_len != 0);
    return s;
}
