/* fcast_eval_file (fcast.h): the request's checks, then its form. The
 * checks are `fcast eval`'s flag rules, in its order, so the CLI refuses
 * a bad command line with the library's words (FCAST_NAMES_FLAGS). */
#include "api/api.h"
#include "api/api_eval.h"
#include "core/error.h"
#include "eval/score_write.h"

static fc_status refuse(const char *why) { return fc_error(FC_ERR_INVALID, "%s", why); }

/* The fields that go with --model. */
static fc_status check_model_form(const fcast_eval_request *r) {
    if (!r->train || !r->test) return refuse("--model needs --train and --test");
    if (r->per_series || r->freq || fc_score_format_parse(r->format ? r->format : "table") != FC_SCORE_TABLE)
        return refuse("--per-series, --freq and --format go with --cv or --forecasts, not --model");
    return FC_OK;
}

/* The fields that go with --cv or --forecasts. */
static fc_status check_file_form(const fcast_eval_request *r) {
    if (r->cv && r->test) return refuse("--test goes with --model or --forecasts; a --cv file holds its y");
    if (r->forecasts && (!r->test || !r->train))
        return refuse("--forecasts needs --test (the actual values) and --train (the history: each series' cutoff)");
    if (r->freq && !r->train) return refuse("--freq is the frequency of --train");
    return FC_OK;
}

static fc_status check(const fcast_eval_request *r) {
    if (!r) return refuse("fcast_eval: the request is NULL");
    int inputs = (r->model != NULL) + (r->cv != NULL) + (r->forecasts != NULL);
    if (inputs != 1)
        return refuse("give one of --model (with --train and --test), --cv, or --forecasts (with --test and --train)");
    if (r->season < 1) return refuse("--season must be >= 1");
    if (fc_score_format_parse(r->format ? r->format : "table") < 0) return refuse("--format must be table, csv or json");
    return r->model ? check_model_form(r) : check_file_form(r);
}

fc_status fcast_eval_check(const fcast_eval_request *r) { return fc_api_words(check(r)); }

fc_status fcast_eval_file(const fcast_eval_request *r) {
    fc_status st = check(r);
    if (st == FC_OK) st = r->model ? fc_api_eval_model(r) : fc_api_eval_scores_file(r);
    return fc_api_words(st);
}
