/* fcast_portfolio_answer and fcast_portfolio_json (fcast/quant_portfolio.h):
 * the portfolios `fcast quant portfolio` asks for, solved once and written
 * as its table, its CSV or its one JSON object, here so that the CLI's
 * three outputs and fcast serve's POST /v1/quant/portfolio share one
 * computation and one writer each and cannot drift apart. The
 * combinations of flags (keys) are checked by each caller, whose messages
 * name its own flags; what is left to check here is the library's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fcast.h"

#define PERIODS_PER_YEAR 252.0   /* fcast_risk's year */
#define MAX_FRONTIER FCAST_PORTFOLIO_MAX_FRONTIER
#define MAX_RESULTS (4 + MAX_FRONTIER)

typedef enum { CLOSED_FORM, ACTIVE_SET, NEWTON } solver_kind;

typedef struct {
    char name[32];        /* min_variance, target_return, max_sharpe, risk_parity, frontier_K */
    char title[96];       /* the table's heading */
    double target;        /* the annual target return, NaN when none */
    double *w;
    fcast_portfolio_report report;
    solver_kind solver;
} result;

typedef struct {
    const fcast_portfolio_request *q;
    size_t N;
    double *mu, *cov, *weights, *rc;   /* weights: MAX_RESULTS x N, used as needed */
    double shrinkage;
    result res[MAX_RESULTS];
    size_t n_res;
} run;

static int bounded(const fcast_portfolio_request *q) { return q->lower != NULL; }

static result *next_result(run *r, const char *name, const char *title, double target, solver_kind solver) {
    result *p = &r->res[r->n_res];
    *p = (result){.target = target, .w = r->weights + r->n_res * r->N, .solver = solver};
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->title, sizeof p->title, "%s", title);
    r->n_res++;
    return p;
}

/* Minimum variance and the target return: closed form without bounds. */
static fc_status solve_min_variance(run *r) {
    const fcast_portfolio_request *q = r->q;
    const int b = bounded(q);
    result *p = next_result(r, "min_variance", "minimum variance", NAN, b ? ACTIVE_SET : CLOSED_FORM);
    fc_status st = b ? fcast_portfolio_bounded_min_variance(r->mu, r->cov, r->N, q->lower, q->upper, p->w, &p->report)
                     : fcast_portfolio_unbounded_min_variance(r->cov, r->N, p->w);
    if (st != FC_OK || !q->target_given) return st;
    char title[96];
    snprintf(title, sizeof title, "target return %g a year", q->target_return);
    p = next_result(r, "target_return", title, q->target_return, b ? ACTIVE_SET : CLOSED_FORM);
    const double t = q->target_return / PERIODS_PER_YEAR;
    return b ? fcast_portfolio_bounded_target_return(r->mu, r->cov, r->N, q->lower, q->upper, t, p->w, &p->report)
             : fcast_portfolio_unbounded_target_return(r->mu, r->cov, r->N, t, p->w);
}

static fc_status solve_others(run *r) {
    const fcast_portfolio_request *q = r->q;
    const size_t N = r->N;
    fc_status st = FC_OK;
    if (q->max_sharpe) {
        char title[96];
        snprintf(title, sizeof title, "maximum Sharpe (risk-free %g a year)", q->risk_free);
        result *p = next_result(r, "max_sharpe", title, NAN, ACTIVE_SET);
        st = fcast_portfolio_max_sharpe(r->mu, r->cov, N, q->lower, q->upper, q->risk_free / PERIODS_PER_YEAR, p->w,
                                        &p->report);
    }
    if (st == FC_OK && q->risk_parity) {
        result *p = next_result(r, "risk_parity", q->budgets ? "risk budgets" : "risk parity", NAN, NEWTON);
        st = fcast_portfolio_risk_parity(r->cov, N, q->budgets, p->w, &p->report);
    }
    if (st == FC_OK && q->frontier) {
        double targets[MAX_FRONTIER];
        fcast_portfolio_report rep;
        const size_t first = r->n_res;
        st = fcast_portfolio_frontier(r->mu, r->cov, N, q->lower, q->upper, q->frontier, targets,
                                      r->weights + first * N, &rep);
        for (size_t k = 0; st == FC_OK && k < q->frontier; k++) {
            char name[32];
            snprintf(name, sizeof name, "frontier_%zu", k);
            result *p = next_result(r, name, name, targets[k] * PERIODS_PER_YEAR, ACTIVE_SET);
            p->report = rep;   /* the frontier's, all points together */
        }
    }
    return st;
}

