/* Monte Carlo option pricing (see mc_options.h): builds the time grid, runs
 * the draws in fixed-size chunks (over OpenMP, or on the option's backend)
 * and reduces the chunk sums in chunk order, so the answer depends neither
 * on the thread count nor on who summed the chunks. */
#include "quant/mc_options.h"

#include <float.h>
#include <math.h>
#include <string.h>
#include "backend/backend.h"
#include "core/error.h"
#include "kernels/quant_paths.h"
#include "backend/mc_slices.h"

#define MC_CHUNK_DRAWS 1024
#define MC_Z95 1.959963984540054 /* Phi^-1(0.975) */
#define MC_MAX_STEPS 100000

typedef struct {
    double *drift, *vol;
    unsigned char *fixing;
    double *times;  /* (n_fix) fixing times used (Asian) */
} mc_grid;

static void grid_free(mc_grid *g) {
    free(g->drift);
    free(g->vol);
    free(g->fixing);
    free(g->times);
    memset(g, 0, sizeof *g);
}

/* Bounds on the work one pricing may ask for: about two minutes on 2 cores
 * at 10^8 normals per second. Larger requests are typos, not runs. */
#define MC_MAX_PATHS 10000000000ULL
#define MC_MAX_WORK 10000000000ULL   /* paths x time steps (or fixings) */

static fc_status check_option(const fc_mc_option *o) {
    FC_TRY(fc_bs_check(&o->market));
    if (o->paths < 2 || o->paths > MC_MAX_PATHS)
        return fc_error(FC_ERR_INVALID, "--paths: expected 2 to %llu paths, got %llu", MC_MAX_PATHS,
                        (unsigned long long)o->paths);
    if (o->asian && (o->n_fixings < 1 || o->n_fixings > MC_MAX_STEPS))
        return fc_error(FC_ERR_INVALID, "--fixings: expected 1 to %d fixings, got %zu", MC_MAX_STEPS,
                        o->n_fixings);
    if (!o->asian && (o->steps < 1 || o->steps > MC_MAX_STEPS))
        return fc_error(FC_ERR_INVALID, "--steps: expected 1 to %d time steps, got %zu", MC_MAX_STEPS,
                        o->steps);
    unsigned long long per_path = o->asian ? o->n_fixings : o->steps;
    if ((unsigned long long)o->paths > MC_MAX_WORK / per_path)
        return fc_error(FC_ERR_INVALID, "--paths %llu x %s %llu = %.3g path steps, more than the %.0e one run may "
                        "take: use fewer paths or steps", (unsigned long long)o->paths, o->asian ? "--fixings" : "--steps",
                        per_path, (double)o->paths * (double)per_path, (double)MC_MAX_WORK);
    return FC_OK;
}

/* Step k goes from t_prev to t[k]; the grid holds its drift and volatility. */
static void grid_fill_steps(mc_grid *g, const fc_bs_market *m, const double *t, size_t n) {
    double prev = 0.0, mu = m->rate - m->div - 0.5 * m->vol * m->vol;
    for (size_t k = 0; k < n; k++) {
        double dt = t[k] - prev;
        g->drift[k] = mu * dt;
        g->vol[k] = m->vol * sqrt(dt);
        prev = t[k];
    }
}

