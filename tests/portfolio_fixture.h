/* The two return panels of python/make_portfolio_fixtures.py (eu: the
 * bundled index closes as returns; syn: its synthetic 20-asset returns)
 * and the rows of tests/fixtures/quant/portfolio_reference.csv, for the
 * constrained-portfolio tests. */
#ifndef FC_TESTS_PORTFOLIO_FIXTURE_H
#define FC_TESTS_PORTFOLIO_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "quant_fixture_csv.h"
#include "data/dataset.h"
#include "quant/portfolio.h"
#include "quant/returns.h"

#define PF_MAX_ROWS 2048
#define PF_MAX_ASSETS 20

typedef struct {
    fc_dataset *d;
    fc_panel p;
    size_t N, T;
    double mu[PF_MAX_ASSETS], cov[PF_MAX_ASSETS * PF_MAX_ASSETS];
} pf_panel;

static fixture_row pf_rows[PF_MAX_ROWS];
static int pf_n_rows = -1;

static inline void pf_load_rows(void) {
    if (pf_n_rows < 0)
        pf_n_rows = fixture_read(FC_SOURCE_DIR "/tests/fixtures/quant/portfolio_reference.csv", pf_rows, PF_MAX_ROWS);
    CHECK(pf_n_rows > 1000);
}

/* "eu" or "syn"; 0 on failure (a failed check). */
static inline int pf_panel_load(const char *name, pf_panel *out) {
    memset(out, 0, sizeof *out);
    int eu = !strcmp(name, "eu");
    const char *path = eu ? FC_SOURCE_DIR "/data/eu_stock_markets.csv"
                          : FC_SOURCE_DIR "/tests/fixtures/quant/portfolio_synthetic_returns.csv";
    fc_load_options opt = {0};
    int ok = fc_dataset_load_csv(path, &opt, &out->d) == FC_OK && fc_panel_align(out->d, 3, &out->p) == FC_OK &&
             (!eu || fc_panel_to_returns(&out->p) == FC_OK);
    CHECK_MSG(ok, "%s: %s", path, fc_last_error());
    if (!ok) return 0;
    out->N = out->p.n_series, out->T = out->p.n_rows;
    CHECK(out->N == (eu ? 4u : 20u));
    ok = out->N <= PF_MAX_ASSETS && fc_portfolio_moments(out->p.values, out->T, out->N, out->mu, out->cov) == FC_OK;
    CHECK(ok);
    return ok;
}

static inline void pf_panel_free(pf_panel *p) {
    fc_panel_free(&p->p);
    fc_dataset_free(&p->d);
}

/* The value of (case, key); NaN (and a failed check) when missing. */
static inline double pf_value(const char *kase, const char *key) {
    pf_load_rows();
    for (int i = 0; i < pf_n_rows; i++)
        if (!strcmp(pf_rows[i].a, kase) && !strcmp(pf_rows[i].b, key)) return pf_rows[i].v;
    CHECK_MSG(0, "fixture lacks %s %s", kase, key);
    return NAN;
}

/* The weights of a case in the panel's asset order. */
static inline void pf_weights(const pf_panel *p, const char *kase, double *w) {
    for (size_t j = 0; j < p->N; j++) w[j] = pf_value(kase, p->d->ids[j]);
}

#endif