static fc_status check_request(const char *fn, const fcast_portfolio_request *q) {
    if (!q || !q->returns || !q->ids)
        return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !q ? "request" : !q->returns ? "returns" : "ids");
    if (!q->lower != !q->upper)
        return fc_error(FC_ERR_INVALID, "%s: lower and upper: give both (bounded) or neither (shorts allowed)", fn);
    if ((q->max_sharpe || q->frontier) && !q->lower)
        return fc_error(FC_ERR_INVALID, "%s: %s needs bounds on the weights (lower, upper)", fn,
                        q->frontier ? "frontier" : "max_sharpe");
    if (q->frontier && (q->frontier < 2 || q->frontier > MAX_FRONTIER))
        return fc_error(FC_ERR_INVALID, "%s: frontier = %zu: expected 2 to %d points (0: none)", fn, q->frontier,
                        MAX_FRONTIER);
    if (q->budgets && !q->risk_parity) return fc_error(FC_ERR_INVALID, "%s: budgets need risk_parity", fn);
    /* before the n_assets^2 covariance is allocated */
    if (q->n_assets < 1 || q->n_assets > FCAST_PORTFOLIO_MAX_ASSETS)
        return fc_error(FC_ERR_INVALID, "%s: n_assets = %zu: expected 1 to %d assets", fn, q->n_assets,
                        FCAST_PORTFOLIO_MAX_ASSETS);
    return FC_OK;
}

static fc_status alloc_run(run *r) {
    const size_t N = r->N;
    r->mu = malloc(N * sizeof *r->mu), r->cov = malloc(N * N * sizeof *r->cov), r->rc = malloc(N * sizeof *r->rc);
    r->weights = malloc(MAX_RESULTS * N * sizeof *r->weights);
    if (!r->mu || !r->cov || !r->rc || !r->weights)
        return fc_error(FC_ERR_MEMORY, "out of memory (the covariance of %zu assets)", N);
    return FC_OK;
}

static void free_run(run *r) { free(r->mu), free(r->cov), free(r->rc), free(r->weights); }

/* ---- the JSON text ---- */

static void json_number(FILE *f, double v) {
    if (isfinite(v)) fprintf(f, "%.17g", v + 0.0);
    else fputs("null", f);
}

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* {"ID": v, ...} of the assets. */
static void json_by_asset(FILE *f, const run *r, const double *v) {
    fputc('{', f);
    for (size_t j = 0; j < r->N; j++) {
        if (j) fputs(", ", f);
        json_string(f, r->q->ids[j]);
        fputs(": ", f);
        json_number(f, v[j]);
    }
    fputc('}', f);
}

typedef struct {
    double ret, vol, sharpe;   /* a year */
} pf_stats;

static pf_stats stats_of(const run *r, const double *w) {
    const size_t N = r->N;
    double m = 0.0, v = 0.0;
    for (size_t i = 0; i < N; i++) {
        m += w[i] * r->mu[i];
        for (size_t j = 0; j < N; j++) v += w[i] * r->cov[i * N + j] * w[j];
    }
    pf_stats s = {m * PERIODS_PER_YEAR, sqrt(fmax(v, 0.0) * PERIODS_PER_YEAR), NAN};
    if (s.vol > 0.0) s.sharpe = (s.ret - r->q->risk_free) / s.vol;
    return s;
}

