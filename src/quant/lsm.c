/* Longstaff-Schwartz (see lsm.h): the backward calibration with one
 * least-squares fit per exercise date, then the forward pricing run. */
#include "quant/lsm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "kernels/quant_lsm.h"
#include "kernels/quant_paths.h"
#include "quant/mc_options.h"

/* LAPACK: minimum-norm least squares by SVD, so that a date with too few
 * paths in the money for the basis (a rank-deficient system) still gets
 * a fit instead of a failure. */
extern void dgelsd_(const int *m, const int *n, const int *nrhs, double *a, const int *lda, double *b,
                    const int *ldb, double *s, const double *rcond, int *rank, double *work, const int *lwork,
                    int *iwork, int *info);

#define LSM_CHUNK_DRAWS 2048
#define LSM_MAX_STEPS 100000
#define LSM_MAX_PATHS 10000000000ULL
#define LSM_MAX_WORK 10000000000ULL         /* paths x steps, as the European Monte Carlo */
#define LSM_MAX_CALIBRATION 10000000ULL     /* 2 doubles each: 160 MB */
#define NB (FC_LSM_MAX_DEGREE + 1)

static fc_status check_option(const fc_lsm_option *o) {
    FC_TRY(fc_bs_check(&o->market));
    if (o->steps < 2 || o->steps > LSM_MAX_STEPS)
        return fc_error(FC_ERR_INVALID, "--steps: expected 2 to %d exercise dates, got %zu", LSM_MAX_STEPS, o->steps);
    if (o->paths < 2 || o->paths > LSM_MAX_PATHS)
        return fc_error(FC_ERR_INVALID, "--paths: expected 2 to %llu paths, got %llu", LSM_MAX_PATHS,
                        (unsigned long long)o->paths);
    if (o->paths > LSM_MAX_WORK / o->steps)
        return fc_error(FC_ERR_INVALID, "--paths %llu x --steps %zu = %.3g path steps, more than the %.0e one run may "
                        "take: use fewer paths or steps", (unsigned long long)o->paths, o->steps,
                        (double)o->paths * (double)o->steps, (double)LSM_MAX_WORK);
    if (o->calibration_paths < 16 || o->calibration_paths > LSM_MAX_CALIBRATION)
        return fc_error(FC_ERR_INVALID, "--calibration-paths: expected 16 to %llu paths (each keeps 2 doubles in "
                        "memory), got %llu", LSM_MAX_CALIBRATION, (unsigned long long)o->calibration_paths);
    if (o->calibration_paths > LSM_MAX_WORK / o->steps)
        return fc_error(FC_ERR_INVALID, "--calibration-paths %llu x --steps %zu: more than the %.0e path steps one "
                        "run may take", (unsigned long long)o->calibration_paths, o->steps, (double)LSM_MAX_WORK);
    if (o->degree < 1 || o->degree > FC_LSM_MAX_DEGREE)
        return fc_error(FC_ERR_INVALID, "--basis-degree: expected 1 to %d, got %d", FC_LSM_MAX_DEGREE, o->degree);
    return FC_OK;
}

typedef struct {
    double gram[NB * NB], rhs[NB];
} normal_eq;

/* The least-squares fit of the normal equations into beta (degree + 1). */
static fc_status solve_fit(normal_eq *e, int nb, double *beta) {
    int n = nb, one = 1, rank, info, lwork = -1, iwork[64 * NB];
    double s[NB], rcond = 1e-12, query;
    memcpy(beta, e->rhs, (size_t)nb * sizeof *beta);
    dgelsd_(&n, &n, &one, e->gram, &n, beta, &n, s, &rcond, &rank, &query, &lwork, iwork, &info);
    lwork = (int)query;
    double *work = fc_malloc((size_t)lwork * sizeof *work, "least-squares workspace");
    if (!work) return FC_ERR_MEMORY;
    dgelsd_(&n, &n, &one, e->gram, &n, beta, &n, s, &rcond, &rank, work, &lwork, iwork, &info);
    free(work);
    if (info != 0) return fc_error(FC_ERR_INVALID, "Longstaff-Schwartz: the regression failed (LAPACK dgelsd "
                                   "info=%d)", info);
    return FC_OK;
}

