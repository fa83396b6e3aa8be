/* fcast quant portfolio's table and CSV (quant_portfolio_print.h); its
 * JSON is the library's fcast_portfolio_json. */
#include "quant_portfolio_print.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double ret, vol, sharpe;   /* a year */
} pf_stats;

static pf_stats stats_of(const pf_output *o, const double *w) {
    const size_t N = fcast_returns_n_assets(o->r);
    double m = 0.0, v = 0.0;
    for (size_t i = 0; i < N; i++) {
        m += w[i] * o->mu[i];
        for (size_t j = 0; j < N; j++) v += w[i] * o->cov[i * N + j] * w[j];
    }
    pf_stats s = {m * PF_PERIODS_PER_YEAR, sqrt(fmax(v, 0.0) * PF_PERIODS_PER_YEAR), NAN};
    if (s.vol > 0.0) s.sharpe = (s.ret - o->rf_annual) / s.vol;
    return s;
}

/* %.17g, or an empty field for NaN (fcast's CSVs' missing value). */
static void csv_number(FILE *f, double v) {
    if (!isnan(v)) fprintf(f, "%.17g", v + 0.0);
}

static void write_csv(FILE *f, const pf_output *o) {
    const size_t N = fcast_returns_n_assets(o->r);
    fputs("portfolio,target_return,annual_return,annual_volatility,sharpe", f);
    for (size_t j = 0; j < N; j++) fputc(',', f), fcast_csv_write_field(f, fcast_returns_id(o->r, j));
    fputc('\n', f);
    for (size_t k = 0; k < o->n_res; k++) {
        const pf_result *p = &o->res[k];
        pf_stats s = stats_of(o, p->w);
        fprintf(f, "%s,", p->name);
        csv_number(f, p->target);
        double v[3] = {s.ret, s.vol, s.sharpe};
        for (int i = 0; i < 3; i++) fputc(',', f), csv_number(f, v[i]);
        for (size_t j = 0; j < N; j++) fputc(',', f), csv_number(f, p->w[j]);
        fputc('\n', f);
    }
}

static void text_block(FILE *f, const pf_output *o, const pf_result *p) {
    const size_t N = fcast_returns_n_assets(o->r);
    pf_stats s = stats_of(o, p->w);
    fprintf(f, "%s: expected annual return %.6f, annual volatility %.6f, Sharpe %.6f\n", p->title, s.ret, s.vol,
            s.sharpe);
    for (size_t j = 0; j < N; j++) fprintf(f, "  %-16s %12.6f\n", fcast_returns_id(o->r, j), p->w[j] + 0.0);
}

/* The frontier's points as one table: a row per point. */
static void text_frontier(FILE *f, const pf_output *o, size_t first, size_t n) {
    const size_t N = fcast_returns_n_assets(o->r);
    fprintf(f, "efficient frontier (%zu points, annual figures):\n  %10s %10s %10s", n, "return", "volatility",
            "sharpe");
    for (size_t j = 0; j < N; j++) fprintf(f, " %10.10s", fcast_returns_id(o->r, j));
    fputc('\n', f);
    for (size_t k = first; k < first + n; k++) {
        pf_stats s = stats_of(o, o->res[k].w);
        fprintf(f, "  %10.6f %10.6f %10.6f", s.ret, s.vol, s.sharpe);
        for (size_t j = 0; j < N; j++) fprintf(f, " %10.6f", o->res[k].w[j] + 0.0);
        fputc('\n', f);
    }
}

static void write_text(FILE *f, const pf_output *o) {
    const size_t N = fcast_returns_n_assets(o->r);
    fprintf(f, "%s: %zu assets aligned on ds (inner join), %zu returns; fully invested, ", o->path, N,
            fcast_returns_n_periods(o->r));
    if (!o->lo) fputs("shorts allowed\n", f);
    else {
        int same = 1;   /* one box for all: printed once */
        for (size_t j = 1; j < N; j++) same &= o->lo[j] == o->lo[0] && o->hi[j] == o->hi[0];
        fputs("weights within", f);
        if (same) fprintf(f, " [%g, %g]", o->lo[0], o->hi[0]);
        for (size_t j = 0; !same && j < N; j++)
            fprintf(f, " %s [%g, %g]", fcast_returns_id(o->r, j), o->lo[j], o->hi[j]);
        fputc('\n', f);
    }
    if (!isnan(o->shrinkage))
        fprintf(f, "covariance: Ledoit-Wolf (scikit-learn's ledoit_wolf), shrinkage %.6f\n", o->shrinkage);
    for (size_t k = 0; k < o->n_res;) {
        if (strncmp(o->res[k].name, "frontier_", 9)) {
            text_block(f, o, &o->res[k++]);
            continue;
        }
        size_t n = 0;
        while (k + n < o->n_res && !strncmp(o->res[k + n].name, "frontier_", 9)) n++;
        text_frontier(f, o, k, n);
        k += n;
    }
}

fc_status pf_write(FILE *f, void *ctx) {
    const pf_output *o = ctx;
    if (o->format == PF_CSV) write_csv(f, o);
    else write_text(f, o);
    return FC_OK;
}