static void json_portfolio(FILE *f, run *r, const result *p) {
    static const char *solvers[3] = {"closed form", "active set", "newton"};
    const size_t N = r->N;
    pf_stats s = stats_of(r, p->w);
    fputs("{\"name\": ", f), json_string(f, p->name);
    fputs(", \"target_return\": ", f), json_number(f, p->target);
    fputs(", \"annual_return\": ", f), json_number(f, s.ret);
    fputs(", \"annual_volatility\": ", f), json_number(f, s.vol);
    fputs(", \"sharpe\": ", f), json_number(f, s.sharpe);
    fputs(", \"weights\": ", f), json_by_asset(f, r, p->w);
    if (fcast_portfolio_risk_contributions(r->cov, N, p->w, r->rc) != FC_OK)
        for (size_t j = 0; j < N; j++) r->rc[j] = NAN;
    fputs(", \"risk_contributions\": ", f), json_by_asset(f, r, r->rc);
    fprintf(f, ", \"solver\": \"%s\"", solvers[p->solver]);
    if (p->solver != CLOSED_FORM) {
        fprintf(f, ", \"iterations\": %zu, \"active_constraints\": %zu, \"residual\": ", p->report.iterations,
                p->report.n_active);
        json_number(f, p->report.residual);
    }
    fputc('}', f);
}

static void write_json(FILE *f, run *r) {
    const fcast_portfolio_request *q = r->q;
    fputs("{\"data\": ", f), json_string(f, q->data ? q->data : "");
    fprintf(f, ", \"n_assets\": %zu, \"n_returns\": %zu, \"periods_per_year\": %g, \"covariance\": \"%s\", "
            "\"shrinkage\": ", r->N, q->n_periods, PERIODS_PER_YEAR, q->ledoit_wolf ? "ledoit-wolf" : "sample");
    json_number(f, r->shrinkage);
    fputs(", \"risk_free\": ", f), json_number(f, q->risk_free);
    fputs(", \"bounds\": ", f);
    if (!bounded(q)) fputs("null", f);
    else {
        fputs("{\"lower\": ", f), json_by_asset(f, r, q->lower);
        fputs(", \"upper\": ", f), json_by_asset(f, r, q->upper);   /* +inf: null */
        fputc('}', f);
    }
    fputs(", \"portfolios\": [", f);
    for (size_t k = 0; k < r->n_res; k++) {
        if (k) fputs(", ", f);
        json_portfolio(f, r, &r->res[k]);
    }
    fputs("]}", f);
}

/* ---- the CSV and the table ---- */

/* %.17g, or an empty field for NaN (fcast's CSVs' missing value). */
static void csv_number(FILE *f, double v) {
    if (!isnan(v)) fprintf(f, "%.17g", v + 0.0);
}

static void write_csv(FILE *f, run *r) {
    fputs("portfolio,target_return,annual_return,annual_volatility,sharpe", f);
    for (size_t j = 0; j < r->N; j++) fputc(',', f), fcast_csv_write_field(f, r->q->ids[j]);
    fputc('\n', f);
    for (size_t k = 0; k < r->n_res; k++) {
        const result *p = &r->res[k];
        pf_stats s = stats_of(r, p->w);
        fprintf(f, "%s,", p->name);
        csv_number(f, p->target);
        double v[3] = {s.ret, s.vol, s.sharpe};
        for (int i = 0; i < 3; i++) fputc(',', f), csv_number(f, v[i]);
        for (size_t j = 0; j < r->N; j++) fputc(',', f), csv_number(f, p->w[j]);
        fputc('\n', f);
    }
}

static void text_block(FILE *f, const run *r, const result *p) {
    pf_stats s = stats_of(r, p->w);
    fprintf(f, "%s: expected annual return %.6f, annual volatility %.6f, Sharpe %.6f\n", p->title, s.ret, s.vol,
            s.sharpe);
    for (size_t j = 0; j < r->N; j++) fprintf(f, "  %-16s %12.6f\n", r->q->ids[j], p->w[j] + 0.0);
}

/* The frontier's points as one table: a row per point. */
static void text_frontier(FILE *f, const run *r, size_t first, size_t n) {
    fprintf(f, "efficient frontier (%zu points, annual figures):\n  %10s %10s %10s", n, "return", "volatility",
            "sharpe");
    for (size_t j = 0; j < r->N; j++) fprintf(f, " %10.10s", r->q->ids[j]);
    fputc('\n', f);
    for (size_t k = first; k < first + n; k++) {
        pf_stats s = stats_of(r, r->res[k].w);
        fprintf(f, "  %10.6f %10.6f %10.6f", s.ret, s.vol, s.sharpe);
        for (size_t j = 0; j < r->N; j++) fprintf(f, " %10.6f", r->res[k].w[j] + 0.0);
        fputc('\n', f);
    }
}