typedef struct {
    fc_lsm_spec spec;
    uint64_t seed, draws;
    double *w, *cash;      /* per calibration path: W(t_k) and its cash flow valued at t_k */
    double *beta;          /* (steps - 1) x nb */
} calibration;

/* Step k's normal equations over the paths in the money, in fixed chunks
 * added in chunk order (the same sums for any thread count). Also moves
 * every path's W back to t_k and its cash flow one step of discount. */
static void accumulate(calibration *c, uint32_t k, normal_eq *total, normal_eq *chunk, uint64_t n_chunks) {
    const fc_lsm_spec *s = &c->spec;
    const int nb = s->degree + 1;
    #pragma omp parallel for schedule(static)
    for (int64_t ch = 0; ch < (int64_t)n_chunks; ch++) {
        normal_eq *e = &chunk[ch];
        memset(e, 0, sizeof *e);
        uint64_t end = ((uint64_t)ch + 1) * LSM_CHUNK_DRAWS < c->draws ? ((uint64_t)ch + 1) * LSM_CHUNK_DRAWS : c->draws;
        for (uint64_t d = (uint64_t)ch * LSM_CHUNK_DRAWS; d < end; d++) {
            fc_lsm_bridge_back(s, c->seed, d, k, &c->w[2 * d]);
            for (int l = 0; l < 2; l++) {
                uint64_t p = 2 * d + (uint64_t)l;
                c->cash[p] *= s->disc_step;
                double S = fc_lsm_price_at(s, k, c->w[p]);
                if (!(fc_lsm_payoff(s, S) > 0.0)) continue;
                double phi[NB];
                fc_lsm_basis(s, S, phi);
                for (int i = 0; i < nb; i++) {
                    e->rhs[i] += phi[i] * c->cash[p];
                    for (int j = 0; j <= i; j++) e->gram[i * NB + j] += phi[i] * phi[j];
                }
            }
        }
    }
    memset(total, 0, sizeof *total);
    for (uint64_t ch = 0; ch < n_chunks; ch++)
        for (int i = 0; i < nb; i++) {
            total->rhs[i] += chunk[ch].rhs[i];
            for (int j = 0; j <= i; j++) total->gram[i * NB + j] += chunk[ch].gram[i * NB + j];
        }
}

/* Step k's exercise: paths in the money whose payoff beats the fit take it. */
static void exercise(calibration *c, uint32_t k) {
    const fc_lsm_spec *s = &c->spec;
    #pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < (int64_t)(2 * c->draws); p++) {
        double S = fc_lsm_price_at(s, k, c->w[p]), ex = fc_lsm_payoff(s, S);
        if (ex > 0.0 && ex >= fc_lsm_continuation(s, k, S)) c->cash[p] = ex;
    }
}

/* The backward pass: one fit per date t_{N-1} .. t_1 into c->beta. */
static fc_status calibrate(calibration *c, double *in_sample) {
    const fc_lsm_spec *s = &c->spec;
    const int nb = s->degree + 1;
    uint64_t n_chunks = (c->draws + LSM_CHUNK_DRAWS - 1) / LSM_CHUNK_DRAWS;
    normal_eq *chunk = fc_malloc((size_t)n_chunks * sizeof *chunk, "regression sums");
    if (!chunk) return FC_ERR_MEMORY;
    for (uint64_t d = 0; d < c->draws; d++) {
        fc_lsm_terminal(s, c->seed, d, &c->w[2 * d]);
        for (int l = 0; l < 2; l++)
            c->cash[2 * d + l] = fc_lsm_payoff(s, fc_lsm_price_at(s, s->n_steps, c->w[2 * d + l]));
    }
    fc_status st = FC_OK;
    for (uint32_t k = s->n_steps - 1; k >= 1 && st == FC_OK; k--) {
        normal_eq e;
        accumulate(c, k, &e, chunk, n_chunks);
        for (int i = 0; i < nb; i++)   /* the lower triangle summed; LAPACK wants the full matrix, column-major */
            for (int j = 0; j < i; j++) e.gram[j * NB + i] = e.gram[i * NB + j];
        normal_eq packed;   /* nb x nb, leading dimension nb */
        for (int i = 0; i < nb; i++) {
            packed.rhs[i] = e.rhs[i];
            for (int j = 0; j < nb; j++) packed.gram[j * nb + i] = e.gram[i * NB + j];
        }
        double *beta = c->beta + (size_t)(k - 1) * (size_t)nb;
        st = solve_fit(&packed, nb, beta);
        if (st == FC_OK) exercise(c, k);
    }
    double sum = 0.0;
    for (uint64_t p = 0; p < 2 * c->draws; p++) sum += c->cash[p];
    *in_sample = s->disc_step * sum / (double)(2 * c->draws);
    free(chunk);
    return st;
}

