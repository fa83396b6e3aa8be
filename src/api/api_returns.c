/* The returns matrix of a price (or return) file through the library API
 * (fcast.h): the file read with its rows as given (trading days: a weekend
 * is not a missing value), the series aligned on ds by an inner join and
 * turned into simple returns (quant/returns.h), as `fcast quant risk` and
 * `fcast quant portfolio` read their --data. The loader's and the
 * alignment's messages name the file, the series and the ds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fcast.h"
#include "core/error.h"
#include "data/dataset.h"
#include "quant/returns.h"

struct fcast_returns {
    fc_dataset *d;   /* the ids */
    fc_panel p;      /* (n_periods, n_assets) row-major */
};

/* st, with the engine's hint for a file of returns ("pass --returns if the
 * file holds returns", the CLI's flag) in the API's words. */
static fc_status api_words(fc_status st) {
    static const char flag_hint[] = "pass --returns if the file holds returns";
    char msg[1024];   /* a copy: fc_error rewrites the message it reads */
    snprintf(msg, sizeof msg, "%s", fc_last_error());
    const char *at = strstr(msg, flag_hint);
    if (!at) return st;
    return fc_error(st, "%.*sare_returns = 1 reads a file of returns%s", (int)(at - msg), msg, at + strlen(flag_hint));
}

void fcast_returns_free(fcast_returns *r) {
    if (!r) return;
    fc_panel_free(&r->p);
    fc_dataset_free(&r->d);
    free(r);
}

fc_status fcast_returns_read_csv(const char *path, int are_returns, fcast_returns **out) {
    static const char fn[] = "fcast_returns_read_csv";
    if (!path || !out) return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !path ? "path" : "out");
    *out = NULL;
    if (are_returns != 0 && are_returns != 1)
        return fc_error(FC_ERR_INVALID, "%s: are_returns = %d: must be 0 (prices) or 1 (returns)", fn, are_returns);
    fcast_returns *r = calloc(1, sizeof *r);
    if (!r) return fc_error(FC_ERR_MEMORY, "%s: out of memory", fn);
    fc_load_options opt = {0};
    opt.keep_gaps = 1;   /* prices on trading days: a weekend is not a missing value */
    opt.drop_exog = 1;
    fc_status st = fc_dataset_load_csv(path, &opt, &r->d);
    /* returns: 2 common ds for a covariance; prices: 3, which make 2 returns */
    if (st == FC_OK) st = fc_panel_align(r->d, are_returns ? 2 : 3, &r->p);
    if (st == FC_OK) st = are_returns ? fc_panel_check_returns(&r->p) : fc_panel_to_returns(&r->p);
    if (st != FC_OK) {
        fcast_returns_free(r);
        return api_words(st);
    }
    *out = r;
    return FC_OK;
}

size_t fcast_returns_n_periods(const fcast_returns *r) { return r ? r->p.n_rows : 0; }

size_t fcast_returns_n_assets(const fcast_returns *r) { return r ? r->p.n_series : 0; }

const char *fcast_returns_id(const fcast_returns *r, size_t j) {
    return r && j < r->p.n_series ? r->d->ids[j] : NULL;
}

const double *fcast_returns_values(const fcast_returns *r) { return r ? r->p.values : NULL; }