static void text_header(FILE *f, const run *r) {
    const fcast_portfolio_request *q = r->q;
    fprintf(f, "%s: %zu assets aligned on ds (inner join), %zu returns; fully invested, ", q->data ? q->data : "",
            r->N, q->n_periods);
    if (!bounded(q)) fputs("shorts allowed\n", f);
    else {
        int same = 1;   /* one box for all: printed once */
        for (size_t j = 1; j < r->N; j++) same &= q->lower[j] == q->lower[0] && q->upper[j] == q->upper[0];
        fputs("weights within", f);
        if (same) fprintf(f, " [%g, %g]", q->lower[0], q->upper[0]);
        for (size_t j = 0; !same && j < r->N; j++) fprintf(f, " %s [%g, %g]", q->ids[j], q->lower[j], q->upper[j]);
        fputc('\n', f);
    }
    if (!isnan(r->shrinkage))
        fprintf(f, "covariance: Ledoit-Wolf (scikit-learn's ledoit_wolf), shrinkage %.6f\n", r->shrinkage);
}

static void write_text(FILE *f, const run *r) {
    text_header(f, r);
    for (size_t k = 0; k < r->n_res;) {
        if (strncmp(r->res[k].name, "frontier_", 9)) {
            text_block(f, r, &r->res[k++]);
            continue;
        }
        size_t n = 0;
        while (k + n < r->n_res && !strncmp(r->res[k + n].name, "frontier_", 9)) n++;
        text_frontier(f, r, k, n);
        k += n;
    }
}

static fc_status render(run *r, fcast_portfolio_format format, char **json) {
    size_t len = 0;
    FILE *f = open_memstream(json, &len);
    if (!f) return fc_error(FC_ERR_MEMORY, "out of memory writing the portfolios");
    if (format == FCAST_PORTFOLIO_CSV) write_csv(f, r);
    else if (format == FCAST_PORTFOLIO_TABLE) write_text(f, r);
    else write_json(f, r);
    if (fclose(f) != 0) {
        free(*json);
        *json = NULL;
        return fc_error(FC_ERR_MEMORY, "out of memory writing the portfolios");
    }
    return FC_OK;
}

/* The portfolios of q into *text in the format, under the name fn. */
static fc_status answer(const char *fn, const fcast_portfolio_request *q, fcast_portfolio_format format, char **text) {
    if (!text) return fc_error(FC_ERR_INVALID, "%s: text is NULL", fn);
    *text = NULL;
    if (format != FCAST_PORTFOLIO_JSON && format != FCAST_PORTFOLIO_CSV && format != FCAST_PORTFOLIO_TABLE)
        return fc_error(FC_ERR_INVALID, "%s: format = %d: expected FCAST_PORTFOLIO_JSON, _CSV or _TABLE", fn,
                        (int)format);
    FC_TRY(check_request(fn, q));
    run r = {.q = q, .N = q->n_assets, .shrinkage = NAN};
    fc_status st = alloc_run(&r);
    if (st == FC_OK) st = fcast_portfolio_moments(q->returns, q->n_periods, q->n_assets, r.mu, r.cov);
    if (st == FC_OK && q->ledoit_wolf)
        st = fcast_portfolio_ledoit_wolf(q->returns, q->n_periods, q->n_assets, r.cov, &r.shrinkage);
    if (st == FC_OK) st = solve_min_variance(&r);
    if (st == FC_OK) st = solve_others(&r);
    if (st == FC_OK) st = render(&r, format, text);
    free_run(&r);
    return st;
}

fc_status fcast_portfolio_answer(const fcast_portfolio_request *q, fcast_portfolio_format format, char **text) {
    return answer("fcast_portfolio_answer", q, format, text);
}

fc_status fcast_portfolio_json(const fcast_portfolio_request *q, char **json) {
    return answer("fcast_portfolio_json", q, FCAST_PORTFOLIO_JSON, json);
}