/* Fills spec and grid; Asian fixings at t = 0 are counted, not simulated. */
static fc_status build_grid(const fc_mc_option *o, mc_grid *g, fc_mc_spec *spec) {
    const fc_bs_market *m = &o->market;
    size_t n_fix = o->asian ? o->n_fixings : 0;
    g->times = fc_malloc((n_fix ? n_fix : 1) * sizeof(double), "fixing times");
    if (!g->times) return FC_ERR_MEMORY;
    for (size_t i = 0; i < n_fix; i++)
        g->times[i] = o->fixing_times ? o->fixing_times[i] : m->expiry * (double)(i + 1) / (double)n_fix;
    size_t at_zero = 0;
    for (size_t i = 0; i < n_fix; i++) {
        if (!(g->times[i] >= 0.0 && g->times[i] <= m->expiry) || (i && g->times[i] < g->times[i - 1]))
            return fc_error(FC_ERR_INVALID, "fixing %zu at t=%g: fixing times must be sorted and in [0, T=%g]",
                            i + 1, g->times[i], m->expiry);
        if (g->times[i] == 0.0) at_zero++;
    }
    size_t n_steps = o->asian ? n_fix - at_zero : o->steps;
    size_t alloc = n_steps ? n_steps : 1;
    g->drift = fc_malloc(alloc * sizeof(double), "path drifts");
    g->vol = fc_malloc(alloc * sizeof(double), "path volatilities");
    g->fixing = fc_calloc(alloc, 1, "fixing flags");
    if (!g->drift || !g->vol || !g->fixing) return FC_ERR_MEMORY;
    if (o->asian) {
        grid_fill_steps(g, m, g->times + at_zero, n_steps);
        memset(g->fixing, 1, n_steps);
    } else { /* equal steps: t_k = T (k+1) / n */
        double *t = fc_malloc(alloc * sizeof(double), "step times");
        if (!t) return FC_ERR_MEMORY;
        for (size_t k = 0; k < n_steps; k++) t[k] = m->expiry * (double)(k + 1) / (double)n_steps;
        grid_fill_steps(g, m, t, n_steps);
        free(t);
    }
    *spec = (fc_mc_spec){.log_s0 = log(m->spot), .strike = m->strike,
                         .discount = exp(-m->rate * m->expiry), .is_call = o->type == FC_CALL,
                         .is_asian = o->asian, .antithetic = o->antithetic,
                         .n_steps = (uint32_t)n_steps, .drift = g->drift, .vol = g->vol,
                         .fixing = g->fixing, .n_fixings_at_zero = (uint32_t)at_zero,
                         .n_fixings = (uint32_t)n_fix};
    double drift_sum = 0.0;
    for (size_t k = 0; k < n_steps; k++) drift_sum += g->drift[k];
    spec->terminal_base = m->spot * exp(drift_sum);
    return FC_OK;
}

static void run_chunk(const fc_mc_spec *spec, uint64_t seed, uint64_t first, uint64_t end, fc_mc_sums *s) {
    fc_mc_sums acc = {0, 0, 0, 0, 0};
    for (uint64_t d = first; d < end; d++) {
        fc_mc_sample smp[2];
        fc_mc_draw(spec, seed, d, smp);
        fc_mc_sums_add(&acc, smp);
    }
    *s = acc;
}

/* The chunk sums on the host: chunks are independent, threads take them in any order. */
static void host_chunk_sums(const fc_mc_spec *spec, uint64_t seed, uint64_t draws, uint64_t n_chunks,
                            fc_mc_sums *chunk) {
    #pragma omp parallel for schedule(dynamic, 16)
    for (int64_t c = 0; c < (int64_t)n_chunks; c++) {
        uint64_t first = (uint64_t)c * MC_CHUNK_DRAWS;
        uint64_t end = first + MC_CHUNK_DRAWS < draws ? first + MC_CHUNK_DRAWS : draws;
        run_chunk(spec, seed, first, end, &chunk[c]);
    }
}

fc_status fc_mc_run_draws(fc_backend *be, const fc_mc_spec *spec, uint64_t seed, uint64_t draws,
                           fc_mc_sums *total) {
    uint64_t n_chunks = fc_mc_chunk_count(draws, MC_CHUNK_DRAWS);
    fc_mc_sums *chunk = fc_malloc((size_t)n_chunks * sizeof *chunk, "Monte Carlo chunk sums");
    if (!chunk) return FC_ERR_MEMORY;
    fc_status st = FC_OK;
    if (be && be->mc_chunk_sums) st = be->mc_chunk_sums(be, spec, seed, draws, MC_CHUNK_DRAWS, chunk);
    else host_chunk_sums(spec, seed, draws, n_chunks, chunk);
    *total = (fc_mc_sums){0, 0, 0, 0, 0};
    for (uint64_t c = 0; st == FC_OK && c < n_chunks; c++) {
        total->x += chunk[c].x;
        total->y += chunk[c].y;
        total->xx += chunk[c].xx;
        total->yy += chunk[c].yy;
        total->xy += chunk[c].xy;
    }
    free(chunk);
    return st;
}

/* A variance from sums of squares: rounding can leave it slightly below 0,
 * which is 0; NaN (an overflowed sum, inf - inf) stays NaN, so the result
 * is refused instead of read as an exact price (fmax would make it 0). */
static double variance_floor(double v) { return v < 0.0 ? 0.0 : v; }