/* The forward pass over the pricing paths, through the Monte Carlo engine
 * every option shares (its chunks, their order, a GPU): mean and standard
 * error over the samples (antithetic pair means, two a draw). The grid
 * arrays are those any spec carries for a backend to stage. */
static fc_status price_paths(const fc_lsm_spec *s, size_t n_coef, struct fc_backend *be, uint64_t seed,
                             uint64_t draws, double *mean, double *se) {
    double *grid = fc_calloc(s->n_steps, 2 * sizeof(double) + 1, "pricing path grid");
    if (!grid) return FC_ERR_MEMORY;
    fc_mc_spec spec = {.strike = s->strike, .is_call = s->is_call, .n_steps = s->n_steps, .drift = grid,
                       .vol = grid + s->n_steps, .fixing = (unsigned char *)(grid + 2 * s->n_steps),
                       .is_lsm = 1, .lsm = *s, .coef = s->beta, .n_coef = (uint32_t)n_coef};
    fc_mc_sums sums;
    fc_status st = fc_mc_run_draws(be, &spec, seed, draws, &sums);
    free(grid);
    FC_TRY(st);
    double n = (double)(2 * draws);
    *mean = sums.x / n;
    double var = (sums.xx - n * *mean * *mean) / (n - 1.0);
    *se = sqrt((var > 0.0 ? var : 0.0) / n);
    return FC_OK;
}

fc_status fc_lsm_price(const fc_lsm_option *o, struct fc_backend *be, fc_lsm_result *out) {
    FC_TRY(check_option(o));
    memset(out, 0, sizeof *out);
    const fc_bs_market *m = &o->market;
    const size_t nb = (size_t)o->degree + 1;
    calibration c = {.seed = o->seed, .draws = (o->calibration_paths + 1) / 2};
    double dt = m->expiry / (double)o->steps;
    c.spec = (fc_lsm_spec){.spot = m->spot, .strike = m->strike, .is_call = o->type == FC_CALL,
                           .n_steps = (uint32_t)o->steps, .dt = dt, .sqrt_dt = sqrt(dt),
                           .mu = m->rate - m->div - 0.5 * m->vol * m->vol, .vol = m->vol,
                           .disc_step = exp(-m->rate * dt), .degree = o->degree,
                           .log_k_over_s0 = log(m->strike / m->spot)};
    c.w = fc_malloc((size_t)(2 * c.draws) * sizeof(double), "calibration paths");
    c.cash = fc_malloc((size_t)(2 * c.draws) * sizeof(double), "calibration cash flows");
    c.beta = fc_calloc((o->steps - 1) * nb, sizeof(double), "regression coefficients");
    c.spec.beta = c.beta;
    fc_status st = c.w && c.cash && c.beta ? FC_OK : FC_ERR_MEMORY;
    if (st == FC_OK) st = calibrate(&c, &out->calibration_price);
    uint64_t draws = (o->paths + 3) / 4;   /* 4 paths a draw: two antithetic pairs */
    if (st == FC_OK) st = price_paths(&c.spec, (o->steps - 1) * nb, be, o->seed, draws, &out->estimate, &out->std_error);
    if (st == FC_OK) {
        out->paths = 4 * draws;
        out->calibration_paths = 2 * c.draws;
        double today = fc_lsm_payoff(&c.spec, m->spot);
        out->price = today > out->estimate ? today : out->estimate;
        if (!isfinite(out->price) || !isfinite(out->std_error))
            st = fc_error(FC_ERR_INVALID, "the Longstaff-Schwartz price is not finite (%g): the inputs (--r, --q, "
                          "--sigma, --T) are beyond what double precision can simulate", out->price);
    }
    free(c.w), free(c.cash), free(c.beta);
    return st;
}
