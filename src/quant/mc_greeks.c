/* Monte Carlo Greeks (see mc_greeks.h): chunks of draws over OpenMP, their
 * sums added in chunk order (the same figures for any thread count). */
#include "quant/mc_greeks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "kernels/quant_mc_greeks.h"

#define GREEKS_CHUNK_DRAWS 4096
#define GREEKS_MAX_PATHS 10000000000ULL

typedef struct {
    double x[3], xx[3];
} greek_sums;

fc_status fc_mc_greeks_price(fc_option_type type, const fc_bs_market *m, int method, uint64_t paths, int antithetic,
                             uint64_t seed, fc_mc_greeks *out) {
    FC_TRY(fc_bs_check(m));
    if (method != FC_GREEKS_PATHWISE && method != FC_GREEKS_LR)
        return fc_error(FC_ERR_INVALID, "--greeks: expected pathwise or lr");
    if (paths < 2 || paths > GREEKS_MAX_PATHS)
        return fc_error(FC_ERR_INVALID, "--paths: expected 2 to %llu paths, got %llu", GREEKS_MAX_PATHS,
                        (unsigned long long)paths);
    fc_greeks_spec s = {.spot = m->spot, .strike = m->strike, .disc = exp(-m->rate * m->expiry),
                        .sd = m->vol * sqrt(m->expiry), .vol = m->vol, .expiry = m->expiry,
                        .base = m->spot * exp((m->rate - m->div - 0.5 * m->vol * m->vol) * m->expiry),
                        .is_call = type == FC_CALL, .method = method, .antithetic = antithetic};
    uint64_t per_draw = antithetic ? 4 : 2, draws = paths / per_draw + (paths % per_draw != 0);
    uint64_t n_chunks = (draws + GREEKS_CHUNK_DRAWS - 1) / GREEKS_CHUNK_DRAWS;
    greek_sums *chunk = fc_malloc((size_t)n_chunks * sizeof *chunk, "Monte Carlo Greek sums");
    if (!chunk) return FC_ERR_MEMORY;
    #pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < (int64_t)n_chunks; c++) {
        greek_sums acc;
        memset(&acc, 0, sizeof acc);
        uint64_t first = (uint64_t)c * GREEKS_CHUNK_DRAWS;
        uint64_t end = first + GREEKS_CHUNK_DRAWS < draws ? first + GREEKS_CHUNK_DRAWS : draws;
        for (uint64_t d = first; d < end; d++) {
            double g[2][3];
            fc_greeks_draw(&s, seed, d, g);
            for (int l = 0; l < 2; l++)
                for (int k = 0; k < 3; k++) acc.x[k] += g[l][k], acc.xx[k] += g[l][k] * g[l][k];
        }
        chunk[c] = acc;
    }
    greek_sums t;
    memset(&t, 0, sizeof t);
    for (uint64_t c = 0; c < n_chunks; c++)
        for (int k = 0; k < 3; k++) t.x[k] += chunk[c].x[k], t.xx[k] += chunk[c].xx[k];
    free(chunk);
    double n = (double)(2 * draws), mean[3], se[3];
    for (int k = 0; k < 3; k++) {
        mean[k] = t.x[k] / n;
        double var = (t.xx[k] - n * mean[k] * mean[k]) / (n - 1.0);
        se[k] = sqrt((var > 0.0 ? var : 0.0) / n);
    }
    int pw = method == FC_GREEKS_PATHWISE;
    *out = (fc_mc_greeks){mean[0], se[0], pw ? NAN : mean[1], pw ? NAN : se[1], mean[2], se[2], draws * per_draw};
    if (!isfinite(out->delta) || !isfinite(out->vega))
        return fc_error(FC_ERR_INVALID, "the Monte Carlo Greeks are not finite: the inputs (--S, --K, --sigma, --T) "
                        "are beyond what double precision can simulate");
    return FC_OK;
}