/* Sample means, variances (ddof 1) and covariance from the sums. */
static void finish_estimates(const fc_mc_sums *s, double n, double geo_exact, int use_cv, fc_mc_result *r) {
    double mx = s->x / n, my = s->y / n;
    double vx = variance_floor((s->xx - n * mx * mx) / (n - 1.0));
    double vy = variance_floor((s->yy - n * my * my) / (n - 1.0));
    double cxy = (s->xy - n * mx * my) / (n - 1.0);
    r->plain_price = mx;
    r->plain_std_error = sqrt(vx / n);
    r->price = mx;
    r->std_error = r->plain_std_error;
    if (use_cv && vy > 0.0) {
        double beta = cxy / vy;
        r->cv_beta = beta;
        r->price = mx - beta * (my - geo_exact);
        r->std_error = sqrt(variance_floor(vx - 2.0 * beta * cxy + beta * beta * vy) / n);
    }
    r->geo_mc = my;
    r->geo_mc_std_error = sqrt(vy / n);
}

/* Prices are homogeneous of degree 1 in (S, K): the draws run in units of
 * 2^e, e the exponent of max(S, K), so payoffs are near 1 whatever the
 * quote's size. In the quote's own units a payoff's square overflowed
 * above S ~ 1e154 (and underflowed below ~1e-154): the variance came out 0,
 * a price with no error, on the CPU and the GPU alike, which share the
 * sums. Scaling by a power of two is exact both ways. */
static fc_status scaled_market(const fc_bs_market *m, fc_bs_market *scaled, int *e) {
    *e = ilogb(fmax(m->spot, m->strike));
    *scaled = *m;
    scaled->spot = ldexp(m->spot, -*e);
    scaled->strike = ldexp(m->strike, -*e);
    if (fmin(scaled->spot, scaled->strike) < DBL_MIN)
        return fc_error(FC_ERR_INVALID, "--S = %g and --K = %g: one is more than 2^1022 times the other, a "
                        "ratio double precision cannot simulate", m->spot, m->strike);
    return FC_OK;
}

/* A figure back in the quote's units (x 2^e, exact) must stay a normal
 * double: a finite one, and not below DBL_MIN, where a subnormal keeps too
 * few bits (a non-zero standard error of 1e-320 would be mostly rounding). */
static int unscale(double *v, int e) {
    double x = ldexp(*v, e);
    int lost = *v != 0.0 && !(fabs(x) >= DBL_MIN && isfinite(x));
    *v = x;
    return !lost;
}

/* The figures in the quote's units, and the 95% interval from them. */
static fc_status unscale_result(fc_mc_result *r, int e, const fc_bs_market *m) {
    double *figures[] = {&r->price, &r->std_error, &r->plain_price, &r->plain_std_error, &r->geo_mc,
                         &r->geo_mc_std_error, &r->geo_exact};
    int ok = 1;
    for (size_t i = 0; i < sizeof figures / sizeof *figures; i++) ok &= unscale(figures[i], e);
    r->ci_low = r->price - MC_Z95 * r->std_error;
    r->ci_high = r->price + MC_Z95 * r->std_error;
    if (ok && isfinite(r->ci_low) && isfinite(r->ci_high)) return FC_OK;
    return fc_error(FC_ERR_INVALID, "--S = %g, --K = %g: the price %g (standard error %g) is outside the range "
                    "of normal doubles (%g to %g): quote S and K in %s units", m->spot, m->strike, r->price,
                    r->std_error, DBL_MIN, DBL_MAX, e < 0 ? "smaller (e.g. cents, not dollars)" : "larger");
}

fc_status fc_mc_price(const fc_mc_option *o, fc_mc_result *out) {
    FC_TRY(check_option(o));
    memset(out, 0, sizeof *out);
    fc_mc_option scaled = *o;
    int e;
    FC_TRY(scaled_market(&o->market, &scaled.market, &e));
    mc_grid g = {0};
    fc_mc_spec spec;
    fc_status st = build_grid(&scaled, &g, &spec);
    if (st == FC_OK && o->asian)
        st = fc_geometric_asian_price(o->type, &scaled.market, g.times, o->n_fixings, &out->geo_exact);
    uint64_t per_draw = o->antithetic ? 4 : 2;
    uint64_t draws = o->paths / per_draw + (o->paths % per_draw != 0);
    fc_mc_sums sums;
    if (st == FC_OK) st = fc_mc_run_draws(o->backend, &spec, o->seed, draws, &sums);
    if (st == FC_OK) {
        out->paths = draws * per_draw;
        out->samples = draws * 2;
        finish_estimates(&sums, (double)out->samples, out->geo_exact, o->asian && o->control_variate, out);
        if (!isfinite(out->price) || !isfinite(out->std_error))
            st = fc_error(FC_ERR_INVALID, "the Monte Carlo price is not finite (%g): the inputs (--r, --q, --sigma, "
                          "--T) are beyond what double precision can simulate", out->price);
    }
    if (st == FC_OK) st = unscale_result(out, e, &o->market);
    grid_free(&g);
    return st;
}
